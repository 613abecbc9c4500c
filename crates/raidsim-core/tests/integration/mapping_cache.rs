//! The cached map (`ssd.ftl.scheme = "dftl"`) by hand count, on one die of
//! one plane (`ONE_DIE`): 64 blocks of 64 pages of 4 KiB, 4096 pages, so a
//! cached entry takes ⌈(2·12 + 8) / 8⌉ = 4 bytes and a translation page
//! holds 4096 / ⌈(12 + 8) / 8⌉ = 1365 entries (MQSim's sizes).

use crate::common;

use common::{config, ONE_DIE};
use raidsim_core::report::Report;
use raidsim_core::simulate;

const X: u64 = 102_400; // 4 KiB over a 40 MB/s channel
const SECTOR: u64 = 12_800; // 512 B over it: a translation read moves one sector
const T_READ: u64 = 25_000;
const T_PROG: u64 = 200_000;
const ENTRIES_PER_TRANSLATION_PAGE: u64 = 1365;

/// Runs `requests` (instant, op, logical page) with a cache of `cmt_entries` 4-byte entries.
fn run(requests: &[(u64, &str, u64)], cmt_entries: u64, extra: &[&str]) -> Report {
    let list: Vec<String> = requests.iter().map(|(t, op, page)| format!("[{t}, \"{op}\", {}, 4096]", page * 4096)).collect();
    let req = format!("workload.requests=[{}]", list.join(", "));
    let cmt = format!("ssd.ftl.cmt_bytes={}", cmt_entries * 4);
    let mut o: Vec<&str> = ONE_DIE.to_vec();
    o.extend(["ssd.ftl.scheme=dftl", cmt.as_str(), "workload.kind=requests", req.as_str()]);
    o.extend_from_slice(extra);
    simulate(config("", &o)).expect("runs")
}

fn stat(r: &Report, path: &str) -> f64 {
    r.stats.iter().find(|s| s.path == path).unwrap_or_else(|| panic!("no stat {path}")).value
}

fn map_pages(r: &Report) -> (u64, u64) {
    let d = &r.devices[0];
    (d.pages_read.get("map_read").copied().unwrap_or(0), d.pages_written.get("map_write").copied().unwrap_or(0))
}

/// Two channels of one die each: static allocation puts even pages (and
/// translation page 0, whose mapping id 2 × 3072 + 0 is even) on channel 0, odd
/// ones on channel 1. 8192 pages: an entry takes ⌈(2·13 + 8) / 8⌉ = 5 bytes.
#[test]
fn a_miss_costs_one_translation_read_before_the_data_and_a_hit_nothing() {
    let o = ["precondition.fill_fraction=1.0", "ssd.geometry.channels=2", "ssd.ftl.cmt_bytes=10"];
    let r = run(&[(0, "R", 1), (10_000_000, "R", 1)], 2, &o);
    // The miss senses translation page 0 on die 0 and moves one sector;
    // only then may die 1 sense the data page and move it.
    let miss = T_READ + SECTOR + T_READ + X;
    assert_eq!(r.host.read_response.max_ns, miss);
    assert_eq!(r.host.read_response.mean_ns, (miss + T_READ + X) as f64 / 2.0);
    assert_eq!(map_pages(&r), (1, 0));
    assert_eq!((stat(&r, "ssd.ftl.cmt.hits"), stat(&r, "ssd.ftl.cmt.misses"), stat(&r, "ssd.ftl.cmt.hit_ratio")), (1.0, 1.0, 0.5));
}

#[test]
fn the_pages_of_one_request_share_one_translation_read() {
    let o = ["precondition.fill_fraction=1.0", "workload.requests=[[0, \"R\", 0, 32768]]"];
    let r = run(&[], 16, &o);
    // Eight pages, eight misses, all in translation page 0: one read.
    assert_eq!(map_pages(&r), (1, 0));
    assert_eq!(stat(&r, "ssd.ftl.cmt.misses"), 8.0);
}

/// A lookup of an entry whose translation read is still under way waits
/// for it, although the entry is cached: the two channels of the test
/// above; two reads of page 1 at once.
#[test]
fn an_entry_being_read_is_known_only_when_its_read_ends() {
    let o = [
        "precondition.fill_fraction=1.0",
        "ssd.geometry.channels=2",
        "ssd.ftl.cmt_bytes=10",
        "workload.requests=[[0, \"R\", 4096, 512], [0, \"R\", 4096, 512]]",
    ];
    let r = run(&[], 2, &o);
    // Translation read on die 0 until T_READ + SECTOR; the first data read on
    // die 1 then moves its sector; the second follows it.
    let first = T_READ + SECTOR + T_READ + SECTOR;
    assert_eq!(r.host.read_response.max_ns, first + T_READ + SECTOR);
    // The second lookup finds the entry not yet known: a miss, as MQSim
    // counts it, though it reads nothing more.
    assert_eq!((stat(&r, "ssd.ftl.cmt.hits"), stat(&r, "ssd.ftl.cmt.misses")), (0.0, 2.0));
    assert_eq!(r.devices[0].pages_read.get("map_read"), Some(&1));
}

/// Under `reads_first` a read whose entry is being read is not yet at its
/// chip: a buffered program that becomes ready there meanwhile begins, and
/// the read, once its entry is known, waits for it (MQSim's chip, idle,
/// starts the program). The two channels of the tests above: page 3 is
/// read at 0 (a miss: the translation read on die 0, then its data on die
/// 1), so its entry is cached; page 5 is read at 200 us (a miss again); at
/// 201 us page 3 is written (a hit), and its program, on die 1, is ready.
#[test]
fn a_read_waiting_for_its_entry_waits_for_a_program_begun_meanwhile() {
    const P: u64 = X + T_PROG;
    let requests = [(0, "R", 3), (200_000, "R", 5), (201_000, "W", 3)];
    let o = ["precondition.fill_fraction=1.0", "ssd.geometry.channels=2", "ssd.ftl.cmt_bytes=10", "ssd.write_buffer_bytes=16384"];
    let first = T_READ + SECTOR + T_READ + X;
    let reads = |extra: &[&str]| {
        let mut all = o.to_vec();
        all.extend_from_slice(extra);
        run(&requests, 2, &all)
    };
    let r = reads(&["ssd.scheduling=\"reads_first\""]);
    // The program holds die 1 from 201 us to 201 us + P; then page 5 is sensed and sent.
    let waited = 1_000 + P + T_READ + X;
    assert_eq!(r.host.read_response.max_ns, waited);
    assert_eq!(r.host.read_response.mean_ns, (first + waited) as f64 / 2.0);
    assert_eq!(stat(&r, "ssd.ftl.cmt.page_reads_waited"), 2.0);
    // In arrival order the read, booked when it came, holds die 1 from its
    // entry on, and the program waits for it.
    let r = reads(&[]);
    assert_eq!(r.host.read_response.max_ns, first);
    assert!(r.stats.iter().all(|s| s.path != "ssd.ftl.cmt.page_reads_waited"));
}

/// The drive of the test above, its requests in arrival order with their responses.
fn responses_reads_first(requests: &[(u64, &str, u64)], cmt_entries: u64, extra: &[&str]) -> Vec<u64> {
    let list: Vec<String> = requests.iter().map(|(t, op, page)| format!("[{t}, \"{op}\", {}, 4096]", page * 4096)).collect();
    let req = format!("workload.requests=[{}]", list.join(", "));
    let cmt = format!("ssd.ftl.cmt_bytes={}", cmt_entries * 5);
    let mut o: Vec<&str> = ONE_DIE.to_vec();
    o.extend(["ssd.ftl.scheme=dftl", cmt.as_str(), "workload.kind=requests", req.as_str(), "precondition.fill_fraction=1.0"]);
    o.extend(["ssd.geometry.channels=2", "ssd.write_buffer_bytes=16384", "ssd.scheduling=\"reads_first\""]);
    o.extend_from_slice(extra);
    common::responses_in_arrival_order(&o)
}

/// A command that reaches the drive after a waiting read's entry is known
/// books the programs due before it only after that read: behind a SATA
/// HBA of 50 us (H), the read of page 5 reaches the drive at 1.05 ms, its
/// entry is known at K = 1.05 ms + R + S; the write of page 3 reaches it at
/// 1.10 ms, after K, so the read goes first: K + R + X + H - 1 ms, whether
/// or not a read of page 4 (the other die) comes in between.
#[test]
fn a_command_arriving_later_books_a_waiting_read_before_the_programs_after_its_entry() {
    let hba = ["ssd.timing.sata_hba_processing_ns=50000"];
    let base = [(0, "R", 3), (1_000_000, "R", 5), (1_040_000, "W", 3)];
    let read_5 = 50_000 + T_READ + SECTOR + T_READ + X + 50_000;
    assert_eq!(responses_reads_first(&base, 2, &hba)[1], read_5);
    let with_read_4 = [(0, "R", 3), (1_000_000, "R", 5), (1_040_000, "W", 3), (1_050_000, "R", 4)];
    assert_eq!(responses_reads_first(&with_read_4, 2, &hba)[1], read_5);
}

/// A write short of room books the waiting programs that free it, but a
/// read whose entry is known before one of them begins goes first: page 3
/// and 7's programs wait from 1.03 ms (the first begins at once), page 5's
/// entry is known at 1.0378 ms, so its read waits for page 3's program
/// only, with or without a write larger than the buffer at 1.035 ms.
#[test]
fn a_write_short_of_room_books_a_waiting_read_before_the_programs_after_its_entry() {
    const P: u64 = X + T_PROG;
    let base = [(0, "R", 3), (0, "R", 7), (1_000_000, "R", 5), (1_030_000, "W", 3), (1_030_000, "W", 7)];
    let read_5 = 30_000 + P + T_READ + X;
    assert_eq!(responses_reads_first(&base, 20, &[])[2], read_5);
    let big = "workload.requests=[[0, \"R\", 12288, 4096], [0, \"R\", 28672, 4096], [1000000, \"R\", 20480, 4096], \
               [1030000, \"W\", 12288, 4096], [1030000, \"W\", 28672, 4096], [1035000, \"W\", 163840, 32768]]";
    assert_eq!(responses_reads_first(&base, 20, &[big])[2], read_5);
}

/// The counters restart after the warm-up: the read counted then is a hit.
#[test]
fn reads_waited_during_the_warm_up_are_not_counted() {
    let o = ["ssd.write_buffer_bytes=16384", "ssd.scheduling=\"reads_first\"", "sim.warmup_requests=2", "precondition.fill_fraction=1.0"];
    let r = run(&[(0, "R", 0), (1_000_000, "R", 2000), (2_000_000, "R", 0)], 8, &o);
    assert_eq!((stat(&r, "ssd.ftl.cmt.misses"), stat(&r, "ssd.ftl.cmt.page_reads_waited")), (0.0, 0.0));
    assert_eq!(stat(&r, "ssd.ftl.cmt.hits"), 1.0);
}

#[test]
fn the_whole_map_is_on_flash_from_the_start() {
    // A fresh drive: the page read was never written, yet its entry's translation page is read first.
    let r = run(&[(0, "R", 0)], 2, &[]);
    assert_eq!(r.host.read_response.max_ns, T_READ + SECTOR + T_READ + X);
    assert_eq!(map_pages(&r), (1, 0));
}

#[test]
fn evicting_a_changed_entry_reads_and_programs_its_translation_page() {
    let other = ENTRIES_PER_TRANSLATION_PAGE; // the first entry of translation page 1
    let r = run(&[(0, "W", 0), (10_000_000, "W", other)], 1, &["precondition.fill_fraction=1.0"]);
    // Two misses read their translation pages; the second evicts page 0's
    // changed entry: its translation page is read to merge, and programmed.
    assert_eq!(map_pages(&r), (3, 1));
    // Flash pages written per host page: the two writes and the write-back.
    assert_eq!(r.devices[0].write_amplification, 1.5);
    // The evicting write waits for its own translation read, not for the
    // write-back booked after it: sense, one sector, its page in, program.
    assert_eq!(r.host.write_response.max_ns, T_READ + SECTOR + X + T_PROG);
}

#[test]
fn a_clean_eviction_writes_nothing_back() {
    let other = ENTRIES_PER_TRANSLATION_PAGE;
    let r = run(&[(0, "R", 0), (10_000_000, "R", other), (20_000_000, "R", 0)], 1, &["precondition.fill_fraction=1.0"]);
    assert_eq!(map_pages(&r), (3, 0));
}

#[test]
fn the_page_map_in_dram_reads_no_translation_page() {
    let r = simulate(config(
        "",
        &[ONE_DIE.as_slice(), &["workload.kind=requests", "workload.requests=[[0, \"R\", 0, 4096]]", "precondition.fill_fraction=1.0"]].concat(),
    ))
    .expect("runs");
    assert_eq!(r.host.read_response.max_ns, T_READ + X);
    assert!(!r.stats.iter().any(|s| s.path.starts_with("ssd.ftl.cmt")));
}

#[test]
fn each_scheme_refuses_the_others_setting() {
    let e = common::refused(&["ssd.ftl.scheme=dftl"]);
    assert!(e.contains("ssd.ftl.cmt_bytes"), "{e}");
    let e = common::refused(&["ssd.ftl.cmt_bytes=65536"]);
    assert!(e.contains("ssd.ftl.cmt_bytes") && e.contains("dftl"), "{e}");
}

/// RAID inside one SSD simulates each channel as a drive of its own: the
/// drive's cache is shared out, each channel caching its share.
/// Switching a DFTL preset back to the page map drops the preset's cache
/// size, on the command line and in a file built on the preset; asking for
/// both, in one file or one by one, is still refused.
#[test]
fn the_page_map_over_a_dftl_preset_drops_its_cache_size() {
    let r = config("mqsim-default", &["ssd.ftl.scheme=page_map"]);
    assert_eq!(r.config.ssd.ftl.scheme, raidsim_core::config::FtlScheme::PageMap);
    assert_eq!(r.config.ssd.ftl.cmt_bytes, None);
    let file = "base_preset = \"mqsim-default\"\n[ssd.ftl]\nscheme = \"page_map\"\n";
    let raw = raidsim_core::config::RawConfig::from_toml_str(file, "study.toml").expect("parses");
    assert_eq!(raw.resolve().expect("valid").config.ssd.ftl.cmt_bytes, None);
    let mut raw = raidsim_core::config::RawConfig::from_preset("mqsim-default").expect("preset");
    raw.set("ssd.ftl.cmt_bytes=4096").expect("set");
    raw.set("ssd.ftl.scheme=dftl").expect("set");
    assert_eq!(raw.resolve().expect("valid").config.ssd.ftl.cmt_bytes, Some(4096), "the scheme it serves keeps it");
    // Both set one by one contradict each other, in either order.
    for pair in [["ssd.ftl.scheme=page_map", "ssd.ftl.cmt_bytes=4096"], ["ssd.ftl.cmt_bytes=4096", "ssd.ftl.scheme=page_map"]] {
        let mut raw = raidsim_core::config::RawConfig::from_preset("mqsim-default").expect("preset");
        pair.iter().for_each(|o| raw.set(o).expect("set"));
        let e = raw.resolve().expect_err("refused").to_string();
        assert!(e.contains("cmt_bytes"), "{pair:?}: {e}");
    }
    // No write buffer over the preset's drops its buffer settings too.
    let r = config("mqsim-default", &["ssd.write_buffer_bytes=0"]);
    assert_eq!(r.config.ssd.write_buffer_unit, raidsim_core::config::BufferUnit::Page);
    assert_eq!(r.config.ssd.scheduling, raidsim_core::config::FlashScheduling::ArrivalOrder);
    assert!(!r.config.ssd.multi_plane_programs, "multi-plane programs gather waiting programs, which need a buffer");
    // Arrival order drops the multi-plane programs that only waiting programs make.
    assert!(!config("mqsim-default", &["ssd.scheduling=arrival_order"]).config.ssd.multi_plane_programs);
    assert!(config("mqsim-default", &[]).config.ssd.multi_plane_programs);
    // Open blocks by source belong to the page-mapped schemes: a base that
    // sets them loses them under a block map, and both set are refused.
    use raidsim_core::config::{RawConfig, WriteFrontiers};
    assert_eq!(config("mqsim-default", &[]).config.ssd.ftl.write_frontiers, WriteFrontiers::TranslationApart);
    // The page map over it has no translation pages to keep apart.
    assert_eq!(config("mqsim-default", &["ssd.ftl.scheme=page_map"]).config.ssd.ftl.write_frontiers, WriteFrontiers::Shared);
    let e = crate::common::refused(&["ssd.ftl.write_frontiers=\"translation_apart\""]);
    assert!(e.contains("ssd.ftl.write_frontiers") && e.contains("dftl"), "{e}");
    let base = "[ssd.ftl]\nwrite_frontiers = \"by_source\"\n";
    let mut raw = RawConfig::from_toml_str(base, "base.toml").expect("parses");
    raw.merge(&RawConfig::from_toml_str("[ssd.ftl]\nscheme = \"block_map\"\n", "layer.toml").expect("parses"));
    assert_eq!(raw.resolve().expect("valid").config.ssd.ftl.write_frontiers, WriteFrontiers::Shared);
    let e = crate::common::refused(&["ssd.ftl.write_frontiers=\"by_source\"", "ssd.ftl.scheme=\"block_map\""]);
    assert!(e.contains("ssd.ftl.write_frontiers") && e.contains("page_map"), "{e}");
}

/// A member's own entry that maps by page over a DFTL or FAST `[ssd]`
/// drops the cache size or log blocks it inherits; the other members keep them.
#[test]
fn a_page_map_member_of_a_dftl_or_fast_array_drops_what_it_inherits() {
    use raidsim_core::config::{FtlScheme, MemberConfig};
    let member = "array.member_ssd=[{}, {ftl = {scheme = \"page_map\"}}]";
    for (scheme, setting) in [("dftl", "ssd.ftl.cmt_bytes=65536"), ("fast", "ssd.ftl.log_blocks_per_plane=4")] {
        let scheme_key = format!("ssd.ftl.scheme={scheme}");
        let c = config("", &["array.level=raid1", "array.members=2", scheme_key.as_str(), setting, member]);
        let ssds: Vec<_> = c.members.iter().map(|m| if let MemberConfig::Ssd { ssd, .. } = m { ssd.ftl.clone() } else { panic!("an SSD") }).collect();
        assert_ne!(ssds[0].scheme, FtlScheme::PageMap, "{scheme}");
        assert!(ssds[0].cmt_bytes.is_some() || ssds[0].log_blocks_per_plane.is_some(), "{scheme}: member 0 keeps its setting");
        assert_eq!((ssds[1].scheme, ssds[1].cmt_bytes, ssds[1].log_blocks_per_plane), (FtlScheme::PageMap, None, None), "{scheme}");
    }
}

/// The drive of MQSim's fast18 experiments is its default drive with the
/// map in DRAM and a DRAM four times as fast with twice the burst: nothing
/// else differs (with no translation pages, none are kept apart, and no
/// cached map starts warm).
#[test]
fn mqsims_fast18_drive_is_its_default_with_the_ideal_map_and_a_faster_dram() {
    use raidsim_core::config::WriteFrontiers;
    let (default, fast18) = (config("mqsim-default", &[]).config.ssd, config("mqsim-fast18", &[]).config.ssd);
    assert_eq!((fast18.ftl.scheme, fast18.ftl.cmt_bytes), (raidsim_core::config::FtlScheme::PageMap, None));
    assert_eq!((default.ftl.write_frontiers, fast18.ftl.write_frontiers), (WriteFrontiers::TranslationApart, WriteFrontiers::Shared));
    // MQSim's estimate_dram_access_time: tRCD + tCL + 4096 B / 2 B a burst / 2 x (1e9 / 400e6) ns.
    assert_eq!(fast18.timing.firmware_write_page_ns, 13 + 13 + 4096 / 2 / 2 * 25 / 10);
    assert!(default.ftl.cmt_starts_warm && !fast18.ftl.cmt_starts_warm);
    let mut same = fast18.clone();
    (same.ftl.scheme, same.ftl.cmt_bytes, same.ftl.cmt_starts_warm, same.ftl.write_frontiers, same.timing.firmware_write_page_ns) =
        (default.ftl.scheme, default.ftl.cmt_bytes, default.ftl.cmt_starts_warm, default.ftl.write_frontiers, default.timing.firmware_write_page_ns);
    assert_eq!(same, default);
}

#[test]
fn the_channels_of_one_drive_share_its_cache() {
    let c = config("cr5-ssd1", &["ssd.ftl.scheme=dftl", "ssd.ftl.cmt_bytes=4096"]);
    let channels = u64::from(c.config.ssd.geometry.channels);
    assert!(channels > 1 && c.members.len() as u64 == channels);
    for m in &c.members {
        let raidsim_core::config::MemberConfig::Ssd { ssd, .. } = m else { panic!("an SSD channel") };
        assert_eq!(ssd.ftl.cmt_bytes, Some(4096 / channels));
    }
    let e = common::refused(&["array.level=cr5", "array.members=4", "ssd.geometry.channels=4", "ssd.ftl.scheme=dftl", "ssd.ftl.cmt_bytes=12"]);
    assert!(e.contains("ssd.ftl.cmt_bytes") && e.contains("cmt_bytes / 4"), "{e}");
}

/// `ssd.ftl.cmt_starts_warm`: preconditioning leaves the cached map full
/// of clean entries of pages it wrote (MQSim's preconditioning).
#[test]
fn a_cache_that_starts_warm_holds_entries_of_written_pages_only() {
    // Pages 0-1759 written in order (fill 0.5 of the 3520 logical pages
    // the 4096 physical ones leave); a cache of 4096 entries takes every
    // written page's entry: a read of page 7 hits, one of page 3000 (never
    // written) misses and adds its own.
    let half = ["precondition.fill_fraction=0.5"];
    let warm = [half[0], "ssd.ftl.cmt_starts_warm=true"];
    let reads = [(0, "R", 7), (1_000_000, "R", 3000)];
    let r = run(&reads, 4096, &warm);
    assert_eq!((stat(&r, "ssd.ftl.cmt.hits"), stat(&r, "ssd.ftl.cmt.misses")), (1.0, 1.0));
    assert_eq!(stat(&r, "ssd.ftl.cmt.entries"), 1761.0);
    assert_eq!(map_pages(&r), (1, 0));
    let cold = run(&reads, 4096, &half);
    assert_eq!((stat(&cold, "ssd.ftl.cmt.hits"), stat(&cold, "ssd.ftl.cmt.misses"), stat(&cold, "ssd.ftl.cmt.entries")), (0.0, 2.0, 2.0));
    // A cache of 100 entries takes 100 of the 1760 written; a miss then
    // evicts one for its own: 100 at the end.
    let small = run(&[(0, "R", 3000)], 100, &warm);
    assert_eq!(stat(&small, "ssd.ftl.cmt.entries"), 100.0);
    // The draw is seeded: a run repeats itself; another seed draws others.
    let again = |seed: &str| {
        let many: Vec<(u64, &str, u64)> = (0..200).map(|i| (i * 1_000_000, "R", i * 7 % 1760)).collect();
        stat(&run(&many, 100, &[warm[0], warm[1], seed]), "ssd.ftl.cmt.hits")
    };
    assert_eq!(again("sim.seed=1"), again("sim.seed=1"));
    assert_ne!(again("sim.seed=1"), again("sim.seed=2"));
    let e = common::refused(&["ssd.ftl.cmt_starts_warm=true"]);
    assert!(e.contains("ssd.ftl.cmt_starts_warm") && e.contains("dftl"), "{e}");
}

#[test]
fn warming_one_drives_cache_ages_no_other_drive_differently() {
    // RAID-0 of two aged one-die drives, member 1 mapping by page: whether
    // member 0's cache starts warm changes nothing on member 1 (the warm
    // draw has its own stream, not the preconditioning's).
    let go = |warm: &str| {
        let mut o: Vec<&str> = ONE_DIE.to_vec();
        o.extend([
            "array.level=raid0",
            "array.members=2",
            "precondition.fill_fraction=1.0",
            "precondition.random_overwrite_factor=1.0",
            "ssd.ftl.scheme=dftl",
            "ssd.ftl.cmt_bytes=2000",
            "array.member_ssd=[{}, {ftl={scheme=\"page_map\"}}]",
            "workload.requests=3000",
            "workload.read_fraction=0",
            warm,
        ]);
        let r = simulate(config("", &o)).expect("runs");
        (r.devices[1].erases, r.devices[1].pages_written.get("gc_write").copied())
    };
    assert_eq!(go("ssd.ftl.cmt_starts_warm=true"), go("ssd.ftl.cmt_starts_warm=false"));
}

#[test]
fn a_cache_to_start_warm_on_a_drive_with_nothing_written_is_said() {
    let said = |fill: &str| {
        let r = run(&[(0, "R", 7)], 4096, &[fill, "ssd.ftl.cmt_starts_warm=true"]);
        r.warnings.iter().any(|w| w.contains("ssd.ftl.cmt_starts_warm") && w.contains("fill_fraction"))
    };
    assert!(said("precondition.fill_fraction=0"));
    assert!(!said("precondition.fill_fraction=0.5"));
    let cold = run(&[(0, "R", 7)], 4096, &["precondition.fill_fraction=0"]);
    assert!(!cold.warnings.iter().any(|w| w.contains("cmt_starts_warm")), "{:?}", cold.warnings);
}

/// A trim takes its turn behind the commands queued before it, so its
/// translation reads never pass their work. Queue depth 1: a write of page
/// 14 (acknowledged from DRAM), reads of pages 10 and 14 at 20 and 40 us,
/// and at 80 us a trim of pages 15-16, whose entries miss the cache.
/// Behind a SATA HBA of 12.8 us (H) the write's entry is known at
/// E = H + R + S; page 10's read runs from E to E + R + X; page 14's
/// program waits for it and begins then, at 178 us. Page 14's read reaches
/// the drive when page 10's completion is taken in, 190.8 us, after the
/// program began, so it reads the flash once the program ends:
/// E + R + X + (X + P) + R + X + H − 40 us. Without an HBA, page 10's read
/// ends at 165.2 us, page 14's read comes then, as its program would
/// begin, and reads the page from DRAM: 125.2 us. Had the trim gone
/// first, its translation read would have held the program back.
#[test]
fn a_trim_waits_behind_the_commands_queued_before_it() {
    let requests = |trim: bool| {
        let mut l = vec!["[0, \"W\", 57344, 4096]", "[20000, \"R\", 40960, 4096]", "[40000, \"R\", 57344, 4096]", "[60000, \"R\", 6860800, 4096]"];
        if trim {
            l.push("[80000, \"T\", 61440, 8192]");
        }
        format!("workload.requests=[{}]", l.join(", "))
    };
    let read_14 = |trim: bool, hba: &str| {
        let req = requests(trim);
        let o = ["workload.kind=requests", &req, "precondition.fill_fraction=1.0", "ssd.geometry.channels=2", "ssd.queue_depth=1"];
        let o = [
            &ONE_DIE[..],
            &o,
            &["ssd.write_buffer_bytes=16384", "ssd.scheduling=\"reads_first\"", "ssd.ftl.scheme=dftl", "ssd.ftl.cmt_bytes=20", hba],
        ]
        .concat();
        common::responses_in_arrival_order(&o)[2]
    };
    const H: u64 = 12_800;
    let e = H + T_READ + SECTOR;
    let behind_hba = e + T_READ + X + (X + T_PROG) + T_READ + X + H - 40_000;
    let hba = "ssd.timing.sata_hba_processing_ns=12800";
    assert_eq!((read_14(false, hba), read_14(true, hba)), (behind_hba, behind_hba));
    let nvme = "ssd.timing.sata_hba_processing_ns=0";
    assert_eq!((read_14(false, nvme), read_14(true, nvme)), (125_200, 125_200));
}
