//! A block-mapped FTL (`ssd.ftl.scheme = "block_map"`), the oldest
//! kind (SmartMedia's, and the baseline of Kim et al., "A space-efficient
//! flash translation layer for CompactFlash systems", IEEE TCE 2002, whose
//! log blocks FAST generalised).
//!
//! Page `k` of logical block `b` lives at page `k` of `b`'s data block, and
//! there is nowhere else to put it. Pages are programmed in order, so a
//! write goes in place while every page of the data block from its offset
//! on is still erased; otherwise the block is rewritten: a free block takes
//! the logical block's current pages and the new one, each at its offset,
//! and the old block is erased (counted as a full merge). A small random
//! rewrite so costs up to a block of copies and an erase, which is why the
//! first flash cards wrote so slowly anywhere but in order.
//!
//! It shares FAST's tables ([`super::log_block`]) with no log blocks: a
//! plane's logical blocks are its share of static allocation's striping.
//! As with collection and FAST's merges, a write is acknowledged after its
//! own program, and the copies and erase of its block rewrite are booked
//! on the die after it: in time, the new block's pages below the write are
//! programmed after it.

use super::log_block::{LogBlocks, NO_BLOCK};
use super::*;

impl Ftl {
    /// Writes `lpn` in place, or rewrites its logical block into a free block.
    pub(super) fn write_block_mapped(&mut self, lb: &mut LogBlocks, lpn: u64, plane: u32, now_ns: Ns) -> Result<WriteOutcome> {
        let (lbn, offset) = self.unmap_for_rewrite(lpn, plane)?;
        let i = lb.index(plane, lbn);
        let next = lb.next_in_place.as_ref().map(|n| n[i]).ok_or_else(|| Error::Internal("a block-mapped write under FAST".into()))?;
        let ppb = self.layout.geometry.pages_per_block;
        let data = *lb.data_block_mut(plane, lbn);
        let mut gc = GcWork::default();
        let (block, next) = if data != NO_BLOCK && offset >= next {
            self.place_page(lpn, data * ppb + offset, now_ns);
            (data, offset + 1)
        } else {
            let new = self.take_free(plane)?;
            self.copy_current_pages(lb, plane, lbn, new, 0..offset, now_ns, &mut gc);
            self.place_page(lpn, new * ppb + offset, now_ns);
            self.copy_current_pages(lb, plane, lbn, new, offset + 1..self.data_pages_per_block, now_ns, &mut gc);
            if data != NO_BLOCK {
                self.erase_emptied(plane, data, &mut gc)?;
                lb.merges.full += 1;
            }
            // Every page the new block holds was programmed just now, in order.
            let last = (offset..self.data_pages_per_block).rev().find(|&k| self.id_at(new * ppb + k) != NO_PAGE).unwrap_or(offset);
            (new, last + 1)
        };
        *lb.data_block_mut(plane, lbn) = block;
        if let Some(n) = lb.next_in_place.as_mut() {
            n[i] = next;
        }
        self.state[block as usize] = BlockState::Used;
        self.sync_free_pages(plane);
        Ok(WriteOutcome { ppn: block * ppb + offset, sealed_block: false, gc, fold: GcWork::default() })
    }
}
