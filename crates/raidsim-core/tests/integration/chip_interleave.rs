//! A chip whose dies start together (`ssd.parallel_unit =
//! "chip_interleaved"`, MQSim's), by hand count.
//!
//! One channel, one chip of two dies of one plane each, the drive full;
//! static allocation puts even logical pages on die 0, odd ones on die 1.
//! A read senses for `T_READ` and sends its 4 KiB over the channel in `X`.

use crate::common;

use common::{responses_in_arrival_order, ONE_DIE};

const X: u64 = 102_400; // 4 KiB over a 40 MB/s channel
const T_READ: u64 = 25_000;

/// Reads of `(arrival_ns, logical page)`; each read's response, in arrival order.
fn reads(unit: &str, requests: &[(u64, u64)]) -> Vec<u64> {
    let list: Vec<String> = requests.iter().map(|(t, page)| format!("[{t}, \"R\", {}, 4096]", page * 4096)).collect();
    let req = format!("workload.requests=[{}]", list.join(", "));
    let unit = format!("ssd.parallel_unit={unit:?}");
    let mut o: Vec<&str> = ONE_DIE.to_vec();
    o.extend(["ssd.geometry.dies_per_chip=2", "precondition.fill_fraction=1.0", unit.as_str()]);
    o.extend(["workload.kind=requests", req.as_str()]);
    responses_in_arrival_order(&o)
}

#[test]
fn a_read_for_the_other_die_of_a_busy_chip_waits_for_the_chip() {
    // The chip is busy with die 0's read from 0 on: die 1's waits for all of it.
    let rs = reads("chip_interleaved", &[(0, 0), (1_000, 1)]);
    assert_eq!(rs, vec![T_READ + X, T_READ + X + T_READ + X - 1_000]);
    // Dies apart, it senses at once and waits only for the channel.
    let rs = reads("die", &[(0, 0), (1_000, 1)]);
    assert_eq!(rs, vec![T_READ + X, T_READ + 2 * X - 1_000]);
}

#[test]
fn reads_waiting_for_a_chip_on_different_dies_start_together() {
    // Die 0's second read and die 1's read both wait for the first; when the
    // chip frees they sense together and send their data one after the other.
    let rs = reads("chip_interleaved", &[(0, 0), (1_000, 2), (2_000, 1)]);
    let free = T_READ + X;
    assert_eq!(rs, vec![free, free + T_READ + X - 1_000, free + T_READ + 2 * X - 2_000]);
    // A chip of one busy state starts them one at a time.
    let rs = reads("chip", &[(0, 0), (1_000, 2), (2_000, 1)]);
    assert_eq!(rs[2], 3 * (T_READ + X) - 2_000);
}

#[test]
fn a_command_takes_one_operation_per_die() {
    // Two more reads of die 0 wait for the first: they cannot share a command.
    let rs = reads("chip_interleaved", &[(0, 0), (1_000, 2), (2_000, 4)]);
    assert_eq!(rs[2], 3 * (T_READ + X) - 2_000);
}
