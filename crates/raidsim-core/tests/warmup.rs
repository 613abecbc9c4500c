//! `sim.warmup_requests`: the RAIS paper warms each drive with the
//! experiment's own pattern before measuring (§4). Reads on one die, each
//! 25 us of sensing and 102.4 us of transfer, spaced 1 ms apart.

mod common;

use common::config;
use raidsim_core::simulate;

const ONE_DIE: [&str; 6] = [
    "ssd.geometry.channels=1",
    "ssd.geometry.chips_per_channel=1",
    "ssd.geometry.dies_per_chip=1",
    "ssd.geometry.blocks_per_plane=64",
    "ssd.timing.host_link_bandwidth_bytes_per_s=0",
    "metrics.interval_ns=1000000",
];

fn run(warmup: u64) -> raidsim_core::Result<raidsim_core::report::Report> {
    // Two writes, then two reads of what they wrote.
    let w = "workload.requests=[[0, \"W\", 0, 4096], [1000000, \"W\", 4096, 4096], [2000000, \"R\", 0, 4096], [3000000, \"R\", 4096, 4096]]";
    let warm = format!("sim.warmup_requests={warmup}");
    let mut o = vec!["workload.kind=requests", w, warm.as_str()];
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
    assert_eq!(r.time_series.start_ns.first(), Some(&2_000_000), "the series starts at the warm-up's end");
    let cold = run(0).expect("runs");
    assert_eq!(cold.host.requests, 4);
    assert_eq!(cold.time_series.start_ns.first(), Some(&0));
}

#[test]
fn a_warm_up_as_long_as_the_workload_is_an_error() {
    let e = run(4).expect_err("nothing measured").to_string();
    assert!(e.contains("sim.warmup_requests = 4") && e.contains("none was measured"), "{e}");
}
