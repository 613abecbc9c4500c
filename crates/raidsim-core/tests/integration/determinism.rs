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

/// One configuration of each path a run can take: levels, codes, failures
/// and rebuilds, the controller's caches, RAID inside one SSD.
const PATHS: [(&str, &[&str]); 8] = [
    ("stripe-unit-table5", &["array.level=raid5", "array.members=5", "array.write_method=\"rmw\""]),
    ("stripe-unit-table5", &["array.level=raid6", "array.members=6", "array.code=\"evenodd\""]),
    ("stripe-unit-table5", &["array.level=raid10", "array.members=4"]),
    ("stripe-unit-table5", &["array.level=raid5", "array.members=5", "array.spares=1", "array.failures=[{member = 2, at_ns = 1000000}]"]),
    (
        "stripe-unit-table5",
        &[
            "array.level=raid6",
            "array.members=6",
            "array.spares=2",
            "array.failures=[{member = 1, at_ns = 500000}, {member = 4, at_random_mean_ns = 2000000}]",
            "rebuild.policy=\"sor\"",
        ],
    ),
    ("rais-ssd-a", &["array.level=raid5", "array.members=4", "array.controller.cache=\"write_back\"", "array.controller.cache_bytes=1M"]),
    (
        "rais-ssd-a",
        &[
            "array.level=raid5",
            "array.members=4",
            "array.controller.read_ahead=\"adaptive\"",
            "array.controller.cache_bytes=8M",
            "array.controller.read_ahead_bytes=256K",
            "workload.read_fraction=0.8",
        ],
    ),
    ("cr5m-ssd1", &["array.failures=[{member = 0, chip = 1, at_ns = 1000000}]"]),
];

fn run_path(preset: &str, overrides: &[&str], seed: u64, slice: Option<u64>) -> String {
    let seed = format!("sim.seed={seed}");
    let mut o = vec![seed.as_str(), "workload.requests=3000", "sim.verify=true"];
    if preset == "stripe-unit-table5" {
        // A small drive: a rebuild, byte-verified, covers every stripe of it.
        o.extend(["ssd.geometry.channels=2", "ssd.geometry.planes_per_die=1", "ssd.geometry.blocks_per_plane=64", "ssd.geometry.pages_per_block=64"]);
    }
    o.extend_from_slice(overrides);
    let mut sim = raidsim_core::Simulation::new(config(preset, &o)).expect("builds");
    match slice {
        None => sim.run().expect("runs"),
        Some(n) => while !sim.step(n).expect("steps").finished {},
    }
    sim.report().to_json()
}

#[test]
fn every_path_gives_the_same_report_for_the_same_seed_run_whole_or_in_steps() {
    for (preset, overrides) in PATHS {
        let whole = run_path(preset, overrides, 7, None);
        assert_eq!(whole, run_path(preset, overrides, 7, None), "{preset} {overrides:?}: rerun");
        assert_eq!(whole, run_path(preset, overrides, 7, Some(97)), "{preset} {overrides:?}: in steps of 97 events");
        assert_ne!(whole, run_path(preset, overrides, 8, None), "{preset} {overrides:?}: the seed must matter");
        assert!(whole.contains("\"mismatches\": 0"), "{preset} {overrides:?}: verified bytes");
    }
}
