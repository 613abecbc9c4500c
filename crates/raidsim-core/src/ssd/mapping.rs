//! Translating a logical page with a cached map (`ssd.ftl.scheme =
//! "dftl"`, [`crate::ftl::CachedMappingTable`]): the flash work a lookup
//! asks for, on the units and channels that hold the translation pages.
//!
//! A miss reads one sector of the entry's translation page (MQSim reads
//! that much) before the host's page can be found: the host's operation
//! waits for it, and so do other misses on that page while it is read,
//! and lookups of the entry until it is known. A write-back reads the
//! translation page and programs it anew elsewhere, as any page is
//! rewritten, booked after the operation whose lookup caused it, which
//! does not wait for it; it takes its units and channel like any
//! operation, and may make its plane collect. The whole map is on flash
//! from the start; a translation page lost with its chip holds nothing to
//! read until written back.

use super::*;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

impl Ssd {
    /// Fills the cached map with clean entries of pages drawn at random
    /// among those holding data, in random order, as MQSim's
    /// preconditioning does for a uniform flow (`ssd.ftl.cmt_starts_warm`);
    /// nothing without it. Two passes over the map: one counts, one draws
    /// (selection sampling, each page kept with the chance still needed).
    /// The draw has its own stream, from the drive's seed, so warming one
    /// drive ages no other differently.
    pub fn warm_mapping_cache(&mut self) -> Result<()> {
        if self.cmt.is_none() || !self.cmt_starts_warm {
            return Ok(());
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(self.cmt_warm_seed);
        let pages = 0..self.ftl.logical_pages();
        let mut left = 0u64;
        for lpn in pages.clone() {
            self.poll_stop(lpn)?;
            left += u64::from(self.ftl.lookup(lpn).is_some());
        }
        let capacity = self.cmt.as_ref().map_or(0, CachedMappingTable::capacity);
        let mut needed = capacity.min(left);
        let mut drawn = Vec::with_capacity(needed as usize);
        for lpn in pages {
            if needed == 0 {
                break;
            }
            self.poll_stop(lpn)?;
            if self.ftl.lookup(lpn).is_none() {
                continue;
            }
            if rng.gen_range(0..left) < needed {
                drawn.push(lpn);
                needed -= 1;
            }
            left -= 1;
        }
        drawn.shuffle(&mut rng);
        self.cmt_warmed += drawn.len() as u64;
        if let Some(cmt) = self.cmt.as_mut() {
            drawn.into_iter().for_each(|lpn| cmt.warm(lpn));
        }
        Ok(())
    }

    /// With `ssd.ftl.cmt_starts_warm`: the entries preconditioning put in
    /// the cached map (`None` without the option).
    pub fn cmt_warmed(&self) -> Option<u64> {
        (self.cmt.is_some() && self.cmt_starts_warm).then_some(self.cmt_warmed)
    }

    /// When `lpn`'s physical page is known, for an operation ready at
    /// `ready_ns` (a write when `write`); with the page map in DRAM, at
    /// once. Also the translation page to write back, if the lookup
    /// evicted a changed entry: [`Ssd::write_back`] books it after the
    /// operation, which does not wait for it.
    #[inline]
    pub(super) fn translate(&mut self, now_ns: Ns, lpn: u64, write: bool, ready_ns: Ns) -> (Ns, Option<u64>) {
        let Some(cmt) = self.cmt.as_mut() else { return (ready_ns, None) };
        let lookup = cmt.lookup_at(lpn, write, ready_ns);
        if !lookup.miss {
            return (ready_ns.max(lookup.known_ns), None);
        }
        let known = self.translation_known(now_ns, lookup.translation_page, ready_ns).unwrap_or(ready_ns);
        if let Some(cmt) = self.cmt.as_mut() {
            cmt.known_at(lpn, known);
        }
        (known, lookup.write_back)
    }

    /// Programs `bytes` of host page `lpn`, ready at `ready_ns`, once its
    /// entry is known; then writes back what its lookup evicted.
    pub(super) fn write_host_page(
        &mut self,
        now_ns: Ns,
        lpn: u64,
        bytes: u64,
        ready_ns: Ns,
        cause: Cause,
        buffer_slots: Option<u64>,
    ) -> Result<Option<PageDone>> {
        let (known, write_back) = self.translate(now_ns, lpn, true, ready_ns);
        let page = self.program_page(now_ns, lpn, bytes, known, cause, buffer_slots)?;
        self.write_back(now_ns, write_back, known)?;
        Ok(page)
    }

    /// Writes translation page `page` back from `ready_ns` on: reads it
    /// (to merge the entries not cached) and programs it anew.
    pub(super) fn write_back(&mut self, now_ns: Ns, page: Option<u64>, ready_ns: Ns) -> Result<()> {
        let Some(page) = page else { return Ok(()) };
        let merged = self.read_translation_page(now_ns, page, ready_ns).unwrap_or(ready_ns);
        self.program_page(now_ns, page, self.page_size_bytes, merged, Cause::MapWrite, None).map(|_| ())
    }

    /// When a miss ready at `ready_ns` knows its entry from translation
    /// page `page`: a read of the page still under way serves it (the
    /// other pages of one request share one read, as MQSim's misses wait
    /// on a translation read in flight); otherwise it reads the page.
    fn translation_known(&mut self, now_ns: Ns, page: u64, ready_ns: Ns) -> Option<Ns> {
        let under_way = self.translation_read_until[page as usize];
        if under_way > ready_ns {
            return Some(under_way);
        }
        let done = self.read_translation_page(now_ns, page, ready_ns)?;
        self.translation_read_until[page as usize] = done;
        Some(done)
    }

    /// Reads one sector of translation page `page`, if it was ever
    /// written; when its data reaches the controller.
    fn read_translation_page(&mut self, now_ns: Ns, page: u64, ready_ns: Ns) -> Option<Ns> {
        let ppn = self.ftl.lookup(self.ftl.translation_id(page))?;
        let layout = self.ftl.layout();
        let (plane, kind) = (layout.plane_of_block(layout.block_of(ppn)), layout.page_type(ppn));
        let route = self.route(now_ns, plane);
        let work = self.read_work(kind, 512);
        let x = self.book(route, ready_ns, work, Op::Read);
        self.counters.pages_read[Cause::MapRead.index()] += 1;
        Some(x + work.transfer)
    }

    /// Once preconditioning is done, the whole map is on flash, the
    /// entries of pages never written included: every translation page is
    /// written, without time (MQSim's `Store_mapping_table_on_flash_at_start`).
    pub(super) fn store_map_on_flash(&mut self) -> Result<()> {
        let Some(cmt) = self.cmt.as_ref() else { return Ok(()) };
        for page in 0..cmt.translation_pages() {
            let id = self.ftl.translation_id(page);
            let plane = self.precondition_plane(id);
            self.ftl.write(id, plane, 0)?;
        }
        Ok(())
    }
}
