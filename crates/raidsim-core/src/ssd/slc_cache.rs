//! The SLC cache's time: its folds, and its counts.
//!
//! A fold a write asked for (`when_full = "fold"`) is booked on the die at
//! once, from the end of that write's program: unlike collection, which a
//! die owes until its next operation, a fold is the drive's background
//! work and runs whether or not more work arrives. It copies inside the
//! plane, so it holds the die alone; only copies that cross the channel
//! (`gc_copy_back = false`) hold it, as collection's do.
//!
//! Drives fold their SLC cache in the background, when no host work is
//! waiting (see `config::slc_cache`). The drive here books work as
//! requests arrive, so idle folding is booked then too: when a request
//! arrives, every die (unit) that has had nothing booked for at least
//! `idle_fold_after_ns` has folded its cache blocks since, oldest first, a
//! page at a time from that instant, as long as each page's fold began
//! before the arrival. The last may run past it and delay the new request
//! by at most one page's fold, as a background operation under way does. A die whose last booking is its own
//! idle fold is still folding: it goes on from that fold's end, without
//! waiting the idle time again. What the folds moved is moved before the
//! request is served, the order in which the die did it. A die that still
//! owes collection is not idle.

use super::*;

impl Ssd {
    /// Books the folds of every die idle long enough before `now_ns`.
    pub(super) fn fold_while_idle(&mut self, now_ns: Ns) -> Result<()> {
        let Some(after) = self.idle_fold_after_ns else { return Ok(()) };
        for unit in 0..self.units.len() {
            if self.owed_gc[unit].0 > 0 {
                continue;
            }
            let idle_from = self.units[unit].booked_until();
            let still_folding = idle_from > 0 && idle_from == self.idle_fold_end[unit];
            let mut t = if still_folding { idle_from } else { idle_from.saturating_add(after) };
            while t < now_ns {
                let Some(gc) = self.ftl.fold_idle(self.planes_of_unit(unit), t)? else { break };
                // Nothing is booked on the unit after `t`: the fold starts there.
                t = self.book_on_unit(unit, t, gc);
                self.count_gc(gc);
                self.idle_fold_end[unit] = t;
            }
        }
        Ok(())
    }

    /// Books a fold a write asked for on its unit, from `from_ns` on.
    pub(super) fn book_fold(&mut self, r: Route, from_ns: Ns, fold: GcWork) {
        if fold.is_empty() {
            return;
        }
        if !self.gc_copy_back {
            // Copies that cross the channel hold it, as collection's do.
            return self.book_gc(r, from_ns, fold);
        }
        self.book_on_unit(r.unit, from_ns, fold);
    }

    /// The planes a unit's dies hold.
    pub(super) fn planes_of_unit(&self, unit: usize) -> std::ops::Range<u32> {
        let g = &self.ftl.layout().geometry;
        let planes = match self.parallel_unit {
            ParallelUnit::Die => g.planes_per_die,
            ParallelUnit::Chip => g.planes_per_die * g.dies_per_chip,
            ParallelUnit::Plane => 1,
        };
        unit as u32 * planes..(unit as u32 + 1) * planes
    }

    pub(super) fn slc_cache_stats(&self, prefix: &str, out: &mut Stats) {
        let Some(c) = self.ftl.slc_counts() else { return };
        for (name, n, unit, what) in [
            ("pages_cached", c.pages_cached, "pages", "pages written into the SLC cache"),
            ("pages_bypassed", c.pages_bypassed, "pages", "pages written to the dense cells because their plane's cache was full"),
            ("blocks_folded", c.blocks_folded, "blocks", "cache blocks folded into the dense cells and erased"),
            ("blocks_folded_idle", c.blocks_folded_idle, "blocks", "of the blocks folded, those folded while their die idled"),
            ("pages_folded", c.pages_folded, "pages", "valid pages the folds moved into the dense cells"),
        ] {
            out.push(Stat::new(format!("{prefix}.slc_cache.{name}"), n as f64, unit, what));
        }
        if let Some(held) = self.ftl.slc_pages_held() {
            out.push(Stat::new(
                format!("{prefix}.slc_cache.pages_held"),
                held as f64,
                "pages",
                "valid pages in the cache, not yet folded, at the end",
            ));
        }
    }
}
