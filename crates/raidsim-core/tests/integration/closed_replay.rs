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
