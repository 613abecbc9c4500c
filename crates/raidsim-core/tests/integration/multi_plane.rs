//! `ssd.parallel_unit = "plane"`: a die's planes run their operations side
//! by side, sharing the channel, by hand count on one die of two planes
//! (`common::ONE_DIE`: no command time, 4 KiB in 102.4 us, reads 25 us,
//! programs 200 us). Static allocation puts logical pages 0 and 1 on
//! planes 0 and 1.

use crate::common::{responses_in_arrival_order, ONE_DIE};

const X: u64 = 102_400;
const READ: u64 = 25_000;
const PROGRAM: u64 = 200_000;

fn two_at_once(op: char, unit: &str) -> Vec<u64> {
    let req = format!("workload.requests=[[0, \"{op}\", 0, 4096], [0, \"{op}\", 4096, 4096]]");
    let unit = format!("ssd.parallel_unit=\"{unit}\"");
    let o = [&ONE_DIE[..], &["ssd.geometry.planes_per_die=2", "workload.kind=\"requests\"", req.as_str(), unit.as_str()]].concat();
    responses_in_arrival_order(&o)
}

#[test]
fn two_planes_program_at_once_and_share_the_channel() {
    // The die holds the first write's transfer and program before the second's.
    assert_eq!(two_at_once('W', "die"), [X + PROGRAM, 2 * (X + PROGRAM)]);
    // Each plane its own: the second transfers after the first, then programs beside it.
    assert_eq!(two_at_once('W', "plane"), [X + PROGRAM, 2 * X + PROGRAM]);
}

#[test]
fn two_planes_sense_at_once_and_send_in_turn() {
    assert_eq!(two_at_once('R', "die"), [READ + X, 2 * (READ + X)]);
    assert_eq!(two_at_once('R', "plane"), [READ + X, READ + 2 * X]);
}

#[test]
fn dynamic_allocation_counts_a_die_busy_while_any_of_its_planes_is() {
    // Two dies, each on its own channel, two planes each. The first write
    // takes die 0's plane 0; with plane 1 idle die 0 is still busy, so the
    // second goes to die 1 and its own channel, and both end together.
    let req = "workload.requests=[[0, \"W\", 0, 4096], [0, \"W\", 4096, 4096]]";
    let o = [
        &ONE_DIE[..],
        &["ssd.geometry.channels=2", "ssd.geometry.planes_per_die=2", "ssd.ftl.allocation=\"dynamic\"", "ssd.parallel_unit=\"plane\""],
        &["workload.kind=\"requests\"", req],
    ]
    .concat();
    assert_eq!(responses_in_arrival_order(&o), [X + PROGRAM, X + PROGRAM]);
}
