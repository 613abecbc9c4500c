//! `ssd.scheduling = "reads_first"`: a read passes the programs a write
//! buffer holds at its unit, never the one under way (MQSim's
//! PRIORITY_OUT_OF_ORDER). Closed forms on one die.
//!
//! One channel, one die, one plane: a program holds the die for its
//! transfer (4096 B at 40 MB/s, T = 102.4 us) and 200 us, P = 302.4 us; a
//! read senses 25 us, then sends its page, T.

use crate::common;

use common::{config, ONE_DIE};
use raidsim_core::report::Report;
use raidsim_core::simulate;

const P: f64 = 302_400.0;
const T: f64 = 102_400.0;
const SENSE: f64 = 25_000.0;

fn run(requests: &[&str], extra: &[&str]) -> Report {
    let w = format!("workload.requests=[{}]", requests.join(", "));
    let mut o = vec!["workload.kind=requests", w.as_str(), "ssd.write_buffer_bytes=16384"];
    o.extend_from_slice(&ONE_DIE);
    o.extend_from_slice(extra);
    simulate(config("", &o)).expect("runs")
}

const READS_FIRST: &str = "ssd.scheduling=\"reads_first\"";

#[test]
fn a_read_passes_the_programs_waiting_but_not_the_one_under_way() {
    // Three buffered writes at 0 (acknowledged at once), a read at 10 us.
    // The first program runs from 0 to P. In arrival order the read waits
    // for all three, 3 P; reads first, for the one under way only.
    let requests = ["[0, \"W\", 0, 4096]", "[0, \"W\", 4096, 4096]", "[0, \"W\", 8192, 4096]", "[10000, \"R\", 40960, 4096]"];
    let read = |extra: &[&str]| run(&requests, extra).host.read_response.mean_ns;
    assert_eq!(read(&[]), 3.0 * P + SENSE + T - 10_000.0);
    assert_eq!(read(&[READS_FIRST]), P + SENSE + T - 10_000.0);
    // A read before any program began goes first of all.
    let early = ["[0, \"W\", 0, 4096]", "[0, \"R\", 40960, 4096]"];
    assert_eq!(run(&early, &[READS_FIRST]).host.read_response.mean_ns, SENSE + T);
    assert_eq!(run(&early, &[]).host.read_response.mean_ns, P + SENSE + T);
}

#[test]
fn a_program_waiting_for_its_channel_has_not_begun() {
    // Two dies on one channel. Page 0's program holds the channel for T
    // from 0; page 1's, on the other die, cannot start before T. A read on
    // that die at 10 us senses from 10 to 35 us, takes the channel at T and
    // ends at 2T: 2T - 10 us.
    let requests = ["[0, \"W\", 0, 4096]", "[0, \"W\", 4096, 4096]", "[10000, \"R\", 12288, 4096]"];
    let two_dies = ["ssd.geometry.dies_per_chip=2", READS_FIRST];
    assert_eq!(run(&requests, &two_dies).host.read_response.mean_ns, 2.0 * T - 10_000.0);
}

#[test]
fn a_page_waiting_to_be_programmed_is_read_from_dram() {
    // Its data is in the buffer: no flash time. In arrival order the read
    // waits for the three programs and senses the page.
    let requests = ["[0, \"W\", 0, 4096]", "[0, \"W\", 4096, 4096]", "[0, \"W\", 8192, 4096]", "[10000, \"R\", 8192, 4096]"];
    assert_eq!(run(&requests, &[READS_FIRST]).host.read_response.mean_ns, 0.0);
    assert_eq!(run(&requests, &[]).host.read_response.mean_ns, 3.0 * P + SENSE + T - 10_000.0);
    // Page 0's program began at 0: its page is read from flash once programmed.
    let begun = ["[0, \"W\", 0, 4096]", "[0, \"W\", 4096, 4096]", "[0, \"W\", 8192, 4096]", "[10000, \"R\", 0, 4096]"];
    assert_eq!(run(&begun, &[READS_FIRST]).host.read_response.mean_ns, P + SENSE + T - 10_000.0);
}

#[test]
fn a_trimmed_page_waiting_to_be_programmed_is_read_from_flash() {
    // Page 5 is read from 0 to S + T; page 0's program waits behind it;
    // page 0 is trimmed, then read at 3 us: not from DRAM, but a flash
    // read ahead of the waiting program, S + T after the first read.
    let requests = ["[0, \"R\", 20480, 4096]", "[1000, \"W\", 0, 4096]", "[2000, \"T\", 0, 4096]", "[3000, \"R\", 0, 4096]"];
    let r = run(&requests, &[READS_FIRST]);
    assert_eq!(r.host.read_response.mean_ns, (SENSE + T + 2.0 * (SENSE + T) - 3000.0) / 2.0);
}

#[test]
fn a_read_waits_for_a_collection_under_way_and_passes_the_programs_behind_it() {
    // One aged die, a light random mix: collections are owed by programs
    // and start before the reads that come; reads first, the reads wait
    // for the collection under way but not for the programs queued behind
    // it, so they wait less than in arrival order.
    let mix = [
        "ssd.geometry.blocks_per_plane=32",
        "ssd.geometry.over_provisioning_fraction=0.15",
        "precondition.fill_fraction=0.9",
        "precondition.random_overwrite_factor=1",
        "ssd.write_buffer_slot_until=\"programmed\"",
        "workload.kind=synthetic",
        "workload.requests=400",
        "workload.mean_interarrival_ns=1600000",
        "workload.read_fraction=0.6",
        "workload.span_bytes=819200",
        "workload.size.kind=fixed",
        "workload.size.mean_bytes=4096",
    ];
    let go = |extra: &[&str]| {
        let mut o = vec!["ssd.write_buffer_bytes=16384"];
        o.extend_from_slice(&ONE_DIE);
        o.extend_from_slice(&mix);
        o.extend_from_slice(extra);
        simulate(config("", &o)).expect("runs")
    };
    let (fifo, first) = (go(&[]), go(&[READS_FIRST]));
    assert!(fifo.devices[0].erases > 0, "no collection ran");
    assert!(
        first.host.read_response.mean_ns < fifo.host.read_response.mean_ns,
        "{} vs {}",
        first.host.read_response.mean_ns,
        fifo.host.read_response.mean_ns
    );
}

#[test]
fn writes_alone_run_as_in_arrival_order_once_the_buffer_is_full() {
    // Ten writes at 0 into a 4-page buffer whose slots are held until
    // programmed: write 4 + k waits for the (k + 1)-th program, (k + 1) P.
    // A write that finds no room books the waiting programs that end
    // first, until one frees its room.
    let requests: Vec<String> = (0..10).map(|i| format!("[0, \"W\", {}, 4096]", i * 4096)).collect();
    let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
    let until = "ssd.write_buffer_slot_until=\"programmed\"";
    let expected = P * (1.0 + 2.0 + 3.0 + 4.0 + 5.0 + 6.0) / 10.0;
    assert_eq!(run(&requests, &[until]).host.response.mean_ns, expected);
    assert_eq!(run(&requests, &[until, READS_FIRST]).host.response.mean_ns, expected);
}

#[test]
fn a_write_waiting_for_room_books_only_the_programs_that_free_it() {
    // Five writes at 0 into a 4-page buffer held until programmed: the
    // fifth waits for page 0's program to end, at P; pages 1-3 keep
    // waiting. A read at 10 us waits for page 0's program only. Had the
    // fifth write booked every waiting program, the read would wait 4 P;
    // in arrival order, behind all five, 5 P.
    let mut requests: Vec<String> = (0..5).map(|i| format!("[0, \"W\", {}, 4096]", i * 4096)).collect();
    requests.push("[10000, \"R\", 40960, 4096]".into());
    let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
    let until = "ssd.write_buffer_slot_until=\"programmed\"";
    let first = run(&requests, &[until, READS_FIRST]);
    assert_eq!(first.host.read_response.mean_ns, P + SENSE + T - 10_000.0);
    assert_eq!(first.host.write_response.mean_ns, P / 5.0, "the fifth write is admitted at P");
    let fifo = run(&requests, &[until]);
    assert_eq!(fifo.host.read_response.mean_ns, 5.0 * P + SENSE + T - 10_000.0);
    assert_eq!(fifo.host.write_response.mean_ns, P / 5.0);
}

#[test]
fn the_programs_still_waiting_at_the_end_are_programmed() {
    // Four writes fit the buffer and wait; the run's end books them, so
    // the report knows the flash worked 4 P after the last acknowledgement.
    let requests: Vec<String> = (0..4).map(|i| format!("[0, \"W\", {}, 4096]", i * 4096)).collect();
    let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
    let r = run(&requests, &[READS_FIRST]);
    assert_eq!(r.devices[0].pages_written.get("user"), Some(&4));
    let warning = r.warnings.iter().find(|w| w.contains("the flash went on programming")).expect("a buffer warning");
    assert!(warning.contains(&format!("{:.3} ms", 4.0 * P / 1e6)), "{warning}");
}

#[test]
fn writes_larger_than_the_buffer_never_wait_and_the_report_says_so() {
    // 32 KiB writes into a 16 KiB buffer stream through it, booked as they come.
    let requests = ["[0, \"W\", 0, 32768]", "[0, \"W\", 32768, 32768]", "[10000, \"R\", 98304, 4096]"];
    let r = run(&requests, &[READS_FIRST]);
    assert_eq!(r.host.read_response.mean_ns, run(&requests, &[]).host.read_response.mean_ns);
    assert!(r.warnings.iter().any(|w| w.contains("no program could wait")), "{:?}", r.warnings);
    assert!(!run(&requests[..1], &[]).warnings.iter().any(|w| w.contains("no program could wait")));
    // Issued as its die idles, the read waited off the calendar: the run is not the same.
    let when_idle = run(&requests, &[READS_FIRST, "ssd.command_issue=\"when_idle\""]);
    assert!(!when_idle.warnings.iter().any(|w| w.contains("no program could wait")), "{:?}", when_idle.warnings);
}

#[test]
fn reads_first_is_refused_where_it_is_not_modelled() {
    let no_buffer = common::refused(&[READS_FIRST]);
    assert!(no_buffer.contains("ssd.scheduling") && no_buffer.contains("write_buffer_bytes"), "{no_buffer}");
    let buffer = "ssd.write_buffer_bytes=16384";
    let cr5m =
        ["array.level=\"cr5m\"", "array.members=4", "array.stripe_unit_bytes=4096", "ssd.geometry.channels=4", "ssd.geometry.chips_per_channel=2"];
    for (extra, says) in [
        (&["ssd.ftl.allocation=\"dynamic\""][..], "allocation"),
        (&["ssd.erase_suspend.ops=\"reads\""][..], "erase suspension"),
        (&cr5m[..], "mirroring chips"),
    ] {
        let e = common::refused(&[&[READS_FIRST, buffer][..], extra].concat());
        assert!(e.contains("ssd.scheduling") && e.contains(says), "{extra:?}: {e}");
    }
    let e = common::refused(&["ssd.scheduling=\"shortest_first\""]);
    assert!(e.contains("ssd.scheduling") && e.contains("reads_first"), "{e}");
}

#[test]
fn an_array_of_collecting_drives_serves_reads_sooner_and_does_the_same_flash_work() {
    // RAID-5 of 4 small buffered drives, aged, under a 70 % read mix:
    // collection runs. The flash does the same work in either order; reads
    // wait less; the run is deterministic.
    let base = [
        "array.level=raid5",
        "array.members=4",
        "array.stripe_unit_bytes=4096",
        "ssd.geometry.blocks_per_plane=64",
        "ssd.write_buffer_bytes=65536",
        "ssd.write_buffer_slot_until=\"programmed\"",
        "precondition.fill_fraction=0.9",
        "precondition.random_overwrite_factor=1",
        "workload.requests=6000",
        "workload.processes=16",
        "workload.read_fraction=0.7",
        "workload.size.kind=fixed",
        "workload.size.mean_bytes=4096",
    ];
    let go = |extra: &[&str]| {
        let mut o = base.to_vec();
        o.extend_from_slice(extra);
        simulate(config("", &o)).expect("runs")
    };
    let (fifo, first) = (go(&[]), go(&[READS_FIRST]));
    let erases = |r: &Report| r.devices.iter().map(|d| d.erases).sum::<u64>();
    assert!(erases(&fifo) > 0, "no collection ran");
    // Requests issue as earlier ones complete, so the array's stripes meet
    // in another order: the flash work differs a little, not much.
    let written = |r: &Report| r.devices.iter().map(|d| d.pages_written.values().sum::<u64>()).sum::<u64>() as f64;
    assert!((written(&first) / written(&fifo) - 1.0).abs() < 0.01, "{} vs {}", written(&first), written(&fifo));
    assert!(
        first.host.read_response.mean_ns < 0.98 * fifo.host.read_response.mean_ns,
        "{} vs {}",
        first.host.read_response.mean_ns,
        fifo.host.read_response.mean_ns
    );
    assert_eq!(serde_json::to_string(&first).ok(), serde_json::to_string(&go(&[READS_FIRST])).ok());
}

/// Six writes of a page at 0 into a 4-page buffer held until programmed,
/// then `later` requests.
fn six_writes_then(later: &[&str]) -> Report {
    let mut requests: Vec<String> = (0..6).map(|i| format!("[0, \"W\", {}, 4096]", i * 4096)).collect();
    requests.extend(later.iter().map(|r| r.to_string()));
    let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
    run(&requests, &["ssd.write_buffer_slot_until=\"programmed\"", READS_FIRST])
}

#[test]
fn a_read_that_comes_while_writes_wait_for_room_passes_the_programs_that_would_free_it() {
    // Pages 0-3 fill the buffer; page 0's program runs from 0 to P. Writes
    // 5 and 6 wait in line for room. A read at 10 us waits for page 0's
    // program only: page 1's has not begun, and nothing fixed it when the
    // writes came. Write 5 takes page 0's slot at P; page 1's program
    // follows the read, from P + S + T, and write 6 takes its slot at its
    // end, 2 P + S + T. Had write 6 booked page 1's program on arrival to
    // know its room, the read would have waited until 2 P.
    let r = six_writes_then(&["[10000, \"R\", 40960, 4096]"]);
    assert_eq!(r.host.read_response.mean_ns, P + SENSE + T - 10_000.0);
    assert_eq!(r.host.write_response.mean_ns, (P + 2.0 * P + SENSE + T) / 6.0);
    let stats = |path: &str| r.stats.iter().find(|s| s.path == path).map(|s| s.value);
    assert_eq!(stats("ssd.write_buffer.writes_waited"), Some(2.0));
    // Without the read, page 1's program runs from P to 2 P.
    assert_eq!(six_writes_then(&[]).host.write_response.mean_ns, (P + 2.0 * P) / 6.0);
}

/// The counters restart after the warm-up: writes that waited for room
/// during it are not counted, the one after it waits for nothing.
#[test]
fn writes_that_waited_for_room_during_the_warm_up_are_not_counted() {
    let r = six_writes_then(&["[10000000, \"W\", 0, 4096]"]);
    let waited = |r: &Report| r.stats.iter().find(|s| s.path == "ssd.write_buffer.writes_waited").map(|s| s.value);
    assert_eq!(waited(&r), Some(2.0));
    let mut requests: Vec<String> = (0..6).map(|i| format!("[0, \"W\", {}, 4096]", i * 4096)).collect();
    requests.push("[10000000, \"W\", 0, 4096]".into());
    let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
    let warm = run(&requests, &["ssd.write_buffer_slot_until=\"programmed\"", READS_FIRST, "sim.warmup_requests=6"]);
    assert_eq!(warm.host.write_response.count, 1);
    assert_eq!(waited(&warm), Some(0.0));
}

#[test]
fn a_trim_of_a_write_waiting_for_room_waits_for_it() {
    // Write 6's page is trimmed at 20 us, while write 6 waits for room: the
    // trim waits for the write (the host issued it later), which still
    // takes its room at 2 P, and then drops its page.
    let r = six_writes_then(&["[20000, \"T\", 20480, 4096]"]);
    assert_eq!(r.host.write_response.mean_ns, (P + 2.0 * P) / 6.0);
    assert_eq!(r.trim.requests, 1);
    let dropped = r.stats.iter().find(|s| s.path == "ssd.trim.pages_dropped").map(|s| s.value);
    assert_eq!(dropped, Some(1.0));
}

#[test]
fn a_read_arriving_as_a_program_would_begin_goes_first_even_while_writes_wait() {
    // Reads first: a read that comes at the instant a waiting program
    // would begin is served before it (S + T), whether or not a write waits
    // for room. Four writes at 0 fill the buffer; page 0's program would
    // begin at 0. A fifth write waits for room.
    let writes = |n: usize| (0..n).map(|i| format!("[0, \"W\", {}, 4096]", i * 4096)).collect::<Vec<_>>();
    for (n, at) in [(4, 0.0), (5, 0.0)] {
        let mut requests = writes(n);
        requests.push(format!("[{at}, \"R\", 40960, 4096]"));
        let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
        let r = run(&requests, &["ssd.write_buffer_slot_until=\"programmed\"", READS_FIRST]);
        assert_eq!(r.host.read_response.mean_ns, SENSE + T, "{n} writes");
    }
    // Six writes: page 1's program would begin at P, when page 0's ends.
    let r = six_writes_then(&[&format!("[{P}, \"R\", 40960, 4096]")]);
    assert_eq!(r.host.read_response.mean_ns, SENSE + T);
}

#[test]
fn a_trim_drops_a_page_that_rides_with_a_write_waiting_for_room() {
    // A one-page buffer and a one-page write cache. Page 0 is written back,
    // then rewritten and kept dirty in the cache; page 1's rewrite evicts
    // it, and that write waits for room with page 0 aboard. The host's trim
    // of page 0 waits for no write of its own (they were acknowledged at
    // 0): it drops page 0 from the waiting write, which programs page 1 only.
    let requests = ["[0, \"W\", 0, 4096]", "[0, \"W\", 0, 4096]", "[0, \"W\", 4096, 4096]", "[0, \"W\", 4096, 4096]", "[10000, \"T\", 0, 4096]"];
    let cache = ["ssd.write_buffer_bytes=4096", "ssd.write_cache.capacity_bytes=4096", "ssd.write_buffer_slot_until=\"programmed\""];
    let go = |order: &str| {
        let w = format!("workload.requests=[{}]", requests.join(", "));
        let mut o = vec!["workload.kind=requests", w.as_str(), order];
        o.extend_from_slice(&ONE_DIE);
        o.extend_from_slice(&cache);
        simulate(config("", &o)).expect("runs")
    };
    let first = go(READS_FIRST);
    let written = |r: &Report| r.devices[0].pages_written.get("user").copied();
    // In arrival order page 0's second copy was programmed before the trim came.
    assert_eq!(written(&go("ssd.scheduling=\"arrival_order\"")), Some(3));
    assert_eq!(written(&first), Some(2));
    assert_eq!(first.trim.requests, 1);
}

#[test]
fn a_trim_during_a_rebuild_drops_the_pages_of_rebuild_writes_waiting_for_room() {
    // RAID-1 of one-die drives with a spare: member 1 fails at 1 us, and
    // the rebuild's writes to the spare wait for room in its 16 KiB buffer
    // when a trim of the first MiB comes: the host's trims wait for host
    // writes only, so the spare's waiting writes lose the trimmed pages.
    let requests = "workload.requests=[[0, \"R\", 0, 4096], [2000000, \"T\", 0, 1048576]]";
    let mut o = vec![
        "workload.kind=requests",
        requests,
        "ssd.write_buffer_bytes=16384",
        "ssd.write_buffer_slot_until=\"programmed\"",
        "array.level=\"raid1\"",
        "array.members=2",
        "array.spares=1",
        "array.stripe_unit_bytes=4096",
        "array.failures=[{member=1, at_ns=1000}]",
    ];
    o.extend_from_slice(&ONE_DIE);
    for order in [READS_FIRST, "ssd.scheduling=\"arrival_order\""] {
        let mut o = o.clone();
        o.push(order);
        let r = simulate(config("", &o)).expect("runs");
        assert_eq!(r.trim.requests, 1, "{order}");
    }
}
