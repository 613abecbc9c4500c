//! Ageing a drive before a run: an in-order fill, then overwrites at
//! random and in order (`precondition.*`), page by page or in bulk.

use super::*;

/// The page writes that precondition one drive, in order: `filled`
/// logical pages from the first, `random_overwrites` uniformly random
/// filled pages, `sequential_overwrites` filled pages in order again from
/// the first (wrapping). See [`crate::config::PreconditionConfig`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PreconditionPlan {
    /// Logical pages written in order from the first.
    pub filled: u64,
    /// Uniformly random overwrites of filled pages that follow.
    pub random_overwrites: u64,
    /// Filled pages rewritten in order after those (wrapping).
    pub sequential_overwrites: u64,
}

impl PreconditionPlan {
    /// The plan for a drive of `logical_pages`.
    pub fn new(logical_pages: u64, cfg: &crate::config::PreconditionConfig) -> Self {
        let filled = (logical_pages as f64 * cfg.fill_fraction).floor() as u64;
        let times = |factor: f64| if filled > 0 { (filled as f64 * factor).round() as u64 } else { 0 };
        Self { filled, random_overwrites: times(cfg.random_overwrite_factor), sequential_overwrites: times(cfg.sequential_overwrite_factor) }
    }

    /// Page writes in all.
    pub fn total(&self) -> u64 {
        self.filled + self.random_overwrites + self.sequential_overwrites
    }

    /// The logical page of write `i` (`i < total()`).
    pub fn lpn<R: Rng>(&self, i: u64, rng: &mut R) -> u64 {
        if i < self.filled {
            i
        } else if i < self.filled + self.random_overwrites {
            rng.gen_range(0..self.filled)
        } else {
            (i - self.filled - self.random_overwrites) % self.filled
        }
    }
}

impl Ssd {
    /// Preconditioning ages the drive without simulated time (see
    /// [`PreconditionPlan`]); [`Ssd::precondition_write`] does write `i` of
    /// the plan, so a long preconditioning can be done in slices.
    pub fn precondition_plan(&self, cfg: &crate::config::PreconditionConfig) -> PreconditionPlan {
        PreconditionPlan::new(self.ftl.logical_pages(), cfg)
    }

    /// Writes `writes` of preconditioning by `plan`. The in-order fill is
    /// set up at once ([`Ftl::fill_in_order`]) when `writes` holds all of
    /// it; otherwise, and for the overwrites, page by page.
    pub fn precondition_writes<R: Rng>(&mut self, writes: std::ops::Range<u64>, plan: &PreconditionPlan, rng: &mut R) -> Result<()> {
        let mut next = writes.start;
        if next == 0 && writes.end >= plan.filled && plan.filled > 0 {
            let in_turn = self.allocation == Allocation::StaticDie;
            self.ftl.fill_in_order(plan.filled, in_turn)?;
            if in_turn {
                self.next_plane_in_die = self.ftl.turns_after_fill(self.next_plane_in_die.len() as u32);
            }
            next = plan.filled;
        }
        for i in next..writes.end {
            // Collection makes a slice of overwrites take seconds: Ctrl-C may come in the middle.
            self.poll_stop(i - next)?;
            self.precondition_write(i, plan, rng)?;
        }
        if writes.end >= plan.total() {
            self.store_map_on_flash()?;
        }
        Ok(())
    }

    /// Write `i` of preconditioning by `plan`.
    pub fn precondition_write<R: Rng>(&mut self, i: u64, plan: &PreconditionPlan, rng: &mut R) -> Result<()> {
        let lpn = plan.lpn(i, rng);
        let plane = self.precondition_plane(lpn);
        self.ftl.write(lpn, plane, 0).map(|_| ())
    }

    /// Ends preconditioning: counters restart; erase counts (wear) are kept.
    pub fn precondition_done(&mut self) {
        self.counters = CauseCounters::default();
        self.chip_pages_written.iter_mut().for_each(|c| *c = 0);
        self.chip_pages_read.iter_mut().for_each(|c| *c = 0);
        self.gc_runs = 0;
        self.forced_gc_runs = 0;
        self.summary_pages_written = 0;
        self.ftl.reset_counts();
        if let Some(cache) = self.write_cache.as_mut() {
            cache.reset_counts();
        }
        if let Some(cmt) = self.cmt.as_mut() {
            cmt.reset_counts();
        }
    }

    /// Where preconditioning puts a page: dynamic allocation has no busy
    /// dies to choose by, so it fills as static allocation would.
    pub(super) fn precondition_plane(&mut self, lpn: u64) -> u32 {
        match self.allocation {
            Allocation::StaticDie => self.most_free_plane(lpn),
            Allocation::Static | Allocation::Dynamic => self.ftl.static_plane(lpn),
        }
    }
}
