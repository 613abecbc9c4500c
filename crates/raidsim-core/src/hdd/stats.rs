//! What a disk's time went to, and what its cache did.

use crate::metrics::{Stat, Stats};

/// What the on-board cache did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheTimes {
    /// Reads served from a segment (read-ahead data on its way included).
    pub read_hits: u64,
    /// Sectors read ahead into segments.
    pub read_ahead_sectors: u64,
    /// Writes acknowledged from a segment.
    pub fast_writes: u64,
    /// Writes that joined the written data of a segment before its destage.
    pub combined_writes: u64,
    /// Passes that wrote segments' data to the media.
    pub destages: u64,
    /// Destage passes that wrote more than one segment's data.
    pub combined_destages: u64,
    /// Sectors destaged.
    pub destage_sectors: u64,
    /// Mechanism time spent destaging, ns.
    pub destage_ns: u64,
}

/// Time spent by the disk, ns, over the requests it served.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskTimes {
    /// Requests served (merged continuations and cache hits included).
    pub requests: u64,
    /// Requests served as the continuation of the previous one.
    pub merged: u64,
    /// Command overheads.
    pub overhead_ns: u64,
    /// Waiting for the mechanism to finish a destage or read-ahead.
    pub mechanism_wait_ns: u64,
    /// Seeks and head switches.
    pub seek_ns: u64,
    /// Waiting for sectors to come round.
    pub rotation_ns: u64,
    /// Moving the data: sectors passing under the head, or crossing a
    /// slower interface (with the track switches hidden behind it): all of
    /// a request's time that is neither overhead, waiting nor positioning.
    pub transfer_ns: u64,
    /// The cache's part.
    pub cache: CacheTimes,
}

impl DiskTimes {
    /// Seek and rotational wait.
    pub fn positioning_ns(&self) -> u64 {
        self.seek_ns + self.rotation_ns
    }

    /// Adds these statistics under `name` (the cache's when it has one).
    pub fn stats(&self, name: &str, cached: bool, out: &mut Stats) {
        let per = |v: u64| if self.requests == 0 { 0.0 } else { v as f64 / self.requests as f64 };
        let s = |p: &str, v: f64, u: &'static str, d: &'static str| Stat::new(format!("{name}.hdd.{p}"), v, u, d);
        out.push(s("requests", self.requests as f64, "requests", "requests the disk served"));
        out.push(s("merged", self.merged as f64, "requests", "requests served as the continuation of the previous one"));
        out.push(s("positioning.mean_ns", per(self.positioning_ns()), "ns", "mean seek plus rotational wait per request"));
        out.push(s("seek.mean_ns", per(self.seek_ns), "ns", "mean seek and head-switch time per request"));
        out.push(s("rotation.mean_ns", per(self.rotation_ns), "ns", "mean rotational wait per request"));
        out.push(s("transfer.mean_ns", per(self.transfer_ns), "ns", "mean data-moving time per request (media or interface)"));
        out.push(s("overhead.mean_ns", per(self.overhead_ns), "ns", "mean command overhead per request"));
        if !cached {
            return;
        }
        let c = &self.cache;
        out.push(s("mechanism_wait.mean_ns", per(self.mechanism_wait_ns), "ns", "mean wait for a destage or read-ahead to free the mechanism"));
        out.push(s("cache.read_hits", c.read_hits as f64, "requests", "reads served from the on-board cache"));
        out.push(s("cache.read_ahead_sectors", c.read_ahead_sectors as f64, "sectors", "sectors read ahead into the cache"));
        out.push(s("cache.fast_writes", c.fast_writes as f64, "requests", "writes acknowledged from the cache (write-back)"));
        out.push(s("cache.combined_writes", c.combined_writes as f64, "requests", "writes joined to cached written data before its destage"));
        out.push(s("cache.destages", c.destages as f64, "passes", "passes writing cached data to the media"));
        out.push(s("cache.combined_destages", c.combined_destages as f64, "passes", "destage passes that wrote several segments at once"));
        out.push(s("cache.destage_sectors", c.destage_sectors as f64, "sectors", "sectors written from the cache to the media"));
        out.push(s("cache.destage_ns", c.destage_ns as f64, "ns", "mechanism time spent destaging"));
    }
}
