//! raidsim beside DiskSim 4.0 and SSDsim under sustained load, cleaning
//! active (issue #7): the full 1,000,000-request cases of
//! `common/load_cases.rs` (about a second each in release mode).
//!
//! The issue asks for the mean within 10 % without cleaning, within 25 %
//! with it, and pages moved within 20 %. Measured today
//! (`cargo run --release -p raidsim-core --example disksim_load`): +0.4 %,
//! +0.05 %, −0.4 % (erases −0.3 %); SSDsim reads +1.7 %, writes +2.6 %. The
//! bands below are tighter than the so that each modelling choice
//! it names fails a test when undone (measured with the example's
//! `KEY=VALUE` overrides): cleaning at once after the triggering write
//! instead of before the element's next operation gave −16 %; writes on the
//! plane fixed by their address (`ssd.ftl.allocation=static`) instead of the
//! emptiest plane of their element, 15.7 ms; no summary page, −8 % and
//! −3.9 % pages moved. Before the issue the cleaning case took 11.9 s.

use crate::common;

use common::load_cases::{pages_moved, run_load_case, LoadCase, LOAD_CASES};

fn rel(got: f64, expected: f64) -> f64 {
    (got - expected) / expected
}

fn check(case: &LoadCase, what: &str, got: f64, peer: Option<f64>, band: f64) {
    let Some(expected) = peer else { return };
    let err = rel(got, expected);
    eprintln!("{}: {what} raidsim {got:.4}, {} {expected:.4} ({:+.1} %)", case.name, case.peer, 100.0 * err);
    assert!(err.abs() <= band, "{}: {what} {got:.4} vs {} {expected:.4} ({:+.1} %, band {band})", case.name, case.peer, 100.0 * err);
}

fn run_case(i: usize, mean_band: f64, parts_band: f64) {
    let case = &LOAD_CASES[i];
    let r = run_load_case(case, 1_000_000, &[]);
    assert_eq!(r.host.requests, 1_000_000, "every request served");
    let h = &r.host;
    check(case, "mean ms", h.response.mean_ns / 1e6, case.mean_ms, mean_band);
    check(case, "read ms", h.read_response.mean_ns / 1e6, case.read_ms, parts_band);
    check(case, "write ms", h.write_response.mean_ns / 1e6, case.write_ms, parts_band);
    check(case, "erases", r.devices[0].erases as f64, case.erases.map(|x| x as f64), 0.05);
    check(case, "pages moved", pages_moved(&r) as f64, case.pages_moved.map(|x| x as f64), 0.05);
}

#[test]
fn disksim_moderate_load_without_cleaning_agrees() {
    run_case(0, 0.03, 0.03);
}

#[test]
fn disksim_sustained_load_with_cleaning_agrees() {
    run_case(1, 0.10, 0.10);
}

#[test]
fn ssdsim_moderate_load_agrees() {
    run_case(2, 0.05, 0.05);
}
