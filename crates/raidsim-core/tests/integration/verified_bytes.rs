//! Verified bytes (issue #10): random scenarios with real bytes in the
//! members lose nothing; a broken parity update is caught; verification
//! does not change timing.

use crate::common;

use common::config;
use raidsim_core::simulate;
use raidsim_core::verify_cases::run_case;

#[test]
fn random_scenarios_read_back_every_write() {
    let mut checked = 0;
    for case in 0..1000 {
        let out = run_case(7, case, false).unwrap_or_else(|e| panic!("case {case}: {e}"));
        assert_eq!(out.mismatches, 0, "case {case}: {:?}\n{}", out.first_mismatches, out.overrides.join(" "));
        assert_eq!(out.data_loss_events, 0, "case {case}");
        checked += out.sectors_checked;
    }
    assert!(checked > 100_000, "{checked} sectors checked");
}

#[test]
fn the_cases_draw_every_flash_management_option() {
    let drawn: Vec<String> = (0..1000).flat_map(|case| raidsim_core::verify_cases::scenario(7, case)).collect();
    for option in [
        "ssd.ftl.gc_holds=\"channel\"",
        "ssd.ftl.scheme=\"dftl\"",
        "ssd.ftl.dynamic_wear_levelling=true",
        "ssd.parallel_unit=\"die\"",
        "ssd.parallel_unit=\"chip\"",
        "ssd.ftl.gc_victim=\"random_greedy\"",
    ] {
        assert!(drawn.iter().any(|o| o == option), "no case sets {option}");
    }
    assert!(drawn.iter().any(|o| o.starts_with("workload.trim_fraction=")), "no case trims");
    let shares = drawn.iter().filter(|o| o.starts_with("array.parity_distribution=")).count();
    assert!(shares > 20, "{shares} cases with Diff-RAID parity shares");
    let reads_first = drawn.iter().filter(|o| *o == "ssd.scheduling=\"reads_first\"").count();
    assert!(reads_first > 20, "{reads_first} cases whose reads pass buffered programs");
    let multi_plane = drawn.iter().filter(|o| *o == "ssd.multi_plane_programs=true").count();
    assert!(multi_plane > 10, "{multi_plane} cases whose dies program two planes at once");
    for (frontiers, at_least) in [("by_source", 100), ("translation_apart", 20)] {
        let n = drawn.iter().filter(|o| **o == format!("ssd.ftl.write_frontiers=\"{frontiers}\"")).count();
        assert!(n > at_least, "{n} cases with write_frontiers = {frontiers}");
    }
    let sata = drawn.iter().filter(|o| o.starts_with("ssd.timing.sata_hba_processing_ns=")).count();
    assert!(sata > 50, "{sata} cases of SATA drives");
}

#[test]
fn a_parity_update_that_writes_no_parity_is_caught() {
    // RAID-5 with a member failing halfway: reads of its units decode from
    // parity that read-modify-writes left stale.
    let caught: u64 = (0..300).filter_map(|c| run_case(7, c, true).ok()).map(|o| o.mismatches).sum();
    assert!(caught > 0, "the fault went unnoticed");
}

#[test]
fn stale_parity_is_caught_on_a_healthy_array_too() {
    // No failure, so no read ever decodes: only the after-run parity check
    // can see that read-modify-writes left parity stale.
    for level in ["raid5", "raid6"] {
        let o = [
            format!("array.level=\"{level}\""),
            "array.members=8".into(),
            "array.stripe_unit_bytes=8192".into(),
            "ssd.geometry.blocks_per_plane=32".into(),
            "workload.requests=300".into(),
            "workload.span_bytes=1048576".into(),
            "workload.size.kind=\"fixed\"".into(),
            "workload.size.mean_bytes=4096".into(),
            "workload.read_fraction=0.0".into(),
            "sim.verify=true".into(),
        ];
        let o: Vec<&str> = o.iter().map(String::as_str).collect();
        let mut sim = raidsim_core::sim::Simulation::new(config("", &o)).expect("config");
        sim.inject_fault_skip_rmw_parity().expect("array");
        sim.run().expect("runs");
        let v = sim.report().verify.expect("verify section");
        assert!(v.mismatches > 0, "{level}: stale parity went unnoticed");
        assert!(v.first_mismatches.iter().any(|m| m.contains("parity of stripe")), "{level}: {:?}", v.first_mismatches);
        assert!(v.redundancy_checked_after_run > 0);
    }
}

#[test]
fn verification_leaves_timing_unchanged() {
    let base = [
        "array.level=raid6",
        "array.members=6",
        "array.code=\"evenodd\"",
        "array.stripe_unit_bytes=8192",
        "array.spares=1",
        "array.failures=[{member = 2, at_request = 500}]",
        "ssd.geometry.blocks_per_plane=32",
        "workload.requests=2000",
        "workload.span_bytes=4194304",
        "workload.size.kind=\"uniform\"",
        "workload.size.min_bytes=4096",
        "workload.size.max_bytes=65536",
    ];
    let plain = simulate(config("", &base)).expect("runs");
    let mut v = base.to_vec();
    v.push("sim.verify=true");
    let mut verified = simulate(config("", &v)).expect("runs");
    let check = verified.verify.take().expect("verify report");
    assert_eq!(check.mismatches, 0, "{:?}", check.first_mismatches);
    assert!(check.sectors_checked_on_reads > 0 && check.sectors_checked_after_run > 0);
    assert_eq!(serde_json::to_string(&plain).expect("json"), serde_json::to_string(&verified).expect("json"));
}

#[test]
fn data_lost_beyond_tolerance_is_left_out_of_the_check_not_reported_as_corrupt() {
    let o = [
        "ssd.geometry.channels=1",
        "ssd.geometry.planes_per_die=1",
        "ssd.geometry.blocks_per_plane=64",
        "array.level=raid5",
        "array.members=4",
        "array.stripe_unit_bytes=8192",
        "workload.requests=1500",
        "workload.processes=4",
        "sim.verify=true",
        "array.failures=[{member = 1, at_request = 200}, {member = 2, at_request = 600}]",
    ];
    let r = simulate(config("", &o)).expect("a data loss under verify is recorded, not an error");
    let rb = r.rebuild.as_ref().expect("rebuild section");
    assert_eq!(rb.data_loss_events.len(), 1);
    assert!(rb.failed_reads + rb.failed_writes > 0);
    let v = r.verify.as_ref().expect("verify section");
    assert_eq!(v.mismatches, 0, "{:?}", v.first_mismatches);
    assert!(v.sectors_checked_on_reads > 0);
}
