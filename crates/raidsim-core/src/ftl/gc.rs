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
    pub reads_by_type: [u64; PageType::COUNT],
    /// See `reads_by_type`.
    pub programs_by_type: [u64; PageType::COUNT],
    /// Of the pages copied, those an SLC cache's folds moved.
    pub pages_folded: u64,
    /// Of the blocks erased, the SLC cache's folded blocks.
    pub blocks_folded: u64,
}

impl GcWork {
    /// Whether collection did anything (an SLC cache's folds aside): a
    /// FAST partial merge of a logical block without a data block copies
    /// pages and erases none.
    pub fn ran(&self) -> bool {
        self.blocks_erased > self.blocks_folded || self.pages_copied > self.pages_folded
    }

    /// Whether there is no work at all: most writes collect nothing, and
    /// their callers skip the sums.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pages_copied == 0 && self.blocks_erased == 0 && self.summary_pages == 0
    }

    /// This work, then `w`.
    pub(super) fn add(&mut self, w: &GcWork) {
        self.pages_copied += w.pages_copied;
        self.blocks_erased += w.blocks_erased;
        self.summary_pages += w.summary_pages;
        self.pages_folded += w.pages_folded;
        self.blocks_folded += w.blocks_folded;
        for t in 0..PageType::COUNT {
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
        if self.log_blocks.is_some() {
            return self.merge_until(plane, free_blocks, now_ns);
        }
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
        let (mut work, _) = self.move_valid_pages(plane, victim, 0..self.data_pages_per_block, u64::MAX, now_ns)?;
        work.blocks_erased = 1;
        self.erase_count[victim as usize] += 1;
        self.state[victim as usize] = BlockState::Free;
        self.planes[plane as usize].free.push_back(victim);
        self.sync_free_pages(plane);
        Ok(work)
    }

    /// Copies up to `limit` valid pages among `pages` of `victim` into
    /// `plane`'s open block, each read and program at its page's type; and
    /// the page after the last one looked at.
    pub(super) fn move_valid_pages(&mut self, plane: u32, victim: u32, pages: std::ops::Range<u32>, limit: u64, now_ns: Ns) -> Result<(GcWork, u32)> {
        let first = self.layout.first_page(victim);
        let mut work = GcWork::default();
        let mut sealed = 0;
        let mut next = pages.start;
        for page in pages {
            if work.pages_copied == limit {
                break;
            }
            next = page + 1;
            let ppn = first + page;
            let id = self.id_at(ppn);
            if id != NO_PAGE {
                self.invalidate(ppn);
                let (new, seals) = self.append(plane, id, self.writer_of(u64::from(id), Writer::Collection), now_ns)?;
                self.set_ppn(u64::from(id), new);
                work.pages_copied += 1;
                work.reads_by_type[self.layout.page_type(ppn) as usize] += 1;
                work.programs_by_type[self.layout.page_type(new) as usize] += 1;
                sealed += u64::from(seals);
            }
        }
        work.summary_pages = sealed * u64::from(self.summary_pages_per_block);
        Ok((work, next))
    }

    /// The blocks of `plane` a collection could take: full, and with a page to free.
    fn gc_candidates(&self, plane: u32) -> impl Iterator<Item = u32> + '_ {
        let ppb = self.data_pages_per_block as u16;
        self.layout.native_blocks(plane).filter(move |&b| self.state[b as usize] == BlockState::Used && self.valid[b as usize] < ppb)
    }

    pub(super) fn pick_victim(&mut self, plane: u32, now_ns: Ns) -> Option<u32> {
        match self.gc_victim {
            // Ties go to the lowest block number, so runs are reproducible.
            GcVictim::Greedy => self.gc_candidates(plane).min_by_key(|b| self.valid[*b as usize]),
            GcVictim::CostBenefit => {
                self.gc_candidates(plane).max_by(|&a, &b| self.cost_benefit(a, now_ns).total_cmp(&self.cost_benefit(b, now_ns)).then(b.cmp(&a)))
            }
            GcVictim::RandomGreedy => {
                let eligible = self.gc_candidates(plane).count() as u64;
                self.gc_draws += 1;
                let seed = self.gc_seed.wrapping_add(self.gc_draws) ^ (u64::from(plane) << 40);
                let ranks = sample::distinct_ranks(eligible, u64::from(self.gc_victim_sample), seed);
                let drawn = self.gc_candidates(plane).enumerate().filter(|&(rank, _)| ranks.contains(rank as u64));
                drawn.map(|(_, b)| b).min_by_key(|b| self.valid[*b as usize])
            }
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

/// Random-greedy's draw: distinct ranks among a plane's full blocks,
/// without allocating (collections run in the write path).
pub(super) mod sample {
    const MAX_SAMPLE: usize = crate::config::MAX_GC_VICTIM_SAMPLE as usize;

    /// Up to [`MAX_SAMPLE`] distinct ranks in `[0, n)`.
    pub struct Ranks {
        ranks: [u64; MAX_SAMPLE],
        len: usize,
    }

    impl Ranks {
        pub fn contains(&self, rank: u64) -> bool {
            self.ranks[..self.len].contains(&rank)
        }

        fn insert(&mut self, rank: u64) {
            self.ranks[self.len] = rank;
            self.len += 1;
        }
    }

    /// `min(d, n)` distinct ranks in `[0, n)`, uniformly (Floyd's
    /// algorithm), from a SplitMix64 stream seeded with `seed`.
    pub fn distinct_ranks(n: u64, d: u64, seed: u64) -> Ranks {
        let mut out = Ranks { ranks: [0; MAX_SAMPLE], len: 0 };
        let d = d.min(n).min(MAX_SAMPLE as u64);
        let mut state = seed;
        for j in n - d..n {
            let t = splitmix64(&mut state) % (j + 1);
            out.insert(if out.contains(t) { j } else { t });
        }
        out
    }

    fn splitmix64(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn every_draw_is_distinct_and_in_range_and_every_rank_comes_up_alike() {
            let (n, d, draws) = (20u64, 5u64, 20_000u64);
            let mut seen = [0u64; 20];
            for s in 0..draws {
                let r = distinct_ranks(n, d, s);
                assert_eq!(r.len, 5);
                let mut v = r.ranks[..r.len].to_vec();
                v.sort_unstable();
                v.dedup();
                assert_eq!(v.len(), 5, "distinct");
                for &x in &v {
                    assert!(x < n);
                    seen[x as usize] += 1;
                }
            }
            // Each rank is drawn with probability d / n: 5,000 times, sd about 61.
            for (rank, &k) in seen.iter().enumerate() {
                assert!((k as f64 - 5_000.0).abs() < 300.0, "rank {rank}: {k}");
            }
            assert_eq!(distinct_ranks(3, 8, 1).len, 3, "a sample larger than the blocks takes them all");
        }
    }
}
