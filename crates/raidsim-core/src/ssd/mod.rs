//! A flash SSD: host link → controller → FTL → channels and dies.
//!
//! The data path of one host request (DiskSim's SSD extension, SSDsim and
//! MQSim model the same parts):
//!
//! ```text
//! write: controller overhead → host link transfer → per page: [sense the
//!        old page if only part of it is written] → channel transfer of the
//!        written sectors (+ command) → program [+ the block's summary page]
//!        [→ garbage collection on the plane's unit]
//! read:  controller overhead → per page: sense on the die → channel
//!        transfer of the requested sectors → host link transfer of the
//!        whole request
//! ```
//!
//! The host link, each channel and each parallel unit (a die, or a chip
//! whose dies share one busy state, as in SSDsim) keep a calendar of busy
//! intervals ([`crate::engine::Timeline`]): an operation takes the earliest idle
//! gap at or after the instant its input is ready, so it waits only for the
//! resources it needs, as in an event-driven simulator. A unit holds a read
//! page in its register until the channel has moved it. Only the sectors
//! requested cross the channel, each with its spare bytes (DiskSim: 528
//! bytes per 512-byte sector). Flash programs whole pages: a write of part
//! of a page that holds data first senses the old page (`partial_page_read`).
//! A write is acknowledged when its last page is programmed (DiskSim, MQSim)
//! or when its data reaches the chip (`write_ack = "transfer"`, SSDsim).
//!
//! Garbage collection runs in the foreground on the plane's unit right
//! after the write that took its plane below the threshold, one victim
//! block after another (copy-back: read and program per valid page, no
//! channel transfer; then the erase), before the unit serves anything booked
//! after it — DiskSim's cleaning between requests of an element. With
//! `gc_holds = "channel"` it is booked at once and holds the unit's channel
//! through its copies too (SSDsim's uninterruptible collection); with
//! `gc_hard_threshold_fraction` it yields, a copy or erase at a time, to
//! the unit's other operations until its plane runs short of free blocks
//! (MQSim's preemptible collection, [`yielding_gc`]). With
//! `allocation = "static_die"` writes go to the plane of their die with the
//! most free pages, so the planes of a die drain together, as in DiskSim.
//! With erase suspension a read (or write) is served inside a collection's
//! erases ([`erase_suspend`]). Cache registers are not modelled.
//!
//! The drive admits `queue_depth` host requests at once; later ones wait in
//! its queue in arrival order, and a trim takes its turn among them; a
//! SATA drive's commands and completions pass its host bus adapter one at
//! a time ([`sata_hba`]). With
//! `write_buffer_bytes` a write is acknowledged once its data is in the
//! drive's DRAM ([`write_buffer`]), and with `scheduling = "reads_first"`
//! its programs wait at their units while later reads go first
//! ([`waiting_programs`]), with `multi_plane_programs` two planes' programs
//! in one command, a write that finds the buffer full waits in line
//! for room ([`buffer_admission`]), and a page read waits off the calendar
//! for its map entry and, with `command_issue = "when_idle"`, for its unit
//! to go idle ([`waiting_reads`]).

mod buffer_admission;
mod erase_suspend;
mod gc;
mod host_queue;
mod mapping;
mod page_reads;
mod placement;
mod precondition;
mod sata_hba;
mod slc_cache;
mod stats;
mod trim;
mod waiting_programs;
mod waiting_reads;
pub mod write_buffer;
pub mod write_cache;
mod yielding_gc;

pub use trim::TrimCounts;

pub use precondition::PreconditionPlan;

use crate::config::{
    bus_bytes, transfer_ns, Allocation, BufferSlotUntil, BufferUnit, DerivedGeometry, EraseSuspendConfig, GcHolds, ParallelUnit, SsdConfig,
    TimingConfig, WriteAck,
};
use crate::device::{Cause, CauseCounters, DeviceRequest, Op};
use crate::engine::Timeline;
use crate::engine::{Ns, StopFlag};
use crate::error::{Error, Result};
use crate::flash::cell::{page_type, PageLatencies, PageType};
use crate::ftl::{CachedMappingTable, Ftl, GcWork};
use crate::metrics::{Stat, Stats};
use rand::Rng;
use std::collections::{HashSet, VecDeque};

/// One SSD.
pub struct Ssd {
    ftl: Ftl,
    /// Flows that place or precondition their own part of the drive.
    flow_parts: Vec<crate::config::DrivePart>,
    /// The cached map (`scheme = "dftl"`); none when all of it is in DRAM.
    cmt: Option<CachedMappingTable>,
    /// `ssd.ftl.cmt_starts_warm`: preconditioning fills the cached map,
    /// drawing its pages from a stream of this seed.
    cmt_starts_warm: bool,
    cmt_warm_seed: u64,
    /// Entries preconditioning put in the cached map.
    cmt_warmed: u64,
    /// Per translation page, when its latest read reaches the controller.
    translation_read_until: Vec<Ns>,
    write_buffer: Option<write_buffer::WriteBuffer>,
    /// The DRAM cache that keeps pages rewritten soon (`[ssd.write_cache]`).
    write_cache: Option<write_cache::WriteCache>,
    /// Latest program end of a page that went through the write buffer.
    flash_programmed_until_ns: Ns,
    timing: TimingConfig,
    allocation: Allocation,
    gc_holds: GcHolds,
    gc_copy_back: bool,
    write_ack: WriteAck,
    parallel_unit: ParallelUnit,
    write_buffer_slot_until: BufferSlotUntil,
    write_buffer_unit: BufferUnit,
    page_size_bytes: u64,
    spare_bytes_per_sector: u32,
    capacity_bytes: u64,
    /// Calendars of the parallel units (dies or chips).
    /// Asked to stop (Ctrl-C): polled between the pages of one request.
    stop: StopFlag,
    units: Vec<Timeline>,
    /// Per unit: garbage collection owed, ns, the instant it may start
    /// (after the write that triggered it), and its last collection's
    /// erases, ns (which end it); run before the unit's next operation.
    owed_gc: Vec<(Ns, Ns, Ns)>,
    /// Collection that yields to the host (`gc_hard_threshold_fraction`):
    /// owed in pieces instead.
    yielding_gc: Option<yielding_gc::YieldingGc>,
    erase_suspend: EraseSuspendConfig,
    /// Per unit: the erases that end its booking, while they do.
    erasing: Vec<Option<erase_suspend::ErasePhase>>,
    erase_suspensions: u64,
    erase_deferrals: u64,
    channels: Vec<Timeline>,
    /// `command_issue = "when_idle"`: page reads wait until their unit is idle.
    issue_when_idle: bool,
    link: Timeline,
    /// The embedded processor: one command at a time (`firmware_*_ns`).
    firmware: Timeline,
    next_plane_in_die: Vec<u32>,
    /// Commands waiting for a slot, with when each reached the drive.
    queue: VecDeque<(host_queue::Queued, Ns)>,
    /// How many times the counters restarted (the warm-up's end): a trim
    /// queued before is not counted when applied after.
    counting_phase: u64,
    /// `ssd.ftl.place_unwritten_reads`: a read of a page never written places it.
    place_unwritten_reads: bool,
    /// Pages a read placed that no write has written since: they hold no
    /// data, so a write of part of one reads nothing first.
    placed_by_reads: HashSet<u64>,
    /// Pages reads placed since the counters last restarted.
    pages_placed_by_reads: u64,
    /// A SATA drive's host bus adapter (`sata_hba_processing_ns`).
    sata_hba: Option<sata_hba::SataHba>,
    in_flight: u32,
    queue_depth: u32,
    counters: CauseCounters,
    /// Pages programmed on each chip (the CR5M paper's Figure 9c), GC excluded.
    chip_pages_written: Vec<u64>,
    /// Pages read on each chip, GC excluded.
    chip_pages_read: Vec<u64>,
    /// The chip a spare chip replaced after a failure: reconstruction
    /// writes go there (the CR5M paper's replacement chip).
    replacement_chip: Option<u32>,
    gc_runs: u64,
    /// Collections the drive started itself since it was built (never
    /// reset): how a coordinator learns that one began.
    own_gc_starts: u64,
    /// Collections another device's asked for (`array.gc_coordination`).
    forced_gc_runs: u64,
    summary_pages_written: u64,
    /// Time to program a block's summary pages: each one sector over the
    /// channel, then a program of its page type (DiskSim's
    /// `_ssd_write_page_osr`); fixed by the timing.
    summary_block_ns: Ns,
    /// Read and program latency by page type (`flash::cell`).
    latencies: PageLatencies,
    /// Idle time after which a die folds its SLC cache (`ssd::slc_cache`).
    idle_fold_after_ns: Option<Ns>,
    /// Per unit: the end of its last idle fold.
    idle_fold_end: Vec<Ns>,
    /// `ssd.ftl.scheme`: only the page map in DRAM takes trims.
    ftl_scheme: crate::config::FtlScheme,
    trims: TrimCounts,
    /// `ssd.scheduling`: buffered programs may wait for later reads.
    reads_first: bool,
    /// Buffered programs waiting at their units.
    waiting: waiting_programs::WaitingPrograms,
    /// Buffered programs held off the calendar (`reads_first`).
    programs_deferred: u64,
    /// Writes waiting for buffer room (`reads_first`).
    waiting_for_room: buffer_admission::WritesWaitingForRoom,
    /// Page reads waiting for their map entries (`reads_first`, dftl) or
    /// their units (`command_issue = "when_idle"`).
    reads_waiting: waiting_reads::WaitingReads,
    /// The wake the drive last asked for, until it comes.
    wake_asked_ns: Option<Ns>,
}

/// Where one page operation runs.
#[derive(Clone, Copy)]
struct Route {
    unit: usize,
    channel: usize,
    plane: u32,
}

/// When a page written reached its die, and when its program ended.
#[derive(Clone, Copy)]
struct PageDone {
    transferred_ns: Ns,
    programmed_ns: Ns,
}

/// A page's program, placed and ready to book: its route, when its data
/// is ready, its work, and the collection and folding its write asked for.
#[derive(Clone, Copy)]
struct Program {
    route: Route,
    ready_ns: Ns,
    work: PageWork,
    gc: GcWork,
    fold: GcWork,
}

/// Durations of one page operation on its unit: `before` the channel
/// transfer (command and sensing), the transfer itself, and `after` it
/// (program), all ns.
#[derive(Clone, Copy)]
struct PageWork {
    /// The first part of `before` that holds the channel too (a read's
    /// command, with `read_command_on_channel`).
    command: Ns,
    before: Ns,
    transfer: Ns,
    after: Ns,
}

impl Ssd {
    /// A fresh drive.
    pub fn new(ssd: &SsdConfig, d: &DerivedGeometry) -> Self {
        let ftl = Ftl::new(ssd, d);
        let dies = d.dies as usize;
        let units = match ssd.parallel_unit {
            ParallelUnit::Die => dies,
            ParallelUnit::Chip => dies / ssd.geometry.dies_per_chip as usize,
            ParallelUnit::Plane => d.planes as usize,
        };
        let page = u64::from(ssd.geometry.page_size_bytes);
        let (m, cmt) = (&d.mapping_cache, d.mapping_cache.cached_entries > 0);
        Self {
            write_buffer: (ssd.write_buffer_bytes > 0).then(|| {
                write_buffer::WriteBuffer::new(match ssd.write_buffer_unit {
                    BufferUnit::Page => ssd.write_buffer_bytes / page,
                    BufferUnit::Sector => ssd.write_buffer_bytes / 512,
                })
            }),
            write_cache: (ssd.write_cache.capacity_bytes > 0).then(|| write_cache::WriteCache::new(&ssd.write_cache, page)),
            flash_programmed_until_ns: 0,
            timing: ssd.timing.clone(),
            allocation: ssd.ftl.allocation,
            gc_holds: ssd.ftl.gc_holds,
            gc_copy_back: ssd.ftl.gc_copy_back,
            write_ack: ssd.write_ack,
            parallel_unit: ssd.parallel_unit,
            write_buffer_slot_until: ssd.write_buffer_slot_until,
            write_buffer_unit: ssd.write_buffer_unit,
            page_size_bytes: u64::from(ssd.geometry.page_size_bytes),
            spare_bytes_per_sector: ssd.geometry.spare_bytes_per_sector,
            capacity_bytes: d.capacity_bytes,
            units: vec![Timeline::default(); units],
            owed_gc: vec![(0, 0, 0); units],
            yielding_gc: d
                .gc_hard_threshold_blocks
                .map(|hard| yielding_gc::YieldingGc::new(hard, ssd.timing.t_command_ns + ssd.timing.t_erase_ns, units, d.planes as usize)),
            erase_suspend: ssd.erase_suspend.clone(),
            erasing: vec![None; units],
            erase_suspensions: 0,
            erase_deferrals: 0,
            channels: vec![Timeline::default(); ssd.geometry.channels as usize],
            issue_when_idle: ssd.command_issue == crate::config::CommandIssue::WhenIdle,
            link: Timeline::default(),
            firmware: Timeline::default(),
            next_plane_in_die: vec![0; dies],
            queue: VecDeque::with_capacity(64),
            counting_phase: 0,
            place_unwritten_reads: ssd.ftl.place_unwritten_reads,
            placed_by_reads: HashSet::new(),
            pages_placed_by_reads: 0,
            sata_hba: sata_hba::SataHba::new(ssd.timing.sata_hba_processing_ns),
            in_flight: 0,
            queue_depth: ssd.queue_depth,
            counters: CauseCounters::default(),
            chip_pages_written: vec![0; (dies / ssd.geometry.dies_per_chip as usize).max(1)],
            chip_pages_read: vec![0; (dies / ssd.geometry.dies_per_chip as usize).max(1)],
            replacement_chip: None,
            gc_runs: 0,
            own_gc_starts: 0,
            forced_gc_runs: 0,
            summary_pages_written: 0,
            summary_block_ns: summary_block_ns(ssd),
            latencies: PageLatencies::new(&ssd.timing, &ssd.slc_cache),
            idle_fold_after_ns: ssd.slc_cache.idle_fold_after_ns,
            idle_fold_end: vec![0; units],
            ftl_scheme: ssd.ftl.scheme,
            trims: TrimCounts::default(),
            reads_first: ssd.scheduling == crate::config::FlashScheduling::ReadsFirst,
            waiting: waiting_programs::WaitingPrograms::new(units, ssd.multi_plane_programs),
            programs_deferred: 0,
            waiting_for_room: Default::default(),
            reads_waiting: Default::default(),
            wake_asked_ns: None,
            cmt_starts_warm: ssd.ftl.cmt_starts_warm,
            cmt_warm_seed: 0,
            cmt_warmed: 0,
            cmt: cmt.then(|| CachedMappingTable::new(m.cached_entries, m.entries_per_translation_page, d.logical_pages)),
            translation_read_until: vec![0; m.translation_pages(d.logical_pages) as usize],
            ftl,
            flow_parts: Vec::new(),
            stop: StopFlag::default(),
        }
    }

    /// Seeds what the drive draws at random (random-greedy victims).
    pub fn seed(&mut self, seed: u64) {
        self.ftl.seed_gc_draws(seed);
        // Apart from the collection's draws (its own constant).
        self.cmt_warm_seed = seed ^ 0x5EED_C4C3_3A7D_0001;
    }

    /// The FTL (for invariant checks and wear figures).
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    /// Computes when `req`, started at `start_ns` and in the drive from
    /// `ready_ns`, finishes, booking the link, channels and units it uses;
    /// `None` for a write that waits in line for buffer room.
    fn serve(&mut self, start_ns: Ns, req: &DeviceRequest, ready_ns: Ns) -> Result<Option<Ns>> {
        let end = req.offset_bytes.checked_add(req.len_bytes).filter(|&e| req.len_bytes > 0 && e <= self.capacity_bytes);
        let Some(end) = end else {
            return Err(Error::Device(format!(
                "request [{}, +{}) outside the drive's {} bytes",
                req.offset_bytes, req.len_bytes, self.capacity_bytes
            )));
        };
        // Until the command is in the drive (after a SATA HBA sent it), its
        // units may start waiting programs and fold their SLC caches.
        self.start_waiting_programs(ready_ns)?;
        self.link.advance(start_ns);
        self.fold_while_idle(ready_ns)?;
        let page = self.page_size_bytes;
        let (first, last) = (req.offset_bytes / page, (end - 1) / page);
        let t0 = self.firmware_done(start_ns, ready_ns + self.timing.controller_overhead_ns, req.op, last - first + 1)?;
        if req.op == Op::Read && t0 > ready_ns {
            // Reads waiting off the calendar that go while the controller
            // handles this one are at their chips first.
            self.book_reads_going_before(t0)?;
        }
        let in_page = |lpn: u64| end.min((lpn + 1) * page) - req.offset_bytes.max(lpn * page);
        match req.op {
            Op::Write if self.write_buffer.is_some() => self.write_through_buffer(start_ns, t0, first..=last, req, in_page),
            Op::Write => {
                let ready = self.host_link(t0, req.len_bytes);
                let mut done = ready;
                for lpn in first..=last {
                    self.poll_stop(lpn - first)?;
                    let page = self.write_host_page(start_ns, lpn, in_page(lpn), ready, req.cause, None)?;
                    let page = page.ok_or_else(|| Error::Internal("an unbuffered program was left waiting".into()))?;
                    done = done.max(match self.write_ack {
                        WriteAck::Program => page.programmed_ns,
                        WriteAck::Transfer => page.transferred_ns,
                    });
                }
                Ok(Some(done))
            }
            Op::Read => self.serve_read(start_ns, t0, first..=last, req, in_page),
        }
    }

    /// Stops a request of many pages between two of them when the run was
    /// asked to stop; `nth` counts the request's pages.
    #[inline]
    fn poll_stop(&self, nth: u64) -> Result<()> {
        if nth % StopFlag::ITEMS_BETWEEN_CHECKS == StopFlag::ITEMS_BETWEEN_CHECKS - 1 {
            return self.stop.check();
        }
        Ok(())
    }

    /// Polls `stop` while serving a request of many pages (Ctrl-C).
    pub fn watch(&mut self, stop: StopFlag) {
        self.stop = stop;
    }

    /// When the processor has handled a command of `op` over `pages`
    /// pages, ready for it at `ready_ns`, booked at `now_ns`.
    fn firmware_done(&mut self, now_ns: Ns, ready_ns: Ns, op: Op, pages: u64) -> Result<Ns> {
        let t = &self.timing;
        let d = match op {
            Op::Read => Some(t.firmware_read_ns),
            Op::Write => pages.checked_mul(t.firmware_write_page_ns).and_then(|p| p.checked_add(t.firmware_write_ns)),
        };
        self.book_firmware(now_ns, ready_ns, d, pages)
    }

    /// When the processor, one thing at a time, has spent `d` ns (for
    /// `pages` pages) from `ready_ns`, booked at `now_ns`; `None` (an
    /// overflow) or more than an hour is refused.
    fn book_firmware(&mut self, now_ns: Ns, ready_ns: Ns, d: Option<Ns>, pages: u64) -> Result<Ns> {
        let d = d.filter(|&d| d <= crate::engine::MAX_DURATION_NS).ok_or_else(|| {
            Error::Device(format!(
                "a write of {pages} pages keeps the drive's processor busy for more than an hour (ssd.timing.firmware_write_page_ns)"
            ))
        })?;
        if d == 0 {
            return Ok(ready_ns);
        }
        self.firmware.advance(now_ns);
        Ok(self.firmware.book(ready_ns, d) + d)
    }

    /// With a write buffer: when the last page it took was programmed (the
    /// flash may work on after the host's last acknowledgement).
    pub fn flash_programmed_until_ns(&self) -> Ns {
        self.flash_programmed_until_ns
    }

    fn host_link(&mut self, ready_ns: Ns, bytes: u64) -> Ns {
        let bw = self.timing.host_link_bandwidth_bytes_per_s;
        if bw == 0 {
            return ready_ns;
        }
        let d = transfer_ns(bytes, bw);
        self.link.book(ready_ns, d) + d
    }

    fn route(&mut self, now_ns: Ns, plane: u32) -> Route {
        let layout = self.ftl.layout();
        let die = layout.die_of_plane(plane);
        let channel = layout.channel_of_die(die) as usize;
        let unit = self.unit_of_plane(plane);
        if self.yielding_gc.as_ref().is_some_and(|y| y.owes(unit)) {
            // What the unit collected while idle until now, before its calendar forgets the past.
            self.book_yielding_gc(unit, now_ns);
        }
        self.units[unit].advance(now_ns);
        self.channels[channel].advance(now_ns);
        Route { unit, channel, plane }
    }

    fn channel_ns(&self, bytes: u64) -> Ns {
        transfer_ns(bus_bytes(bytes, self.spare_bytes_per_sector), self.timing.channel_bandwidth_bytes_per_s)
    }

    /// Books `work` on its unit and channel: the unit from the start to the
    /// end of `after`, the channel for the transfer. Returns the start of
    /// the transfer. With work before the transfer (sensing) the unit may
    /// hold its register while the channel is busy; otherwise the unit is
    /// taken only when the channel is free too.
    fn book(&mut self, r: Route, ready_ns: Ns, w: PageWork, op: Op) -> Ns {
        let t = self.book_owed_gc(r.unit, ready_ns);
        let (start, x) = self.slot(r, ready_ns, t, w);
        if let Some(x) = self.book_through_erases(r, ready_ns, start, w, op) {
            return x;
        }
        self.units[r.unit].book_at(start, x + w.transfer + w.after);
        self.channels[r.channel].book_at(start, start + w.command);
        self.channels[r.channel].book_at(x, x + w.transfer);
        x
    }

    /// Books the collection owed to `unit` (if any) ahead of an operation
    /// ready at `ready_ns`: from then, or from when its write ended if
    /// later, as soon as the unit is free. Returns when the operation may
    /// start.
    #[inline]
    fn book_owed_gc(&mut self, unit: usize, ready_ns: Ns) -> Ns {
        let (gc_ns, gc_from, erases_ns) = std::mem::take(&mut self.owed_gc[unit]);
        if gc_ns == 0 {
            if self.yielding_gc.as_ref().is_some_and(|y| y.owes(unit)) {
                return self.book_yielding_gc(unit, ready_ns);
            }
            return ready_ns;
        }
        let start = self.units[unit].book(gc_from.max(ready_ns), gc_ns);
        self.note_erases(unit, start + gc_ns, erases_ns);
        ready_ns.max(start + gc_ns)
    }

    /// Where [`Ssd::book_owed_gc`] would start the collection owed to
    /// `unit`, and how long it runs; none is owed.
    fn owed_gc_start(&self, unit: usize, ready_ns: Ns) -> Option<(Ns, Ns)> {
        let (gc_ns, gc_from, _) = self.owed_gc[unit];
        if gc_ns == 0 {
            return self.yielding_gc_span(unit, ready_ns).map(|(start, end)| (start, end - start));
        }
        Some((self.units[unit].earliest(gc_from.max(ready_ns), gc_ns), gc_ns))
    }

    /// Books the collection owed to `unit` that began before `now_ns`
    /// (ahead of an operation ready at `ready_ns`): yielding, only the
    /// pieces begun by then and before the operation was ready (it goes
    /// first from then on); otherwise the whole of it.
    fn book_owed_gc_begun(&mut self, unit: usize, ready_ns: Ns, now_ns: Ns) {
        if self.owed_gc[unit].0 == 0 && self.yielding_gc.is_some() {
            self.book_yielding_gc(unit, ready_ns.min(now_ns));
        } else {
            self.book_owed_gc(unit, ready_ns);
        }
    }

    /// Where `w`, ready at `ready_ns` and not before `t`, fits on its unit
    /// and channel: the unit's start and the transfer's.
    fn slot(&mut self, r: Route, ready_ns: Ns, t: Ns, w: PageWork) -> (Ns, Ns) {
        let whole = w.before + w.transfer + w.after;
        // The pages of one request all search from its ready instant: the
        // unit remembers where the last such search ended (a cleaning's
        // later instant would spoil that for the pages after it).
        let mut start = self.units[r.unit].earliest_remembered(ready_ns, whole);
        if t > ready_ns {
            start = self.units[r.unit].earliest(t, whole);
        }
        self.slot_from(r, start, w)
    }

    /// [`Ssd::slot`] from a first candidate start of the unit, booking
    /// nothing.
    #[inline]
    fn slot_from(&self, r: Route, mut start: Ns, w: PageWork) -> (Ns, Ns) {
        let whole = w.before + w.transfer + w.after;
        loop {
            if w.command > 0 {
                let c = self.channels[r.channel].earliest(start, w.command);
                if c > start {
                    start = self.units[r.unit].earliest(c, whole);
                    continue;
                }
            }
            let x = self.channels[r.channel].earliest(start + w.before, w.transfer);
            let end = x + w.transfer + w.after;
            let aligned = x == start + w.before;
            if aligned || (w.before > 0 && self.units[r.unit].is_free(start, end)) {
                return (start, x);
            }
            // Start the unit later, so that it reaches the transfer as the channel frees.
            start = self.units[r.unit].earliest(x - w.before, whole);
        }
    }

    /// Prefetches the map entry of the page holding byte `offset_bytes`
    /// (see `prefetch.rs`).
    pub fn prefetch_map_at(&self, offset_bytes: u64) {
        self.ftl.prefetch_map(offset_bytes / self.page_size_bytes);
    }

    /// Programs page `lpn`; with `buffer_slots` (a page the write buffer
    /// holds in that many slots, under `reads_first`) it waits at its unit
    /// and `None` is returned.
    fn program_page(&mut self, now_ns: Ns, lpn: u64, bytes: u64, ready_ns: Ns, cause: Cause, buffer_slots: Option<u64>) -> Result<Option<PageDone>> {
        // A mirror copy on a mirroring chip (CR5M) is programmed whole, from
        // the page the controller holds (the data chip's write merged it).
        let to_mirroring_chip = cause == Cause::Mirror && self.ftl.layout().geometry.mirroring_chips_per_channel > 0;
        let rebuilt_chip = self.replacement_chip.filter(|_| cause == Cause::RebuildWrite);
        let (id, plane, bytes) = match rebuilt_chip {
            // A rebuilt mirroring chip receives mirror copies again.
            Some(chip) if self.ftl.layout().is_mirroring_die(chip * self.ftl.layout().geometry.dies_per_chip) => {
                (self.ftl.mirror_id(lpn), self.least_busy_plane_where(|l, d| l.chip_of_die(d) == chip)?, self.page_size_bytes)
            }
            // Where the paper is silent: host writes may fill the replacement
            // chip too (the FTL picks a channel's chip dynamically), and then
            // the rest of the reconstruction goes where the FTL would put it.
            Some(chip) => match self.least_busy_plane_where(|l, d| l.chip_of_die(d) == chip) {
                Ok(plane) => (lpn, plane, bytes),
                Err(Error::Device(_)) => (lpn, self.place(lpn)?, bytes),
                Err(e) => return Err(e),
            },
            None if cause == Cause::MapWrite => {
                let id = self.ftl.translation_id(lpn);
                (id, self.place(id)?, self.page_size_bytes)
            }
            None if to_mirroring_chip => (self.ftl.mirror_id(lpn), self.mirroring_plane()?, self.page_size_bytes),
            None => (lpn, self.place(lpn)?, bytes),
        };
        // The rest of the page comes from its current copy, or from its
        // mirror when its data chip failed (CR5M).
        let placed_by_read = self.forget_placed_by_read(id);
        let old_copy = if bytes < self.page_size_bytes && !placed_by_read { self.ftl.lookup(lpn).or_else(|| self.ftl.mirror_of(lpn)) } else { None };
        let partial = old_copy.is_some();
        let route = self.route(now_ns, plane);
        // The drive's own translation pages skip the SLC cache; whatever
        // comes from outside goes through it.
        let outcome = if cause == Cause::MapWrite { self.ftl.write(id, plane, ready_ns)? } else { self.ftl.write_from_host(id, plane, ready_ns)? };
        self.chip_pages_written[self.ftl.layout().chip_of_die(self.ftl.layout().die_of_plane(plane)) as usize] += 1;
        let layout = self.ftl.layout();
        let t = &self.timing;
        let work = PageWork {
            command: old_copy.map_or(0, |_| self.read_command_ns()),
            before: old_copy.map_or(0, |old| t.t_command_ns + self.latencies.read(layout.page_type(old))),
            transfer: t.t_command_ns + self.channel_ns(bytes),
            after: self.latencies.program(layout.page_type(outcome.ppn)) + if outcome.sealed_block { self.summary_block_ns } else { 0 },
        };
        if partial {
            self.counters.pages_read[Cause::PartialPageRead.index()] += 1;
        }
        self.counters.pages_written[cause.index()] += 1;
        self.summary_pages_written += u64::from(outcome.sealed_block) * u64::from(self.ftl.summary_pages_per_block());
        self.count_own_gc(outcome.gc);
        self.count_gc(outcome.fold);
        if let Some(slots) = buffer_slots {
            let program = Program { route, ready_ns, work, gc: outcome.gc, fold: outcome.fold };
            self.waiting.push(waiting_programs::WaitingProgram { program, lpn: id, ppn: outcome.ppn, slots });
            self.programs_deferred += 1;
            return Ok(None);
        }
        Ok(Some(self.book_program(route, ready_ns, work, &outcome.gc, &outcome.fold)))
    }

    /// Books a program on its unit, then the collection and folding its
    /// write asked for.
    #[inline]
    fn book_program(&mut self, route: Route, ready_ns: Ns, work: PageWork, gc: &GcWork, fold: &GcWork) -> PageDone {
        let x = self.book(route, ready_ns, work, Op::Write);
        let programmed = x + work.transfer + work.after;
        self.book_gc(route, programmed, *gc);
        self.book_fold(route, programmed, *fold);
        PageDone { transferred_ns: x + work.transfer, programmed_ns: programmed }
    }

    /// CR5M, before a mirrored write of `[offset, offset + len)`: each
    /// page's current copy stays valid as the parity-consistent old copy
    /// (see [`Ftl::keep_as_expired`]). Bookkeeping only: no flash time.
    pub fn keep_as_expired(&mut self, offset_bytes: u64, len_bytes: u64) -> Result<()> {
        self.pages_of(offset_bytes, len_bytes).try_for_each(|lpn| self.ftl.keep_as_expired(lpn))
    }

    /// CR5M: the pages' stripe is parity-consistent again; their mirror and
    /// old copies become invalid (garbage collection reclaims them).
    pub fn drop_copies(&mut self, offset_bytes: u64, len_bytes: u64) -> Result<()> {
        self.pages_of(offset_bytes, len_bytes).try_for_each(|lpn| self.ftl.drop_copies(lpn))
    }

    fn pages_of(&self, offset_bytes: u64, len_bytes: u64) -> std::ops::Range<u64> {
        let page = self.page_size_bytes;
        offset_bytes / page..(offset_bytes + len_bytes).div_ceil(page).min(self.ftl.logical_pages())
    }
}

/// A block's summary pages (its last `summary_pages_per_block`), each one
/// sector over the channel and a program of its page type.
fn summary_block_ns(ssd: &SsdConfig) -> Ns {
    let (g, t) = (&ssd.geometry, &ssd.timing);
    let latencies = PageLatencies::new(t, &ssd.slc_cache);
    let sector_ns = t.t_command_ns + transfer_ns(bus_bytes(512, g.spare_bytes_per_sector), t.channel_bandwidth_bytes_per_s);
    let data_pages = g.pages_per_block - ssd.ftl.summary_pages_per_block;
    (data_pages..g.pages_per_block).map(|p| sector_ns + latencies.program(page_type(g.cell_type, p))).sum()
}

#[cfg(test)]
mod tests;
