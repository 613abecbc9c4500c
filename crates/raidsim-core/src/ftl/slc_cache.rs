//! The SLC cache inside the page map (`ssd.slc_cache`, see
//! `config::slc_cache` for why drives have one).
//!
//! Each plane keeps its last `blocks_per_plane` blocks in SLC mode, each
//! holding `pages_per_block / bits per cell` pages. A write from outside
//! the drive goes to the plane's open cache block while the plane has
//! room there; the drive's own writes (collection's copies, translation
//! pages) go to the dense cells as before. A cache block that fills joins
//! the plane's written blocks, oldest first. Folding a block copies its
//! valid pages into the plane's dense open block, as collection copies a
//! victim's (a read in SLC mode, a program of the dense page's type, in
//! the plane: copy-back), and erases it back into the cache's free blocks.
//! A page rewritten while in the cache is never folded, which is how a
//! cache lowers write amplification as well as write time.
//!
//! When folding happens is the drive's policy. With `when_full = "fold"`,
//! once a plane has opened its last free cache block, each write into it
//! folds a share of the oldest full block, just enough that the block is
//! folded and erased by the time the open one fills (the valid pages left
//! in the oldest over the pages left in the open block, rounded up), as
//! firmware interleaves folding with the writes that need the room; so a
//! write never waits for a whole block's fold. A die also folds while it
//! idles (`idle_fold_after_ns`, asked by `ssd::slc_cache`), a page at a
//! time.
//! Garbage collection never picks a cache block, and wear levelling moves
//! dense blocks only.

use super::*;
use crate::config::{SlcCacheConfig, SlcWhenFull, SsdConfig};

/// What the cache did since its counts last restarted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlcCounts {
    /// Pages written into the cache.
    pub pages_cached: u64,
    /// Pages written to the dense cells because the plane's cache was full.
    pub pages_bypassed: u64,
    /// Cache blocks folded (and erased).
    pub blocks_folded: u64,
    /// Valid pages those folds moved into the dense cells.
    pub pages_folded: u64,
    /// Of the blocks folded, those folded while their die idled.
    pub blocks_folded_idle: u64,
}

#[derive(Clone, Debug, PartialEq)]
struct SlcPlane {
    free: VecDeque<u32>,
    /// The block taking writes, and its next page.
    open: Option<(u32, u32)>,
    /// Full cache blocks, the longest written first: the next to fold.
    written: VecDeque<u32>,
    /// The page of the oldest full block its fold goes on from.
    fold_cursor: u32,
}

/// Every plane's cache blocks.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct SlcCache {
    pages_per_block: u32,
    when_full: SlcWhenFull,
    planes: Vec<SlcPlane>,
    counts: SlcCounts,
}

impl SlcCache {
    /// Empty caches of `layout`'s SLC blocks, or none without a cache.
    pub(super) fn new(ssd: &SsdConfig, layout: &FlashLayout) -> Option<Box<Self>> {
        if !ssd.slc_cache.enabled() {
            return None;
        }
        let planes = (0..layout.planes)
            .map(|p| SlcPlane { free: layout.slc_blocks(p).collect(), open: None, written: VecDeque::new(), fold_cursor: 0 })
            .collect();
        let pages_per_block = SlcCacheConfig::pages_per_block(ssd);
        Some(Box::new(Self { pages_per_block, when_full: ssd.slc_cache.when_full, planes, counts: SlcCounts::default() }))
    }

    fn has_room(&self, plane: u32) -> bool {
        let p = &self.planes[plane as usize];
        p.open.is_some() || !p.free.is_empty()
    }
}

impl Ftl {
    /// Writes `id` for the host (or an array above the drive) into `plane`
    /// at `now_ns`: through the SLC cache when the drive has one with room,
    /// else as [`Ftl::write`] does. Folds and collects as the policy says.
    pub fn write_from_host(&mut self, id: u64, plane: u32, now_ns: Ns) -> Result<WriteOutcome> {
        let Some(slc) = self.slc.as_deref() else { return self.write(id, plane, now_ns) };
        if !slc.has_room(plane) {
            if slc.when_full == SlcWhenFull::Fold {
                return Err(Error::Internal(format!("plane {plane}'s SLC cache is full, though it folds as it fills")));
            }
            self.slc_mut().counts.pages_bypassed += 1;
            return self.write(id, plane, now_ns);
        }
        let old = self.ppn_of(id);
        if old != NO_PAGE {
            self.check_maps_agree(id, old)?;
            self.invalidate(old);
        }
        let ppn = self.append_slc(plane, id as u32, now_ns)?;
        self.set_ppn(id, ppn);
        let slc = self.slc_mut();
        let p = &slc.planes[plane as usize];
        let fold = if slc.when_full == SlcWhenFull::Fold && p.free.is_empty() {
            let open_left = p.open.map_or(0, |(_, next)| slc.pages_per_block - next);
            self.fold_share(plane, open_left, now_ns)?
        } else {
            GcWork::default()
        };
        let gc = self.collect_until(plane, self.gc_threshold_blocks, now_ns)?;
        Ok(WriteOutcome { ppn, sealed_block: false, gc, fold })
    }

    fn slc_mut(&mut self) -> &mut SlcCache {
        self.slc.as_deref_mut().expect("only called with a cache")
    }

    /// Appends one page holding `id` to `plane`'s open cache block.
    fn append_slc(&mut self, plane: u32, id: u32, now_ns: Ns) -> Result<u32> {
        let dynamic = self.dynamic_wear_levelling;
        let slc = self.slc.as_deref_mut().expect("only called with a cache");
        let p = &mut slc.planes[plane as usize];
        let (block, page) = match p.open {
            Some(open) => open,
            None => {
                let Some(next) = wear::take_free_block(&mut p.free, &self.erase_count, dynamic) else {
                    return Err(Error::Internal(format!("plane {plane}'s SLC cache has no free block")));
                };
                self.state[next as usize] = BlockState::Open;
                (next, 0)
            }
        };
        if page + 1 == slc.pages_per_block {
            p.open = None;
            p.written.push_back(block);
            self.state[block as usize] = BlockState::Used;
        } else {
            p.open = Some((block, page + 1));
        }
        slc.counts.pages_cached += 1;
        let ppn = self.layout.first_page(block) + page;
        self.set_id(ppn, id);
        self.valid[block as usize] += 1;
        self.plane_valid[plane as usize] += 1;
        self.last_write_ns[block as usize] = now_ns;
        Ok(ppn)
    }

    /// A write's share of folding `plane`'s oldest full block, when `open_left`
    /// pages are left in the open one: its valid pages over those, rounded
    /// up (all of them when none are left).
    fn fold_share(&mut self, plane: u32, open_left: u32, now_ns: Ns) -> Result<GcWork> {
        let Some(&victim) = self.slc_mut().planes[plane as usize].written.front() else { return Ok(GcWork::default()) };
        let valid = u64::from(self.valid[victim as usize]);
        let share = if open_left == 0 { valid } else { valid.div_ceil(u64::from(open_left)) };
        self.fold_pages(plane, share, now_ns)
    }

    /// Moves up to `share` valid pages of `plane`'s oldest full cache block
    /// into the plane's dense open block, from where its fold stopped, and
    /// erases the block into the cache's free blocks once it holds none.
    fn fold_pages(&mut self, plane: u32, share: u64, now_ns: Ns) -> Result<GcWork> {
        let slc = self.slc.as_deref().expect("only called with a cache");
        let (p, pages) = (&slc.planes[plane as usize], slc.pages_per_block);
        let Some(&victim) = p.written.front() else { return Ok(GcWork::default()) };
        let from = p.fold_cursor;
        let (mut work, cursor) = self.move_valid_pages(plane, victim, from..pages, share, now_ns)?;
        work.pages_folded = work.pages_copied;
        let done = self.valid[victim as usize] == 0;
        if done {
            (work.blocks_erased, work.blocks_folded) = (1, 1);
            self.erase_count[victim as usize] += 1;
            self.state[victim as usize] = BlockState::Free;
        }
        let slc = self.slc_mut();
        let p = &mut slc.planes[plane as usize];
        p.fold_cursor = if done { 0 } else { cursor };
        if done {
            p.written.pop_front();
            p.free.push_back(victim);
            slc.counts.blocks_folded += 1;
        }
        slc.counts.pages_folded += work.pages_folded;
        Ok(work)
    }

    /// Folds one page of the oldest full cache block among `planes` (the
    /// planes of one idle die; the one with the most full blocks, the first
    /// on a tie), erasing the block if that was its last valid page, then
    /// collects that plane as a write would: `None` when no plane of them
    /// has a full cache block. A page at a time, so that a request arriving
    /// meanwhile waits for one page's fold, not a block's.
    pub fn fold_idle(&mut self, planes: std::ops::Range<u32>, now_ns: Ns) -> Result<Option<GcWork>> {
        let Some(slc) = self.slc.as_deref() else { return Ok(None) };
        let fullest = planes
            .filter(|&p| !slc.planes[p as usize].written.is_empty())
            .max_by_key(|&p| (slc.planes[p as usize].written.len(), std::cmp::Reverse(p)));
        let Some(plane) = fullest else { return Ok(None) };
        let mut gc = self.fold_pages(plane, 1, now_ns)?;
        self.slc_mut().counts.blocks_folded_idle += gc.blocks_folded;
        gc.add(&self.collect_until(plane, self.gc_threshold_blocks, now_ns)?);
        Ok(Some(gc))
    }

    /// What the SLC cache did, if the drive has one.
    pub fn slc_counts(&self) -> Option<SlcCounts> {
        self.slc.as_deref().map(|s| s.counts)
    }

    /// Valid pages the SLC cache holds now, if the drive has one.
    pub fn slc_pages_held(&self) -> Option<u64> {
        let slc = self.slc.as_deref()?;
        let blocks = slc.planes.iter().flat_map(|p| p.written.iter().copied().chain(p.open.map(|(b, _)| b)));
        Some(blocks.map(|b| u64::from(self.valid[b as usize])).sum())
    }

    pub(super) fn reset_slc_counts(&mut self) {
        if let Some(slc) = self.slc.as_deref_mut() {
            slc.counts = SlcCounts::default();
        }
    }
}
