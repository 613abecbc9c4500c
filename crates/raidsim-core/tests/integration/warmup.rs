//! `sim.warmup_requests`: the RAIS paper warms each drive with the
//! experiment's own pattern before measuring (§4). Reads on one die, each
//! 25 us of sensing and 102.4 us of transfer, spaced 1 ms apart.

use crate::common;

use common::{config, refused};
use raidsim_core::simulate;

const ONE_DIE: [&str; 6] = [
    "ssd.geometry.channels=1",
    "ssd.geometry.chips_per_channel=1",
    "ssd.geometry.dies_per_chip=1",
    "ssd.geometry.blocks_per_plane=64",
    "ssd.timing.host_link_bandwidth_bytes_per_s=0",
    "metrics.interval_ns=1000000",
];

/// Two writes, then two reads of what they wrote.
const REQUESTS: &str =
    "workload.requests=[[0, \"W\", 0, 4096], [1000000, \"W\", 4096, 4096], [2000000, \"R\", 0, 4096], [3000000, \"R\", 4096, 4096]]";

fn run(warmup: u64) -> raidsim_core::Result<raidsim_core::report::Report> {
    let warm = format!("sim.warmup_requests={warmup}");
    let mut o = vec!["workload.kind=requests", REQUESTS, warm.as_str()];
    o.extend_from_slice(&ONE_DIE);
    simulate(config("", &o))
}

#[test]
fn warm_up_requests_run_but_neither_host_nor_device_counts_them() {
    let r = run(2).expect("runs");
    assert_eq!((r.host.requests, r.host.reads, r.host.writes), (2, 2, 0));
    assert_eq!(r.host.response.mean_ns, 127_400.0);
    assert!(r.devices[0].pages_written.is_empty(), "the warm-up's writes are not counted: {:?}", r.devices[0].pages_written);
    assert_eq!(r.devices[0].pages_read.get("user"), Some(&2));
    // Measured from the first measured arrival: 2 ms to the last completion.
    assert_eq!(r.host.duration_ns, 1_000_000 + 127_400);
    // The warm-up ends when its second write ends: 1 ms + 102.4 us of transfer + 200 us of program.
    assert_eq!(r.time_series.start_ns.first(), Some(&1_302_400), "the series starts at the warm-up's end");
    let cold = run(0).expect("runs");
    assert_eq!(cold.host.requests, 4);
    assert_eq!(cold.time_series.start_ns.first(), Some(&0));
}

#[test]
fn a_warm_up_as_long_as_the_workload_is_refused_before_it_runs() {
    let mut o = vec!["workload.kind=requests", REQUESTS, "sim.warmup_requests=4"];
    o.extend_from_slice(&ONE_DIE);
    let e = refused(&o);
    assert!(e.contains("sim.warmup_requests") && e.contains("the run issues 4"), "{e}");
}

#[test]
fn a_closed_loop_after_its_warm_up_measures_the_steady_rate() {
    // The drive's processor takes 630 us per write and the buffer
    // acknowledges it then, so at any queue depth the writes end 630 us
    // apart: 1e9 / 630e3 = 1587.3 IOPS. A window opened at an issue would
    // charge it with the warm-up requests still in flight.
    let o = [
        "ssd.write_buffer_bytes=1048576",
        "ssd.timing.firmware_write_ns=630000",
        "workload.kind=\"synthetic\"",
        "workload.requests=1000",
        "workload.processes=32",
        "workload.read_fraction=0.0",
        "workload.span_bytes=1048576",
        "sim.warmup_requests=500",
    ];
    let r = simulate(config("", &o)).expect("runs");
    assert_eq!(r.host.requests, 500);
    assert!((r.host.iops - 1e9 / 630e3).abs() < 1e-6, "{} IOPS", r.host.iops);
}

#[test]
fn a_warm_up_that_trims_keep_from_ending_says_what_it_counted() {
    // A fifth of the 500 requests are trims, which the warm-up does not
    // count: 400 reads and writes never end, and the error says so.
    let mut o = vec!["workload.kind=synthetic", "workload.requests=500", "workload.trim_fraction=0.2", "sim.warmup_requests=400"];
    o.extend_from_slice(&ONE_DIE);
    let e = simulate(config("", &o)).expect_err("nothing measured").to_string();
    let ended: u64 = e.split("but only ").nth(1).and_then(|s| s.split(' ').next()).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{e}"));
    assert!(ended < 400 && e.contains("of the 500 requests issued") && e.contains("trims"), "{e}");
}
