//! Counting mode: the pages each member reads and writes for a workload,
//! without time (the stripe-unit paper's Figures 8-12 and the erasure-code
//! study's counts), through the same planner as a timed run.

use super::*;
use crate::config::WorkloadConfig;
use crate::workload::{build_source, RequestSource};

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
    /// The capacity the workload was fitted to, bytes.
    capacity_bytes: u64,
    requests: u64,
    max_requests: u64,
    finished: bool,
    /// A step failed: its request was planned in part, so counting stops.
    failed: bool,
    /// Asked to stop from outside (Ctrl-C): polled between requests.
    stop: StopFlag,
}

/// Why counting mode refuses trims.
const COUNTS_NO_TRIMS: &str = "counting mode counts the pages reads and writes move, and a trim's effect is on collection, which it does not model";

impl Counting {
    /// Plans nothing yet: opens the workload and builds the planner.
    pub fn new(resolved: &ResolvedConfig) -> Result<Self> {
        let cfg = &resolved.config;
        if crate::config::carries_trims(&cfg.workload)? {
            return Err(Error::Workload(format!("{COUNTS_NO_TRIMS}: run the workload with `raidsim run`, or leave its trims out")));
        }
        let page_bytes = resolved.member_page_bytes();
        let mut array = cfg.array.clone();
        if array.level == RaidLevel::Single {
            // One drive is a RAID-0 of one member; a unit of one page keeps
            // all of its capacity addressable, as the timed run does (a
            // larger unit would round the last partial unit away and refuse
            // requests the run serves).
            array.level = RaidLevel::Raid0;
            array.stripe_unit_bytes = page_bytes;
        }
        let geom = ArrayGeometry::new(&array, resolved.member_capacity_bytes());
        let planner = Planner::new(&array, geom, page_bytes)?;
        if !resolved.config.metrics.request_log.0.as_os_str().is_empty() {
            return Err(Error::config(
                "metrics.request_log",
                "logs each request's arrival and completion times: counting mode has no time; run the timed simulation",
            ));
        }
        if array.level == RaidLevel::Cr5m {
            return Err(Error::config(
                "array.level",
                "cr5m decides each mirroring write by whether the mirroring chips are idle: counting mode has no time; run the timed simulation",
            ));
        }
        if array.controller.read_ahead != ReadAheadPolicy::Off {
            return Err(Error::config(
                "array.controller.read_ahead",
                "read-ahead reads what the host may ask next and answers hits from the cache, which depends on timing: \
                 counting mode has no time; set read_ahead = \"off\" or run the timed simulation",
            ));
        }
        if array.spares > 0 || array.failures.iter().any(|f| !f.at_start()) {
            return Err(Error::config(
                if array.spares > 0 { "array.spares" } else { "array.failures" },
                "counting mode has no time and no rebuild: fail members from the start (at_ns = 0) and give no spares, \
                 or run the timed simulation",
            ));
        }
        let mut state = ArrayState::new(array.members);
        for f in &array.failures {
            state.failed[f.member as usize] = true;
        }
        let failed: Vec<u32> = array.failures.iter().map(|f| f.member).collect();
        if !array.survives(&failed) {
            return Err(Error::config(
                "array.failures",
                format!(
                    "counting mode applies every failure from the start, and {:?} of {} tolerates {}{}, not members {failed:?}",
                    array.level,
                    array.members,
                    array.level.tolerates(array.members, array.copies),
                    if array.level == RaidLevel::Raid10 { " of each unit's copies" } else { "" }
                ),
            ));
        }
        if matches!(cfg.workload, WorkloadConfig::Flows(_)) {
            return Err(Error::config(
                "workload.kind",
                "counting mode counts one stream of requests without time, and how flows interleave is a matter of time (their \
                 queues, processes and stop time): count each flow as a synthetic workload of its own",
            ));
        }
        Ok(Self {
            planner,
            state,
            source: build_source(&cfg.workload, resolved.capacity_bytes, cfg.sim.seed)?,
            capacity_bytes: resolved.capacity_bytes,
            members: vec![crate::array::MemberPages::default(); array.members as usize],
            plans: Vec::new(),
            page_bytes,
            requests: 0,
            max_requests: cfg.sim.max_requests,
            finished: false,
            failed: false,
            stop: StopFlag::default(),
        })
    }

    /// The flag another thread sets to stop counting (Ctrl-C).
    pub fn stop_flag(&self) -> StopFlag {
        self.stop.clone()
    }

    /// Plans at most `max_requests` more requests.
    pub fn step(&mut self, max_requests: u64) -> Result<Progress> {
        if self.failed {
            return Err(Error::Workload("counting stopped at an earlier error; it cannot go on".into()));
        }
        let counted = self.count_requests(max_requests);
        self.failed = counted.is_err();
        counted
    }

    fn count_requests(&mut self, max_requests: u64) -> Result<Progress> {
        for _ in 0..max_requests {
            self.stop.check()?;
            if self.max_requests > 0 && self.requests >= self.max_requests {
                self.finished = true;
            }
            let next = if self.finished { None } else { self.source.next_request()? };
            let Some(r) = next else {
                self.finished = true;
                break;
            };
            let Some(op) = r.op.io() else {
                return Err(Error::Workload(format!(
                    "the workload's request {} (counted from 0) is a trim, and {COUNTS_NO_TRIMS}: run the trace with `raidsim run`, or \
                     set workload.trims = \"skip\"",
                    r.id
                )));
            };
            self.plans.clear();
            self.planner.plan(op, r.offset_bytes, r.len_bytes, &self.state, &mut self.plans)?;
            self.state.commit(&self.plans);
            for plan in &self.plans {
                crate::array::MemberPages::add_plan(&mut self.members, plan, self.page_bytes);
            }
            self.requests += 1;
        }
        if self.finished {
            self.source.finish()?;
        }
        Ok(Progress { completed: self.requests, fraction: self.source.progress(), finished: self.finished })
    }

    /// The counts so far.
    pub fn report(&self) -> crate::report::CountReport {
        let mut report = crate::report::CountReport::new(&self.members, self.requests, self.page_bytes);
        let workload = self.source.report();
        if workload.wrapped_out_of_range > 0 {
            report.warnings.push(format!("wrapped: {}", crate::workload::wrapped_summary(&workload, self.capacity_bytes)));
        }
        report
    }
}
