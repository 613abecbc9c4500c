//! The DRAM cache that keeps pages rewritten soon (`[ssd.write_cache]`;
//! the rule is `config::WriteCacheConfig`'s, MQSim's data cache).
//!
//! Each written page is cached, least recently used evicted first. A page
//! not written back in the current window goes to flash at once; a page
//! written again while cached and within the window stays in DRAM, dirty,
//! until it is evicted, when the sectors written since are. What is still
//! dirty when the run ends is not written back. A read of a cached page is
//! timed as a flash read, as MQSim's write cache serves none.

use crate::config::WriteCacheConfig;
use crate::engine::Ns;
use lru::LruCache;
use std::collections::HashSet;

/// What the cache does with one page written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CachedWrite {
    /// The page goes to flash now; otherwise it stays in DRAM.
    pub to_flash: bool,
    /// A dirty page evicted to make room, and its sectors (a mask) to write back.
    pub evicted: Option<(u64, u64)>,
}

/// The cache of one drive.
pub struct WriteCache {
    /// Per cached page: the sectors written since it last went to flash (empty when clean).
    pages: LruCache<u64, u64>,
    capacity_pages: usize,
    /// Pages sent to flash in the current window.
    written_back: HashSet<u64>,
    recent_ns: Ns,
    window_ends_ns: Ns,
    kept_pages: u64,
    evicted_pages: u64,
}

impl WriteCache {
    /// An empty cache of `config.capacity_bytes` in pages of `page_size_bytes`.
    pub fn new(config: &WriteCacheConfig, page_size_bytes: u64) -> Self {
        Self {
            pages: LruCache::unbounded(),
            capacity_pages: (config.capacity_bytes / page_size_bytes).max(1) as usize,
            written_back: HashSet::new(),
            recent_ns: config.recent_ns,
            window_ends_ns: 0,
            kept_pages: 0,
            evicted_pages: 0,
        }
    }

    /// Page `lpn` written, its sectors `sectors` (a mask).
    pub fn write(&mut self, lpn: u64, sectors: u64) -> CachedWrite {
        let mut evicted = None;
        let dirty = match self.pages.get_mut(&lpn) {
            Some(dirty) => dirty,
            None => {
                if self.pages.len() >= self.capacity_pages {
                    evicted = self.pages.pop_lru().filter(|&(_, dirty)| dirty != 0);
                    self.evicted_pages += u64::from(evicted.is_some());
                }
                self.pages.push(lpn, 0);
                self.pages.get_mut(&lpn).expect("just cached")
            }
        };
        let to_flash = self.written_back.insert(lpn);
        if to_flash {
            *dirty = 0;
        } else {
            *dirty |= sectors;
            self.kept_pages += 1;
        }
        CachedWrite { to_flash, evicted }
    }

    /// After a request's pages: the window restarts at the first write past its end (as MQSim's does).
    pub fn request_done(&mut self, now_ns: Ns) {
        if now_ns > self.window_ends_ns {
            self.written_back.clear();
            self.window_ends_ns = now_ns.saturating_add(self.recent_ns);
        }
    }

    /// Page writes kept in DRAM, and dirty pages evicted to flash.
    pub fn counts(&self) -> (u64, u64) {
        (self.kept_pages, self.evicted_pages)
    }

    /// Counts restart (after preconditioning, after a warm-up); the pages stay.
    pub fn reset_counts(&mut self) {
        (self.kept_pages, self.evicted_pages) = (0, 0);
    }
}

/// The sectors of a page of `page_bytes` that `[from, from + len)` (bytes into it) covers, as a mask.
pub fn sector_mask(from: u64, len: u64) -> u64 {
    let (first, end) = (from / 512, (from + len).div_ceil(512));
    let bits = |n: u64| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    bits(end) & !bits(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(pages: u64) -> WriteCache {
        WriteCache::new(&WriteCacheConfig { capacity_bytes: pages * 8192, recent_ns: 1_000 }, 8192)
    }

    /// Each write is a request of its own; the window restarts after the
    /// first request (past its initial end, 0), so the first page written
    /// again goes to flash again.
    #[test]
    fn a_page_rewritten_within_the_window_stays_in_dram_until_evicted() {
        let mut c = cache(2);
        let mut write = |lpn: u64, sectors: u64, at: Ns| {
            let w = c.write(lpn, sectors);
            c.request_done(at);
            w
        };
        assert_eq!(write(7, sector_mask(0, 4096), 10), CachedWrite { to_flash: true, evicted: None });
        assert_eq!(write(7, sector_mask(4096, 4096), 20), CachedWrite { to_flash: true, evicted: None });
        assert_eq!(write(7, sector_mask(4096, 4096), 30), CachedWrite { to_flash: false, evicted: None });
        assert_eq!(write(8, u64::MAX, 40), CachedWrite { to_flash: true, evicted: None });
        // A third page evicts the least recently used, 7, dirty in its second half.
        assert_eq!(write(9, u64::MAX, 50).evicted, Some((7, 0xff00)));
        // 8 was written back and not rewritten: clean, evicted without a write-back.
        assert_eq!(write(10, u64::MAX, 60).evicted, None);
        // The window [10, 1010] ends at the first request past it (1020); then a rewrite goes to flash again.
        assert!(!write(10, u64::MAX, 1_000).to_flash);
        assert!(!write(10, u64::MAX, 1_020).to_flash);
        assert!(write(10, u64::MAX, 1_030).to_flash);
        assert_eq!(c.counts(), (3, 1));
    }

    #[test]
    fn sector_masks_cover_the_bytes_written() {
        assert_eq!(sector_mask(0, 4096), 0xff);
        assert_eq!(sector_mask(4096, 4096), 0xff00);
        assert_eq!(sector_mask(1000, 100), 0b110); // bytes 1000-1099: sectors 1 and 2
        assert_eq!(sector_mask(0, 32768), u64::MAX);
    }
}
