//! The SLC cache (`ssd.slc_cache`) by hand count on one die
//! (`common::ONE_DIE`: no command time, 4 KiB in 102.4 us, no link) of TLC
//! flash with 12-page blocks, so that a cache block holds 4 pages.

use crate::common::{config, refused, ONE_DIE};
use raidsim_core::report::Report;

const X: u64 = 102_400; // 4 KiB over a 40 MB/s channel
const SLC_READ: u64 = 10_000;
const SLC_PROGRAM: u64 = 50_000;
const READ_LSB: u64 = 25_000;
const PROGRAM: [u64; 3] = [200_000, 400_000, 800_000]; // LSB, CSB, MSB
const ERASE: u64 = 1_500_000;
const MS: u64 = 1_000_000;
/// Folding one full cache block into the first dense pages (all LSB): four SLC reads and LSB programs, and an erase.
const FOLD_INTO_LSB: u64 = 4 * (SLC_READ + PROGRAM[0]) + ERASE;

const DRIVE: [&str; 10] = [
    "ssd.geometry.pages_per_block=12",
    "ssd.geometry.cell_type=\"tlc\"",
    "ssd.timing.t_read_csb_ns=50000",
    "ssd.timing.t_read_msb_ns=100000",
    "ssd.timing.t_program_csb_ns=400000",
    "ssd.timing.t_program_msb_ns=800000",
    "ssd.timing.t_erase_ns=1500000",
    "ssd.slc_cache.blocks_per_plane=2",
    "ssd.slc_cache.t_read_ns=10000",
    "ssd.slc_cache.t_program_ns=50000",
];

const IDLE_BYPASS: [&str; 2] = ["ssd.slc_cache.when_full=\"bypass\"", "ssd.slc_cache.idle_fold_after_ns=5000000"];

/// Requests (arrival ns, op, logical page) of 4 KiB on the drive with `extra`: each response in arrival order, and the report.
fn run(requests: &[(u64, char, u64)], extra: &[&str]) -> (Vec<u64>, Report) {
    run_on(&DRIVE, requests, extra)
}

fn run_on(drive: &[&str], requests: &[(u64, char, u64)], extra: &[&str]) -> (Vec<u64>, Report) {
    let list: Vec<String> = requests.iter().map(|(t, op, page)| format!("[{t}, \"{op}\", {}, 4096]", page * 4096)).collect();
    let req = format!("workload.requests=[{}]", list.join(", "));
    let o = [&ONE_DIE[..], drive, &["workload.kind=\"requests\"", req.as_str(), "metrics.request_log=\"unused.parquet\""], extra].concat();
    let mut sim = raidsim_core::Simulation::new(config("", &o)).expect("builds");
    sim.run().expect("runs");
    let log = sim.request_log().expect("a log");
    let mut rows: Vec<(u64, u64)> = log.arrival_ns.iter().zip(&log.completion_ns).map(|(&a, &c)| (a, c - a)).collect();
    rows.sort_unstable();
    (rows.into_iter().map(|(_, r)| r).collect(), sim.report())
}

fn stat(r: &Report, path: &str) -> f64 {
    r.stats.iter().find(|s| s.path == path).unwrap_or_else(|| panic!("no stat {path}")).value
}

fn written(r: &Report, cause: &str) -> u64 {
    r.devices[0].pages_written.get(cause).copied().unwrap_or(0)
}

/// Writes of logical pages `pages`, one every `gap` ns from 0.
fn writes(pages: impl Iterator<Item = u64>, gap: u64) -> Vec<(u64, char, u64)> {
    pages.enumerate().map(|(k, p)| (k as u64 * gap, 'W', p)).collect()
}

#[test]
fn cached_pages_are_written_and_read_at_the_slc_modes_latencies() {
    let mut requests = writes(0..4, 10 * MS);
    requests.extend((0..4).map(|p| ((10 + p) * 10 * MS, 'R', p)));
    let (got, r) = run(&requests, &[]);
    assert_eq!(got, [[X + SLC_PROGRAM; 4], [SLC_READ + X; 4]].concat());
    assert_eq!(stat(&r, "ssd.slc_cache.pages_cached"), 4.0);
    assert_eq!(stat(&r, "ssd.slc_cache.pages_held"), 4.0);
    // Without the cache the same writes program the block's first pages, LSB pages of TLC.
    let (dense, _) = run_on(&DRIVE[..7], &requests, &[]);
    assert_eq!(dense[..4], [X + PROGRAM[0]; 4]);
}

#[test]
fn once_the_last_free_cache_block_is_open_each_write_folds_its_share_of_the_oldest() {
    let mut requests = writes(0..9, 10 * MS);
    // Page 4's write ends at 40 ms + X + SLC_PROGRAM; a read arrives 1 us into the folding it asks for.
    let fold_from = 40 * MS + X + SLC_PROGRAM;
    requests.extend([(fold_from + 1_000, 'R', 4), (100 * MS, 'R', 0), (110 * MS, 'R', 4), (120 * MS, 'R', 6)]);
    requests.sort_unstable();
    let (got, r) = run(&requests, &[]);
    // Pages 0-3 fill the first cache block; page 4 opens the second, the
    // last free one, leaving 3 of its pages: it folds 4 / 3 rounded up = 2
    // pages of the first into dense pages 0 and 1 (LSB), and the read of
    // page 4 (in the cache) waits for them.
    assert_eq!(got[..5], [X + SLC_PROGRAM; 5]);
    assert_eq!(got[5], 2 * (SLC_READ + PROGRAM[0]) - 1_000 + SLC_READ + X);
    // Pages 5 and 6 fold one page each, the last with the block's erase,
    // each long before the next write; page 7 fills the second block; page
    // 8 opens the first again and folds pages 4 and 5 into dense pages 4
    // and 5 (LSB); pages 6 and 7 stay in the cache.
    assert_eq!(got[6..10], [X + SLC_PROGRAM; 4]);
    assert_eq!(got[10..12], [READ_LSB + X; 2], "pages 0 and 4 were folded into LSB pages");
    assert_eq!(got[12], SLC_READ + X, "page 6 is still cached");
    assert_eq!(stat(&r, "ssd.slc_cache.blocks_folded"), 1.0);
    assert_eq!(stat(&r, "ssd.slc_cache.pages_folded"), 6.0);
    assert_eq!(stat(&r, "ssd.slc_cache.pages_held"), 3.0, "pages 6 and 7, and 8");
    assert_eq!(stat(&r, "ssd.slc_cache.blocks_folded_idle"), 0.0);
    assert_eq!((written(&r, "user"), written(&r, "slc_fold_write")), (9, 6));
    assert_eq!(r.devices[0].erases, 1);
    assert_eq!(stat(&r, "ssd.ftl.write_amplification"), 15.0 / 9.0);
    assert_eq!(stat(&r, "ssd.ftl.gc.runs"), 0.0, "folds are not collections");
}

#[test]
fn a_page_rewritten_in_the_cache_is_never_folded() {
    // Five writes of one page, 1 ms apart: the first block holds four
    // versions, and the fifth, in the second block, leaves it nothing valid
    // to fold: the fold is its erase, which the sixth write meets.
    let (got, r) = run(&writes(std::iter::repeat(0).take(6), MS), &[]);
    assert_eq!(got[5], 4 * MS + X + SLC_PROGRAM + ERASE - 5 * MS + X + SLC_PROGRAM);
    assert_eq!((stat(&r, "ssd.slc_cache.blocks_folded"), stat(&r, "ssd.slc_cache.pages_folded")), (1.0, 0.0));
    assert_eq!(written(&r, "slc_fold_write"), 0);
    assert_eq!(stat(&r, "ssd.ftl.write_amplification"), 1.0);
}

#[test]
fn a_full_cache_is_bypassed_and_an_idle_die_folds_it_oldest_first() {
    // Nine writes 1 ms apart (never 5 ms idle): two blocks fill, the ninth goes to the dense cells.
    let mut requests = writes(0..9, MS);
    requests.push((100 * MS, 'R', 0));
    let (got, r) = run(&requests, &IDLE_BYPASS);
    assert_eq!(got[..8], [X + SLC_PROGRAM; 8]);
    assert_eq!(got[8], X + PROGRAM[0], "bypassed into dense page 0, an LSB page");
    // Idle from 5 ms after the ninth write, the die folds both blocks long before the read:
    // page 0 went to dense page 1 (LSB).
    assert_eq!(got[9], READ_LSB + X);
    assert_eq!(stat(&r, "ssd.slc_cache.pages_bypassed"), 1.0);
    assert_eq!(stat(&r, "ssd.slc_cache.blocks_folded_idle"), 2.0);
    assert_eq!(stat(&r, "ssd.slc_cache.pages_folded"), 8.0);
    assert_eq!(stat(&r, "ssd.slc_cache.pages_held"), 0.0);
}

#[test]
fn a_request_arriving_during_an_idle_fold_waits_for_that_page_only() {
    let mut requests = writes(0..4, MS);
    // The die idles from the fourth write's end; folding begins 5 ms later,
    // a page at a time: page 0 into dense page 0 (LSB) first.
    let fold_from = 3 * MS + X + SLC_PROGRAM + 5 * MS;
    requests.push((fold_from + 1_000, 'R', 0));
    let (got, r) = run(&requests, &IDLE_BYPASS);
    assert_eq!(got[4], SLC_READ + PROGRAM[0] - 1_000 + READ_LSB + X);
    assert_eq!((stat(&r, "ssd.slc_cache.pages_folded"), stat(&r, "ssd.slc_cache.blocks_folded_idle")), (1.0, 0.0));
    // Arriving just before the fold would begin, the read finds the page still cached.
    let mut early = writes(0..4, MS);
    early.push((fold_from - 1, 'R', 0));
    let (got, r) = run(&early, &IDLE_BYPASS);
    assert_eq!((got[4], stat(&r, "ssd.slc_cache.pages_folded")), (SLC_READ + X, 0.0));
}

#[test]
fn a_die_folding_while_idle_goes_on_whatever_other_dies_are_asked() {
    // Two dies: even pages on die 0, odd ones on die 1. Twelve writes to die
    // 0 fill three of its four cache blocks; it idles from 11 ms + X +
    // SLC_PROGRAM and folds them from 5 ms later, into dense pages 0-3
    // (LLLL), 4-7 and 8-11 (LLCC each), done by 23.97 ms.
    let two_dies = ["ssd.geometry.dies_per_chip=2", "ssd.slc_cache.blocks_per_plane=4"];
    let extra = [&IDLE_BYPASS[..], &two_dies].concat();
    let mut requests = writes((0..12).map(|k| 2 * k), MS);
    requests.push((24_500_000, 'R', 0));
    let (alone, r) = run(&requests, &extra);
    assert_eq!(stat(&r, "ssd.slc_cache.blocks_folded_idle"), 3.0);
    assert_eq!(alone[12], READ_LSB + X);
    let fold_llcc = 4 * SLC_READ + 2 * PROGRAM[0] + 2 * PROGRAM[1] + ERASE;
    assert_eq!(11 * MS + X + SLC_PROGRAM + 5 * MS + FOLD_INTO_LSB + 2 * fold_llcc, 23_972_400);
    // A read of die 1 at 17 ms, during die 0's first fold, changes nothing for die 0.
    requests.push((17 * MS, 'R', 1));
    requests.sort_unstable();
    let (got, r) = run(&requests, &extra);
    assert_eq!(stat(&r, "ssd.slc_cache.blocks_folded_idle"), 3.0);
    assert_eq!(got[13], READ_LSB + X);
}

#[test]
fn a_fold_copies_inside_its_plane_and_leaves_the_channel_to_other_dies() {
    // Two dies on the channel: even pages on die 0. Page 8's write (the
    // fifth to die 0) folds two pages there; a read on die 1 arriving 1 us
    // into that fold is not held, even where collection holds the channel.
    let write_end = 4 * MS + X + SLC_PROGRAM;
    let mut requests = writes((0..5).map(|k| 2 * k), MS);
    requests.push((write_end + 1_000, 'R', 1));
    for holds in ["ssd.ftl.gc_holds=\"unit\"", "ssd.ftl.gc_holds=\"channel\""] {
        let (got, r) = run(&requests, &["ssd.geometry.dies_per_chip=2", holds]);
        assert_eq!(stat(&r, "ssd.slc_cache.pages_folded"), 2.0);
        assert_eq!(got[5], READ_LSB + X, "{holds}");
    }
}

#[test]
fn preconditioning_writes_the_dense_cells_and_leaves_the_cache_empty() {
    let (got, r) = run(&[(0, 'W', 0), (10 * MS, 'R', 1)], &["precondition.fill_fraction=0.5", "precondition.random_overwrite_factor=0.5"]);
    assert_eq!(got[0], X + SLC_PROGRAM);
    assert_eq!(stat(&r, "ssd.slc_cache.pages_held"), 1.0);
    assert!(got[1] >= READ_LSB + X, "page 1 is read from the dense cells: {}", got[1]);
}

#[test]
fn settings_the_cache_cannot_honour_are_refused_by_key() {
    let tlc = &DRIVE[..7];
    let with = |extra: &[&str]| refused(&[tlc, extra].concat());
    let cases: [(&[&str], &str); 8] = [
        (&["ssd.slc_cache.blocks_per_plane=2", "ssd.slc_cache.t_read_ns=1"], "ssd.slc_cache.t_program_ns"),
        (&["ssd.slc_cache.t_read_ns=1"], "has no effect without a cache"),
        (&["ssd.slc_cache.blocks_per_plane=1", "ssd.slc_cache.t_read_ns=1", "ssd.slc_cache.t_program_ns=1"], "at least 2"),
        (
            &["ssd.slc_cache.blocks_per_plane=2", "ssd.slc_cache.t_read_ns=1", "ssd.slc_cache.t_program_ns=1", "ssd.slc_cache.when_full=\"bypass\""],
            "never empty it",
        ),
        (
            &[
                "ssd.geometry.blocks_per_plane=64",
                "ssd.geometry.over_provisioning_fraction=0.05",
                "ssd.slc_cache.blocks_per_plane=2",
                "ssd.slc_cache.t_read_ns=1",
                "ssd.slc_cache.t_program_ns=1",
            ],
            "spare blocks per plane",
        ),
        (
            &[
                "ssd.ftl.scheme=\"fast\"",
                "ssd.ftl.log_blocks_per_plane=1",
                "ssd.slc_cache.blocks_per_plane=2",
                "ssd.slc_cache.t_read_ns=1",
                "ssd.slc_cache.t_program_ns=1",
            ],
            "ssd.ftl.scheme",
        ),
        (
            &["ssd.ftl.summary_pages_per_block=1", "ssd.slc_cache.blocks_per_plane=2", "ssd.slc_cache.t_read_ns=1", "ssd.slc_cache.t_program_ns=1"],
            "ssd.ftl.summary_pages_per_block",
        ),
        (
            &[
                "ssd.ftl.gc_holds=\"channel\"",
                "ssd.ftl.gc_copy_back=false",
                "ssd.slc_cache.blocks_per_plane=2",
                "ssd.slc_cache.t_read_ns=1",
                "ssd.slc_cache.t_program_ns=1",
                "ssd.slc_cache.idle_fold_after_ns=1",
            ],
            "gc_copy_back",
        ),
    ];
    for (extra, expected) in cases {
        let e = with(extra);
        assert!(e.contains(expected), "{extra:?}: {e}");
    }
    let static_die =
        with(&["ssd.ftl.allocation=\"static_die\"", "ssd.slc_cache.blocks_per_plane=2", "ssd.slc_cache.t_read_ns=1", "ssd.slc_cache.t_program_ns=1"]);
    assert!(static_die.contains("ssd.ftl.allocation"), "{static_die}");
    let slc = refused(&["ssd.slc_cache.blocks_per_plane=2", "ssd.slc_cache.t_read_ns=1", "ssd.slc_cache.t_program_ns=1"]);
    assert!(slc.contains("an SLC drive has no SLC cache"), "{slc}");
    let cr5m = refused(
        &[
            tlc,
            &[
                "array.level=\"cr5m\"",
                "array.members=3",
                "ssd.geometry.channels=3",
                "ssd.geometry.chips_per_channel=2",
                "ssd.slc_cache.blocks_per_plane=2",
                "ssd.slc_cache.t_read_ns=1",
                "ssd.slc_cache.t_program_ns=1",
            ],
        ]
        .concat(),
    );
    assert!(cr5m.contains("array.level"), "{cr5m}");
}

#[test]
fn no_cache_over_a_presets_cache_drops_its_settings_but_not_ones_set_by_hand() {
    let plain = config("intel-660p-1tb", &["ssd.slc_cache.blocks_per_plane=0"]);
    assert_eq!(plain.config.ssd.slc_cache, raidsim_core::config::SlcCacheConfig::default());
    let mut raw = raidsim_core::config::RawConfig::from_preset("intel-660p-1tb").expect("preset");
    raw.set("ssd.slc_cache.blocks_per_plane=0").expect("set");
    raw.set("ssd.slc_cache.t_read_ns=1").expect("set");
    let e = raw.resolve().expect_err("refused").to_string();
    assert!(e.contains("ssd.slc_cache.t_read_ns") && e.contains("no effect"), "{e}");
}
