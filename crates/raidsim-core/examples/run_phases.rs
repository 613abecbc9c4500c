//! One run timed by phase (configuration, drive set-up, simulation, report),
//! for profiling (`perf record`, `cargo flamegraph`) without Python around it.
//!
//! ```sh
//! cargo run --release -p raidsim-core --example run_phases -- PRESET [TRACE] [KEY=VALUE ...] [--report=PATH]
//! ```
//!
//! `--report=PATH` writes the run's whole report as JSON: two builds that
//! should simulate alike (an optimisation of the hot path) must write the
//! same bytes.

use raidsim_core::config::RawConfig;
use raidsim_core::Simulation;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let preset = args.next().expect("usage: run_phases PRESET [TRACE] [KEY=VALUE ...]");
    let mut raw = RawConfig::from_preset(&preset).expect("preset");
    let mut report_path = None;
    for a in args {
        if let Some(path) = a.strip_prefix("--report=") {
            report_path = Some(path.to_owned());
        } else if a.contains('=') {
            raw.set(&a).unwrap_or_else(|e| panic!("{a}: {e}"));
        } else {
            let trace = RawConfig::from_toml_str(&format!("kind = \"trace\"\npath = {a:?}"), "TRACE").expect("trace path");
            raw.replace_table("workload", &trace);
        }
    }
    let t0 = Instant::now();
    let resolved = raw.resolve().expect("valid config");
    let mut sim = Simulation::build(resolved).expect("builds");
    let t1 = Instant::now();
    while sim.precondition(u64::MAX).expect("preconditions") < 1.0 {}
    let t2 = Instant::now();
    sim.run().expect("runs");
    let t3 = Instant::now();
    let report = sim.report();
    let t4 = Instant::now();
    if let Some(path) = report_path {
        std::fs::write(&path, report.to_json()).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    let n = report.host.requests;
    let s = |a: Instant, b: Instant| b.duration_since(a).as_secs_f64();
    println!(
        "{n} requests: build {:.3} s, set-up {:.3} s, simulate {:.3} s ({:.0} req/s), report {:.3} s; mean {:.4} ms",
        s(t0, t1),
        s(t1, t2),
        s(t2, t3),
        n as f64 / s(t2, t3),
        s(t3, t4),
        report.host.response.mean_ns / 1e6
    );
}
