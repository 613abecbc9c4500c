//! The SSD's DRAM write buffer (issue #12: the RAIS paper's drives serve
//! random writes faster than reads): closed forms on one die.
//!
//! One channel, one die, one plane: each page holds the die for its
//! transfer (4096 B at 40 MB/s = 102.4 us) and its program (200 us),
//! P = 302.4 us, so without a buffer the i-th of N writes issued at once
//! ends at (i + 1) P. With a buffer of C pages the first C are acknowledged
//! at once and write C + k when the (k + 1)-th page has crossed into the
//! die, k P + T (T = 102.4 us, the transfer).

use crate::common;

use common::{config, ONE_DIE};
use raidsim_core::simulate;

const P: f64 = 302_400.0;
const T: f64 = 102_400.0;
const N: u64 = 10;

fn run_requests(requests: &[String], extra: &[&str]) -> raidsim_core::report::Report {
    let w = format!("workload.requests=[{}]", requests.join(", "));
    let mut o = vec!["workload.kind=requests", w.as_str()];
    o.extend_from_slice(&ONE_DIE);
    o.extend_from_slice(extra);
    simulate(config("", &o)).expect("runs")
}

fn run(extra: &[&str]) -> raidsim_core::report::Report {
    let requests: Vec<String> = (0..N).map(|i| format!("[0, \"W\", {}, 4096]", i * 4096)).collect();
    run_requests(&requests, extra)
}

#[test]
fn without_a_buffer_each_write_waits_for_its_program() {
    let r = run(&[]);
    assert_eq!(r.host.response.mean_ns, P * (N + 1) as f64 / 2.0);
}

#[test]
fn a_buffer_acknowledges_what_fits_at_once_and_the_rest_as_pages_reach_the_die() {
    for c in [1u64, 4, 9, 10, 16] {
        let b = format!("ssd.write_buffer_bytes={}", c * 4096);
        let r = run(&[b.as_str()]);
        let w = N.saturating_sub(c) as f64;
        let expected = (P * w * (w - 1.0).max(0.0) / 2.0 + w * T) / N as f64;
        assert!((r.host.response.mean_ns - expected).abs() < 1e-6, "C = {c}: {} vs {expected}", r.host.response.mean_ns);
        // The flash does the same work either way.
        assert_eq!(r.devices[0].pages_written.get("user"), Some(&N), "C = {c}");
    }
}

#[test]
fn a_slot_held_until_programmed_frees_a_program_later() {
    // MQSim's back-pressure: write C + k waits for the (k + 1)-th page's program, (k + 1) P.
    for c in [1u64, 4, 9] {
        let b = format!("ssd.write_buffer_bytes={}", c * 4096);
        let r = run(&[b.as_str(), "ssd.write_buffer_slot_until=\"programmed\""]);
        let w = (N - c) as f64;
        let expected = P * w * (w + 1.0) / 2.0 / N as f64;
        assert!((r.host.response.mean_ns - expected).abs() < 1e-6, "C = {c}: {} vs {expected}", r.host.response.mean_ns);
    }
    let refused = common::refused(&["ssd.write_buffer_slot_until=\"programmed\""]);
    assert!(refused.contains("ssd.write_buffer_slot_until") && refused.contains("write_buffer_bytes"), "{refused}");
}

#[test]
fn a_write_larger_than_the_buffer_streams_through_it() {
    // One 8-page write into a 2-page buffer: its last page has a slot when
    // its 6th page has crossed into the die, at 5 P + T.
    let r = run_requests(&["[0, \"W\", 0, 32768]".to_string()], &["ssd.write_buffer_bytes=8192"]);
    assert_eq!(r.host.response.mean_ns, 5.0 * P + T);
}

#[test]
fn a_buffer_is_a_whole_number_of_pages_and_acknowledges_writes_itself() {
    let refused = |o: &[&str]| {
        let mut raw = raidsim_core::config::RawConfig::new();
        o.iter().for_each(|s| raw.set(s).expect("sets"));
        raw.resolve().expect_err("refused").to_string()
    };
    let e = refused(&["ssd.write_buffer_bytes=1000"]);
    assert!(e.contains("ssd.write_buffer_bytes") && e.contains("whole number of 4096-byte pages"), "{e}");
    let e = refused(&["ssd.write_buffer_bytes=1099511627776"]);
    assert!(e.contains("ssd.write_buffer_bytes") && e.contains("more than the drive holds"), "{e}");
    let e = refused(&["ssd.write_buffer_bytes=16777216", "ssd.write_ack=transfer"]);
    assert!(e.contains("ssd.write_ack") && e.contains("write buffer acknowledges"), "{e}");
}

#[test]
fn a_one_page_buffer_on_two_dies_is_no_slower_than_none() {
    // Ten writes at once, pages alternating between two dies on one channel.
    // Unbuffered, die d's k-th page ends at (k + 1) P + d T: mean 958.4 us.
    // Buffered (1 page), each write waits for the previous page to reach its
    // die: acks 0, T, 2T, P+T, P+2T, 2P+T, 2P+2T, 3P+T, 3P+2T, 4P+T, sum 16 P + 13 T.
    let two_dies = ["ssd.geometry.dies_per_chip=2"];
    let none = run(&two_dies);
    assert!((none.host.response.mean_ns - 958_400.0).abs() < 1e-6, "{}", none.host.response.mean_ns);
    let one = run(&["ssd.geometry.dies_per_chip=2", "ssd.write_buffer_bytes=4096"]);
    assert!((one.host.response.mean_ns - (16.0 * P + 13.0 * T) / N as f64).abs() < 1e-6, "{}", one.host.response.mean_ns);
}

#[test]
fn the_report_says_when_the_flash_worked_on_after_the_last_acknowledgement() {
    let r = run(&["ssd.write_buffer_bytes=40960"]);
    assert_eq!(r.host.response.mean_ns, 0.0, "all ten fit");
    assert!(r.warnings.iter().any(|w| w.contains("the flash went on programming acknowledged writes")), "{:?}", r.warnings);
    assert!(!run(&[]).warnings.iter().any(|w| w.contains("write buffers")));
}

#[test]
fn a_buffer_counted_in_sectors_holds_two_half_page_writes_per_page() {
    // N writes of half a page (4 sectors: 51.2 us over the channel, then the
    // 200 us program) to pages never written: a buffer of C pages holds C of
    // them counted by page, 2C counted by sector (MQSim's back-pressure).
    let (p, t) = (251_200.0, 51_200.0);
    let requests: Vec<String> = (0..N).map(|i| format!("[0, \"W\", {}, 2048]", i * 4096)).collect();
    for c in [1u64, 2, 4] {
        let b = format!("ssd.write_buffer_bytes={}", c * 4096);
        for (unit, held) in [("page", c), ("sector", 2 * c)] {
            let u = format!("ssd.write_buffer_unit={unit:?}");
            let r = run_requests(&requests, &[b.as_str(), u.as_str()]);
            let w = N.saturating_sub(held) as f64;
            let expected = (p * w * (w - 1.0).max(0.0) / 2.0 + w * t) / N as f64;
            assert!((r.host.response.mean_ns - expected).abs() < 1e-6, "C = {c}, {unit}: {} vs {expected}", r.host.response.mean_ns);
        }
    }
    let refused = common::refused(&["ssd.write_buffer_unit=\"sector\""]);
    assert!(refused.contains("ssd.write_buffer_unit") && refused.contains("write_buffer_bytes"), "{refused}");
}

/// MQSim's write cache, by hand on 4 KiB pages with a one-page cache: a
/// half page goes to flash; the window restarts after the first request
/// (past its initial end, 0), so the other half does too; rewritten then,
/// the first half stays in DRAM, dirty with the whole page (the write-back's
/// slot holds its sectors). Page 1 goes to flash, and written back it takes
/// no room in the cache; rewritten, it evicts page 0, whose whole page goes
/// to flash. A read of page 1, dirty, is served from DRAM.
#[test]
fn the_write_cache_keeps_a_page_rewritten_soon_until_it_is_evicted() {
    let at = |t: u64, offset: u64| format!("[{t}, \"W\", {offset}, 2048]");
    let ms = 1_000_000;
    let mut requests = vec![at(5, 0), at(ms, 2048), at(2 * ms, 0), at(3 * ms, 4096), at(4 * ms, 4096)];
    requests.push(format!("[{}, \"R\", 4096, 4096]", 5 * ms));
    let cache = ["ssd.write_buffer_bytes=16384", "ssd.write_cache.capacity_bytes=4096"];
    let r = run_requests(&requests, &cache);
    let d = &r.devices[0];
    assert_eq!(d.pages_written.get("user"), Some(&4), "two halves of page 0, page 1, and page 0 evicted");
    assert_eq!(d.pages_read.get("partial_page_read"), Some(&1), "the second half reads the first; the eviction writes a whole page");
    assert_eq!(d.pages_read.get("user"), None, "the read is served from DRAM");
    let stat = |path: &str| r.stats.iter().find(|s| s.path == path).map(|s| s.value);
    assert_eq!((stat("ssd.write_cache.kept_pages"), stat("ssd.write_cache.evicted_pages")), (Some(2.0), Some(1.0)));
    let plain = run_requests(&requests, &cache[..1]);
    assert_eq!((plain.devices[0].pages_written.get("user"), plain.devices[0].pages_read.get("user")), (Some(&5), Some(&1)));
    // Two rewrites of one half page: the second stays in DRAM.
    let rewrites = [at(5, 0), at(ms, 0), at(2 * ms, 0)];
    assert_eq!(run_requests(&rewrites, &cache).devices[0].pages_written.get("user"), Some(&2));
    assert_eq!(run_requests(&rewrites, &cache[..1]).devices[0].pages_written.get("user"), Some(&3));
}

/// With a DRAM of 10 us a page (`firmware_write_page_ns`), every write
/// waits for its own page's DRAM time; the kept write that evicts a dirty
/// page also waits for that page to be read out of the DRAM: 20 us.
#[test]
fn an_eviction_reads_its_page_out_of_the_dram_before_the_write_goes_on() {
    let ms = 1_000_000;
    let at = |t: u64, offset: u64| format!("[{t}, \"W\", {offset}, 2048]");
    // Page 0 half by half (both to flash), page 0 again (kept), page 1 (to flash), page 1 again (kept: evicts page 0).
    let requests = [at(5, 0), at(ms, 2048), at(2 * ms, 0), at(3 * ms, 4096), at(4 * ms, 6144)];
    let o = [ONE_DIE.as_slice(), &["ssd.write_buffer_bytes=16384", "ssd.write_cache.capacity_bytes=4096", "ssd.timing.firmware_write_page_ns=10000"]]
        .concat();
    let wl = format!("workload.requests=[{}]", requests.join(", "));
    let r = common::responses_in_arrival_order(&[o.as_slice(), &["workload.kind=requests", wl.as_str()]].concat());
    assert_eq!(r, vec![10_000, 10_000, 10_000, 10_000, 20_000]);
}

/// A write the cache keeps needs no room in the buffer, but is admitted
/// after the writes that arrived before it, as every write is.
#[test]
fn a_write_the_cache_keeps_waits_for_the_writes_before_it() {
    let ms = 1_000_000;
    let w = |t: u64, offset: u64, len: u64| format!("[{t}, \"W\", {offset}, {len}]");
    let requests = [w(5, 36864, 4096), w(ms, 0, 2048), w(2 * ms, 4096, 4096), w(2 * ms + 1, 8192, 8192), w(2 * ms + 2, 0, 2048)];
    let o = [
        ONE_DIE.as_slice(),
        &[
            "ssd.write_buffer_bytes=8192",
            "ssd.write_buffer_unit=sector",
            "ssd.write_buffer_slot_until=programmed",
            "ssd.write_cache.capacity_bytes=8192",
        ],
    ]
    .concat();
    let wl = format!("workload.requests=[{}]", requests.join(", "));
    let r = common::responses_in_arrival_order(&[o.as_slice(), &["workload.kind=requests", wl.as_str()]].concat());
    let done = |i: usize, arrival: u64| arrival + r[i];
    assert!(r[3] > 100_000, "the full page waits for room: {r:?}");
    assert!(done(4, 2 * ms + 2) >= done(3, 2 * ms + 1), "the kept rewrite is not acknowledged before it: {r:?}");
}

#[test]
fn the_write_cache_is_refused_where_it_cannot_work() {
    for (o, key) in [
        (&["ssd.write_cache.capacity_bytes=8192"][..], "ssd.write_cache.capacity_bytes"),
        (&["ssd.write_buffer_bytes=8192", "ssd.write_cache.capacity_bytes=6000"], "ssd.write_cache.capacity_bytes"),
        (&["ssd.write_cache.recent_ns=5"], "ssd.write_cache.recent_ns"),
        (&["ssd.write_buffer_bytes=65536", "ssd.geometry.page_size_bytes=65536", "ssd.write_cache.capacity_bytes=65536"], "at most 64 sectors"),
        (&["ssd.write_buffer_bytes=8192", "ssd.write_cache.capacity_bytes=8192", "ssd.write_cache.recent_ns=0"], "ssd.write_cache.recent_ns"),
        (
            &["ssd.write_buffer_bytes=8192", "ssd.write_cache.capacity_bytes=8192", "array.level=cr5", "array.members=4", "ssd.geometry.channels=4"],
            "not modelled inside one SSD",
        ),
    ] {
        let e = common::refused(o);
        assert!(e.contains(key), "{o:?}: {e}");
    }
}
