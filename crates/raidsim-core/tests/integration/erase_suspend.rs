//! Erase suspension (`[ssd.erase_suspend]`), by hand count.
//!
//! Two dies on one channel (chips 0 and 1), a full drive, static
//! allocation: even logical pages live on chip 0. Even pages are
//! overwritten until a write leaves its plane below the threshold; its
//! collection (copies `C`, then one erase `E`) follows its program. A read
//! or write of page 0 (chip 0) then arrives at a chosen instant.

use crate::common;

use common::{config, ONE_DIE};
use raidsim_core::report::Report;
use raidsim_core::simulate;
use std::sync::OnceLock;

const X: u64 = 102_400; // 4 KiB over a 40 MB/s channel
const T_READ: u64 = 25_000;
const T_PROG: u64 = 200_000;
const E: u64 = 1_500_000; // one erase (no command time)
const GAP: u64 = 1_000_000;
const SUSPEND: u64 = 100_000;

/// The drive described above, replaying `requests` (time, op, logical page).
fn overrides(requests: &[(u64, char, u64)], extra: &[&str]) -> Vec<String> {
    let list: Vec<String> = requests.iter().map(|(t, op, page)| format!("[{t}, \"{op}\", {}, 4096]", page * 4096)).collect();
    let drive = ["ssd.geometry.chips_per_channel=2", "precondition.fill_fraction=1.0", "ssd.ftl.gc_threshold_fraction=0.1"];
    let mut o: Vec<String> = ONE_DIE.iter().chain(&drive).chain(&["workload.kind=requests"]).chain(extra).map(|s| s.to_string()).collect();
    o.push(format!("workload.requests=[{}]", list.join(", ")));
    o
}

fn resolved(requests: &[(u64, char, u64)], extra: &[&str]) -> raidsim_core::config::ResolvedConfig {
    let o = overrides(requests, extra);
    config("", &o.iter().map(String::as_str).collect::<Vec<_>>())
}

fn run(requests: &[(u64, char, u64)], extra: &[&str]) -> Report {
    simulate(resolved(requests, extra)).expect("runs")
}

/// Requests: arrival, ns; `R` or `W`; logical page.
type Requests = Vec<(u64, char, u64)>;

/// The overwrites up to the first that collects, and that collection's copies, ns.
fn writes_until_collection() -> &'static (Requests, u64) {
    static FOUND: OnceLock<(Requests, u64)> = OnceLock::new();
    FOUND.get_or_init(|| {
        let mut writes = Vec::new();
        for i in 0..4096u64 {
            // A stride prime to the chip's pages spreads the overwrites over its blocks.
            writes.push((i * GAP, 'W', 2 * (i * 7919 % 2000)));
            let r = run(&writes, &[]);
            let d = &r.devices[0];
            if d.erases > 0 {
                assert_eq!(d.erases, 1, "one victim");
                let copied = d.pages_written.get("gc_write").copied().unwrap_or(0);
                return (writes, copied * (T_READ + T_PROG));
            }
        }
        panic!("no write triggered collection");
    })
}

/// With collection booked at once (`gc_holds = "channel"`), the erase runs
/// over `[erase_from, erase_from + E)`; requests `after` arrive at the given
/// offsets from `erase_from`. Their responses, in order, and the report.
fn during_the_erase(after: &[(i64, char)], extra: &[&str]) -> (Vec<u64>, Report) {
    let (writes, copies) = writes_until_collection();
    let last = writes.last().expect("a write").0;
    let erase_from = last + X + T_PROG + copies;
    let mut requests = writes.clone();
    requests.extend(after.iter().map(|&(dt, op)| (erase_from.checked_add_signed(dt).expect("after the start"), op, 0)));
    let o = [&["ssd.ftl.gc_holds=channel"], extra].concat();
    let logged = [o.as_slice(), &["metrics.request_log=\"unused.parquet\""]].concat();
    let mut sim = raidsim_core::Simulation::new(resolved(&requests, &logged)).expect("builds");
    sim.run().expect("runs");
    let log = sim.request_log().expect("a log");
    let n = log.arrival_ns.len();
    let responses = (n - after.len()..n).map(|i| log.completion_ns[i] - log.arrival_ns[i]).collect();
    (responses, run(&requests, &o))
}

fn stat(r: &Report, path: &str) -> f64 {
    r.stats.iter().find(|s| s.path == path).unwrap_or_else(|| panic!("no stat {path}")).value
}

const READS: [&str; 2] = ["ssd.erase_suspend.ops=\"reads\"", "ssd.erase_suspend.latency_ns=100000"];

#[test]
fn without_suspension_a_read_waits_for_the_erase() {
    let (r, _) = during_the_erase(&[(750_000, 'R')], &[]);
    assert_eq!(r, [E - 750_000 + T_READ + X]);
}

#[test]
fn a_read_during_an_erase_waits_only_the_suspend_latency() {
    let (r, report) = during_the_erase(&[(750_000, 'R')], &READS);
    assert_eq!(r, [SUSPEND + T_READ + X]);
    assert_eq!(stat(&report, "ssd.flash.erase_suspensions"), 1.0);
}

#[test]
fn with_less_than_the_threshold_left_the_read_waits_for_the_erase() {
    // 699 us left < 700 us: waits; 700 us left: suspends.
    let (r, _) = during_the_erase(&[(E as i64 - 699_000, 'R')], &READS);
    assert_eq!(r, [699_000 + T_READ + X]);
    let (r, _) = during_the_erase(&[(E as i64 - 700_000, 'R')], &READS);
    assert_eq!(r, [SUSPEND + T_READ + X]);
}

#[test]
fn the_erase_resumes_for_what_it_had_left() {
    // The read suspends the erase with 750 us left; a write (which may not
    // suspend) arrives as the read ends and waits for those 750 us.
    let read_done = 750_000 + SUSPEND + T_READ + X;
    let (r, report) = during_the_erase(&[(750_000, 'R'), (read_done as i64, 'W')], &READS);
    assert_eq!(r, [SUSPEND + T_READ + X, 750_000 + X + T_PROG]);
    assert_eq!(stat(&report, "ssd.flash.ahead_of_erase"), 0.0);
}

#[test]
fn writes_suspend_only_when_asked() {
    let both = ["ssd.erase_suspend.ops=\"reads_and_writes\"", "ssd.erase_suspend.latency_ns=100000"];
    let (r, _) = during_the_erase(&[(750_000, 'W')], &both);
    assert_eq!(r, [SUSPEND + X + T_PROG]);
    let (r, _) = during_the_erase(&[(750_000, 'W')], &READS);
    assert_eq!(r, [E - 750_000 + X + T_PROG]);
}

#[test]
fn an_operation_ready_before_the_erase_goes_first_at_no_cost() {
    // Ready 1 ns before the erase would begin (during the copies): served
    // when the copies end, without a suspension; the erase follows it.
    let (r, report) = during_the_erase(&[(-1, 'R')], &READS);
    assert_eq!(r, [1 + T_READ + X]);
    assert_eq!(stat(&report, "ssd.flash.erase_suspensions"), 0.0);
    assert_eq!(stat(&report, "ssd.flash.ahead_of_erase"), 1.0);
}

#[test]
fn owed_collection_lets_the_waiting_read_go_before_its_erase() {
    // Collection held by the unit is owed until the chip's next operation:
    // a read arriving 1 ns after the collecting write's program waits for the
    // copies, not the erase.
    let (writes, copies) = writes_until_collection();
    let programmed = writes.last().expect("a write").0 + X + T_PROG;
    let mut requests = writes.clone();
    requests.push((programmed + 1, 'R', 0));
    let read = |extra: &[&str]| run(&requests, extra).host.read_response.max_ns;
    assert_eq!(read(&[]), copies + E + T_READ + X);
    assert_eq!(read(&READS), copies + T_READ + X);
}

#[test]
fn settings_that_cannot_act_are_refused() {
    let e = common::refused(&["ssd.erase_suspend.latency_ns=5"]);
    assert!(e.contains("ssd.erase_suspend.latency_ns") && e.contains("ops"), "{e}");
    let e = common::refused(&["ssd.erase_suspend.ops=\"reads\"", "ssd.erase_suspend.write_min_remaining_ns=5"]);
    assert!(e.contains("write_min_remaining_ns") && e.contains("reads_and_writes"), "{e}");
    let e = common::refused(&["ssd.erase_suspend.ops=\"erases\""]);
    assert!(e.contains("ops"), "{e}");
}

#[test]
fn a_read_that_is_ready_only_after_the_erase_does_not_wait() {
    // It arrives 1 us before the erase ends, but the processor takes 5 us over it.
    let o = [READS.as_slice(), &["ssd.timing.firmware_read_ns=5000"]].concat();
    let (r, _) = during_the_erase(&[(E as i64 - 1_000, 'R')], &o);
    assert_eq!(r, [5_000 + T_READ + X]);
}

#[test]
fn a_suspension_without_latency_is_still_a_suspension() {
    let o = ["ssd.erase_suspend.ops=\"reads\"", "ssd.erase_suspend.latency_ns=0", "ssd.erase_suspend.read_min_remaining_ns=0"];
    let (r, report) = during_the_erase(&[(750_000, 'R')], &o);
    assert_eq!(r, [T_READ + X]);
    assert_eq!(stat(&report, "ssd.flash.erase_suspensions"), 1.0);
    assert_eq!(stat(&report, "ssd.flash.ahead_of_erase"), 0.0);
}

/// A gap on the die before its collection that a read cannot use (the
/// channel is busy then) does not keep it from going ahead of the erase.
/// Three chips on one channel, 16 blocks of 4 pages, full: the ninth
/// overwrite on chip 0 collects (no copies). Reads on chips 1 and 2 hold
/// the channel while it senses, so its transfer waits 2X; a read on chip 0
/// arriving 1 ns after it then goes ahead of the erase: 3X + P + R + X - 1.
#[test]
fn a_gap_before_collection_that_the_read_cannot_use_does_not_hide_the_erase() {
    let (tw, r) = (8 * GAP, 25_000);
    let mut requests: Requests = (0..8).map(|i| (i * GAP, 'W', 3 * i)).collect();
    requests.extend([(tw - r, 'R', 100), (tw - r, 'R', 101), (tw, 'W', 24), (tw + 1, 'R', 60)]);
    let drive = [
        "ssd.geometry.chips_per_channel=3",
        "ssd.geometry.blocks_per_plane=16",
        "ssd.geometry.pages_per_block=4",
        "ssd.geometry.over_provisioning_fraction=0.25",
        "sim.warmup_requests=0",
    ];
    let last_read = |extra: &[&str]| {
        let o = [&drive[..], extra, &["metrics.request_log=\"unused.parquet\""]].concat();
        let mut sim = raidsim_core::Simulation::new(resolved(&requests, &o)).expect("builds");
        sim.run().expect("runs");
        let log = sim.request_log().expect("a log");
        let n = log.arrival_ns.len();
        log.completion_ns[n - 1] - log.arrival_ns[n - 1]
    };
    let ahead = 3 * X + T_PROG + T_READ + X - 1;
    assert_eq!(last_read(&READS), ahead);
    assert_eq!(last_read(&[]), ahead + E);
}
