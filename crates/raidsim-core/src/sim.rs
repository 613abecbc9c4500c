//! A `Simulation` value owns one run: clock, event queue, device, workload,
//! metrics and random streams. Nothing is global, so many simulations run
//! side by side in one process or across a cluster.
//!
//! The host replays arrival times (open loop) or keeps N requests
//! outstanding (closed loop) and sends each request to the device:
//!
//! ```text
//! RequestSource ──► Event::Arrival / Event::ProcessIssue ──► Ssd::submit
//!        ▲                                                      │
//!        └──── closed loop: next issue ◄── Event::DeviceDone ◄───┘
//! ```

use crate::config::{ResolvedConfig, WorkloadConfig};
use crate::device::{Cause, DeviceRequest, Dispatch, MemberDevice, Op};
use crate::engine::{EventQueue, Ns};
use crate::error::Result;
use crate::metrics::HostMetrics;
use crate::report::Report;
use crate::ssd::Ssd;
use crate::workload::{build_source, HostRequest, RequestSource};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stream id of preconditioning's random numbers (see `workload::synthetic`).
const PRECONDITION_STREAM: u64 = 0x5052_4543_4f4e_4400;

/// The events of a single-drive simulation.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// An open-loop request arrives.
    Arrival(HostRequest),
    /// A closed-loop process issues its next request.
    ProcessIssue,
    /// The device finished the request with this token.
    DeviceDone { token: u64 },
}

#[derive(Clone, Copy, Debug)]
struct InFlight {
    arrival_ns: Ns,
    op: Op,
    len_bytes: u64,
}

/// Requests in flight, indexed by token; slots are reused so the steady
/// state allocates nothing.
#[derive(Default)]
struct InFlightTable {
    slots: Vec<Option<InFlight>>,
    free: Vec<u64>,
}

impl InFlightTable {
    fn insert(&mut self, f: InFlight) -> u64 {
        match self.free.pop() {
            Some(t) => {
                self.slots[t as usize] = Some(f);
                t
            }
            None => {
                self.slots.push(Some(f));
                self.slots.len() as u64 - 1
            }
        }
    }

    fn remove(&mut self, token: u64) -> Option<InFlight> {
        let f = self.slots.get_mut(token as usize)?.take();
        if f.is_some() {
            self.free.push(token);
        }
        f
    }
}

/// Progress of a run, for progress bars.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Requests completed.
    pub completed: u64,
    /// Fraction of the workload issued (0..=1).
    pub fraction: f64,
    /// The run has finished.
    pub finished: bool,
}

/// One simulation run of a single SSD under a workload.
pub struct Simulation {
    resolved: ResolvedConfig,
    queue: EventQueue<Event>,
    ssd: Ssd,
    source: Box<dyn RequestSource>,
    host: HostMetrics,
    in_flight: InFlightTable,
    closed_loop_think_ns: Option<Ns>,
    max_requests: u64,
    issued: u64,
    finished: bool,
}

impl Simulation {
    /// Builds (and preconditions) the drive and opens the workload.
    pub fn new(resolved: ResolvedConfig) -> Result<Self> {
        let cfg = &resolved.config;
        let mut ssd = Ssd::new(&resolved);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.sim.seed ^ PRECONDITION_STREAM);
        ssd.precondition(cfg.precondition.fill_fraction, cfg.precondition.random_overwrite_factor, &mut rng)?;
        let source = build_source(&cfg.workload, resolved.geometry.capacity_bytes, cfg.sim.seed)?;
        let closed_loop = match &cfg.workload {
            WorkloadConfig::Synthetic(s) if s.processes > 0 => Some((s.processes, s.think_time_ns)),
            _ => None,
        };
        let mut sim = Self {
            queue: EventQueue::new(),
            ssd,
            source,
            host: HostMetrics::new(cfg.metrics.interval_ns),
            in_flight: InFlightTable::default(),
            closed_loop_think_ns: closed_loop.map(|(_, think)| think),
            max_requests: cfg.sim.max_requests,
            issued: 0,
            finished: false,
            resolved,
        };
        match closed_loop {
            Some((processes, _)) => (0..processes).for_each(|_| sim.queue.schedule(0, Event::ProcessIssue)),
            None => sim.schedule_next_arrival()?,
        }
        Ok(sim)
    }

    /// The configuration of this run.
    pub fn config(&self) -> &ResolvedConfig {
        &self.resolved
    }

    /// The drive (for invariant checks).
    pub fn ssd(&self) -> &Ssd {
        &self.ssd
    }

    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        if self.max_requests > 0 && self.issued >= self.max_requests {
            return Ok(None);
        }
        let r = self.source.next_request()?;
        self.issued += u64::from(r.is_some());
        Ok(r)
    }

    fn schedule_next_arrival(&mut self) -> Result<()> {
        if let Some(r) = self.next_request()? {
            let at = r.arrival_ns.max(self.queue.now_ns());
            self.queue.schedule(at, Event::Arrival(r));
        }
        Ok(())
    }

    fn issue(&mut self, now: Ns, r: HostRequest) -> Result<()> {
        self.host.arrived(now);
        let token = self.in_flight.insert(InFlight { arrival_ns: now, op: r.op, len_bytes: r.len_bytes });
        let req = DeviceRequest { token, op: r.op, offset_bytes: r.offset_bytes, len_bytes: r.len_bytes, cause: Cause::User };
        let dispatch = self.ssd.submit(now, req)?;
        self.schedule_done(dispatch);
        Ok(())
    }

    fn schedule_done(&mut self, dispatch: Option<Dispatch>) {
        if let Some(d) = dispatch {
            self.queue.schedule(d.done_ns, Event::DeviceDone { token: d.token });
        }
    }

    fn handle(&mut self, now: Ns, event: Event) -> Result<()> {
        match event {
            Event::Arrival(r) => {
                self.issue(now, r)?;
                self.schedule_next_arrival()?;
            }
            Event::ProcessIssue => {
                if let Some(r) = self.next_request()? {
                    self.issue(now, r)?;
                }
            }
            Event::DeviceDone { token } => {
                if let Some(f) = self.in_flight.remove(token) {
                    self.host.completed(now, f.arrival_ns, f.op, f.len_bytes);
                }
                let next = self.ssd.complete(now)?;
                self.schedule_done(next);
                if let Some(think) = self.closed_loop_think_ns {
                    self.queue.schedule(now + think, Event::ProcessIssue);
                }
            }
        }
        Ok(())
    }

    /// Processes at most `max_events` events; returns the progress.
    pub fn step(&mut self, max_events: u64) -> Result<Progress> {
        for _ in 0..max_events {
            match self.queue.pop() {
                Some((now, event)) => self.handle(now, event)?,
                None => {
                    self.finished = true;
                    break;
                }
            }
        }
        Ok(Progress { completed: self.host.completed_count(), fraction: self.source.progress(), finished: self.finished })
    }

    /// Runs to the end.
    pub fn run(&mut self) -> Result<()> {
        while !self.step(1 << 20)?.finished {}
        Ok(())
    }

    /// The report of what has run so far.
    pub fn report(&self) -> Report {
        Report::new(&self.resolved, &self.host, &self.ssd, self.source.report())
    }
}

/// Builds, runs and reports a simulation.
pub fn simulate(resolved: ResolvedConfig) -> Result<Report> {
    let mut sim = Simulation::new(resolved)?;
    sim.run()?;
    Ok(sim.report())
}
