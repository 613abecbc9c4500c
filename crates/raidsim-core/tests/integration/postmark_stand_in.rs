//! The stripe-unit paper's Tables 1 and 2 (RAID-4 4+1, 128 KiB units, page
//! counts of the PostMark trace under DiskSim) against a synthetic stand-in
//! for the trace, which we do not have: its 10,480 writes drawn from the
//! paper's Table 6 statistics (mean 833 KB, at most 4096 KB, exponential,
//! 4 KiB aligned, uniform over 16 GiB), counted under DiskSim's parity rule
//! (issue #7). Published (Table 1, 2; thousands of pages): writes
//! 545/546/546/546 on D0-D3 and 703 on P; reads 443/416/417/445 on D0-D3
//! and 75 on P, of which 1,272 are user reads (318 per data disk if even).
//!
//! What agrees: parity writes within 12 % (782 K vs 703 K once data writes
//! are scaled to the published 2,183 K); the read spread — the edge disks
//! D0 and D3 read more than D1 and D2, and the parity disk fewest — which md's
//! page rule inverts (181 K parity reads against 78 K on D1). What does not:
//! extra reads are 195/149/150/197/98 K against 125/98/99/127/75 K, about
//! 1.5 times: the stand-in's writes fall on random offsets, PostMark's (a
//! file system's) likely more often on whole units. Not within "a few
//! percent"; the gap is stated in the README.

use raidsim_core::config::RawConfig;
use raidsim_core::count;

fn counts(granularity: &str) -> (Vec<f64>, Vec<f64>) {
    let mut raw = RawConfig::new();
    for o in [
        "array.level=raid4".to_string(),
        "array.members=5".into(),
        "array.stripe_unit_bytes=131072".into(),
        format!("array.parity_granularity={granularity}"),
        "workload.requests=10480".into(),
        "workload.read_fraction=0".into(),
        "workload.size.kind=exponential".into(),
        "workload.size.mean_bytes=852992".into(),
        "workload.size.max_bytes=4194304".into(),
        "workload.size.min_bytes=4096".into(),
        "workload.size.quantum_bytes=4096".into(),
        "workload.size.adjust_mean=true".into(),
        "workload.alignment_bytes=4096".into(),
        format!("workload.span_bytes={}", 16u64 << 30),
    ] {
        raw.set(&o).unwrap_or_else(|e| panic!("{o}: {e}"));
    }
    let c = count(&raw.resolve().expect("valid")).expect("counts");
    let written: Vec<f64> = c.members.iter().map(|m| m.pages_written.values().sum::<u64>() as f64).collect();
    // Scale to the published 2,183 K data-page writes, in thousands.
    let scale = 2183.0 / written[..4].iter().sum::<f64>();
    let extra = c
        .members
        .iter()
        .map(|m| (m.pages_read.get("pre_read_rmw").unwrap_or(&0) + m.pages_read.get("pre_read_rcw").unwrap_or(&0)) as f64 * scale)
        .collect();
    (written.iter().map(|w| w * scale).collect(), extra)
}

#[test]
fn disksim_rule_gives_table_1_parity_writes_within_15_percent() {
    let (written, _) = counts("disksim");
    eprintln!("page writes (K): {written:.0?}; published 545/546/546/546/703");
    assert!((written[4] - 703.0).abs() <= 0.15 * 703.0, "parity {:.0} K vs 703 K", written[4]);
}

#[test]
fn disksim_rule_gives_table_2_read_spread() {
    let (_, extra) = counts("disksim");
    eprintln!("extra page reads (K): {extra:.0?}; published (less 318 K user reads each) 125/98/99/127/75");
    let middle = extra[1].max(extra[2]);
    assert!(extra[0] > 1.2 * middle && extra[3] > 1.2 * middle, "edge disks read more: {extra:?}");
    assert!(extra[4] < extra[1].min(extra[2]), "parity disk reads fewest: {extra:?}");
    let (_, md) = counts("page");
    assert!(md[4] > md[1].max(md[2]), "md's page rule reads parity most, unlike DiskSim: {md:?}");
}
