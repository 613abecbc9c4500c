//! Where the FTL keeps its page map (`ssd.ftl.scheme`): all of it in DRAM,
//! a cache of it in DRAM and the rest on flash (DFTL: Gupta, Kim &
//! Urgaonkar, ASPLOS 2009; MQSim's cached mapping table), or by block with
//! a few page-mapped log blocks (FAST, whose settings `log_blocks` checks).
//!
//! With a cached map, each entry names a logical page, its physical page
//! and which of its sectors are written; the entries of consecutive logical
//! pages are stored on flash in translation pages, without the logical page
//! number. The sizes follow MQSim (`Address_Mapping_Unit_Page_Level`): a
//! cached entry takes ⌈(2·log2(physical pages) + sectors per page) / 8⌉
//! bytes, a stored one ⌈(log2(physical pages) + sectors per page) / 8⌉, and
//! a translation page holds as many stored entries as fit in a page.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// How pages are mapped, and where the map lives.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FtlScheme {
    /// The whole page map in the controller's DRAM: no flash access to translate.
    #[default]
    PageMap,
    /// A cache of map entries in DRAM (`cmt_bytes`, least recently used
    /// out); a miss reads the entry's translation page, and evicting a
    /// changed entry writes its translation page back (DFTL).
    Dftl,
    /// FAST, a hybrid log-block FTL (Lee et al., ACM TECS 2007): data
    /// blocks mapped by block, writes appended to a few log blocks mapped
    /// by page, and merges when a log block is needed (`crate::ftl::log_block`).
    /// The flash-memory drives of 2008-2010 used FTLs of this kind.
    Fast,
    /// A block-mapped FTL without log blocks (`crate::ftl::block_map`): a
    /// rewrite that cannot go in place rewrites its whole block. The first
    /// flash cards' FTL.
    BlockMap,
}

impl FtlScheme {
    /// The name a config gives it.
    pub fn name(self) -> &'static str {
        match self {
            Self::PageMap => "page_map",
            Self::Dftl => "dftl",
            Self::Fast => "fast",
            Self::BlockMap => "block_map",
        }
    }
}

/// The sizes of a cached map, derived from the geometry.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct MappingCacheGeometry {
    /// Entries the cache holds (0 for `page_map`).
    pub cached_entries: u64,
    /// Bytes of one cached entry.
    pub cached_entry_bytes: u64,
    /// Map entries in one translation page.
    pub entries_per_translation_page: u64,
}

impl MappingCacheGeometry {
    /// Translation pages the map of `logical_pages` takes on flash (none
    /// without a cache: the whole map is in DRAM).
    pub fn translation_pages(&self, logical_pages: u64) -> u64 {
        if self.cached_entries == 0 {
            return 0;
        }
        logical_pages.div_ceil(self.entries_per_translation_page)
    }

    /// The cache `cmt_bytes` holds under `scheme` on a drive of
    /// `physical_pages` pages of `page_size_bytes`; an error when the
    /// setting does not fit the scheme.
    pub fn new(scheme: FtlScheme, cmt_bytes: Option<u64>, physical_pages: u64, page_size_bytes: u64) -> Result<Self> {
        let bits = (physical_pages as f64).log2();
        let sectors = (page_size_bytes / 512) as f64;
        let cached_entry_bytes = ((2.0 * bits + sectors) / 8.0).ceil() as u64;
        let stored_entry_bytes = ((bits + sectors) / 8.0).ceil() as u64;
        match (scheme, cmt_bytes) {
            (FtlScheme::PageMap | FtlScheme::Fast | FtlScheme::BlockMap, None) => Ok(Self::default()),
            (FtlScheme::PageMap | FtlScheme::Fast | FtlScheme::BlockMap, Some(_)) => Err(Error::config(
                "ssd.ftl.cmt_bytes",
                format!("is the mapping cache of scheme = \"dftl\"; {:?} keeps its whole map in DRAM", scheme.name()),
            )),
            (FtlScheme::Dftl, None) => Err(Error::config("ssd.ftl.cmt_bytes", "scheme = \"dftl\" needs the mapping cache's size in bytes")),
            (FtlScheme::Dftl, Some(bytes)) => {
                let cached_entries = bytes / cached_entry_bytes;
                if cached_entries == 0 {
                    return Err(Error::config(
                        "ssd.ftl.cmt_bytes",
                        format!("holds no map entry: one takes {cached_entry_bytes} bytes on this drive"),
                    ));
                }
                Ok(Self { cached_entries, cached_entry_bytes, entries_per_translation_page: page_size_bytes / stored_entry_bytes })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MQSim's default drive: 8 × 4 × 2 × 2 = 2^7 planes of 2^11 blocks of
    /// 2^8 pages (2^26 pages) of 8 KiB (16 sectors): a cached entry ⌈(52 + 16) / 8⌉ = 9 bytes, a
    /// stored one ⌈(26 + 16) / 8⌉ = 6, so 8192 / 6 = 1365 per translation
    /// page, and 2 MiB hold 233,016 entries.
    #[test]
    fn mqsims_default_drive_caches_nine_byte_entries() {
        let g = MappingCacheGeometry::new(FtlScheme::Dftl, Some(2 << 20), 1 << 26, 8192).expect("valid");
        assert_eq!(g, MappingCacheGeometry { cached_entries: 233_016, cached_entry_bytes: 9, entries_per_translation_page: 1365 });
    }

    #[test]
    fn each_scheme_takes_only_its_own_settings() {
        assert!(MappingCacheGeometry::new(FtlScheme::PageMap, Some(1 << 20), 1 << 20, 4096).is_err());
        assert!(MappingCacheGeometry::new(FtlScheme::Dftl, None, 1 << 20, 4096).is_err());
        assert!(MappingCacheGeometry::new(FtlScheme::Dftl, Some(5), 1 << 20, 4096).is_err()); // an entry is 6 bytes: (40 + 8) / 8
        assert_eq!(MappingCacheGeometry::new(FtlScheme::Dftl, Some(6), 1 << 16, 4096).map(|g| g.cached_entries).ok(), Some(1));
        // (32 + 8) / 8 = 5
    }
}
