//! The settings of the block-mapped FTLs (`ssd.ftl.scheme = "fast"`, the
//! hybrid log-block FTL, and `"block_map"`), checked against the rest of
//! the drive: what they do not do is refused by key, not ignored.

use super::ftl::{Allocation, FtlConfig, GcVictim};
use super::mapping_cache::FtlScheme;
use super::ssd::SsdConfig;
use crate::error::{Error, Result};

/// `log_blocks_per_plane` belongs to FAST, and a block map to a drive it can run on:
/// static allocation (a logical block's plane is fixed by its number), no
/// summary pages (a data block's page `k` holds its logical page `k`), no
/// mirroring chips, and none of the page map's collection settings, which
/// its merges replace. `spare_blocks_per_plane` must hold the random log
/// blocks, the sequential log block and a block to merge into.
pub(super) fn validate(ssd: &SsdConfig, spare_blocks_per_plane: u64) -> Result<()> {
    let ftl = &ssd.ftl;
    let key = "ssd.ftl.log_blocks_per_plane";
    let logs = match (ftl.scheme, ftl.log_blocks_per_plane) {
        (FtlScheme::Fast, Some(n)) => n,
        (FtlScheme::Fast, None) => return Err(Error::config(key, "scheme = \"fast\" needs the random log blocks of each plane")),
        (_, Some(_)) => return Err(Error::config(key, format!("applies to scheme = \"fast\", not {:?}", ftl.scheme.name()))),
        (FtlScheme::BlockMap, None) => return block_mapped(ssd),
        (FtlScheme::PageMap | FtlScheme::Dftl, None) => return Ok(()),
    };
    if logs == 0 {
        return Err(Error::config(key, "must be at least 1: FAST appends every write that is not sequential to a random log block"));
    }
    if u64::from(logs) + 2 > spare_blocks_per_plane {
        return Err(Error::config(
            key,
            format!(
                "{logs} log blocks, the sequential log block and a block to merge into need {} spare blocks per plane; \
                 over-provisioning leaves {spare_blocks_per_plane}",
                u64::from(logs) + 2
            ),
        ));
    }
    block_mapped(ssd)
}

/// What every block-mapped FTL needs of the drive (the spare blocks to
/// merge into are the three that validation always keeps).
fn block_mapped(ssd: &SsdConfig) -> Result<()> {
    let ftl = &ssd.ftl;
    let scheme = ftl.scheme.name();
    let refuse = |key: &str, why: &str| Err(Error::config(key, format!("{why} (scheme = {scheme:?})")));
    let default = FtlConfig::default();
    if ftl.allocation != Allocation::Static {
        return refuse("ssd.ftl.allocation", "must be \"static\": a block-mapped FTL fixes each logical block's plane");
    }
    if ftl.summary_pages_per_block != 0 {
        return refuse("ssd.ftl.summary_pages_per_block", "must be 0: page k of a data block holds page k of its logical block");
    }
    if ssd.geometry.mirroring_chips_per_channel != 0 {
        return refuse("array.level", "mirroring chips (cr5m) keep copies the block map has no place for");
    }
    if ftl.gc_victim != GcVictim::Greedy || ftl.gc_victim_sample.is_some() {
        return refuse("ssd.ftl.gc_victim", "does not apply: a block map merges the blocks its writes need, not a victim it picks");
    }
    if ftl.gc_threshold_fraction != default.gc_threshold_fraction {
        return refuse("ssd.ftl.gc_threshold_fraction", "does not apply: a block map merges when a write needs it, not below a free-block threshold");
    }
    let no_levelling = "wear levelling is not modelled for block maps: they take free blocks in the order they were erased";
    if ftl.dynamic_wear_levelling {
        return refuse("ssd.ftl.dynamic_wear_levelling", no_levelling);
    }
    if ftl.static_wear_levelling_threshold.is_some() {
        return refuse("ssd.ftl.static_wear_levelling_threshold", no_levelling);
    }
    Ok(())
}
