//! `ssd.command_issue`: when a page read is issued to its unit, by hand
//! count. One channel of three one-die chips (A, B, C hold pages 0, 1, 2 and
//! 3, 4, 5, ...); a read's command holds the channel for C = 1 us, it senses
//! for 25 us more, and sends 4 KiB over the 40 MB/s channel in X = 102.4 us.

use crate::common;

use common::ONE_DIE;
use raidsim_core::simulate;

const C: u64 = 1_000;
const SENSE: u64 = 25_000;
const X: u64 = 102_400;

/// The settings for 4 KiB reads of `pages`, issued 100 ns apart from 0.
fn settings(pages: &[u64], issue: &str) -> Vec<String> {
    let list: Vec<String> = pages.iter().enumerate().map(|(i, p)| format!("[{}, \"R\", {}, 4096]", i * 100, p * 4096)).collect();
    let req = format!("workload.requests=[{}]", list.join(", "));
    let issue = format!("ssd.command_issue=\"{issue}\"");
    let o = [req.as_str(), "workload.kind=requests", "precondition.fill_fraction=1.0", "ssd.geometry.chips_per_channel=3"];
    let timing = ["ssd.timing.t_command_ns=1000", "ssd.timing.read_command_on_channel=true"];
    let reads_first = ["ssd.write_buffer_bytes=16384", "ssd.scheduling=\"reads_first\"", issue.as_str()];
    [&ONE_DIE[..], &o, &timing, &reads_first].concat().into_iter().map(String::from).collect()
}

/// When 4 KiB reads of `pages`, issued 100 ns apart from 0, complete.
fn reads_at_once(pages: &[u64], issue: &str) -> Vec<u64> {
    let o = settings(pages, issue);
    let responses = common::responses_in_arrival_order(&o.iter().map(String::as_str).collect::<Vec<_>>());
    responses.iter().enumerate().map(|(i, r)| r + i as u64 * 100).collect()
}

/// The page reads that waited for their chips.
fn waited_for_chips(pages: &[u64]) -> f64 {
    let o = settings(pages, "when_idle");
    let r = simulate(common::config("", &o.iter().map(String::as_str).collect::<Vec<_>>())).expect("runs");
    r.stats.iter().find(|s| s.path == "ssd.flash.page_reads_waited_for_unit").map_or(-1.0, |s| s.value)
}

/// Reads of A, B, A again, then C, 100 ns apart (each before the channel
/// could take its command, so as if all came at 0). Both ways A's first read runs from 0,
/// B's command follows at C and its data waits for A's, until C + S + 2 X
/// with S = C + 25 us.
///
/// Planned, A's second read is booked when it comes, before C's: its
/// command goes after B's data, at C + S + 2 X, and its data follows its
/// sensing; C's read, booked last, finds the channel next free after that.
/// Issued when A idles, at C + S + X, A's second read finds C's read,
/// issued at once (its command at 2 C), with its data booked after B's: its
/// command waits for that, and it is C's turn first.
#[test]
fn a_read_issued_when_its_chip_idles_goes_after_the_data_sensed_before() {
    let s = C + SENSE;
    let (a1, b1) = (s + X, s + 2 * X);
    let pages = [0, 1, 3, 2];
    let a2_planned = b1 + s + X;
    let c1_planned = a2_planned + X;
    assert_eq!(reads_at_once(&pages, "planned"), vec![a1, b1, a2_planned, c1_planned]);
    let c1_when_idle = b1 + X;
    let a2_when_idle = c1_when_idle + s + X;
    assert_eq!(reads_at_once(&pages, "when_idle"), vec![a1, b1, a2_when_idle, c1_when_idle]);
    // A's second read alone found its chip busy.
    assert_eq!(waited_for_chips(&pages), 1.0);
}

/// Reads of A, B, A, A, B. A's second and third reads both wait for A to
/// idle, at C + S + X; the second goes then, and the third, finding A taken
/// again, waits for it once more, while B's second read, issued as B idles,
/// gets its command in first and its data through after A's second.
/// Planned, A's reads follow one another and B's second comes last.
#[test]
fn a_read_whose_chip_was_taken_while_it_waited_waits_again() {
    let s = C + SENSE;
    let (a1, b1) = (s + X, s + 2 * X);
    let pages = [0, 1, 3, 6, 4];
    let a2 = b1 + s + X;
    assert_eq!(reads_at_once(&pages, "planned"), vec![a1, b1, a2, a2 + s + X, a2 + s + 2 * X]);
    let b2 = a2 + X;
    assert_eq!(reads_at_once(&pages, "when_idle"), vec![a1, b1, a2, b2 + s + X, b2]);
    // A's third read waited twice, and counts once.
    assert_eq!(waited_for_chips(&pages), 3.0);
}

/// Reads wait for their chips only where programs may wait for theirs.
#[test]
fn issuing_reads_when_chips_idle_needs_reads_first() {
    let e = common::refused(&["ssd.command_issue=\"when_idle\""]);
    assert!(e.contains("ssd.command_issue") && e.contains("reads_first"), "{e}");
}

/// One die: reads of pages 0 and 1 at 0 and 1 us, and of page 2 at 130 us,
/// each 25 + 102.4 = 127.4 us of flash (R). The second waits for the die,
/// idle again at the first's end; the third reaches the die after that,
/// however long the drive took to take it in, so it goes last: 20 us of
/// controller overhead (O) puts the reads at O + R, O + 2 R and O + 3 R;
/// an HBA of 12.8 us (H) each way at H + R, H + 2 R and H + 3 R, plus H.
#[test]
fn a_read_waiting_for_its_chip_goes_before_a_command_the_drive_takes_later() {
    const R: u64 = SENSE + X;
    let run = |delay: &str, issue: &str| {
        let req = "workload.requests=[[0, \"R\", 0, 4096], [1000, \"R\", 4096, 4096], [130000, \"R\", 8192, 4096]]";
        let issue = format!("ssd.command_issue=\"{issue}\"");
        let o = ["workload.kind=requests", req, "precondition.fill_fraction=1.0", "ssd.write_buffer_bytes=16384", "ssd.scheduling=\"reads_first\""];
        let o = [&ONE_DIE[..], &o, &[issue.as_str(), delay]].concat();
        let arrivals = [0, 1_000, 130_000];
        common::responses_in_arrival_order(&o).iter().zip(arrivals).map(|(r, a)| r + a).collect::<Vec<u64>>()
    };
    const O: u64 = 20_000;
    const H: u64 = 12_800;
    for issue in ["planned", "when_idle"] {
        assert_eq!(run("ssd.timing.controller_overhead_ns=20000", issue), vec![O + R, O + 2 * R, O + 3 * R], "{issue}");
        assert_eq!(run("ssd.timing.sata_hba_processing_ns=12800", issue), vec![2 * H + R, 2 * H + 2 * R, 2 * H + 3 * R], "{issue}");
    }
}

/// One die, a buffer of four 4 KiB pages: reads of pages 0 and 1 at 0 and
/// 1 us, then at 125 us a write of five pages, larger than the buffer, whose
/// programs are booked as it comes. The second read waits for the die,
/// idle at R = 127.4 us; it is in the die's queue, so it goes before the
/// write's programs, as planned: at 2 R, and the write is acknowledged once
/// its first page has crossed the channel after it, at 2 R + X.
#[test]
fn a_read_waiting_for_its_chip_goes_before_a_write_larger_than_the_buffer() {
    const R: u64 = SENSE + X;
    let run = |issue: &str| {
        let req = "workload.requests=[[0, \"R\", 0, 4096], [1000, \"R\", 4096, 4096], [125000, \"W\", 40960, 20480]]";
        let issue = format!("ssd.command_issue=\"{issue}\"");
        let o = ["workload.kind=requests", req, "precondition.fill_fraction=1.0", "ssd.write_buffer_bytes=16384", "ssd.scheduling=\"reads_first\""];
        let o = [&ONE_DIE[..], &o, &[issue.as_str()]].concat();
        let arrivals = [0, 1_000, 125_000];
        common::responses_in_arrival_order(&o).iter().zip(arrivals).map(|(r, a)| r + a).collect::<Vec<u64>>()
    };
    for issue in ["planned", "when_idle"] {
        assert_eq!(run(issue), vec![R, 2 * R, 2 * R + X], "{issue}");
    }
}
