//! `workload.replay = "closed"`: a trace replayed one request at a time,
//! each issued the trace's idle time after the previous one completes in
//! the simulation, as DiskSim's validation mode replays its traces.

use crate::common::config;
use raidsim_core::Simulation;
use std::path::{Path, PathBuf};

fn trace(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("raidsim-closed-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write trace");
    path
}

/// Issue and completion instants of each request, in issue order.
fn replay(path: &Path, extra: &[&str]) -> Vec<(u64, u64)> {
    let (p, log) = (format!("workload.path={:?}", path.to_str().expect("utf-8")), "metrics.request_log=\"unused.parquet\"");
    let overrides = [&["workload.kind=\"trace\"", p.as_str(), log, "array.level=\"single\""][..], extra].concat();
    let mut sim = Simulation::new(config("hdd-ibm-lightning", &overrides)).expect("builds");
    sim.run().expect("runs");
    let log = sim.request_log().expect("a log");
    let mut rows: Vec<(u64, u64)> = log.arrival_ns.iter().copied().zip(log.completion_ns.iter().copied()).collect();
    rows.sort_unstable();
    rows
}

// R|W buffer block blocks service_us idle_us: the idle time after each request before the next.
const VALIDATE: &str = "R Hit 1000 8 9000 1000\nW Hit 400000 16 4000 0\nR Hit 5000 8 12000 2500.5\nR Hit 70000 4 8000 10\n";

#[test]
fn each_request_issues_its_idle_time_after_the_previous_completes() {
    let rows = replay(&trace("closed.trace", VALIDATE), &["workload.replay=\"closed\""]);
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0].0, 0);
    for (k, idle_ns) in [1_000_000, 0, 2_500_500].into_iter().enumerate() {
        assert_eq!(rows[k + 1].0, rows[k].1 + idle_ns, "request {}", k + 1);
    }
    // Open loop, the same trace issues at the sums of the measured service and idle times.
    let open = replay(&trace("open.trace", VALIDATE), &[]);
    let issued: Vec<u64> = open.iter().map(|r| r.0).collect();
    assert_eq!(issued, [0, 10_000_000, 14_000_000, 28_500_500]);
}

#[test]
fn time_scale_scales_the_idle_times() {
    let rows = replay(&trace("scaled.trace", VALIDATE), &["workload.replay=\"closed\"", "workload.time_scale=0.5"]);
    assert_eq!(rows[1].0, rows[0].1 + 500_000);
    assert_eq!(rows[3].0, rows[2].1 + 1_250_250, "half of 2,500,500 ns, rounded");
}

#[test]
fn a_format_without_idle_times_replays_back_to_back() {
    // DiskSim's ASCII format: time_ms device block blocks flags (1 = read).
    let ascii = "0.0 0 1000 8 1\n50.0 0 400000 16 0\n51.0 0 5000 8 1\n";
    let rows = replay(&trace("ascii.trace", ascii), &["workload.replay=\"closed\"", "workload.format=\"disksim_ascii\""]);
    assert_eq!(rows[0].0, 0);
    assert!(rows.windows(2).all(|w| w[1].0 == w[0].1), "{rows:?}");
}

fn run_closed_and_open(name: &str, text: &str) -> (Result<raidsim_core::Report, String>, Result<raidsim_core::Report, String>) {
    let path = trace(name, text);
    let p = format!("workload.path={:?}", path.to_str().expect("utf-8"));
    let base = ["workload.kind=\"trace\"", p.as_str(), "array.level=\"single\"", "workload.out_of_order=\"error\""];
    let run = |extra: &[&str]| {
        let mut sim = Simulation::new(config("hdd-ibm-lightning", &[&base[..], extra].concat())).expect("builds");
        sim.run().map(|_| sim.report()).map_err(|e| e.to_string())
    };
    (run(&["workload.replay=\"closed\""]), run(&[]))
}

#[test]
fn closed_the_timestamps_are_not_checked() {
    // A measured service time of 10^16 us puts the open replay's next issue past 2^62 ns; closed, only
    // the idle times count.
    let (closed, open) = run_closed_and_open("timestamps.trace", "R Hit 1000 8 10000000000000000 100\nR Hit 2000 8 100 0\n");
    assert_eq!(closed.expect("the timestamps are not used").host.requests, 2);
    assert!(open.expect_err("refused").contains("2^62"));
}

#[test]
fn closed_no_queue_grows_so_no_saturation_is_reported() {
    // 150 reads with no idle time, then one long read: open loop they all arrive within 15 ms.
    let mut text = String::new();
    for i in 0..150 {
        text.push_str(&format!("R Hit {} 8 100 0\n", 2000 + 97 * i));
    }
    text.push_str("R Hit 10000 400000 100 0\n");
    let (closed, open) = run_closed_and_open("burst.trace", &text);
    let closed = closed.expect("runs");
    assert_eq!(closed.host.requests, 151);
    assert!(closed.warnings.is_empty(), "{:?}", closed.warnings);
    let open = open.expect("runs");
    assert!(open.warnings.iter().any(|w| w.starts_with("saturated")), "{:?}", open.warnings);
}

#[test]
fn an_idle_time_past_the_clock_is_an_error_naming_the_request() {
    let path = trace("idle.trace", "R Hit 1000 8 100 9000000000000000\nR Hit 2000 8 100 0\n");
    let p = format!("workload.path={:?}", path.to_str().expect("utf-8"));
    let cfg = config("hdd-ibm-lightning", &["workload.kind=\"trace\"", &p, "workload.replay=\"closed\"", "array.level=\"single\""]);
    let mut sim = Simulation::new(cfg).expect("builds");
    let err = sim.run().expect_err("9e15 us is past 2^62 ns").to_string();
    assert!(err.contains("trace request 1") && err.contains("idle time"), "{err}");
}
