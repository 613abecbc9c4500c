//! What garbage collection keeps busy (`ssd.ftl.gc_holds`), by hand count.
//!
//! Two dies on one channel (chips 0 and 1), a full drive, static
//! allocation: even logical pages live on chip 0, odd ones on chip 1.
//! Even pages are overwritten, spread over the chip, until a write leaves
//! its plane below the threshold (the victim then holds valid pages to
//! copy); then a write to page 1 (the other chip, the same channel)
//! arrives as that write's program ends, when collection begins.

use crate::common;

use common::{config, ONE_DIE};
use raidsim_core::report::Report;
use raidsim_core::simulate;

const X: u64 = 102_400; // 4 KiB over a 40 MB/s channel
const T_READ: u64 = 25_000;
const T_PROG: u64 = 200_000;
const T_ERASE: u64 = 1_500_000;
const GAP: u64 = 1_000_000;

fn run(requests: &[(u64, u64)], extra: &[&str]) -> Report {
    let list: Vec<String> = requests.iter().map(|(t, page)| format!("[{t}, \"W\", {}, 4096]", page * 4096)).collect();
    let req = format!("workload.requests=[{}]", list.join(", "));
    let mut o: Vec<&str> = ONE_DIE.to_vec();
    o.extend(["ssd.geometry.chips_per_channel=2", "precondition.fill_fraction=1.0", "ssd.ftl.gc_threshold_fraction=0.1"]);
    o.extend(["workload.kind=requests", req.as_str()]);
    o.extend_from_slice(extra);
    simulate(config("", &o)).expect("runs")
}

/// Overwrites of even pages, one every `GAP`, up to the first that makes the
/// plane collect; the pages that collection copied and the blocks it erased.
fn writes_until_collection(extra: &[&str]) -> (Vec<(u64, u64)>, u64, u64) {
    let mut writes = Vec::new();
    for i in 0..4096u64 {
        // A stride prime to the chip's pages spreads the overwrites over its blocks.
        writes.push((i * GAP, 2 * (i * 7919 % 2000)));
        let r = run(&writes, extra);
        let d = &r.devices[0];
        if d.erases > 0 {
            return (writes, d.pages_written.get("gc_write").copied().unwrap_or(0), d.erases);
        }
    }
    panic!("no write triggered collection");
}

/// The response of a write to page 1 that arrives `after` ns past the end
/// of the collecting write's program, and the collection's copies, ns.
fn other_chip_write(extra: &[&str], after: u64) -> (u64, u64, u64) {
    let (mut writes, copied, erases) = writes_until_collection(extra);
    let last = writes.last().expect("a write").0;
    let programmed = last + X + T_PROG;
    writes.push((programmed + after, 1));
    let r = run(&writes, extra);
    let expected_copies = copied * (T_READ + T_PROG);
    (r.host.write_response.max_ns, expected_copies, erases)
}

#[test]
fn collection_on_the_unit_leaves_the_channel_to_the_other_chip() {
    let (response, _, _) = other_chip_write(&[], 1);
    assert_eq!(response, X + T_PROG);
}

#[test]
fn collection_holding_the_channel_makes_the_other_chip_wait_for_its_copies() {
    let (response, copies, erases) = other_chip_write(&["ssd.ftl.gc_holds=channel"], 1);
    assert!(copies > 0 && erases == 1, "{copies} ns of copies, {erases} erases");
    // The channel frees when the last copy is programmed; then the write moves in and programs.
    assert_eq!(response, copies - 1 + X + T_PROG);
}

#[test]
fn the_erase_holds_only_the_chip() {
    let (_, copies, _) = other_chip_write(&["ssd.ftl.gc_holds=channel"], 1);
    let (response, _, _) = other_chip_write(&["ssd.ftl.gc_holds=channel"], copies + T_ERASE / 2);
    assert_eq!(response, X + T_PROG);
}

#[test]
fn without_copy_back_each_copy_crosses_the_channel_out_and_back() {
    let o = ["ssd.ftl.gc_holds=channel", "ssd.ftl.gc_copy_back=false"];
    let (response, copies, _) = other_chip_write(&o, 1);
    let (_, copied, _) = writes_until_collection(&o);
    assert_eq!(response, copies + copied * 2 * X - 1 + X + T_PROG);
}

#[test]
fn copies_over_the_channel_need_collection_to_hold_it() {
    let e = common::refused(&["ssd.ftl.gc_copy_back=false"]);
    assert!(e.contains("ssd.ftl.gc_copy_back") && e.contains("gc_holds"), "{e}");
}
