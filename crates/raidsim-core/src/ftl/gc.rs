//! Garbage collection: picking a victim block of a plane, copying its
//! valid pages inside the plane, and erasing it.

use super::*;

/// Work garbage collection did for one write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GcWork {
    /// Valid pages copied (one read and one program each).
    pub pages_copied: u64,
    /// Blocks erased.
    pub blocks_erased: u64,
    /// Summary pages programmed because a copy filled a block's data pages.
    pub summary_pages: u64,
    /// The copied pages' reads by the type of page read, and their
    /// programs by the type of page written ([`crate::flash::cell`]).
    pub reads_by_type: [u64; 3],
    /// See `reads_by_type`.
    pub programs_by_type: [u64; 3],
}

impl GcWork {
    /// This work, then `w`.
    fn add(&mut self, w: &GcWork) {
        self.pages_copied += w.pages_copied;
        self.blocks_erased += w.blocks_erased;
        self.summary_pages += w.summary_pages;
        for t in 0..3 {
            self.reads_by_type[t] += w.reads_by_type[t];
            self.programs_by_type[t] += w.programs_by_type[t];
        }
    }
}

impl Ftl {
    /// Collects `plane` until it has `free_blocks` free blocks, or no victim
    /// would free anything: after a write, up to the threshold; when another
    /// device asked (Harmonia's forced collection), up to its target.
    /// Inlined: after most writes the plane is above the threshold, and
    /// the test is all there is to do.
    #[inline]
    pub fn collect_until(&mut self, plane: u32, free_blocks: usize, now_ns: Ns) -> Result<GcWork> {
        let mut gc = GcWork::default();
        while self.planes[plane as usize].free.len() < free_blocks {
            match self.pick_victim(plane, now_ns) {
                Some(victim) => gc.add(&self.collect_block(plane, victim, now_ns)?),
                None => break,
            }
        }
        if gc.blocks_erased > 0 {
            gc.add(&self.level_statically(plane, now_ns)?);
        }
        Ok(gc)
    }

    /// Copies the valid pages of `victim` into `plane`'s open block and erases it.
    pub(super) fn collect_block(&mut self, plane: u32, victim: u32, now_ns: Ns) -> Result<GcWork> {
        let first = self.layout.first_page(victim);
        let mut work = GcWork { blocks_erased: 1, ..GcWork::default() };
        let mut sealed = 0;
        for ppn in first..first + self.data_pages_per_block {
            let lpn = self.id_at(ppn);
            if lpn != NO_PAGE {
                self.invalidate(ppn);
                let (new, seals) = self.append(plane, lpn, now_ns)?;
                self.set_ppn(u64::from(lpn), new);
                work.pages_copied += 1;
                work.reads_by_type[self.layout.page_type(ppn) as usize] += 1;
                work.programs_by_type[self.layout.page_type(new) as usize] += 1;
                sealed += u64::from(seals);
            }
        }
        self.erase_count[victim as usize] += 1;
        self.state[victim as usize] = BlockState::Free;
        self.planes[plane as usize].free.push_back(victim);
        self.sync_free_pages(plane);
        work.summary_pages = sealed * u64::from(self.summary_pages_per_block);
        Ok(work)
    }

    fn pick_victim(&self, plane: u32, now_ns: Ns) -> Option<u32> {
        let bpp = self.layout.geometry.blocks_per_plane;
        let ppb = self.data_pages_per_block as u16;
        let used = (plane * bpp..(plane + 1) * bpp).filter(|&b| self.state[b as usize] == BlockState::Used && self.valid[b as usize] < ppb);
        match self.gc_victim {
            // Ties go to the lowest block number, so runs are reproducible.
            GcVictim::Greedy => used.min_by_key(|&b| self.valid[b as usize]),
            GcVictim::CostBenefit => used.max_by(|&a, &b| self.cost_benefit(a, now_ns).total_cmp(&self.cost_benefit(b, now_ns)).then(b.cmp(&a))),
        }
    }

    fn cost_benefit(&self, block: u32, now_ns: Ns) -> f64 {
        let u = f64::from(self.valid[block as usize]) / f64::from(self.data_pages_per_block);
        // A block's last write is stamped with the instant its data was
        // ready, which a collection forced earlier (Harmonia's, or a
        // write-back destage's) may precede: such a block is as young as
        // any, age zero.
        let age = now_ns.saturating_sub(self.last_write_ns[block as usize]) as f64 + 1.0;
        if u == 0.0 {
            f64::INFINITY
        } else {
            (1.0 - u) / (2.0 * u) * age
        }
    }
}
