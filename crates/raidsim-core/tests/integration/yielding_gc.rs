//! Collection that yields to the host (`ssd.ftl.gc_hard_threshold_fraction`),
//! by hand count.
//!
//! One die (`ONE_DIE`), full, collecting below 7 free blocks (10 % of 64).
//! A copy stays in the plane: its read and program, 225 us; an erase
//! 1.5 ms. Overwrites at a stride that spreads them over the blocks come
//! `gap` apart until the n-th collection; then requests arrive at chosen
//! instants. Where a collection starts and what it copies depend on the
//! writes alone, not on time, so one search serves every setting.

use crate::common;

use common::{config, refused, ONE_DIE};
use raidsim_core::report::Report;
use raidsim_core::simulate;

const X: u64 = 102_400; // 4 KiB over a 40 MB/s channel
const T_READ: u64 = 25_000;
const T_PROG: u64 = 200_000;
const COPY: u64 = T_READ + T_PROG;
const E: u64 = 1_500_000;
/// The unit busy from one write to the next: nothing idle between them.
const BACK_TO_BACK: u64 = X + T_PROG;

/// Requests: arrival, ns; `R` or `W`; logical page.
type Requests = Vec<(u64, char, u64)>;

fn overrides(requests: &[(u64, char, u64)], extra: &[&str]) -> Vec<String> {
    let list: Vec<String> = requests.iter().map(|(t, op, page)| format!("[{t}, \"{op}\", {}, 4096]", page * 4096)).collect();
    let drive = ["precondition.fill_fraction=1.0", "ssd.ftl.gc_threshold_fraction=0.1", "workload.kind=requests"];
    let mut o: Vec<String> = ONE_DIE.iter().chain(&drive).chain(extra).map(|s| s.to_string()).collect();
    o.push(format!("workload.requests=[{}]", list.join(", ")));
    o
}

fn run(requests: &[(u64, char, u64)], extra: &[&str]) -> Report {
    let o = overrides(requests, extra);
    simulate(config("", &o.iter().map(String::as_str).collect::<Vec<_>>())).expect("runs")
}

/// Each request's response, in arrival order, and the report.
fn responses(requests: &[(u64, char, u64)], extra: &[&str]) -> (Vec<u64>, Report) {
    let logged = [extra, &["metrics.request_log=\"unused.parquet\""]].concat();
    let o = overrides(requests, &logged);
    let mut sim = raidsim_core::Simulation::new(config("", &o.iter().map(String::as_str).collect::<Vec<_>>())).expect("builds");
    sim.run().expect("runs");
    let log = sim.request_log().expect("a log");
    let r = log.arrival_ns.iter().zip(&log.completion_ns).map(|(&a, &c)| c - a).collect();
    (r, run(requests, extra))
}

fn copies(r: &Report) -> u64 {
    r.devices[0].pages_written.get("gc_write").copied().unwrap_or(0)
}

fn stat(r: &Report, path: &str) -> f64 {
    r.stats.iter().find(|s| s.path == path).unwrap_or_else(|| panic!("no stat {path}")).value
}

/// Overwrites `gap` apart up to the one that starts the `n`-th collection,
/// and each collection's copies.
fn writes_until_collection(n: u64, gap: u64) -> (Requests, Vec<u64>) {
    let (mut writes, mut copied) = (Vec::new(), vec![0]);
    for i in 0..4096u64 {
        writes.push((i * gap, 'W', i * 7919 % 3000));
        let r = run(&writes, &[]);
        let erases = r.devices[0].erases;
        if erases > copied.len() as u64 - 1 {
            assert_eq!(erases, copied.len() as u64, "one victim a collection");
            copied.push(copies(&r));
            if erases == n {
                let each = copied.windows(2).map(|w| w[1] - w[0]).collect();
                return (writes, each);
            }
        }
    }
    panic!("fewer than {n} collections");
}

const YIELDING: &str = "ssd.ftl.gc_hard_threshold_fraction=0.02";

#[test]
fn idle_time_absorbs_a_collection() {
    let (mut requests, c) = writes_until_collection(1, 1_000_000);
    let written = requests.last().expect("a write").0 + X + T_PROG;
    let whole = c[0] * COPY + E;
    assert!(c[0] >= 3, "the copies below need three or more");
    requests.push((written + whole + 1, 'R', 0));
    // Owed to the unit, the collection runs when the read comes.
    let (r, owed) = responses(&requests, &[]);
    assert_eq!(r.last(), Some(&(whole + T_READ + X)));
    // Yielding, it ran in the idle time after the write.
    let (r, yielding) = responses(&requests, &[YIELDING]);
    assert_eq!(r.last(), Some(&(T_READ + X)));
    assert_eq!((copies(&yielding), yielding.devices[0].erases), (copies(&owed), owed.devices[0].erases));
    assert_eq!(stat(&yielding, "ssd.ftl.gc.urgent_pieces"), 0.0);
    assert_eq!(stat(&yielding, "ssd.ftl.gc.pieces_owed_at_end"), 0.0);
    assert!(yielding.warnings.iter().all(|w| !w.contains("owed when the run ended")), "{:?}", yielding.warnings);
}

#[test]
fn a_read_waits_only_for_the_copy_or_erase_under_way() {
    let (writes, c) = writes_until_collection(1, 1_000_000);
    let written = writes.last().expect("a write").0 + X + T_PROG;
    // During the third copy, 100 us into it; then during the erase, 500 us into it.
    for (into, left) in [(2 * COPY + 100_000, COPY - 100_000), (c[0] * COPY + 500_000, E - 500_000)] {
        let mut requests = writes.clone();
        requests.push((written + into, 'R', 0));
        let (r, _) = responses(&requests, &[YIELDING]);
        assert_eq!(r.last(), Some(&(left + T_READ + X)), "{into} ns into the collection");
        let (r, _) = responses(&requests, &[]);
        assert_eq!(r.last(), Some(&(c[0] * COPY + E + T_READ + X)), "without yielding");
    }
}

#[test]
fn below_the_hard_threshold_collection_goes_first_until_an_erase_restores_it() {
    // Writes back to back leave no idle time: both collections stay owed.
    // After the second, the plane's 7 free blocks less 2 owed erases are 5.
    let (mut requests, c) = writes_until_collection(2, BACK_TO_BACK);
    let next = requests.last().expect("a write").0 + BACK_TO_BACK;
    requests.push((next, 'W', 1));
    // Hard threshold 6 blocks (6/64): 5 < 6, urgent. The first collection
    // goes ahead of the write; its erase leaves 6 free less 1 owed: the
    // second yields.
    let urgent = "ssd.ftl.gc_hard_threshold_fraction=0.09375";
    let (r, report) = responses(&requests, &[urgent]);
    assert_eq!(r.last(), Some(&(c[0] * COPY + E + X + T_PROG)));
    assert_eq!(stat(&report, "ssd.ftl.gc.urgent_pieces"), (c[0] + 1) as f64);
    assert_eq!(stat(&report, "ssd.ftl.gc.urgent_waits"), 1.0);
    // The second collection, all of it, is still owed at the end: said.
    assert_eq!(stat(&report, "ssd.ftl.gc.pieces_owed_at_end"), (c[1] + 1) as f64);
    assert!(report.warnings.iter().any(|w| w.contains("owed when the run ended than when")), "{:?}", report.warnings);
    // Owed as much when counting began (after a warm-up of all but the
    // last write) as at the end: nothing fell behind in the run, nothing said.
    let warm = format!("sim.warmup_requests={}", requests.len() - 1);
    let (_, report) = responses(&requests, &[urgent, &warm]);
    assert!(report.warnings.iter().all(|w| !w.contains("owed when the run ended")), "{:?}", report.warnings);
    // An erase that goes ahead of the host is not suspended for it.
    let suspending = ["ssd.erase_suspend.ops=\"reads_and_writes\"", "ssd.erase_suspend.latency_ns=100000"];
    let (r, report) = responses(&requests, &[&[urgent][..], &suspending].concat());
    assert_eq!(r.last(), Some(&(c[0] * COPY + E + X + T_PROG)));
    assert_eq!(stat(&report, "ssd.flash.erase_suspensions") + stat(&report, "ssd.flash.ahead_of_erase"), 0.0);
    // Hard threshold 5 blocks: 5 is not below it; nothing goes first.
    let (r, report) = responses(&requests, &["ssd.ftl.gc_hard_threshold_fraction=0.078125"]);
    assert_eq!(r.last(), Some(&(X + T_PROG)));
    assert_eq!(stat(&report, "ssd.ftl.gc.urgent_pieces"), 0.0);
    // Without yielding, the write waits for both.
    let (r, _) = responses(&requests, &[]);
    assert_eq!(r.last(), Some(&((c[0] + c[1]) * COPY + 2 * E + X + T_PROG)));
}

#[test]
fn bad_settings_are_refused_by_key() {
    let key = "ssd.ftl.gc_hard_threshold_fraction";
    for (set, says) in [("0", "must lie in (0, 0.5)"), ("0.5", "must lie in (0, 0.5)"), ("0.06", "not below the")] {
        let e = refused(&[&format!("{key}={set}")]);
        assert!(e.contains(key) && e.contains(says), "{set}: {e}");
    }
    for other in ["ssd.ftl.gc_holds=\"channel\"", "ssd.ftl.scheme=\"fast\"", "ssd.slc_cache.blocks_per_plane=64"] {
        let e = refused(&[&format!("{key}=0.01"), "ssd.geometry.cell_type=\"tlc\"", other]);
        assert!(e.contains(key), "{other}: {e}");
    }
    // Harmonia forces every member to collect at once: the opposite choice.
    let e = refused(&[&format!("{key}=0.01"), "array.level=raid5", "array.members=3", "array.gc_coordination=\"global\""]);
    assert!(e.contains("array.gc_coordination") && e.contains(key) && e.contains("member 0"), "{e}");
}

/// What is owed can grow only by the collections the measured run made,
/// whatever the warm-up left in the write buffer: on MQSim's drive (reads
/// pass buffered programs, whose writes' collections are owed only once
/// the programs are booked), aged so that it collects at once.
#[test]
fn what_is_owed_grows_by_no_more_than_the_run_collected() {
    // Warm-ups that end with programs waiting whose writes collected (the
    // second), and without; a short window and a longer one.
    for (measured, warm) in [(3u64, 20_000u64), (3, 20_037), (3, 20_074), (1000, 20_000)] {
        let o = [
            "ssd.geometry.blocks_per_plane=64".to_string(),
            "ssd.geometry.channels=2".into(),
            "precondition.random_overwrite_factor=2".into(),
            "workload.kind=synthetic".into(),
            format!("workload.requests={}", warm + measured),
            format!("sim.warmup_requests={warm}"),
            "workload.processes=8".into(),
            "workload.read_fraction=0".into(),
            "workload.size.kind=fixed".into(),
            "workload.size.mean_bytes=4096".into(),
            "ssd.ftl.gc_hard_threshold_fraction=0.02".into(),
        ];
        let r = simulate(config("mqsim-default", &o.iter().map(String::as_str).collect::<Vec<_>>())).expect("runs");
        let grew = stat(&r, "ssd.ftl.gc.pieces_owed_at_end") - stat(&r, "ssd.ftl.gc.pieces_owed_at_start");
        let run = copies(&r) + r.devices[0].erases;
        assert!(stat(&r, "ssd.ftl.gc.pieces_owed_at_start") > 0.0, "{measured}: the warm-up left collection owed");
        assert!(grew <= run as f64, "{measured} measured writes: owed grew by {grew}, the run collected {run} pieces");
    }
}
