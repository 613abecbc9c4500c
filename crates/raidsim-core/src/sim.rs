//! A `Simulation` value owns one run: clock, event queue, member devices,
//! array controller, workload, metrics and random streams. Nothing is
//! global, so many simulations run side by side in one process or across a
//! cluster.
//!
//! The host replays arrival times (open loop) or keeps N requests
//! outstanding (closed loop). With `array.level = "single"` each request
//! goes straight to the one SSD. Otherwise the array controller waits its
//! overhead, plans the request ([`crate::array::Planner`]) and runs each
//! stripe's plan: phase 1 (reads) together, the parity computation, phase 2
//! (writes) together. Concurrent parity updates of one stripe are
//! serialized by a stripe lock; the stripes of one request run in parallel
//! or in order (`array.stripe_order`).
//!
//! ```text
//! RequestSource ─► Arrival / ProcessIssue ─► ControllerDone ─► plan ─► member submit
//!       ▲                                                               │
//!       └── closed loop ◄── host completion ◄── stripe done ◄── MemberDone (per phase)
//! ```

use crate::array::{ArrayGeometry, ArrayState, Planner, StripePlan};
use crate::config::{RaidLevel, ResolvedConfig, StripeOrder, WorkloadConfig};
use crate::device::{Cause, DeviceRequest, Dispatch, MemberDevice};
use crate::engine::{EventQueue, Ns};
use crate::error::{Error, Result};
use crate::metrics::HostMetrics;
use crate::report::Report;
use crate::ssd::Ssd;
use crate::workload::{build_source, HostRequest, RequestSource};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// An array event reached a simulation without an array controller.
fn no_controller() -> Error {
    Error::Internal("an array-controller event in a single-drive simulation".into())
}

/// Stream id of preconditioning's random numbers (see `workload::synthetic`).
const PRECONDITION_STREAM: u64 = 0x5052_4543_4f4e_4400;

/// The events of a simulation.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// The pending open-loop request (`Simulation::next_arrival`) arrives.
    Arrival,
    /// A closed-loop process issues its next request.
    ProcessIssue,
    /// The array controller has spent its overhead on host job `job`.
    ControllerDone { job: u32 },
    /// Member `member` finished the request with this token.
    MemberDone { member: u32, token: u64 },
    /// Stripe job `stripe_job` has computed its parity and may write.
    ParityReady { stripe_job: u32 },
    /// Member `member` fails.
    MemberFails { member: u32 },
}

/// A slab: slots reused so the steady state allocates nothing.
struct Slab<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Self { slots: Vec::new(), free: Vec::new() }
    }
}

impl<T> Slab<T> {
    fn insert(&mut self, v: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(v);
                i
            }
            None => {
                self.slots.push(Some(v));
                self.slots.len() as u32 - 1
            }
        }
    }

    fn get_mut(&mut self, i: u32) -> Option<&mut T> {
        self.slots.get_mut(i as usize).and_then(Option::as_mut)
    }

    fn remove(&mut self, i: u32) -> Option<T> {
        let v = self.slots.get_mut(i as usize)?.take();
        if v.is_some() {
            self.free.push(i);
        }
        v
    }
}

/// A host request in flight (kept small: an overloaded open-loop run holds many).
struct HostJob {
    arrival_ns: Ns,
    offset_bytes: u64,
    len_bytes: u64,
    op: crate::device::Op,
    stripes_left: u32,
}

/// One stripe of a host request being executed.
struct StripeJob {
    host: u32,
    plan: StripePlan,
    in_writes: bool,
    outstanding: u32,
}

/// The array controller's run-time state.
struct Controller {
    planner: Planner,
    state: ArrayState,
    order: StripeOrder,
    overhead_ns: Ns,
    xor_bytes_per_s: u64,
    stripe_jobs: Slab<StripeJob>,
    /// Stripes with a parity update in progress, and the stripe jobs waiting for each.
    locks: FxHashMap<u64, VecDeque<u32>>,
    /// Sequential stripe order: each host job's plans not started yet.
    waiting: FxHashMap<u32, VecDeque<StripePlan>>,
    plans: Vec<StripePlan>,
    /// Finished plans, whose buffers the planner reuses.
    pool: Vec<StripePlan>,
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

/// Building a member, counted as this many preconditioning pages (for
/// slicing and progress): allocating its maps costs about as much as
/// writing an eighth of its pages.
fn build_cost_pages(logical_pages: u64) -> u64 {
    (logical_pages / 8).max(1)
}

/// Preconditioning still to do: members are aged in index order, each with
/// its planned writes, from one random stream (so slicing changes nothing).
struct Preconditioning {
    rng: Xoshiro256PlusPlus,
    member: usize,
    next_write: u64,
    done_pages: u64,
    total_pages: u64,
}

/// One simulation run.
pub struct Simulation {
    preconditioning: Option<Preconditioning>,
    resolved: ResolvedConfig,
    queue: EventQueue<Event>,
    members: Vec<Ssd>,
    controller: Option<Controller>,
    source: Box<dyn RequestSource>,
    host: HostMetrics,
    jobs: Slab<HostJob>,
    /// The one open-loop request scheduled to arrive; kept out of the event
    /// queue so events stay small.
    next_arrival: Option<HostRequest>,
    closed_loop_think_ns: Option<Ns>,
    max_requests: u64,
    issued: u64,
    finished: bool,
}

impl Simulation {
    /// Builds and preconditions the members and opens the workload.
    pub fn new(resolved: ResolvedConfig) -> Result<Self> {
        let mut sim = Self::build(resolved)?;
        while sim.precondition(u64::MAX)? < 1.0 {}
        Ok(sim)
    }

    /// Preconditions at most `max_pages` more pages; returns the fraction
    /// of preconditioning done (1 when the run may start). Lets a caller
    /// show progress and stop between slices.
    pub fn precondition(&mut self, max_pages: u64) -> Result<f64> {
        let Some(p) = self.preconditioning.as_mut() else { return Ok(1.0) };
        let cfg = &self.resolved.config.precondition;
        let mut budget = max_pages;
        let total = self.resolved.members.len();
        while p.member < total && budget > 0 {
            if self.members.len() == p.member {
                // Members are built in turn too: a large array's maps take seconds to allocate.
                let m = &self.resolved.members[p.member];
                self.members.push(Ssd::new(&m.ssd, &m.geometry));
                let cost = build_cost_pages(m.geometry.logical_pages);
                (budget, p.done_pages) = (budget.saturating_sub(cost), p.done_pages + cost);
                continue;
            }
            let ssd = &mut self.members[p.member];
            let (filled, overwrites) = ssd.precondition_plan(cfg.fill_fraction, cfg.random_overwrite_factor);
            let end = (p.next_write + budget).min(filled + overwrites);
            for i in p.next_write..end {
                ssd.precondition_write(i, filled, &mut p.rng)?;
            }
            (budget, p.done_pages) = (budget - (end - p.next_write), p.done_pages + (end - p.next_write));
            p.next_write = end;
            if end == filled + overwrites {
                ssd.precondition_done();
                (p.member, p.next_write) = (p.member + 1, 0);
            }
        }
        if p.member < total {
            return Ok(p.done_pages as f64 / p.total_pages.max(1) as f64);
        }
        self.preconditioning = None;
        Ok(1.0)
    }

    /// Opens the workload and the controller; building and preconditioning
    /// the members is left to [`Simulation::precondition`], in slices (or
    /// done before the first step).
    pub fn build(resolved: ResolvedConfig) -> Result<Self> {
        let cfg = &resolved.config;
        let members: Vec<Ssd> = Vec::with_capacity(resolved.members.len());
        let p = &cfg.precondition;
        let total_pages = resolved
            .members
            .iter()
            .map(|m| {
                let (filled, overwrites) = crate::ssd::precondition_plan(m.geometry.logical_pages, p.fill_fraction, p.random_overwrite_factor);
                filled + overwrites + build_cost_pages(m.geometry.logical_pages)
            })
            .sum();
        let preconditioning = Some(Preconditioning {
            rng: Xoshiro256PlusPlus::seed_from_u64(cfg.sim.seed ^ PRECONDITION_STREAM),
            member: 0,
            next_write: 0,
            done_pages: 0,
            total_pages,
        });
        let controller = (cfg.array.level != RaidLevel::Single).then(|| -> Result<Controller> {
            let geom = ArrayGeometry::new(&cfg.array, resolved.member_capacity_bytes());
            Ok(Controller {
                planner: Planner::new(&cfg.array, geom, resolved.member_page_bytes())?,
                state: ArrayState::new(cfg.array.members),
                order: cfg.array.stripe_order,
                overhead_ns: cfg.array.controller_overhead_ns,
                xor_bytes_per_s: cfg.array.xor_bytes_per_s,
                stripe_jobs: Slab::default(),
                locks: FxHashMap::default(),
                waiting: FxHashMap::default(),
                plans: Vec::new(),
                pool: Vec::new(),
            })
        });
        let controller = controller.transpose()?;
        let source = build_source(&cfg.workload, resolved.capacity_bytes, cfg.sim.seed)?;
        let closed_loop = match &cfg.workload {
            WorkloadConfig::Synthetic(s) if s.processes > 0 => Some((s.processes, s.think_time_ns)),
            _ => None,
        };
        let mut sim = Self {
            preconditioning,
            queue: EventQueue::new(),
            members,
            controller,
            source,
            host: HostMetrics::new(cfg.metrics.interval_ns),
            jobs: Slab::default(),
            next_arrival: None,
            closed_loop_think_ns: closed_loop.map(|(_, think)| think),
            max_requests: cfg.sim.max_requests,
            issued: 0,
            finished: false,
            resolved,
        };
        for f in &sim.resolved.config.array.failures {
            sim.queue.schedule(f.at_ns, Event::MemberFails { member: f.member });
        }
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

    /// The member drives (one for `level = "single"`).
    pub fn members(&self) -> &[Ssd] {
        &self.members
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
            self.next_arrival = Some(r);
            self.queue.schedule(at, Event::Arrival);
        }
        Ok(())
    }

    fn issue(&mut self, now: Ns, r: HostRequest) -> Result<()> {
        let limit = self.resolved.config.sim.max_outstanding_requests;
        if self.host.outstanding() >= limit {
            return Err(Error::Workload(format!(
                "saturated: {limit} host requests outstanding at {:.3} s of simulated time; requests arrive faster than the \
                 drives serve them and would queue without bound (lower the load, add drives, or raise sim.max_outstanding_requests)",
                now as f64 / 1e9
            )));
        }
        self.host.arrived(now);
        let job = self.jobs.insert(HostJob { arrival_ns: now, offset_bytes: r.offset_bytes, len_bytes: r.len_bytes, op: r.op, stripes_left: 0 });
        match &self.controller {
            None => {
                let req = DeviceRequest { token: u64::from(job), op: r.op, offset_bytes: r.offset_bytes, len_bytes: r.len_bytes, cause: Cause::User };
                let d = self.members[0].submit(now, req)?;
                self.schedule_done(0, d);
            }
            Some(c) => self.queue.schedule(now + c.overhead_ns, Event::ControllerDone { job }),
        }
        Ok(())
    }

    fn schedule_done(&mut self, member: u32, dispatch: Option<Dispatch>) {
        if let Some(d) = dispatch {
            self.queue.schedule(d.done_ns, Event::MemberDone { member, token: d.token });
        }
    }

    fn complete_host(&mut self, now: Ns, job: u32) {
        if let Some(j) = self.jobs.remove(job) {
            self.host.completed(now, j.arrival_ns, j.op, j.len_bytes);
        }
        if let Some(think) = self.closed_loop_think_ns {
            self.queue.schedule(now + think, Event::ProcessIssue);
        }
    }

    /// Plans host job `job` and starts its stripes.
    fn start_job(&mut self, now: Ns, job: u32) -> Result<()> {
        let Some(c) = self.controller.as_mut() else { return Err(no_controller()) };
        let Some(j) = self.jobs.get_mut(job) else { return Err(Error::Internal(format!("host job {job} is not in flight"))) };
        c.plans.clear();
        c.planner.plan_reusing(j.op, j.offset_bytes, j.len_bytes, &mut c.state, &mut c.plans, &mut c.pool)?;
        j.stripes_left = c.plans.len() as u32;
        match c.order {
            StripeOrder::Parallel => {
                let mut plans = std::mem::take(&mut c.plans);
                for plan in plans.drain(..) {
                    self.start_stripe(now, job, plan)?;
                }
                if let Some(c) = self.controller.as_mut() {
                    c.plans = plans;
                }
            }
            StripeOrder::Sequential => {
                let mut plans: VecDeque<StripePlan> = c.plans.drain(..).collect();
                let first = plans.pop_front();
                if !plans.is_empty() {
                    c.waiting.insert(job, plans);
                }
                if let Some(plan) = first {
                    self.start_stripe(now, job, plan)?;
                }
            }
        }
        Ok(())
    }

    /// Starts a stripe job, or queues it behind the stripe's lock.
    fn start_stripe(&mut self, now: Ns, host: u32, plan: StripePlan) -> Result<()> {
        let Some(c) = self.controller.as_mut() else { return Err(no_controller()) };
        let (stripe, locks) = (plan.stripe, plan.updates_parity);
        let id = c.stripe_jobs.insert(StripeJob { host, plan, in_writes: false, outstanding: 0 });
        if locks {
            if let Some(waiters) = c.locks.get_mut(&stripe) {
                waiters.push_back(id);
                return Ok(());
            }
            c.locks.insert(stripe, VecDeque::new());
        }
        self.run_phase(now, id, false)
    }

    /// Issues the reads (`writes = false`) or writes of a stripe job; moves on when a phase is empty.
    fn run_phase(&mut self, now: Ns, id: u32, writes: bool) -> Result<()> {
        let Some(c) = self.controller.as_mut() else { return Err(no_controller()) };
        let Some(sj) = c.stripe_jobs.get_mut(id) else { return Err(Error::Internal(format!("stripe job {id} is not in flight"))) };
        sj.in_writes = writes;
        let n = if writes { sj.plan.writes.len() } else { sj.plan.reads.len() };
        sj.outstanding = n as u32;
        if n == 0 {
            return self.phase_done(now, id);
        }
        for i in 0..n {
            let Some(c) = self.controller.as_mut() else { return Err(no_controller()) };
            let Some(sj) = c.stripe_jobs.get_mut(id) else { return Err(Error::Internal(format!("stripe job {id} is not in flight"))) };
            let op = if writes { sj.plan.writes[i] } else { sj.plan.reads[i] };
            c.state.outstanding[op.member as usize] += 1;
            let req = DeviceRequest { token: u64::from(id), op: op.op, offset_bytes: op.offset_bytes, len_bytes: op.len_bytes, cause: op.cause };
            let d = self.members[op.member as usize].submit(now, req)?;
            self.schedule_done(op.member, d);
        }
        Ok(())
    }

    /// A phase of stripe job `id` has finished.
    fn phase_done(&mut self, now: Ns, id: u32) -> Result<()> {
        let Some(c) = self.controller.as_mut() else { return Err(no_controller()) };
        let Some(sj) = c.stripe_jobs.get_mut(id) else { return Err(Error::Internal(format!("stripe job {id} is not in flight"))) };
        if !sj.in_writes {
            let parity = sj.plan.parity_bytes;
            if parity > 0 && c.xor_bytes_per_s > 0 {
                let at = now + crate::config::transfer_ns(parity, c.xor_bytes_per_s);
                self.queue.schedule(at, Event::ParityReady { stripe_job: id });
                return Ok(());
            }
            return self.run_phase(now, id, true);
        }
        let Some(sj) = c.stripe_jobs.remove(id) else { return Err(Error::Internal(format!("stripe job {id} finished twice"))) };
        let (host, stripe, locked) = (sj.host, sj.plan.stripe, sj.plan.updates_parity);
        c.pool.push(sj.plan);
        if locked {
            let next = c.locks.get_mut(&stripe).and_then(VecDeque::pop_front);
            match next {
                Some(waiter) => self.run_phase(now, waiter, false)?,
                None => {
                    if let Some(c) = self.controller.as_mut() {
                        c.locks.remove(&stripe);
                    }
                }
            }
        }
        let Some(j) = self.jobs.get_mut(host) else { return Err(Error::Internal(format!("host job {host} of a finished stripe is not in flight"))) };
        j.stripes_left -= 1;
        if j.stripes_left == 0 {
            if let Some(c) = self.controller.as_mut() {
                c.waiting.remove(&host);
            }
            self.complete_host(now, host);
        } else {
            let next = self.controller.as_mut().and_then(|c| c.waiting.get_mut(&host)).and_then(VecDeque::pop_front);
            if let Some(plan) = next {
                self.start_stripe(now, host, plan)?;
            }
        }
        Ok(())
    }

    fn member_done(&mut self, now: Ns, member: u32, token: u64) -> Result<()> {
        let next = self.members[member as usize].complete(now)?;
        self.schedule_done(member, next);
        let Some(c) = self.controller.as_mut() else {
            self.complete_host(now, token as u32);
            return Ok(());
        };
        c.state.outstanding[member as usize] -= 1;
        let id = token as u32;
        let Some(sj) = c.stripe_jobs.get_mut(id) else { return Err(Error::Internal(format!("stripe job {id} is not in flight"))) };
        sj.outstanding -= 1;
        if sj.outstanding == 0 {
            self.phase_done(now, id)?;
        }
        Ok(())
    }

    fn handle(&mut self, now: Ns, event: Event) -> Result<()> {
        match event {
            Event::Arrival => {
                if let Some(r) = self.next_arrival.take() {
                    self.issue(now, r)?;
                }
                self.schedule_next_arrival()?;
            }
            Event::ProcessIssue => {
                if let Some(r) = self.next_request()? {
                    self.issue(now, r)?;
                }
            }
            Event::ControllerDone { job } => self.start_job(now, job)?,
            Event::MemberDone { member, token } => self.member_done(now, member, token)?,
            Event::ParityReady { stripe_job } => self.run_phase(now, stripe_job, true)?,
            Event::MemberFails { member } => {
                // Operations already planned run to completion; later plans avoid the member.
                if let Some(c) = self.controller.as_mut() {
                    c.state.failed[member as usize] = true;
                }
            }
        }
        Ok(())
    }

    /// Processes at most `max_events` events; returns the progress.
    pub fn step(&mut self, max_events: u64) -> Result<Progress> {
        // A run never starts on a drive that is not yet aged.
        self.precondition(u64::MAX)?;
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
        Report::new(&self.resolved, &self.host, &self.members, self.source.report())
    }
}

/// Builds, runs and reports a simulation.
pub fn simulate(resolved: ResolvedConfig) -> Result<Report> {
    let mut sim = Simulation::new(resolved)?;
    sim.run()?;
    Ok(sim.report())
}

/// Counting mode: the planner over the workload with no timing; exact page
/// counts per member and cause. Arrival times are ignored; failures apply
/// from the start.
pub fn count(resolved: &ResolvedConfig) -> Result<crate::report::CountReport> {
    let mut counting = Counting::new(resolved)?;
    while !counting.step(u64::MAX)?.finished {}
    Ok(counting.report())
}

/// Counting mode in slices of requests, so a caller can show progress and
/// stop between them (see [`count`]).
pub struct Counting {
    planner: Planner,
    state: ArrayState,
    source: Box<dyn RequestSource>,
    members: Vec<crate::array::MemberPages>,
    plans: Vec<StripePlan>,
    page_bytes: u64,
    requests: u64,
    max_requests: u64,
    finished: bool,
}

impl Counting {
    /// Plans nothing yet: opens the workload and builds the planner.
    pub fn new(resolved: &ResolvedConfig) -> Result<Self> {
        let cfg = &resolved.config;
        let page_bytes = resolved.member_page_bytes();
        let mut array = cfg.array.clone();
        if array.level == RaidLevel::Single {
            array.level = RaidLevel::Raid0;
        }
        let geom = ArrayGeometry::new(&array, resolved.member_capacity_bytes());
        let planner = Planner::new(&array, geom, page_bytes)?;
        let mut state = ArrayState::new(array.members);
        for f in &array.failures {
            state.failed[f.member as usize] = true;
        }
        Ok(Self {
            planner,
            state,
            source: build_source(&cfg.workload, resolved.capacity_bytes, cfg.sim.seed)?,
            members: vec![crate::array::MemberPages::default(); array.members as usize],
            plans: Vec::new(),
            page_bytes,
            requests: 0,
            max_requests: cfg.sim.max_requests,
            finished: false,
        })
    }

    /// Plans at most `max_requests` more requests.
    pub fn step(&mut self, max_requests: u64) -> Result<Progress> {
        for _ in 0..max_requests {
            if self.max_requests > 0 && self.requests >= self.max_requests {
                self.finished = true;
            }
            let next = if self.finished { None } else { self.source.next_request()? };
            let Some(r) = next else {
                self.finished = true;
                break;
            };
            self.plans.clear();
            self.planner.plan(r.op, r.offset_bytes, r.len_bytes, &mut self.state, &mut self.plans)?;
            for plan in &self.plans {
                crate::array::MemberPages::add_plan(&mut self.members, plan, self.page_bytes);
            }
            self.requests += 1;
        }
        Ok(Progress { completed: self.requests, fraction: self.source.progress(), finished: self.finished })
    }

    /// The counts so far.
    pub fn report(&self) -> crate::report::CountReport {
        crate::report::CountReport::new(&self.members, self.requests, self.page_bytes)
    }
}
