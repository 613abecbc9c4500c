//! A SATA drive's host bus adapter (`ssd.timing.sata_hba_processing_ns`,
//! MQSim's `SATA_Processing_Delay`): each command and each completion
//! takes the HBA `d`, one at a time. Closed forms on one die, whose read
//! takes s = 25 us of sensing and T = 102.4 us on the channel, s < d.

use crate::common;

use common::{config, ONE_DIE};
use raidsim_core::report::Report;
use raidsim_core::simulate;

/// MQSim's shipped ssdconfig.xml: 400 us.
const D: f64 = 400_000.0;
const S: f64 = 25_000.0 + 102_400.0;
const HBA: &str = "ssd.timing.sata_hba_processing_ns=400000";

fn reads_at_zero(n: u64, extra: &[&str]) -> Report {
    let r: Vec<String> = (0..n).map(|i| format!("[0, \"R\", {}, 4096]", i * 4096)).collect();
    let w = format!("workload.requests=[{}]", r.join(", "));
    let mut o = vec!["workload.kind=requests", w.as_str(), HBA];
    o.extend_from_slice(&ONE_DIE);
    o.extend_from_slice(extra);
    simulate(config("", &o)).expect("runs")
}

#[test]
fn one_command_pays_the_hba_going_out_and_coming_back() {
    assert_eq!(reads_at_zero(1, &[]).host.response.mean_ns, 2.0 * D + S);
}

#[test]
fn commands_go_out_one_at_a_time_and_completions_come_back_one_at_a_time() {
    // Command j is sent at (j + 1) d and read by (j + 1) d + s; its
    // completion, behind command j - 1's, is in at (j + 2) d + s.
    let r = reads_at_zero(5, &[]);
    assert_eq!(r.host.response.mean_ns, S + D * (2.0 + 3.0 + 4.0 + 5.0 + 6.0) / 5.0);
}

#[test]
fn completions_that_finish_together_come_back_one_at_a_time() {
    // An 8-page write holds the die from d to d + 8P (P = 302.4 us a
    // page); the reads sent behind it end s apart, and their completions
    // queue behind the write's, in at 3d, 4d and 5d + 8P.
    let p = 302_400.0;
    let r = ["[0, \"W\", 0, 32768]", "[0, \"R\", 65536, 4096]", "[0, \"R\", 69632, 4096]", "[0, \"R\", 73728, 4096]"];
    let w = format!("workload.requests=[{}]", r.join(", "));
    let mut o = vec!["workload.kind=requests", w.as_str(), HBA];
    o.extend_from_slice(&ONE_DIE);
    let r = simulate(config("", &o)).expect("runs");
    assert_eq!(r.host.write_response.mean_ns, 2.0 * D + 8.0 * p);
    assert_eq!(r.host.read_response.mean_ns, 4.0 * D + 8.0 * p);
}

#[test]
fn a_command_sent_while_the_queue_was_full_starts_when_a_slot_frees() {
    // One slot: command 0 is in at 2d + s and frees it; command 1, sent at
    // 2d meanwhile, starts then and is in at 3d + 2s; command 2 at 4d + 3s.
    let r = reads_at_zero(3, &["ssd.queue_depth=1"]);
    assert_eq!(r.host.response.mean_ns, (2.0 * D + S + 3.0 * D + 2.0 * S + 4.0 * D + 3.0 * S) / 3.0);
}

#[test]
fn a_busy_hba_caps_the_drive_at_one_command_per_processing_time() {
    // Eight readers on a drive whose flash reads faster than the HBA: the
    // HBA's lines are the bottleneck, 1 / d = 2,500 commands a second.
    let mut o = vec![HBA, "workload.requests=3000", "workload.processes=8", "workload.read_fraction=1.0"];
    o.extend_from_slice(&ONE_DIE);
    let r = simulate(config("", &o)).expect("runs");
    assert!((r.host.iops / 2500.0 - 1.0).abs() < 0.01, "{} IOPS", r.host.iops);
    let e = common::refused(&["ssd.timing.sata_hba_processing_ns=3600000000001"]);
    assert!(e.contains("ssd.timing.sata_hba_processing_ns") && e.contains("more than an hour"), "{e}");
}

#[test]
fn a_program_that_begins_before_a_read_reaches_the_drive_is_not_passed() {
    // With a 4-page buffer and reads first, d = 100 us: the write reaches
    // the drive at 100 us and its program runs to 100 us + P; the read,
    // issued at 50 us, reaches it at 200 us, after the program began, and
    // waits for it, as in arrival order.
    let requests = ["[0, \"W\", 0, 4096]", "[50000, \"R\", 8192, 4096]"];
    let w = format!("workload.requests=[{}]", requests.join(", "));
    let d = 100_000.0;
    let p = 302_400.0;
    for order in ["\"reads_first\"", "\"arrival_order\""] {
        let s = format!("ssd.scheduling={order}");
        let mut o =
            vec!["workload.kind=requests", w.as_str(), "ssd.timing.sata_hba_processing_ns=100000", "ssd.write_buffer_bytes=16384", s.as_str()];
        o.extend_from_slice(&ONE_DIE);
        let r = simulate(config("", &o)).expect("runs");
        assert_eq!(r.host.read_response.mean_ns, d + p + S + d - 50_000.0, "{order}");
    }
}
