//! A `Simulation` value owns one run: clock, event queue, member devices,
//! array controller, workload, metrics and random streams. Nothing is
//! global, so many simulations run side by side in one process or across a
//! cluster.
//!
//! The host replays arrival times (open loop) or keeps N requests
//! outstanding (closed loop). With `array.level = "single"` each request
//! goes straight to the one member. Otherwise the array controller
//! ([`crate::array::ArrayController`]) waits its overhead, plans the request
//! and runs each stripe's plan on the members. Members are reached only
//! through [`Member`], whatever their kind.
//!
//! ```text
//! RequestSource ─► Arrival / ProcessIssue ─► ControllerDone ─► plan ─► member submit
//!       ▲                                                               │
//!       └── closed loop ◄── host completion ◄── stripe done ◄── MemberDone (per phase)
//! ```

mod counting;
mod flows;
mod front_end;
mod issue;
mod port;
mod precondition;
mod reporting;
mod trim;

pub use counting::{count, Counting};
use flows::Flows;
use front_end::{read_ahead_cache, FrontEnd};
use port::SimPort;
use precondition::{build_cost_pages, Preconditioning};

use crate::array::cache::Admission;
use crate::array::read_ahead::{Lookup, ReadAheadCache};
use crate::array::{ArrayController, ArrayGeometry, ArrayPhase, ArrayPort, ArrayState, Planner, StripePlan};
use crate::config::{CacheMode, GcCoordination, RaidLevel, ReadAheadPolicy, ResolvedConfig};
use crate::device::{Cause, DeviceRequest, MemberDevice, Op};
use crate::engine::Timeline;
use crate::engine::{EventQueue, Ns, Slab, StopFlag};
use crate::error::{Error, Result};
use crate::member::Member;
use crate::metrics::{HostMetrics, RequestLog};
use crate::report::Report;
use crate::ssd::PreconditionPlan;
use crate::workload::HostRequest;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// An array event reached a simulation without an array controller.
fn no_controller() -> Error {
    Error::Internal("an array-controller event in a single-drive simulation".into())
}

/// Stream id of preconditioning's random numbers (see `workload::synthetic`).
const PRECONDITION_STREAM: u64 = 0x5052_4543_4f4e_4400;
/// Stream id of random failure times (one stream per failure, by index).
const FAILURE_STREAM: u64 = 0x4641_494c_5552_4500;

/// When failure `i` of `f` happens, ns: given, or drawn from an
/// exponential distribution (`at_random_mean_ns`); `None` for a failure
/// triggered by a request index.
pub fn failure_time_ns(f: &crate::config::MemberFailure, i: usize, seed: u64) -> Option<Ns> {
    use rand_distr::Distribution;
    if let Some(mean) = f.at_random_mean_ns {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ FAILURE_STREAM ^ i as u64);
        let exp = rand_distr::Exp::new(1.0 / mean as f64).ok()?;
        return Some(exp.sample(&mut rng).round().min(u64::MAX as f64) as Ns);
    }
    f.at_ns
}

/// The events of a simulation.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// Flow `flow`'s pending request (its `next_arrival`) arrives.
    Arrival { flow: u32 },
    /// A closed-loop process of flow `flow` issues its next request.
    ProcessIssue { flow: u32 },
    /// Host job `job` has crossed the array's front end (controller
    /// overhead, and for a write its data over the host link).
    ControllerDone { job: u32 },
    /// Read `job`'s data has crossed the host link back to the host.
    HostLinkDone { job: u32 },
    /// Member `member` finished the request with this token.
    MemberDone { member: u32, token: u64 },
    /// Stripe job `stripe_job` has computed its parity and may write.
    ParityReady { stripe_job: u32 },
    /// Member `member` fails.
    MemberFails { member: u32, chip: Option<u32> },
    /// The array controller asked to be woken (a rebuild's delay or pace).
    ControllerWake,
    /// Member `member` asked to be woken (an SSD's writes waiting for
    /// buffer room).
    MemberWake { member: u32 },
}

/// What a job in flight at the controller is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum JobKind {
    /// A host request the host waits for.
    Host,
    /// A host write acknowledged from the write-back cache, still being written.
    CachedWrite,
    /// The controller's own read ahead of host reads (`array::read_ahead`).
    ReadAhead,
}

/// A host request in flight (kept small: an overloaded open-loop run holds
/// many), or the controller's own read ahead.
#[derive(Clone)]
struct HostJob {
    arrival_ns: Ns,
    offset_bytes: u64,
    len_bytes: u64,
    op: crate::device::Op,
    kind: JobKind,
    /// Issued after the warm-up (`sim.warmup_requests`): counted in the report.
    measured: bool,
    /// A host read answered from data read ahead (counted when it completes).
    read_ahead_hit: bool,
    /// The flow that issued it.
    flow: u16,
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

/// One simulation run.
pub struct Simulation {
    preconditioning: Option<Preconditioning>,
    resolved: ResolvedConfig,
    queue: EventQueue<Event>,
    members: Vec<Member>,
    controller: Option<ArrayController>,
    front_end: FrontEnd,
    /// Host jobs the controller finished during one event, and whether
    /// they were served (reused buffer).
    finished_hosts: Vec<(Ns, u32, bool)>,
    /// Room reused by each member's wake for the requests it starts.
    woken_dispatches: Vec<crate::device::Dispatch>,
    /// `array.failures` triggered by a request index: (index, member), sorted.
    failures_at_request: Vec<(u64, u32, Option<u32>)>,
    /// Array members (devices beyond are hot spares).
    array_members: usize,
    /// `sim.stop`: batch means of response times, when the rule is on.
    stop_rule: Option<crate::metrics::BatchMeans>,
    /// The stopping rule has ended issuing.
    stopped: bool,
    /// Where requests come from, and their submission queues.
    flows: Flows,
    host: HostMetrics,
    /// `metrics.request_log`: a row per measured host request.
    request_log: Option<RequestLog>,
    /// The drives' garbage-collection runs the time series has counted.
    gc_runs_counted: u64,
    jobs: Slab<HostJob>,
    /// Asked to stop from outside the run (Ctrl-C); see [`Simulation::stop_flag`].
    stop: StopFlag,
    max_requests: u64,
    issued: u64,
    /// Host requests that have reached the host's queue, warm-up included.
    arrivals: u64,
    /// Warm-up requests that have ended (`sim.warmup_requests`).
    warmup_ended: u64,
    /// Write-back cache: reads answered from it, and writes it took.
    cache_hits: u64,
    cache_writes: u64,
    /// Read-ahead: host reads answered from it, reads ahead and their bytes.
    read_ahead_hits: u64,
    read_ahead_reads: u64,
    read_ahead_bytes: u64,
    /// The warm-up is over (from the start without one).
    measuring: bool,
    /// `array.gc_coordination = "global"`: each member's own collections
    /// seen so far (one began when its count moves).
    gc_seen: Option<Vec<u64>>,
    finished: bool,
    /// A step failed: the run's state is partway through an event, so it
    /// must not go on as if whole.
    failed: bool,
    /// The host's trims.
    trims: trim::Trims,
}

impl Simulation {
    /// Builds and preconditions the members and opens the workload.
    pub fn new(resolved: ResolvedConfig) -> Result<Self> {
        let mut sim = Self::build(resolved)?;
        while sim.precondition(u64::MAX)? < 1.0 {}
        Ok(sim)
    }

    /// Opens the workload and the controller; building and preconditioning
    /// the members is left to [`Simulation::precondition`], in slices (or
    /// done before the first step).
    pub fn build(resolved: ResolvedConfig) -> Result<Self> {
        let cfg = &resolved.config;
        let members: Vec<Member> = Vec::with_capacity(resolved.members.len());
        let p = &cfg.precondition;
        let array_members = cfg.array.members as usize;
        let total_pages = resolved
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let plan = match i {
                    _ if i >= array_members => PreconditionPlan::default(),
                    0 if !resolved.drive_parts.is_empty() => PreconditionPlan::of_parts(&resolved.drive_parts, p),
                    _ => PreconditionPlan::new(m.logical_pages(), p),
                };
                plan.total() + build_cost_pages(m.logical_pages())
            })
            .sum();
        let preconditioning = Some(Preconditioning {
            rng: Xoshiro256PlusPlus::seed_from_u64(cfg.sim.seed ^ PRECONDITION_STREAM),
            member: 0,
            next_write: 0,
            done_pages: 0,
            total_pages,
        });
        let controller = (cfg.array.level != RaidLevel::Single).then(|| {
            let cr5m_data_chips = (cfg.array.level == RaidLevel::Cr5m).then(|| cfg.ssd.geometry.chips_per_channel - 1);
            let (capacity, page) = (resolved.member_capacity_bytes(), resolved.member_page_bytes());
            ArrayController::new(&cfg.array, &cfg.rebuild, capacity, page, cfg.sim.verify, cr5m_data_chips)
        });
        let mut controller = controller.transpose()?;
        let flows = Flows::new(&cfg.workload, resolved.capacity_bytes, &resolved.flow_parts, cfg.sim.seed, cfg.metrics.interval_ns)?;
        let (overhead_ns, link_bytes_per_s) = resolved.array_front_end();
        let read_ahead = read_ahead_cache(&resolved, controller.as_ref());
        if let Some(c) = controller.as_mut().filter(|_| read_ahead.is_some()) {
            c.track_write_starts();
        }
        let mut sim = Self {
            preconditioning,
            queue: EventQueue::new(),
            members,
            controller,
            front_end: FrontEnd {
                overhead_ns,
                link_bytes_per_s,
                link: Timeline::default(),
                cache: (cfg.array.controller.cache == CacheMode::WriteBack)
                    .then(|| crate::array::cache::WriteBackCache::new(cfg.array.controller.cache_bytes)),
                read_ahead,
            },
            finished_hosts: Vec::new(),
            woken_dispatches: Vec::new(),
            failures_at_request: Vec::new(),
            array_members,
            stop_rule: (cfg.sim.stop.relative_half_width > 0.0).then(|| crate::metrics::BatchMeans::new(&cfg.sim.stop)),
            stopped: false,
            flows,
            host: HostMetrics::new(cfg.metrics.interval_ns),
            jobs: Slab::default(),
            request_log: (!cfg.metrics.request_log.0.as_os_str().is_empty()).then(RequestLog::default),
            gc_runs_counted: 0,
            stop: StopFlag::default(),
            max_requests: cfg.sim.max_requests,
            issued: 0,
            arrivals: 0,
            warmup_ended: 0,
            cache_hits: 0,
            cache_writes: 0,
            read_ahead_hits: 0,
            read_ahead_reads: 0,
            read_ahead_bytes: 0,
            measuring: cfg.sim.warmup_requests == 0,
            gc_seen: (cfg.array.gc_coordination == GcCoordination::Global).then(Vec::new),
            finished: false,
            failed: false,
            trims: trim::Trims::default(),
            resolved,
        };
        let seed = sim.resolved.config.sim.seed;
        for (i, f) in sim.resolved.config.array.failures.iter().enumerate() {
            match (failure_time_ns(f, i, seed), f.at_request) {
                (Some(at), _) => sim.queue.schedule(at, Event::MemberFails { member: f.member, chip: f.chip }),
                (None, Some(index)) => sim.failures_at_request.push((index, f.member, f.chip)),
                (None, None) => return Err(Error::config(format!("array.failures[{i}]"), "has no time")),
            }
        }
        sim.failures_at_request.sort_unstable();
        if !sim.resolved.config.array.failures.is_empty() {
            sim.host.set_phase(ArrayPhase::Healthy);
        }
        sim.start_flows()?;
        Ok(sim)
    }

    /// The configuration of this run.
    pub fn config(&self) -> &ResolvedConfig {
        &self.resolved
    }

    /// The members (one for `level = "single"`).
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// Request `r` of flow `flow` reaches the host's queue at `now`.
    fn issue(&mut self, now: Ns, flow: usize, r: HostRequest) -> Result<()> {
        let limit = self.resolved.config.sim.max_outstanding_requests;
        if self.host.outstanding() >= limit {
            return Err(Error::Workload(format!(
                "saturated: {limit} host requests outstanding at {:.3} s of simulated time; requests arrive faster than the \
                 drives serve them and would queue without bound (lower the load, add drives, or raise sim.max_outstanding_requests)",
                now as f64 / 1e9
            )));
        }
        let index = self.arrivals;
        self.arrivals += 1;
        let measured = self.measuring;
        while self.failures_at_request.first().is_some_and(|&(i, _, _)| i <= index) {
            let (_, member, chip) = self.failures_at_request.remove(0);
            self.fail(now, member, chip)?;
        }
        let Some(op) = r.op.io() else { return self.trim(now, flow, &r) };
        if measured {
            self.host.arrived(now);
            if let Some(m) = self.flows.list.get_mut(flow).and_then(|f| f.metrics.as_mut()) {
                m.arrived(now);
            }
        }
        let job = self.jobs.insert(HostJob {
            arrival_ns: now,
            offset_bytes: r.offset_bytes,
            len_bytes: r.len_bytes,
            op,
            kind: JobKind::Host,
            measured,
            read_ahead_hit: false,
            flow: flow as u16,
        });
        if op == Op::Write && self.held_behind_trim(job, r.offset_bytes, r.len_bytes) {
            return Ok(());
        }
        if self.flows.fetch_or_queue(flow, job)? {
            self.dispatch(now, job)?;
        }
        Ok(())
    }

    /// The device fetches host job `job` at `now`: it goes to the drive, or to the array's front end.
    fn dispatch(&mut self, now: Ns, job: u32) -> Result<()> {
        let Some(r) = self.jobs.get(job) else { return Err(Error::Internal(format!("host job {job} is not in flight"))) };
        match &self.controller {
            None => {
                let req = DeviceRequest {
                    token: u64::from(job),
                    op: r.op,
                    offset_bytes: r.offset_bytes,
                    len_bytes: r.len_bytes,
                    cause: Cause::User,
                    stream: r.flow,
                };
                let mut port =
                    SimPort { members: &mut self.members, queue: &mut self.queue, finished_hosts: &mut self.finished_hosts, host: &mut self.host };
                port.submit(now, 0, req)?;
            }
            Some(_) => self.queue.schedule(self.front_end.inbound(now, r.op, r.len_bytes), Event::ControllerDone { job }),
        }
        Ok(())
    }

    /// Runs `f` on the controller with a port to the members, then
    /// completes the host jobs it finished.
    fn with_controller(&mut self, f: impl FnOnce(&mut ArrayController, &mut SimPort<'_>) -> Result<()>) -> Result<()> {
        let Some(c) = self.controller.as_mut() else { return Err(no_controller()) };
        let mut port = SimPort { members: &mut self.members, queue: &mut self.queue, finished_hosts: &mut self.finished_hosts, host: &mut self.host };
        f(c, &mut port)?;
        if let Some(ra) = self.front_end.read_ahead.as_mut() {
            // Data read ahead before a write's drive writes began predates it.
            for (offset, len) in c.take_write_starts() {
                ra.written(offset, len);
            }
        }
        let mut finished = std::mem::take(&mut self.finished_hosts);
        for &(at, job, served) in &finished {
            match self.jobs.get(job).map(|j| j.kind) {
                Some(JobKind::CachedWrite) => {
                    self.destaged(at, job, served)?;
                    continue;
                }
                Some(JobKind::ReadAhead) => {
                    self.read_ahead_done(at, job, served)?;
                    continue;
                }
                Some(JobKind::Host) | None => self.write_landed(job),
            }
            if served {
                self.answer(at, job)?;
            } else {
                self.fail_host(at, job)?;
            }
        }
        finished.clear();
        self.finished_hosts = finished;
        Ok(())
    }

    /// Host job `job` is served at `at`: a read's data crosses the host link
    /// back first (when there is one), then the host learns it is done.
    fn answer(&mut self, at: Ns, job: u32) -> Result<()> {
        let read_back = self.jobs.get(job).filter(|j| j.op == Op::Read && self.front_end.link_bytes_per_s > 0).map(|j| j.len_bytes);
        match read_back {
            Some(bytes) => {
                let done = self.front_end.transfer(at, at, bytes);
                self.queue.schedule(done, Event::HostLinkDone { job });
                Ok(())
            }
            None => self.complete_host(at, job),
        }
    }

    #[inline]
    fn complete_host(&mut self, now: Ns, job: u32) -> Result<()> {
        match self.jobs.remove(job) {
            Some(j) => {
                self.host_job_ended(now, job)?;
                self.acknowledge(now, &j)
            }
            None => Ok(()),
        }
    }

    /// A warm-up request ended at `now`; after the `sim.warmup_requests`-th,
    /// what is measured starts: every request completing from then on
    /// counts, those already in flight with their whole response time, and
    /// the device counters restart. (Starting at an issue instead would
    /// charge the window with the service of warm-up requests still in
    /// flight and count none of their completions.)
    fn warmup_request_ended(&mut self, now: Ns) {
        self.warmup_ended += 1;
        if self.warmup_ended < self.resolved.config.sim.warmup_requests {
            return;
        }
        let interval_ns = self.resolved.config.metrics.interval_ns;
        let mut host = HostMetrics::starting_at(interval_ns, now);
        host.take_phase_from(&self.host);
        self.flows.restart_metrics(interval_ns, now);
        // Writes already acknowledged from the write-back cache are done for the host.
        for j in self.jobs.iter_mut().filter(|j| j.kind == JobKind::Host) {
            j.measured = true;
            host.arrived(now);
            if let Some(m) = self.flows.list.get_mut(usize::from(j.flow)).and_then(|f| f.metrics.as_mut()) {
                m.arrived(now);
            }
        }
        self.host = host;
        self.members.iter_mut().for_each(Member::restart_counters);
        self.gc_runs_counted = 0;
        (self.cache_hits, self.cache_writes) = (0, 0);
        (self.read_ahead_hits, self.read_ahead_reads, self.read_ahead_bytes) = (0, 0, 0);
        self.restart_trim_counts();
        if let Some(c) = self.controller.as_mut() {
            c.restart_parity_compute_tally();
        }
        self.measuring = true;
    }

    /// The host learns that `j` is done: its response time ends now.
    fn acknowledge(&mut self, now: Ns, j: &HostJob) -> Result<()> {
        self.command_done(now, j.flow)?;
        if j.measured {
            self.read_ahead_hits += u64::from(j.read_ahead_hit);
            self.host.completed(now, j.arrival_ns, j.op, j.len_bytes);
            if let Some(m) = self.flows.list.get_mut(usize::from(j.flow)).and_then(|f| f.metrics.as_mut()) {
                m.completed(now, j.arrival_ns, j.op, j.len_bytes);
            }
            self.log_request(j, now, true);
            self.count_gc_runs(now);
            if let Some(rule) = self.stop_rule.as_mut() {
                self.stopped |= rule.record(now - j.arrival_ns);
            }
        } else {
            self.warmup_request_ended(now);
        }
        self.issue_next_after(now, j.flow)
    }

    /// Host job `job` touched lost data: it fails, untimed.
    fn fail_host(&mut self, now: Ns, job: u32) -> Result<()> {
        let Some(j) = self.jobs.remove(job) else { return Ok(()) };
        self.host_job_ended(now, job)?;
        self.command_done(now, j.flow)?;
        if j.measured {
            self.host.failed(now, j.op);
            if let Some(m) = self.flows.list.get_mut(usize::from(j.flow)).and_then(|f| f.metrics.as_mut()) {
                m.failed(now, j.op);
            }
            self.log_request(&j, now, false);
        } else {
            self.warmup_request_ended(now);
        }
        self.issue_next_after(now, j.flow)
    }

    /// Member `member` (or its chip `chip`) fails at `now`.
    fn fail(&mut self, now: Ns, member: u32, chip: Option<u32>) -> Result<()> {
        match chip {
            Some(chip) => self.with_controller(|c, port| c.fail_chip(port, now, member, chip)),
            None => self.with_controller(|c, port| c.fail_member(port, now, member)),
        }
    }

    /// Plans host job `job` and starts its stripes.
    fn start_job(&mut self, now: Ns, job: u32) -> Result<()> {
        let Some(j) = self.jobs.get(job) else { return Err(Error::Internal(format!("host job {job} is not in flight"))) };
        let (op, offset, len) = (j.op, j.offset_bytes, j.len_bytes);
        self.with_controller(|c, port| c.start_job(port, now, job, op, offset, len))
    }

    fn member_done(&mut self, now: Ns, member: u32, token: u64) -> Result<()> {
        let device = self.members.get_mut(member as usize).ok_or_else(|| Error::Internal(format!("member {member} does not exist")))?;
        if let Some(d) = device.complete(now)? {
            self.queue.schedule(d.done_ns, Event::MemberDone { member, token: d.token });
        }
        port::schedule_wake(&mut self.queue, device, member, now)?;
        if self.controller.is_none() {
            let job = u32::try_from(token).map_err(|_| Error::Internal(format!("token {token} is not a host job")))?;
            return self.complete_host(now, job);
        }
        self.with_controller(|c, port| c.member_done(port, now, member, token))
    }

    fn member_wake(&mut self, now: Ns, member: u32) -> Result<()> {
        let device = self.members.get_mut(member as usize).ok_or_else(|| Error::Internal(format!("member {member} does not exist")))?;
        let mut started = std::mem::take(&mut self.woken_dispatches);
        device.wake(now, &mut started)?;
        for d in started.drain(..) {
            self.queue.schedule(d.done_ns, Event::MemberDone { member, token: d.token });
        }
        self.woken_dispatches = started;
        port::schedule_wake(&mut self.queue, device, member, now)
    }

    fn handle(&mut self, now: Ns, event: Event) -> Result<()> {
        match event {
            Event::Arrival { flow } => self.arrival(now, flow as usize)?,
            Event::ProcessIssue { flow } => self.process_issue(now, flow as usize)?,
            Event::ControllerDone { job } => self.admit(now, job)?,
            Event::HostLinkDone { job } => self.complete_host(now, job)?,
            Event::MemberDone { member, token } => self.member_done(now, member, token)?,
            Event::ParityReady { stripe_job } => self.with_controller(|c, port| c.parity_ready(port, now, stripe_job))?,
            Event::MemberFails { member, chip } => self.fail(now, member, chip)?,
            Event::ControllerWake => self.with_controller(|c, port| c.wake(port, now))?,
            Event::MemberWake { member } => self.member_wake(now, member)?,
        }
        Ok(())
    }

    /// Processes at most `max_events` events; returns the progress.
    pub fn step(&mut self, max_events: u64) -> Result<Progress> {
        if self.failed {
            return Err(Error::Workload("the run stopped at an earlier error; it cannot go on".into()));
        }
        // A run never starts on a drive that is not yet aged.
        self.precondition(u64::MAX)?;
        for _ in 0..max_events {
            if let Err(e) = self.stop.check() {
                self.failed = true;
                return Err(e);
            }
            match self.queue.pop() {
                Some((now, event)) => {
                    let handled = self.handle(now, event).and_then(|()| self.coordinate_gc(now)).and_then(|()| self.clock_ran_forward(now));
                    self.failed = handled.is_err();
                    handled?;
                }
                None => {
                    self.finished = true;
                    // However the workload ended (its end, sim.max_requests, the stop rule).
                    self.flows.list.iter().try_for_each(|f| f.source.finish())?;
                    self.members.iter_mut().try_for_each(Member::finish)?;
                    if !self.measuring {
                        // Trims are issued but not counted by the warm-up.
                        return Err(Error::Workload(format!(
                            "sim.warmup_requests = {} but only {} reads and writes ended (of the {} requests issued, trims \
                             included, which the warm-up does not count): none was measured",
                            self.resolved.config.sim.warmup_requests, self.warmup_ended, self.arrivals
                        )));
                    }
                    break;
                }
            }
        }
        Ok(Progress { completed: self.host.completed_count(), fraction: self.flows.progress(self.queue.now_ns()), finished: self.finished })
    }

    /// An event scheduled in the past is a bug in a model, never a result.
    fn clock_ran_forward(&self, now: Ns) -> Result<()> {
        match self.queue.past_events() {
            0 => Ok(()),
            n => Err(Error::Internal(format!("{n} event(s) were scheduled before the current instant, {now} ns"))),
        }
    }

    /// Harmonia: a member began a collection during the last event, so
    /// every member collects now.
    fn coordinate_gc(&mut self, now: Ns) -> Result<()> {
        let Some(seen) = self.gc_seen.as_mut() else { return Ok(()) };
        seen.resize(self.members.len(), 0);
        let began = self.members.iter().zip(seen.iter()).any(|(m, &s)| m.own_gc_starts() > s);
        if began {
            let fraction = self.resolved.config.array.gc_forced_free_fraction;
            for m in &mut self.members {
                m.force_gc(now, fraction)?;
            }
        }
        for (m, s) in self.members.iter().zip(seen.iter_mut()) {
            *s = m.own_gc_starts();
        }
        Ok(())
    }

    /// The flag another thread sets to stop this run (Ctrl-C): the next
    /// step, or the request being served, ends with
    /// [`Error::Interrupted`], and the run cannot go on.
    pub fn stop_flag(&self) -> StopFlag {
        self.stop.clone()
    }

    /// Runs to the end.
    pub fn run(&mut self) -> Result<()> {
        while !self.step(1 << 20)?.finished {}
        Ok(())
    }

    /// Test-only fault: read-modify-write updates write no parity (see
    /// `sim.verify`). Errors for a single drive.
    #[doc(hidden)]
    pub fn inject_fault_skip_rmw_parity(&mut self) -> Result<()> {
        self.controller.as_mut().ok_or_else(no_controller)?.inject_fault_skip_rmw_parity();
        Ok(())
    }
}

/// Builds, runs and reports a simulation.
pub fn simulate(resolved: ResolvedConfig) -> Result<Report> {
    let mut sim = Simulation::new(resolved)?;
    sim.run()?;
    Ok(sim.report())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RawConfig;

    /// An event scheduled before the current instant (a model's bug) stops
    /// the run with an internal error at the next event, never a result.
    #[test]
    fn an_event_scheduled_in_the_past_stops_the_run() {
        let mut raw = RawConfig::from_preset("disksim-ssd-validation").expect("preset");
        raw.set("workload.requests=2000").expect("key");
        let mut sim = Simulation::build(raw.resolve().expect("valid")).expect("builds");
        sim.step(500).expect("steps");
        let now = sim.queue.now_ns();
        assert!(now > 0);
        sim.queue.schedule(now - 1, Event::Arrival { flow: 0 });
        match sim.step(10) {
            Err(Error::Internal(m)) => assert!(m.contains("scheduled before the current instant"), "{m}"),
            other => panic!("expected an internal error, got {other:?}"),
        }
    }
}
