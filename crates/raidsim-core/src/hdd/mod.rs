//! A hard disk: seek, rotation, transfer, one request at a time.
//!
//! The model is the one Chen & Lee (1995, §3.1 and Table 1) use in raidSim,
//! with the parts DiskSim adds that the stripe-unit paper's HDD tables need:
//!
//! ```text
//! request: [overhead] → seek to the cylinder (or switch head) → wait for the
//!          first sector to come round → transfer; for every further track:
//!          head switch (or one-cylinder seek) → wait → transfer
//! ```
//!
//! - **Geometry.** Logical sectors fill a track, then the next head of the
//!   cylinder, then the next cylinder (outermost first); zones of cylinders
//!   may have their own sectors per track. Only the first
//!   `capacity_limit_bytes` are used (Chen & Lee: the first 300 MB).
//! - **Seek.** `a·sqrt(x−1) + b·(x−1) + c` for `x ≥ 1` cylinders, `a`, `b`
//!   and `c` fitted to the single-cylinder, average (between two uniformly
//!   random cylinders) and max-stroke seek times
//!   ([`crate::config::fit_seek_curve`]).
//! - **Rotation.** The platter's angle is a function of simulated time:
//!   `(t + phase) mod revolution`. Sector `s` of a track starts at angle
//!   `skew + s·revolution/sectors_per_track`; each track is skewed by the
//!   head switch (and each cylinder by the one-cylinder seek) so that a
//!   sequential transfer loses only the switch, as formatted disks do.
//!   Spindles of an array turn in phase (`synchronized_spindles`) or with a
//!   phase drawn per disk from the seed.
//! - **Merging.** A request that starts at the sector after the previous one
//!   ended, in the same direction, dispatched the instant that one finishes,
//!   continues the transfer with no overhead and no positioning: the two are
//!   served as one large request (Chen & Lee §3.3).
//! - **Interface.** With `interface_sector_transfer_ns` set, the data of a
//!   request crosses the disk's interface at that time per sector, starting
//!   when its first sector passes under the head; the request ends when both
//!   the media and the interface are done (DiskSim's "bulk sector transfer
//!   time", which the stripe-unit paper's Table 10 lists per drive).
//! - **Queue.** One request at a time; the others wait, served FCFS (Chen &
//!   Lee), SSTF or C-LOOK.
//!
//! Simplifications, stated: there is no cache and no read-ahead beyond
//! merging, and a merged write continues at media speed as if the host's
//! data were already in the disk's buffer (the interface pacing above is
//! the only limit); zoned transfer rates come from each zone's sectors per
//! track, with no per-zone skew tuning; a disk never fails or remaps.
//!
//! Each request's time splits into positioning (seek, head switches and
//! rotational waits) and transfer (sectors under the head), reported per
//! member as the stripe-unit paper's Tables 7-9 do.

use crate::config::{HddConfig, HddGeometry, HddZone, QueuePolicy};
use crate::device::{CauseCounters, DeviceRequest, Dispatch, MemberDevice, Op};
use crate::engine::Ns;
use crate::error::{Error, Result};
use crate::metrics::{Stat, Stats};
use std::collections::VecDeque;

/// A zone resolved to sector numbers.
#[derive(Clone, Copy, Debug)]
struct Zone {
    first_sector: u64,
    first_cylinder: u32,
    sectors_per_track: u64,
}

/// Where a sector lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chs {
    /// Cylinder.
    pub cylinder: u32,
    /// Head (track within the cylinder).
    pub head: u32,
    /// Sector within the track.
    pub sector: u64,
    /// Sectors on that track.
    pub sectors_per_track: u64,
}

/// Time spent by the disk, ns, over the requests it served.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskTimes {
    /// Requests served (merged continuations included).
    pub requests: u64,
    /// Requests served as the continuation of the previous one.
    pub merged: u64,
    /// Per-request overhead.
    pub overhead_ns: u64,
    /// Seeks and head switches.
    pub seek_ns: u64,
    /// Waiting for sectors to come round.
    pub rotation_ns: u64,
    /// Moving the data: sectors passing under the head, or crossing a
    /// slower interface (with the track switches hidden behind it): all of
    /// a request's time that is neither overhead nor positioning.
    pub transfer_ns: u64,
}

impl DiskTimes {
    /// Seek and rotational wait.
    pub fn positioning_ns(&self) -> u64 {
        self.seek_ns + self.rotation_ns
    }
}

/// The request a disk served last, for merging the next one into it.
#[derive(Clone, Copy, Debug)]
struct LastTransfer {
    /// The sector after its last.
    end_sector: u64,
    op: Op,
    /// When it completed.
    done_ns: Ns,
    /// When its last sector passed under the head (earlier than `done_ns`
    /// when the interface was the bottleneck).
    media_done_ns: Ns,
}

/// What one pass of the head over a request's sectors took.
#[derive(Clone, Copy, Debug)]
struct MediaPass {
    /// When the first sector came under the head.
    first_under_head: Ns,
    /// When the last sector had passed.
    media_done_ns: Ns,
    /// (seek, rotational wait) before the first sector, ns.
    lead: (u64, u64),
    /// (seek or head switch, rotational wait) between tracks after it, ns.
    within: (u64, u64),
}

/// One hard disk.
pub struct Hdd {
    zones: Vec<Zone>,
    heads: u32,
    sectors: u64,
    bytes_per_sector: u64,
    revolution_ns: u64,
    /// Angle (ns of rotation) by which each head's track is skewed from the
    /// previous one, and each cylinder's first track from the previous
    /// cylinder's last.
    head_skew_ns: u64,
    cylinder_skew_ns: u64,
    phase_ns: u64,
    seek: (f64, f64, f64),
    head_switch_ns: u64,
    overhead_ns: u64,
    interface_sector_ns: u64,
    merge_adjacent: bool,
    policy: QueuePolicy,
    /// Head position, and the request served last.
    cylinder: u32,
    head: u32,
    last: Option<LastTransfer>,
    queue: VecDeque<DeviceRequest>,
    busy: bool,
    counters: CauseCounters,
    times: DiskTimes,
}

impl Hdd {
    /// A disk of `cfg` with derived geometry `g`; `phase_seed` places the
    /// platter's angle at time 0 when spindles are not synchronized.
    pub fn new(cfg: &HddConfig, g: &HddGeometry, phase_seed: u64) -> Self {
        let mut zones = Vec::new();
        let (mut sector, mut cylinder) = (0u64, 0u32);
        for HddZone { cylinders, sectors_per_track } in cfg.zone_list() {
            zones.push(Zone { first_sector: sector, first_cylinder: cylinder, sectors_per_track: u64::from(sectors_per_track) });
            sector += u64::from(cylinders) * u64::from(cfg.tracks_per_cylinder) * u64::from(sectors_per_track);
            cylinder += cylinders;
        }
        let phase_ns = if cfg.synchronized_spindles { 0 } else { splitmix64(phase_seed) % g.revolution_ns };
        Self {
            zones,
            heads: cfg.tracks_per_cylinder,
            sectors: g.sectors,
            bytes_per_sector: g.bytes_per_sector,
            revolution_ns: g.revolution_ns,
            head_skew_ns: cfg.head_switch_ns % g.revolution_ns,
            cylinder_skew_ns: cfg.single_cylinder_seek_ns.max(cfg.head_switch_ns) % g.revolution_ns,
            phase_ns,
            seek: (g.seek_a_ns, g.seek_b_ns, g.seek_c_ns),
            head_switch_ns: cfg.head_switch_ns,
            overhead_ns: cfg.overhead_ns,
            interface_sector_ns: cfg.interface_sector_transfer_ns,
            merge_adjacent: cfg.merge_adjacent,
            policy: cfg.queue_policy,
            cylinder: 0,
            head: 0,
            last: None,
            queue: VecDeque::with_capacity(64),
            busy: false,
            counters: CauseCounters::default(),
            times: DiskTimes::default(),
        }
    }

    /// Where sector `lba` lies.
    pub fn locate(&self, lba: u64) -> Chs {
        let i = self.zones.partition_point(|z| z.first_sector <= lba).saturating_sub(1);
        let z = self.zones[i];
        let within = lba - z.first_sector;
        let track = within / z.sectors_per_track;
        let heads = u64::from(self.heads);
        Chs {
            cylinder: z.first_cylinder + (track / heads) as u32,
            head: (track % heads) as u32,
            sector: within % z.sectors_per_track,
            sectors_per_track: z.sectors_per_track,
        }
    }

    /// Seek time over `distance` cylinders, ns.
    pub fn seek_ns(&self, distance: u32) -> u64 {
        if distance == 0 {
            return 0;
        }
        let (a, b, c) = self.seek;
        let x = f64::from(distance - 1);
        (a * x.sqrt() + b * x + c).round() as u64
    }

    /// Angle (ns into a revolution) at which sector `s` of track (`c`, `h`) starts.
    fn angle_ns(&self, at: Chs) -> u64 {
        let rev = u128::from(self.revolution_ns);
        let heads = u128::from(self.heads);
        let (c, h) = (u128::from(at.cylinder), u128::from(at.head));
        let skew = c * ((heads - 1) * u128::from(self.head_skew_ns) + u128::from(self.cylinder_skew_ns)) + h * u128::from(self.head_skew_ns);
        ((skew + u128::from(at.sector) * rev / u128::from(at.sectors_per_track)) % rev) as u64
    }

    /// Time from `t` until angle `angle` is under the head, ns.
    fn rotational_wait(&self, t: Ns, angle: u64) -> u64 {
        let rev = self.revolution_ns;
        let now = ((u128::from(t) + u128::from(self.phase_ns)) % u128::from(rev)) as u64;
        (angle + rev - now) % rev
    }

    /// Serves `req` from `start`; returns when it finishes.
    fn serve(&mut self, start: Ns, req: &DeviceRequest) -> Result<Ns> {
        let bps = self.bytes_per_sector;
        let end = req.offset_bytes.checked_add(req.len_bytes).filter(|&e| req.len_bytes > 0 && e <= self.sectors * bps);
        let Some(end) = end else {
            return Err(Error::Device(format!("request [{}, +{}) outside the disk's {} bytes", req.offset_bytes, req.len_bytes, self.sectors * bps)));
        };
        let (first, last) = (req.offset_bytes / bps, (end - 1) / bps);
        let previous = self.last.filter(|l| self.merge_adjacent && l.end_sector == first && l.op == req.op && l.done_ns == start);
        self.times.requests += 1;
        // A continuation's media picks up where the previous request's media stopped, which is
        // earlier than `start` when a slow interface held that request back (the disk reads ahead).
        let (t, interface_from) = match previous {
            Some(p) => {
                self.times.merged += 1;
                (p.media_done_ns, Some(start))
            }
            None => {
                self.times.overhead_ns += self.overhead_ns;
                let t = start.checked_add(self.overhead_ns).ok_or_else(|| Error::Device("a disk request runs past 2^64 ns".into()))?;
                (t, None)
            }
        };
        let mut pass = self.pass_media(t, first, last)?;
        if previous.is_some() {
            // A continuation's first move may fall before it was dispatched: like a later track's.
            pass.within = (pass.within.0 + pass.lead.0, pass.within.1 + pass.lead.1);
            pass.lead = (0, 0);
        }
        let n = last - first + 1;
        let paced_done = n
            .checked_mul(self.interface_sector_ns)
            .and_then(|d| interface_from.unwrap_or(pass.first_under_head).checked_add(d))
            .ok_or_else(|| Error::Device(format!("{n} sectors over the interface end past 2^64 ns")))?;
        // The last sector crosses the interface after it has passed under the head.
        let after_media =
            pass.media_done_ns.checked_add(self.interface_sector_ns).ok_or_else(|| Error::Device("a disk request runs past 2^64 ns".into()))?;
        let done_ns = paced_done.max(after_media).max(start);
        // Switches between tracks while the interface, not the media, sets the pace are hidden
        // behind the transfer; only the part that made the media finish later counts as positioning.
        let behind = pass.media_done_ns.saturating_sub(paced_done.max(start));
        let within = pass.within.0 + pass.within.1;
        let (seek, rotation) = if within <= behind {
            (pass.lead.0 + pass.within.0, pass.lead.1 + pass.within.1)
        } else {
            let share = |x: u64| (u128::from(x) * u128::from(behind) / u128::from(within)) as u64;
            (pass.lead.0 + share(pass.within.0), pass.lead.1 + share(pass.within.1))
        };
        let busy = done_ns - start - if previous.is_some() { 0 } else { self.overhead_ns };
        if seek + rotation > busy {
            return Err(Error::Internal(format!("a disk request positioned for {} ns of its {busy} ns", seek + rotation)));
        }
        self.times.seek_ns += seek;
        self.times.rotation_ns += rotation;
        self.times.transfer_ns += busy - seek - rotation;
        let media_done_ns = pass.media_done_ns;
        self.last = Some(LastTransfer { end_sector: last + 1, op: req.op, done_ns, media_done_ns });
        match req.op {
            Op::Read => self.counters.pages_read[req.cause.index()] += n,
            Op::Write => self.counters.pages_written[req.cause.index()] += n,
        }
        Ok(done_ns)
    }

    /// Moves the head over sectors `first..=last` from `t`: seeks, head
    /// switches, rotational waits and media transfer, track by track.
    fn pass_media(&mut self, mut t: Ns, first: u64, last: u64) -> Result<MediaPass> {
        let later = |t: Ns, d: u64| t.checked_add(d).ok_or_else(|| Error::Device(format!("a disk request runs past 2^64 ns (at {t} ns)")));
        let mut pass = MediaPass { first_under_head: t, media_done_ns: t, lead: (0, 0), within: (0, 0) };
        let mut lba = first;
        while lba <= last {
            let at = self.locate(lba);
            let run = (at.sectors_per_track - at.sector).min(last - lba + 1);
            let moving = if at.cylinder != self.cylinder {
                self.seek_ns(at.cylinder.abs_diff(self.cylinder))
            } else if at.head != self.head {
                self.head_switch_ns
            } else {
                0
            };
            t = later(t, moving)?;
            let wait = self.rotational_wait(t, self.angle_ns(at));
            t = later(t, wait)?;
            let part = if lba == first {
                pass.first_under_head = t;
                &mut pass.lead
            } else {
                &mut pass.within
            };
            (part.0, part.1) = (part.0 + moving, part.1 + wait);
            let rev = u128::from(self.revolution_ns);
            let spt = u128::from(at.sectors_per_track);
            let s = u128::from(at.sector);
            t = later(t, ((s + u128::from(run)) * rev / spt - s * rev / spt) as u64)?;
            (self.cylinder, self.head) = (at.cylinder, at.head);
            lba += run;
        }
        pass.media_done_ns = t;
        Ok(pass)
    }

    /// The queued request to serve next, by the queue policy.
    fn pick(&self) -> Option<usize> {
        if self.queue.is_empty() {
            return None;
        }
        let cylinder = |r: &DeviceRequest| self.locate(r.offset_bytes / self.bytes_per_sector).cylinder;
        let chosen = match self.policy {
            QueuePolicy::Fcfs => 0,
            QueuePolicy::Sstf => (0..self.queue.len()).min_by_key(|&i| (cylinder(&self.queue[i]).abs_diff(self.cylinder), i)).unwrap_or(0),
            QueuePolicy::CLook => {
                let key = |i: usize| {
                    let c = cylinder(&self.queue[i]);
                    // Ahead of the head first (ascending), then wrap to the lowest.
                    (c < self.cylinder, c, i)
                };
                (0..self.queue.len()).min_by_key(|&i| key(i)).unwrap_or(0)
            }
        };
        Some(chosen)
    }

    fn dispatch(&mut self, now: Ns, req: DeviceRequest) -> Result<Dispatch> {
        self.busy = true;
        let done_ns = self.serve(now, &req)?;
        Ok(Dispatch { token: req.token, done_ns })
    }

    /// Time the disk spent, by part.
    pub fn times(&self) -> &DiskTimes {
        &self.times
    }

    /// Bytes per sector (the unit of this disk's page counts).
    pub fn bytes_per_sector(&self) -> u64 {
        self.bytes_per_sector
    }

    /// Adds this disk's statistics under `name`.
    pub fn stats(&self, name: &str, out: &mut Stats) {
        let t = &self.times;
        let per = |v: u64| if t.requests == 0 { 0.0 } else { v as f64 / t.requests as f64 };
        let s = |p: &str, v: f64, u: &'static str, d: &'static str| Stat::new(format!("{name}.hdd.{p}"), v, u, d);
        out.push(s("requests", t.requests as f64, "requests", "requests the disk served"));
        out.push(s("merged", t.merged as f64, "requests", "requests served as the continuation of the previous one"));
        out.push(s("positioning.mean_ns", per(t.positioning_ns()), "ns", "mean seek plus rotational wait per request"));
        out.push(s("seek.mean_ns", per(t.seek_ns), "ns", "mean seek and head-switch time per request"));
        out.push(s("rotation.mean_ns", per(t.rotation_ns), "ns", "mean rotational wait per request"));
        out.push(s("transfer.mean_ns", per(t.transfer_ns), "ns", "mean data-moving time per request (media or interface)"));
        out.push(s("overhead.mean_ns", per(t.overhead_ns), "ns", "mean per-request overhead"));
    }
}

impl MemberDevice for Hdd {
    fn capacity_bytes(&self) -> u64 {
        self.sectors * self.bytes_per_sector
    }

    fn submit(&mut self, now_ns: Ns, request: DeviceRequest) -> Result<Option<Dispatch>> {
        if self.busy {
            self.queue.push_back(request);
            return Ok(None);
        }
        self.dispatch(now_ns, request).map(Some)
    }

    fn complete(&mut self, now_ns: Ns) -> Result<Option<Dispatch>> {
        if !self.busy {
            return Err(Error::Internal("a disk completed a request while idle".into()));
        }
        self.busy = false;
        match self.pick().and_then(|i| self.queue.remove(i)) {
            Some(next) => self.dispatch(now_ns, next).map(Some),
            None => Ok(None),
        }
    }

    fn counters(&self) -> &CauseCounters {
        &self.counters
    }
}

/// SplitMix64: a well-mixed 64-bit value from a seed (the disk's phase).
fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
