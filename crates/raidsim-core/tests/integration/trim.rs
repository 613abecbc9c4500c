//! Trims (discards): what a drive drops by hand count, collection after a
//! trim against its closed form, the array's rule (whole stripes under
//! parity, every byte elsewhere) against the pages its own writes placed,
//! and every configuration that refuses them, by key.

use crate::common;

use common::{config, responses_in_arrival_order, ONE_DIE};
use raidsim_core::analytic::greedy_uniform_write_amplification;
use raidsim_core::config::RawConfig;
use raidsim_core::ftl::Ftl;
use raidsim_core::report::Report;
use raidsim_core::simulate;
use rand::{Rng, SeedableRng};

fn stat(r: &Report, path: &str) -> Option<f64> {
    r.stats.iter().find(|s| s.path == path).map(|s| s.value)
}

fn requests(list: &[(u64, &str, u64, u64)]) -> String {
    let rows: Vec<String> = list.iter().map(|(t, op, offset, len)| format!("[{t}, \"{op}\", {offset}, {len}]")).collect();
    format!("workload.requests=[{}]", rows.join(", "))
}

/// A blkparse trace of `lines` in this test run's temp directory, as a `workload.path` override.
fn blkparse_fixture(name: &str, lines: &[&str]) -> String {
    let dir = std::env::temp_dir().join(format!("raidsim-trim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").expect("fixture");
    format!("workload.path=\"{}\"", path.display())
}

fn refs(o: &[String]) -> Vec<&str> {
    o.iter().map(String::as_str).collect()
}

fn run(overrides: &[&str], list: &[(u64, &str, u64, u64)]) -> Result<Report, String> {
    let reqs = requests(list);
    run_preset("", &[overrides, &["workload.kind=requests", reqs.as_str()]].concat())
}

/// A run of `preset` (defaults when empty) with `overrides`, or the error resolving or running it.
fn run_preset(preset: &str, overrides: &[&str]) -> Result<Report, String> {
    let mut raw = if preset.is_empty() { RawConfig::new() } else { RawConfig::from_preset(preset).map_err(|e| e.to_string())? };
    for o in overrides {
        raw.set(o).map_err(|e| e.to_string())?;
    }
    simulate(raw.resolve().map_err(|e| e.to_string())?).map_err(|e| e.to_string())
}

/// Greedy collection under uniform random writes over the `m` pages a
/// trim left mapped amplifies writes as Xiang & Kurkoski's closed form
/// does at the over-provisioning (T − m) / m: trimmed pages are free space,
/// however full the drive was written.
#[test]
fn a_trimmed_drive_collects_as_the_closed_form_at_the_pages_still_mapped() {
    let base = [
        "ssd.geometry.channels=1",
        "ssd.geometry.dies_per_chip=1",
        "ssd.geometry.planes_per_die=1",
        "ssd.geometry.blocks_per_plane=1024",
        "ssd.geometry.pages_per_block=64",
        "ssd.geometry.over_provisioning_fraction=0.1",
        "ssd.ftl.gc_threshold_fraction=0",
        "ssd.ftl.gc_victim=greedy",
    ];
    let r = config("", &base);
    let mut ftl = Ftl::new(&r.config.ssd, &r.geometry);
    let n = ftl.logical_pages();
    for lpn in 0..n {
        ftl.write(lpn, 0, 0).expect("fill");
    }
    let kept = n * 6 / 10;
    for lpn in kept..n {
        assert!(ftl.trim(lpn).expect("trim"), "page {lpn} was written");
    }
    assert!(!ftl.trim(n - 1).expect("trim again"), "a trimmed page holds nothing");
    assert_eq!(ftl.data_valid_pages(), kept);
    assert_eq!(ftl.check_invariants(), Ok(()));
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
    let mut copied = 0;
    for _warm_then_measure in 0..2 {
        copied = 0;
        for _ in 0..4 * kept {
            copied += ftl.write(rng.gen_range(0..kept), 0, 0).expect("write").gc.pages_copied;
        }
    }
    assert_eq!(ftl.check_invariants(), Ok(()));
    let physical = 1024 * 64;
    let model = greedy_uniform_write_amplification((physical - kept) as f64 / kept as f64);
    let sim = (4 * kept + copied) as f64 / (4 * kept) as f64;
    let full = greedy_uniform_write_amplification((physical - n) as f64 / n as f64);
    eprintln!("pages mapped {kept} of {physical}: model {model:.3}, simulated {sim:.3}; untrimmed model {full:.3}");
    assert!((sim - model).abs() <= 0.05 * model, "simulated {sim}, model {model}");
    assert!(sim < 0.6 * full, "the trim must matter: {sim} against {full} untrimmed");
}

/// A full drive of 4 KiB pages: a trim of [512, +41,060) covers pages 1-9
/// whole and pages 0 and 10 in part. The whole ones are dropped; trimmed
/// again, they hold nothing. A read of a trimmed page costs what a read of
/// a never-written one does (sensing and transfer), and trims are neither
/// logged nor timed.
#[test]
fn a_trim_drops_the_pages_it_covers_whole_and_keeps_the_rest() {
    let drive = [ONE_DIE.as_slice(), &["precondition.fill_fraction=1.0"]].concat();
    let trim = (0, "T", 512, 41_060);
    let r = run(&drive, &[trim, (1, "T", 512, 41_060), (2, "R", 4096, 4096)]).expect("runs");
    assert_eq!(stat(&r, "ssd.trim.pages_dropped"), Some(9.0));
    assert_eq!(stat(&r, "ssd.trim.pages_unmapped"), Some(9.0));
    assert_eq!(stat(&r, "ssd.trim.pages_partial"), Some(4.0));
    assert_eq!(stat(&r, "host.trim.requests"), Some(2.0));
    assert_eq!(stat(&r, "host.trim.bytes"), Some(2.0 * 41_060.0));
    assert_eq!(r.host.reads, 1);
    let reqs = requests(&[trim, (1_000, "R", 4096, 4096)]);
    let responses = responses_in_arrival_order(&[drive.as_slice(), &["workload.kind=requests", reqs.as_str()]].concat());
    assert_eq!(responses, vec![25_000 + 102_400]);
    let untrimmed = run(&drive, &[(0, "R", 4096, 4096)]).expect("runs");
    assert_eq!(stat(&untrimmed, "ssd.trim.pages_dropped"), None, "a run without trims reports none");
}

/// Each level trims what its own writes placed: on a fresh drive, a run of
/// whole stripes written and then trimmed drops, on every member, exactly
/// the pages the write programmed there (data, parity, copies).
#[test]
fn a_trim_of_whole_stripes_drops_on_each_member_what_their_write_placed() {
    let unit = 4096u64;
    let cases: [(&str, u32, &[&str], u64); 8] = [
        ("raid0", 4, &[], 4),
        ("raid1", 2, &[], 1),
        ("raid10", 4, &["array.copies=2"], 4),
        ("raid4", 5, &[], 4),
        ("raid5", 5, &[], 4),
        ("raid6", 6, &[], 4),
        ("raid6", 6, &["array.code=\"evenodd\""], 4 * 4),
        ("raid6", 7, &["array.code=\"rdp\""], 5 * 6),
    ];
    for (level, members, extra, stripe_units) in cases {
        let bytes = 3 * stripe_units * unit;
        let mut o: Vec<String> = ONE_DIE.iter().map(|s| s.to_string()).collect();
        o.extend([format!("array.level={level}"), format!("array.members={members}"), format!("array.stripe_unit_bytes={unit}")]);
        o.extend(["precondition.fill_fraction=0".into(), "ssd.timing.host_link_bandwidth_bytes_per_s=0".into()]);
        o.extend(extra.iter().map(|s| s.to_string()));
        let o: Vec<&str> = o.iter().map(String::as_str).collect();
        let offset = 2 * stripe_units * unit;
        let r = run(&o, &[(0, "W", offset, bytes), (1_000_000_000, "T", offset, bytes)]).unwrap_or_else(|e| panic!("{level}: {e}"));
        for (i, d) in r.devices.iter().enumerate() {
            let written: u64 = d.pages_written.values().sum();
            let dropped = stat(&r, &format!("member[{i}].trim.pages_dropped")).unwrap_or(0.0);
            assert_eq!(dropped, written as f64, "{level} {extra:?}: member {i} wrote {written} pages, dropped {dropped}");
            assert!(written > 0, "{level}: member {i} holds part of every stripe");
        }
        assert_eq!(stat(&r, "host.trim.kept_bytes"), Some(0.0), "{level}");
    }
}

/// Under parity only whole stripes go: RAID-5 of 4 + 1 with 4 KiB units
/// (16 KiB stripes) trimming [4 KiB, +36 KiB) drops stripe 1 on all five
/// members (one page each) and keeps 12 KiB before it and 8 KiB after.
/// RAID-0 and RAID-10 drop every whole page, on every copy.
#[test]
fn parity_keeps_the_parts_of_stripes_a_trim_covers_and_mirrors_do_not() {
    let setup = |level: &str, members: u32, extra: &[&str]| -> Vec<String> {
        let mut o: Vec<String> = ONE_DIE.iter().map(|s| s.to_string()).collect();
        o.extend([format!("array.level={level}"), format!("array.members={members}"), "array.stripe_unit_bytes=4096".into()]);
        o.push("precondition.fill_fraction=1.0".into());
        o.extend(extra.iter().map(|s| s.to_string()));
        o
    };
    let raid5 = setup("raid5", 5, &[]);
    let r = run(&refs(&raid5), &[(0, "T", 4096, 9 * 4096)]).expect("runs");
    for i in 0..5 {
        assert_eq!(stat(&r, &format!("member[{i}].trim.pages_dropped")), Some(1.0), "member {i}");
    }
    assert_eq!(stat(&r, "host.trim.kept_bytes"), Some((3 + 2) as f64 * 4096.0));
    assert_eq!(stat(&r, "host.trim.member_bytes"), Some(5.0 * 4096.0));
    let section = raidsim_core::report::TrimReport { requests: 1, bytes: 9 * 4096, kept_bytes: 5 * 4096, member_bytes: 5 * 4096 };
    assert_eq!(r.trim, section);
    // [2 KiB, +12 KiB): half of unit 0, units 1 and 2, half of unit 3.
    for (level, members, extra, copies) in [("raid0", 5, &[][..], 1.0), ("raid10", 4, &["array.copies=2"][..], 2.0)] {
        let o = setup(level, members, extra);
        let r = run(&refs(&o), &[(0, "T", 2048, 3 * 4096)]).expect("runs");
        let sum = |what: &str| (0..members).map(|i| stat(&r, &format!("member[{i}].trim.{what}")).unwrap_or(0.0)).sum::<f64>();
        assert_eq!((sum("pages_dropped"), sum("pages_partial")), (2.0 * copies, 2.0 * copies), "{level}");
        assert_eq!(stat(&r, "host.trim.kept_bytes"), Some(0.0), "{level}");
        assert_eq!(stat(&r, "host.trim.member_bytes"), Some(copies * 3.0 * 4096.0), "{level}");
    }
}

/// Configurations whose model a trim would break refuse it by key, before
/// the run when the workload's settings carry trims, with the way to leave
/// this workload's trims out.
#[test]
fn configurations_that_cannot_take_a_trim_refuse_it_by_key() {
    let t = [(0, "T", 0, 65_536), (1, "W", 0, 4096)];
    let refusal = |extra: &[&str]| run(&[ONE_DIE.as_slice(), extra].concat(), &t).expect_err("refused");
    let raid5 = ["array.level=raid5", "array.members=4"];
    for (extra, key) in [
        (&["ssd.ftl.scheme=\"fast\"", "ssd.ftl.log_blocks_per_plane=2"][..], "ssd.ftl.scheme"),
        (&["ssd.ftl.scheme=\"block_map\""][..], "ssd.ftl.scheme"),
        (&[raid5[0], raid5[1], "array.member_ssd=[{}, {ftl = {scheme = \"block_map\"}}]"][..], "array.member_ssd[1].ftl.scheme"),
        (&[raid5[0], raid5[1], "array.controller.cache=\"write_back\"", "array.controller.cache_bytes=1048576"][..], "array.controller.cache"),
        (
            &[
                raid5[0],
                raid5[1],
                "array.controller.read_ahead=\"always\"",
                "array.controller.read_ahead_bytes=65536",
                "array.controller.cache_bytes=1048576",
            ][..],
            "array.controller.read_ahead",
        ),
    ] {
        let e = refusal(extra);
        assert!(e.contains(&format!("at `{key}`")) && e.contains("drop the requests whose op is \"T\""), "{extra:?}: {e}");
    }
    let reqs = requests(&[(0, "T", 0, 4096)]);
    let e = run_preset("cr5m-ssd1", &["workload.kind=requests", reqs.as_str()]).expect_err("CR5M");
    assert!(e.contains("at `array.level`") && e.contains("CR5M"), "{e}");
    // A trim of part of one stripe is refused as one of whole stripes is: the setting decides, not the data.
    let e = run_preset("hdd-cheetah-9lp", &[raid5[0], raid5[1], "workload.kind=requests", reqs.as_str()]).expect_err("disks");
    assert!(e.contains("at `member.kind`") && e.contains("hard disk has no trim"), "{e}");
    let e = run_preset("", &["workload.trim_fraction=0.1", "ssd.ftl.scheme=\"block_map\"", "workload.requests=10"]).expect_err("synthetic");
    assert!(e.contains("at `ssd.ftl.scheme`") && e.contains("set workload.trim_fraction = 0"), "{e}");
    // Block-mapped in [ssd] but page-mapped on every member (no spare takes [ssd]'s): nothing refuses.
    let page_mapped = "array.member_ssd=[{ftl = {scheme = \"page_map\"}}, {ftl = {scheme = \"page_map\"}}, {ftl = {scheme = \"page_map\"}}, {ftl = {scheme = \"page_map\"}}]";
    let fast = ["ssd.ftl.scheme=\"fast\"", "ssd.ftl.log_blocks_per_plane=2", page_mapped];
    run(&[ONE_DIE.as_slice(), &raid5, &fast].concat(), &t).expect("every drive maps by page");
    let e = run(&[ONE_DIE.as_slice(), &raid5, &fast, &["array.spares=1"]].concat(), &t).expect_err("the spare maps by block");
    assert!(e.contains("at `ssd.ftl.scheme`"), "{e}");
    let flows = "workload.flows=[{requests = 0, read_fraction = 0.0, trim_fraction = 1.0, processes = 1}]";
    let e = run_preset("", &["workload.kind=flows", flows, "workload.stop_time_ns=1000000"]).expect_err("never ends");
    assert!(e.contains("at `workload.flows[0].trim_fraction`") && e.contains("forever"), "{e}");
    let e = run_preset(
        "",
        &[
            "workload.kind=flows",
            &flows.replace("processes = 1", "processes = 1, think_time_ns = 1"),
            "workload.stop_time_ns=1000000",
            "ssd.ftl.scheme=\"block_map\"",
        ],
    )
    .expect_err("block map");
    assert!(e.contains("workload.flows[i].trim_fraction"), "{e}");
    let counted = raidsim_core::count(&config("", &[raid5[0], raid5[1], "workload.kind=requests", reqs.as_str()]));
    let e = counted.expect_err("counting refuses trims").to_string();
    assert!(e.contains("counting mode counts the pages reads and writes move"), "{e}");
}

/// blkparse's discards (`D` in `rwbs`) replay as trims, in a closed loop
/// too, where the request after a trim issues when the trim ends (at once);
/// `workload.trims = "skip"` leaves them out and counts them.
#[test]
fn a_traces_discards_replay_as_trims_or_are_skipped_and_counted() {
    let lines = [
        "8,0 0 1 0.000000000 1 D W 0 + 8 [fio]",
        "8,0 0 2 0.000100000 1 D D 0 + 64 [fstrim]",
        "8,0 0 3 0.000200000 1 D R 0 + 8 [fio]",
        "8,0 0 4 0.000300000 1 D DS 64 + 64 [fstrim]",
        "8,0 0 5 0.000400000 1 D W 8 + 8 [fio]",
    ];
    let p = blkparse_fixture("discards.blktrace.txt", &lines);
    for replay in ["open", "closed"] {
        let r = format!("workload.replay=\"{replay}\"");
        let o = [ONE_DIE.as_slice(), &["workload.kind=trace", p.as_str(), r.as_str(), "precondition.fill_fraction=1.0"]].concat();
        let report = simulate(config("", &o)).expect("runs");
        assert_eq!(report.host.requests, 3, "{replay}: the reads and writes all complete");
        assert_eq!(stat(&report, "host.trim.requests"), Some(2.0), "{replay}");
        // 64 sectors = 8 pages from sector 0, 8 more from sector 64; the write at sector 0 came before.
        assert_eq!(stat(&report, "ssd.trim.pages_dropped"), Some(16.0), "{replay}");
    }
    let o = [ONE_DIE.as_slice(), &["workload.kind=trace", p.as_str(), "workload.trims=\"skip\""]].concat();
    let report = simulate(config("", &o)).expect("runs");
    assert_eq!((report.host.requests, report.workload.trims_skipped), (3, 2));
    assert_eq!(stat(&report, "host.trim.requests"), None);
}

/// Order is the host's. Ten one-page writes queue in a drive that serves
/// one command at a time, on one die (302.4 us each); a trim of all ten issued behind them waits until they are done
/// and drops all ten, and a rewrite of page 3 issued behind the trim is
/// held until the trim is applied, so a last trim of page 3 finds it
/// mapped. Applied at once instead, the first trim would find the pages
/// not yet written, and the rewrite would be dropped by it.
#[test]
fn a_trim_follows_the_writes_issued_before_it_and_precedes_those_after() {
    let mut list: Vec<(u64, &str, u64, u64)> = (0..10).map(|p| (p, "W", p * 4096, 4096)).collect();
    list.extend([(100, "T", 0, 10 * 4096), (200, "W", 3 * 4096, 4096), (10_000_000, "T", 3 * 4096, 4096)]);
    let drive = [ONE_DIE.as_slice(), &["precondition.fill_fraction=0", "ssd.queue_depth=1"]].concat();
    let r = run(&drive, &list).expect("runs");
    assert_eq!(stat(&r, "ssd.trim.pages_dropped"), Some(11.0));
    assert_eq!(stat(&r, "ssd.trim.pages_unmapped"), Some(0.0));
    assert_eq!(r.host.writes, 11);
    // The held rewrite goes when the tenth write ends, and takes its own 302.4 us.
    let reqs = requests(&list);
    let responses = responses_in_arrival_order(&[drive.as_slice(), &["workload.kind=requests", reqs.as_str()]].concat());
    assert_eq!(responses[10], 11 * 302_400 - 200);
}

/// On bytes (`sim.verify`): trims mixed into reads and writes on RAID-5
/// and RAID-6 of every code, with a member failing and rebuilt onto a
/// spare, leave every sector reading back its last write or, trimmed,
/// zeros, and every surviving parity sector true to its codeword.
#[test]
fn trims_keep_every_codeword_true_on_bytes_through_a_failure_and_rebuild() {
    for (level, code) in [("raid5", "rs"), ("raid6", "rs"), ("raid6", "evenodd"), ("raid6", "rdp"), ("raid10", "rs")] {
        let o = [
            format!("array.level=\"{level}\""),
            "array.members=6".into(),
            "array.stripe_unit_bytes=4096".into(),
            format!("array.code=\"{code}\""),
            "array.failures=[{member = 1, at_request = 150}]".into(),
            "array.spares=1".into(),
            "ssd.geometry.blocks_per_plane=32".into(),
            "workload.requests=600".into(),
            "workload.span_bytes=1048576".into(),
            "workload.read_fraction=0.4".into(),
            "workload.trim_fraction=0.2".into(),
            "workload.alignment_bytes=512".into(),
            "workload.size.kind=\"uniform\"".into(),
            "workload.size.min_bytes=512".into(),
            "workload.size.max_bytes=262144".into(),
            "workload.size.quantum_bytes=512".into(),
            "sim.verify=true".into(),
        ];
        let o: Vec<&str> = o.iter().map(String::as_str).filter(|a| level != "raid10" || !a.starts_with("array.code")).collect();
        let r = simulate(config("", &o)).unwrap_or_else(|e| panic!("{level} {code}: {e}"));
        let v = r.verify.as_ref().expect("verify section");
        assert_eq!(v.mismatches, 0, "{level} {code}: {:?}", v.first_mismatches);
        let trims = stat(&r, "host.trim.requests").unwrap_or(0.0);
        assert!(trims > 80.0 && stat(&r, "host.trim.member_bytes") > Some(0.0), "{level} {code}: {trims} trims");
        assert!(v.sectors_checked_after_run > 1000 && v.redundancy_checked_after_run > 200, "{level} {code}: {v:?}");
    }
}

/// A whole-device discard from a larger traced device (mkfs, blkdiscard):
/// skipped, it is never asked to fit; applied under `wrap`, it trims the
/// whole drive and counts as wrapped. A trace's first trim meets the same
/// refusals a listed one does, with the trace's way out.
#[test]
fn a_discard_larger_than_the_drive_is_skipped_unseen_or_trims_all_of_it() {
    let p = blkparse_fixture("mkfs.txt", &["8,0 0 1 0.0 100 D D 0 + 2097152 [mkfs]", "8,0 0 2 0.001 100 D W 0 + 8 [fio]"]);
    let drive = [ONE_DIE.as_slice(), &["workload.kind=trace", p.as_str(), "precondition.fill_fraction=1.0"]].concat();
    let skipped = run_preset("", &[drive.as_slice(), &["workload.trims=\"skip\""]].concat()).expect("skipped unseen");
    assert_eq!((skipped.workload.trims_skipped, skipped.host.writes, skipped.workload.wrapped_out_of_range), (1, 1, 0));
    let e = run_preset("", &drive).expect_err("a 1 GiB trim of a 28 MiB drive is most of the trace's bytes");
    assert!(e.contains("max_wrapped_fraction") && e.contains("reaches byte 1073741824"), "{e}");
    let applied = run_preset("", &[drive.as_slice(), &["workload.max_wrapped_fraction=1"]].concat()).expect("clipped");
    let pages = config("", &ONE_DIE).geometry.logical_pages as f64;
    assert_eq!(stat(&applied, "ssd.trim.pages_dropped"), Some(pages));
    assert_eq!(applied.workload.wrapped_out_of_range, 1);
    let e = run_preset("", &[drive.as_slice(), &["ssd.ftl.scheme=\"block_map\""]].concat()).expect_err("block map");
    assert!(e.contains("at `ssd.ftl.scheme`") && e.contains("workload.trims = \"skip\""), "{e}");
}

/// The trim counters restart with the drives' at the end of the warm-up:
/// the host's and the drive's figures describe the same trims.
#[test]
fn trims_in_the_warm_up_are_counted_by_neither_host_nor_drive() {
    let list = [(0, "T", 0, 8192), (1000, "W", 16_384, 4096), (10_000_000, "T", 16_384, 8192), (20_000_000, "W", 0, 4096)];
    let drive = [ONE_DIE.as_slice(), &["precondition.fill_fraction=1.0", "sim.warmup_requests=1"]].concat();
    let r = run(&drive, &list).expect("runs");
    assert_eq!(stat(&r, "host.trim.requests"), Some(1.0));
    assert_eq!(stat(&r, "host.trim.bytes"), Some(8192.0));
    assert_eq!(stat(&r, "ssd.trim.pages_dropped"), Some(2.0));
}

/// With a cached map (DFTL, one die: a translation page holds 1365
/// entries), a trim changes its entries through the cache as a write does:
/// 64 pages of translation page 0 cost one translation read (25 us sensing,
/// one 512-byte sector over the 40 MB/s channel), booked from the trim's
/// instant as the drive's own work; trimmed again, they are cached and
/// cost nothing. A read of page 2000 (translation page 1) just after the
/// first trim finds the die busy with that read, so its own translation
/// read, then its page, come 37.8 us later than without the trim.
#[test]
fn a_cached_map_changes_a_trims_entries_through_the_cache() {
    let dftl = [ONE_DIE.as_slice(), &["ssd.ftl.scheme=dftl", "ssd.ftl.cmt_bytes=400", "precondition.fill_fraction=1.0"]].concat();
    let r = run(&dftl, &[(0, "T", 0, 64 * 4096), (1_000_000, "T", 0, 64 * 4096)]).expect("runs");
    assert_eq!((stat(&r, "ssd.trim.pages_dropped"), stat(&r, "ssd.trim.pages_unmapped")), (Some(64.0), Some(64.0)));
    assert_eq!(r.devices[0].pages_read.get("map_read"), Some(&1));
    assert_eq!(r.devices[0].pages_written.get("map_write"), None);
    // Pages that hold nothing: each entry is looked up (one translation read
    // serves all 64) but none changes, so a cache of 2 entries evicts only
    // clean ones and writes nothing back.
    let fresh = [ONE_DIE.as_slice(), &["ssd.ftl.scheme=dftl", "ssd.ftl.cmt_bytes=8", "precondition.fill_fraction=0"]].concat();
    let r = run(&fresh, &[(0, "T", 0, 64 * 4096)]).expect("runs");
    assert_eq!((stat(&r, "ssd.trim.pages_dropped"), stat(&r, "ssd.trim.pages_unmapped")), (Some(0.0), Some(64.0)));
    assert_eq!(r.devices[0].pages_read.get("map_read"), Some(&1));
    assert_eq!(r.devices[0].pages_written.get("map_write"), None);
    let responses = |list: &[(u64, &str, u64, u64)]| {
        let reqs = requests(list);
        responses_in_arrival_order(&[dftl.as_slice(), &["workload.kind=requests", reqs.as_str()]].concat())
    };
    let translation_read = 25_000 + 12_800;
    let page_read = 25_000 + 102_400;
    assert_eq!(responses(&[(1, "R", 2000 * 4096, 4096)]), vec![translation_read + page_read]);
    assert_eq!(responses(&[(0, "T", 0, 64 * 4096), (1, "R", 2000 * 4096, 4096)]), vec![2 * translation_read + page_read - 1]);
}

/// A failed member with no spare is gone: a trim does not reach it, nor is
/// it counted as trimmed there. A RAID-1 of two whose second member failed
/// at the start trims ten pages on the first only.
#[test]
fn a_failed_member_without_a_spare_is_not_trimmed() {
    let o = [ONE_DIE.as_slice(), &["array.level=raid1", "array.members=2", "array.failures=[{member = 1, at_request = 0}]"]].concat();
    let r = run(&o, &[(0, "W", 0, 4096), (1_000_000, "T", 0, 10 * 4096)]).expect("runs");
    assert_eq!(r.trim.member_bytes, 10 * 4096);
    assert_eq!(stat(&r, "member[0].trim.pages_dropped").unwrap_or(0.0) + stat(&r, "member[0].trim.pages_unmapped").unwrap_or(0.0), 10.0);
    assert_eq!(stat(&r, "member[1].trim.pages_dropped"), None);
}

/// A trim issued during the warm-up but taken by the drive after it (it
/// waits behind reads at queue depth 1) is counted by neither the host nor
/// the drive; issued after it, by both.
#[test]
fn a_trim_is_counted_in_the_phase_it_was_issued_in() {
    let list = [(0, "R", 0, 4096), (0, "R", 4096, 4096), (0, "R", 8192, 4096), (0, "T", 65536, 8192)];
    let counts = |warmup: &str| {
        let r = run(&["precondition.fill_fraction=1.0", "ssd.queue_depth=1", warmup], &list).expect("runs");
        (r.trim.requests, stat(&r, "ssd.trim.pages_dropped").unwrap_or(0.0))
    };
    assert_eq!(counts("sim.warmup_requests=1"), (0, 0.0));
    assert_eq!(counts("sim.warmup_requests=0"), (1, 2.0));
}
