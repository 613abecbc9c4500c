//! Member failures and reconstruction: what a failure loses, the rebuild
//! pump (DOR, SOR, MCR, rate limits; described in `array::rebuild`) and the
//! array's phase (healthy, degraded, rebuilding, rebuilt).

use super::*;

/// What a stripe reconstruction does (CR5M's chip failures need more than decoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RebuildJob {
    /// Decode the targets' lost strips from the stripe's survivors.
    Decode,
    /// CR5M: rewrite an MW stripe's parity over its current data (its
    /// parity or an old copy it covered was lost), reclaiming the copies.
    Consolidate,
    /// CR5M: copy the current data of a strip of channel `member` from its
    /// mirroring chip onto the replacement chip.
    Copy { member: u32 },
    /// CR5M: copy a mirrored strip of channel `member` onto its new mirroring chip.
    Remirror { member: u32 },
}

impl RebuildJob {
    /// What the verifier stores for its writes.
    pub(super) fn bytes(self) -> RebuildBytes {
        match self {
            RebuildJob::Decode => RebuildBytes::Decode,
            RebuildJob::Consolidate => RebuildBytes::Consolidate,
            RebuildJob::Copy { .. } => RebuildBytes::Copy,
            RebuildJob::Remirror { .. } => RebuildBytes::Remirror,
        }
    }
}

impl ArrayController {
    /// Member `member` fails at `now`: operations already issued run to
    /// completion; later plans avoid it; stripes it leaves with more losses
    /// than their code tolerates are lost; its rebuild is scheduled.
    pub fn fail_member<P: ArrayPort>(&mut self, port: &mut P, now: Ns, member: u32) -> Result<()> {
        let m = member as usize;
        match self.state.failed.get(m) {
            None => return Err(Error::Internal(format!("member {member} does not exist"))),
            Some(true) => return Err(Error::Internal(format!("member {member} failed twice"))),
            Some(false) => {}
        }
        self.state.failed[m] = true;
        self.epoch += 1;
        self.rebuild.failed(now, member);
        self.record_losses(now, member);
        self.pump(port, now)
    }

    /// Marks the stripes `member`'s failure lost; records a data-loss event.
    pub(super) fn record_losses(&mut self, now: Ns, member: u32) {
        let mut lost = 0;
        let mut given_up = vec![0u64; self.rebuild.targets.len()];
        for s in 0..self.rebuild.stripes {
            if !self.rebuild.lost.contains(s) && (self.planner.stripe_lost(s, &self.state) || self.old_copy_lost_and_degraded(s)) {
                self.rebuild.lost.insert(s);
                lost += 1;
                // Nothing left to copy or give new parity there either.
                for w in &mut self.chip_work {
                    w.copy.remove(s);
                    w.consolidate.remove(s);
                    w.remirror.remove(s);
                }
                // Nothing to rebuild there any more.
                for (i, &t) in self.rebuild.targets.iter().enumerate() {
                    if self.state.rebuilt[t as usize].as_mut().is_some_and(|set| set.insert(s)) {
                        given_up[i] += 1;
                    }
                }
            }
        }
        for (t, n) in self.rebuild.targets.clone().into_iter().zip(given_up) {
            self.rebuild.give_up(t, n);
        }
        if lost > 0 {
            let bytes_lost = lost * self.planner.geometry().stripe_data_bytes();
            self.rebuild.data_loss_events.push(DataLossEvent { at_ns: now, member, stripes_lost: lost, bytes_lost });
        }
    }

    /// CR5M: stripe `s`'s parity covers an old copy a chip failure took,
    /// so it decodes nothing, and a strip of it is down: that strip is lost.
    pub(super) fn old_copy_lost_and_degraded(&self, s: u64) -> bool {
        let geom = self.planner.geometry();
        let parity_alive = geom.parity_members(s)[0].is_some_and(|p| self.state.alive(p, s));
        parity_alive
            && self.chip_work.iter().any(|w| w.consolidate.contains(s))
            && (0..geom.data_units).any(|d| !self.state.alive(geom.data_member(s, d), s))
    }

    /// A wake-up asked for with [`ArrayPort::wake_at`] fired.
    pub fn wake<P: ArrayPort>(&mut self, port: &mut P, now: Ns) -> Result<()> {
        self.rebuild.woke(now);
        self.pump(port, now)
    }

    /// Starts what the rebuild may start now: spares for waiting members,
    /// completions, stripe reconstructions; tells the port of phase changes.
    pub(super) fn pump<P: ArrayPort>(&mut self, port: &mut P, now: Ns) -> Result<()> {
        while let Some((member, spare)) = self.rebuild.next_assignment(now) {
            // A member that lost a chip keeps its other strips (and its device).
            let stripes = self.rebuild.stripes;
            let set = self.state.rebuilt[member as usize].get_or_insert_with(|| StripeSet::new(stripes));
            let given_up = (0..stripes).filter(|&s| self.rebuild.lost.contains(s) && set.insert(s)).count() as u64;
            self.rebuild.give_up(member, given_up);
            self.state.device_of[member as usize] = spare;
            self.epoch += 1;
        }
        if let Some(at) = self.rebuild.next_wait().filter(|&at| at > now) {
            if self.rebuild.want_wake(at) {
                port.wake_at(at);
            }
        }
        self.finish_members(now);
        loop {
            match self.rebuild.may_start(now, self.host_jobs > 0) {
                Ok(()) => {}
                Err(Some(at)) => {
                    if self.rebuild.want_wake(at) {
                        port.wake_at(at);
                    }
                    break;
                }
                Err(None) => break,
            }
            let copies_now = self.rebuild.policy() != crate::config::RebuildPolicy::Mcr || self.phase_one_done();
            let (state, work, targets) = (&self.state, &self.chip_work, self.rebuild.targets.clone());
            let needs = |s: u64| {
                targets.iter().any(|&t| !state.alive(t, s))
                    || work.iter().any(|w| w.consolidate.contains(s) || w.remirror.contains(s) || (copies_now && w.copy.contains(s)))
            };
            let Some(s) = self.rebuild.next_stripe(needs) else {
                break;
            };
            self.start_rebuild_stripe(port, now, s)?;
        }
        self.finish_members(now);
        self.rebuild.settle(now);
        self.set_phase(port, now);
        Ok(())
    }

    /// Members whose every stripe is rebuilt (or lost) are whole again.
    pub(super) fn finish_members(&mut self, now: Ns) {
        let stripes = self.rebuild.stripes;
        let work_left = |t: u32| self.chip_work.iter().any(|w| w.member == t && !w.is_done());
        while let Some(&t) =
            self.rebuild.targets.iter().find(|&&t| self.state.rebuilt[t as usize].as_ref().is_some_and(|r| r.len() == stripes) && !work_left(t))
        {
            self.state.failed[t as usize] = false;
            self.state.rebuilt[t as usize] = None;
            self.epoch += 1;
            self.rebuild.member_done(now, t);
        }
    }

    pub(super) fn set_phase<P: ArrayPort>(&mut self, port: &mut P, now: Ns) {
        let phase = if !self.rebuild.targets.is_empty() || !self.rebuild.in_flight.is_empty() {
            ArrayPhase::Rebuilding
        } else if self.state.degraded() {
            ArrayPhase::Degraded
        } else if self.rebuild.end_ns.is_some() {
            ArrayPhase::Rebuilt
        } else {
            self.phase
        };
        if phase != self.phase {
            self.phase = phase;
            port.phase(now, phase);
        }
    }

    pub(super) fn start_rebuild_stripe<P: ArrayPort>(&mut self, port: &mut P, now: Ns, s: u64) -> Result<()> {
        let job = if self.chip_work.iter().any(|w| w.consolidate.contains(s)) {
            RebuildJob::Consolidate
        } else if self.rebuild.lacks(&self.state, s) {
            RebuildJob::Decode
        } else if let Some(w) = self.chip_work.iter().find(|w| w.remirror.contains(s)) {
            RebuildJob::Remirror { member: w.member }
        } else if let Some(w) = self.chip_work.iter().find(|w| w.copy.contains(s)) {
            RebuildJob::Copy { member: w.member }
        } else {
            return Err(Error::Internal(format!("stripe {s} was picked for a rebuild it does not need")));
        };
        let mut plan = self.pool.pop().unwrap_or_default();
        self.plan_rebuild_job(job, s, &mut plan)?;
        let bytes: u64 = plan.writes.iter().map(|w| w.len_bytes).sum();
        self.rebuild.started(now, s, bytes);
        let mirror = (job == RebuildJob::Consolidate).then_some(MirrorAction::Consolidate);
        self.start_stripe(port, now, Owner::Rebuild(job), plan, self.epoch, mirror)
    }

    /// Plans reconstruction `job` of stripe `s`.
    pub(super) fn plan_rebuild_job(&mut self, job: RebuildJob, s: u64, plan: &mut StripePlan) -> Result<()> {
        if job == RebuildJob::Decode {
            return self.planner.plan_rebuild(s, &self.state, &self.rebuild.targets, plan);
        }
        plan.reset(s);
        plan.locks_stripe = true;
        let geom = self.planner.geometry();
        let (offset, unit) = (geom.row_offset(s, 0), geom.unit_bytes * geom.codeword_rows);
        let op = |member: u32, op: Op, cause: Cause| MemberOp { member, op, offset_bytes: offset, len_bytes: unit, cause };
        match job {
            RebuildJob::Decode => {}
            RebuildJob::Consolidate => {
                // Every data strip's current version (from its mirror where
                // its data chip failed), then the parity, and the copy of a
                // strip only the mirroring chip held.
                for d in 0..geom.data_units {
                    plan.reads.push(op(geom.data_member(s, d), Op::Read, Cause::RebuildCopyRead));
                }
                let p = geom.parity_members(s)[0].ok_or_else(|| Error::Internal(format!("stripe {s} has no parity")))?;
                plan.writes.push(op(p, Op::Write, Cause::RebuildWrite));
                plan.parity_bytes = unit;
                for w in self.chip_work.iter().filter(|w| w.copy.contains(s) && w.member != p) {
                    plan.writes.push(op(w.member, Op::Write, Cause::RebuildWrite));
                }
                if let Some(mw) = self.mirroring.as_mut() {
                    mw.parity_rebuilt(s);
                }
            }
            RebuildJob::Copy { member } => {
                plan.reads.push(op(member, Op::Read, Cause::RebuildCopyRead));
                plan.writes.push(op(member, Op::Write, Cause::RebuildWrite));
            }
            RebuildJob::Remirror { member } => {
                plan.reads.push(op(member, Op::Read, Cause::RebuildCopyRead));
                // The replacement chip is the mirroring chip: the drive files it as a mirror copy.
                plan.writes.push(op(member, Op::Write, Cause::RebuildWrite));
            }
        }
        Ok(())
    }

    /// CR5M with MCR: every lost strip that needs decoding or a new parity
    /// is done, so strips the mirroring chip holds may be copied (Algorithm
    /// 2's phase two).
    pub(super) fn phase_one_done(&self) -> bool {
        let stripes = self.rebuild.stripes;
        self.rebuild.targets.iter().all(|&t| self.state.rebuilt[t as usize].as_ref().map_or(true, |r| r.len() == stripes))
            && self.chip_work.iter().all(|w| w.consolidate.is_empty() && w.remirror.is_empty())
    }

    /// A stripe reconstruction has written its spares (a stripe lost
    /// meanwhile counts as lost, not rebuilt).
    pub(super) fn rebuilt(&mut self, job: RebuildJob, plan: &StripePlan) {
        let s = plan.stripe;
        if self.rebuild.lost.contains(s) {
            self.rebuild.stripe_done(s, None);
            return;
        }
        let mut bytes = 0;
        let geom = self.planner.geometry();
        let (mut decoded, mut copied) = (0, 0);
        for w in plan.writes.iter().filter(|w| w.cause == Cause::RebuildWrite) {
            let was_lost = !self.state.alive(w.member, s);
            let parity = geom.parity_members(s).contains(&Some(w.member));
            // A consolidation's parity on a channel that lost nothing recovers nothing.
            let recovered = match job {
                RebuildJob::Decode => was_lost,
                RebuildJob::Consolidate if parity => was_lost,
                RebuildJob::Consolidate | RebuildJob::Copy { .. } | RebuildJob::Remirror { .. } => true,
            };
            match job {
                RebuildJob::Decode => decoded += u64::from(recovered),
                RebuildJob::Consolidate if parity => decoded += u64::from(recovered),
                _ => copied += 1,
            }
            if let Some(set) = self.state.rebuilt[w.member as usize].as_mut() {
                set.insert(s);
            }
            for work in self.chip_work.iter_mut().filter(|work| work.member == w.member) {
                if matches!(job, RebuildJob::Remirror { .. }) {
                    work.remirror.remove(s);
                } else {
                    work.copy.remove(s);
                }
            }
            if recovered {
                bytes += w.len_bytes;
            }
        }
        if job == RebuildJob::Consolidate {
            self.rebuild.stripes_consolidated += 1;
            self.chip_work.iter_mut().for_each(|w| _ = w.consolidate.remove(s));
        }
        // Strips are counted where a chip failed (the CR5M paper's Figure 12c).
        if self.rebuild.failures.iter().any(|f| f.chip.is_some()) {
            self.rebuild.strips_by_xor += decoded;
            self.rebuild.strips_by_copy += copied;
        }
        self.epoch += 1;
        self.rebuild.stripe_done(s, Some(bytes));
    }
}
