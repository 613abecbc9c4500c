//! Chen & Lee 1995 ("Striping in a RAID Level 5 Disk Array"): a disk's
//! positioning time and transfer rate, their product, and the rules that
//! turn it into a striping unit.
//!
//! The **disk performance product** (DPP) is average positioning time ×
//! sustained transfer rate: the bytes a disk could have moved in the time it
//! spends positioning. Chen & Lee express the best striping unit in units of
//! it:
//!
//! ```text
//! zero knowledge of the workload:  striping unit = Z × DPP
//! known concurrency:               striping unit = S × DPP × (concurrency − 1) + 1 sector
//! ```
//!
//! with Z_r ≈ 0.69, Z_w ≈ 0.18, Z_rw ≈ 0.5 and S_r ≈ 0.25, S_w ≈ 0.056 over
//! three disk types (their Table 2). "Effective" figures use only the first
//! `capacity_limit_bytes` of the disk, as their array does (Table 1).

use crate::config::{seek_moments, HddConfig, HddGeometry};
use crate::error::Result;

/// A disk's figures of Chen & Lee's Table 1, computed from its parameters.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DiskParameters {
    /// Bytes on the whole disk.
    pub disk_capacity_bytes: u64,
    /// Bytes used (the capacity limit applied).
    pub effective_capacity_bytes: u64,
    /// Media rate: sectors per track × bytes per sector / revolution, bytes/s.
    pub sustained_bytes_per_s: f64,
    /// Mean seek between two uniformly random cylinders of the whole disk
    /// on the fitted curve (equals the given average by construction) or
    /// the measured seek table, ns.
    pub average_seek_ns: f64,
    /// The same over the cylinders that hold the used bytes, ns.
    pub effective_average_seek_ns: f64,
    /// Effective average seek plus half a revolution, ns.
    pub effective_positioning_ns: f64,
    /// Effective positioning time × sustained rate, bytes.
    pub effective_performance_product_bytes: f64,
    /// Average seek plus half a revolution over the whole disk, ns.
    pub positioning_ns: f64,
    /// Positioning × sustained rate over the whole disk, bytes.
    pub performance_product_bytes: f64,
}

/// Mean of the fitted seek curve between two independent, uniformly random
/// cylinders among the first `cylinders`, ns.
pub fn mean_seek_ns(g: &HddGeometry, cylinders: u32) -> f64 {
    let (s1, s2, p1) = seek_moments(cylinders);
    g.seek_a_ns * s1 + g.seek_b_ns * s2 + g.seek_c_ns * p1
}

/// Mean of a measured seek table (interpolated as the disk does) between
/// two independent, uniformly random cylinders among the first `cylinders`:
/// `Σ 2·(C − d)/C² · seek(d)`, ns.
pub fn mean_table_seek_ns(table: &[[u64; 2]], cylinders: u32) -> f64 {
    let c = f64::from(cylinders);
    (1..cylinders).map(|d| 2.0 * (c - f64::from(d)) / (c * c) * crate::config::seek_table_ns(table, d) as f64).sum()
}

/// Table 1's derived rows for disk `cfg` (its seek table's means when it
/// has one, else the fitted curve's).
pub fn disk_parameters(cfg: &HddConfig) -> Result<DiskParameters> {
    let g = cfg.validate()?;
    let half_turn = g.revolution_ns as f64 / 2.0;
    let rate = g.sustained_bytes_per_s;
    let mean = |cylinders: u32| if cfg.seek_table.is_empty() { mean_seek_ns(&g, cylinders) } else { mean_table_seek_ns(&cfg.seek_table, cylinders) };
    let average = mean(cfg.cylinders);
    let effective = mean(g.cylinders_used);
    Ok(DiskParameters {
        disk_capacity_bytes: g.disk_sectors * g.bytes_per_sector,
        effective_capacity_bytes: g.capacity_bytes,
        sustained_bytes_per_s: rate,
        average_seek_ns: average,
        effective_average_seek_ns: effective,
        effective_positioning_ns: effective + half_turn,
        effective_performance_product_bytes: (effective + half_turn) * rate / 1e9,
        positioning_ns: average + half_turn,
        performance_product_bytes: (average + half_turn) * rate / 1e9,
    })
}

/// Chen & Lee's zero-knowledge striping unit, `Z × DPP`, bytes.
pub fn zero_knowledge_striping_unit(z: f64, performance_product_bytes: f64) -> f64 {
    z * performance_product_bytes
}

/// Chen & Lee's striping unit for a known concurrency,
/// `S × DPP × (concurrency − 1) + 1 sector`, bytes.
pub fn concurrency_striping_unit(s: f64, performance_product_bytes: f64, concurrency: u32, sector_bytes: u64) -> f64 {
    s * performance_product_bytes * f64::from(concurrency.saturating_sub(1)) + sector_bytes as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_match_the_papers_worked_examples() {
        // §4.1: 17 Lightnings, S_r = 0.22 gives a slope of 7.3 KB, so DPP = 33 KB.
        let dpp = 33.0 * 1024.0;
        assert!((concurrency_striping_unit(0.22, dpp, 2, 512) - 512.0 - 7.26 * 1024.0).abs() < 0.01 * 1024.0);
        // §4.1: Z_r = 0.73 gives 24 KB; §4.2: Z_w = 0.18 gives 6 KB.
        assert!((zero_knowledge_striping_unit(0.73, dpp) / 1024.0 - 24.09).abs() < 0.01);
        assert!((zero_knowledge_striping_unit(0.18, dpp) / 1024.0 - 5.94).abs() < 0.01);
        assert_eq!(concurrency_striping_unit(0.22, dpp, 1, 512), 512.0);
    }
}
