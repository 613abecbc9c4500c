//! Timed arrays: striping speed-up, and timed counters equal counting mode (issue #3).

use crate::common;

use common::config;
use raidsim_core::{count, simulate};

#[test]
fn raid0_of_n_reads_a_large_request_about_n_times_faster() {
    // One 4 MiB read; no host link limit, so the flash and channels decide.
    let req = "workload.requests=[[0, \"R\", 0, 4194304]]";
    let common = ["workload.kind=requests", req, "ssd.timing.host_link_bandwidth_bytes_per_s=0"];
    let one = simulate(config("stripe-unit-table5", &common)).expect("single").host.response.mean_ns;
    for n in [2u32, 4] {
        let members = format!("array.members={n}");
        let mut o = common.to_vec();
        o.extend(["array.level=raid0", "array.stripe_unit_bytes=4096", members.as_str()]);
        let t = simulate(config("stripe-unit-table5", &o)).expect("raid0").host.response.mean_ns;
        let speedup = one / t;
        eprintln!("RAID0 of {n}: {one:.0} ns -> {t:.0} ns, speed-up {speedup:.2}");
        assert!((speedup - f64::from(n)).abs() < 0.1 * f64::from(n), "speed-up {speedup} for {n} members");
    }
}

#[test]
fn timed_member_counters_equal_counting_mode() {
    // The same planner drives both modes, so every page count by cause agrees.
    let o = [
        "array.level=raid5",
        "array.members=5",
        "array.stripe_unit_bytes=16384",
        "workload.requests=3000",
        "workload.read_fraction=0.3",
        "workload.size.kind=uniform",
        "workload.size.min_bytes=512",
        "workload.size.max_bytes=131072",
        "workload.alignment_bytes=512",
        "workload.span_bytes=268435456",
        "ssd.geometry.blocks_per_plane=64",
    ];
    // Whatever the drives' controllers do (timing, collection, the map,
    // buffers), the array asks each member for the same pages.
    let flash: [&[&str]; 8] = [
        &[],
        &["ssd.erase_suspend.ops=\"reads_and_writes\"", "precondition.random_overwrite_factor=1"],
        &["ssd.ftl.scheme=\"dftl\"", "ssd.ftl.cmt_bytes=65536"],
        &["ssd.ftl.gc_victim=\"random_greedy\"", "ssd.ftl.gc_holds=\"channel\"", "precondition.random_overwrite_factor=1"],
        &["ssd.parallel_unit=\"chip\"", "ssd.write_buffer_bytes=65536", "ssd.write_buffer_unit=\"sector\""],
        &["ssd.ftl.dynamic_wear_levelling=true", "ssd.ftl.static_wear_levelling_threshold=2"],
        &[
            "ssd.ftl.scheme=\"fast\"",
            "ssd.ftl.log_blocks_per_plane=4",
            "ssd.ftl.allocation=\"static\"",
            "ssd.ftl.summary_pages_per_block=0",
            "precondition.random_overwrite_factor=1",
        ],
        &["ssd.ftl.scheme=\"block_map\"", "ssd.ftl.allocation=\"static\"", "ssd.ftl.summary_pages_per_block=0"],
    ];
    for extra in flash {
        let r = config("stripe-unit-table5", &[&o[..], extra].concat());
        let counted = count(&r).expect("counts");
        let timed = simulate(r).expect("runs");
        assert_eq!(counted.members.len(), timed.devices.len());
        for (c, d) in counted.members.iter().zip(&timed.devices) {
            // The drive's own reads and writes are below the array: counting
            // mode does not see reads of partly written pages (512-byte
            // alignment makes many), collection's copies or the map's pages.
            let mut read = d.pages_read.clone();
            assert!(read.remove("partial_page_read").unwrap_or(0) > 0, "{}: no partial-page reads", d.name);
            let mut written = d.pages_written.clone();
            for own in ["gc_read", "map_read"] {
                read.remove(own);
            }
            for own in ["gc_write", "map_write"] {
                written.remove(own);
            }
            assert_eq!(c.pages_read, read, "{} {extra:?}", d.name);
            assert_eq!(c.pages_written, written, "{} {extra:?}", d.name);
        }
    }
}

#[test]
fn degraded_raid5_reads_every_survivor_and_never_the_failed_member() {
    let o = [
        "array.level=raid5",
        "array.members=4",
        "array.stripe_unit_bytes=4096",
        "array.failures=[{member = 2, at_ns = 0}]",
        "workload.requests=2000",
        "workload.read_fraction=1.0",
        "workload.span_bytes=67108864",
        "ssd.geometry.blocks_per_plane=64",
    ];
    let r = simulate(config("stripe-unit-table5", &o)).expect("runs");
    assert_eq!(r.host.requests, 2000);
    assert!(r.devices[2].pages_read.is_empty(), "failed member read: {:?}", r.devices[2].pages_read);
    for m in [0, 1, 3] {
        assert!(r.devices[m].pages_read.get("degraded_read").copied().unwrap_or(0) > 0);
    }
}

#[test]
fn more_failures_from_the_start_than_the_level_tolerates_is_an_error() {
    let mut raw = raidsim_core::config::RawConfig::new();
    for o in ["array.level=raid5", "array.members=4", "array.failures=[{member = 0, at_ns = 0}, {member = 1, at_request = 0}]"] {
        raw.set(o).expect("parses");
    }
    let err = raw.resolve().expect_err("two failures on RAID-5").to_string();
    assert!(err.contains("tolerates 1"), "{err}");
}
