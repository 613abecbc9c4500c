//! Reconstruction and loss: the cells a rebuild reads and writes, and
//! whether a stripe has lost data — the same code structure a degraded
//! read uses.

use super::*;

/// Reconstruction and loss: the same structure a degraded read uses.
impl Planner {
    /// Stripe `s` has lost data: more of its members are dead than its
    /// code tolerates (RAID-0: any; RAID-1/10: every copy of some unit).
    pub fn stripe_lost(&mut self, s: u64, state: &ArrayState) -> bool {
        if self.cover.is_none() {
            return (0..self.geom.data_units).any(|d| {
                self.geom.unit_copies(s, d, &mut self.copies);
                self.copies.iter().all(|c| !state.alive(c.member, s))
            });
        }
        let dead = (0..self.geom.data_units).map(|d| self.geom.data_member(s, d)).chain(self.geom.parity_members(s).into_iter().flatten());
        dead.filter(|&m| !state.alive(m, s)).count() as u32 > self.geom.parity_units
    }

    /// Bytes one member holds of one stripe (what its rebuild writes).
    pub fn member_stripe_bytes(&self) -> u64 {
        match self.geom.level {
            crate::config::RaidLevel::Raid10 => u64::from(self.geom.copies) * self.geom.unit_bytes,
            _ => self.geom.unit_bytes * self.geom.codeword_rows,
        }
    }

    /// Plans the reconstruction of stripe `s` onto the members in `targets`
    /// (dead for `s`, their spares taking the writes): read the survivors
    /// the code needs — the row (other data and P) for one lost data
    /// column, the data for lost parity, every survivor otherwise; a
    /// surviving copy for mirrors — and write the lost units whole.
    pub fn plan_rebuild(&mut self, s: u64, state: &mut ArrayState, targets: &[u32], plan: &mut StripePlan) -> Result<()> {
        plan.reset(s);
        plan.locks_stripe = true;
        if self.stripe_lost(s, state) {
            return Err(Error::Internal(format!("stripe {s} is lost and cannot be rebuilt")));
        }
        if self.cover.is_none() {
            self.plan_mirror_rebuild(s, state, targets, plan);
        } else {
            self.plan_parity_rebuild(s, state, targets, plan);
        }
        coalesce(&mut plan.reads);
        coalesce(&mut plan.writes);
        Ok(())
    }

    pub(super) fn plan_mirror_rebuild(&mut self, s: u64, state: &mut ArrayState, targets: &[u32], plan: &mut StripePlan) {
        let u = self.geom.unit_bytes;
        for d in 0..self.geom.data_units {
            self.geom.unit_copies(s, d, &mut self.copies);
            let Some(from) = self.copies.iter().find(|c| state.alive(c.member, s)).copied() else { continue };
            let mut read = false;
            for c in self.copies.iter().filter(|c| targets.contains(&c.member) && !state.alive(c.member, s)) {
                plan.writes.push(op(c.member, Op::Write, c.member_offset, u, Cause::RebuildWrite));
                read = true;
            }
            if read {
                plan.reads.push(op(from.member, Op::Read, from.member_offset, u, Cause::RebuildRead));
            }
        }
    }

    pub(super) fn plan_parity_rebuild(&mut self, s: u64, state: &ArrayState, targets: &[u32], plan: &mut StripePlan) {
        let data: Vec<u32> = (0..self.geom.data_units).map(|d| self.geom.data_member(s, d)).collect();
        let [p, q] = self.geom.parity_members(s);
        let parity: Vec<u32> = [p, q].into_iter().flatten().collect();
        let dead_data = data.iter().filter(|&&m| !state.alive(m, s)).count();
        let p_alive = p.is_some_and(|m| state.alive(m, s));
        let sources: Vec<u32> = match (dead_data, p_alive) {
            // One data column lost: its rows' XOR with P (Q not needed).
            (1, true) => data.iter().copied().filter(|&m| state.alive(m, s)).chain(p).collect(),
            // Only parity lost: recompute it from the data.
            (0, _) => data.clone(),
            _ => data.iter().chain(&parity).copied().filter(|&m| state.alive(m, s)).collect(),
        };
        let (off, len) = (self.geom.row_offset(s, 0), self.member_stripe_bytes());
        let by_row = dead_data == 1 && p_alive;
        let q_lost = q.is_some_and(|m| !state.alive(m, s));
        // Lost data decoded; a lost parity column re-encoded from the (whole) data.
        plan.compute.add(self.decode_ops(by_row || dead_data == 0), dead_data as u64 * len);
        let unit = self.geom.unit_bytes;
        for (kind, lost) in [(0, p.is_some_and(|m| !state.alive(m, s))), (1, q_lost)] {
            if lost && targets.iter().any(|&t| Some(t) == [p, q][kind]) {
                // Re-encoded cell by cell from the code's cover, as a full-stripe write encodes it.
                let k = data.len();
                for (_, _, cells) in self.cover.iter().flatten().filter(|(kd, _, _)| *kd == kind) {
                    let ops = cells.iter().map(|&c| self.term_ops(kind, c % k)).fold((0, 0), |a, t| (a.0 + t.0, a.1 + t.1));
                    plan.compute.add(ops, unit);
                }
            }
        }
        for m in sources {
            plan.reads.push(op(m, Op::Read, off, len, Cause::RebuildRead));
        }
        for &m in data.iter().chain(&parity).filter(|m| targets.contains(m) && !state.alive(**m, s)) {
            plan.writes.push(op(m, Op::Write, off, len, Cause::RebuildWrite));
            plan.parity_bytes += len;
        }
    }
}
