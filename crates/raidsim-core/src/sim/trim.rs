//! The host's trims (discards). A trim moves no data: it changes the
//! drives' maps, through the array's rule for parity (`array::trim`), and
//! the host has it back at once (a drive with a cached map books the
//! translation pages it reads and writes for it as its own work). Real
//! drives answer a deallocate in microseconds, which this leaves out; what
//! a trim changes is the work of later writes, whose collections find fewer
//! valid pages to move. Trims are counted apart from reads and writes (the
//! report's `trim` section, `host.trim.*`), never in the response figures.
//!
//! Order is kept as the host issued it. A drive maps a write's pages when
//! it serves the write, which may be long after the host issued it (queued
//! in the drive, or in a later phase of a parity update), so a trim applied
//! at once could be overtaken by an earlier write of the same pages and
//! leave them mapped. A trim therefore waits for the host writes in flight
//! that overlap it, and a write issued while an overlapping trim waits is
//! held until that trim is applied. Reads do not wait: a read's pages hold
//! the host's data either way until the trim.

use super::*;
use crate::array::trim::{member_trims, MemberTrim};
use crate::workload::HostRequest;

/// A trim waiting for earlier overlapping writes.
#[derive(Clone, Debug)]
struct PendingTrim {
    seq: u64,
    flow: u16,
    offset_bytes: u64,
    len_bytes: u64,
    /// Host write jobs issued before it that overlap it, not yet ended.
    blockers: Vec<u32>,
}

/// A host write issued while an overlapping trim waited.
#[derive(Clone, Copy, Debug)]
struct HeldWrite {
    job: u32,
    /// The last overlapping trim pending when it was issued: it goes once that and the earlier ones are applied.
    after_seq: u64,
}

/// The host's trims, those waiting, and what the array made of them.
#[derive(Clone, Debug, Default)]
pub(super) struct Trims {
    /// Trims applied.
    requests: u64,
    /// Their bytes.
    bytes: u64,
    /// Bytes left in place: parts of stripes under parity.
    kept_bytes: u64,
    /// Bytes trimmed on the members, every copy and parity included.
    member_bytes: u64,
    /// Trims issued so far (their sequence numbers).
    issued: u64,
    pending: Vec<PendingTrim>,
    held: Vec<HeldWrite>,
    /// Member ranges of one trim (reused buffer).
    ranges: Vec<MemberTrim>,
}

fn overlaps(a: (u64, u64), b: (u64, u64)) -> bool {
    a.0 < b.0.saturating_add(b.1) && b.0 < a.0.saturating_add(a.1)
}

impl Trims {
    /// The last pending trim that host write `[offset, +len)` must follow, if any.
    fn must_follow(&self, offset_bytes: u64, len_bytes: u64) -> Option<u64> {
        self.pending.iter().rev().find(|t| overlaps((t.offset_bytes, t.len_bytes), (offset_bytes, len_bytes))).map(|t| t.seq)
    }
}

impl Simulation {
    /// Trim `r` of flow `flow`, issued at `now`: applied at once, or when
    /// the host writes in flight that overlap it have ended.
    pub(super) fn trim(&mut self, now: Ns, flow: usize, r: &HostRequest) -> Result<()> {
        self.refuse_trims()?;
        let range = (r.offset_bytes, r.len_bytes);
        let blockers: Vec<u32> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.op == Op::Write && j.kind == JobKind::Host && overlaps((j.offset_bytes, j.len_bytes), range))
            .map(|(id, _)| id)
            .collect();
        let t = &mut self.trims;
        t.issued += 1;
        let pending = PendingTrim { seq: t.issued, flow: flow as u16, offset_bytes: r.offset_bytes, len_bytes: r.len_bytes, blockers };
        if pending.blockers.is_empty() {
            return self.apply_trim(now, &pending);
        }
        t.pending.push(pending);
        Ok(())
    }

    /// Whether host write `job`, just issued, must wait for a pending trim
    /// (then it is held, and released by [`Self::host_job_ended`]).
    #[inline]
    pub(super) fn held_behind_trim(&mut self, job: u32, offset_bytes: u64, len_bytes: u64) -> bool {
        if self.trims.pending.is_empty() {
            return false;
        }
        let Some(after_seq) = self.trims.must_follow(offset_bytes, len_bytes) else { return false };
        self.trims.held.push(HeldWrite { job, after_seq });
        true
    }

    /// Host job `job` has ended: the trims it held back that wait for
    /// nothing more are applied, then the writes those trims held go.
    #[inline]
    pub(super) fn host_job_ended(&mut self, now: Ns, job: u32) -> Result<()> {
        if self.trims.pending.is_empty() {
            return Ok(());
        }
        self.unblock_trims(now, job)
    }

    #[inline(never)]
    fn unblock_trims(&mut self, now: Ns, job: u32) -> Result<()> {
        let mut ready = Vec::new();
        self.trims.pending.retain_mut(|t| {
            t.blockers.retain(|&b| b != job);
            let done = t.blockers.is_empty();
            if done {
                ready.push(t.clone());
            }
            !done
        });
        for t in &ready {
            self.apply_trim(now, t)?;
        }
        self.release_held_writes(now)
    }

    /// Dispatches the held writes no pending trim issued before them overlaps.
    fn release_held_writes(&mut self, now: Ns) -> Result<()> {
        let mut i = 0;
        while i < self.trims.held.len() {
            let h = self.trims.held[i];
            let j = self.jobs.get(h.job).ok_or_else(|| Error::Internal(format!("held write {} is not in flight", h.job)))?;
            let (range, flow) = ((j.offset_bytes, j.len_bytes), usize::from(j.flow));
            let waits = self.trims.pending.iter().any(|t| t.seq <= h.after_seq && overlaps((t.offset_bytes, t.len_bytes), range));
            if waits {
                i += 1;
                continue;
            }
            self.trims.held.remove(i);
            if self.flows.fetch_or_queue(flow, h.job)? {
                self.dispatch(now, h.job)?;
            }
        }
        Ok(())
    }

    /// Trims the drives under `t` now; a closed loop issues its next request.
    fn apply_trim(&mut self, now: Ns, t: &PendingTrim) -> Result<()> {
        let s = &mut self.trims;
        s.requests += 1;
        s.bytes += t.len_bytes;
        match &self.controller {
            None => {
                let drive = self.members.first_mut().ok_or_else(|| Error::Internal("a drive run without its drive".into()))?;
                drive.trim(now, t.offset_bytes, t.len_bytes)?;
                s.member_bytes += t.len_bytes;
            }
            Some(c) => {
                s.kept_bytes += member_trims(c.planner().geometry(), t.offset_bytes, t.len_bytes, &mut s.ranges)?;
                // A spare under rebuild is trimmed too: the stripes already
                // rebuilt onto it must read as their survivors do, or their
                // parity would no longer hold. A failed member without one is gone.
                let state = c.state();
                for m in &s.ranges {
                    let i = m.member as usize;
                    if state.failed[i] && state.rebuilt[i].is_none() {
                        continue;
                    }
                    let device = state.device_of[i] as usize;
                    let member = self.members.get_mut(device).ok_or_else(|| Error::Internal(format!("no device {device} to trim")))?;
                    member.trim(now, m.offset_bytes, m.len_bytes)?;
                    s.member_bytes += m.len_bytes;
                }
            }
        }
        if let Some(c) = self.controller.as_mut() {
            c.verify_trim(&self.trims.ranges)?;
        }
        self.issue_next_after(now, t.flow)
    }

    /// A trace's first trim meets the check a listed one met at resolve.
    fn refuse_trims(&self) -> Result<()> {
        if self.trims.issued > 0 {
            return Ok(());
        }
        crate::config::refuse_trims(&self.resolved.config, &self.resolved.members)
    }

    /// The warm-up is over: the counters restart, as the drives' do.
    pub(super) fn restart_trim_counts(&mut self) {
        let t = &mut self.trims;
        (t.requests, t.bytes, t.kept_bytes, t.member_bytes) = (0, 0, 0, 0);
    }

    /// The trims' section, and their counters as `host.trim.*` stats when the run applied any.
    pub(super) fn trim_report(&self, report: &mut Report) {
        let t = &self.trims;
        report.trim = crate::report::TrimReport { requests: t.requests, bytes: t.bytes, kept_bytes: t.kept_bytes, member_bytes: t.member_bytes };
        if t.requests == 0 {
            return;
        }
        let stat = |name: &str, value: u64, unit: &'static str, meaning: &'static str| {
            crate::metrics::Stat::new(format!("host.trim.{name}"), value as f64, unit, meaning)
        };
        report.stats.push(stat("requests", t.requests, "requests", "trims applied (not in the response figures)"));
        report.stats.push(stat("bytes", t.bytes, "bytes", "bytes the host trimmed"));
        if self.controller.is_some() {
            report.stats.push(stat(
                "kept_bytes",
                t.kept_bytes,
                "bytes",
                "bytes the host trimmed in parts of stripes under parity, which the members keep",
            ));
            report.stats.push(stat("member_bytes", t.member_bytes, "bytes", "bytes trimmed on the members, copies and parity included"));
        }
    }
}
