//! RAID inside one SSD with mirroring (the CR5M paper): deciding when a
//! stripe's writes are mirrored instead of paying a parity update, remapping
//! onto the mirroring chip, and chip failures.

use super::*;

impl ArrayController {
    /// `cr5`/`cr5m`: chip `chip` of channel `member` fails at `now`. Its
    /// strips are lost (the rest of the channel serves on); a spare chip
    /// replaces it and the rebuild reconstructs those strips onto it.
    pub fn fail_chip<P: ArrayPort>(&mut self, port: &mut P, now: Ns, member: u32, chip: u32) -> Result<()> {
        let m = member as usize;
        match self.state.failed.get(m) {
            None => return Err(Error::Internal(format!("member {member} does not exist"))),
            Some(true) => return Err(Error::Internal(format!("channel {member} lost a second chip"))),
            Some(false) => {}
        }
        let device = self.state.device_of[m];
        let loss = port.fail_chip(device, chip)?;
        let geom = self.planner.geometry();
        let stripes = self.rebuild.stripes;
        let stripe_of = |lpn: u64| lpn * self.page_bytes / geom.unit_bytes / geom.codeword_rows;
        let mirrored = |s: u64| self.mirroring.as_ref().map_or(0, |mw| mw.mirrored(s));
        let mut dead = StripeSet::new(stripes);
        let mut work =
            MirroredStrips { member, copy: StripeSet::new(stripes), consolidate: StripeSet::new(stripes), remirror: StripeSet::new(stripes) };
        // Its current data is on the mirroring chip too (§3.2.2): it stays
        // readable there and is copied.
        for &lpn in &loss.current_mirrored {
            work.copy.insert(stripe_of(lpn));
        }
        for &lpn in &loss.current {
            let s = stripe_of(lpn);
            dead.insert(s);
            // A lost parity of an MW stripe is rebuilt over the current data.
            let parity = (0..geom.data_units).all(|d| geom.data_member(s, d) != member);
            if parity && mirrored(s) != 0 {
                work.consolidate.insert(s);
            }
        }
        // Where the paper is silent: an old copy lost leaves its stripe's
        // parity covering data no longer held, so that parity is rebuilt too.
        for &lpn in &loss.expired {
            work.consolidate.insert(stripe_of(lpn));
        }
        for &lpn in &loss.mirror {
            work.remirror.insert(stripe_of(lpn));
        }
        self.observer.chip_lost(device, &loss, self.page_bytes);
        // A reconstruction write booked on the failed chip went down with it
        // (the drive maps a write when it takes it): it recovers nothing, and
        // its stripe is reconstructed again.
        for sj in self.stripe_jobs.0.iter_mut() {
            if sj.in_writes && matches!(sj.owner, Owner::Rebuild(_)) && dead.contains(sj.plan.stripe) {
                sj.plan.writes.retain(|w| w.member != member);
            }
        }
        if !work.is_done() {
            self.chip_work.push(work);
        }
        // The channel's other strips stay readable: it counts as rebuilt there.
        let mut alive = StripeSet::new(stripes);
        for s in (0..stripes).filter(|&s| !dead.contains(s)) {
            alive.insert(s);
        }
        self.state.failed[m] = true;
        self.state.rebuilt[m] = Some(alive);
        self.epoch += 1;
        self.rebuild.chip_failed(now, member, chip);
        self.record_losses(now, member);
        self.pump(port, now)
    }

    /// CR5M, Algorithm 1: as a host write's stripe job starts (in order,
    /// holding its stripe's lock), decide between a mirroring write and a
    /// parity update; an MW stripe's parity update is made reconstruct-write.
    pub(super) fn decide_mirroring<P: ArrayPort>(&mut self, port: &mut P, now: Ns, id: u32) -> Result<()> {
        let Some(mirroring) = self.mirroring.as_mut() else { return Ok(()) };
        let sj = self.stripe_jobs.get_mut(id)?;
        let Owner::Host { op: Op::Write, offset, len, .. } = sj.owner else { return Ok(()) };
        if sj.mirror.is_some() {
            return Ok(()); // decided when it first started
        }
        let geom = self.planner.geometry();
        let s = sj.plan.stripe;
        let k = geom.data_units;
        let written = (0..k)
            .filter(|&d| sj.plan.writes.iter().any(|w| w.cause == Cause::User && w.member == geom.data_member(s, d)))
            .fold(0u32, |m, d| m | 1 << d);
        let all = if k == 32 { u32::MAX } else { (1u32 << k) - 1 };
        let device_of = &self.state.device_of;
        let idle = |c: u32| port.mirroring_chip_idle(now, device_of[c as usize]);
        // Where the paper is silent: no new mirroring writes until a chip
        // failure's reconstruction is over, so what it must copy stays put.
        let may_mirror = !self.state.degraded() && self.chip_work.is_empty();
        if let Some(action) = mirroring.decide(&mut sj.plan, written, all, may_mirror, false, idle) {
            sj.mirror = Some(action);
            return Ok(());
        }
        // An MW stripe's parity covers its old pages: read the current ones
        // instead, and rewrite all of it before its old copies go.
        let mut fresh = self.replan_host_stripe(Op::Write, offset, len, s, true)?;
        let sj = self.stripe_jobs.get_mut(id)?;
        let device_of = &self.state.device_of;
        let idle = |c: u32| port.mirroring_chip_idle(now, device_of[c as usize]);
        let mirroring = self.mirroring.as_mut().ok_or_else(|| Error::Internal("cr5m state vanished".into()))?;
        let action = mirroring.decide(&mut fresh, written, all, false, true, idle);
        sj.mirror = Some(action.ok_or_else(|| Error::Internal(format!("stripe {s}: reconstruct-write planned as read-modify-write")))?);
        self.pool.push(std::mem::replace(&mut sj.plan, fresh));
        Ok(())
    }

    /// CR5M: the mapping bookkeeping stripe job `id`'s writes carry, done as they go out.
    pub(super) fn remap_for_mirroring<P: ArrayPort>(&mut self, port: &mut P, id: u32) -> Result<()> {
        let sj = self.stripe_jobs.get_mut(id)?;
        let s = sj.plan.stripe;
        match sj.mirror.unwrap_or(MirrorAction::None) {
            MirrorAction::None => {}
            MirrorAction::Mirror(_) => {
                for w in sj.plan.writes.iter().filter(|w| w.cause == Cause::User) {
                    port.remap(self.state.device_of[w.member as usize], Remap::KeepAsExpired, w.offset_bytes, w.len_bytes)?;
                }
            }
            MirrorAction::Consolidate => {
                self.observer.consolidated(&self.state, s);
                let geom = self.planner.geometry();
                for d in 0..geom.data_units {
                    let m = geom.data_member(s, d);
                    port.remap(self.state.device_of[m as usize], Remap::DropCopies, geom.row_offset(s, 0), geom.unit_bytes)?;
                }
            }
        }
        Ok(())
    }

    /// CR5M: a host write of stripe `plan.stripe` goes out while chip
    /// failures left work. A strip it writes needs no copy any more. If it
    /// reclaims the stripe's copies, a strip only a mirror held (read by
    /// its reconstruct-write) is written onto the replacement chip with it,
    /// so that reclaiming the mirror loses nothing.
    pub(super) fn host_write_meets_chip_work(&mut self, plan: &mut StripePlan, consolidates: bool) {
        let s = plan.stripe;
        let geom = self.planner.geometry();
        for work in &mut self.chip_work {
            if plan.writes.iter().any(|w| w.cause == Cause::User && w.member == work.member) {
                work.copy.remove(s);
                work.remirror.remove(s);
            }
            if !consolidates {
                continue;
            }
            work.consolidate.remove(s);
            work.remirror.remove(s);
            if work.copy.remove(s) {
                let (offset_bytes, len_bytes) = (geom.row_offset(s, 0), geom.unit_bytes * geom.codeword_rows);
                plan.writes.push(MemberOp { member: work.member, op: Op::Write, offset_bytes, len_bytes, cause: Cause::RebuildWrite });
                self.rebuild.strips_by_copy += 1;
                self.rebuild.stripe_done(s, Some(len_bytes));
            }
        }
    }
}
