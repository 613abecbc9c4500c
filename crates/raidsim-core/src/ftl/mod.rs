//! Page-mapping flash translation layer with per-plane garbage collection.
//!
//! Every logical page maps to any physical page (DFTL's ideal, Gupta et al.
//! 2009; MQSim's and SSDsim's page-level FTL). Writes go out of place: each
//! plane appends to its open block; the old copy becomes invalid. When a
//! plane's free blocks fall below the threshold, garbage collection picks a
//! victim block ([`GcVictim::Greedy`]: fewest valid pages; or
//! [`GcVictim::CostBenefit`]), copies its valid pages inside the plane
//! (copy-back: no channel transfer), and erases it. The caller charges the
//! time to the die (see [`crate::ssd`]). Per-block erase counts are kept as
//! the wear record.
//!
//! Static allocation fixes a logical page's plane by striping consecutive
//! pages across channels, chips, dies and planes in a configurable order
//! (SSDsim's allocation schemes); dynamic allocation lets the SSD pick the
//! least busy die.
//!
//! The maps hold 4 bytes per logical and per physical page, stored one more
//! than their value so that zero means "as the preconditioning fill left
//! it" ([`fill`]): a drive starts in zeroed memory the system has not yet
//! handed over, so setting up a full drive costs a pass over its blocks and
//! a run pays memory only for the pages it rewrites.

use crate::config::{DerivedGeometry, FtlScheme, GcVictim, SsdConfig, WriteFrontiers};
use crate::engine::Ns;
use crate::error::{Error, Result};
use crate::flash::cell::PageType;
use crate::flash::{FlashLayout, NO_PAGE};
use std::collections::VecDeque;

mod block_map;
mod cmt;
mod copies;
mod fill;
mod gc;
mod log_block;
mod slc_cache;
mod static_allocation;
mod trim;
mod wear;
mod write_frontiers;

pub use cmt::{CachedMappingTable, CmtLookup};
pub use copies::ChipLoss;
pub use gc::GcWork;
pub use log_block::MergeCounts;
pub use slc_cache::SlcCounts;

use fill::FillLayout;
use log_block::LogBlocks;
use slc_cache::SlcCache;
use static_allocation::{drive_planes, FlowDomains};
use write_frontiers::{OpenBlock, Plane, Writer};

/// A map entry that holds what the in-order fill left there ([`fill`]);
/// zero, so a fresh map costs no memory until written.
const AS_FILLED: u32 = 0;
/// A map entry that holds nothing.
const CLEARED: u32 = u32::MAX;

/// A page number or mapping id as stored: one more than itself, so that
/// zero can mean [`AS_FILLED`]. (Validation keeps both below `u32::MAX - 1`.)
#[inline]
fn encode(v: u32) -> u32 {
    if v == NO_PAGE {
        CLEARED
    } else {
        v + 1
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockState {
    Free,
    Open,
    Used,
}

/// What one host write did to the flash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteOutcome {
    /// Physical page now holding the data.
    pub ppn: u32,
    /// The write filled its block's data pages, so the block's summary
    /// pages are programmed with it (DiskSim charges them to that write).
    pub sealed_block: bool,
    /// Garbage collection the write triggered.
    pub gc: GcWork,
    /// The SLC cache's folds the write triggered (`when_full = "fold"`).
    pub fold: GcWork,
}

/// The FTL's mapping and block state for one drive.
pub struct Ftl {
    layout: FlashLayout,
    /// Static allocation's plane for each `lpn % static_planes.len()`: the
    /// plane depends only on that residue, and a table lookup spares the
    /// hot path four divisions per page.
    static_planes: Vec<u32>,
    /// Flows whose parts keep to their own chips (none: the drive is one space).
    flow_domains: Option<Box<FlowDomains>>,
    gc_victim: GcVictim,
    /// Blocks a random-greedy collection draws.
    gc_victim_sample: u32,
    /// Random-greedy draws so far: with the plane, what each draw's
    /// sequence of blocks is seeded from, so that runs repeat.
    gc_draws: u64,
    /// The run's seed for random-greedy draws (`sim.seed`, mixed with the member).
    gc_seed: u64,
    gc_threshold_blocks: usize,
    /// Open the least-erased free block, not the longest free.
    dynamic_wear_levelling: bool,
    /// Relocate a plane's least-erased block when its erase counts spread by more.
    static_wear_levelling_threshold: Option<u32>,
    /// Blocks static wear levelling relocated.
    static_wear_levelling_moves: u64,
    /// Data pages per block (pages per block less summary pages).
    data_pages_per_block: u32,
    /// `ssd.ftl.write_frontiers`: which [`Writer`]s have an open block of
    /// their own in each plane.
    write_frontiers: WriteFrontiers,
    summary_pages_per_block: u32,
    /// Logical pages the host addresses; `l2p` holds more when the drive
    /// keeps copies (see [`Ftl::mirror_id`]).
    logical_pages: u64,
    /// The first mapping id of a translation page (DFTL's map on flash,
    /// [`Ftl::translation_id`]): the ids before it are the host's pages
    /// and their copies.
    translation_base: u64,
    /// Physical page of each mapping id, [encoded](encode).
    l2p: Vec<u32>,
    /// Mapping id of each physical page, [encoded](encode).
    p2l: Vec<u32>,
    /// What [`AS_FILLED`] entries stand for (none before a fill).
    fill: Option<FillLayout>,
    valid: Vec<u16>,
    state: Vec<BlockState>,
    erase_count: Vec<u32>,
    last_write_ns: Vec<Ns>,
    planes: Vec<Plane>,
    plane_valid: Vec<u64>,
    /// Per plane, [`Ftl::free_pages`] kept current: `static_die`
    /// allocation compares a die's planes by it on every write.
    free_pages: Vec<u32>,
    /// The block map, with FAST's log blocks (`scheme = "fast"`) or
    /// without (`"block_map"`), which then places every write instead of
    /// the planes' open blocks.
    log_blocks: Option<Box<LogBlocks>>,
    /// The blocks written in SLC mode (`ssd.slc_cache`), if any.
    slc: Option<Box<SlcCache>>,
}

impl Ftl {
    /// An empty (freshly erased) drive.
    pub fn new(ssd: &SsdConfig, d: &DerivedGeometry) -> Self {
        let g = &ssd.geometry;
        let layout = FlashLayout::new(g, d, ssd.slc_cache.blocks_per_plane);
        let bpp = layout.geometry.blocks_per_plane;
        let data_pages_per_block = g.pages_per_block - ssd.ftl.summary_pages_per_block;
        let planes = (0..layout.planes)
            .map(|p| {
                let native = layout.native_blocks(p);
                Plane::new((native.start + 1..native.end).collect(), OpenBlock { block: native.start, next_page: 0 }, data_pages_per_block)
            })
            .collect();
        let mut state = vec![BlockState::Free; d.blocks as usize];
        for p in 0..layout.planes {
            state[(p * bpp) as usize] = BlockState::Open;
        }
        let mut ftl = Self {
            static_planes: drive_planes(&ssd.ftl.static_order, &layout),
            flow_domains: None,
            gc_victim: ssd.ftl.gc_victim,
            gc_victim_sample: ssd.ftl.gc_victim_sample.unwrap_or_else(|| ssd.geometry.blocks_per_plane.max(2).ilog2()),
            gc_draws: 0,
            gc_seed: 0,
            dynamic_wear_levelling: ssd.ftl.dynamic_wear_levelling,
            static_wear_levelling_threshold: ssd.ftl.static_wear_levelling_threshold,
            static_wear_levelling_moves: 0,
            gc_threshold_blocks: d.gc_threshold_blocks as usize,
            data_pages_per_block,
            write_frontiers: ssd.ftl.write_frontiers,
            summary_pages_per_block: ssd.ftl.summary_pages_per_block,
            logical_pages: d.logical_pages,
            // Zeroed memory comes from the system untouched: a drive costs
            // memory only for the pages a run writes.
            translation_base: d.logical_pages * copy_spaces(g.mirroring_chips_per_channel),
            l2p: vec![
                AS_FILLED;
                (d.logical_pages * copy_spaces(g.mirroring_chips_per_channel) + d.mapping_cache.translation_pages(d.logical_pages)) as usize
            ],
            p2l: vec![AS_FILLED; d.physical_pages as usize],
            fill: None,
            valid: vec![0; d.blocks as usize],
            state,
            erase_count: vec![0; d.blocks as usize],
            last_write_ns: vec![0; d.blocks as usize],
            planes,
            plane_valid: vec![0; layout.planes as usize],
            free_pages: vec![0; layout.planes as usize],
            log_blocks: None,
            slc: SlcCache::new(ssd, &layout),
            layout,
        };
        let block_mapped = match ssd.ftl.scheme {
            FtlScheme::Fast => Some(ssd.ftl.log_blocks_per_plane),
            FtlScheme::BlockMap => Some(None),
            FtlScheme::PageMap | FtlScheme::Dftl => None,
        };
        if let Some(logs) = block_mapped {
            ftl.log_blocks = Some(Box::new(LogBlocks::new(&ftl.static_planes, ftl.logical_pages, ftl.data_pages_per_block, logs)));
            // No block is open: FAST opens log blocks as writes need them.
            for p in 0..ftl.layout.planes {
                let first = p * bpp;
                let none_left = OpenBlock { block: first, next_page: ftl.data_pages_per_block };
                ftl.planes[p as usize] = Plane::new((first..first + bpp).collect(), none_left, ftl.data_pages_per_block);
                ftl.state[first as usize] = BlockState::Free;
            }
        }
        for plane in 0..ftl.layout.planes {
            ftl.sync_free_pages(plane);
        }
        ftl
    }

    /// Seeds random-greedy victim draws: runs with other seeds draw other victims.
    pub fn seed_gc_draws(&mut self, seed: u64) {
        // Spread apart, so that seed s + 1 does not replay seed s one draw later.
        self.gc_seed = seed.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    }

    /// Recounts [`Ftl::free_pages`] of `plane` after its free list or open block changed.
    #[inline]
    fn sync_free_pages(&mut self, plane: u32) {
        // At most the plane's pages, which validation keeps within u32.
        self.free_pages[plane as usize] = self.planes[plane as usize].free_pages(self.data_pages_per_block) as u32;
    }

    /// Pages each plane can still take before collecting ([`Ftl::free_pages`]), by plane.
    pub fn free_pages_by_plane(&self) -> &[u32] {
        &self.free_pages
    }

    /// The flash layout.
    pub fn layout(&self) -> &FlashLayout {
        &self.layout
    }

    /// Logical pages the host can address.
    pub fn logical_pages(&self) -> u64 {
        self.logical_pages
    }

    /// The physical page of mapping id `id` (`NO_PAGE` for none).
    #[inline]
    fn ppn_of(&self, id: u64) -> u32 {
        match self.l2p[id as usize] {
            AS_FILLED => self.fill.as_ref().and_then(|f| f.ppn(id)).unwrap_or(NO_PAGE),
            CLEARED => NO_PAGE,
            v => v - 1,
        }
    }

    #[inline]
    fn set_ppn(&mut self, id: u64, ppn: u32) {
        self.l2p[id as usize] = encode(ppn);
    }

    /// The mapping id held by physical page `ppn` (`NO_PAGE` for none).
    #[inline]
    fn id_at(&self, ppn: u32) -> u32 {
        match self.p2l[ppn as usize] {
            AS_FILLED => self.fill.as_ref().and_then(|f| f.lpn(ppn)).map_or(NO_PAGE, |l| l as u32),
            CLEARED => NO_PAGE,
            v => v - 1,
        }
    }

    #[inline]
    fn set_id(&mut self, ppn: u32, id: u32) {
        self.p2l[ppn as usize] = encode(id);
    }

    /// The mapping id of translation page `mvpn` (DFTL's map on flash):
    /// stored like any page, so garbage collection moves it too.
    pub fn translation_id(&self, mvpn: u64) -> u64 {
        self.translation_base + mvpn
    }

    /// The physical page of host page or copy `id`, or `None` when the
    /// drive keeps no such mapping space. The translation pages after the
    /// copies are no copy of anything, whatever their ids.
    fn slot(&self, id: u64) -> Option<u32> {
        (id < self.translation_base).then(|| self.ppn_of(id))
    }

    /// Physical page holding `lpn`, if written.
    #[inline]
    pub fn lookup(&self, lpn: u64) -> Option<u32> {
        let ppn = self.ppn_of(lpn);
        (ppn != NO_PAGE).then_some(ppn)
    }

    /// Checks that physical page `ppn`, which mapping id `id` maps to,
    /// maps back to it (both entries as the fill left them, or both
    /// written) in a block holding valid data: an internal error if not.
    /// Every rewrite checks the page it replaces, whose entries it is
    /// about to update and so has in cache.
    #[inline]
    fn check_maps_agree(&self, id: u64, ppn: u32) -> Result<()> {
        let back = self.p2l[ppn as usize];
        let agree = if self.l2p[id as usize] == AS_FILLED { back == AS_FILLED } else { back == encode(id as u32) };
        if !agree || self.valid[self.layout.block_of(ppn) as usize] == 0 {
            return Err(self.maps_disagree(id, ppn));
        }
        Ok(())
    }

    #[cold]
    fn maps_disagree(&self, id: u64, ppn: u32) -> Error {
        Error::Internal(format!(
            "the FTL's maps disagree: mapping id {id} points to physical page {ppn}, which maps back to {} in a block of {} valid pages",
            self.id_at(ppn),
            self.valid[self.layout.block_of(ppn) as usize]
        ))
    }

    /// The physical page a read of `lpn` goes to, if written. It also
    /// prefetches the reverse-map entry and block count that a rewrite of
    /// the page updates: read-modify-write rewrites the very pages it
    /// pre-read, and finds them in cache (see `prefetch.rs`).
    #[inline]
    pub fn read_lookup(&self, lpn: u64) -> Option<u32> {
        let ppn = self.lookup(lpn)?;
        crate::prefetch::prefetch(&self.p2l, ppn as usize);
        crate::prefetch::prefetch(&self.valid, self.layout.block_of(ppn) as usize);
        Some(ppn)
    }

    /// Prefetches `lpn`'s map entry, ahead of a request that will look it up.
    #[inline]
    pub fn prefetch_map(&self, lpn: u64) {
        crate::prefetch::prefetch(&self.l2p, lpn as usize);
    }

    /// The plane static allocation assigns to `lpn`.
    #[inline]
    pub fn static_plane(&self, lpn: u64) -> u32 {
        if let Some(plane) = self.flow_domains.as_ref().and_then(|d| d.plane(lpn)) {
            return plane;
        }
        self.static_planes[(lpn % self.static_planes.len() as u64) as usize]
    }

    /// Keeps each of `parts` that names its chips on those chips' planes
    /// (static allocation, in `order`); before any write.
    pub fn place_flows(&mut self, order: &str, parts: &[crate::config::DrivePart]) {
        self.flow_domains = FlowDomains::new(order, &self.layout, parts).map(Box::new);
    }

    /// True when a plane holds so much valid data that garbage collection
    /// could run out of victims (dynamic allocation skips it).
    pub fn plane_is_full(&self, plane: u32) -> bool {
        // Collecting needs a block to copy into and a victim holding an
        // invalid page: two blocks' worth of pages that are not valid data.
        // (Validation guarantees three spare blocks, so a full drive spread
        // evenly leaves no plane full.)
        let usable = u64::from(self.layout.native_blocks_per_plane) - 2;
        self.plane_valid[plane as usize] >= usable * u64::from(self.data_pages_per_block)
    }

    /// Valid pages on the data chips (host pages and CR5M's old copies).
    pub fn data_valid_pages(&self) -> u64 {
        let l = &self.layout;
        (0..l.planes).filter(|&p| !l.is_mirroring_die(l.die_of_plane(p))).map(|p| self.plane_valid[p as usize]).sum()
    }

    /// Free blocks of a plane.
    pub fn free_blocks(&self, plane: u32) -> usize {
        self.planes[plane as usize].free.len()
    }

    /// Pages a plane can still take before collecting: its free blocks and
    /// what is left of its open block.
    pub fn free_pages(&self, plane: u32) -> u64 {
        u64::from(self.free_pages[plane as usize])
    }

    /// Summary pages at the end of each block.
    pub fn summary_pages_per_block(&self) -> u32 {
        self.summary_pages_per_block
    }

    /// Writes `lpn` into `plane` at `now_ns`, then collects the plane while
    /// its free blocks are below the threshold.
    pub fn write(&mut self, lpn: u64, plane: u32, now_ns: Ns) -> Result<WriteOutcome> {
        if self.log_blocks.is_some() {
            return self.write_by_block_map(lpn, plane, now_ns);
        }
        let old = self.ppn_of(lpn);
        if old != NO_PAGE {
            self.check_maps_agree(lpn, old)?;
            self.invalidate(old);
        }
        let (ppn, sealed_block) = self.append(plane, lpn as u32, self.writer_of(lpn, Writer::Host), now_ns)?;
        self.set_ppn(lpn, ppn);
        let gc = self.collect_until(plane, self.gc_threshold_blocks, now_ns)?;
        Ok(WriteOutcome { ppn, sealed_block: sealed_block && self.summary_pages_per_block > 0, gc, fold: GcWork::default() })
    }

    /// The in-order fill of logical pages `0..filled` on a fresh drive,
    /// as writing them one by one would leave it (see [`fill`]), at the
    /// cost of setting each plane's blocks. Under `static_die`
    /// (`planes_per_die_in_turn`) a die's planes take its pages in turn;
    /// otherwise each page goes to its static plane. A drive already
    /// written, or a striping order that is not a permutation (validation
    /// refuses one), is an internal error: the closed forms would not hold.
    pub fn fill_in_order(&mut self, filled: u64, planes_per_die_in_turn: bool) -> Result<()> {
        let fresh = self.fill.is_none() && self.plane_valid.iter().all(|&v| v == 0) && self.erase_count.iter().all(|&e| e == 0);
        if !fresh {
            return Err(Error::Internal("the precondition fill was asked of a drive already written".into()));
        }
        let l = self.layout.clone();
        let ppg = if planes_per_die_in_turn { l.geometry.planes_per_die } else { 1 };
        let geometry = (l.geometry.blocks_per_plane, l.geometry.pages_per_block, self.data_pages_per_block);
        let layout = FillLayout::new(&self.static_planes, ppg, l.planes, geometry, filled.min(self.logical_pages));
        if !layout.is_regular() {
            return Err(Error::Internal("the static striping order gives planes unequal shares: not a permutation".into()));
        }
        let per_block = u64::from(self.data_pages_per_block);
        for plane in 0..l.planes {
            let pages = layout.pages_in_plane(plane);
            if pages == 0 {
                continue;
            }
            if pages > u64::from(l.native_blocks_per_plane) * per_block {
                return Err(self.no_free_block(plane));
            }
            // Blocks fill in order from the plane's first; the last one
            // written stays open, full or not, until the next write.
            let first = plane * l.geometry.blocks_per_plane;
            let open = first + ((pages - 1) / per_block) as u32;
            for b in first..open {
                (self.state[b as usize], self.valid[b as usize]) = (BlockState::Used, self.data_pages_per_block as u16);
            }
            let next_page = (pages - (pages - 1) / per_block * per_block) as u32;
            (self.state[open as usize], self.valid[open as usize]) = (BlockState::Open, next_page as u16);
            let host = OpenBlock { block: open, next_page };
            self.planes[plane as usize] = Plane::new((open + 1..l.native_blocks(plane).end).collect(), host, self.data_pages_per_block);
            self.plane_valid[plane as usize] = pages;
            self.sync_free_pages(plane);
        }
        self.fill = Some(layout);
        self.fast_after_fill();
        Ok(())
    }

    /// Under `static_die`, each of the `dies` dies' turn after the fill:
    /// the next of its planes to take a page.
    pub fn turns_after_fill(&self, dies: u32) -> Vec<u32> {
        let ppd = self.layout.geometry.planes_per_die;
        let pages = |die: u32| self.fill.as_ref().map_or(0, |f| (0..ppd).map(|i| f.pages_in_plane(die * ppd + i)).sum::<u64>());
        (0..dies).map(|d| (pages(d) % u64::from(ppd)) as u32).collect()
    }

    /// The error of a write to a plane with no free block.
    fn no_free_block(&self, plane: u32) -> Error {
        let copies = if self.translation_base > self.logical_pages {
            "; CR5M keeps the old copy of each mirrored page until its stripe's parity is rewritten, and those need room too"
        } else {
            ""
        };
        Error::Device(format!("plane {plane} has no free block left (over-provisioning too small for this workload{copies})"))
    }

    fn invalidate(&mut self, ppn: u32) {
        self.set_id(ppn, NO_PAGE);
        let block = self.layout.block_of(ppn);
        self.valid[block as usize] -= 1;
        self.plane_valid[self.layout.plane_of_block(block) as usize] -= 1;
    }

    /// Erase count of every block (the wear record).
    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_count
    }

    /// Both maps as plain tables (`NO_PAGE` for none), whatever their
    /// stored form: what a drive's state means, for comparisons in tests.
    pub fn decoded_maps(&self) -> (Vec<u32>, Vec<u32>) {
        let l2p = (0..self.l2p.len() as u64).map(|id| self.ppn_of(id)).collect();
        let p2l = (0..self.p2l.len() as u32).map(|ppn| self.id_at(ppn)).collect();
        (l2p, p2l)
    }

    /// The drive's state as it would be had every write been stored (the
    /// maps decoded): equal for two drives that would behave alike.
    #[cfg(test)]
    pub(crate) fn same_state_as(&self, other: &Ftl) -> std::result::Result<(), String> {
        let differs = |what: &str| Err(format!("{what} differ"));
        if self.decoded_maps() != other.decoded_maps() {
            return differs("the maps");
        }
        if self.valid != other.valid || self.state != other.state || self.plane_valid != other.plane_valid || self.free_pages != other.free_pages {
            return differs("block valid counts or states");
        }
        if self.planes != other.planes {
            return differs("planes' open blocks or free lists");
        }
        if self.erase_count != other.erase_count || self.last_write_ns != other.last_write_ns {
            return differs("erase counts or last writes");
        }
        if self.log_blocks != other.log_blocks {
            return differs("the block maps or log blocks");
        }
        if self.slc != other.slc {
            return differs("the SLC caches");
        }
        Ok(())
    }

    /// Checks that the forward and reverse maps agree and that every
    /// block's valid count equals its mapped pages. For tests.
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        let mut valid = vec![0u16; self.valid.len()];
        let (l2p, p2l) = self.decoded_maps();
        for (lpn, &ppn) in l2p.iter().enumerate() {
            if ppn == NO_PAGE {
                continue;
            }
            if p2l[ppn as usize] != lpn as u32 {
                return Err(format!("lpn {lpn} -> ppn {ppn} but ppn maps back to {}", p2l[ppn as usize]));
            }
            valid[self.layout.block_of(ppn) as usize] += 1;
        }
        let mapped_back = p2l.iter().filter(|&&l| l != NO_PAGE).count();
        let mapped = l2p.iter().filter(|&&p| p != NO_PAGE).count();
        if mapped_back != mapped {
            return Err(format!("{mapped_back} physical pages claim a logical page, {mapped} logical pages are mapped"));
        }
        if let Some(b) = (0..valid.len()).find(|&b| valid[b] != self.valid[b]) {
            return Err(format!("block {b}: valid count {} but {} pages map to it", self.valid[b], valid[b]));
        }
        for (plane, p) in self.planes.iter().enumerate() {
            let counted = p.free_pages(self.data_pages_per_block);
            if counted != u64::from(self.free_pages[plane]) {
                return Err(format!("plane {plane}: {counted} free pages but {} kept", self.free_pages[plane]));
            }
        }
        for (b, s) in self.state.iter().enumerate() {
            if *s == BlockState::Free && self.valid[b] != 0 {
                return Err(format!("free block {b} holds {} valid pages", self.valid[b]));
            }
        }
        self.check_log_blocks()
    }
}

/// Mapping spaces: the host's pages, and with mirroring chips their mirror
/// copies and their old parity-consistent copies.
fn copy_spaces(mirroring_chips_per_channel: u32) -> u64 {
    if mirroring_chips_per_channel > 0 {
        3
    } else {
        1
    }
}

#[cfg(test)]
mod block_map_tests;
#[cfg(test)]
mod log_block_tests;
#[cfg(test)]
mod tests;
