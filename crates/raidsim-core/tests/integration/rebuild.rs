//! Failure and reconstruction (issue #10): rebuild times against closed
//! forms, the rate-limit trade, second failures within and beyond
//! tolerance, and the ways a failure is triggered.
//!
//! The closed forms use a member that does one page at a time (one channel,
//! one die, one plane; defaults otherwise: 40 MB/s channel, SATA-II link,
//! 25 us read, 200 us program) and an idle array, so that each phase is a
//! sum of its parts: a page read costs T_READ + X on the die and channel
//! (the host-link transfer overlaps the next page), a page write X + T_PROG.

use crate::common;

use common::config;
use raidsim_core::report::{RebuildReport, Report};
use raidsim_core::simulate;

const X: u64 = 102_400; // 4 KiB over a 40 MB/s channel
const T_READ: u64 = 25_000;
const T_PROG: u64 = 200_000;
/// SATA-II 300 MB/s: 4096 B in ceil(13653.3) ns.
const LINK_4K: u64 = 13_654;

/// One channel, one die, one plane, 64 blocks of 64 pages.
const SMALL: [&str; 6] = [
    "ssd.geometry.channels=1",
    "ssd.geometry.planes_per_die=1",
    "ssd.geometry.blocks_per_plane=64",
    "ssd.geometry.pages_per_block=64",
    "array.stripe_unit_bytes=4096",
    "workload.kind=requests",
];

/// An idle array: one read at time 0, then nothing but the rebuild.
fn idle(extra: &[&str]) -> Report {
    let mut o = SMALL.to_vec();
    o.push("workload.requests=[[0, \"R\", 0, 4096]]");
    o.extend_from_slice(extra);
    simulate(config("", &o)).expect("runs")
}

fn rebuild(r: &Report) -> &RebuildReport {
    r.rebuild.as_ref().expect("a rebuild section")
}

/// Pages of one member (every row of stripe units is rebuilt).
fn member_pages(r: &Report) -> u64 {
    r.devices[0].capacity_bytes / 4096
}

fn within(measured: u64, bound: u64, tol: f64) -> bool {
    (measured as f64 - bound as f64).abs() <= tol * bound as f64
}

#[test]
fn raid5_dor_rebuild_takes_the_spares_write_time() {
    let r = idle(&["array.level=raid5", "array.members=5", "array.spares=1", "array.failures=[{member = 2, at_ns = 0}]"]);
    let rb = rebuild(&r);
    let pages = member_pages(&r);
    // Survivors read a page each per stripe (T_READ + X), the spare writes
    // one (X + T_PROG): the spare is the bottleneck.
    let bound = pages * (X + T_PROG).max(T_READ + X);
    let d = rb.duration_ns.expect("finished");
    assert!(within(d, bound, 0.10), "{d} ns vs closed form {bound} ns");
    assert!(d >= bound, "faster than the spare can write: {d} < {bound}");
    assert_eq!(rb.lost_bytes, pages * 4096);
    assert_eq!(rb.stripes_rebuilt, pages);
    for m in [0, 1, 3, 4] {
        assert_eq!(r.devices[m].pages_read.get("rebuild_read").copied().unwrap_or(0), pages, "member {m}");
    }
    assert_eq!(r.devices[5].name, "spare[0]");
    assert_eq!(r.devices[5].pages_written.get("rebuild_write"), Some(&pages));
    let speed = rb.recovery_bytes_per_s.expect("speed");
    assert!((speed - rb.lost_bytes as f64 * 1e9 / d as f64).abs() < 1e-6);
}

#[test]
fn sor_rebuild_pays_read_and_write_latency_per_stripe() {
    let r = idle(&["array.level=raid5", "array.members=5", "array.spares=1", "array.failures=[{member = 2, at_ns = 0}]", "rebuild.policy=\"sor\""]);
    let pages = member_pages(&r);
    // One stripe at a time: the four reads in parallel, then the write.
    let per_stripe = (T_READ + X + LINK_4K) + (LINK_4K + X + T_PROG);
    let bound = pages * per_stripe;
    let d = rebuild(&r).duration_ns.expect("finished");
    assert!(within(d, bound, 0.10), "{d} ns vs closed form {bound} ns");
}

#[test]
fn raid1_rebuild_is_a_copy_at_the_spares_write_speed() {
    let r = idle(&["array.level=raid1", "array.members=2", "array.spares=1", "array.failures=[{member = 0, at_ns = 0}]"]);
    let pages = member_pages(&r);
    let d = rebuild(&r).duration_ns.expect("finished");
    assert!(within(d, pages * (X + T_PROG), 0.10), "{d}");
    assert_eq!(r.devices[1].pages_read.get("rebuild_read"), Some(&pages));
    assert_eq!(r.devices[2].pages_written.get("rebuild_write"), Some(&pages));
}

#[test]
fn raid6_rebuilds_two_lost_members_at_once_with_each_code() {
    for code in ["rs", "evenodd", "rdp"] {
        let c = format!("array.code=\"{code}\"");
        let r = idle(&[
            "array.level=raid6",
            "array.members=6",
            c.as_str(),
            "array.spares=2",
            "array.failures=[{member = 1, at_ns = 0}, {member = 4, at_ns = 0}]",
        ]);
        let rb = rebuild(&r);
        // Whole codewords: the member's rows are rounded down to p − 1.
        let pages = rb.lost_bytes / 4096 / 2;
        assert!(pages > 0 && pages <= member_pages(&r));
        let d = rb.duration_ns.expect("finished");
        assert!(within(d, pages * (X + T_PROG), 0.10), "{code}: {d} vs {}", pages * (X + T_PROG));
        for spare in [6, 7] {
            assert_eq!(r.devices[spare].pages_written.get("rebuild_write"), Some(&pages), "{code}");
        }
        assert!(rb.data_loss_events.is_empty());
    }
}

/// A loaded RAID-5 4+1 with a failure at its middle request.
fn loaded(extra: &[&str]) -> Report {
    let mut o = vec![
        "ssd.geometry.blocks_per_plane=32",
        "array.level=raid5",
        "array.members=5",
        "array.stripe_unit_bytes=16384",
        "array.spares=1",
        "array.failures=[{member = 3, at_request = 4000}]",
        "workload.requests=8000",
        "workload.read_fraction=0.7",
        "workload.mean_interarrival_ns=400000",
        "metrics.interval_ns=50000000",
    ];
    o.extend_from_slice(extra);
    let r = simulate(config("", &o)).expect("runs");
    assert_eq!(r.host.requests, 8000);
    r
}

#[test]
fn rebuild_slows_the_host_and_the_rate_limit_trades_time_for_response() {
    let runs: Vec<Report> = ["0", "40000000", "10000000"].iter().map(|l| loaded(&[&format!("rebuild.max_bytes_per_s={l}")])).collect();
    let d: Vec<u64> = runs.iter().map(|r| rebuild(r).duration_ns.expect("finished")).collect();
    let during: Vec<f64> = runs.iter().map(|r| rebuild(r).response_during.mean_ns).collect();
    let before = rebuild(&runs[0]).response_before.mean_ns;
    assert!(during[0] > before * 1.2, "rebuild does not slow the host: {during:?} vs {before}");
    assert!(d[0] < d[1] && d[1] < d[2], "limit does not lengthen the rebuild: {d:?}");
    assert!(during[0] > during[1] && during[1] > during[2], "limit does not help the host: {during:?}");
    // A limited rebuild runs at its limit.
    let rb = rebuild(&runs[2]);
    let rate = rb.lost_bytes as f64 * 1e9 / d[2] as f64;
    assert!((rate - 10e6).abs() < 0.05 * 10e6, "{rate} B/s under a 10 MB/s limit");
}

#[test]
fn idle_only_rebuild_waits_for_the_host() {
    let busy = loaded(&[]);
    let idle_only = loaded(&["rebuild.only_when_idle=true"]);
    let (a, b) = (rebuild(&busy), rebuild(&idle_only));
    assert!(b.response_during.mean_ns < a.response_during.mean_ns, "{} vs {}", b.response_during.mean_ns, a.response_during.mean_ns);
    assert!(b.duration_ns.expect("finished") > a.duration_ns.expect("finished"));
}

#[test]
fn failure_at_a_request_happens_at_its_arrival() {
    let r = loaded(&[]);
    let f = &rebuild(&r).failures[0];
    // Poisson arrivals with mean 400 us: request 4000 arrives near 1.6 s.
    assert!(f.at_ns > 1_200_000_000 && f.at_ns < 2_000_000_000, "{}", f.at_ns);
    assert_eq!(f.rebuild_start_ns, Some(f.at_ns));
    let before = rebuild(&r).response_before.count;
    assert!((3990..=4000).contains(&before), "{before} requests completed before the failure");
}

#[test]
fn delay_postpones_the_rebuild_and_the_array_runs_degraded_meanwhile() {
    let r = loaded(&["rebuild.delay_ns=500000000"]);
    let rb = rebuild(&r);
    let f = &rb.failures[0];
    assert_eq!(f.rebuild_start_ns, Some(f.at_ns + 500_000_000));
    assert!(rb.response_degraded.count > 0);
}

#[test]
fn random_failure_times_follow_their_exponential_mean() {
    let f = raidsim_core::config::MemberFailure { member: 0, at_random_mean_ns: Some(1_000_000_000), ..Default::default() };
    let n = 4000;
    let mean = (0..n).map(|seed| raidsim_core::sim::failure_time_ns(&f, 0, seed).expect("a time") as f64).sum::<f64>() / n as f64;
    // Standard error of the mean of an exponential: mean / sqrt(n) = 1.6 %.
    assert!((mean - 1e9).abs() < 0.05e9, "{mean}");
    let r = loaded(&["array.failures=[{member = 3, at_random_mean_ns = 1000000000}]"]);
    let at = rebuild(&r).failures[0].at_ns;
    assert_eq!(Some(at), raidsim_core::sim::failure_time_ns(&f, 0, 1), "seeded from sim.seed");
}

#[test]
fn a_second_failure_within_tolerance_is_rebuilt_too() {
    let r = idle(&[
        "array.level=raid6",
        "array.members=6",
        "array.spares=2",
        "array.failures=[{member = 1, at_ns = 0}, {member = 4, at_ns = 300000000}]",
    ]);
    let rb = rebuild(&r);
    let pages = member_pages(&r);
    assert!(rb.data_loss_events.is_empty());
    assert_eq!(r.devices[6].pages_written.get("rebuild_write"), Some(&pages));
    assert_eq!(r.devices[7].pages_written.get("rebuild_write"), Some(&pages));
    assert!(rb.failures.iter().all(|f| f.rebuild_end_ns.is_some()));
}

#[test]
fn a_failure_beyond_tolerance_loses_the_stripes_not_yet_rebuilt() {
    let mut o = SMALL.to_vec();
    // Reads spread over the array after the second failure.
    let reqs: Vec<String> = (0..200u64).map(|i| format!("[{}, \"R\", {}, 4096]", 400_000_000 + i * 1_000_000, (i * 7919 % 3000) * 16384)).collect();
    let w = format!("workload.requests=[{}]", reqs.join(", "));
    o.extend_from_slice(&[
        "array.level=raid5",
        "array.members=5",
        "array.spares=1",
        "array.failures=[{member = 1, at_ns = 0}, {member = 3, at_ns = 300000000}]",
        w.as_str(),
    ]);
    let r = simulate(config("", &o)).expect("a data loss is recorded, not an error");
    let rb = rebuild(&r);
    assert_eq!(rb.data_loss_events.len(), 1);
    let e = &rb.data_loss_events[0];
    let stripes = member_pages(&r);
    assert_eq!((e.member, e.at_ns), (3, 300_000_000));
    // Every stripe is either rebuilt on the spare before 0.3 s, or lost.
    assert_eq!(e.stripes_lost + rb.stripes_rebuilt, stripes);
    // At one page per X + T_PROG, about 0.3 s / 302.4 us stripes were rebuilt.
    let expected = 300_000_000 / (X + T_PROG);
    assert!(rb.stripes_rebuilt.abs_diff(expected) <= 10, "{} rebuilt, ~{expected} expected", rb.stripes_rebuilt);
    assert_eq!(e.bytes_lost, e.stripes_lost * 4 * 4096);
    // Member 1's rebuild ended by giving up the lost stripes; member 3 found no spare.
    let (f1, f3) = (&rb.failures[0], &rb.failures[1]);
    assert_eq!((f1.stripes_given_up, f1.rebuild_end_ns), (e.stripes_lost, Some(300_000_000)));
    assert_eq!((f3.stripes_given_up, f3.rebuild_start_ns), (0, None));
    assert!(r.warnings.iter().any(|w| w.contains("gave up") && w.contains(&e.stripes_lost.to_string())), "{:?}", r.warnings);
    // Reads of lost stripes fail; the rest are served.
    let lost_reads = (0..200u64).filter(|i| (i * 7919 % 3000) * 16384 / 16384 >= rb.stripes_rebuilt).count() as u64;
    assert!(rb.failed_reads > 0 && rb.failed_reads.abs_diff(lost_reads) <= 2, "{} failed, ~{lost_reads} expected", rb.failed_reads);
    assert_eq!(r.host.requests + rb.failed_reads, 200);
    assert!(r.warnings.iter().any(|w| w.starts_with("data lost")));
}

#[test]
fn raid10_survives_a_failure_in_each_pair_and_loses_data_with_both_of_one() {
    let base = ["array.level=raid10", "array.members=4", "array.copies=2", "array.spares=0"];
    let with = |f: &str| {
        let mut o = base.to_vec();
        o.push(f);
        idle(&o)
    };
    let other_pair = with("array.failures=[{member = 0, at_ns = 0}, {member = 2, at_ns = 1000}]");
    assert!(rebuild(&other_pair).data_loss_events.is_empty());
    let same_pair = with("array.failures=[{member = 0, at_ns = 0}, {member = 1, at_ns = 1000}]");
    let e = &rebuild(&same_pair).data_loss_events;
    assert_eq!(e.len(), 1);
    // The pair (0, 1) holds every other unit: half the stripes' units are lost, each stripe has one.
    let stripes = member_pages(&same_pair) / 2;
    assert_eq!(e[0].stripes_lost, stripes);
}

#[test]
fn failures_are_checked_as_configuration() {
    let err = |o: &[&str]| {
        let mut raw = raidsim_core::config::RawConfig::new();
        for x in o {
            raw.set(x).expect("parses");
        }
        raw.resolve().expect_err("refused").to_string()
    };
    let e = err(&["array.level=raid5", "array.members=4", "array.failures=[{member = 0, at_ns = 0}, {member = 1, at_ns = 0}]"]);
    assert!(e.contains("tolerates 1"), "{e}");
    // RAID-10 of 4 with 2 copies mirrors (0, 1) and (2, 3): one of each pair may fail from the start, not both of one.
    let r10 = ["array.level=raid10", "array.members=4", "array.copies=2"];
    let start = |f: &str| {
        let mut raw = raidsim_core::config::RawConfig::new();
        for x in r10.iter().copied().chain([f]) {
            raw.set(x).expect("parses");
        }
        raw.resolve()
    };
    assert!(start("array.failures=[{member = 0, at_ns = 0}, {member = 3, at_ns = 0}]").is_ok());
    let e = start("array.failures=[{member = 2, at_ns = 0}, {member = 3, at_ns = 0}]").expect_err("a whole pair").to_string();
    assert!(e.contains("tolerates 1 of each unit's copies"), "{e}");
    // Five members, two copies: unit j sits on 2j, 2j+1 (mod 5), so every neighbouring pair, (4, 0) too, holds a unit.
    let mut raw = raidsim_core::config::RawConfig::new();
    for x in ["array.level=raid10", "array.members=5", "array.copies=2", "array.failures=[{member = 4, at_ns = 0}, {member = 0, at_ns = 0}]"] {
        raw.set(x).expect("parses");
    }
    assert!(raw.resolve().is_err(), "members 4 and 0 hold copies of unit 2");
    let e = err(&["array.level=raid5", "array.members=4", "array.failures=[{member = 0, at_ns = 5, at_request = 3}]"]);
    assert!(e.contains("exactly one of"), "{e}");
    let e = err(&["array.level=raid5", "array.members=4", "array.failures=[{member = 0}]"]);
    assert!(e.contains("exactly one of"), "{e}");
    let e = err(&["array.failures=[{member = 0, at_ns = 10}]"]);
    assert!(e.contains("single"), "{e}");
    // An instant past TOML's integer range is named as such, not "a string".
    let e = raidsim_core::config::RawConfig::new().set("array.failures=[{member = 0, at_ns = 18446744073709551615}]").expect_err("too large");
    assert!(e.to_string().contains("signed 64-bit") && e.to_string().contains("array.failures"), "{e}");
    let e = err(&["array.level=raid5", "array.members=4", "rebuild.buffer_stripes=0"]);
    assert!(e.contains("rebuild.buffer_stripes"), "{e}");
    let e = err(&["array.level=raid5", "array.members=4", "rebuild.polcy=\"dor\""]);
    assert!(e.contains("policy"), "{e}");
}

#[test]
fn spares_without_a_failure_are_named_in_a_warning() {
    let warned = |o: &[&str]| idle(o).warnings.iter().any(|w| w.contains("spares took no part"));
    assert!(warned(&["array.level=raid5", "array.members=4", "array.spares=1"]));
    assert!(!warned(&["array.level=raid5", "array.members=4", "array.spares=1", "array.failures=[{member = 0, at_ns = 0}]"]));
}

#[test]
fn without_a_spare_the_array_stays_degraded() {
    let r = idle(&["array.level=raid5", "array.members=5", "array.failures=[{member = 2, at_ns = 0}]"]);
    let rb = rebuild(&r);
    assert_eq!((rb.start_ns, rb.end_ns, rb.stripes_rebuilt), (None, None, 0));
    assert_eq!(rb.response_degraded.count, 1);
}

#[test]
fn a_delay_beyond_the_host_s_requests_starts_the_rebuild_late_and_says_so() {
    // The largest delay TOML holds: the rebuild starts that long after the
    // failure, long after the host's last request, with a warning.
    let r = idle(&[
        "array.level=raid5",
        "array.members=5",
        "array.spares=1",
        "array.failures=[{member = 2, at_ns = 1000}]",
        "rebuild.delay_ns=9223372036854775807",
    ]);
    let rb = rebuild(&r);
    assert_eq!(rb.start_ns, Some(1000 + i64::MAX as u64));
    assert!(r.warnings.iter().any(|w| w.contains("after the host's last request")), "{:?}", r.warnings);
}

#[test]
fn a_rebuild_whose_every_stripe_is_lost_still_ends() {
    // Two of RAID-5's members fail at once: every stripe is lost, both
    // rebuilds give all of them up, and the stripes already in flight finish
    // for nothing. The rebuild has ended, and says so.
    let r = idle(&["array.level=raid5", "array.members=4", "array.spares=2", "array.failures=[{member = 0, at_ns = 1}, {member = 1, at_ns = 1}]"]);
    let rb = rebuild(&r);
    let stripes = member_pages(&r);
    assert!(rb.end_ns.is_some(), "{rb:?}");
    assert_eq!((rb.stripes_rebuilt, rb.lost_bytes), (0, 0));
    assert!(rb.failures.iter().all(|f| f.rebuild_end_ns.is_some()));
    assert_eq!(rb.failures[1].stripes_given_up, stripes);
    assert!(!r.warnings.iter().any(|w| w.contains("had not finished")), "{:?}", r.warnings);
}

#[test]
fn separate_rebuilds_add_their_durations_not_the_gap_between() {
    let r = idle(&[
        "array.level=raid6",
        "array.members=5",
        "array.spares=2",
        "array.failures=[{member = 1, at_ns = 0}, {member = 3, at_ns = 5000000000}]",
    ]);
    let rb = rebuild(&r);
    let each: Vec<u64> = rb.failures.iter().map(|f| f.rebuild_end_ns.expect("ended") - f.rebuild_start_ns.expect("started")).collect();
    // The first rebuild ended long before the second failure.
    assert!(rb.failures[0].rebuild_end_ns < Some(5_000_000_000));
    assert_eq!(rb.duration_ns, Some(each[0] + each[1]));
    let speed = rb.recovery_bytes_per_s.expect("a speed");
    assert!((speed - rb.lost_bytes as f64 * 1e9 / (each[0] + each[1]) as f64).abs() < 1e-6);
}

#[test]
fn spares_and_counting_mode_are_checked() {
    let refused = |o: &[&str]| {
        let mut raw = raidsim_core::config::RawConfig::new();
        for x in o {
            raw.set(x).expect("parses");
        }
        raw.resolve().map(|_| ()).expect_err("refused").to_string()
    };
    // A spare smaller than the members would shrink the array silently.
    let small_spare = [
        "array.level=raid5",
        "array.members=3",
        "array.member_ssd=[{geometry={blocks_per_plane=128}}, {geometry={blocks_per_plane=128}}, {geometry={blocks_per_plane=128}}]",
        "ssd.geometry.blocks_per_plane=64",
        "array.spares=1",
    ];
    assert!(refused(&small_spare).contains("smaller than the smallest member"));
    // Without the spare the same members give the larger capacity.
    let members_only = config("", &small_spare[..4]);
    let with_big_spare = config("", &[&small_spare[..3], &["ssd.geometry.blocks_per_plane=128", "array.spares=1"]].concat());
    assert_eq!(members_only.capacity_bytes, with_big_spare.capacity_bytes);
    // Nothing to rebuild from.
    assert!(refused(&["array.level=raid0", "array.members=3", "array.spares=1"]).contains("no redundancy"));
    // Counting mode has no time: a failure at a request, or a spare, is refused, not ignored.
    let timed = config("", &["array.level=raid5", "array.members=4", "array.failures=[{member = 1, at_request = 3}]"]);
    let e = raidsim_core::count(&timed).expect_err("refused").to_string();
    assert!(e.contains("counting mode has no time"), "{e}");
}

#[test]
fn a_failure_after_the_hosts_last_request_is_named() {
    let late = |at: &str| {
        let f = format!("array.failures=[{{member = 1, at_ns = {at}}}]");
        idle(&["array.level=raid5", "array.members=4", f.as_str()]).warnings.iter().any(|w| w.contains("no request saw the array degraded"))
    };
    assert!(late("1000000000000"));
    assert!(!late("0"));
    // Data lost at 0.5 s and 0.6 s; the read at 1 s fails on it. It is
    // the host's last request, so neither failure came after it.
    let mut o = SMALL.to_vec();
    o.extend([
        "array.level=raid5",
        "array.members=4",
        "workload.requests=[[0, \"R\", 0, 4096], [1000000000, \"R\", 0, 4096]]",
        "array.failures=[{member = 1, at_ns = 500000000}, {member = 2, at_ns = 600000000}]",
    ]);
    let r = simulate(config("", &o)).expect("runs");
    assert_eq!(rebuild(&r).failed_reads, 1);
    assert!(!r.warnings.iter().any(|w| w.contains("no request saw the array degraded")), "{:?}", r.warnings);
}
