//! `raidsim verify`: random small scenarios, each run with `sim.verify`, to
//! show that no combination of level, code, geometry, parity policy,
//! workload, failures within tolerance and rebuild policy loses or corrupts
//! a byte.
//!
//! Case `i` of seed `S` is drawn from its own stream, so any case replays
//! alone from `(S, i)`, and its configuration is returned as TOML.

use crate::config::RawConfig;
use crate::error::Result;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

/// The outcome of one scenario.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CaseOutcome {
    /// Case index.
    pub case: u64,
    /// The scenario, as `--set` assignments (replay with `raidsim run`).
    pub overrides: Vec<String>,
    /// Sectors whose bytes differed from their last write.
    pub mismatches: u64,
    /// Data-loss events (a scenario stays within tolerance: expected 0).
    pub data_loss_events: u64,
    /// Sectors checked (host reads, and read back after the run).
    pub sectors_checked: u64,
    /// The first mismatches, described.
    pub first_mismatches: Vec<String>,
}

impl CaseOutcome {
    /// JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

/// Every tenth case is RAID inside one SSD ([`in_ssd_scenario`]).
const IN_SSD_EVERY: u64 = 10;

/// Diff-RAID parity shares for `members` members, in tenths, sevenths or
/// hundred-and-thirds (cycles of up to 103 stripes), summing to 1, some of
/// them 0 (a member holding no parity).
fn parity_shares(rng: &mut Xoshiro256PlusPlus, members: u32) -> String {
    let parts = *[10u32, 7, 103].choose(rng).unwrap_or(&10);
    let mut counts = vec![0u32; members as usize];
    for _ in 0..parts {
        // Skewed towards the first members, as Diff-RAID's assignments are.
        let m = rng.gen_range(0..members).min(rng.gen_range(0..members));
        counts[m as usize] += 1;
    }
    counts.iter().map(|c| format!("{:?}", f64::from(*c) / f64::from(parts))).collect::<Vec<_>>().join(", ")
}

/// Draws scenario `case` of `seed` as config assignments.
pub fn scenario(seed: u64, case: u64) -> Vec<String> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ case.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    if case % IN_SSD_EVERY == IN_SSD_EVERY - 1 {
        return in_ssd_scenario(&mut rng);
    }
    let levels = ["raid0", "raid1", "raid10", "raid4", "raid5", "raid6"];
    let level = *levels.choose(&mut rng).unwrap_or(&"raid5");
    let (min, max) = match level {
        "raid0" | "raid1" => (2, 4),
        "raid10" => (2, 6),
        "raid4" | "raid5" => (3, 7),
        _ => (4, 8),
    };
    let members: u32 = rng.gen_range(min..=max);
    let unit = *[4096u64, 8192, 16384].choose(&mut rng).unwrap_or(&4096);
    let mut o = vec![
        "ssd.geometry.channels=2".to_string(),
        "ssd.geometry.planes_per_die=1".into(),
        "ssd.geometry.blocks_per_plane=32".into(),
        "ssd.geometry.pages_per_block=16".into(),
        format!("array.level=\"{level}\""),
        format!("array.members={members}"),
        format!("array.stripe_unit_bytes={unit}"),
        "sim.verify=true".into(),
        format!("sim.seed={}", rng.gen::<u32>()),
    ];
    let tolerated = match level {
        "raid0" => 0,
        "raid1" => members - 1,
        "raid10" => {
            let copies = rng.gen_range(2..=members.min(3));
            o.push(format!("array.copies={copies}"));
            copies - 1
        }
        "raid6" => {
            o.push(format!("array.code=\"{}\"", ["rs", "evenodd", "rdp"].choose(&mut rng).unwrap_or(&"rs")));
            if rng.gen_bool(0.3) {
                o.push("array.parity_placement=\"dedicated\"".into());
            }
            2
        }
        _ => 1,
    };
    if ["raid4", "raid5", "raid6"].contains(&level) {
        o.push(format!("array.parity_granularity=\"{}\"", ["page", "whole_unit"].choose(&mut rng).unwrap_or(&"page")));
        o.push(format!("array.write_method=\"{}\"", ["auto", "rmw", "rcw"].choose(&mut rng).unwrap_or(&"auto")));
    }
    if level == "raid5" {
        o.push(format!(
            "array.layout=\"{}\"",
            ["left_symmetric", "left_asymmetric", "right_symmetric", "right_asymmetric"].choose(&mut rng).unwrap_or(&"left_symmetric")
        ));
        if rng.gen_bool(0.3) {
            o.push(format!("array.parity_distribution=[{}]", parity_shares(&mut rng, members)));
        }
    }
    o.push(format!("array.stripe_order=\"{}\"", ["parallel", "sequential"].choose(&mut rng).unwrap_or(&"parallel")));
    let requests: u64 = rng.gen_range(100..=400);
    // Most cases crowd their requests into the first MiBs so that writes
    // overwrite each other; a quarter address the whole array, so that its
    // last stripes are exercised too.
    let span = if rng.gen_bool(0.25) { 0 } else { rng.gen_range(1u64..=8) * 262_144 };
    if rng.gen_bool(0.2) {
        o.extend(flows_workload(&mut rng, requests, span));
    } else {
        o.push(format!("workload.requests={requests}"));
        o.push(format!("workload.read_fraction={:.2}", rng.gen_range(0.2..0.8)));
        o.push(format!("workload.mean_interarrival_ns={}", rng.gen_range(20_000..400_000)));
        o.push(format!("workload.span_bytes={span}"));
        o.push("workload.alignment_bytes=512".into());
        o.push("workload.size.kind=\"uniform\"".into());
        o.push("workload.size.min_bytes=512".into());
        o.push(format!("workload.size.max_bytes={}", 512 * rng.gen_range(1u64..=96)));
        o.push("workload.size.quantum_bytes=512".into());
    }
    // One or two failures within tolerance, at random requests; spares for some.
    let failures = rng.gen_range(0..=tolerated.min(2));
    let mut victims: Vec<u32> = (0..members).collect();
    victims.shuffle(&mut rng);
    let list: Vec<String> =
        victims.iter().take(failures as usize).map(|m| format!("{{member = {m}, at_request = {}}}", rng.gen_range(1..requests))).collect();
    if !list.is_empty() {
        o.push(format!("array.failures=[{}]", list.join(", ")));
        o.push(format!("array.spares={}", rng.gen_range(0..=failures)));
        o.push(format!("rebuild.policy=\"{}\"", ["dor", "sor"].choose(&mut rng).unwrap_or(&"dor")));
        o.push(format!("rebuild.buffer_stripes={}", rng.gen_range(1..=8)));
        if rng.gen_bool(0.3) {
            o.push(format!("rebuild.max_bytes_per_s={}", rng.gen_range(20_000_000u64..200_000_000)));
        }
    }
    flash_management(&mut rng, &mut o);
    // A quarter of the arrays' drives map by block, with FAST's log blocks
    // or without, in place of the page map's collection settings drawn above.
    if rng.gen_bool(0.25) {
        o.retain(|a| !FAST_REPLACES.iter().any(|key| a.starts_with(key)));
        if rng.gen_bool(0.7) {
            o.push("ssd.ftl.scheme=\"fast\"".into());
            o.push(format!("ssd.ftl.log_blocks_per_plane={}", rng.gen_range(1u32..=2)));
        } else {
            o.push("ssd.ftl.scheme=\"block_map\"".into());
        }
    }
    // Half the buffered drives keep pages rewritten soon in a cache of a few pages.
    if o.iter().any(|a| a.starts_with("ssd.write_buffer_bytes=")) && rng.gen_bool(0.5) {
        o.push(format!("ssd.write_cache.capacity_bytes={}", rng.gen_range(1u64..=8) * 4096));
        o.push(format!("ssd.write_cache.recent_ns={}", rng.gen_range(1u64..=2_000_000)));
    }
    // A third of the single workloads on page maps (in DRAM or cached) trim too.
    let page_map = !o.iter().any(|a| a == "ssd.ftl.scheme=\"fast\"" || a == "ssd.ftl.scheme=\"block_map\"");
    if page_map && o.iter().any(|a| a.starts_with("workload.read_fraction=")) && rng.gen_bool(0.33) {
        o.push(format!("workload.trim_fraction={:.2}", rng.gen_range(0.05..0.2)));
    }
    // A quarter of the page-mapped arrays' drives are TLC behind an SLC cache.
    if page_map && rng.gen_bool(0.25) {
        slc_cache(&mut rng, &mut o);
    }
    // Some drives have two planes a die, run side by side (drawn apart, so
    // that the draws above stay as they were).
    if rng.gen_bool(0.2) {
        o.retain(|a| !a.starts_with("ssd.parallel_unit=") && !a.starts_with("ssd.geometry.planes_per_die="));
        o.push("ssd.geometry.planes_per_die=2".into());
        o.push("ssd.parallel_unit=\"plane\"".into());
    }
    reads_first(&mut rng, &mut o);
    write_frontiers(&mut rng, &mut o);
    place_unwritten_reads(&mut rng, &mut o);
    yielding_gc(&mut rng, &mut o);
    o
}

/// A quarter of the page-mapped drives whose collection holds only its
/// unit (not behind an SLC cache) collect yielding to the host. Drawn last.
fn yielding_gc(rng: &mut Xoshiro256PlusPlus, o: &mut Vec<String>) {
    let refused = o.iter().any(|a| {
        a == "ssd.ftl.scheme=\"fast\""
            || a == "ssd.ftl.scheme=\"block_map\""
            || a.starts_with("ssd.slc_cache.")
            || a == "ssd.ftl.gc_holds=\"channel\""
    });
    if !refused && rng.gen_bool(0.25) {
        o.push("ssd.ftl.gc_hard_threshold_fraction=0.005".into());
    }
}

/// A quarter of the page-mapped drives (not behind an SLC cache) place
/// the pages never written that reads ask for, as MQSim does. Drawn last.
fn place_unwritten_reads(rng: &mut Xoshiro256PlusPlus, o: &mut Vec<String>) {
    let refused = o.iter().any(|a| {
        a == "ssd.ftl.scheme=\"fast\"" || a == "ssd.ftl.scheme=\"block_map\"" || a.starts_with("ssd.slc_cache.") || a == "array.level=\"cr5m\""
    });
    if !refused && rng.gen_bool(0.25) {
        o.push("ssd.ftl.place_unwritten_reads=true".into());
    }
}

/// Half the buffered drives that may let reads pass the programs their
/// buffer holds do (not with erase suspension, dynamic allocation or
/// mirroring chips, which refuse it), and some drives are SATA. Drawn
/// last, apart from the rest.
fn reads_first(rng: &mut Xoshiro256PlusPlus, o: &mut Vec<String>) {
    let has = |p: &str| o.iter().any(|a| a.starts_with(p));
    let refused = has("ssd.erase_suspend.ops=") || o.iter().any(|a| a == "ssd.ftl.allocation=\"dynamic\"" || a == "array.level=\"cr5m\"");
    if has("ssd.write_buffer_bytes=") && !refused && rng.gen_bool(0.5) {
        o.push("ssd.scheduling=\"reads_first\"".into());
        // Half of them have dies of two planes, whose waiting programs go
        // two at a time where their pages are at one offset.
        if rng.gen_bool(0.5) {
            o.retain(|a| !a.starts_with("ssd.geometry.planes_per_die=") && a != "ssd.parallel_unit=\"plane\"");
            o.push("ssd.geometry.planes_per_die=2".into());
            o.push("ssd.multi_plane_programs=true".into());
        }
        // Half of them issue a read once its unit is idle, as MQSim does.
        if rng.gen_bool(0.5) {
            o.push("ssd.command_issue=\"when_idle\"".into());
        }
    }
    // A fifth of the drives are SATA, behind an HBA of up to 50 us a command.
    if rng.gen_bool(0.2) {
        o.push(format!("ssd.timing.sata_hba_processing_ns={}", rng.gen_range(1u64..=50_000)));
    }
}

/// TLC drives with an SLC cache of a few 5-page blocks per plane (16-page
/// blocks, three bits per cell), folding as they fill or bypassing the
/// cache when full and folding while idle: folds move pages the byte
/// verifier follows.
fn slc_cache(rng: &mut Xoshiro256PlusPlus, o: &mut Vec<String>) {
    o.push("ssd.geometry.cell_type=\"tlc\"".into());
    o.push("ssd.geometry.over_provisioning_fraction=0.35".into());
    for (key, ns) in [("t_read_csb_ns", 40_000), ("t_read_msb_ns", 60_000), ("t_program_csb_ns", 400_000), ("t_program_msb_ns", 900_000)] {
        o.push(format!("ssd.timing.{key}={ns}"));
    }
    o.push(format!("ssd.slc_cache.blocks_per_plane={}", rng.gen_range(2u32..=6)));
    o.push("ssd.slc_cache.t_read_ns=20000".into());
    o.push("ssd.slc_cache.t_program_ns=150000".into());
    let copy_back = !o.iter().any(|a| a == "ssd.ftl.gc_copy_back=false");
    if copy_back && rng.gen_bool(0.6) {
        o.push(format!("ssd.slc_cache.idle_fold_after_ns={}", rng.gen_range(0u64..=2_000_000)));
        if rng.gen_bool(0.5) {
            o.push("ssd.slc_cache.when_full=\"bypass\"".into());
        }
    }
}

/// The page map's settings that the block-mapped schemes refuse.
const FAST_REPLACES: [&str; 6] = [
    "ssd.ftl.scheme=",
    "ssd.ftl.cmt_bytes=",
    "ssd.ftl.dynamic_wear_levelling=",
    "ssd.ftl.static_wear_levelling_threshold=",
    "ssd.ftl.gc_victim=",
    "ssd.ftl.gc_victim_sample=",
];

/// `cr5` or `cr5m` across the channels of one small SSD, with a chip
/// (in cr5m: data or mirroring) failing at a random request in most cases.
fn in_ssd_scenario(rng: &mut Xoshiro256PlusPlus) -> Vec<String> {
    let channels: u32 = rng.gen_range(3..=6);
    let chips: u32 = rng.gen_range(2..=4);
    let level = *["cr5", "cr5m"].choose(rng).unwrap_or(&"cr5m");
    let mut o = vec![
        format!("ssd.geometry.channels={channels}"),
        format!("ssd.geometry.chips_per_channel={chips}"),
        "ssd.geometry.planes_per_die=1".into(),
        "ssd.geometry.blocks_per_plane=32".into(),
        "ssd.geometry.pages_per_block=16".into(),
        format!("ssd.ftl.allocation=\"{}\"", ["dynamic", "static"].choose(rng).unwrap_or(&"dynamic")),
        format!("array.level=\"{level}\""),
        format!("array.mw_limit={:.1}", [0.0, 0.5, 1.1, 3.0].choose(rng).unwrap_or(&1.1)),
        format!("array.members={channels}"),
        format!("array.stripe_unit_bytes={}", if level == "cr5m" { 4096 } else { *[4096u64, 8192].choose(rng).unwrap_or(&4096) }),
        format!("array.layout=\"{}\"", ["left_asymmetric", "left_symmetric"].choose(rng).unwrap_or(&"left_asymmetric")),
        format!("array.write_method=\"{}\"", ["auto", "rmw", "rcw"].choose(rng).unwrap_or(&"auto")),
        format!("array.stripe_order=\"{}\"", ["parallel", "sequential"].choose(rng).unwrap_or(&"sequential")),
        "array.spare_chips_per_channel=1".into(),
        "sim.verify=true".into(),
        format!("sim.seed={}", rng.gen::<u32>()),
    ];
    let requests: u64 = rng.gen_range(100..=400);
    o.push(format!("workload.requests={requests}"));
    o.push(format!("workload.read_fraction={:.2}", rng.gen_range(0.2..0.8)));
    o.push(format!("workload.mean_interarrival_ns={}", rng.gen_range(20_000..400_000)));
    o.push(format!("workload.span_bytes={}", if rng.gen_bool(0.25) { 0 } else { rng.gen_range(1u64..=8) * 131_072 }));
    o.push("workload.alignment_bytes=512".into());
    o.push("workload.size.kind=\"uniform\"".into());
    o.push("workload.size.min_bytes=512".into());
    o.push(format!("workload.size.max_bytes={}", 512 * rng.gen_range(1u64..=64)));
    o.push("workload.size.quantum_bytes=512".into());
    if rng.gen_bool(0.8) {
        let (member, chip) = (rng.gen_range(0..channels), rng.gen_range(0..chips));
        o.push(format!("array.failures=[{{member = {member}, chip = {chip}, at_request = {}}}]", rng.gen_range(1..requests)));
        o.push(format!("rebuild.policy=\"{}\"", ["dor", "sor", "mcr"].choose(rng).unwrap_or(&"dor")));
        o.push(format!("rebuild.buffer_stripes={}", rng.gen_range(1..=8)));
    }
    flash_management(rng, &mut o);
    reads_first(rng, &mut o);
    write_frontiers(rng, &mut o);
    o
}

/// A third of the page-mapped drives give the host's pages, collection's
/// copies and translation pages each their own open block, or (with a
/// cached map) translation pages alone. Drawn last.
fn write_frontiers(rng: &mut Xoshiro256PlusPlus, o: &mut Vec<String>) {
    let block_mapped = o.iter().any(|a| a == "ssd.ftl.scheme=\"fast\"" || a == "ssd.ftl.scheme=\"block_map\"");
    if block_mapped || !rng.gen_bool(0.3) {
        return;
    }
    let dftl = o.iter().any(|a| a == "ssd.ftl.scheme=\"dftl\"");
    let dynamic = o.iter().any(|a| a == "ssd.ftl.allocation=\"dynamic\"");
    if dynamic && !dftl {
        return;
    }
    let apart = dftl && (dynamic || rng.gen_bool(0.5));
    o.push(format!("ssd.ftl.write_frontiers={:?}", if apart { "translation_apart" } else { "by_source" }));
    // Two open blocks apart need five spare blocks a plane: 6 of 32 at 20 %.
    if dftl && !apart && !o.iter().any(|a| a.starts_with("ssd.geometry.over_provisioning_fraction=")) {
        o.push("ssd.geometry.over_provisioning_fraction=0.2".into());
    }
}

/// What the SSD's controller does beside the array: what collection holds,
/// where the map lives, wear levelling, what runs one operation at a time,
/// the victim policy, where a read's command goes, a write buffer and
/// erase suspension. Drawn last, so that a scenario's other draws
/// stay those of earlier versions.
fn flash_management(rng: &mut Xoshiro256PlusPlus, o: &mut Vec<String>) {
    if rng.gen_bool(0.5) {
        o.push("ssd.ftl.gc_holds=\"channel\"".into());
        o.push(format!("ssd.ftl.gc_copy_back={}", rng.gen_bool(0.5)));
    }
    if rng.gen_bool(0.5) {
        // From a few entries to a few hundred: misses and write-backs on most
        // pages (inside one SSD, each of up to 6 channels caches a share).
        o.push("ssd.ftl.scheme=\"dftl\"".into());
        o.push(format!("ssd.ftl.cmt_bytes={}", rng.gen_range(1u64..=64) * 48));
    }
    if rng.gen_bool(0.5) {
        o.push("ssd.ftl.dynamic_wear_levelling=true".into());
        o.push(format!("ssd.ftl.static_wear_levelling_threshold={}", rng.gen_range(0u32..=4)));
    }
    let unit = ["die", "chip"][rng.gen_range(0..2)];
    o.push(format!("ssd.parallel_unit={unit:?}"));
    if rng.gen_bool(0.5) {
        o.push("ssd.ftl.gc_victim=\"random_greedy\"".into());
        o.push(format!("ssd.ftl.gc_victim_sample={}", rng.gen_range(1u32..=8)));
    }
    if rng.gen_bool(0.3) {
        // Reads whose command waits for the channel, as a die's data does.
        o.push(format!("ssd.timing.t_command_ns={}", rng.gen_range(1u64..=5_000)));
        o.push("ssd.timing.read_command_on_channel=true".into());
    }
    if rng.gen_bool(0.3) {
        // From one 4 KiB page up: writes acknowledged from DRAM, counted by page or by sector.
        o.push(format!("ssd.write_buffer_bytes={}", rng.gen_range(1u64..=16) * 4096));
        o.push(format!("ssd.write_buffer_slot_until={:?}", ["transferred", "programmed"][rng.gen_range(0..2)]));
        o.push(format!("ssd.write_buffer_unit={:?}", ["page", "sector"][rng.gen_range(0..2)]));
    }
    if rng.gen_bool(0.5) {
        // Thresholds from none to more than an erase: suspensions, waits and operations ahead of erases.
        o.push(format!("ssd.erase_suspend.ops={:?}", ["reads", "reads_and_writes"][rng.gen_range(0..2)]));
        o.push(format!("ssd.erase_suspend.latency_ns={}", rng.gen_range(0u64..=200_000)));
        o.push(format!("ssd.erase_suspend.read_min_remaining_ns={}", rng.gen_range(0u64..=2_000_000)));
    }
}

/// Runs scenario `case` of `seed` with verification; `fault` injects the
/// test-only broken parity update.
pub fn run_case(seed: u64, case: u64, fault: bool) -> Result<CaseOutcome> {
    let overrides = scenario(seed, case);
    let mut raw = RawConfig::new();
    for a in &overrides {
        raw.set(a)?;
    }
    let mut sim = crate::sim::Simulation::new(raw.resolve()?)?;
    if fault {
        sim.inject_fault_skip_rmw_parity()?;
    }
    sim.run()?;
    let report = sim.report();
    let v = report.verify.ok_or_else(|| crate::Error::Internal("sim.verify produced no verify report".into()))?;
    Ok(CaseOutcome {
        case,
        overrides,
        mismatches: v.mismatches,
        data_loss_events: report.rebuild.map_or(0, |r| r.data_loss_events.len() as u64),
        sectors_checked: v.sectors_checked_on_reads + v.sectors_checked_after_run + v.redundancy_checked_after_run,
        first_mismatches: v.first_mismatches,
    })
}

/// Two or three flows of `requests` in all over `span` bytes (0: all of
/// it), each open or closed loop, sharing the address space (so that their
/// writes meet in the same stripes) or each on its part, with or without a
/// fetch limit: their interleaving must leave the bytes as one stream would.
fn flows_workload(rng: &mut Xoshiro256PlusPlus, requests: u64, span: u64) -> Vec<String> {
    let n = rng.gen_range(2u64..=3);
    let shared = rng.gen_bool(0.6);
    let flows: Vec<String> = (0..n)
        .map(|_| {
            let closed = if rng.gen_bool(0.5) { format!("processes = {}, ", rng.gen_range(1..=8)) } else { String::new() };
            format!(
                "{{ requests = {}, {closed}read_fraction = {:.2}, mean_interarrival_ns = {}, span_bytes = {}, alignment_bytes = 512, \
                 size = {{ kind = \"uniform\", min_bytes = 512, max_bytes = {}, quantum_bytes = 512 }} }}",
                requests / n,
                rng.gen_range(0.2..0.8),
                rng.gen_range(20_000..400_000),
                if shared { span } else { 0 },
                512 * rng.gen_range(1u64..=96)
            )
        })
        .collect();
    vec![
        "workload.kind=\"flows\"".into(),
        format!("workload.flows=[{}]", flows.join(", ")),
        format!("workload.address_space=\"{}\"", if shared { "shared" } else { "partitioned" }),
        format!("workload.queue_fetch_size={}", rng.gen_range(0..=4)),
    ]
}
