//! `ssd.ftl.place_unwritten_reads`: a read of a page never written places
//! it in its plane's open block, unprogrammed (MQSim's
//! `online_create_entry_for_reads`). By hand count on one die
//! (`common::ONE_DIE`: 4 KiB in 102.4 us, reads 25 us, programs 200 us);
//! static allocation puts even logical pages on plane 0 and odd ones on
//! plane 1 when the die has two.

use crate::common::{config, refused, ONE_DIE};

const X: u64 = 102_400;
const READ: u64 = 25_000;
const PROGRAM: u64 = 200_000;

/// Runs `requests` on one die with `extra` settings: the responses in
/// arrival order and the report's stats.
fn run(requests: &str, extra: &[&str]) -> (Vec<u64>, Vec<(String, f64)>) {
    let req = format!("workload.requests=[{requests}]");
    let setup = ["workload.kind=\"requests\"", "precondition.fill_fraction=0", "metrics.request_log=\"unused.parquet\""];
    let o = [&ONE_DIE[..], &setup, extra, &[req.as_str()]].concat();
    let mut sim = raidsim_core::Simulation::new(config("", &o)).expect("builds");
    sim.run().expect("runs");
    let log = sim.request_log().expect("a log");
    let mut rows: Vec<(u64, u64)> = log.arrival_ns.iter().zip(&log.completion_ns).map(|(&a, &c)| (a, c - a)).collect();
    rows.sort_unstable();
    let stats = sim.report().stats.iter().map(|s| (s.path.clone(), s.value)).collect();
    (rows.into_iter().map(|(_, r)| r).collect(), stats)
}

fn stat(stats: &[(String, f64)], path: &str) -> f64 {
    stats.iter().find(|(p, _)| p == path).map_or(0.0, |&(_, v)| v)
}

const PLACE: &str = "ssd.ftl.place_unwritten_reads=true";

#[test]
fn a_read_placing_a_page_moves_its_planes_next_offset_and_a_multi_plane_pair_is_lost() {
    // A read of page 3 (plane 1, never written) at 0. At 1 ms pages 0 and 1
    // wait to be programmed, on planes 0 and 1; a read of page 10 at
    // 1.001 ms finds the die under way. Without placement both wait at
    // offset 0 and go in one command: the read waits 2X + PROGRAM. Placed,
    // page 3 took plane 1's first page, so page 1 is at offset 1, page 0
    // goes alone, and the read waits for its program only.
    let requests = "[0, \"R\", 12288, 4096], [1000000, \"W\", 0, 4096], [1000000, \"W\", 4096, 4096], [1001000, \"R\", 40960, 4096]";
    let waiting =
        ["ssd.geometry.planes_per_die=2", "ssd.write_buffer_bytes=16384", "ssd.scheduling=\"reads_first\"", "ssd.multi_plane_programs=true"];
    let (apart, stats) = run(requests, &[&waiting[..], &[PLACE]].concat());
    assert_eq!(apart, [READ + X, 0, 0, X + PROGRAM + READ + X - 1000]);
    assert_eq!(stat(&stats, "ssd.flash.multi_plane_programs"), 0.0);
    assert_eq!(stat(&stats, "ssd.ftl.pages_placed_by_reads"), 2.0, "pages 3 and 10");
    let (together, stats) = run(requests, &waiting);
    assert_eq!(together, [READ + X, 0, 0, 2 * X + PROGRAM + READ + X - 1000]);
    assert_eq!(stat(&stats, "ssd.flash.multi_plane_programs"), 1.0);
    assert!(!stats.iter().any(|(p, _)| p == "ssd.ftl.pages_placed_by_reads"), "the stat is shown only with the option");
}

#[test]
fn a_page_a_read_placed_holds_no_data_to_read_before_a_partial_write() {
    // Half a page written at 1 ms: 2 KiB cross in 51.2 us, then the
    // program. A page holding data is sensed first (25 us more); a page a
    // read placed, like one never written, is not.
    let half = X / 2 + PROGRAM;
    let (placed, stats) = run("[0, \"R\", 0, 4096], [1000000, \"W\", 0, 2048]", &[PLACE]);
    assert_eq!(placed, [READ + X, half]);
    assert_eq!(stat(&stats, "ssd.flash.pages_read.partial_page_read"), 0.0);
    let (written, stats) = run("[0, \"W\", 0, 4096], [1000000, \"W\", 0, 2048]", &[PLACE]);
    assert_eq!(written, [X + PROGRAM, READ + half]);
    assert_eq!(stat(&stats, "ssd.flash.pages_read.partial_page_read"), 1.0);
    // Once written (in part), the page holds data: the next partial write reads it.
    let (again, _) = run("[0, \"R\", 0, 4096], [1000000, \"W\", 0, 2048], [2000000, \"W\", 2048, 2048]", &[PLACE]);
    assert_eq!(again, [READ + X, half, READ + half]);
}

#[test]
fn a_page_already_placed_or_written_is_read_where_it_is_and_not_placed_again() {
    let (_, stats) = run("[0, \"R\", 0, 8192], [1000000, \"R\", 0, 4096], [2000000, \"W\", 16384, 4096], [3000000, \"R\", 16384, 4096]", &[PLACE]);
    assert_eq!(stat(&stats, "ssd.ftl.pages_placed_by_reads"), 2.0, "pages 0 and 1, once each; page 4 was written");
}

/// Lists of requests, 1 ms apart: `first` (each logical page of the drive
/// once, in order, read or written), then `writes` 4 KiB writes at pages
/// drawn by a fixed linear congruential sequence.
fn fill_then_overwrite(first: char, pages: u64, writes: u64) -> String {
    let mut out: Vec<String> = (0..pages).map(|p| format!("[{}, \"{first}\", {}, 4096]", p * 1_000_000, p * 4096)).collect();
    let mut x: u64 = 12_345;
    for i in 0..writes {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let page = (x >> 33) % pages;
        out.push(format!("[{}, \"W\", {}, 4096]", (pages + i) * 1_000_000, page * 4096));
    }
    out.join(", ")
}

#[test]
fn reading_every_page_places_it_as_writing_it_would_so_collection_moves_the_same_pages() {
    // 16 blocks of 64 pages, a quarter spare: 768 logical pages. Filled by
    // reads with placement, the FTL holds what a fill by writes leaves,
    // and the same overwrites then collect alike; filled by reads without
    // placement, it holds only what the overwrites wrote, and moves less.
    let drive = ["ssd.geometry.blocks_per_plane=16", "ssd.geometry.over_provisioning_fraction=0.25"];
    let logical = 768;
    let moved = |first: char, extra: &[&str]| {
        let (_, stats) = run(&fill_then_overwrite(first, logical, 1500), &[&drive[..], extra].concat());
        (stat(&stats, "ssd.flash.erases"), stat(&stats, "ssd.flash.pages_written.gc_write"))
    };
    let (by_reads, by_writes, unplaced) = (moved('R', &[PLACE]), moved('W', &[PLACE]), moved('R', &[]));
    assert!(by_writes.0 > 0.0 && by_writes.1 > 0.0, "collection runs: {by_writes:?}");
    assert_eq!(by_reads, by_writes);
    assert!(unplaced.1 < by_reads.1, "{unplaced:?} against {by_reads:?}");
}

#[test]
fn a_trim_of_a_page_a_read_placed_drops_no_data() {
    let (_, stats) = run("[0, \"R\", 0, 4096], [0, \"W\", 4096, 4096], [1000000, \"T\", 0, 8192]", &[PLACE]);
    assert_eq!(stat(&stats, "ssd.trim.pages_dropped"), 1.0, "page 1, written");
    assert_eq!(stat(&stats, "ssd.trim.pages_unmapped"), 1.0, "page 0, placed by the read");
}

#[test]
fn placement_by_reads_is_refused_where_it_is_not_modelled() {
    for (setting, names) in [
        ("ssd.ftl.scheme=\"block_map\"", "page-mapped"),
        ("ssd.ftl.summary_pages_per_block=1", "summary_pages_per_block"),
        ("ssd.slc_cache.blocks_per_plane=2", "ssd.slc_cache"),
    ] {
        let e = refused(&[PLACE, setting]);
        assert!(e.contains("ssd.ftl.place_unwritten_reads") && e.contains(names), "{setting}: {e}");
    }
    let cr5m =
        ["array.level=\"cr5m\"", "array.members=4", "array.stripe_unit_bytes=4096", "ssd.geometry.channels=4", "ssd.geometry.chips_per_channel=2"];
    let e = refused(&[&[PLACE][..], &cr5m].concat());
    assert!(e.contains("ssd.ftl.place_unwritten_reads") && e.contains("mirroring chips"), "{e}");
}

#[test]
fn the_collection_a_placement_asks_for_runs_after_the_read_as_a_writes_runs_after_its_program() {
    // 8 blocks of 4 pages, half spare: 24 rewrites of pages 0 and 1 leave
    // the drive at its threshold, and placing page 8 fills the open block
    // and asks for a collection (an erase, 1.5 ms). The read takes its own
    // time, READ + X; the next operation on the die waits for the erase.
    let drive = ["ssd.geometry.blocks_per_plane=8", "ssd.geometry.pages_per_block=4", "ssd.geometry.over_provisioning_fraction=0.5"];
    let mut requests: Vec<String> = (0..24).map(|i| format!("[{}, \"W\", {}, 4096]", i * 1_000_000, (i % 2) * 4096)).collect();
    requests.push("[44000000, \"R\", 32768, 4096]".into());
    requests.push("[44200000, \"R\", 0, 4096]".into());
    let (responses, stats) = run(&requests.join(", "), &[&drive[..], &[PLACE]].concat());
    assert!(stat(&stats, "ssd.flash.erases") >= 1.0, "the placement collected: {stats:?}");
    assert_eq!(responses[24], READ + X);
    assert!(responses[25] > 1_500_000, "the next read waits for the erase: {}", responses[25]);
    let unplaced = run(&requests.join(", "), &drive).0;
    assert_eq!(unplaced[24..], [READ + X, READ + X]);
}

#[test]
fn a_read_placing_a_page_changes_its_cached_entry_as_a_write_does() {
    // A cached map of two entries: each of six pages, in six translation
    // pages, evicts an earlier entry. Entries a write or a placing read
    // changed are written back with their translation page when evicted;
    // entries a read only looked up are not.
    let dftl = ["ssd.ftl.scheme=\"dftl\"", "ssd.ftl.cmt_bytes=8"];
    let requests = |op: char| (0..6u64).map(|k| format!("[{}, \"{op}\", {}, 4096]", k * 1_000_000, k * 512 * 4096)).collect::<Vec<_>>().join(", ");
    let map_writes = |op: char, extra: &[&str]| stat(&run(&requests(op), &[&dftl[..], extra].concat()).1, "ssd.flash.pages_written.map_write");
    let written = map_writes('W', &[]);
    assert!(written > 0.0, "evicted entries are written back");
    assert_eq!(map_writes('R', &[PLACE]), written);
    assert_eq!(map_writes('R', &[]), 0.0);
}

#[test]
fn a_layer_that_sets_summary_pages_drops_the_presets_placement() {
    // mqsim-default places unwritten reads; a layer over it that chooses
    // what placement does not serve drops it, as it drops a cache size.
    assert!(config("mqsim-default", &[]).config.ssd.ftl.place_unwritten_reads);
    assert!(config("mqsim-default", &["ssd.ftl.scheme=\"page_map\""]).config.ssd.ftl.place_unwritten_reads);
    assert!(!config("mqsim-default", &["ssd.ftl.summary_pages_per_block=1"]).config.ssd.ftl.place_unwritten_reads);
    // Set one by one, they contradict each other.
    let e = refused(&[PLACE, "ssd.ftl.summary_pages_per_block=1"]);
    assert!(e.contains("mqsim-default"), "the refusal names the presets that set it: {e}");
}

#[test]
fn the_warm_up_restarts_the_count_of_pages_placed_but_not_what_they_hold() {
    // Page 0 is placed during the warm-up, page 1 after it: one counted.
    // Page 0 still holds no data, so half a write of it senses nothing.
    let requests = "[0, \"R\", 0, 4096], [1000000, \"R\", 4096, 4096], [2000000, \"W\", 0, 2048]";
    let (responses, stats) = run(requests, &[PLACE, "sim.warmup_requests=1"]);
    assert_eq!(stat(&stats, "ssd.ftl.pages_placed_by_reads"), 1.0);
    assert_eq!(stat(&stats, "ssd.flash.pages_read.partial_page_read"), 0.0);
    assert_eq!(responses, [READ + X, X / 2 + PROGRAM]);
}
