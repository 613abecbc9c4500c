//! The host's flows and their submission queues.
//!
//! A workload is one flow; a flows workload (`workload.kind = "flows"`) is
//! several, each with its own source, its own way of issuing (open loop, or
//! N processes), its own NVMe submission queue and its own report section —
//! MQSim's multi-queue host (Tavakkol et al., FAST'18, §3.1). The device
//! fetches at most `workload.queue_fetch_size` commands of one queue at a
//! time (MQSim's `Queue_Fetch_Size`: `Input_Stream_Manager_NVMe` fetches
//! while a stream has fewer on the fly, and fetches the next when one
//! completes); a command past that waits in its queue, and its response
//! time counts the wait from the instant it was queued. Queues are fetched
//! independently, so no flow waits for another's queue, only for the
//! device they share.

use super::issue::Issue;
use crate::config::{TraceReplay, WorkloadConfig};
use crate::engine::Ns;
use crate::error::{Error, Result};
use crate::metrics::HostMetrics;
use crate::report::FlowReport;
use crate::workload::{build_source, FlowSource, HostRequest, RequestSource, WorkloadReport};
use std::collections::VecDeque;

/// A job named a flow the run does not have: a bug, never a count skipped.
pub(super) fn no_flow(flow: usize) -> Error {
    Error::Internal(format!("flow {flow} does not exist"))
}

/// One flow of the host.
pub(super) struct HostFlow {
    pub(super) source: Box<dyn RequestSource>,
    pub(super) issue: Issue,
    /// Closed loop: processes started at time 0.
    pub(super) processes: u32,
    /// The one request scheduled to arrive (open loop, or a closed-loop
    /// trace's next); kept out of the event queue so events stay small.
    pub(super) next_arrival: Option<HostRequest>,
    /// Commands the device has fetched and not completed.
    fetched: u32,
    /// Host jobs queued and not yet fetched, oldest first.
    submission_queue: VecDeque<u32>,
    /// Most jobs waiting in the submission queue at once.
    peak_queued: u64,
    /// This flow's responses (kept only for a flows workload: one flow's are the host's).
    pub(super) metrics: Option<HostMetrics>,
}

impl HostFlow {
    fn new(source: Box<dyn RequestSource>, issue: Issue, processes: u32, metrics: Option<HostMetrics>) -> Self {
        Self { source, issue, processes, next_arrival: None, fetched: 0, submission_queue: VecDeque::new(), peak_queued: 0, metrics }
    }
}

/// Every flow of the run, and the host interface's limits.
pub(super) struct Flows {
    pub(super) list: Vec<HostFlow>,
    /// Commands of one queue the device holds at once (`u32::MAX`: no limit).
    fetch_limit: u32,
    /// No flow issues at or after this instant (0: no limit).
    pub(super) stop_time_ns: Ns,
}

impl Flows {
    /// The flows of `workload` on a device of `capacity_bytes`, a flows
    /// workload's each on its part (`parts`).
    pub(super) fn new(workload: &WorkloadConfig, capacity_bytes: u64, parts: &[(u64, u64)], seed: u64, interval_ns: u64) -> Result<Self> {
        let WorkloadConfig::Flows(f) = workload else {
            let (issue, processes) = match workload {
                WorkloadConfig::Synthetic(s) if s.processes > 0 => (Issue::Processes { think_ns: s.think_time_ns }, s.processes),
                WorkloadConfig::Trace(t) if t.replay == TraceReplay::Closed => (Issue::ClosedTrace, 0),
                _ => (Issue::Open, 0),
            };
            let source = build_source(workload, capacity_bytes, seed)?;
            return Ok(Self { list: vec![HostFlow::new(source, issue, processes, None)], fetch_limit: u32::MAX, stop_time_ns: 0 });
        };
        let list = FlowSource::all(f, parts, seed)?
            .into_iter()
            .zip(f.flows.iter().map(|f| &f.generator))
            .map(|(source, s)| {
                let issue = if s.processes > 0 { Issue::Processes { think_ns: s.think_time_ns } } else { Issue::Open };
                HostFlow::new(Box::new(source), issue, s.processes, Some(HostMetrics::new(interval_ns)))
            })
            .collect();
        let fetch_limit = if f.queue_fetch_size == 0 { u32::MAX } else { f.queue_fetch_size };
        Ok(Self { list, fetch_limit, stop_time_ns: f.stop_time_ns })
    }

    /// Whether the device fetches `flow`'s new command `job` now; if not, it waits in the queue.
    pub(super) fn fetch_or_queue(&mut self, flow: usize, job: u32) -> Result<bool> {
        let limit = self.fetch_limit;
        if limit == u32::MAX {
            return Ok(true); // no limit: nothing to count (every one-flow workload)
        }
        let f = self.list.get_mut(flow).ok_or_else(|| no_flow(flow))?;
        if f.fetched < limit {
            f.fetched += 1;
            return Ok(true);
        }
        f.submission_queue.push_back(job);
        f.peak_queued = f.peak_queued.max(f.submission_queue.len() as u64);
        Ok(false)
    }

    /// One of `flow`'s fetched commands completed: the job the device fetches in its place, if one waits.
    pub(super) fn completed(&mut self, flow: usize) -> Result<Option<u32>> {
        if self.fetch_limit == u32::MAX {
            return Ok(None);
        }
        let f = self.list.get_mut(flow).ok_or_else(|| no_flow(flow))?;
        match f.submission_queue.pop_front() {
            Some(job) => Ok(Some(job)),
            None => {
                f.fetched = f.fetched.saturating_sub(1);
                Ok(None)
            }
        }
    }

    /// Each flow's responses start again at `now` (the end of the warm-up).
    /// A flows workload, whose flows the report names `flow-1`, `flow-2`, ... (not one workload).
    pub(super) fn named(&self) -> bool {
        self.list.first().is_some_and(|f| f.metrics.is_some())
    }

    pub(super) fn restart_metrics(&mut self, interval_ns: u64, now: Ns) {
        for m in self.list.iter_mut().filter_map(|f| f.metrics.as_mut()) {
            *m = HostMetrics::starting_at(interval_ns, now);
        }
    }

    /// Whether a closed-loop flow may still issue at `now`.
    pub(super) fn open_at(&self, now: Ns) -> bool {
        self.stop_time_ns == 0 || now < self.stop_time_ns
    }

    /// Fraction of the workload issued: of the stop time when there is
    /// one, else the flows' mean.
    pub(super) fn progress(&self, now: Ns) -> f64 {
        if self.stop_time_ns > 0 {
            return (now as f64 / self.stop_time_ns as f64).min(1.0);
        }
        self.list.iter().map(|f| f.source.progress()).sum::<f64>() / self.list.len().max(1) as f64
    }

    /// Every flow's workload counters, summed.
    pub(super) fn workload_report(&self) -> WorkloadReport {
        let mut all = self.list.iter().map(|f| f.source.report());
        let first = all.next().unwrap_or_default();
        all.fold(first, |mut a, r| {
            a.requests += r.requests;
            a.request_bytes = a.request_bytes.saturating_add(r.request_bytes);
            a.highest_end_bytes = a.highest_end_bytes.max(r.highest_end_bytes);
            a
        })
    }

    /// Each flow's section of the report (none for a one-flow workload).
    pub(super) fn reports(&self) -> Vec<FlowReport> {
        let named = self.list.iter().enumerate().filter_map(|(i, f)| Some((i, f, f.metrics.as_ref()?)));
        named
            .map(|(i, f, m)| {
                let (failed_reads, failed_writes) = m.failed_counts();
                FlowReport {
                    name: format!("flow-{}", i + 1),
                    issued: f.source.report().requests,
                    peak_queued: f.peak_queued,
                    failed_reads,
                    failed_writes,
                    host: m.report(),
                }
            })
            .collect()
    }
}
