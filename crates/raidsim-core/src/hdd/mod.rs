//! A hard disk: seek, rotation, transfer, an on-board cache, a queue.
//!
//! The model is the one Chen & Lee (1995, §3.1 and Table 1) use in raidSim,
//! with the parts of DiskSim's disk model (Ganger, Worthington & Patt; its
//! `diskmodel/` and `disksim_disk*.c`) that make it behave as measured
//! drives do:
//!
//! ```text
//! read:  [command overhead] → hit: the data crosses the interface
//!                           → miss: seek (or head switch) → rotational wait →
//!                             sectors under the head, crossing the interface
//!                             → read ahead into the segment until a new command
//! write: [command overhead] → data into a segment, acknowledged (fast write) →
//!                             written to the media later (destage)
//!                           → or, without fast write: positioned and written first
//! ```
//!
//! - **Geometry** ([`layout`]): zones with their own sectors per track,
//!   skews and spares; only the first `capacity_limit_bytes` are used.
//! - **Mechanics** ([`mechanics`]): a fitted seek curve or a measured seek
//!   table; head switch; write settle; the platter's angle is a function of
//!   simulated time, `(t + phase) mod revolution`; spindles of an array turn
//!   in phase (`synchronized_spindles`) or each at a phase drawn from the seed.
//! - **Command overheads**: a per-request `overhead_ns`, plus DiskSim's eight
//!   by read/write, hit/miss and the previous command's direction.
//! - **Interface.** With `interface_sector_transfer_ns` set, a request's data
//!   crosses the interface at that time per sector (DiskSim's "bulk sector
//!   transfer time"): a miss streams from the moment its first sector passes
//!   under the head; a hit or a fast write from the end of its overhead.
//! - **Cache** ([`cache`]): segments of read, read-ahead and written data.
//!   Read-ahead continues past a read from the media until a new command
//!   arrives (a read of sectors it is about to reach waits for them instead
//!   and lets it go on); written data is destaged when the mechanism is free,
//!   a destage not yet started when a command arrives waits for it, and
//!   adjacent writes go in one pass (write combining).
//! - **Merging**: a request that starts at the
//!   sector after the previous one ended, in the same direction, dispatched
//!   the instant that one finishes, continues the transfer with no overhead
//!   and no positioning (Chen & Lee §3.3).
//! - **Queue.** One command at a time; the others wait, served FCFS (Chen &
//!   Lee), SSTF, C-LOOK or SPTF (shortest seek plus rotation first).
//!
//! Simplifications, stated: a segment holds one run of sectors; a read is a
//! hit only when one segment holds all of it (no partial hits); slipped
//! sectors (defects) are not modelled, only a zone's spares at its end; a
//! disk never fails or remaps.
//!
//! Each request's time splits into overhead, positioning (seek, head
//! switches and rotational waits) and transfer, reported per member as the
//! stripe-unit paper's Tables 7-9 do.

pub mod cache;
pub mod layout;
pub mod mechanics;
mod stats;

use crate::config::{HddCommandOverhead, HddConfig, HddGeometry, QueuePolicy, ReadAheadUntil};
use crate::device::{CauseCounters, DeviceRequest, Dispatch, MemberDevice, Op};
use crate::engine::Ns;
use crate::error::{Error, Result};
use cache::{Dirty, DiskCache};
pub use layout::Chs;
use layout::Layout;
use mechanics::{HeadPosition, Mechanism, MediaPass, SeekModel};
pub use stats::{CacheTimes, DiskTimes};
use std::collections::VecDeque;

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

/// A read-ahead under way: the media keeps reading from `from` (the sector
/// after a read) into segment `segment`, up to `limit`.
#[derive(Clone, Copy, Debug)]
struct ReadAhead {
    segment: usize,
    from: u64,
    limit: u64,
    started_ns: Ns,
    head: HeadPosition,
}

/// A segment of written data waiting for the media, ready from `ready_ns`.
#[derive(Clone, Copy, Debug)]
struct Destage {
    segment: usize,
    ready_ns: Ns,
}

/// One hard disk.
pub struct Hdd {
    mech: Mechanism,
    sectors: u64,
    bytes_per_sector: u64,
    overhead_ns: u64,
    command_overhead: HddCommandOverhead,
    interface_sector_ns: u64,
    merge_adjacent: bool,
    policy: QueuePolicy,
    cache: Option<DiskCache>,
    read_ahead_sectors: u64,
    read_ahead_to_track_end: bool,
    read_ahead_on_streams_only: bool,
    /// The sector after the last read's, for telling streams.
    last_read_end: Option<u64>,
    fast_write: bool,
    combine_writes: bool,
    read_hits_on_write_data: bool,
    /// Head position, and when the mechanism is free (a destage may run
    /// past the command that queued it).
    head: HeadPosition,
    mech_free_ns: Ns,
    last_op: Option<Op>,
    last: Option<LastTransfer>,
    read_ahead: Option<ReadAhead>,
    destages: VecDeque<Destage>,
    queue: VecDeque<DeviceRequest>,
    busy: bool,
    counters: CauseCounters,
    times: DiskTimes,
}

impl Hdd {
    /// A disk of `cfg` with derived geometry `g`; `phase_seed` places the
    /// platter's angle at time 0 when spindles are not synchronized.
    pub fn new(cfg: &HddConfig, g: &HddGeometry, phase_seed: u64) -> Self {
        let cylinder_skew = cfg.single_cylinder_seek_ns.max(cfg.head_switch_ns);
        let layout = Layout::new(&cfg.zone_list(), cfg.tracks_per_cylinder, g.revolution_ns, cfg.head_switch_ns, cylinder_skew);
        let seek = if cfg.seek_table.is_empty() {
            SeekModel::Curve { a: g.seek_a_ns, b: g.seek_b_ns, c: g.seek_c_ns }
        } else {
            SeekModel::Table(cfg.seek_table.clone())
        };
        let phase_ns = if cfg.synchronized_spindles { 0 } else { splitmix64(phase_seed) % g.revolution_ns };
        let c = &cfg.cache;
        let on = c.enabled && c.segments > 0;
        Self {
            mech: Mechanism::new(layout, seek, cfg.head_switch_ns, cfg.write_settle_ns, phase_ns),
            sectors: g.sectors,
            bytes_per_sector: g.bytes_per_sector,
            overhead_ns: cfg.overhead_ns,
            command_overhead: cfg.command_overhead.clone(),
            interface_sector_ns: cfg.interface_sector_transfer_ns,
            merge_adjacent: cfg.merge_adjacent,
            policy: cfg.queue_policy,
            cache: on.then(|| DiskCache::new(c.segments, c.segment_sectors, c.max_write_segments)),
            read_ahead_sectors: if on { c.read_ahead_sectors } else { 0 },
            read_ahead_to_track_end: on && c.read_ahead_until == ReadAheadUntil::TrackEnd,
            read_ahead_on_streams_only: c.read_ahead_on_streams_only,
            last_read_end: None,
            fast_write: on && c.fast_write,
            combine_writes: on && c.combine_writes,
            read_hits_on_write_data: on && c.read_hits_on_write_data,
            head: HeadPosition::default(),
            mech_free_ns: 0,
            last_op: None,
            last: None,
            read_ahead: None,
            destages: VecDeque::new(),
            queue: VecDeque::with_capacity(64),
            busy: false,
            counters: CauseCounters::default(),
            times: DiskTimes::default(),
        }
    }

    /// Where sector `lba` lies.
    pub fn locate(&self, lba: u64) -> Chs {
        self.mech.layout.locate(lba)
    }

    /// Seek time over `distance` cylinders, ns.
    pub fn seek_ns(&self, distance: u32) -> u64 {
        self.mech.seek_ns(distance)
    }

    /// The command overhead of `op`, hit or miss, after the previous command.
    fn command_overhead_ns(&self, op: Op, hit: bool) -> u64 {
        let o = &self.command_overhead;
        let after_read = self.last_op != Some(Op::Write);
        let by_kind = match (op, hit, after_read) {
            (Op::Read, true, true) => o.read_hit_after_read_ns,
            (Op::Read, true, false) => o.read_hit_after_write_ns,
            (Op::Read, false, true) => o.read_miss_after_read_ns,
            (Op::Read, false, false) => o.read_miss_after_write_ns,
            (Op::Write, true, true) => o.write_hit_after_read_ns,
            (Op::Write, true, false) => o.write_hit_after_write_ns,
            (Op::Write, false, true) => o.write_miss_after_read_ns,
            (Op::Write, false, false) => o.write_miss_after_write_ns,
        };
        self.overhead_ns + by_kind
    }

    /// `n` sectors over the interface, from `from`, ns.
    fn interface_done(&self, from: Ns, n: u64) -> Result<Ns> {
        n.checked_mul(self.interface_sector_ns)
            .and_then(|d| from.checked_add(d))
            .ok_or_else(|| Error::Device(format!("{n} sectors over the interface end past 2^64 ns")))
    }

    /// Serves `req` from `start`; returns when it finishes.
    fn serve(&mut self, start: Ns, req: &DeviceRequest) -> Result<Ns> {
        let bps = self.bytes_per_sector;
        let end = req.offset_bytes.checked_add(req.len_bytes).filter(|&e| req.len_bytes > 0 && e <= self.sectors * bps);
        let Some(end) = end else {
            return Err(Error::Device(format!("request [{}, +{}) outside the disk's {} bytes", req.offset_bytes, req.len_bytes, self.sectors * bps)));
        };
        let (first, end) = (req.offset_bytes / bps, (end - 1) / bps + 1);
        self.destage_before(start)?;
        self.times.requests += 1;
        let done = match (req.op, self.cache.is_some()) {
            (_, false) => self.media_command(start, first, end, req.op)?,
            (Op::Read, true) => self.cached_read(start, first, end)?,
            (Op::Write, true) => self.cached_write(start, first, end)?,
        };
        self.last_op = Some(req.op);
        let n = end - first;
        match req.op {
            Op::Read => self.counters.pages_read[req.cause.index()] += n,
            Op::Write => self.counters.pages_written[req.cause.index()] += n,
        }
        Ok(done)
    }

    /// A read with the cache on: a hit, a read of sectors the read-ahead is
    /// about to reach, or a read from the media followed by read-ahead.
    fn cached_read(&mut self, now: Ns, first: u64, end: u64) -> Result<Ns> {
        let n = end - first;
        let previous_end = self.last_read_end.replace(end);
        if self.continues_last(now, first, Op::Read) {
            // Merged into the read before it, the media streams on: the read-ahead was reading these very sectors.
            self.read_ahead = None;
            let done = self.media_command(now, first, end, Op::Read)?;
            self.start_read_ahead(first, end, true);
            return Ok(done);
        }
        if let Some(done) = self.read_ahead_hit(now, first, end)? {
            return Ok(done);
        }
        self.stop_read_ahead(now)?;
        let written = self.read_hits_on_write_data;
        if self.cache.as_mut().is_some_and(|c| c.hit(first, end, now, written)) {
            let overhead = self.command_overhead_ns(Op::Read, true);
            self.times.overhead_ns += overhead;
            self.times.cache.read_hits += 1;
            let done = self.interface_done(now + overhead, n)?;
            self.times.transfer_ns += done - now - overhead;
            return Ok(done);
        }
        let done = self.media_command(now, first, end, Op::Read)?;
        let stream = previous_end == Some(first);
        self.start_read_ahead(first, end, stream || !self.read_ahead_on_streams_only);
        Ok(done)
    }

    /// A read that the read-ahead under way holds, or will reach before it
    /// stops: it ends when its last sector is in and has crossed the
    /// interface, and the read-ahead goes on.
    fn read_ahead_hit(&mut self, now: Ns, first: u64, end: u64) -> Result<Option<Ns>> {
        let Some(ra) = self.read_ahead else { return Ok(None) };
        let Some(seg) = self.cache.as_ref().and_then(|c| c.segment(ra.segment)).copied() else {
            return Err(Error::Internal("a read-ahead without its segment".into()));
        };
        if first < seg.start || end > ra.limit {
            return Ok(None);
        }
        let reached = self.mech.pass(ra.head, ra.started_ns, ra.from, ra.limit, Op::Read, now)?.reached;
        if first > reached {
            return Ok(None);
        }
        let arrived = if end <= reached { now } else { self.mech.pass(ra.head, ra.started_ns, ra.from, end, Op::Read, Ns::MAX)?.media_done_ns };
        let overhead = self.command_overhead_ns(Op::Read, true);
        let done = self.interface_done(now + overhead, end - first)?.max(arrived.saturating_add(self.interface_sector_ns));
        self.times.overhead_ns += overhead;
        self.times.transfer_ns += done - now - overhead;
        self.times.cache.read_hits += 1;
        Ok(Some(done))
    }

    /// A new command stops the read-ahead at `now`: its segment keeps what
    /// was read, and the head stays where it got to.
    fn stop_read_ahead(&mut self, now: Ns) -> Result<()> {
        let Some(ra) = self.read_ahead.take() else { return Ok(()) };
        let pass = self.mech.pass(ra.head, ra.started_ns, ra.from, ra.limit, Op::Read, now)?;
        self.times.cache.read_ahead_sectors += pass.reached - ra.from;
        if pass.reached > ra.from {
            self.head = pass.head;
        }
        if let Some(s) = self.cache.as_mut().and_then(|c| c.segment_mut(ra.segment)) {
            s.end = pass.reached;
        }
        self.mech_free_ns = self.mech_free_ns.max(now.min(pass.media_done_ns));
        Ok(())
    }

    /// After a read from the media, its sectors go into a free segment and,
    /// if `read_ahead`, the media reads on from its end (not when written
    /// data waits).
    fn start_read_ahead(&mut self, first: u64, end: u64, read_ahead: bool) {
        let free_at = self.mech_free_ns;
        let Some(cache) = self.cache.as_mut() else { return };
        let Some(i) = cache.free_segment(free_at) else { return };
        let start = first.max(end.saturating_sub(cache.segment_sectors));
        cache.fill(i, start, end, Dirty::Clean);
        let wanted = if self.read_ahead_to_track_end { self.mech.layout.read_ahead_track_end(first, end) } else { end + self.read_ahead_sectors };
        let limit = wanted.min(start + cache.segment_sectors).min(self.sectors);
        if read_ahead && limit > end && self.destages.is_empty() {
            self.read_ahead = Some(ReadAhead { segment: i, from: end, limit, started_ns: free_at, head: self.head });
        }
    }

    /// A write with the cache on: taken into a segment and acknowledged
    /// (fast write), or written through to the media.
    fn cached_write(&mut self, now: Ns, first: u64, end: u64) -> Result<Ns> {
        self.stop_read_ahead(now)?;
        let cache = self.cache.as_mut().ok_or_else(|| Error::Internal("a cached write without a cache".into()))?;
        cache.invalidate(first, end, now);
        // A write larger than a segment cannot wait in one: it goes to the media.
        if !self.fast_write || end - first > cache.segment_sectors {
            let done = self.media_command(now, first, end, Op::Write)?;
            let free_at = self.mech_free_ns;
            if let Some(c) = self.cache.as_mut().filter(|_| self.read_hits_on_write_data) {
                if let Some(i) = c.free_segment(free_at) {
                    c.fill(i, first.max(end.saturating_sub(c.segment_sectors)), end, Dirty::Clean);
                }
            }
            return Ok(done);
        }
        let overhead = self.command_overhead_ns(Op::Write, true);
        self.times.overhead_ns += overhead;
        self.times.cache.fast_writes += 1;
        let combined = self.combine_writes.then(|| self.cache.as_ref().and_then(|c| c.combinable(first, end))).flatten();
        let (segment, room_at) = match combined {
            Some(i) => (i, now),
            None => self.segment_for_write(now)?,
        };
        let done = self.interface_done(room_at.max(now + overhead), end - first)?;
        self.times.transfer_ns += done - now - overhead;
        let cache = self.cache.as_mut().ok_or_else(|| Error::Internal("a cached write without a cache".into()))?;
        match combined {
            Some(i) => {
                let s = cache.segment_mut(i).ok_or_else(|| Error::Internal("a combined write's segment is empty".into()))?;
                s.end = end;
                self.times.cache.combined_writes += 1;
                if let Some(d) = self.destages.iter_mut().find(|d| d.segment == i) {
                    d.ready_ns = d.ready_ns.max(done);
                }
            }
            None => {
                cache.fill(segment, first, end, Dirty::Pending);
                self.destages.push_back(Destage { segment, ready_ns: done });
            }
        }
        Ok(done)
    }

    /// A segment for a write arriving at `now`, and when it is free: at
    /// once, or when the first destage to end does (destaging as needed).
    fn segment_for_write(&mut self, now: Ns) -> Result<(usize, Ns)> {
        loop {
            let cache = self.cache.as_ref().ok_or_else(|| Error::Internal("a cached write without a cache".into()))?;
            if let Some(i) = cache.free_write_segment(now) {
                return Ok((i, now));
            }
            if let Some(t) = cache.next_destage_end(now) {
                if let Some(i) = cache.free_write_segment(t) {
                    return Ok((i, t));
                }
            }
            if self.destages.is_empty() {
                return Err(Error::Internal("every disk segment holds written data and none is being destaged".into()));
            }
            self.destage_next()?;
        }
    }

    /// Starts every destage that would begin before `now` (reads arriving
    /// at `now` go before the rest).
    fn destage_before(&mut self, now: Ns) -> Result<()> {
        while let Some(d) = self.destages.front() {
            if self.mech_free_ns.max(d.ready_ns) >= now {
                break;
            }
            self.destage_next()?;
        }
        Ok(())
    }

    /// Writes the first waiting segment to the media, with the segments
    /// that continue it when writes combine.
    fn destage_next(&mut self) -> Result<()> {
        let Some(d) = self.destages.pop_front() else { return Ok(()) };
        let cache = self.cache.as_ref().ok_or_else(|| Error::Internal("a destage without a cache".into()))?;
        let seg = *cache.segment(d.segment).ok_or_else(|| Error::Internal("a destage of an empty segment".into()))?;
        let (mut segments, mut end, mut ready) = (vec![d.segment], seg.end, d.ready_ns);
        while let Some(next) = self.destages.front().copied().filter(|_| self.combine_writes) {
            match cache.segment(next.segment) {
                Some(s) if s.start == end => {
                    (end, ready) = (s.end, ready.max(next.ready_ns));
                    segments.push(next.segment);
                    self.destages.pop_front();
                }
                _ => break,
            }
        }
        let start = self.mech_free_ns.max(ready);
        let pass = self.mech.pass(self.head, start, seg.start, end, Op::Write, Ns::MAX)?;
        (self.head, self.mech_free_ns) = (pass.head, pass.media_done_ns);
        let c = &mut self.times.cache;
        (c.destages, c.destage_sectors, c.combined_destages) =
            (c.destages + 1, c.destage_sectors + end - seg.start, c.combined_destages + segments.len() as u64 - 1);
        c.destage_ns += pass.media_done_ns - start;
        let cache = self.cache.as_mut().ok_or_else(|| Error::Internal("a destage without a cache".into()))?;
        for i in segments {
            if let Some(s) = cache.segment_mut(i) {
                s.dirty = Dirty::Until(pass.media_done_ns);
            }
        }
        Ok(())
    }

    /// A request of `op` from `first` dispatched at `start` merges into the
    /// one before it (it starts where that ended, as that one ended).
    fn continues_last(&self, start: Ns, first: u64, op: Op) -> bool {
        self.last.is_some_and(|l| self.merge_adjacent && l.end_sector == first && l.op == op && l.done_ns == start)
    }

    /// A command that needs the media: overhead, positioning (once the
    /// mechanism is free), the sectors under the head and over the interface.
    fn media_command(&mut self, start: Ns, first: u64, end: u64, op: Op) -> Result<Ns> {
        let previous = self.last.filter(|_| self.continues_last(start, first, op));
        // A continuation's media picks up where the previous request's media stopped, which is
        // earlier than `start` when a slow interface held that request back (the disk reads ahead).
        let (t, interface_from, overhead, waited) = match previous {
            Some(p) => {
                self.times.merged += 1;
                (p.media_done_ns, Some(start), 0, 0)
            }
            None => {
                let overhead = self.command_overhead_ns(op, false);
                self.times.overhead_ns += overhead;
                let t = start.checked_add(overhead).ok_or_else(|| Error::Device("a disk request runs past 2^64 ns".into()))?;
                // The mechanism may still be busy with a destage or read-ahead.
                (t.max(self.mech_free_ns), None, overhead, self.mech_free_ns.saturating_sub(t))
            }
        };
        let mut pass = self.mech.pass(self.head, t, first, end, op, Ns::MAX)?;
        if previous.is_some() {
            // A continuation's first move may fall before it was dispatched: like a later track's.
            pass.within = (pass.within.0 + pass.lead.0, pass.within.1 + pass.lead.1);
            pass.lead = (0, 0);
        }
        let done_ns = self.account(start, overhead, waited, end - first, interface_from, &pass)?;
        (self.head, self.mech_free_ns) = (pass.head, pass.media_done_ns);
        self.last = Some(LastTransfer { end_sector: end, op, done_ns, media_done_ns: pass.media_done_ns });
        Ok(done_ns)
    }

    /// When a media command of `n` sectors that passed as `pass` ends, and
    /// its time by part: waiting for the mechanism counts as positioning.
    fn account(&mut self, start: Ns, overhead: u64, waited: u64, n: u64, interface_from: Option<Ns>, pass: &MediaPass) -> Result<Ns> {
        let paced_done = self.interface_done(interface_from.unwrap_or(pass.first_under_head), n)?;
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
        let busy = done_ns - start - overhead;
        if waited + seek + rotation > busy {
            return Err(Error::Internal(format!("a disk request waited and positioned for {} ns of its {busy} ns", waited + seek + rotation)));
        }
        self.times.mechanism_wait_ns += waited;
        self.times.seek_ns += seek;
        self.times.rotation_ns += rotation;
        self.times.transfer_ns += busy - waited - seek - rotation;
        Ok(done_ns)
    }

    /// The queued request to serve next, by the queue policy.
    fn pick(&self, now: Ns) -> Option<usize> {
        if self.queue.is_empty() {
            return None;
        }
        let lba = |r: &DeviceRequest| r.offset_bytes / self.bytes_per_sector;
        let cylinder = |r: &DeviceRequest| self.locate(lba(r)).cylinder;
        let here = self.head.cylinder;
        let chosen = match self.policy {
            QueuePolicy::Fcfs => 0,
            QueuePolicy::Sstf => (0..self.queue.len()).min_by_key(|&i| (cylinder(&self.queue[i]).abs_diff(here), i)).unwrap_or(0),
            QueuePolicy::CLook => {
                // Ahead of the head first (ascending), then wrap to the lowest.
                let key = |i: usize| (cylinder(&self.queue[i]) < here, cylinder(&self.queue[i]), i);
                (0..self.queue.len()).min_by_key(|&i| key(i)).unwrap_or(0)
            }
            QueuePolicy::Sptf => {
                let from = now.max(self.mech_free_ns);
                let key = |i: usize| {
                    let r = &self.queue[i];
                    let t = from.saturating_add(self.command_overhead_ns(r.op, false));
                    (self.mech.positioning_ns(self.head, t, lba(r), r.op), i)
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
    pub fn stats(&self, name: &str, out: &mut crate::metrics::Stats) {
        self.times.stats(name, self.cache.is_some(), out);
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
        // Destages that start before the next command decide where the head is when it is picked.
        self.destage_before(now_ns)?;
        match self.pick(now_ns).and_then(|i| self.queue.remove(i)) {
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
