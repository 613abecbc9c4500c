//! Ageing a drive before a run: an in-order fill, then overwrites at
//! random and in order (`precondition.*`), page by page or in bulk.

use super::*;

/// The page writes that precondition one drive, in order: `filled`
/// logical pages from the first, `random_overwrites` uniformly random
/// filled pages, `sequential_overwrites` filled pages in order again from
/// the first (wrapping). See [`crate::config::PreconditionConfig`]. Flows
/// that precondition their own parts fill each part's first pages instead
/// (`parts`); the overwrites then pick among every filled page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreconditionPlan {
    /// Logical pages written in order from the first.
    pub filled: u64,
    /// Uniformly random overwrites of filled pages that follow.
    pub random_overwrites: u64,
    /// Filled pages rewritten in order after those (wrapping).
    pub sequential_overwrites: u64,
    /// The filled pages by part, (first logical page, pages filled) in
    /// order; empty: pages `0..filled`.
    pub parts: Vec<(u64, u64)>,
}

impl PreconditionPlan {
    /// The plan for a drive of `logical_pages`.
    pub fn new(logical_pages: u64, cfg: &crate::config::PreconditionConfig) -> Self {
        let filled = (logical_pages as f64 * cfg.fill_fraction).floor() as u64;
        Self::with_overwrites(filled, Vec::new(), cfg)
    }

    /// The plan for a drive whose flows precondition their own `parts`:
    /// each part's first `fill_fraction` of pages.
    pub fn of_parts(parts: &[crate::config::DrivePart], cfg: &crate::config::PreconditionConfig) -> Self {
        let parts: Vec<(u64, u64)> = parts.iter().map(|p| (p.first_lpn, (p.pages as f64 * p.fill_fraction).floor() as u64)).collect();
        Self::with_overwrites(parts.iter().map(|p| p.1).sum(), parts, cfg)
    }

    fn with_overwrites(filled: u64, parts: Vec<(u64, u64)>, cfg: &crate::config::PreconditionConfig) -> Self {
        let times = |factor: f64| if filled > 0 { (filled as f64 * factor).round() as u64 } else { 0 };
        Self { filled, random_overwrites: times(cfg.random_overwrite_factor), sequential_overwrites: times(cfg.sequential_overwrite_factor), parts }
    }

    /// Page writes in all.
    pub fn total(&self) -> u64 {
        self.filled + self.random_overwrites + self.sequential_overwrites
    }

    /// The logical page of write `i` (`i < total()`).
    pub fn lpn<R: Rng>(&self, i: u64, rng: &mut R) -> Result<u64> {
        let k = if i < self.filled {
            i
        } else if i < self.filled + self.random_overwrites {
            rng.gen_range(0..self.filled)
        } else {
            (i - self.filled - self.random_overwrites) % self.filled
        };
        self.filled_lpn(k)
    }

    /// The logical page of filled page `k` (`k < filled`).
    fn filled_lpn(&self, k: u64) -> Result<u64> {
        if self.parts.is_empty() {
            return Ok(k);
        }
        let mut rest = k;
        for &(first, pages) in &self.parts {
            if rest < pages {
                return Ok(first + rest);
            }
            rest -= pages;
        }
        Err(Error::Internal(format!("preconditioning page {k} is past the {} pages the parts fill", self.filled)))
    }
}

impl Ssd {
    /// Preconditioning ages the drive without simulated time (see
    /// [`PreconditionPlan`]); [`Ssd::precondition_write`] does write `i` of
    /// the plan, so a long preconditioning can be done in slices.
    pub fn precondition_plan(&self, cfg: &crate::config::PreconditionConfig) -> PreconditionPlan {
        if self.flow_parts.is_empty() {
            PreconditionPlan::new(self.ftl.logical_pages(), cfg)
        } else {
            PreconditionPlan::of_parts(&self.flow_parts, cfg)
        }
    }

    /// Places and preconditions the flows' `parts` of the drive as they ask
    /// (see [`crate::config::DrivePart`]); before any write.
    pub fn place_flows(&mut self, static_order: &str, parts: &[crate::config::DrivePart]) {
        self.ftl.place_flows(static_order, parts);
        self.flow_parts = parts.to_vec();
    }

    /// Writes `writes` of preconditioning by `plan`. The in-order fill is
    /// set up at once ([`Ftl::fill_in_order`]) when `writes` holds all of
    /// it; otherwise, and for the overwrites, page by page.
    pub fn precondition_writes<R: Rng>(&mut self, writes: std::ops::Range<u64>, plan: &PreconditionPlan, rng: &mut R) -> Result<()> {
        let mut next = writes.start;
        if next == 0 && writes.end >= plan.filled && plan.filled > 0 && plan.parts.is_empty() {
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
        let lpn = plan.lpn(i, rng)?;
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
        // Collections the waiting programs asked for are owed once they are booked: counted as owed now.
        let waiting: u64 = self.waiting.collections().map(super::yielding_gc::pieces_of).sum();
        if let Some(y) = &mut self.yielding_gc {
            (y.urgent_pieces, y.urgent_waits, y.owed_when_counting_began) = (0, 0, y.pieces_owed() + waiting);
        }
        self.programs_deferred = 0;
        self.waiting_for_room.writes_waited = 0;
        (self.reads_waiting.pages_waited, self.reads_waiting.pages_waited_for_unit) = (0, 0);
        (self.waiting.multi_plane_commands, self.waiting.multi_plane_pages) = (0, 0);
        (self.erase_suspensions, self.erase_deferrals) = (0, 0);
        self.summary_pages_written = 0;
        self.pages_placed_by_reads = 0;
        self.trims = TrimCounts::default();
        self.counting_phase += 1;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{DrivePart, PreconditionConfig};
    use rand::SeedableRng;

    #[test]
    fn flows_parts_fill_their_own_first_pages_and_the_overwrites_keep_to_them() {
        let part = |first_lpn, pages, fill_fraction| DrivePart { first_lpn, pages, channels: Vec::new(), chips: Vec::new(), fill_fraction };
        let cfg = PreconditionConfig { fill_fraction: 0.9, random_overwrite_factor: 10.0, sequential_overwrite_factor: 1.0 };
        // 10 pages at 0.5 and 8 at 0.25: pages 100..105 and 200..202; the drive's own fill (0.9) is not used.
        let plan = PreconditionPlan::of_parts(&[part(100, 10, 0.5), part(200, 8, 0.25)], &cfg);
        assert_eq!((plan.filled, plan.random_overwrites, plan.sequential_overwrites), (7, 70, 7));
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        let lpns: Vec<u64> = (0..plan.total()).map(|i| plan.lpn(i, &mut rng).expect("in range")).collect();
        let filled = [100, 101, 102, 103, 104, 200, 201];
        assert_eq!(lpns[..7], filled);
        assert!(lpns[7..77].iter().all(|l| filled.contains(l)));
        assert!(filled.iter().all(|l| lpns[7..77].contains(l)), "70 draws over 7 pages reach each");
        assert_eq!(lpns[77..], filled);
    }
}
