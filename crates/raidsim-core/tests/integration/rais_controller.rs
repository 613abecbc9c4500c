//! The hardware RAID controller and drive firmware of the RAIS study
//! (issue #12): closed forms on drives of one die.
//!
//! Each member is one channel, one die, one plane: a 4 KiB read holds the
//! die for its sensing (25 us) and transfer (4096 B at 40 MB/s = 102.4 us),
//! R = 127.4 us; a write for its transfer and program (200 us), W = 302.4 us.

use crate::common;

use common::{config, refused, ONE_DIE};
use raidsim_core::simulate;

const R: f64 = 127_400.0;
const W: f64 = 302_400.0;
const N: u64 = 10;

/// `N` requests of 4 KiB issued at once, request i at byte `i × stride`.
fn run(op: &str, stride: u64, extra: &[&str]) -> raidsim_core::report::Report {
    let requests: Vec<String> = (0..N).map(|i| format!("[0, \"{op}\", {}, 4096]", i * stride)).collect();
    let w = format!("workload.requests=[{}]", requests.join(", "));
    let mut o = vec!["workload.kind=requests", w.as_str()];
    o.extend_from_slice(&ONE_DIE);
    o.extend_from_slice(extra);
    simulate(config("", &o)).expect("runs")
}

/// Mean of (i + 1) × `step` + `tail` over i < N.
fn serial_mean(step: f64, tail: f64) -> f64 {
    step * (N + 1) as f64 / 2.0 + tail
}

#[test]
fn firmware_takes_write_commands_one_at_a_time() {
    // Acknowledged from the buffer, write i ends when the processor has
    // handled it: (i + 1) F.
    let r = run("W", 4096, &["ssd.write_buffer_bytes=65536", "ssd.timing.firmware_write_ns=1000000"]);
    assert_eq!(r.host.response.mean_ns, serial_mean(1e6, 0.0));
    // The per-page part: a 4 KiB write is one page.
    let r = run("W", 4096, &["ssd.write_buffer_bytes=65536", "ssd.timing.firmware_write_ns=600000", "ssd.timing.firmware_write_page_ns=400000"]);
    assert_eq!(r.host.response.mean_ns, serial_mean(1e6, 0.0));
}

#[test]
fn firmware_per_page_time_scales_with_the_write() {
    let w = "workload.requests=[[0, \"W\", 0, 32768]]";
    let mut o = vec!["workload.kind=requests", w, "ssd.write_buffer_bytes=65536", "ssd.timing.firmware_write_page_ns=10000"];
    o.extend_from_slice(&ONE_DIE);
    let r = simulate(config("", &o)).expect("runs");
    assert_eq!(r.host.response.mean_ns, 8.0 * 10_000.0);
}

#[test]
fn firmware_takes_read_commands_one_at_a_time_then_the_flash_reads() {
    // F = 1 ms exceeds R, so the die is idle whenever a read reaches it.
    let r = run("R", 4096, &["ssd.timing.firmware_read_ns=1000000"]);
    assert_eq!(r.host.response.mean_ns, serial_mean(1e6, R));
    // Reads pay nothing for write firmware.
    let r = run("R", 4096, &["ssd.timing.firmware_write_ns=1000000"]);
    assert_eq!(r.host.response.mean_ns, serial_mean(R, 0.0));
}

const RAID0_OF_2: [&str; 4] = ["array.level=raid0", "array.members=2", "array.stripe_unit_bytes=4096", "array.controller.overhead_ns=5000"];

fn raid0(extra: &[&str]) -> raidsim_core::report::Report {
    let mut o = RAID0_OF_2.to_vec();
    o.extend_from_slice(extra);
    run("W", 4096, &o)
}

#[test]
fn write_back_acknowledges_once_the_data_is_in_the_cache() {
    let r = raid0(&["array.controller.cache=\"write_back\"", "array.controller.cache_bytes=1048576"]);
    assert_eq!(r.host.response.mean_ns, 5000.0);
    // Write-through: two members take turns, write i ends at O + (floor(i / 2) + 1) W.
    let r = raid0(&[]);
    let through: f64 = (0..N).map(|i| 5000.0 + ((i / 2) + 1) as f64 * W).sum::<f64>() / N as f64;
    assert_eq!(r.host.response.mean_ns, through);
}

#[test]
fn a_full_write_back_cache_admits_a_write_when_one_reaches_the_members() {
    // Room for one write: write i is acknowledged when write i - 1 is
    // written, O + i W (each destage starts on an idle die).
    let r = raid0(&["array.controller.cache=\"write_back\"", "array.controller.cache_bytes=4096"]);
    let expected: f64 = (0..N).map(|i| 5000.0 + i as f64 * W).sum::<f64>() / N as f64;
    assert_eq!(r.host.response.mean_ns, expected);
    // A write larger than the cache is written through.
    let r = raid0(&["array.controller.cache=\"write_back\"", "array.controller.cache_bytes=2048"]);
    let through: f64 = (0..N).map(|i| 5000.0 + ((i / 2) + 1) as f64 * W).sum::<f64>() / N as f64;
    assert_eq!(r.host.response.mean_ns, through);
}

#[test]
fn one_parity_update_at_a_time_serializes_raid5_small_writes() {
    // RAID-5 of 3: a 4 KiB write is a reconstruct-write (one pre-read, then
    // data and parity written together), R + W; stripes i differ.
    let o = ["array.level=raid5", "array.members=3", "array.stripe_unit_bytes=4096", "array.controller.parity_updates_at_once=1"];
    let r = run("W", 8192, &o);
    assert_eq!(r.host.response.mean_ns, serial_mean(R + W, 0.0));
    // Without the limit they overlap: faster.
    let free = run("W", 8192, &o[..3]);
    assert!(free.host.response.mean_ns < 0.8 * r.host.response.mean_ns, "{} vs {}", free.host.response.mean_ns, r.host.response.mean_ns);
}

#[test]
fn write_back_and_one_parity_slot_keep_every_byte_right_under_load() {
    // Closed loop, overlapping small reads and writes on RAID-5 and RAID-6:
    // a read never returns data older than an acknowledged write.
    for level in ["raid5", "raid6"] {
        let members = if level == "raid5" { "array.members=4" } else { "array.members=5" };
        let o = [
            "array.level=".to_string() + level,
            members.into(),
            "array.stripe_unit_bytes=8192".into(),
            "array.controller.cache=\"write_back\"".into(),
            "array.controller.cache_bytes=65536".into(),
            "array.controller.parity_updates_at_once=2".into(),
            "sim.verify=true".into(),
            "workload.kind=\"synthetic\"".into(),
            "workload.requests=4000".into(),
            "workload.processes=8".into(),
            "workload.read_fraction=0.4".into(),
            "workload.span_bytes=262144".into(),
            "workload.size.kind=\"uniform\"".into(),
            "workload.size.min_bytes=512".into(),
            "workload.size.max_bytes=32768".into(),
            "workload.alignment_bytes=512".into(),
            "ssd.geometry.blocks_per_plane=64".into(),
        ];
        let o: Vec<&str> = o.iter().map(String::as_str).collect();
        let r = simulate(config("", &o)).expect("runs");
        let v = r.verify.expect("verify on");
        assert_eq!(v.mismatches, 0, "{level}: {:?}", v.first_mismatches);
        assert!(v.sectors_checked_on_reads > 10_000, "{level}: reads checked {}", v.sectors_checked_on_reads);
        assert_eq!(r.host.requests, 4000);
    }
}

#[test]
fn controller_settings_that_cannot_hold_are_refused() {
    let e = refused(&["array.level=raid0", "array.members=2", "array.controller.cache=\"write_back\""]);
    assert!(e.contains("array.controller.cache_bytes"), "{e}");
    let e = refused(&["array.level=raid0", "array.members=2", "array.controller.cache_bytes=4096"]);
    assert!(e.contains("write_through"), "{e}");
    let e = refused(&["array.level=raid5", "array.members=8", "array.spares=1", "array.controller.ports=8"]);
    assert!(e.contains("9 drives") && e.contains("8 ports"), "{e}");
    let e = refused(&["array.level=cr5", "array.members=4", "array.controller.host_link_bytes_per_s=1000"]);
    assert!(e.contains("host_link_bandwidth_bytes_per_s"), "{e}");
    let e = refused(&[
        "array.level=raid5",
        "array.members=4",
        "array.controller.cache=\"write_back\"",
        "array.controller.cache_bytes=4096",
        "array.failures=[{member = 1, at_ns = 5}]",
    ]);
    assert!(e.contains("not modelled"), "{e}");
    for (old, new) in [("controller_overhead_ns", "overhead_ns"), ("xor_bytes_per_s", "xor_bytes_per_s"), ("controller_price_usd", "price_usd")] {
        let set = format!("array.{old}=1");
        let e = refused(&["array.level=raid5", "array.members=3", set.as_str()]);
        assert!(e.contains(&format!("is now array.controller.{new}")), "{e}");
    }
    let e = refused(&["ssd.timing.firmware_write_page_ns=4000000000000"]);
    assert!(e.contains("firmware_write_page_ns"), "{e}");
}

#[test]
fn the_parity_engine_computes_one_stripe_at_a_time() {
    // Full-stripe writes of RAID-5 of 3 (no pre-reads): 4 KiB of parity
    // each at 4.096 MB/s is 1 ms on the one engine, so stripe i's writes
    // start at (i + 1) ms, on idle dies, and end W later.
    let o = ["array.level=raid5", "array.members=3", "array.stripe_unit_bytes=4096", "array.controller.xor_bytes_per_s=4096000"];
    let requests: Vec<String> = (0..N).map(|i| format!("[0, \"W\", {}, 8192]", i * 8192)).collect();
    let w = format!("workload.requests=[{}]", requests.join(", "));
    let mut all = vec!["workload.kind=requests", w.as_str()];
    all.extend_from_slice(&ONE_DIE);
    all.extend_from_slice(&o);
    let r = simulate(config("", &all)).expect("runs");
    assert_eq!(r.host.response.mean_ns, serial_mean(1e6, W));
}

#[test]
fn full_stripe_writes_take_no_parity_slot() {
    // Two dies per member, so full-stripe writes of different stripes could
    // overlap; with no pre-reads they hold no slot and run as without the limit.
    let run_with = |slots: &str| {
        let o = ["array.level=raid5", "array.members=3", "array.stripe_unit_bytes=4096", "ssd.geometry.dies_per_chip=2", slots];
        let requests: Vec<String> = (0..N).map(|i| format!("[0, \"W\", {}, 8192]", i * 8192)).collect();
        let w = format!("workload.requests=[{}]", requests.join(", "));
        let mut all = vec!["workload.kind=requests", w.as_str()];
        all.extend_from_slice(&ONE_DIE);
        all.extend_from_slice(&o);
        simulate(config("", &all)).expect("runs").host.response.mean_ns
    };
    let free = run_with("array.controller.parity_updates_at_once=0");
    assert_eq!(run_with("array.controller.parity_updates_at_once=1"), free);
    // Partial-stripe writes on the same drives are held: slower.
    assert!(free < serial_mean(W, 0.0), "two dies overlap full-stripe writes: {free}");
}

#[test]
fn a_read_of_data_in_the_write_back_cache_is_answered_from_it() {
    // A write at 0, a read of it 1 us later: the write is in the cache
    // until W after 5 us, so the read is a hit, done after the overhead.
    let w = "workload.requests=[[0, \"W\", 0, 4096], [1000, \"R\", 0, 4096], [2000, \"R\", 4096, 4096]]";
    let mut o = vec!["workload.kind=requests", w, "array.controller.cache=\"write_back\"", "array.controller.cache_bytes=1048576"];
    o.extend_from_slice(&RAID0_OF_2);
    o.extend_from_slice(&ONE_DIE);
    let r = simulate(config("", &o)).expect("runs");
    assert_eq!(r.host.write_response.mean_ns, 5000.0);
    // The hit: 5 us. The miss (member 1, idle): 5 us + R.
    assert_eq!(r.host.read_response.mean_ns, (5000.0 + 5000.0 + R) / 2.0);
    let hits = r.stats.iter().find(|s| s.path == "array.controller.cache.read_hits").expect("stat").value;
    assert_eq!(hits, 1.0);
}

#[test]
fn a_write_back_cache_smaller_than_every_write_says_so() {
    let r = raid0(&["array.controller.cache=\"write_back\"", "array.controller.cache_bytes=2048"]);
    assert!(r.warnings.iter().any(|w| w.contains("took none of the 10 writes")), "{:?}", r.warnings);
    let r = raid0(&["array.controller.cache=\"write_back\"", "array.controller.cache_bytes=4096"]);
    assert!(!r.warnings.iter().any(|w| w.contains("took none")), "{:?}", r.warnings);
}

#[test]
fn a_parity_limit_on_an_array_without_parity_says_it_did_nothing() {
    let r = raid0(&["array.controller.parity_updates_at_once=1"]);
    assert!(r.warnings.iter().any(|w| w.contains("keeps no parity")), "{:?}", r.warnings);
    assert!(!raid0(&[]).warnings.iter().any(|w| w.contains("keeps no parity")));
}

#[test]
fn a_warm_up_behind_a_write_back_cache_counts_each_measured_write_once() {
    // Writes acknowledged from the cache before the warm-up ends are done
    // for the host: they neither count again nor hold the host busy.
    let mut o = vec![
        "array.controller.cache=\"write_back\"",
        "array.controller.cache_bytes=67108864",
        "workload.kind=\"synthetic\"",
        "workload.requests=1000",
        "workload.processes=4",
        "workload.read_fraction=0.0",
        "workload.span_bytes=1048576",
        "sim.warmup_requests=200",
    ];
    o.extend_from_slice(&RAID0_OF_2);
    let r = simulate(config("", &o)).expect("runs");
    assert_eq!(r.host.requests, 800);
    let cached = r.stats.iter().find(|s| s.path == "array.controller.cache.writes_cached").expect("stat").value;
    assert_eq!(cached, 800.0, "the warm-up's cached writes are not counted");
    // A closed loop with no think time always has a request outstanding.
    assert_eq!(r.host.busy_ns, r.host.duration_ns);
}

/// RAID-0 of two one-die drives, 4 KiB units, 5 us overhead, reading ahead
/// `policy` 8 KiB at a time, on the host requests `requests`.
fn read_ahead_run(policy: &str, requests: &str, extra: &[&str]) -> raidsim_core::report::Report {
    let w = format!("workload.requests=[{requests}]");
    let p = format!("array.controller.read_ahead=\"{policy}\"");
    let mut o = vec!["workload.kind=requests", &w, &p, "array.controller.cache_bytes=1048576", "array.controller.read_ahead_bytes=8192"];
    if policy == "off" {
        o.truncate(2);
    }
    o.extend_from_slice(&RAID0_OF_2);
    o.extend_from_slice(&ONE_DIE);
    o.extend_from_slice(extra);
    simulate(config("", &o)).expect("runs")
}

fn stat(r: &raidsim_core::report::Report, path: &str) -> f64 {
    r.stats.iter().find(|s| s.path == path).unwrap_or_else(|| panic!("no stat {path}")).value
}

fn pages_read(r: &raidsim_core::report::Report) -> u64 {
    r.devices.iter().map(|d| d.pages_read.values().sum::<u64>()).sum()
}

const THREE_SEQUENTIAL_READS: &str = "[0, \"R\", 0, 4096], [1000000, \"R\", 4096, 4096], [2000000, \"R\", 8192, 4096]";

#[test]
fn read_ahead_answers_the_next_sequential_reads_from_the_cache() {
    // Read 0 (member 0) misses: 5 us + R. It reads [4 KiB, 12 KiB) ahead
    // (one unit on each member); reads 1 and 2, 1 ms apart, find it there:
    // 5 us each. Read 1 reads [12 KiB, 20 KiB) ahead; read 2 ends at 12 KiB
    // with 8 KiB held beyond it, so nothing more. Hand count: 2 reads ahead
    // of 16 KiB, 2 hits, 1 + 4 pages read on the members.
    let r = read_ahead_run("always", THREE_SEQUENTIAL_READS, &[]);
    assert_eq!(r.host.read_response.mean_ns, (5000.0 + R + 5000.0 + 5000.0) / 3.0);
    assert_eq!(stat(&r, "array.controller.read_ahead.hits"), 2.0);
    assert_eq!(stat(&r, "array.controller.read_ahead.reads"), 2.0);
    assert_eq!(stat(&r, "array.controller.read_ahead.bytes"), 16384.0);
    assert_eq!(pages_read(&r), 5);
    // Off (the default): every read goes to a member, 5 us + R, and no
    // read-ahead statistics are reported.
    let off = read_ahead_run("off", THREE_SEQUENTIAL_READS, &[]);
    assert_eq!(off.host.read_response.mean_ns, 5000.0 + R);
    assert_eq!(pages_read(&off), 3);
    assert!(!off.stats.iter().any(|s| s.path.starts_with("array.controller.read_ahead")));
}

#[test]
fn a_read_of_data_still_being_read_ahead_waits_for_it() {
    // Read 1 arrives 100 us in: [4 KiB, 8 KiB) is on its way. The read
    // ahead's unit on member 0 queues behind read 0 and ends at 5 us + 2R,
    // so read 1 ends then: 5 us + 2R - 100 us.
    let r = read_ahead_run("always", "[0, \"R\", 0, 4096], [100000, \"R\", 4096, 4096]", &[]);
    assert_eq!(r.host.read_response.mean_ns, (5000.0 + R + 5000.0 + 2.0 * R - 100_000.0) / 2.0);
    assert_eq!(stat(&r, "array.controller.read_ahead.hits"), 1.0);
}

#[test]
fn adaptive_read_ahead_waits_for_two_sequential_reads() {
    // Reads at 0, 64 KiB, 68 KiB. Always: each reads 8 KiB ahead of it but
    // the last, which hits what the second read ahead ([68, 76) KiB) and
    // tops it up to 84 KiB: 3 reads ahead, 1 hit. Adaptive: only the third
    // read follows the one before it: 1 read ahead, no hit.
    let reqs = "[0, \"R\", 0, 4096], [1000000, \"R\", 65536, 4096], [2000000, \"R\", 69632, 4096]";
    let always = read_ahead_run("always", reqs, &[]);
    assert_eq!((stat(&always, "array.controller.read_ahead.reads"), stat(&always, "array.controller.read_ahead.hits")), (3.0, 1.0));
    let adaptive = read_ahead_run("adaptive", reqs, &[]);
    assert_eq!((stat(&adaptive, "array.controller.read_ahead.reads"), stat(&adaptive, "array.controller.read_ahead.hits")), (1.0, 0.0));
}

#[test]
fn a_write_drops_data_read_ahead_even_when_the_read_ahead_ran_while_it_was_on_its_way() {
    // Written after it was read ahead: read 2 must go to the members.
    let r = read_ahead_run("always", "[0, \"R\", 0, 4096], [1000000, \"W\", 4096, 4096], [2000000, \"R\", 4096, 4096]", &[]);
    assert_eq!(stat(&r, "array.controller.read_ahead.hits"), 0.0);
    // RAID-5 of 3 (two data units a stripe): a write of [8, 12) KiB at 0
    // pre-reads, then writes. A read of [4, 8) KiB 1 us later reads
    // [8, 16) KiB ahead, which reaches the members between the write's
    // pre-reads and its writes: old data. The write's landing drops it,
    // so the read of [8, 12) KiB at 10 ms is a miss.
    let raid5 = ["array.level=raid5", "array.members=3", "sim.verify=true"];
    let reqs = "[0, \"W\", 8192, 4096], [1000, \"R\", 4096, 4096], [10000000, \"R\", 8192, 4096]";
    let r = read_ahead_run("always", reqs, &raid5);
    assert_eq!(stat(&r, "array.controller.read_ahead.reads"), 2.0);
    assert_eq!(stat(&r, "array.controller.read_ahead.hits"), 0.0);
    assert_eq!(r.verify.expect("verify on").mismatches, 0);
    // Without the write, the same read is a hit.
    let r = read_ahead_run("always", "[1000, \"R\", 4096, 4096], [10000000, \"R\", 8192, 4096]", &raid5);
    assert_eq!(stat(&r, "array.controller.read_ahead.hits"), 1.0);
}

#[test]
fn read_ahead_keeps_every_member_read_right_under_mixed_load() {
    for policy in ["always", "adaptive"] {
        let o = [
            "array.level=raid5",
            "array.members=4",
            "array.stripe_unit_bytes=8192",
            "array.controller.cache_bytes=65536",
            "sim.verify=true",
            "workload.kind=\"synthetic\"",
            "workload.requests=4000",
            "workload.processes=8",
            "workload.read_fraction=0.7",
            "workload.address=\"sequential\"",
            "workload.size.kind=\"uniform\"",
            "workload.size.min_bytes=512",
            "workload.size.max_bytes=32768",
            "workload.alignment_bytes=512",
            "ssd.geometry.blocks_per_plane=64",
        ];
        let p = format!("array.controller.read_ahead=\"{policy}\"");
        let mut o = o.to_vec();
        o.extend(["array.controller.read_ahead_bytes=16384", &p]);
        let r = simulate(config("", &o)).expect("runs");
        assert_eq!(r.host.requests, 4000, "{policy}: every request ends");
        assert_eq!(r.verify.as_ref().expect("verify on").mismatches, 0, "{policy}");
        eprintln!("{policy}: hits {} reads ahead {}", stat(&r, "array.controller.read_ahead.hits"), stat(&r, "array.controller.read_ahead.reads"));
        assert!(stat(&r, "array.controller.read_ahead.hits") > 300.0, "{policy}: sequential reads hit");
    }
}

#[test]
fn read_ahead_settings_that_cannot_hold_are_refused() {
    let ra = "array.controller.read_ahead=\"always\"";
    let e = refused(&["array.level=raid0", "array.members=2", ra, "array.controller.cache_bytes=65536"]);
    assert!(e.contains("array.controller.read_ahead_bytes") && e.contains("multiple of 512"), "{e}");
    let e = refused(&["array.level=raid0", "array.members=2", ra, "array.controller.read_ahead_bytes=65536"]);
    assert!(e.contains("array.controller.cache_bytes") && e.contains("cannot hold"), "{e}");
    let e = refused(&["array.level=raid0", "array.members=2", "array.controller.read_ahead_bytes=65536"]);
    assert!(e.contains("read_ahead = \"off\""), "{e}");
    let e = refused(&[ra, "array.controller.read_ahead_bytes=4096", "array.controller.cache_bytes=65536"]);
    assert!(e.contains("needs a RAID controller"), "{e}");
    let e = refused(&[
        "array.level=raid0",
        "array.members=2",
        ra,
        "array.controller.cache=\"write_back\"",
        "array.controller.read_ahead_bytes=4096",
        "array.controller.cache_bytes=65536",
    ]);
    assert!(e.contains("not modelled"), "{e}");
    let e = refused(&["array.level=raid0", "array.members=2", "array.controller.read_ahead=\"sometimes\""]);
    assert!(e.contains("sometimes") || e.contains("unknown variant"), "{e}");
}

#[test]
fn a_read_waiting_on_data_a_later_write_drops_still_gets_it() {
    // Read 1 (at 1 us) waits on [4, 12) KiB being read ahead; a write of
    // [8, 12) KiB at 2 us drops that extent. Read 1 came first: it is
    // answered when the read ahead ends (5 us + 2R after 0, so 2R + 4 us
    // after its arrival, as without the write) and counts as a hit; no
    // member reads [4, 8) KiB a second time.
    let with_write = read_ahead_run("always", "[0, \"R\", 0, 4096], [1000, \"R\", 4096, 4096], [2000, \"W\", 8192, 4096]", &[]);
    let without = read_ahead_run("always", "[0, \"R\", 0, 4096], [1000, \"R\", 4096, 4096]", &[]);
    assert_eq!(with_write.host.read_response.mean_ns, without.host.read_response.mean_ns);
    assert_eq!(with_write.host.read_response.mean_ns, (5000.0 + R + 5000.0 + 2.0 * R - 1000.0) / 2.0);
    assert_eq!(stat(&with_write, "array.controller.read_ahead.hits"), 1.0);
    assert_eq!(pages_read(&with_write), pages_read(&without));
}

#[test]
fn sim_verify_checks_every_read_answered_from_data_read_ahead() {
    // RAID-5 of 3: four sequential 4 KiB reads after a 64 KiB write; the
    // last three are hits, and each hit's 8 sectors are checked against the
    // last write, beside the sectors the read and the reads ahead brought
    // from the members (8 + 3 x 16).
    let reqs = "[0, \"W\", 0, 65536], [100000000, \"R\", 0, 4096], [101000000, \"R\", 4096, 4096], [102000000, \"R\", 8192, 4096], \
                [103000000, \"R\", 12288, 4096]";
    let r = read_ahead_run("always", reqs, &["array.level=raid5", "array.members=3", "sim.verify=true"]);
    assert_eq!(stat(&r, "array.controller.read_ahead.hits"), 3.0);
    let v = r.verify.expect("verify on");
    assert_eq!((v.sectors_checked_on_reads, v.mismatches), (8 + 3 * 16 + 3 * 8, 0));
}

#[test]
fn a_hit_counts_when_it_is_measured_however_the_warm_up_ends() {
    // One warm-up read; the measured read is a hit whose answer crosses a
    // slow host link (1 MB/s) long after the warm-up's end: it is counted.
    let r = read_ahead_run(
        "always",
        "[0, \"R\", 0, 4096], [300000, \"R\", 4096, 4096]",
        &["sim.warmup_requests=1", "array.controller.host_link_bytes_per_s=1000000"],
    );
    assert_eq!(r.host.requests, 1);
    assert_eq!(stat(&r, "array.controller.read_ahead.hits"), 1.0);
}

#[test]
fn counting_mode_refuses_read_ahead() {
    let o = [
        "array.level=raid0",
        "array.members=2",
        "array.controller.read_ahead=\"always\"",
        "array.controller.read_ahead_bytes=8192",
        "array.controller.cache_bytes=65536",
    ];
    let mut raw = raidsim_core::config::RawConfig::new();
    for x in o {
        raw.set(x).expect("sets");
    }
    let e = raidsim_core::count(&raw.resolve().expect("resolves")).expect_err("refused").to_string();
    assert!(e.contains("array.controller.read_ahead") && e.contains("counting mode"), "{e}");
}

#[test]
fn a_hit_between_a_writes_drive_writes_and_its_end_is_never_older_than_the_verifier_expects() {
    // RAID-5 of 3 behind a slow parity engine (1 MB/s: the write's 4 KiB
    // of parity takes 4.1 ms): the write of [8, 12) KiB is admitted at 0, a
    // read at 10 us reads [8, 16) KiB ahead while the write computes, and a
    // read of [8, 12) KiB comes at t. Data read ahead before the write's
    // drive writes began predates it and is dropped then, so no hit returns
    // it while the verifier already expects the write.
    let raid5 = ["array.level=raid5", "array.members=3", "sim.verify=true", "array.controller.xor_bytes_per_s=1000000"];
    let mut hits = 0.0;
    for t in (3_900_000..5_000_000).step_by(50_000) {
        let reqs = format!("[0, \"W\", 8192, 4096], [10000, \"R\", 4096, 4096], [{t}, \"R\", 8192, 4096]");
        let r = read_ahead_run("always", &reqs, &raid5);
        assert_eq!(r.verify.as_ref().expect("verify on").mismatches, 0, "read at {t} ns");
        hits += stat(&r, "array.controller.read_ahead.hits");
    }
    assert!(hits > 0.0, "some reads before the write's drive writes are hits");
}
