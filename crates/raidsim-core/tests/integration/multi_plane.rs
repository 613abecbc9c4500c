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

/// Buffered programs that wait at one die (`reads_first`), with
/// `ssd.multi_plane_programs` or without: the responses in arrival order
/// and the multi-plane commands run (checked against the pages they
/// programmed: two each, on these dies of two planes).
fn waiting_programs(requests: &str, multi_plane: bool) -> (Vec<u64>, f64) {
    let req = format!("workload.requests=[{requests}]");
    let mp = format!("ssd.multi_plane_programs={multi_plane}");
    let setup = ["ssd.geometry.planes_per_die=2", "ssd.write_buffer_bytes=16384", "ssd.scheduling=\"reads_first\"", "workload.kind=\"requests\""];
    let o = [&ONE_DIE[..], &setup, &[req.as_str(), mp.as_str(), "metrics.request_log=\"unused.parquet\""]].concat();
    let mut sim = raidsim_core::Simulation::new(crate::common::config("", &o)).expect("builds");
    sim.run().expect("runs");
    let log = sim.request_log().expect("a log");
    let mut rows: Vec<(u64, u64)> = log.arrival_ns.iter().zip(&log.completion_ns).map(|(&a, &c)| (a, c - a)).collect();
    rows.sort_unstable();
    let report = sim.report();
    let stat = |path: &str| report.stats.iter().find(|s| s.path == path).map_or(0.0, |s| s.value);
    let commands = stat("ssd.flash.multi_plane_programs");
    assert_eq!(stat("ssd.flash.multi_plane_pages"), 2.0 * commands, "{requests}");
    (rows.into_iter().map(|(_, r)| r).collect(), commands)
}

#[test]
fn programs_waiting_for_both_planes_at_one_offset_go_in_one_command() {
    // Pages 0 and 1 (planes 0 and 1, each at its first page) wait; a read
    // of page 10 at 1 us finds the die under way. One command sends both
    // pages, then programs them together: the read waits 2X + PROGRAM.
    // Apart, it waits for page 0's program only (page 1's still waits).
    let requests = "[0, \"W\", 0, 4096], [0, \"W\", 4096, 4096], [1000, \"R\", 40960, 4096]";
    let (together, commands) = waiting_programs(requests, true);
    assert_eq!(together, [0, 0, 2 * X + PROGRAM + READ + X - 1000]);
    assert_eq!(commands, 1.0);
    let (apart, commands) = waiting_programs(requests, false);
    assert_eq!(apart, [0, 0, X + PROGRAM + READ + X - 1000]);
    assert_eq!(commands, 0.0, "the stat counts nothing when off");
    // Page 2 (plane 0's second page) came before page 1: page 0 still
    // takes page 1 along, the first for the other plane at its offset.
    let passing = "[0, \"W\", 0, 4096], [0, \"W\", 8192, 4096], [0, \"W\", 4096, 4096], [1000, \"R\", 40960, 4096]";
    assert_eq!(waiting_programs(passing, true), (vec![0, 0, 0, 2 * X + PROGRAM + READ + X - 1000], 1.0));
}

#[test]
fn programs_at_different_offsets_go_one_by_one() {
    // Page 1 is programmed alone at 0 (the read at 1 us books it), so
    // plane 1's next page is its second; pages 0 and 3, written at 2 us,
    // are at offsets 0 and 1: no multi-plane command.
    let requests = "[0, \"W\", 4096, 4096], [1000, \"R\", 40960, 4096], [2000, \"W\", 0, 4096], [2000, \"W\", 12288, 4096]";
    let (responses, commands) = waiting_programs(requests, true);
    assert_eq!(responses[1], X + PROGRAM + READ + X - 1000);
    assert_eq!(commands, 0.0);
}

#[test]
fn multi_plane_programs_are_refused_where_nothing_could_be_gathered() {
    use crate::common::refused;
    let on = "ssd.multi_plane_programs=true";
    let buffered = ["ssd.write_buffer_bytes=16384", "ssd.geometry.planes_per_die=2"];
    let e = refused(&[&buffered[..], &[on]].concat());
    assert!(e.contains("ssd.multi_plane_programs") && e.contains("reads_first"), "{e}");
    let first = "ssd.scheduling=\"reads_first\"";
    let e = refused(&[&buffered[..], &[on, first, "ssd.parallel_unit=\"plane\""]].concat());
    assert!(e.contains("ssd.multi_plane_programs") && e.contains("\"plane\""), "{e}");
    let e = refused(&["ssd.write_buffer_bytes=16384", "ssd.geometry.planes_per_die=1", on, first]);
    assert!(e.contains("ssd.multi_plane_programs") && e.contains("planes_per_die"), "{e}");
}

#[test]
fn a_partner_may_pass_an_earlier_page_of_its_plane_as_in_mqsim() {
    // Page 0 is programmed alone from 0. At 1 ms pages 2 (plane 0, its
    // second page), 1 (plane 1, first) and 3 (plane 1, second) wait; page 2
    // takes page 3, the first waiting at its offset, along before page 1
    // (MQSim's rule): a read at 1.001 ms waits for the command of two.
    let requests = "[0, \"W\", 0, 4096], [1000000, \"W\", 8192, 4096], [1000000, \"W\", 4096, 4096], \
                    [1000000, \"W\", 12288, 4096], [1001000, \"R\", 40960, 4096]";
    let (responses, _) = waiting_programs(requests, true);
    assert_eq!(responses[4], 2 * X + PROGRAM + READ + X - 1000);
}

#[test]
fn each_page_of_a_command_frees_its_buffer_slot_once_it_has_crossed() {
    // A buffer of four pages, held until each is in its die: pages 0 and 1
    // go in one command, and page 0 crosses at X; the fifth write has room then.
    let requests: Vec<String> = (0..5).map(|i| format!("[0, \"W\", {}, 4096]", i * 4096)).collect();
    let (responses, commands) = waiting_programs(&requests.join(", "), true);
    assert_eq!(responses, [0, 0, 0, 0, X]);
    assert!(commands >= 1.0);
}
