//! Parameters of an SSD's flash translation layer: how pages are placed
//! and mapped, how garbage collection picks and copies, and wear levelling.

use super::mapping_cache::FtlScheme;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// How the FTL places a written logical page.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Allocation {
    /// Plane fixed by the logical page number, striped in `static_order` (SSDsim's static allocation).
    Static,
    /// The least busy die takes the write (earliest free), planes round robin inside it.
    Dynamic,
    /// Die fixed by the logical page (static striping, the plane digit
    /// ignored); inside it the plane with the most free pages, ties round
    /// robin: DiskSim's allocation pool per element (`ssd_pick_parunits`).
    StaticDie,
}

/// The most blocks one random-greedy draw takes (`ssd.ftl.gc_victim_sample`).
pub const MAX_GC_VICTIM_SAMPLE: u32 = 64;

/// Garbage-collection victim selection.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GcVictim {
    /// Fewest valid pages.
    Greedy,
    /// Largest (1 - u) / 2u × age (Rosenblum & Ousterhout's LFS cleaner; Kawaguchi et al. 1995).
    CostBenefit,
    /// Fewest valid pages among `gc_victim_sample` blocks drawn at random
    /// (d-choices, Van Houdt, SIGMETRICS 2013; MQSim's default, "RGA").
    RandomGreedy,
}

/// What garbage collection keeps busy while it copies a victim's valid pages.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GcHolds {
    /// The plane's parallel unit only, from before its next operation
    /// (DiskSim's cleaning between an element's requests).
    Unit,
    /// The unit's channel too, from the write that triggered it, until
    /// the last copy is programmed; the erase then holds the unit alone
    /// (SSDsim's uninterruptible collection, `uninterrupt_gc`).
    Channel,
}

/// Which open block of a plane takes a page written.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WriteFrontiers {
    /// One open block per plane takes every page: the host's, collection's
    /// copies, translation pages (DiskSim, SSDsim).
    #[default]
    Shared,
    /// Translation pages fill an open block of their own; the host's pages
    /// and collection's copies share the other (DFTL's translation blocks).
    TranslationApart,
    /// The host's pages, collection's copies and translation pages each
    /// fill their own open block per plane (MQSim's `Data_wf`, `GC_wf`
    /// and `Translation_wf`).
    BySource,
}

/// The page-mapping flash translation layer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    /// Static or dynamic page allocation.
    pub allocation: Allocation,
    /// Static striping order of consecutive logical pages, fastest-varying
    /// first: a permutation of `C` (channel), `W` (way = chip), `D` (die),
    /// `P` (plane), as SSDsim names its allocation schemes.
    pub static_order: String,
    /// Garbage collection runs on a plane when its free blocks fall below
    /// this fraction of its blocks (never below two blocks). A threshold above
    /// the over-provisioning (the CR5M paper's 30 %) makes collection run on
    /// every write once the plane is fuller than 1 - threshold, as in SSDsim.
    pub gc_threshold_fraction: f64,
    /// How pages are mapped: a page map all in DRAM or cached (DFTL), or
    /// by block, with log blocks (FAST) or without.
    pub scheme: FtlScheme,
    /// Bytes of DRAM for the cached map (`scheme = "dftl"` only).
    pub cmt_bytes: Option<u64>,
    /// The cached map starts the run full of clean entries of pages drawn
    /// at random among those preconditioning wrote, as MQSim's
    /// preconditioning fills it from a uniform flow's working set; false:
    /// it starts empty (`scheme = "dftl"` only).
    pub cmt_starts_warm: bool,
    /// Random-write log blocks of each plane (`scheme = "fast"` only; the
    /// plane's sequential log block is one more). FAST's log buffer: more
    /// log blocks delay merges, and need more spare blocks.
    pub log_blocks_per_plane: Option<u32>,
    /// Victim selection.
    pub gc_victim: GcVictim,
    /// Blocks `gc_victim = "random_greedy"` draws from a plane's full
    /// blocks (`random_greedy` only; unset: log2 of the blocks per plane,
    /// rounded down, as MQSim's `rga_set_size`).
    pub gc_victim_sample: Option<u32>,
    /// Wear levelling, dynamic: a plane opens its least-erased free block
    /// instead of the one free the longest (MQSim's default).
    pub dynamic_wear_levelling: bool,
    /// Wear levelling, static: after a collection, when a plane's block
    /// erase counts spread by more than this many erases, its least-erased
    /// block in use is relocated (MQSim's default is 100). Unset: off.
    pub static_wear_levelling_threshold: Option<u32>,
    /// What collection keeps busy while it copies.
    pub gc_holds: GcHolds,
    /// Copies stay inside the plane (copy-back); false moves each copied
    /// page out over the channel and back (SSDsim without its copy-back
    /// command). Needs `gc_holds = "channel"`.
    pub gc_copy_back: bool,
    /// Pages at the end of each block that hold its summary (the owners of
    /// its pages) instead of data; DiskSim's SSD model reserves one.
    pub summary_pages_per_block: u32,
    /// Which open block of a plane takes each page written.
    pub write_frontiers: WriteFrontiers,
    /// A read of a logical page never written places it, as a write of it
    /// would, in the next page of its plane's open block, without
    /// programming it, and is served from there (MQSim's
    /// `online_create_entry_for_reads`). On a drive not fully written,
    /// reads then advance the open blocks as writes do, which changes the
    /// page offsets multi-plane commands pair by. The page holds no data:
    /// a later write of part of it reads nothing first. False: such a
    /// read goes where static allocation would put the page and places
    /// nothing. Page-mapped schemes only.
    pub place_unwritten_reads: bool,
    /// Set: collection yields to the host (MQSim's preemptible collection,
    /// `Preemptible_GC_Enabled` with `GC_Hard_Threshold`). A plane's
    /// copies and erases then run only while its unit has nothing else to
    /// do, until the plane's free blocks, less those whose erase is still
    /// owed, fall below this fraction of its blocks (at least one block);
    /// from then on its unit's owed collection runs before anything else.
    /// Must give fewer blocks than `gc_threshold_fraction`. Unset:
    /// collection never yields. Page-mapped schemes, `gc_holds = "unit"`.
    pub gc_hard_threshold_fraction: Option<f64>,
}

impl Default for FtlConfig {
    fn default() -> Self {
        Self {
            allocation: Allocation::Static,
            static_order: "CWDP".into(),
            gc_threshold_fraction: 0.05,
            scheme: FtlScheme::PageMap,
            cmt_bytes: None,
            cmt_starts_warm: false,
            log_blocks_per_plane: None,
            gc_victim: GcVictim::Greedy,
            gc_victim_sample: None,
            gc_holds: GcHolds::Unit,
            gc_copy_back: true,
            dynamic_wear_levelling: false,
            static_wear_levelling_threshold: None,
            summary_pages_per_block: 0,
            write_frontiers: WriteFrontiers::Shared,
            place_unwritten_reads: false,
            gc_hard_threshold_fraction: None,
        }
    }
}

impl FtlConfig {
    /// Open blocks a plane keeps beside the host's (`write_frontiers`):
    /// collection's, and with a cached map the translation pages'.
    pub(super) fn open_blocks_apart(&self) -> u64 {
        let map = u64::from(self.scheme == FtlScheme::Dftl);
        match self.write_frontiers {
            WriteFrontiers::Shared => 0,
            WriteFrontiers::TranslationApart => map,
            WriteFrontiers::BySource => 1 + map,
        }
    }

    /// Refuses settings that contradict each other or lie out of range.
    pub(super) fn validate_choices(&self) -> Result<()> {
        match (self.gc_victim, self.gc_victim_sample) {
            (GcVictim::RandomGreedy, Some(d)) if !(1..=MAX_GC_VICTIM_SAMPLE).contains(&d) => {
                return Err(Error::config("ssd.ftl.gc_victim_sample", format!("{d} blocks: must lie in [1, {MAX_GC_VICTIM_SAMPLE}]")));
            }
            (GcVictim::Greedy | GcVictim::CostBenefit, Some(_)) => {
                return Err(Error::config("ssd.ftl.gc_victim_sample", "applies to gc_victim = \"random_greedy\" only"));
            }
            _ => {}
        }
        if !self.gc_copy_back && self.gc_holds == GcHolds::Unit {
            return Err(Error::config(
                "ssd.ftl.gc_copy_back",
                "false needs ssd.ftl.gc_holds = \"channel\": copies that cross the channel while collection holds only the unit are not modelled",
            ));
        }
        if self.write_frontiers != WriteFrontiers::Shared && matches!(self.scheme, FtlScheme::Fast | FtlScheme::BlockMap) {
            return Err(Error::config(
                "ssd.ftl.write_frontiers",
                "applies to the page-mapped schemes (\"page_map\", \"dftl\"): a block map places every page by its logical block; leave it \"shared\"",
            ));
        }
        if self.write_frontiers == WriteFrontiers::BySource && self.allocation == Allocation::Dynamic {
            return Err(Error::config(
                "ssd.ftl.write_frontiers",
                "\"by_source\" is not modelled with ssd.ftl.allocation = \"dynamic\": collection's own open block draws on planes the \
                 allocator does not balance, and they run out of free blocks; use \"translation_apart\" or \"shared\"",
            ));
        }
        if self.cmt_starts_warm && self.scheme != FtlScheme::Dftl {
            return Err(Error::config("ssd.ftl.cmt_starts_warm", "warms the cached map, which only scheme = \"dftl\" keeps; leave it false"));
        }
        if self.write_frontiers == WriteFrontiers::TranslationApart && self.scheme != FtlScheme::Dftl {
            return Err(Error::config(
                "ssd.ftl.write_frontiers",
                "\"translation_apart\" keeps translation pages apart, which only scheme = \"dftl\" writes; use \"shared\" or \"by_source\"",
            ));
        }
        let threshold = &self.gc_threshold_fraction;
        if !(0.0..0.5).contains(threshold) {
            return Err(Error::config("ssd.ftl.gc_threshold_fraction", "must lie in [0, 0.5)"));
        }
        Ok(())
    }
}

/// Refuses `place_unwritten_reads` where a page placed by a read is not
/// modelled: under a block map, beside mirroring chips (CR5M), in an SLC
/// cache, or with summary pages (whose program a placement would owe).
pub(super) fn validate_place_unwritten_reads(ssd: &super::SsdConfig) -> Result<()> {
    if !ssd.ftl.place_unwritten_reads {
        return Ok(());
    }
    let refuse = |why: &str| {
        let hint = "set it false (presets mqsim-default and mqsim-fast18 set it true)";
        Err(Error::config("ssd.ftl.place_unwritten_reads", format!("true {why}; {hint}")))
    };
    if matches!(ssd.ftl.scheme, FtlScheme::Fast | FtlScheme::BlockMap) {
        return refuse("places a page in its plane's open block, which only the page-mapped schemes (\"page_map\", \"dftl\") keep");
    }
    if ssd.geometry.mirroring_chips_per_channel > 0 {
        return refuse("is not modelled with mirroring chips (CR5M), which copy only what is written");
    }
    if ssd.slc_cache.enabled() {
        return refuse("is not modelled with an SLC cache (ssd.slc_cache), where the host's pages are placed first");
    }
    if ssd.ftl.summary_pages_per_block > 0 {
        return refuse("is not modelled with summary pages (ssd.ftl.summary_pages_per_block), programmed as a block fills");
    }
    Ok(())
}

/// Refuses `gc_hard_threshold_fraction` out of range or where collection
/// that yields is not modelled; returns the hard threshold in blocks.
pub(super) fn validate_gc_hard_threshold(ssd: &super::SsdConfig, gc_threshold_blocks: u32) -> Result<Option<u32>> {
    let Some(fraction) = ssd.ftl.gc_hard_threshold_fraction else { return Ok(None) };
    let key = "ssd.ftl.gc_hard_threshold_fraction";
    if !(fraction > 0.0 && fraction < 0.5) {
        return Err(Error::config(key, format!("{fraction}: must lie in (0, 0.5)")));
    }
    let refuse = |why: &str| Err(Error::config(key, format!("set {why}; leave it unset (collection that never yields)")));
    if matches!(ssd.ftl.scheme, FtlScheme::Fast | FtlScheme::BlockMap) {
        return refuse("with a block map: only the page-mapped schemes (\"page_map\", \"dftl\") collect in the background");
    }
    if ssd.ftl.gc_holds != GcHolds::Unit {
        return refuse("with gc_holds = \"channel\", SSDsim's collection that holds the channel to the end, the opposite choice");
    }
    if ssd.slc_cache.enabled() {
        return refuse("with an SLC cache (ssd.slc_cache), whose idle folds are not modelled beside collection that yields");
    }
    // MQSim's `block_pool_gc_hard_threshold`: rounded down, at least one block.
    let hard = ((f64::from(ssd.geometry.blocks_per_plane) * fraction).floor() as u32).max(1);
    if hard >= gc_threshold_blocks {
        return Err(Error::config(
            key,
            format!(
                "{fraction} gives {hard} blocks a plane, not below the {gc_threshold_blocks} at which collection starts \
                 (ssd.ftl.gc_threshold_fraction): collection would never yield"
            ),
        ));
    }
    Ok(Some(hard))
}

pub(super) fn validate_order(order: &str) -> Result<()> {
    let mut letters: Vec<char> = order.chars().collect();
    letters.sort_unstable();
    if letters != ['C', 'D', 'P', 'W'] {
        return Err(Error::config(
            "ssd.ftl.static_order",
            format!("`{order}` is not a permutation of C (channel), W (chip), D (die), P (plane), e.g. \"CWDP\""),
        ));
    }
    Ok(())
}
