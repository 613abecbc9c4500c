//! Same config and seed, same bytes out (issue #2).

use crate::common;

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

#[test]
fn preconditioning_in_slices_gives_the_same_run_as_at_once() {
    use raidsim_core::Simulation;
    let o = [
        "array.level=raid5",
        "array.members=3",
        "ssd.geometry.blocks_per_plane=64",
        "precondition.fill_fraction=0.9",
        "precondition.random_overwrite_factor=0.5",
        "workload.requests=2000",
    ];
    let mut whole = Simulation::new(common::config("", &o)).expect("builds");
    whole.run().expect("runs");
    let mut sliced = Simulation::build(common::config("", &o)).expect("builds");
    let mut last = 0.0;
    loop {
        let done = sliced.precondition(10_007).expect("slice");
        assert!(done >= last, "progress never goes back");
        last = done;
        if done >= 1.0 {
            break;
        }
    }
    sliced.run().expect("runs");
    assert_eq!(whole.report().to_json(), sliced.report().to_json());
}

#[test]
fn counting_in_slices_gives_the_same_counts_as_at_once() {
    use raidsim_core::Counting;
    let o = [
        "array.level=raid5",
        "array.members=5",
        "array.stripe_unit_bytes=16384",
        "workload.requests=5000",
        "workload.size.kind=exponential",
        "workload.size.mean_bytes=40960",
    ];
    let cfg = common::config("", &o);
    let whole = raidsim_core::count(&cfg).expect("counts").to_json();
    let mut sliced = Counting::new(&cfg).expect("builds");
    while !sliced.step(333).expect("slice").finished {}
    assert_eq!(sliced.report().to_json(), whole);
    assert!(whole.contains("\"requests\": 5000"), "{whole}");
}
