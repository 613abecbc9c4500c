//! FAST, a hybrid log-block FTL (`ssd.ftl.scheme = "fast"`): Lee, Park,
//! Chung, Lee, Park & Song, "A log buffer-based flash translation layer
//! using fully-associative sector translation", ACM TECS 6(3), 2007.
//!
//! The drives of 2008-2010 could not hold a page map in DRAM. They mapped
//! by block: page `k` of logical block `b` lives at page `k` of `b`'s data
//! block. A rewrite cannot go there (flash is not rewritten in place), so
//! it goes to a log block, mapped by page:
//! - a write to page 0 of a logical block opens the **sequential** log
//!   block for it; the pages after it, written in order, follow it there.
//!   When it is full it replaces the data block (a **switch merge**: the
//!   old data block erased, if there was one; nothing copied); when it
//!   must make room sooner, the pages it lacks are copied into it first (a
//!   **partial merge**);
//! - every other write is appended to the **random** log blocks, shared by
//!   all logical blocks (fully associative). When none is free, the oldest
//!   is merged: every logical block with a valid page in it gets a new
//!   data block, into which all its current pages are copied, wherever
//!   they are, and its old data block is erased (a **full merge** per
//!   logical block); then the log block itself is erased. Another random
//!   log block the merges leave without a valid page keeps its place until
//!   its turn (then merged with nothing to copy). A random 4 KiB write can
//!   so cost a block's worth of copies per logical block in the victim,
//!   which is why these drives wrote small random data so slowly.
//!
//! Here the log buffer is per plane (merges copy inside a plane, with
//! copy-back), and a plane's logical blocks are its share of static
//! allocation's striping: the plane's `i`-th logical page is page `i % ppb`
//! of its logical block `i / ppb`. Where the paper leaves a choice open:
//! a write to the sequential block's logical block that is not its next
//! page goes to the random log; a full merge of the sequential block's
//! logical block also empties and erases the sequential block; random log
//! blocks are merged oldest first (the paper's round robin).
//!
//! The page maps of [`Ftl`] still record where each logical page is: the
//! block map and the log blocks' page maps are what FAST's placement
//! guarantees about them, and [`Ftl::check_invariants`] holds both.

use super::*;

/// No physical block: a logical block never written.
pub(super) const NO_BLOCK: u32 = u32::MAX;

/// A plane's sequential log block.
#[derive(Clone, Copy, Debug, PartialEq)]
struct SequentialLog {
    /// The logical block (of the plane) it collects.
    lbn: u32,
    block: u32,
    /// Its next page: the offset the next sequential write must have.
    next: u32,
}

/// How many merges of each kind a drive did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MergeCounts {
    /// A full sequential log block became the data block (the old one, if any, erased).
    pub switch: u64,
    /// A sequential log block was completed by copies, then switched.
    pub partial: u64,
    /// A logical block was copied whole into a new data block (FAST), or
    /// a data block rewritten because a write could not go in place (the block map).
    pub full: u64,
}

/// FAST's state for every plane: its block map and its log blocks.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct LogBlocks {
    /// Logical blocks of each plane.
    lbns_per_plane: u32,
    /// The residue of the logical pages each plane holds (static striping).
    residue_of_plane: Vec<u32>,
    /// Per plane, per logical block: its data block, or [`NO_BLOCK`].
    data_block: Vec<u32>,
    sequential: Vec<Option<SequentialLog>>,
    /// Per plane: its random log blocks, oldest first; the last is being filled.
    random: Vec<VecDeque<u32>>,
    /// Per plane: the next page of its newest random log block.
    random_next: Vec<u32>,
    random_limit: usize,
    pub(super) merges: MergeCounts,
    /// A block-mapped FTL (`scheme = "block_map"`, no log blocks): per
    /// plane, per logical block, the first page of its data block that
    /// can still be programmed, in order. `None` under FAST.
    pub(super) next_in_place: Option<Vec<u32>>,
}

impl LogBlocks {
    /// An empty drive's: no data block, no log block.
    /// With `random_limit = None`: a block-mapped FTL's, which has none.
    pub(super) fn new(static_planes: &[u32], logical_pages: u64, pages_per_block: u32, random_limit: Option<u32>) -> Self {
        let planes = static_planes.len();
        let mut residue_of_plane = vec![0; planes];
        for (residue, &plane) in static_planes.iter().enumerate() {
            residue_of_plane[plane as usize] = residue as u32;
        }
        // Validation keeps a plane's logical pages whole blocks of it.
        let lbns_per_plane = (logical_pages / planes as u64 / u64::from(pages_per_block)) as u32;
        Self {
            lbns_per_plane,
            residue_of_plane,
            data_block: vec![NO_BLOCK; planes * lbns_per_plane as usize],
            sequential: vec![None; planes],
            random: vec![VecDeque::new(); planes],
            random_next: vec![pages_per_block; planes],
            random_limit: random_limit.unwrap_or(0) as usize,
            merges: MergeCounts::default(),
            next_in_place: random_limit.is_none().then(|| vec![0; planes * lbns_per_plane as usize]),
        }
    }

    /// The plane's data block of logical block `lbn`, if it has one.
    #[cfg(test)]
    pub(super) fn data_block(&self, plane: u32, lbn: u32) -> Option<u32> {
        Some(self.data_block[(plane * self.lbns_per_plane + lbn) as usize]).filter(|&b| b != NO_BLOCK)
    }

    pub(super) fn reset_merges(&mut self) {
        self.merges = MergeCounts::default();
    }

    pub(super) fn data_block_mut(&mut self, plane: u32, lbn: u32) -> &mut u32 {
        &mut self.data_block[(plane * self.lbns_per_plane + lbn) as usize]
    }

    /// Where the plane's logical block `lbn` is kept in its tables.
    pub(super) fn index(&self, plane: u32, lbn: u32) -> usize {
        (plane * self.lbns_per_plane + lbn) as usize
    }
}

impl Ftl {
    /// Merges so far, under a block map (FAST's or the plain one).
    pub fn merges(&self) -> Option<MergeCounts> {
        self.log_blocks.as_ref().map(|lb| lb.merges)
    }

    /// Whether the block map has log blocks (FAST), not only data blocks.
    pub fn has_log_blocks(&self) -> bool {
        self.log_blocks.as_ref().is_some_and(|lb| lb.next_in_place.is_none())
    }

    /// The plane's logical block and page offset of `lpn`.
    pub(super) fn fast_address(&self, lpn: u64) -> (u32, u32) {
        let local = lpn / u64::from(self.layout.planes);
        let ppb = u64::from(self.data_pages_per_block);
        ((local / ppb) as u32, (local % ppb) as u32)
    }

    /// The logical page at `offset` of the plane's logical block `lbn`.
    fn fast_lpn(lb: &LogBlocks, plane: u32, lbn: u32, offset: u32, ppb: u32, planes: u32) -> u64 {
        (u64::from(lbn) * u64::from(ppb) + u64::from(offset)) * u64::from(planes) + u64::from(lb.residue_of_plane[plane as usize])
    }

    /// A write of `lpn` under FAST (see the module doc) or the block map
    /// ([`super::block_map`]), with the merges it needed.
    pub(super) fn write_by_block_map(&mut self, lpn: u64, plane: u32, now_ns: Ns) -> Result<WriteOutcome> {
        let mut lb = self.log_blocks.take().ok_or_else(|| Error::Internal("a block-mapped write on a drive without a block map".into()))?;
        let out = if lb.next_in_place.is_some() {
            self.write_block_mapped(&mut lb, lpn, plane, now_ns)
        } else {
            self.write_fast(&mut lb, lpn, plane, now_ns)
        };
        self.log_blocks = Some(lb);
        out
    }

    fn write_fast(&mut self, lb: &mut LogBlocks, lpn: u64, plane: u32, now_ns: Ns) -> Result<WriteOutcome> {
        let (lbn, offset) = self.unmap_for_rewrite(lpn, plane)?;
        let ppb = self.data_pages_per_block;
        let mut gc = GcWork::default();
        let ppn = match lb.sequential[plane as usize] {
            Some(s) if s.lbn == lbn && s.next == offset => {
                lb.sequential[plane as usize] = Some(SequentialLog { next: offset + 1, ..s });
                s.block * self.layout.geometry.pages_per_block + offset
            }
            _ if offset == 0 => {
                if lb.sequential[plane as usize].is_some() {
                    gc.add(&self.close_sequential(lb, plane, now_ns)?);
                }
                let block = self.take_free(plane)?;
                lb.sequential[plane as usize] = Some(SequentialLog { lbn, block, next: 1 });
                block * self.layout.geometry.pages_per_block
            }
            _ => self.random_log_page(lb, plane, now_ns, &mut gc)?,
        };
        self.place_page(lpn, ppn, now_ns);
        if lb.sequential[plane as usize].is_some_and(|s| s.next == ppb) {
            gc.add(&self.close_sequential(lb, plane, now_ns)?);
        }
        self.sync_free_pages(plane);
        Ok(WriteOutcome { ppn, sealed_block: false, gc, fold: GcWork::default() })
    }

    /// Before `lpn` is rewritten in `plane`: its old copy invalid, and no
    /// current copy for merges to move until it is written. Its logical block and offset.
    pub(super) fn unmap_for_rewrite(&mut self, lpn: u64, plane: u32) -> Result<(u32, u32)> {
        if plane != self.static_plane(lpn) {
            return Err(Error::Internal(format!("the block map was asked to write page {lpn} to plane {plane}, not its logical block's")));
        }
        let old = self.ppn_of(lpn);
        if old != NO_PAGE {
            self.check_maps_agree(lpn, old)?;
            self.invalidate(old);
        }
        self.l2p[lpn as usize] = CLEARED;
        Ok(self.fast_address(lpn))
    }

    /// Records `lpn` at `ppn`, a free page of an open block.
    pub(super) fn place_page(&mut self, lpn: u64, ppn: u32, now_ns: Ns) {
        let block = self.layout.block_of(ppn);
        self.set_id(ppn, lpn as u32);
        self.set_ppn(lpn, ppn);
        self.valid[block as usize] += 1;
        self.plane_valid[self.layout.plane_of_block(block) as usize] += 1;
        self.last_write_ns[block as usize] = now_ns;
    }

    /// The next page of the plane's random log, merging its oldest log block first when all are full.
    fn random_log_page(&mut self, lb: &mut LogBlocks, plane: u32, now_ns: Ns, gc: &mut GcWork) -> Result<u32> {
        let p = plane as usize;
        if lb.random_next[p] == self.data_pages_per_block {
            if lb.random[p].len() == lb.random_limit {
                let victim = lb.random[p].pop_front().ok_or_else(|| Error::Internal("FAST's random log is empty and full".into()))?;
                self.state[victim as usize] = BlockState::Used;
                gc.add(&self.merge_log_block(lb, plane, victim, now_ns)?);
            }
            if let Some(&full) = lb.random[p].back() {
                self.state[full as usize] = BlockState::Used;
            }
            let block = self.take_free(plane)?;
            lb.random[p].push_back(block);
            lb.random_next[p] = 0;
        }
        let block = *lb.random[p].back().ok_or_else(|| Error::Internal("FAST's random log has no open block".into()))?;
        lb.random_next[p] += 1;
        Ok(block * self.layout.geometry.pages_per_block + lb.random_next[p] - 1)
    }

    /// Full merges of every logical block with a valid page in log block `victim`, then its erase.
    fn merge_log_block(&mut self, lb: &mut LogBlocks, plane: u32, victim: u32, now_ns: Ns) -> Result<GcWork> {
        let mut gc = GcWork::default();
        let first = self.layout.first_page(victim);
        for ppn in first..first + self.data_pages_per_block {
            let lpn = self.id_at(ppn);
            if lpn != NO_PAGE {
                let (lbn, _) = self.fast_address(u64::from(lpn));
                gc.add(&self.full_merge(lb, plane, lbn, now_ns)?);
            }
        }
        self.erase_emptied(plane, victim, &mut gc)?;
        Ok(gc)
    }

    /// Copies logical block `lbn`'s current pages into a new data block;
    /// erases the old data block, and the sequential log block if it was `lbn`'s.
    fn full_merge(&mut self, lb: &mut LogBlocks, plane: u32, lbn: u32, now_ns: Ns) -> Result<GcWork> {
        let mut gc = GcWork::default();
        let new = self.take_free(plane)?;
        self.copy_current_pages(lb, plane, lbn, new, 0..self.data_pages_per_block, now_ns, &mut gc);
        self.state[new as usize] = BlockState::Used;
        let old = std::mem::replace(lb.data_block_mut(plane, lbn), new);
        if old != NO_BLOCK {
            self.erase_emptied(plane, old, &mut gc)?;
        }
        if let Some(s) = lb.sequential[plane as usize].filter(|s| s.lbn == lbn) {
            lb.sequential[plane as usize] = None;
            self.erase_emptied(plane, s.block, &mut gc)?;
        }
        lb.merges.full += 1;
        Ok(gc)
    }

    /// The plane's sequential log block becomes its logical block's data
    /// block: at once when full (switch), after copying the pages it lacks otherwise (partial).
    fn close_sequential(&mut self, lb: &mut LogBlocks, plane: u32, now_ns: Ns) -> Result<GcWork> {
        let mut gc = GcWork::default();
        let s = lb.sequential[plane as usize].take().ok_or_else(|| Error::Internal("FAST closed a sequential log block it did not have".into()))?;
        if s.next < self.data_pages_per_block {
            self.copy_current_pages(lb, plane, s.lbn, s.block, s.next..self.data_pages_per_block, now_ns, &mut gc);
            lb.merges.partial += 1;
        } else {
            lb.merges.switch += 1;
        }
        self.state[s.block as usize] = BlockState::Used;
        let old = std::mem::replace(lb.data_block_mut(plane, s.lbn), s.block);
        if old != NO_BLOCK {
            self.erase_emptied(plane, old, &mut gc)?;
        }
        Ok(gc)
    }

    /// Copies the current copy of each page `offsets` of logical block `lbn`
    /// to the same page of block `to`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn copy_current_pages(
        &mut self,
        lb: &LogBlocks,
        plane: u32,
        lbn: u32,
        to: u32,
        offsets: std::ops::Range<u32>,
        now_ns: Ns,
        gc: &mut GcWork,
    ) {
        let (ppb, planes) = (self.data_pages_per_block, self.layout.planes);
        for offset in offsets {
            let lpn = Self::fast_lpn(lb, plane, lbn, offset, ppb, planes);
            let current = self.ppn_of(lpn);
            if current == NO_PAGE {
                continue;
            }
            self.invalidate(current);
            let ppn = to * self.layout.geometry.pages_per_block + offset;
            self.place_page(lpn, ppn, now_ns);
            gc.pages_copied += 1;
            gc.reads_by_type[self.layout.page_type(current) as usize] += 1;
            gc.programs_by_type[self.layout.page_type(ppn) as usize] += 1;
        }
    }

    /// Erases `block`, which merging left without a valid page, into the plane's free list.
    pub(super) fn erase_emptied(&mut self, plane: u32, block: u32, gc: &mut GcWork) -> Result<()> {
        if self.valid[block as usize] != 0 {
            return Err(Error::Internal(format!("FAST would erase block {block} holding {} valid pages", self.valid[block as usize])));
        }
        self.erase_count[block as usize] += 1;
        self.state[block as usize] = BlockState::Free;
        self.planes[plane as usize].free.push_back(block);
        gc.blocks_erased += 1;
        Ok(())
    }

    /// The plane's longest-free block, opened.
    pub(super) fn take_free(&mut self, plane: u32) -> Result<u32> {
        let block = self.planes[plane as usize].free.pop_front().ok_or_else(|| self.no_free_block(plane))?;
        self.state[block as usize] = BlockState::Open;
        Ok(block)
    }

    /// Forced collection (Harmonia's) under FAST: the plane's full random
    /// log blocks are merged, oldest first, until it has `free_blocks` free.
    pub(super) fn merge_until(&mut self, plane: u32, free_blocks: usize, now_ns: Ns) -> Result<GcWork> {
        let mut lb = self.log_blocks.take().ok_or_else(|| Error::Internal("FAST collection on a drive without log blocks".into()))?;
        let mut gc = GcWork::default();
        let out = loop {
            let p = plane as usize;
            let full = lb.random[p].len() - usize::from(lb.random_next[p] < self.data_pages_per_block);
            if self.planes[p].free.len() >= free_blocks || full == 0 {
                break Ok(gc);
            }
            let Some(victim) = lb.random[p].pop_front() else { break Ok(gc) };
            if lb.random[p].is_empty() {
                lb.random_next[p] = self.data_pages_per_block;
            }
            match self.merge_log_block(&mut lb, plane, victim, now_ns) {
                Ok(w) => gc.add(&w),
                Err(e) => break Err(e),
            }
        };
        self.sync_free_pages(plane);
        self.log_blocks = Some(lb);
        out
    }

    /// After the in-order fill: each plane's filled blocks are its first
    /// logical blocks' data blocks, and no block is open.
    pub(super) fn fast_after_fill(&mut self) {
        let Some(lb) = self.log_blocks.as_mut() else { return };
        let bpp = self.layout.geometry.blocks_per_plane;
        for plane in 0..self.layout.planes {
            // A plane the fill did not reach keeps every block free.
            if self.plane_valid[plane as usize] == 0 {
                continue;
            }
            let p = &mut self.planes[plane as usize];
            let first = plane * bpp;
            for lbn in 0..=p.host().block - first {
                *lb.data_block_mut(plane, lbn) = first + lbn;
                self.state[(first + lbn) as usize] = BlockState::Used;
                // The fill wrote each block's pages from its first, in order.
                let i = lb.index(plane, lbn);
                if let Some(next) = lb.next_in_place.as_mut() {
                    next[i] = u32::from(self.valid[(first + lbn) as usize]);
                }
            }
            p.open[Writer::Host as usize].next_page = self.data_pages_per_block;
        }
        for plane in 0..self.layout.planes {
            self.sync_free_pages(plane);
        }
    }

    /// FAST's promises about the maps: every valid page sits in its logical
    /// block's data block at its own offset, in the plane's sequential log
    /// block at its own offset, or in a random log block. For tests.
    pub(super) fn check_log_blocks(&self) -> std::result::Result<(), String> {
        let Some(lb) = self.log_blocks.as_ref() else { return Ok(()) };
        let ppb = self.layout.geometry.pages_per_block;
        for lpn in 0..self.logical_pages {
            let ppn = self.ppn_of(lpn);
            if ppn == NO_PAGE {
                continue;
            }
            let plane = self.static_plane(lpn);
            let (lbn, offset) = self.fast_address(lpn);
            let (block, at) = (ppn / ppb, ppn % ppb);
            let i = lb.index(plane, lbn);
            let programmed = lb.next_in_place.as_ref().map_or(true, |next| at < next[i]);
            let in_data = lb.data_block[i] == block && at == offset && programmed;
            let in_sequential = lb.sequential[plane as usize].is_some_and(|s| s.lbn == lbn && s.block == block && at == offset && at < s.next);
            let in_random = lb.random[plane as usize].contains(&block);
            if !(in_data || in_sequential || in_random) {
                return Err(format!("page {lpn} (plane {plane}, block {lbn}, offset {offset}) is at {ppn}, in none of its places"));
            }
        }
        Ok(())
    }
}
