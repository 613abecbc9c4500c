//! DiskSim's parity rule ([`crate::config::ParityGranularity::Disksim`]): a
//! threshold on the number of written units decides between
//! read-modify-write and reconstruct-write, with parity I/O over the row's
//! written extent.

use super::*;

impl Planner {
    /// DiskSim's parity rule for one healthy stripe row
    /// (`logorg_parity_table` in `disksim_redun.c`). A row whose every data
    /// unit the write touches counts as full: no pre-read, parity over the
    /// whole unit — even when a touched unit is only partly written, where
    /// DiskSim's parity would be wrong on real data; we count what DiskSim
    /// counts. Otherwise the written units form one group, or two when
    /// exactly two units are touched and their unit-relative ranges do not
    /// overlap (a small write across a unit boundary); each group is planned
    /// on its own by [`Planner::plan_disksim_group`].
    pub(super) fn plan_disksim_row(&mut self, s: u64, method: WriteMethod, plan: &mut StripePlan) {
        let mut touched = self.spans.iter().enumerate().filter(|(_, sp)| !sp.is_empty()).map(|(d, _)| d);
        let (Some(first), second) = (touched.next(), touched.next()) else { return };
        let count = 1 + usize::from(second.is_some()) + touched.count();
        let k = self.spans.len();
        // DiskSim tests the split before fullness, so a two-unit row can split.
        match second {
            Some(second) if count == 2 && self.spans[first].lo > self.spans[second].hi => {
                self.plan_disksim_group(s, (first, first + 1), true, method, plan);
                self.plan_disksim_group(s, (second, second + 1), true, method, plan);
            }
            _ if count == k => self.plan_disksim_group(s, (0, k), false, method, plan),
            _ => self.plan_disksim_group(s, (first, k), true, method, plan),
        }
    }

    /// Plans the written units among data units `from..to` as one group:
    /// its extent runs from the lowest to the highest written unit-relative
    /// byte; fewer written units than `rmwpoint` (or `write_method = "rmw"`)
    /// is read-modify-write — the written ranges and the old parity over
    /// the extent — else reconstruct-write — over the extent, every byte of
    /// the row the group does not write; parity is written over the extent.
    pub(super) fn plan_disksim_group(&mut self, s: u64, (from, to): (usize, usize), partial: bool, method: WriteMethod, plan: &mut StripePlan) {
        let base = self.geom.row_offset(s, 0);
        let group = &self.spans[from..to];
        let written = group.iter().filter(|sp| !sp.is_empty()).count() as u32;
        let lo = group.iter().filter(|sp| !sp.is_empty()).map(|sp| sp.lo).min().unwrap_or(0);
        let hi = group.iter().map(|sp| sp.hi).max().unwrap_or(0);
        let rmw = match method {
            WriteMethod::Rmw => true,
            WriteMethod::Rcw => false,
            WriteMethod::Auto => written < self.rmwpoint,
        };
        for (d, sp) in self.spans.iter().enumerate() {
            let m = self.data_members[d];
            let mine = (from..to).contains(&d) && !sp.is_empty();
            if partial && rmw && mine {
                plan.reads.push(op(m, Op::Read, base + sp.lo, sp.hi - sp.lo, Cause::PreReadRmw));
            } else if partial && !rmw {
                let user = if mine { (sp.lo, sp.hi) } else { (0, 0) };
                for (a, b) in subtract((lo, hi), user) {
                    plan.reads.push(op(m, Op::Read, base + a, b - a, Cause::PreReadRcw));
                }
            }
            if mine {
                plan.writes.push(op(m, Op::Write, base + sp.lo, sp.hi - sp.lo, Cause::User));
            }
        }
        let rmw_group = partial && rmw;
        for (kind, &m) in self.parity_members.iter().enumerate().filter_map(|(i, m)| m.as_ref().map(|m| (i, m))) {
            if rmw_group {
                plan.reads.push(op(m, Op::Read, base + lo, hi - lo, Cause::PreReadRmw));
            }
            plan.writes.push(op(m, Op::Write, base + lo, hi - lo, Cause::Parity));
            plan.parity_bytes += hi - lo;
            // Read-modify-write runs each written unit's delta in; otherwise
            // the row is encoded from its k units.
            let mut ops = (0, 0);
            for (d, sp) in self.spans.iter().enumerate() {
                let written_here = (from..to).contains(&d) && !sp.is_empty();
                if rmw_group && !written_here {
                    continue;
                }
                let term = self.term_ops(kind, d);
                ops = (ops.0 + u64::from(rmw_group) + term.0, ops.1 + term.1);
            }
            plan.compute.add(ops, hi - lo);
        }
    }
}
