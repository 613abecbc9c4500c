//! A DRAM cache that keeps rewritten pages (`[ssd.write_cache]`): MQSim's
//! data cache in its `WRITE_CACHE` mode (`Data_Cache_Manager_Flash_Advanced`).
//!
//! MQSim keeps every page written in a DRAM cache of `capacity_bytes`, least
//! recently used evicted first, and separates hot data from cold: a page
//! not written in the current window (`recent_ns`, one second; the window
//! restarts at the first write after it ends) is written back to flash at
//! once, and a page written again while it is cached and within the window
//! stays dirty in DRAM until it is evicted, when its sectors are written
//! back. So two 4 KiB writes into one 8 KiB page in quick succession
//! program it once, not twice. Writes pass through the drive's write
//! buffer (its back-pressure) only for what goes to flash.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The most sectors a cached page may have: its written sectors are kept as one 64-bit mask.
pub const MAX_CACHED_PAGE_SECTORS: u64 = 64;

/// A cache of written pages in the drive's DRAM.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WriteCacheConfig {
    /// Bytes of DRAM caching written pages, a whole number of pages; 0 = no
    /// such cache (MQSim's `Data_Cache_Capacity`, 256 MiB).
    pub capacity_bytes: u64,
    /// The window within which a rewritten page stays in DRAM, ns (MQSim's
    /// `bloom_filter_reset_step`, one second).
    pub recent_ns: u64,
    /// Whose window it is when several flows write (`workload.flows`):
    /// "drive" (one window, restarting for every flow at the first write
    /// past its end) or "per_flow" (MQSim's: each flow remembers its own
    /// written-back pages, and forgets them only when it is the flow that
    /// writes first after the window ends, the window then restarting for
    /// all; with two flows equally busy, each forgets about every other
    /// window). One flow sees no difference.
    pub window: CacheWindow,
}

/// Whose window of written-back pages a write cache keeps.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CacheWindow {
    /// One window for the drive.
    #[default]
    Drive,
    /// A set of written-back pages per flow, cleared when that flow writes
    /// first after the window ends (MQSim's `Data_Cache_Manager_Flash_Advanced`:
    /// one bloom filter per stream, one reset milestone).
    PerFlow,
}

impl Default for WriteCacheConfig {
    fn default() -> Self {
        Self { capacity_bytes: 0, recent_ns: 1_000_000_000, window: CacheWindow::Drive }
    }
}

impl WriteCacheConfig {
    /// Checks the cache against the drive's page size and write buffer.
    pub(super) fn validate(&self, page_size_bytes: u64, write_buffer_bytes: u64) -> Result<()> {
        if self.capacity_bytes == 0 {
            if self.recent_ns != Self::default().recent_ns {
                return Err(Error::config("ssd.write_cache.recent_ns", "applies to a write cache: set ssd.write_cache.capacity_bytes"));
            }
            if self.window != CacheWindow::Drive {
                return Err(Error::config("ssd.write_cache.window", "applies to a write cache: set ssd.write_cache.capacity_bytes"));
            }
            return Ok(());
        }
        if write_buffer_bytes == 0 {
            return Err(Error::config(
                "ssd.write_cache.capacity_bytes",
                "needs ssd.write_buffer_bytes: what the cache writes back to flash passes through the write buffer",
            ));
        }
        if self.capacity_bytes % page_size_bytes != 0 {
            return Err(Error::config(
                "ssd.write_cache.capacity_bytes",
                format!("{} bytes is not a whole number of {page_size_bytes}-byte pages", self.capacity_bytes),
            ));
        }
        if page_size_bytes / 512 > MAX_CACHED_PAGE_SECTORS {
            return Err(Error::config(
                "ssd.write_cache.capacity_bytes",
                format!("caches pages of at most {MAX_CACHED_PAGE_SECTORS} sectors; these have {}", page_size_bytes / 512),
            ));
        }
        if !(1..=3_600_000_000_000).contains(&self.recent_ns) {
            return Err(Error::config("ssd.write_cache.recent_ns", "must lie in [1 ns, one hour]"));
        }
        Ok(())
    }
}
