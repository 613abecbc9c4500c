//! The block-mapped FTLs (`ssd.ftl.scheme = "fast"`, the hybrid log-block
//! FTL, and `"block_map"`) on a drive and in arrays: merge time by hand,
//! refusals by key, arrays with failures.

use crate::common;

use common::{config, refused, responses_in_arrival_order, ONE_DIE};
use raidsim_core::simulate;

/// One plane of 8 blocks of 4 pages, half spare (logical pages 0-15 in
/// logical blocks 0-3), filled, with two random log blocks.
const TINY_FAST: [&str; 6] = [
    "ssd.geometry.blocks_per_plane=8",
    "ssd.geometry.pages_per_block=4",
    "ssd.geometry.over_provisioning_fraction=0.5",
    "ssd.ftl.scheme=fast",
    "ssd.ftl.log_blocks_per_plane=2",
    "precondition.fill_fraction=1.0",
];

/// Eight single-page writes off the sequential pattern fill both random
/// log blocks; the ninth (page 14) merges the oldest, which holds pages
/// of all four logical blocks: 15 copies and 5 erases (counted by hand in
/// `ftl::log_block_tests`). The merge is owed to the die and runs before
/// the read that arrives just after the write: the read waits for the
/// write's transfer and program, 15 x (read 25 us + program 200 us), 5
/// erases of 1.5 ms, then its own sensing and transfer.
#[test]
fn a_read_behind_a_full_merge_waits_for_its_copies_and_erases() {
    let second = 1_000_000_000u64;
    let mut list: Vec<String> = [1u64, 6, 11, 13, 2, 7, 3, 5, 14]
        .iter()
        .enumerate()
        .map(|(i, lpn)| format!("[{}, \"W\", {}, 4096]", i as u64 * second, lpn * 4096))
        .collect();
    list.push(format!("[{}, \"R\", 0, 4096]", 8 * second + 1));
    let requests = format!("workload.requests=[{}]", list.join(", "));
    let overrides = [ONE_DIE.as_slice(), &TINY_FAST, &["workload.kind=requests", requests.as_str()]].concat();
    let r = responses_in_arrival_order(&overrides);
    let (transfer, program, read, erase) = (102_400u64, 200_000u64, 25_000u64, 1_500_000u64);
    assert!(r[..9].iter().all(|&w| w == transfer + program), "writes: {r:?}");
    assert_eq!(r[9], transfer + program - 1 + 15 * (read + program) + 5 * erase + read + transfer);
    let report = simulate(config("", &overrides)).expect("runs");
    let stat = |path: &str| report.stats.iter().find(|s| s.path == path).map(|s| s.value);
    assert_eq!((stat("ssd.ftl.merges.full"), stat("ssd.ftl.merges.switch")), (Some(4.0), Some(0.0)));
    assert_eq!(report.devices[0].erases, 5);
}

/// On a fresh drive, rewriting page 0 of a logical block that has no data
/// block closes its sequential log block by a partial merge that copies
/// page 3 from the random log and erases nothing: the copy is timed before
/// the next read on the die, and counted like any collection's.
#[test]
fn a_partial_merge_that_erases_nothing_is_timed_and_counted() {
    let second = 1_000_000_000u64;
    let requests = format!(
        "workload.requests=[[0, \"W\", {}, 4096], [{second}, \"W\", 0, 4096], [{}, \"W\", 0, 4096], [{}, \"R\", 32768, 4096]]",
        3 * 4096,
        2 * second,
        2 * second + 200_000
    );
    let overrides = [ONE_DIE.as_slice(), &TINY_FAST[..5], &["workload.kind=requests", requests.as_str()]].concat();
    let r = responses_in_arrival_order(&overrides);
    let (transfer, program, read) = (102_400u64, 200_000u64, 25_000u64);
    // The read waits out the write's program and the copy, then senses and moves its page.
    assert_eq!(r[3], transfer + program - 200_000 + (read + program) + read + transfer);
    let report = simulate(config("", &overrides)).expect("runs");
    let d = &report.devices[0];
    assert_eq!((d.pages_read.get("gc_read"), d.pages_written.get("gc_write"), d.gc_runs, d.erases), (Some(&1), Some(&1), 1, 0));
}

/// What FAST and the block map do not do is refused by the key that asks for it.
#[test]
fn settings_the_block_maps_cannot_honour_are_refused_by_key() {
    let fast = ["ssd.ftl.scheme=fast", "ssd.ftl.log_blocks_per_plane=4"];
    let cases: [(&[&str], &str); 11] = [
        (&["ssd.ftl.scheme=fast"], "ssd.ftl.log_blocks_per_plane"),
        (&["ssd.ftl.log_blocks_per_plane=4"], "ssd.ftl.log_blocks_per_plane"),
        (&["ssd.ftl.scheme=fast", "ssd.ftl.log_blocks_per_plane=0"], "ssd.ftl.log_blocks_per_plane"),
        // The default drive keeps floor(2048 x 0.15) = 307 spare blocks per plane: 305 log blocks fit, 306 do not.
        (&["ssd.ftl.scheme=fast", "ssd.ftl.log_blocks_per_plane=306"], "need 308 spare blocks per plane; over-provisioning leaves 307"),
        (&[&fast[..], &["ssd.ftl.allocation=dynamic"]].concat(), "ssd.ftl.allocation"),
        (&[&fast[..], &["ssd.ftl.summary_pages_per_block=1"]].concat(), "ssd.ftl.summary_pages_per_block"),
        (&[&fast[..], &["ssd.ftl.gc_victim=cost_benefit"]].concat(), "ssd.ftl.gc_victim"),
        (&[&fast[..], &["ssd.ftl.gc_threshold_fraction=0.1"]].concat(), "ssd.ftl.gc_threshold_fraction"),
        (&[&fast[..], &["ssd.ftl.static_wear_levelling_threshold=10"]].concat(), "ssd.ftl.static_wear_levelling_threshold"),
        (&[&fast[..], &["ssd.ftl.cmt_bytes=4096"]].concat(), "ssd.ftl.cmt_bytes"),
        (&[&fast[..], &["array.level=cr5", "array.members=4", "ssd.geometry.channels=4"]].concat(), "not modelled inside one SSD"),
    ];
    for (overrides, wanted) in cases {
        let e = refused(overrides);
        assert!(e.contains(wanted), "{overrides:?}: {e}");
    }
    let block_map = "ssd.ftl.scheme=block_map";
    for (overrides, wanted) in [
        (vec![block_map, "ssd.ftl.log_blocks_per_plane=4"], "applies to scheme = \"fast\", not \"block_map\""),
        (vec![block_map, "ssd.ftl.allocation=static_die"], "ssd.ftl.allocation"),
        (vec![block_map, "ssd.ftl.dynamic_wear_levelling=true"], "ssd.ftl.dynamic_wear_levelling"),
        (
            vec![block_map, "array.level=cr5m", "array.members=4", "ssd.geometry.channels=4", "array.stripe_unit_bytes=4096"],
            "\"block_map\" is not modelled inside one SSD",
        ),
        (vec![block_map, "array.level=raid1", "array.members=2", "array.gc_coordination=global"], "have none to force"),
    ] {
        let e = refused(&overrides);
        assert!(e.contains(wanted), "{overrides:?}: {e}");
    }
    assert!(simulate(config("", &[&fast[..], &["ssd.ftl.log_blocks_per_plane=305", "workload.requests=100"]].concat())).is_ok());
}

/// RAID-5, RAID-6 and RAID-10 of block-mapped drives, filled and aged,
/// lose a member and rebuild it onto a spare, with every byte checked: no
/// mismatch, and the drives merged.
#[test]
fn arrays_of_block_mapped_drives_fail_and_rebuild_with_every_byte_right() {
    for (level, members, scheme) in [("raid5", "5", "fast"), ("raid6", "6", "fast"), ("raid5", "5", "block_map"), ("raid10", "4", "block_map")] {
        let logs = if scheme == "fast" { "ssd.ftl.log_blocks_per_plane=2" } else { "sim.seed=1" };
        let o = [
            format!("array.level={level}"),
            format!("array.members={members}"),
            "array.stripe_unit_bytes=8192".into(),
            "array.failures=[{member = 1, at_request = 400}]".into(),
            "array.spares=1".into(),
            "ssd.geometry.channels=2".into(),
            "ssd.geometry.blocks_per_plane=32".into(),
            "ssd.geometry.pages_per_block=16".into(),
            format!("ssd.ftl.scheme={scheme}"),
            logs.into(),
            "precondition.fill_fraction=0.9".into(),
            "precondition.random_overwrite_factor=1".into(),
            "workload.requests=1500".into(),
            "workload.span_bytes=1048576".into(),
            "sim.verify=true".into(),
        ];
        let o: Vec<&str> = o.iter().map(String::as_str).collect();
        let r = simulate(config("", &o)).expect("runs");
        let v = r.verify.expect("verified");
        assert_eq!(v.mismatches, 0, "{level} {scheme}");
        assert!(v.sectors_checked_after_run > 0);
        let rebuild = r.rebuild.as_ref().expect("a rebuild");
        assert!(rebuild.data_loss_events.is_empty(), "{level}: lost data");
        assert!(rebuild.failures.iter().all(|f| f.spare.is_some() && f.rebuild_end_ns.is_some()), "{level}: rebuilt onto the spare");
        let full: f64 = r.stats.iter().filter(|s| s.path.ends_with("ftl.merges.full")).map(|s| s.value).sum();
        assert!(full > 0.0, "{level} {scheme}: the drives merged");
    }
}
