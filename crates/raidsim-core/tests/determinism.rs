//! Same config and seed, same bytes out (issue #2).

mod common;

use common::config;
use raidsim_core::simulate;

fn run(seed: u64) -> String {
    let seed = format!("sim.seed={seed}");
    let o = [
        seed.as_str(),
        "workload.requests=20000",
        "workload.read_fraction=0.3",
        "workload.span_bytes=268435456",
        "precondition.fill_fraction=0.9",
        "precondition.random_overwrite_factor=0.5",
        "ssd.geometry.blocks_per_plane=64",
    ];
    simulate(config("stripe-unit-table5", &o)).expect("runs").to_json()
}

#[test]
fn identical_report_for_identical_config() {
    let a = run(11);
    assert_eq!(a, run(11));
    assert_ne!(a, run(12), "a different seed must change the run");
}
