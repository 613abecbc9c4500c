//! How the host issues its requests: open loop at their arrival instants,
//! closed loop by processes that each wait a think time after a completion,
//! or a trace replayed one request at a time, each the trace's idle time
//! after the previous one completes (DiskSim's validation mode). Each flow
//! (`sim::flows`) issues in its own way.

use super::*;

/// How the host issues its requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Issue {
    /// Each at its arrival instant.
    Open,
    /// `workload.processes` each issue their next request `think_ns` after the last completes.
    Processes { think_ns: Ns },
    /// One at a time, each the trace's idle time after the last completes (`workload.replay = "closed"`).
    ClosedTrace,
}

impl Simulation {
    /// Starts every flow: its processes at time 0, or its first arrival.
    pub(super) fn start_flows(&mut self) -> Result<()> {
        for flow in 0..self.flows.list.len() {
            let f = &self.flows.list[flow];
            match f.issue {
                Issue::Processes { .. } => (0..f.processes).for_each(|_| self.queue.schedule(0, Event::ProcessIssue { flow: flow as u32 })),
                Issue::Open | Issue::ClosedTrace => self.schedule_next_arrival(0, flow)?,
            }
        }
        Ok(())
    }

    /// Flow `flow`'s next request, unless the run has stopped issuing.
    fn next_request(&mut self, flow: usize) -> Result<Option<HostRequest>> {
        if self.stopped || (self.max_requests > 0 && self.issued >= self.max_requests) {
            return Ok(None);
        }
        let Some(f) = self.flows.list.get_mut(flow) else { return Err(super::flows::no_flow(flow)) };
        let r = f.source.next_request()?;
        self.issued += u64::from(r.is_some());
        Ok(r)
    }

    /// Flow `flow`'s scheduled request arrives; an open-loop flow schedules its next.
    pub(super) fn arrival(&mut self, now: Ns, flow: usize) -> Result<()> {
        let Some(f) = self.flows.list.get_mut(flow) else { return Err(super::flows::no_flow(flow)) };
        let (pending, issue) = (f.next_arrival.take(), f.issue);
        if let Some(r) = pending {
            self.issue(now, flow, r)?;
        }
        if issue == Issue::Open {
            self.schedule_next_arrival(now, flow)?;
        }
        Ok(())
    }

    /// A closed-loop process of flow `flow` issues its next request, unless the flows have stopped.
    pub(super) fn process_issue(&mut self, now: Ns, flow: usize) -> Result<()> {
        if !self.flows.open_at(now) {
            return Ok(());
        }
        match self.next_request(flow)? {
            Some(r) => self.issue(now, flow, r),
            None => Ok(()),
        }
    }

    /// One of flow `flow`'s commands ended for the host at `now`: the device fetches the next one waiting in its queue.
    pub(super) fn command_done(&mut self, now: Ns, flow: u16) -> Result<()> {
        match self.flows.completed(usize::from(flow))? {
            Some(job) => self.dispatch(now, job),
            None => Ok(()),
        }
    }

    /// After one of flow `flow`'s requests ends: a closed loop issues its next.
    pub(super) fn issue_next_after(&mut self, now: Ns, flow: u16) -> Result<()> {
        let Some(f) = self.flows.list.get(usize::from(flow)) else { return Ok(()) };
        match f.issue {
            Issue::Open => Ok(()),
            Issue::Processes { think_ns } => {
                self.queue.schedule(now + think_ns, Event::ProcessIssue { flow: u32::from(flow) });
                Ok(())
            }
            Issue::ClosedTrace => self.schedule_next_arrival(now, usize::from(flow)),
        }
    }

    /// Fetches flow `flow`'s next request and schedules its arrival: at its
    /// arrival instant (open loop), or, for a closed-loop trace, its think
    /// time after `now`, when the previous one completed.
    pub(super) fn schedule_next_arrival(&mut self, now: Ns, flow: usize) -> Result<()> {
        if let Some(r) = self.next_request(flow)? {
            self.prefetch_ahead(&r);
            let Some(f) = self.flows.list.get_mut(flow) else { return Err(super::flows::no_flow(flow)) };
            let at = match f.issue {
                Issue::ClosedTrace => after_think(now, &r)?,
                Issue::Open | Issue::Processes { .. } => r.arrival_ns.max(now),
            };
            f.next_arrival = Some(r);
            self.queue.schedule(at, Event::Arrival { flow: flow as u32 });
        }
        Ok(())
    }

    /// Prefetches the map entries request `r` will look up first — its
    /// data page, and for a write the parity pages at the same place,
    /// which its update pre-reads — one arrival before it arrives, so its
    /// lookups find them in cache (`prefetch.rs`; nothing changes).
    fn prefetch_ahead(&self, r: &HostRequest) {
        // The first arrival is fetched while the members are being built.
        let at_device = |device: u32, at: u64| {
            if let Some(m) = self.members.get(device as usize) {
                m.prefetch_map_at(at);
            }
        };
        let Some(c) = self.controller.as_ref() else { return at_device(0, r.offset_bytes) };
        let Some((data, at, parity)) = c.planner().home_of(r.offset_bytes) else { return };
        let device_of = &c.state().device_of;
        at_device(device_of[data as usize], at);
        if r.op == crate::workload::HostOp::Write {
            for p in parity.into_iter().flatten() {
                at_device(device_of[p as usize], at);
            }
        }
    }
}

/// A closed-loop trace's request issues its think time after `now`; past the
/// clock is an error naming it, never a wrapped instant.
fn after_think(now: Ns, r: &HostRequest) -> Result<Ns> {
    let at = now.saturating_add(r.think_ns);
    if at > crate::engine::MAX_TIME_NS {
        return Err(Error::Workload(format!(
            "trace request {}: its idle time of {} ns puts its issue past 2^62 ns (146 years) into the replay: a corrupt idle \
             time, or time_scale too large",
            r.id, r.think_ns
        )));
    }
    Ok(at)
}
