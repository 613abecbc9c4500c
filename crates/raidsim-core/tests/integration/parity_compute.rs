//! The parity engine charged by each code's work (issue #13,
//! `array.controller.parity_compute = "code_ops"`): hand counts of the
//! XORs and GF(2^8) multiplies a stripe plan needs, and their time.
//!
//! Rates: X = 1.024 GB/s of XOR (4 KiB in 4 us), M = 409.6 MB/s of
//! multiply-accumulate (4 KiB in 10 us).

use crate::common;

use common::{config, refused, ONE_DIE};
use raidsim_core::simulate;

const X: &str = "array.controller.xor_bytes_per_s=1024000000";
const M: &str = "array.controller.gf_mul_bytes_per_s=409600000";
const CODE_OPS: &str = "array.controller.parity_compute=\"code_ops\"";
const XOR_4K_NS: f64 = 4_000.0;
const MUL_4K_NS: f64 = 10_000.0;

fn run(requests: &str, extra: &[&str]) -> raidsim_core::report::Report {
    let w = format!("workload.requests=[{requests}]");
    let mut o = vec!["workload.kind=requests", w.as_str(), "array.stripe_unit_bytes=4096"];
    o.extend_from_slice(&ONE_DIE);
    o.extend_from_slice(extra);
    simulate(config("", &o)).expect("runs")
}

fn stat(r: &raidsim_core::report::Report, path: &str) -> f64 {
    r.stats.iter().find(|s| s.path == path).unwrap_or_else(|| panic!("no stat {path}")).value
}

fn tally(r: &raidsim_core::report::Report, purpose: &str) -> (f64, f64, f64) {
    let s = |what: &str| stat(r, &format!("array.controller.parity_compute.{purpose}.{what}"));
    (s("busy_ns"), s("xor_bytes"), s("gf_mul_bytes"))
}

const RS_4_2: [&str; 2] = ["array.level=raid6", "array.members=6"];

#[test]
fn a_reed_solomon_update_xors_twice_for_p_and_multiplies_once_for_q() {
    // A 4 KiB write to data column 1 by read-modify-write: P takes the
    // delta (old XOR new) and XORs it in: 2 XORs; Q forms the delta and
    // multiplies it by g^1 into Q: 1 XOR, 1 multiply. 3 X + 1 M of 4 KiB.
    let mut o = RS_4_2.to_vec();
    o.extend([X, M, CODE_OPS, "array.write_method=\"rmw\""]);
    let r = run("[0, \"W\", 4096, 4096]", &o);
    assert_eq!(tally(&r, "host_write"), (3.0 * XOR_4K_NS + MUL_4K_NS, 3.0 * 4096.0, 4096.0));
    // The engine's time is on the request's path, between its pre-reads and writes.
    let free = run("[0, \"W\", 4096, 4096]", &RS_4_2.iter().copied().chain(["array.write_method=\"rmw\""]).collect::<Vec<_>>());
    assert_eq!(r.host.response.mean_ns - free.host.response.mean_ns, 3.0 * XOR_4K_NS + MUL_4K_NS);
    // Column 0's Q coefficient is 1: its update only XORs (4 X).
    let r = run("[0, \"W\", 0, 4096]", &o);
    assert_eq!(tally(&r, "host_write"), (4.0 * XOR_4K_NS, 4.0 * 4096.0, 0.0));
}

#[test]
fn a_reed_solomon_reconstruct_write_encodes_the_whole_row() {
    // One unit of four written: reconstruct-write (3 pre-reads, a tie with
    // read-modify-write's 1 + 2). P runs 4 cells in (4 X); Q runs column 0
    // in (1 X) and columns 1-3 through multiplies (3 M).
    let mut o = RS_4_2.to_vec();
    o.extend([X, M, CODE_OPS]);
    let r = run("[0, \"W\", 4096, 4096]", &o);
    assert_eq!(tally(&r, "host_write"), (5.0 * XOR_4K_NS + 3.0 * MUL_4K_NS, 5.0 * 4096.0, 3.0 * 4096.0));
    // Today's default charges the 8 KiB of parity written as one XOR pass, whatever the code.
    let default = run("[0, \"W\", 4096, 4096]", &RS_4_2.iter().copied().chain([X]).collect::<Vec<_>>());
    assert_eq!(tally(&default, "host_write"), (2.0 * XOR_4K_NS, 2.0 * 4096.0, 0.0));
}

#[test]
fn an_evenodd_full_codeword_runs_every_diagonal_through_the_adjuster() {
    // EVENODD, p = 5 and five data columns: 4 rows, 20 data cells. Row
    // parity: 4 cells of 5 terms = 20. Each of the 4 diagonal parity cells
    // covers its diagonal's 4 cells (one of the 5 columns falls on the
    // missing row p - 1) and the adjuster diagonal's 4: 32. 52 X in all, no
    // multiply.
    let o = ["array.level=raid6", "array.members=7", "array.code=\"evenodd\"", X, CODE_OPS];
    let r = run(&format!("[0, \"W\", 0, {}]", 20 * 4096), &o);
    assert_eq!(tally(&r, "host_write"), (52.0 * XOR_4K_NS, 52.0 * 4096.0, 0.0));
}

#[test]
fn a_degraded_read_decodes_the_lost_cell_from_its_row() {
    // RAID-5 of 4 (3 data units a row) with member 0 failed: a read of its
    // unit XORs the row's two other data units and its parity: 3 X, charged
    // to host reads. A healthy read computes nothing.
    let o = ["array.level=raid5", "array.members=4", "array.parity_placement=\"dedicated\"", X, CODE_OPS, "array.failures=[{member = 0, at_ns = 0}]"];
    let r = run("[1000, \"R\", 0, 4096]", &o);
    assert_eq!(tally(&r, "host_read"), (3.0 * XOR_4K_NS, 3.0 * 4096.0, 0.0));
    let r = run("[1000, \"R\", 0, 4096]", &o[..5]);
    assert_eq!(tally(&r, "host_read"), (0.0, 0.0, 0.0));
}

#[test]
fn parity_compute_settings_that_mean_nothing_are_refused() {
    let e = refused(&["array.level=raid0", "array.members=2", X, CODE_OPS]);
    assert!(e.contains("array.controller.parity_compute") && e.contains("no parity"), "{e}");
    let e = refused(&["array.level=raid5", "array.members=3", CODE_OPS]);
    assert!(e.contains("array.controller.xor_bytes_per_s"), "{e}");
    let e = refused(&["array.level=raid6", "array.members=5", X, CODE_OPS]);
    assert!(e.contains("array.controller.gf_mul_bytes_per_s") && e.contains("Reed-Solomon"), "{e}");
    let e = refused(&["array.level=raid6", "array.members=7", "array.code=\"rdp\"", X, M, CODE_OPS]);
    assert!(e.contains("array.controller.gf_mul_bytes_per_s") && e.contains("only XORs"), "{e}");
    let e = refused(&["array.level=raid6", "array.members=5", X, M]);
    assert!(e.contains("array.controller.gf_mul_bytes_per_s") && e.contains("parity_bytes"), "{e}");
    let e = refused(&["array.level=raid5", "array.members=3", "array.controller.parity_compute=\"gf\""]);
    assert!(e.contains("gf") && e.contains("array.controller.parity_compute"), "{e}");
}

#[test]
fn a_rebuild_decodes_each_lost_byte_from_its_row_or_both_syndromes() {
    // RAID-5 of 3 with dedicated parity: member 0 (data) lost, rebuilt onto
    // the spare. Each lost byte is its row's other data byte XOR parity:
    // 2 X a byte rebuilt, charged to the rebuild, none to the host.
    let o = [
        "array.level=raid5",
        "array.members=3",
        "array.parity_placement=\"dedicated\"",
        "array.spares=1",
        "array.failures=[{member = 0, at_ns = 0}]",
        X,
        CODE_OPS,
    ];
    let r = run("[0, \"R\", 4096, 4096]", &o);
    let rebuilt = *r.devices[3].pages_written.get("rebuild_write").expect("rebuilt") as f64 * 4096.0;
    assert!(rebuilt > 0.0);
    let (busy, xor, mul) = tally(&r, "rebuild");
    assert_eq!((xor, mul), (2.0 * rebuilt, 0.0));
    assert_eq!(busy, 2.0 * rebuilt / 1.024e9 * 1e9);
    assert_eq!(tally(&r, "host_write"), (0.0, 0.0, 0.0));
    // Reed-Solomon 4+2 losing two data members: each lost byte takes the
    // k = 4 survivors through XOR and multiply (4 X + 4 M a byte).
    let o = [
        "array.level=raid6",
        "array.members=6",
        "array.parity_placement=\"dedicated\"",
        "array.spares=2",
        "array.failures=[{member = 0, at_ns = 0}, {member = 1, at_ns = 0}]",
        X,
        M,
        CODE_OPS,
    ];
    let r = run("[0, \"R\", 8192, 4096]", &o);
    let rebuilt: u64 = [6, 7].iter().map(|&d| r.devices[d].pages_written.get("rebuild_write").copied().unwrap_or(0)).sum();
    let rebuilt = rebuilt as f64 * 4096.0;
    let (_, xor, mul) = tally(&r, "rebuild");
    assert_eq!((xor, mul), (4.0 * rebuilt, 4.0 * rebuilt));
}

#[test]
fn a_write_to_a_lost_unit_decodes_by_row_when_row_parity_survives() {
    // RS 4+2, data member 0 lost: a write of half its unit reconstructs the
    // row: the lost cell from its row (4 X), then P (4 X) and Q (1 X, 3 M).
    let o =
        ["array.level=raid6", "array.members=6", "array.parity_placement=\"dedicated\"", "array.failures=[{member = 0, at_ns = 0}]", X, M, CODE_OPS];
    let r = run("[1000, \"W\", 0, 2048]", &o);
    let (_, xor, mul) = tally(&r, "host_write");
    assert_eq!((xor, mul), (9.0 * 4096.0, 3.0 * 4096.0));
}

#[test]
fn rebuilding_evenodds_diagonal_parity_costs_what_encoding_it_does() {
    // EVENODD 5+2 (p = 5) losing its diagonal parity member: each codeword's
    // 4 diagonal cells are re-encoded from 4 diagonal and 4 adjuster cells
    // each, 32 X per 4 units rebuilt: 8 X a byte rebuilt.
    let o = [
        "array.level=raid6",
        "array.members=7",
        "array.code=\"evenodd\"",
        "array.parity_placement=\"dedicated\"",
        "array.spares=1",
        "array.failures=[{member = 6, at_ns = 0}]",
        X,
        CODE_OPS,
    ];
    let r = run("[0, \"R\", 0, 4096]", &o);
    let rebuilt = *r.devices[7].pages_written.get("rebuild_write").expect("rebuilt") as f64 * 4096.0;
    let (_, xor, mul) = tally(&r, "rebuild");
    assert!(rebuilt > 0.0);
    assert_eq!((xor, mul), (8.0 * rebuilt, 0.0));
}
