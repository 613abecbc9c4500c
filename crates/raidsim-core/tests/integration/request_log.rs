//! `metrics.request_log`: one row per measured host request, the same
//! population and the same times the report summarises.

use raidsim_core::config::RawConfig;
use raidsim_core::Simulation;

fn run(overrides: &[&str]) -> Simulation {
    let mut raw = RawConfig::from_preset("stripe-unit-table5").expect("preset");
    for o in overrides {
        raw.set(o).expect("override");
    }
    let mut sim = Simulation::new(raw.resolve().expect("resolves")).expect("builds");
    sim.run().expect("runs");
    sim
}

#[test]
fn the_log_holds_every_measured_request_with_the_reports_times() {
    let common = ["array.level=\"raid5\"", "array.members=4", "ssd.geometry.blocks_per_plane=64", "workload.requests=3000"];
    let sim = run(&[&common[..], &["metrics.request_log=\"log.parquet\"", "sim.warmup_requests=500"]].concat());
    let (log, host) = (sim.request_log().expect("a log"), sim.report().host);
    assert_eq!(log.len() as u64, host.requests, "every measured request, none of the warm-up");
    assert_eq!(log.len(), 2500);
    let writes = log.op.iter().filter(|&&op| op == 1).count() as u64;
    assert_eq!((log.len() as u64 - writes, writes), (host.reads, host.writes));
    let bytes: u64 = log.len_bytes.iter().sum();
    assert_eq!(bytes, host.bytes_read + host.bytes_written);
    let responses: Vec<u64> = log.completion_ns.iter().zip(&log.arrival_ns).map(|(c, a)| c - a).collect();
    let mean = responses.iter().sum::<u64>() as f64 / responses.len() as f64;
    assert!((mean - host.response.mean_ns).abs() < 1e-6 * mean, "log mean {mean} vs report {}", host.response.mean_ns);
    assert!(log.completion_ns.windows(2).all(|w| w[0] <= w[1]), "rows in completion order");
    assert!(log.served.iter().all(|&s| s == 1));
    // The same run without the log gives the same report: logging changes nothing measured.
    let plain = run(&[&common[..], &["sim.warmup_requests=500"]].concat());
    assert!(plain.request_log().is_none());
    assert_eq!(plain.report().host.response.mean_ns, host.response.mean_ns);
}

#[test]
fn counting_mode_refuses_a_request_log() {
    let mut raw = RawConfig::from_preset("stripe-unit-table5").expect("preset");
    raw.set("metrics.request_log=\"log.parquet\"").expect("override");
    let err = raidsim_core::Counting::new(&raw.resolve().expect("resolves")).err().expect("refused").to_string();
    assert!(err.contains("metrics.request_log"), "{err}");
}

/// The time series counts every garbage-collection run of the drives once,
/// in the interval of the first host completion after it: on a full,
/// aged array, where collection runs all along, the series sums to the
/// drives' own counts.
#[test]
fn the_time_series_counts_each_garbage_collection_run_once() {
    let sim = run(&[
        "array.level=\"raid5\"",
        "array.members=4",
        "ssd.geometry.blocks_per_plane=64",
        "precondition.fill_fraction=0.95",
        "precondition.sequential_overwrite_factor=1",
        "workload.requests=6000",
        "workload.read_fraction=0",
        "sim.warmup_requests=1000",
    ]);
    let report = sim.report();
    let by_drives: f64 = report.stats.iter().filter(|s| s.path.ends_with(".ftl.gc.runs")).map(|s| s.value).sum();
    let by_interval: u64 = report.time_series.gc_runs.iter().sum();
    assert!(by_drives > 100.0, "collection runs all along: {by_drives}");
    assert_eq!(by_interval as f64, by_drives);
    assert!(report.time_series.gc_runs.iter().filter(|&&n| n > 0).count() > 1, "spread over the run");
}
