//! Where a plane's next page goes: its open blocks, the "write frontiers".
//!
//! A page-mapped FTL fills a plane's free blocks one at a time, each from
//! its first page to its last. DiskSim and SSDsim keep one open block per
//! plane for every page written: the host's, collection's copies of valid
//! pages, and (with a cached map, DFTL) translation pages. MQSim keeps one
//! per source (`Flash_Block_Manager`: `Data_wf`, `GC_wf`,
//! `Translation_wf`; Tavakkol et al., FAST'18): `ssd.ftl.write_frontiers =
//! "by_source"`. DFTL itself keeps its translation pages in translation
//! blocks apart from its data blocks (Gupta et al., ASPLOS 2009):
//! `"translation_apart"`, where host data and copies share the other.
//!
//! Two things follow. The host's pages of a die's planes keep to the same
//! page offsets when translation pages are written in between, which is
//! when MQSim can program two planes in one multi-plane command
//! (`ssd.multi_plane_programs`). And with copies apart, collection's cold
//! copies no longer mix with new host data in one block; but a collection
//! that fills its own block opens another, which can start the next
//! collection at once, and raidsim books each collection whole on its
//! unit where MQSim interleaves its copies with the host's operations.
//!
//! A frontier takes a free block when it first needs one, so a drive with
//! separate frontiers holds up to three blocks open per plane.

use super::{BlockState, Ftl};
use crate::config::WriteFrontiers;
use crate::engine::Ns;
use crate::error::Result;
use std::collections::VecDeque;

/// The block a frontier has not opened yet.
const NO_BLOCK: u32 = u32::MAX;

/// Who writes a page: which frontier takes it when each source has its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Writer {
    Host = 0,
    Collection = 1,
    Translation = 2,
}

/// An open block, and its next page to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct OpenBlock {
    pub(super) block: u32,
    pub(super) next_page: u32,
}

/// A plane's free blocks, and its open blocks by [`Writer`] (only the
/// host's when the frontier is shared).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Plane {
    pub(super) free: VecDeque<u32>,
    pub(super) open: [OpenBlock; 3],
}

impl Plane {
    /// A plane with `free` blocks whose host frontier is `host`; the other
    /// frontiers open a block when first written (a block of
    /// `data_pages_per_block` pages, none of it left).
    pub(super) fn new(free: VecDeque<u32>, host: OpenBlock, data_pages_per_block: u32) -> Self {
        let unopened = OpenBlock { block: NO_BLOCK, next_page: data_pages_per_block };
        Self { free, open: [host, unopened, unopened] }
    }

    /// The host's open block.
    pub(super) fn host(&self) -> OpenBlock {
        self.open[Writer::Host as usize]
    }

    /// Pages the host's writes can take before the plane collects: its free
    /// blocks and what is left of the host's open block (not what is left of
    /// collection's or the map's, which the host cannot use: counted, they
    /// would draw `static_die`'s writes to planes that have no room for them).
    pub(super) fn free_pages(&self, data_pages_per_block: u32) -> u64 {
        let host_left = u64::from(data_pages_per_block - self.host().next_page);
        self.free.len() as u64 * u64::from(data_pages_per_block) + host_left
    }
}

impl Ftl {
    /// The frontier that takes `writer`'s pages.
    #[inline]
    fn frontier(&self, writer: Writer) -> usize {
        match (self.write_frontiers, writer) {
            (WriteFrontiers::BySource, _) | (WriteFrontiers::TranslationApart, Writer::Translation) => writer as usize,
            _ => Writer::Host as usize,
        }
    }

    /// Who writes mapping id `id` for `writer`: a translation page has its
    /// own frontier whoever writes it (MQSim moves them to it too).
    #[inline]
    pub(super) fn writer_of(&self, id: u64, writer: Writer) -> Writer {
        if id >= self.translation_base {
            Writer::Translation
        } else {
            writer
        }
    }

    /// Appends one page holding `id` to the plane's open block for
    /// `writer`; true when it was the block's last data page.
    pub(super) fn append(&mut self, plane: u32, id: u32, writer: Writer, now_ns: Ns) -> Result<(u32, bool)> {
        let ppb = self.layout.geometry.pages_per_block;
        let f = self.frontier(writer);
        let p = &mut self.planes[plane as usize];
        if p.open[f].next_page == self.data_pages_per_block {
            let Some(next) = super::wear::take_free_block(&mut p.free, &self.erase_count, self.dynamic_wear_levelling) else {
                return Err(self.no_free_block(plane));
            };
            if p.open[f].block != NO_BLOCK {
                self.state[p.open[f].block as usize] = BlockState::Used;
            }
            self.state[next as usize] = BlockState::Open;
            p.open[f] = OpenBlock { block: next, next_page: 0 };
        }
        let block = p.open[f].block;
        let ppn = block * ppb + p.open[f].next_page;
        p.open[f].next_page += 1;
        let sealed = p.open[f].next_page == self.data_pages_per_block;
        self.set_id(ppn, id);
        self.valid[block as usize] += 1;
        self.plane_valid[plane as usize] += 1;
        self.last_write_ns[block as usize] = now_ns;
        self.sync_free_pages(plane);
        Ok((ppn, sealed))
    }
}
