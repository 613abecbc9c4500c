//! The SLC cache (`[ssd.slc_cache]`): blocks of a TLC or QLC drive written
//! one bit per cell, so that bursts of writes go at SLC speed.
//!
//! Programming one bit per cell takes a fraction of the time of three or
//! four, so consumer TLC and QLC drives write every incoming page into
//! blocks run in SLC mode first and later move ("fold") what is still valid
//! into the dense cells. Such a block holds only `pages_per_block / bits`
//! pages. Folding happens while the drive idles; when a burst has filled
//! the cache before that, the drive either folds on demand, so every write
//! pays for a fold too (the "write cliff" of QLC drives, slower than their
//! native cells), or writes the dense cells directly (`when_full`). The
//! model is in `ftl::slc_cache`; its sources and limits in
//! `docs/ssd-model.md`.
//!
//! The cache here is static: its blocks come out of each plane's spare
//! blocks, so the host's capacity stays what over-provisioning leaves and
//! garbage collection of the dense blocks has fewer spare blocks to work
//! with. Caches that grow into free user space (dynamic SLC) are not
//! modelled.

use super::ftl::Allocation;
use super::mapping_cache::FtlScheme;
use super::ssd::{at_most_an_hour, CellType, SsdConfig};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// What a write does when every block of its plane's cache holds data.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SlcWhenFull {
    /// Once the plane has opened its last free cache block, each write
    /// into it folds a share of the oldest full block, so that the block is
    /// folded by the time the open one fills: every page then goes through
    /// the cache, and writes pay for the folds.
    #[default]
    Fold,
    /// Write the dense cells directly until idle folding frees cache blocks.
    Bypass,
}

/// A static SLC cache in front of TLC or QLC flash.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SlcCacheConfig {
    /// Blocks of each plane written in SLC mode, 0 = no cache. They are
    /// taken from the plane's spare blocks (over-provisioning), and each
    /// holds `pages_per_block / bits per cell` pages.
    pub blocks_per_plane: u32,
    /// Read of a page written in SLC mode, ns (required with a cache).
    pub t_read_ns: Option<u64>,
    /// Program of a page in SLC mode, ns (required with a cache).
    pub t_program_ns: Option<u64>,
    /// What a write does when its plane's cache is full.
    pub when_full: SlcWhenFull,
    /// A die left idle this long folds its cache's blocks in the
    /// background, oldest first, a page at a time, until work arrives, ns;
    /// none = no idle folding.
    pub idle_fold_after_ns: Option<u64>,
}

impl Default for SlcCacheConfig {
    fn default() -> Self {
        Self { blocks_per_plane: 0, t_read_ns: None, t_program_ns: None, when_full: SlcWhenFull::Fold, idle_fold_after_ns: None }
    }
}

impl SlcCacheConfig {
    /// Whether the drive has a cache.
    pub fn enabled(&self) -> bool {
        self.blocks_per_plane > 0
    }

    /// Pages a block holds in SLC mode.
    pub fn pages_per_block(ssd: &SsdConfig) -> u32 {
        ssd.geometry.pages_per_block / ssd.geometry.cell_type.bits()
    }

    /// Checks the cache against the drive; settings that cannot act are
    /// refused rather than ignored.
    pub(super) fn validate(&self, ssd: &SsdConfig, spare_blocks_per_plane: u64) -> Result<()> {
        let key = "ssd.slc_cache.blocks_per_plane";
        if !self.enabled() {
            return self.nothing_else_set();
        }
        if ssd.geometry.cell_type == CellType::Slc {
            return Err(Error::config(key, "an SLC drive has no SLC cache: set ssd.geometry.cell_type to \"mlc\", \"tlc\" or \"qlc\""));
        }
        if Self::pages_per_block(ssd) == 0 {
            return Err(Error::config(
                "ssd.geometry.pages_per_block",
                "a block of fewer pages than bits per cell holds no page in SLC mode: no SLC cache",
            ));
        }
        for (k, ns) in [("ssd.slc_cache.t_read_ns", self.t_read_ns), ("ssd.slc_cache.t_program_ns", self.t_program_ns)] {
            at_most_an_hour(k, ns.ok_or_else(|| Error::config(k, "a cache's pages need their latency"))?)?;
        }
        if let Some(ns) = self.idle_fold_after_ns {
            at_most_an_hour("ssd.slc_cache.idle_fold_after_ns", ns)?;
            if !ssd.ftl.gc_copy_back {
                return Err(Error::config(
                    "ssd.slc_cache.idle_fold_after_ns",
                    "idle folding copies inside the plane: it needs ssd.ftl.gc_copy_back = true",
                ));
            }
        }
        if self.when_full == SlcWhenFull::Fold && self.blocks_per_plane < 2 {
            return Err(Error::config(
                key,
                "must be at least 2 with when_full = \"fold\": a plane folds its oldest full block once it has opened its last free one",
            ));
        }
        if self.when_full == SlcWhenFull::Bypass && self.idle_fold_after_ns.is_none() {
            return Err(Error::config(
                "ssd.slc_cache.when_full",
                "\"bypass\" without ssd.slc_cache.idle_fold_after_ns would fill the cache once and never empty it",
            ));
        }
        if !matches!(ssd.ftl.scheme, FtlScheme::PageMap | FtlScheme::Dftl) {
            return Err(Error::config(
                "ssd.ftl.scheme",
                "an SLC cache needs a page map (\"page_map\" or \"dftl\"): a block map keeps pages in place",
            ));
        }
        if ssd.ftl.allocation == Allocation::StaticDie {
            return Err(Error::config(
                "ssd.ftl.allocation",
                "\"static_die\" picks the plane of a die with the most free dense pages, which cached pages have not used yet, so \
                 one plane would take them all: use \"static\" or \"dynamic\" with an SLC cache",
            ));
        }
        if ssd.ftl.summary_pages_per_block != 0 {
            return Err(Error::config("ssd.ftl.summary_pages_per_block", "must be 0 with an SLC cache: summary pages are not modelled for it"));
        }
        if ssd.geometry.mirroring_chips_per_channel != 0 {
            return Err(Error::config("array.level", "cr5m's mirroring chips are not modelled with an SLC cache"));
        }
        // Collection keeps 3, and one more for each open block ssd.ftl.write_frontiers keeps apart.
        let keep = 3 + ssd.ftl.open_blocks_apart();
        if u64::from(self.blocks_per_plane) + keep > spare_blocks_per_plane {
            return Err(Error::config(
                key,
                format!(
                    "{} cache blocks come out of the {spare_blocks_per_plane} spare blocks per plane, which must keep {keep} for \
                     garbage collection (3, and one per open block ssd.ftl.write_frontiers keeps apart): lower it or raise \
                     ssd.geometry.over_provisioning_fraction",
                    self.blocks_per_plane
                ),
            ));
        }
        Ok(())
    }

    fn nothing_else_set(&self) -> Result<()> {
        let idle = |k: &str| Err(Error::config(k, "has no effect without a cache: set ssd.slc_cache.blocks_per_plane too"));
        if self.t_read_ns.is_some() {
            return idle("ssd.slc_cache.t_read_ns");
        }
        if self.t_program_ns.is_some() {
            return idle("ssd.slc_cache.t_program_ns");
        }
        if self.when_full != SlcWhenFull::Fold {
            return idle("ssd.slc_cache.when_full");
        }
        if self.idle_fold_after_ns.is_some() {
            return idle("ssd.slc_cache.idle_fold_after_ns");
        }
        Ok(())
    }
}
