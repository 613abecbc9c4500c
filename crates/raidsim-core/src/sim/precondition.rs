//! Preconditioning: members are built and aged before a run, in slices so a
//! caller can show progress and stop between them.

use super::*;

/// Building a member, counted as this many preconditioning pages (for
/// slicing and progress): allocating its maps costs about as much as
/// writing an eighth of its pages.
pub(super) fn build_cost_pages(logical_pages: u64) -> u64 {
    (logical_pages / 8).max(1)
}

/// Preconditioning still to do: members are aged in index order, each with
/// its planned writes, from one random stream (so slicing changes nothing).
pub(super) struct Preconditioning {
    pub(super) rng: Xoshiro256PlusPlus,
    pub(super) member: usize,
    pub(super) next_write: u64,
    pub(super) done_pages: u64,
    pub(super) total_pages: u64,
}

impl Simulation {
    /// Preconditions at most `max_pages` more pages; returns the fraction
    /// of preconditioning done (1 when the run may start). Lets a caller
    /// show progress and stop between slices.
    pub fn precondition(&mut self, max_pages: u64) -> Result<f64> {
        if self.failed {
            return Err(Error::Workload("the run stopped at an earlier error; it cannot go on".into()));
        }
        let Some(p) = self.preconditioning.as_mut() else { return Ok(1.0) };
        let cfg = &self.resolved.config.precondition;
        let mut budget = max_pages;
        let total = self.resolved.members.len();
        while p.member < total && budget > 0 {
            if self.members.len() == p.member {
                // Members are built in turn too: a large array's maps take seconds to allocate.
                let m = &self.resolved.members[p.member];
                let mut member = Member::new(m, p.member as u32, self.resolved.config.sim.seed, &self.stop);
                if p.member == 0 {
                    member.place_flows(m, &self.resolved.drive_parts)?;
                }
                self.members.push(member);
                let cost = build_cost_pages(m.logical_pages());
                (budget, p.done_pages) = (budget.saturating_sub(cost), p.done_pages + cost);
                continue;
            }
            let member = &mut self.members[p.member];
            let plan = if p.member < self.array_members {
                member.precondition_plan(cfg)
            } else {
                PreconditionPlan::default() // a hot spare is a fresh drive
            };
            // The in-order fill is set up whole (it costs a pass over the blocks, not the pages).
            let fill_end = if p.next_write == 0 { plan.filled } else { 0 };
            let end = p.next_write.saturating_add(budget).max(fill_end).min(plan.total());
            if let Err(e) = member.precondition_writes(p.next_write..end, &plan, &mut p.rng) {
                // Part of the slice was written: the drive is not in any state a run may start from.
                self.failed = true;
                return Err(e);
            }
            (budget, p.done_pages) = (budget.saturating_sub(end - p.next_write), p.done_pages + (end - p.next_write));
            p.next_write = end;
            if end == plan.total() {
                if let Err(e) = member.warm_mapping_cache() {
                    self.failed = true;
                    return Err(e);
                }
                member.restart_counters();
                (p.member, p.next_write) = (p.member + 1, 0);
            }
        }
        if p.member < total {
            return Ok(p.done_pages as f64 / p.total_pages.max(1) as f64);
        }
        self.preconditioning = None;
        Ok(1.0)
    }
}
