//! DFTL's cached mapping table (Gupta, Kim & Urgaonkar, ASPLOS 2009), as
//! MQSim keeps it: map entries of single logical pages in DRAM, the least
//! recently used evicted first. The full map lives on flash in translation
//! pages of `entries_per_translation_page` consecutive entries each
//! ([`super::Ftl::translation_id`]).
//!
//! A miss must read the entry's translation page before the page it maps
//! can be found. A write changes the entry in DRAM only; when
//! a changed entry is evicted, every changed entry of its translation page
//! is written back at once: the page is read (to merge the entries not in
//! DRAM) and programmed anew. A translation page's changed entries are
//! found without a scan: each carries the page's write-back count at the
//! time it changed, and a write-back raises that count.

use crate::engine::Ns;
use lru::LruCache;

/// A cached entry's state: clean, or changed since write-back number `n`
/// of its translation page (stored as `n + 1`).
type Changed = u64;
const CLEAN: Changed = 0;

/// One cached entry: whether it changed, and when it is known (a missed
/// entry only once its translation page has been read).
#[derive(Clone, Copy, Debug)]
struct Entry {
    changed: Changed,
    known_ns: Ns,
}

/// What one lookup asks of the flash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CmtLookup {
    /// The translation page holding the entry.
    pub translation_page: u64,
    /// The entry was not in DRAM: its translation page must be read.
    pub miss: bool,
    /// On a hit, when the entry is known (later than now while the read
    /// that brought it in is still under way).
    pub known_ns: Ns,
    /// A changed entry was evicted: this translation page is written back.
    pub write_back: Option<u64>,
}

/// The cached mapping table of one drive.
pub struct CachedMappingTable {
    /// Grows as pages are looked up, up to `capacity`: a cache larger than
    /// the pages a run touches costs only those.
    entries: LruCache<u64, Entry>,
    capacity: usize,
    /// Write-backs so far, per translation page.
    write_backs: Vec<u64>,
    entries_per_translation_page: u64,
    hits: u64,
    misses: u64,
}

impl CachedMappingTable {
    /// A cold cache of `capacity` entries (at least one; more than the
    /// drive's pages is as many) over `logical_pages`.
    pub fn new(capacity: u64, entries_per_translation_page: u64, logical_pages: u64) -> Self {
        let per_page = entries_per_translation_page.max(1);
        Self {
            entries: LruCache::unbounded(),
            capacity: capacity.clamp(1, logical_pages.max(1)) as usize,
            write_backs: vec![0; logical_pages.div_ceil(per_page) as usize],
            entries_per_translation_page: per_page,
            hits: 0,
            misses: 0,
        }
    }

    /// Looks up `lpn`'s entry for a read or (`write`) a write, which
    /// changes it; the entry becomes the most recently used. A missed
    /// entry is known once [`CachedMappingTable::known_at`] says.
    pub fn lookup(&mut self, lpn: u64, write: bool) -> CmtLookup {
        self.lookup_at(lpn, write, Ns::MAX)
    }

    /// [`Self::lookup`] at `at_ns`: an entry found while its translation
    /// page is still being read is counted a miss, as MQSim counts it (its
    /// entry is not valid yet), though it reads nothing more.
    pub fn lookup_at(&mut self, lpn: u64, write: bool, at_ns: Ns) -> CmtLookup {
        let page = lpn / self.entries_per_translation_page;
        if let Some(entry) = self.entries.get_mut(&lpn) {
            if entry.known_ns > at_ns {
                self.misses += 1;
            } else {
                self.hits += 1;
            }
            if write {
                entry.changed = self.write_backs[page as usize].wrapping_add(1);
            }
            return CmtLookup { translation_page: page, miss: false, known_ns: entry.known_ns, write_back: None };
        }
        self.misses += 1;
        let evicted = if self.entries.len() >= self.capacity { self.entries.pop_lru() } else { None };
        let write_back = evicted.filter(|&(old, e)| self.is_changed(old, e.changed)).map(|(old, _)| {
            let old_page = old / self.entries_per_translation_page;
            self.write_backs[old_page as usize] = self.write_backs[old_page as usize].wrapping_add(1);
            old_page
        });
        // After the write-back: an entry that is still being read is not written back with its page.
        let changed = if write { self.write_backs[page as usize].wrapping_add(1) } else { CLEAN };
        self.entries.push(lpn, Entry { changed, known_ns: 0 });
        CmtLookup { translation_page: page, miss: true, known_ns: 0, write_back }
    }

    /// `lpn`'s entry, if cached, was changed without a lookup (a read
    /// placed its page): it is written back when evicted.
    pub fn mark_changed(&mut self, lpn: u64) {
        let page = (lpn / self.entries_per_translation_page) as usize;
        let changed = self.write_backs[page].wrapping_add(1);
        if let Some(entry) = self.entries.peek_mut(&lpn) {
            entry.changed = changed;
        }
    }

    /// The missed entry of `lpn` is known at `known_ns`.
    pub fn known_at(&mut self, lpn: u64, known_ns: Ns) {
        if let Some(entry) = self.entries.peek_mut(&lpn) {
            entry.known_ns = known_ns;
        }
    }

    fn is_changed(&self, lpn: u64, state: Changed) -> bool {
        state != CLEAN && state == self.write_backs[(lpn / self.entries_per_translation_page) as usize].wrapping_add(1)
    }

    /// Translation pages of the map.
    pub fn translation_pages(&self) -> u64 {
        self.write_backs.len() as u64
    }

    /// Lookups that found their entry in DRAM, and those that did not.
    pub fn hits_and_misses(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }

    /// Entries the cache holds.
    pub fn entries_held(&self) -> usize {
        self.entries.len()
    }

    /// Entries the cache holds at most.
    pub fn capacity(&self) -> u64 {
        self.capacity as u64
    }

    /// Puts `lpn`'s entry in the cache, clean and known, without a lookup
    /// (preconditioning warms the cache); a full cache takes none.
    pub fn warm(&mut self, lpn: u64) {
        if self.entries.len() < self.capacity {
            self.entries.get_or_insert(lpn, || Entry { changed: CLEAN, known_ns: 0 });
        }
    }

    /// Counts restart (after preconditioning); the entries stay.
    pub fn reset_counts(&mut self) {
        (self.hits, self.misses) = (0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warming_fills_up_to_the_capacity_with_clean_entries() {
        let mut cmt = CachedMappingTable::new(2, 10, 100);
        [5, 6, 7].into_iter().for_each(|lpn| cmt.warm(lpn));
        assert_eq!(cmt.entries_held(), 2, "a full cache takes none");
        assert!(!cmt.lookup(5, false).miss && !cmt.lookup(6, false).miss && cmt.lookup(7, false).miss);
        // Clean: evicting them writes nothing back.
        assert_eq!((cmt.lookup(8, false).write_back, cmt.lookup(9, false).write_back), (None, None));
    }

    #[test]
    fn the_least_recently_used_entry_goes_first() {
        let mut cmt = CachedMappingTable::new(2, 10, 100);
        for lpn in [1, 2, 1, 3] {
            cmt.lookup(lpn, false);
        }
        // 2 was evicted by 3; 1 stayed.
        assert!(!cmt.lookup(1, false).miss);
        assert!(cmt.lookup(2, false).miss);
        assert_eq!(cmt.hits_and_misses(), (2, 4));
    }

    #[test]
    fn evicting_a_changed_entry_writes_its_translation_page_back_once() {
        let mut cmt = CachedMappingTable::new(2, 10, 100);
        cmt.lookup(11, true); // translation page 1
        cmt.lookup(12, true); // page 1
        let l = cmt.lookup(50, false); // evicts 11, changed
        assert_eq!(l, CmtLookup { translation_page: 5, miss: true, known_ns: 0, write_back: Some(1) });
        // 12 was written back with 11: evicting it now writes nothing.
        assert_eq!(cmt.lookup(60, false).write_back, None);
        // A read-only entry never causes a write-back.
        assert_eq!(cmt.lookup(70, false).write_back, None);
    }

    /// A write whose miss evicts a changed entry of its own translation
    /// page stays changed: it was not in DRAM when the page was written back.
    #[test]
    fn the_entry_whose_miss_writes_its_page_back_stays_changed() {
        let mut cmt = CachedMappingTable::new(1, 10, 100);
        cmt.lookup(11, true);
        assert_eq!(cmt.lookup(12, true).write_back, Some(1)); // evicts 11
        assert_eq!(cmt.lookup(50, false).write_back, Some(1)); // evicts 12, still changed
    }

    #[test]
    fn a_cache_larger_than_the_drive_holds_the_drives_pages() {
        let mut cmt = CachedMappingTable::new(u64::MAX, 10, 100);
        for lpn in 0..100 {
            assert!(cmt.lookup(lpn, false).miss);
        }
        assert!((0..100).all(|lpn| !cmt.lookup(lpn, false).miss));
    }

    #[test]
    fn an_entry_changed_after_its_pages_write_back_is_changed_again() {
        let mut cmt = CachedMappingTable::new(2, 10, 100);
        cmt.lookup(11, true);
        cmt.lookup(12, true);
        cmt.lookup(50, false); // evicts 11: page 1 written back, 12 clean
        cmt.lookup(12, true); // 12 changed again (a hit)
        cmt.lookup(60, false); // evicts 50 (clean)
        assert_eq!(cmt.lookup(70, false).write_back, Some(1)); // evicts 12, changed
    }
}
