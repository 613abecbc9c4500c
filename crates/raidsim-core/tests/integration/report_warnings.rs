//! The report says when its figures measure something other than the
//! device (issue #8): an overloaded open-loop run.

use crate::common;

use common::config;
use raidsim_core::simulate;

fn run(mean_interarrival_ns: u64) -> raidsim_core::Report {
    let rate = format!("workload.mean_interarrival_ns={mean_interarrival_ns}");
    let o = ["workload.requests=20000", "workload.read_fraction=0", rate.as_str(), "ssd.geometry.blocks_per_plane=64"];
    simulate(config("", &o)).expect("runs")
}

#[test]
fn an_overloaded_open_loop_run_is_reported_as_saturated() {
    // 8 dies write at most 8 / 302.4 us = 26,500 pages/s; offer 100,000/s.
    let r = run(10_000);
    let w = r.warnings.iter().find(|w| w.starts_with("saturated")).unwrap_or_else(|| panic!("{:?}", r.warnings));
    let number_after = |key: &str| -> f64 {
        let rest = &w[w.find(key).expect(key) + key.len()..];
        rest.split_whitespace().next().and_then(|x| x.parse().ok()).expect("a number")
    };
    let (offered, served) = (number_after("arrived at "), number_after("served at "));
    assert!((offered - 100_000.0).abs() < 2_000.0, "{w}");
    assert!(served <= 26_500.0, "served above the drive's program rate: {w}");
}

#[test]
fn a_run_within_capacity_has_no_warning() {
    // 2,000 writes/s: under a tenth of what the drive can program.
    let r = run(500_000);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn a_burst_of_three_requests_is_not_saturation() {
    let o = ["workload.kind=requests", "workload.requests=[[0, \"W\", 0, 65536], [1000, \"R\", 0, 4096], [2000, \"R\", 8192, 4096]]"];
    let r = simulate(config("", &o)).expect("runs");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn a_backlog_in_the_middle_of_a_run_is_reported_even_when_it_drains() {
    // 3,000 writes 1 us apart (far beyond 8 dies), then 300 reads 100 ms
    // apart: the queue drains long before the end, so the end-of-run test
    // sees nothing; the peak backlog shows it.
    let burst = (0..3000u64).map(|i| format!("[{}, \"W\", {}, 4096]", i * 1000, i * 4096));
    let tail = (0..300u64).map(|i| format!("[{}, \"R\", {}, 4096]", 10_000_000_000 + i * 100_000_000, i * 4096));
    let list = format!("workload.requests=[{}]", burst.chain(tail).collect::<Vec<_>>().join(","));
    let o = ["workload.kind=requests", list.as_str(), "ssd.geometry.blocks_per_plane=64"];
    let r = simulate(config("", &o)).expect("runs");
    assert!(!r.warnings.iter().any(|w| w.starts_with("saturated:")), "{:?}", r.warnings);
    let w = r.warnings.iter().find(|w| w.starts_with("saturated for a while")).unwrap_or_else(|| panic!("{:?}", r.warnings));
    assert!(w.contains("requests were outstanding at once"), "{w}");
}
