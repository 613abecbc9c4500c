//! The DRAM cache that keeps pages rewritten soon (`[ssd.write_cache]`;
//! the rule is `config::WriteCacheConfig`'s, MQSim's data cache).
//!
//! A page not written back in the current window goes to flash at once,
//! and leaves the cache (MQSim frees its slot when the write ends). A page
//! written again in the same window as its last write-back stays in DRAM,
//! dirty, holding the sectors of both, until it is evicted (least recently
//! used first), when they go to flash under the cause that wrote them last.
//! Reads of a dirty page are served from DRAM. What is still dirty when the
//! run ends is not written back.

use crate::config::{CacheWindow, WriteCacheConfig};
use crate::device::Cause;
use crate::engine::Ns;
use lru::LruCache;
use std::collections::HashMap;

/// What the cache does with one page written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CachedWrite {
    /// The sectors (a mask) that go to flash now; none when the page stays in DRAM.
    pub to_flash: Option<u64>,
    /// A dirty page evicted to make room: its number, sectors and cause.
    pub evicted: Option<(u64, u64, Cause)>,
}

/// The cache of one drive.
pub struct WriteCache {
    /// The dirty pages: the sectors they hold, and the cause that wrote them last.
    dirty: LruCache<u64, (u64, Cause)>,
    capacity_pages: usize,
    /// Pages sent to flash in the current window, with the sectors sent: one
    /// set for the drive, or one per flow (`window = "per_flow"`).
    written_back: Vec<HashMap<u64, u64>>,
    per_flow: bool,
    recent_ns: Ns,
    window_ends_ns: Ns,
    kept_pages: u64,
    evicted_pages: u64,
}

impl WriteCache {
    /// An empty cache of `config.capacity_bytes` in pages of `page_size_bytes`.
    pub fn new(config: &WriteCacheConfig, page_size_bytes: u64) -> Self {
        Self {
            dirty: LruCache::unbounded(),
            capacity_pages: (config.capacity_bytes / page_size_bytes).max(1) as usize,
            written_back: vec![HashMap::new()],
            per_flow: config.window == CacheWindow::PerFlow,
            recent_ns: config.recent_ns,
            window_ends_ns: 0,
            kept_pages: 0,
            evicted_pages: 0,
        }
    }

    /// The set of written-back pages flow `stream` sees.
    fn window_of(&mut self, stream: u16) -> &mut HashMap<u64, u64> {
        let i = if self.per_flow { usize::from(stream) } else { 0 };
        if i >= self.written_back.len() {
            self.written_back.resize_with(i + 1, HashMap::new);
        }
        &mut self.written_back[i]
    }

    /// Page `lpn` written by flow `stream`, its sectors `sectors` (a mask), by `cause`.
    pub fn write(&mut self, lpn: u64, sectors: u64, cause: Cause, stream: u16) -> CachedWrite {
        let Some(&sent) = self.window_of(stream).get(&lpn) else {
            // Dirty sectors still cached go with it.
            let held = self.dirty.pop(&lpn).map_or(0, |(held, _)| held);
            self.window_of(stream).insert(lpn, sectors | held);
            return CachedWrite { to_flash: Some(sectors | held), evicted: None };
        };
        self.kept_pages += 1;
        if let Some(entry) = self.dirty.get_mut(&lpn) {
            *entry = (entry.0 | sectors, cause);
            return CachedWrite { to_flash: None, evicted: None };
        }
        let evicted = if self.dirty.len() >= self.capacity_pages { self.dirty.pop_lru() } else { None };
        self.evicted_pages += u64::from(evicted.is_some());
        // The slot of the write-back still holds its sectors, as MQSim's does.
        self.dirty.push(lpn, (sent | sectors, cause));
        CachedWrite { to_flash: None, evicted: evicted.map(|(page, (held, by))| (page, held, by)) }
    }

    /// A trim of `lpn`: its dirty sectors are dropped unwritten, and a write
    /// after it starts a new page, not a rewrite of one written back.
    pub fn trim(&mut self, lpn: u64) {
        self.dirty.pop(&lpn);
        for window in &mut self.written_back {
            window.remove(&lpn);
        }
    }

    /// Whether a read of `lpn` is served from DRAM.
    pub fn holds(&self, lpn: u64) -> bool {
        self.dirty.contains(&lpn)
    }

    /// After a request of flow `stream`: the window restarts at the first
    /// write past its end (as MQSim's does), and the pages written back in
    /// it are forgotten — the drive's, or under `per_flow` that flow's only.
    pub fn request_done(&mut self, now_ns: Ns, stream: u16) {
        if now_ns > self.window_ends_ns {
            self.window_of(stream).clear();
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

/// The sectors of a page that `[from, from + len)` (bytes into it) covers, as a mask.
pub fn sector_mask(from: u64, len: u64) -> u64 {
    let (first, end) = (from / 512, (from + len).div_ceil(512));
    let bits = |n: u64| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    bits(end) & !bits(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(pages: u64) -> WriteCache {
        // 8 KiB pages.
        WriteCache::new(&WriteCacheConfig { capacity_bytes: pages * 8192, recent_ns: 1_000, window: CacheWindow::Drive }, 8192)
    }

    /// Each write is a request of its own; the window restarts after the
    /// first request (past its initial end, 0), so the first page written
    /// again goes to flash again.
    #[test]
    fn a_page_rewritten_within_the_window_stays_in_dram_until_evicted() {
        let mut c = cache(1);
        let user = Cause::User;
        let mut write = |lpn: u64, sectors: u64, at: Ns| {
            let w = c.write(lpn, sectors, user, 0);
            c.request_done(at, 0);
            w
        };
        let (low, high) = (sector_mask(0, 4096), sector_mask(4096, 4096));
        assert_eq!(write(7, low, 10), CachedWrite { to_flash: Some(low), evicted: None });
        assert_eq!(write(7, high, 20), CachedWrite { to_flash: Some(high), evicted: None });
        // Kept: the slot holds what went to flash and the new sectors.
        assert_eq!(write(7, high, 30), CachedWrite { to_flash: None, evicted: None });
        // Written back: not cached, so not evicted by the next dirty page.
        assert_eq!(write(8, u64::MAX, 40).to_flash, Some(u64::MAX));
        assert_eq!(write(8, low, 50), CachedWrite { to_flash: None, evicted: Some((7, high, user)) });
        // The window [10, 1010] ends at the first request past it (1020); then a rewrite goes to flash
        // again, with the page's dirty sectors.
        assert_eq!(write(8, high, 1_000).to_flash, None);
        assert_eq!(write(8, high, 1_020).to_flash, None);
        assert_eq!(write(8, sector_mask(0, 512), 1_030).to_flash, Some(u64::MAX));
        assert_eq!(c.counts(), (4, 1));
    }

    /// Two flows, each rewriting its page. The window [1, 1001] ends at
    /// flow 0's write at 1020: one window for the drive forgets both pages
    /// then; MQSim's per-flow sets forget flow 0's only, so flow 1's rewrite
    /// at 1030 stays in DRAM. The next end (2020) is flow 1's to claim, and
    /// under `per_flow` flow 0 still remembers its page after it.
    #[test]
    fn per_flow_windows_forget_only_the_flow_that_writes_first_past_the_end() {
        for (window, kept) in [(CacheWindow::Drive, false), (CacheWindow::PerFlow, true)] {
            let mut c = WriteCache::new(&WriteCacheConfig { capacity_bytes: 4 * 8192, recent_ns: 1_000, window }, 8192);
            let mut write = |lpn: u64, stream: u16, at: Ns| {
                let w = c.write(lpn, 0xff, Cause::User, stream);
                c.request_done(at, stream);
                w.to_flash
            };
            write(9, 0, 1); // the first request starts the window: [1, 1001]
            assert_eq!((write(1, 0, 10), write(2, 1, 10)), (Some(0xff), Some(0xff)));
            assert_eq!(write(1, 0, 1_020), None, "{window:?}: rewritten in the window that just ended");
            assert_eq!(write(1, 0, 1_025), Some(0xff), "{window:?}: flow 0 claimed the end at 1020 and forgot");
            let back = if kept { None } else { Some(0xff) };
            assert_eq!(write(2, 1, 1_030), back, "{window:?}: flow 1's page");
            assert_eq!(write(2, 1, 2_030), None, "{window:?}: written back in this window; flow 1 claims the end");
            assert_eq!(write(1, 0, 2_035), back, "{window:?}: flow 0's page");
        }
    }

    /// A trim drops a page kept dirty in DRAM, so nothing programs it later
    /// (no eviction brings it back), and forgets its write-back, so the
    /// page's next write is a first write, not a rewrite kept in DRAM.
    #[test]
    fn a_trimmed_page_is_dropped_unwritten_and_forgotten() {
        let mut c = cache(1);
        let write = |c: &mut WriteCache, lpn: u64, at: Ns| {
            let w = c.write(lpn, 0xff, Cause::User, 0);
            c.request_done(at, 0);
            w
        };
        write(&mut c, 9, 1); // the first request starts the window: [1, 1001]
        assert_eq!(write(&mut c, 7, 10).to_flash, Some(0xff));
        assert_eq!(write(&mut c, 7, 20).to_flash, None); // kept: rewritten in the window
        c.trim(7);
        assert!(!c.holds(7), "a read of a trimmed page does not find its old data in DRAM");
        assert_eq!(write(&mut c, 8, 30).to_flash, Some(0xff));
        assert_eq!(write(&mut c, 8, 40), CachedWrite { to_flash: None, evicted: None }, "page 7 is not evicted to flash");
        assert_eq!(write(&mut c, 7, 50).to_flash, Some(0xff), "page 7's next write goes to flash");
    }

    #[test]
    fn sector_masks_cover_the_bytes_written() {
        assert_eq!(sector_mask(0, 4096), 0xff);
        assert_eq!(sector_mask(4096, 4096), 0xff00);
        assert_eq!(sector_mask(1000, 100), 0b110); // bytes 1000-1099: sectors 1 and 2
        assert_eq!(sector_mask(0, 32768), u64::MAX);
    }
}
