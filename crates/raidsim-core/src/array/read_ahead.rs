//! The RAID controller's read-ahead.
//!
//! A hardware RAID controller may read beyond what the host asked and keep
//! it in its cache memory, so that the next sequential read is answered
//! without touching the drives. LSI MegaRAID offers "No Read Ahead" (the
//! RAIS paper's setting, its Table 1), "Always Read Ahead" and "Adaptive
//! Read Ahead" (only once the two most recent reads were sequential):
//! `array.controller.read_ahead = "off" | "always" | "adaptive"`.
//!
//! The model: after a host read of `[offset, end)` that the policy takes,
//! the controller makes sure `[end, end + read_ahead_bytes)` is in the cache
//! or on its way: it follows the data already read ahead from `end`, and if
//! that stops short, reads `read_ahead_bytes` more from where it stops (up to
//! the next extent already held, and the array's end). Read-ahead is
//! internal: no controller overhead, no host link, but the members' time.
//! Extents are kept until their bytes are needed for a newer one, oldest
//! first (`cache_bytes` in all); an extent with reads waiting on it stays.
//!
//! A host read wholly in held data is a hit, answered from the cache; one
//! wholly in held data some of which is still being read waits for it; any
//! other read goes to the members. A host write drops every extent it
//! overlaps, wholly (reads waiting on one still get its data: they came
//! first). A write-
//! back cache with read-ahead is refused by the configuration, since data
//! read ahead could be older than a write still in the cache.

use crate::config::ReadAheadPolicy;
use std::collections::{BTreeMap, VecDeque};

/// What a host read finds in the read-ahead data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Not all of it is held: the members serve it.
    Miss,
    /// All of it is held and read: answered from the cache.
    Hit,
    /// All of it is held, but the extent starting here is still being read:
    /// the read waits for it.
    Pending(u64),
}

/// One extent read ahead.
#[derive(Debug)]
struct Extent {
    end: u64,
    /// The controller job reading it.
    job: u32,
    /// That read is still in flight.
    pending: bool,
    /// Host reads waiting for it to be filled.
    waiters: Vec<u32>,
    /// `sim.verify`: the version of each sector when it was read.
    versions: Vec<u64>,
}

/// The read-ahead data a controller holds.
#[derive(Debug)]
pub struct ReadAheadCache {
    policy: ReadAheadPolicy,
    chunk_bytes: u64,
    capacity_bytes: u64,
    /// The array's end: nothing is read beyond it.
    limit_bytes: u64,
    used_bytes: u64,
    /// Held extents, start → extent; disjoint.
    extents: BTreeMap<u64, Extent>,
    /// Extent starts, oldest first (eviction order).
    order: VecDeque<u64>,
    /// Reads waiting on extents a write dropped while they were being read,
    /// by the job reading the dropped extent: released when it ends.
    orphans: Vec<(u32, Vec<u32>)>,
    /// Where the previous host read ended (`adaptive`).
    last_read_end: Option<u64>,
}

impl ReadAheadCache {
    /// An empty cache; `policy` must not be `Off`.
    pub fn new(policy: ReadAheadPolicy, chunk_bytes: u64, capacity_bytes: u64, limit_bytes: u64) -> Self {
        Self {
            policy,
            chunk_bytes,
            capacity_bytes,
            limit_bytes,
            used_bytes: 0,
            extents: BTreeMap::new(),
            order: VecDeque::new(),
            orphans: Vec::new(),
            last_read_end: None,
        }
    }

    /// Where held data contiguous from `from` ends, and the start of the
    /// first pending extent on the way (if any).
    fn covered_from(&self, from: u64) -> (u64, Option<u64>) {
        let mut at = from;
        let mut pending = None;
        if let Some((&start, e)) = self.extents.range(..=from).next_back() {
            if e.end > from {
                at = e.end;
                pending = e.pending.then_some(start);
            }
        }
        while let Some(e) = self.extents.get(&at) {
            pending = pending.or(e.pending.then_some(at));
            at = e.end;
        }
        (at, pending)
    }

    /// What a host read of `[offset, offset + len)` finds.
    pub fn lookup(&self, offset_bytes: u64, len_bytes: u64) -> Lookup {
        let end = offset_bytes + len_bytes;
        let (mut at, mut pending) = match self.extents.range(..=offset_bytes).next_back() {
            Some((&start, e)) if e.end > offset_bytes => (e.end, e.pending.then_some(start)),
            _ => return Lookup::Miss,
        };
        // Walk only as far as the read reaches.
        while at < end {
            let Some(e) = self.extents.get(&at) else { return Lookup::Miss };
            pending = pending.or(e.pending.then_some(at));
            at = e.end;
        }
        pending.map_or(Lookup::Hit, Lookup::Pending)
    }

    /// Host read `job` waits for the extent starting at `start`.
    pub fn wait(&mut self, start: u64, job: u32) -> bool {
        self.extents.get_mut(&start).filter(|e| e.pending).map(|e| e.waiters.push(job)).is_some()
    }

    /// A host read of `[offset, offset + len)` was taken (hit or miss): the
    /// extent to read ahead now, if the policy and the cache say so.
    pub fn after_read(&mut self, offset_bytes: u64, len_bytes: u64) -> Option<(u64, u64)> {
        let end = offset_bytes + len_bytes;
        let sequential = self.last_read_end == Some(offset_bytes);
        self.last_read_end = Some(end);
        if self.policy == ReadAheadPolicy::Adaptive && !sequential {
            return None;
        }
        let (from, _) = self.covered_from(end);
        let want = end.saturating_add(self.chunk_bytes).min(self.limit_bytes);
        if from >= want {
            return None;
        }
        let next_held = self.extents.range(from..).next().map_or(u64::MAX, |(&s, _)| s);
        let to = from.saturating_add(self.chunk_bytes).min(self.limit_bytes).min(next_held);
        (to > from && self.make_room(to - from)).then_some((from, to - from))
    }

    /// Drops the oldest extents nobody waits on until `bytes` fit.
    fn make_room(&mut self, bytes: u64) -> bool {
        let mut skipped = VecDeque::new();
        while self.used_bytes + bytes > self.capacity_bytes {
            let Some(start) = self.order.pop_front() else { break };
            match self.extents.get(&start) {
                Some(e) if e.pending => skipped.push_back(start),
                Some(e) => {
                    self.used_bytes -= e.end - start;
                    self.extents.remove(&start);
                }
                None => debug_assert!(false, "eviction order names {start}, which is not held"),
            }
        }
        while let Some(s) = skipped.pop_back() {
            self.order.push_front(s);
        }
        self.used_bytes + bytes <= self.capacity_bytes
    }

    /// Controller job `job` reads `[start, start + len)` (from [`Self::after_read`]).
    pub fn reading(&mut self, start: u64, len_bytes: u64, job: u32) {
        self.used_bytes += len_bytes;
        self.extents.insert(start, Extent { end: start + len_bytes, job, pending: true, waiters: Vec::new(), versions: Vec::new() });
        self.order.push_back(start);
    }

    /// Job `job`, reading ahead from `start`, ended (`served`: its data is
    /// good); the host reads that waited for it, and whether a write dropped
    /// the extent meanwhile (its waiters came before the write and get its
    /// data all the same). `None`: no such read was issued.
    pub fn filled(&mut self, job: u32, start: u64, served: bool) -> Option<(Vec<u32>, bool)> {
        if let Some(i) = self.orphans.iter().position(|&(j, _)| j == job) {
            return Some((self.orphans.swap_remove(i).1, true));
        }
        let e = self.extents.get_mut(&start).filter(|e| e.pending && e.job == job)?;
        e.pending = false;
        let waiters = std::mem::take(&mut e.waiters);
        if !served {
            self.used_bytes -= e.end - start;
            self.extents.remove(&start);
            self.order.retain(|&s| s != start);
        }
        Some((waiters, false))
    }

    /// `sim.verify`: the versions of the sectors of the extent read ahead from `start`.
    pub fn set_versions(&mut self, start: u64, versions: Vec<u64>) {
        if let Some(e) = self.extents.get_mut(&start) {
            e.versions = versions;
        }
    }

    /// `sim.verify`: the versions held for the sectors (`sector_bytes`
    /// each) that `[offset, offset + len)` touches, or `None` where an
    /// extent recorded none.
    pub fn versions(&self, offset_bytes: u64, len_bytes: u64, sector_bytes: u64) -> Option<Vec<u64>> {
        let sectors = offset_bytes / sector_bytes..(offset_bytes + len_bytes).div_ceil(sector_bytes);
        let mut out = Vec::with_capacity(sectors.clone().count());
        for sector in sectors {
            let addr = (sector * sector_bytes).max(offset_bytes);
            let (&start, e) = self.extents.range(..=addr).next_back().filter(|(_, e)| e.end > addr)?;
            out.push(*e.versions.get((sector - start / sector_bytes) as usize)?);
        }
        Some(out)
    }

    /// A host write of `[offset, offset + len)`: extents it overlaps are no
    /// longer the data.
    pub fn written(&mut self, offset_bytes: u64, len_bytes: u64) {
        let end = offset_bytes + len_bytes;
        let first = match self.extents.range(..=offset_bytes).next_back() {
            Some((&s, e)) if e.end > offset_bytes => s,
            _ => offset_bytes,
        };
        let hit: Vec<u64> = self.extents.range(first..end).map(|(&s, _)| s).collect();
        if hit.is_empty() {
            return;
        }
        self.order.retain(|s| !hit.contains(s));
        for s in hit {
            let Some(e) = self.extents.remove(&s) else { continue };
            self.used_bytes -= e.end - s;
            if e.pending {
                self.orphans.push((e.job, e.waiters));
            }
        }
    }

    /// Bytes held (read or being read).
    pub fn used_bytes(&self) -> u64 {
        self.used_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(policy: ReadAheadPolicy) -> ReadAheadCache {
        ReadAheadCache::new(policy, 8192, 16384, 1 << 20)
    }

    #[test]
    fn a_sequential_stream_keeps_one_chunk_ahead_and_hits_after_the_first_read() {
        let mut c = cache(ReadAheadPolicy::Always);
        assert_eq!(c.lookup(0, 4096), Lookup::Miss);
        assert_eq!(c.after_read(0, 4096), Some((4096, 8192)));
        c.reading(4096, 8192, 4096);
        assert_eq!(c.lookup(4096, 4096), Lookup::Pending(4096));
        assert!(c.wait(4096, 7));
        assert_eq!(c.filled(4096, 4096, true).expect("issued"), (vec![7], false));
        assert_eq!(c.lookup(4096, 4096), Lookup::Hit);
        // [8192, 16384) is wanted ahead of the read ending at 8192; [4096, 12288) is held.
        assert_eq!(c.after_read(4096, 4096), Some((12288, 8192)));
        c.reading(12288, 8192, 12288);
        assert_eq!(c.lookup(8192, 8192), Lookup::Pending(12288), "straddles a held and a pending extent");
        assert_eq!(c.lookup(8192, 16384), Lookup::Miss, "runs past what is held");
        assert_eq!(c.used_bytes(), 16384);
        // The cache is full: the next chunk evicts the oldest held extent.
        assert_eq!(c.after_read(12288, 8192), Some((20480, 8192)));
        assert_eq!(c.lookup(4096, 4096), Lookup::Miss, "[4096, 12288) was evicted");
        c.reading(20480, 8192, 20480);
        // Both held extents are being read: nothing can go, nothing is read ahead.
        assert_eq!(c.after_read(20480, 8192), None);
        assert_eq!(c.filled(12288, 12288, true).expect("issued"), (Vec::<u32>::new(), false));
        assert_eq!(c.after_read(20480, 8192), Some((28672, 8192)));
        assert_eq!(c.lookup(12288, 4096), Lookup::Miss, "[12288, 20480) was evicted, never the pending one");
        assert_eq!(c.lookup(20480, 4096), Lookup::Pending(20480));
    }

    #[test]
    fn adaptive_reads_ahead_only_after_two_sequential_reads_and_the_array_end_bounds_it() {
        let mut c = cache(ReadAheadPolicy::Adaptive);
        assert_eq!(c.after_read(65536, 4096), None, "the first read has no predecessor");
        assert_eq!(c.after_read(0, 4096), None, "not where the last one ended");
        assert_eq!(c.after_read(4096, 4096), Some((8192, 8192)));
        let mut c = cache(ReadAheadPolicy::Always);
        assert_eq!(c.after_read((1 << 20) - 6144, 4096), Some(((1 << 20) - 2048, 2048)));
        assert_eq!(c.after_read((1 << 20) - 4096, 4096), None, "nothing lies beyond the array");
    }

    #[test]
    fn a_write_drops_what_it_overlaps_and_waiters_on_a_dropped_extent_are_released() {
        let mut c = cache(ReadAheadPolicy::Always);
        c.reading(8192, 8192, 8192);
        assert!(c.wait(8192, 3));
        c.written(12287, 1);
        assert_eq!(c.lookup(8192, 4096), Lookup::Miss);
        assert_eq!(c.used_bytes(), 0);
        assert_eq!(c.filled(8192, 8192, true).expect("issued"), (vec![3], true), "the read that waited gets its data");
        c.reading(0, 4096, 0);
        c.filled(0, 0, true).expect("issued");
        c.written(4096, 4096);
        assert_eq!(c.lookup(0, 4096), Lookup::Hit, "a write that only touches its end leaves it");
        c.written(0, 1);
        assert_eq!(c.lookup(0, 4096), Lookup::Miss);
    }

    #[test]
    fn a_failed_read_ahead_releases_its_waiters_and_holds_nothing() {
        let mut c = cache(ReadAheadPolicy::Always);
        c.reading(0, 8192, 0);
        assert!(c.wait(0, 1));
        assert_eq!(c.filled(0, 0, false).expect("issued"), (vec![1], false));
        assert_eq!(c.lookup(0, 4096), Lookup::Miss);
        assert_eq!(c.used_bytes(), 0);
    }

    #[test]
    fn a_dropped_extent_and_its_successor_at_the_same_start_are_told_apart_by_job() {
        let mut c = cache(ReadAheadPolicy::Always);
        c.reading(0, 4096, 1);
        assert!(c.wait(0, 10));
        c.written(0, 512);
        c.reading(0, 4096, 2);
        assert!(c.wait(0, 20));
        // The newer read ends first: its waiter, not the dropped one's.
        assert_eq!(c.filled(2, 0, true), Some((vec![20], false)));
        assert_eq!(c.lookup(0, 4096), Lookup::Hit);
        assert_eq!(c.filled(1, 0, true), Some((vec![10], true)));
        assert_eq!(c.lookup(0, 4096), Lookup::Hit, "the dropped read's end leaves the newer data");
        assert_eq!(c.filled(3, 0, true), None, "job 3 never read ahead");
    }
}
