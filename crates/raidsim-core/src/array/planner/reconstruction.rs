//! Reconstruction and loss: the cells a rebuild reads and writes, and
//! whether a stripe has lost data — the same code structure a degraded
//! read uses.

use super::*;

/// How the lost cells of one stripe are recovered: the one derivation a
/// degraded read, a degraded write and a rebuild share. (A degraded write
/// that must rebuild its stripe reads every survivor, second parity
/// included, though a row recovery needs only the row parity: it takes
/// `by_row` from here for the decode's cost, its reads from every member.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Recovery {
    /// Data columns lost.
    pub lost_data: usize,
    /// One data column lost and the row parity alive: each lost cell is
    /// the XOR of the other cells of its row and the row parity (the
    /// second parity is not needed).
    pub by_row: bool,
}

impl Recovery {
    /// Parity column `kind` (0 = row parity, 1 = second) is read: the row
    /// parity alone for a row recovery; none when only parity is lost (it
    /// is re-encoded from the data); every surviving one otherwise.
    pub fn reads_parity(self, kind: usize) -> bool {
        match self.by_row {
            true => kind == 0,
            false => self.lost_data > 0,
        }
    }
}

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

    /// How stripe `s`'s lost cells are recovered; reads the stripe's
    /// members from `data_members` and `parity_members` (filled for `s`).
    pub(super) fn recovery(&self, s: u64, state: &ArrayState) -> Recovery {
        let lost_data = self.data_members.iter().filter(|&&m| !state.alive(m, s)).count();
        let row_parity_alive = self.parity_members[0].is_some_and(|m| state.alive(m, s));
        Recovery { lost_data, by_row: lost_data == 1 && row_parity_alive }
    }

    /// Fills `data_members` and `parity_members` for stripe `s`.
    pub(super) fn load_members(&mut self, s: u64) {
        for d in 0..self.geom.data_units {
            self.data_members[d as usize] = self.geom.data_member(s, d);
        }
        self.parity_members = self.geom.parity_members(s);
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
    pub fn plan_rebuild(&mut self, s: u64, state: &ArrayState, targets: &[u32], plan: &mut StripePlan) -> Result<()> {
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

    pub(super) fn plan_mirror_rebuild(&mut self, s: u64, state: &ArrayState, targets: &[u32], plan: &mut StripePlan) {
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
        self.load_members(s);
        let recovery = self.recovery(s, state);
        let data = &self.data_members;
        let [p, q] = self.parity_members;
        let parity: Vec<u32> = [p, q].into_iter().flatten().collect();
        let (off, len) = (self.geom.row_offset(s, 0), self.member_stripe_bytes());
        let (dead_data, by_row) = (recovery.lost_data, recovery.by_row);
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
        let data_sources = data.iter().copied().filter(|&m| state.alive(m, s));
        let parity_sources = [p, q].into_iter().enumerate().filter(|&(kind, _)| recovery.reads_parity(kind));
        let parity_sources = parity_sources.filter_map(|(_, m)| m.filter(|&m| state.alive(m, s)));
        for m in data_sources.chain(parity_sources) {
            plan.reads.push(op(m, Op::Read, off, len, Cause::RebuildRead));
        }
        for &m in data.iter().chain(&parity).filter(|m| targets.contains(m) && !state.alive(**m, s)) {
            plan.writes.push(op(m, Op::Write, off, len, Cause::RebuildWrite));
            plan.parity_bytes += len;
        }
    }
}
