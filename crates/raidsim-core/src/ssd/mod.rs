//! A flash SSD: host link → controller → FTL → channels and dies.
//!
//! The data path of one host request (DiskSim's SSD extension, SSDsim and
//! MQSim model the same parts):
//!
//! ```text
//! write: controller overhead → host link transfer → per page: channel
//!        transfer (+ command) → program on the die [→ garbage collection]
//! read:  controller overhead → per page: read on the die → channel
//!        transfer → host link transfer of the whole request
//! ```
//!
//! Each die, channel and the host link is a first-come-first-served server
//! whose next free instant is kept here; an operation starts when its input
//! is ready and its server is free. Pages of one request on different dies
//! proceed in parallel; on one die or channel they queue. A die holds a read
//! page in its register until the channel has moved it. Garbage collection
//! triggered by a write keeps the plane's die busy for its copies (copy-back:
//! read and program per valid page, no channel transfer) and erases, after
//! the write's own program. Multi-plane commands and cache registers are not
//! modelled: a die runs one page operation at a time.
//!
//! The drive admits `queue_depth` host requests at once; later ones wait in
//! its queue in arrival order.

use crate::config::{Allocation, DerivedGeometry, SsdConfig, TimingConfig};
use crate::device::{Cause, CauseCounters, DeviceRequest, Dispatch, MemberDevice, Op};
use crate::engine::Ns;
use crate::error::{Error, Result};
use crate::ftl::{Ftl, GcWork};
use crate::metrics::{Stat, Stats};
use rand::Rng;
use std::collections::VecDeque;

/// One SSD.
pub struct Ssd {
    ftl: Ftl,
    timing: TimingConfig,
    allocation: Allocation,
    page_size_bytes: u64,
    page_transfer_ns: Ns,
    capacity_bytes: u64,
    die_free_ns: Vec<Ns>,
    channel_free_ns: Vec<Ns>,
    link_free_ns: Ns,
    next_plane_in_die: Vec<u32>,
    queue: VecDeque<DeviceRequest>,
    in_flight: u32,
    queue_depth: u32,
    counters: CauseCounters,
    gc_runs: u64,
}

impl Ssd {
    /// A fresh drive.
    pub fn new(ssd: &SsdConfig, d: &DerivedGeometry) -> Self {
        let ftl = Ftl::new(ssd, d);
        let dies = d.dies as usize;
        Self {
            timing: ssd.timing.clone(),
            allocation: ssd.ftl.allocation,
            page_size_bytes: u64::from(ssd.geometry.page_size_bytes),
            page_transfer_ns: d.page_transfer_ns,
            capacity_bytes: d.capacity_bytes,
            die_free_ns: vec![0; dies],
            channel_free_ns: vec![0; ssd.geometry.channels as usize],
            link_free_ns: 0,
            next_plane_in_die: vec![0; dies],
            queue: VecDeque::with_capacity(64),
            in_flight: 0,
            queue_depth: ssd.queue_depth,
            counters: CauseCounters::default(),
            gc_runs: 0,
            ftl,
        }
    }

    /// The FTL (for invariant checks and wear figures).
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    /// Ages the drive without simulated time: writes the first
    /// `fill_fraction` of logical pages in order, then `overwrite_factor` ×
    /// that many uniformly random overwrites of them. Counters are reset
    /// afterwards; erase counts (wear) are kept.
    pub fn precondition<R: Rng>(&mut self, fill_fraction: f64, overwrite_factor: f64, rng: &mut R) -> Result<()> {
        let filled = (self.ftl.logical_pages() as f64 * fill_fraction).floor() as u64;
        for lpn in 0..filled {
            self.ftl.write(lpn, self.ftl.static_plane(lpn), 0)?;
        }
        if filled > 0 {
            let overwrites = (filled as f64 * overwrite_factor).round() as u64;
            for _ in 0..overwrites {
                let lpn = rng.gen_range(0..filled);
                self.ftl.write(lpn, self.ftl.static_plane(lpn), 0)?;
            }
        }
        self.counters = CauseCounters::default();
        self.gc_runs = 0;
        Ok(())
    }

    fn dispatch(&mut self, start_ns: Ns, req: DeviceRequest) -> Result<Dispatch> {
        self.in_flight += 1;
        let done_ns = self.serve(start_ns, &req)?;
        Ok(Dispatch { token: req.token, done_ns })
    }

    /// Computes when `req`, started at `start_ns`, finishes, reserving the
    /// link, channels and dies it uses.
    fn serve(&mut self, start_ns: Ns, req: &DeviceRequest) -> Result<Ns> {
        if req.len_bytes == 0 || req.offset_bytes + req.len_bytes > self.capacity_bytes {
            return Err(Error::Device(format!(
                "request [{}, +{}) outside the drive's {} bytes",
                req.offset_bytes, req.len_bytes, self.capacity_bytes
            )));
        }
        let t0 = start_ns + self.timing.controller_overhead_ns;
        let first = req.offset_bytes / self.page_size_bytes;
        let last = (req.offset_bytes + req.len_bytes - 1) / self.page_size_bytes;
        match req.op {
            Op::Write => {
                let ready = self.host_link(t0, req.len_bytes);
                let mut done = ready;
                for lpn in first..=last {
                    done = done.max(self.program_page(lpn, ready, req.cause)?);
                }
                Ok(done)
            }
            Op::Read => {
                let mut done = t0;
                for lpn in first..=last {
                    done = done.max(self.read_page(lpn, t0, req.cause));
                }
                Ok(self.host_link(done, req.len_bytes))
            }
        }
    }

    fn host_link(&mut self, ready_ns: Ns, bytes: u64) -> Ns {
        let bw = self.timing.host_link_bandwidth_bytes_per_s;
        if bw == 0 {
            return ready_ns;
        }
        let start = ready_ns.max(self.link_free_ns);
        self.link_free_ns = start + crate::config::transfer_ns(bytes, bw);
        self.link_free_ns
    }

    fn read_page(&mut self, lpn: u64, ready_ns: Ns, cause: Cause) -> Ns {
        // A never-written page is read where static allocation would put it.
        let plane = match self.ftl.lookup(lpn) {
            Some(ppn) => self.ftl.layout().plane_of_block(self.ftl.layout().block_of(ppn)),
            None => self.ftl.static_plane(lpn),
        };
        let die = self.ftl.layout().die_of_plane(plane) as usize;
        let channel = self.ftl.layout().channel_of_die(die as u32) as usize;
        let sensed = ready_ns.max(self.die_free_ns[die]) + self.timing.t_command_ns + self.timing.t_read_ns;
        let moved = sensed.max(self.channel_free_ns[channel]) + self.page_transfer_ns;
        self.channel_free_ns[channel] = moved;
        self.die_free_ns[die] = moved;
        self.counters.pages_read[cause.index()] += 1;
        moved
    }

    fn program_page(&mut self, lpn: u64, ready_ns: Ns, cause: Cause) -> Result<Ns> {
        let plane = self.place(lpn)?;
        let die = self.ftl.layout().die_of_plane(plane) as usize;
        let channel = self.ftl.layout().channel_of_die(die as u32) as usize;
        let start = ready_ns.max(self.die_free_ns[die]).max(self.channel_free_ns[channel]);
        let moved = start + self.timing.t_command_ns + self.page_transfer_ns;
        let programmed = moved + self.timing.t_program_ns;
        self.channel_free_ns[channel] = moved;
        let (_, gc) = self.ftl.write(lpn, plane, programmed)?;
        self.die_free_ns[die] = programmed + self.gc_time(gc);
        self.counters.pages_written[cause.index()] += 1;
        self.count_gc(gc);
        Ok(programmed)
    }

    fn place(&mut self, lpn: u64) -> Result<u32> {
        match self.allocation {
            Allocation::Static => Ok(self.ftl.static_plane(lpn)),
            Allocation::Dynamic => self.least_busy_plane(),
        }
    }

    /// Dynamic allocation: the die that frees first (lowest index on ties),
    /// planes round robin inside it, skipping planes too full to collect.
    fn least_busy_plane(&mut self) -> Result<u32> {
        let ppd = self.ftl.layout().planes_per_die;
        let n = self.die_free_ns.len();
        let best = (0..n).min_by_key(|&d| (self.die_free_ns[d], d)).unwrap_or(0);
        for die in std::iter::once(best).chain((0..n).filter(|&d| d != best)) {
            for _ in 0..ppd {
                let slot = self.next_plane_in_die[die];
                self.next_plane_in_die[die] = (slot + 1) % ppd;
                let plane = die as u32 * ppd + slot;
                if !self.ftl.plane_is_full(plane) {
                    return Ok(plane);
                }
            }
        }
        Err(Error::Device("every plane is full: the workload writes more than the drive's logical capacity".into()))
    }

    fn gc_time(&self, gc: GcWork) -> Ns {
        gc.pages_copied * (2 * self.timing.t_command_ns + self.timing.t_read_ns + self.timing.t_program_ns)
            + gc.blocks_erased * (self.timing.t_command_ns + self.timing.t_erase_ns)
    }

    fn count_gc(&mut self, gc: GcWork) {
        if gc.blocks_erased > 0 {
            self.gc_runs += 1;
            self.counters.pages_read[Cause::GcRead.index()] += gc.pages_copied;
            self.counters.pages_written[Cause::GcWrite.index()] += gc.pages_copied;
            self.counters.erases += gc.blocks_erased;
        }
    }

    /// Bytes of one flash page.
    pub fn page_size_bytes(&self) -> u64 {
        self.page_size_bytes
    }

    /// Requests started and not yet completed.
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// Garbage-collection runs (writes that triggered at least one erase).
    pub fn gc_runs(&self) -> u64 {
        self.gc_runs
    }

    /// Flash pages written per page the host (or array) asked to write.
    pub fn write_amplification(&self) -> f64 {
        let all: u64 = self.counters.pages_written.iter().sum();
        let gc = self.counters.pages_written[Cause::GcWrite.index()];
        if all == gc {
            return 0.0;
        }
        all as f64 / (all - gc) as f64
    }

    /// This drive's statistics under `prefix` (e.g. `ssd` or `member[3]`).
    pub fn stats(&self, prefix: &str, out: &mut Stats) {
        for cause in Cause::ALL {
            let (r, w) = (self.counters.pages_read[cause.index()], self.counters.pages_written[cause.index()]);
            if r > 0 {
                out.push(Stat::new(format!("{prefix}.flash.pages_read.{}", cause.name()), r as f64, "pages", "flash pages read for this cause"));
            }
            if w > 0 {
                out.push(Stat::new(format!("{prefix}.flash.pages_written.{}", cause.name()), w as f64, "pages", "flash pages programmed for this cause"));
            }
        }
        out.push(Stat::new(format!("{prefix}.flash.erases"), self.counters.erases as f64, "blocks", "blocks erased during the run"));
        out.push(Stat::new(format!("{prefix}.ftl.gc.runs"), self.gc_runs as f64, "runs", "writes that triggered garbage collection"));
        out.push(Stat::new(format!("{prefix}.ftl.gc.pages_copied"), self.counters.pages_written[Cause::GcWrite.index()] as f64, "pages", "valid pages moved by garbage collection"));
        out.push(Stat::new(format!("{prefix}.ftl.write_amplification"), self.write_amplification(), "ratio", "flash pages written / pages written by the host"));
    }
}

impl MemberDevice for Ssd {
    fn capacity_bytes(&self) -> u64 {
        self.capacity_bytes
    }

    fn submit(&mut self, now_ns: Ns, request: DeviceRequest) -> Result<Option<Dispatch>> {
        if self.in_flight < self.queue_depth {
            return self.dispatch(now_ns, request).map(Some);
        }
        self.queue.push_back(request);
        Ok(None)
    }

    fn complete(&mut self, now_ns: Ns) -> Result<Option<Dispatch>> {
        self.in_flight -= 1;
        match self.queue.pop_front() {
            Some(req) => self.dispatch(now_ns, req).map(Some),
            None => Ok(None),
        }
    }

    fn counters(&self) -> &CauseCounters {
        &self.counters
    }
}
