//! Unit tests of the drive: preconditioning plans, collection time, the bulk fill.

use super::PreconditionPlan;
use crate::config::PreconditionConfig;
use rand::SeedableRng;

#[test]
fn a_precondition_plan_fills_then_overwrites_at_random_then_in_order() {
    let cfg = PreconditionConfig { fill_fraction: 0.5, random_overwrite_factor: 0.4, sequential_overwrite_factor: 1.5 };
    let plan = PreconditionPlan::new(20, &cfg);
    assert_eq!(plan, PreconditionPlan { filled: 10, random_overwrites: 4, sequential_overwrites: 15, parts: Vec::new() });
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    let lpns: Vec<u64> = (0..plan.total()).map(|i| plan.lpn(i, &mut rng).expect("in range")).collect();
    assert_eq!(lpns[..10], (0..10).collect::<Vec<_>>()[..]);
    assert!(lpns[10..14].iter().all(|&l| l < 10));
    assert_eq!(lpns[14..], (0..10).chain(0..5).collect::<Vec<_>>()[..]);
}

/// A collection's time by hand: each copy two commands, a read and a
/// program at their pages' types, each sealed block its summary pages
/// (programmed at their own types), and each erase.
#[test]
fn a_collections_time_is_each_copy_at_its_pages_types() {
    let mut ssd = crate::config::SsdConfig::default();
    ssd.geometry.cell_type = crate::config::CellType::Tlc;
    ssd.geometry.pages_per_block = 16;
    ssd.ftl.summary_pages_per_block = 2; // pages 14 and 15: LSB
    let t = &mut ssd.timing;
    (t.t_read_ns, t.t_read_csb_ns, t.t_read_msb_ns) = (10, Some(20), Some(40));
    (t.t_program_ns, t.t_program_csb_ns, t.t_program_msb_ns) = (100, Some(200), Some(400));
    (t.t_command_ns, t.t_erase_ns, t.channel_bandwidth_bytes_per_s) = (1, 1_000, 512_000_000);
    let geometry = ssd.validate().expect("valid");
    let drive = super::Ssd::new(&ssd, &geometry);
    let gc = crate::ftl::GcWork {
        pages_copied: 6,
        blocks_erased: 2,
        summary_pages: 2,
        reads_by_type: [1, 2, 3, 0, 0],
        programs_by_type: [3, 2, 1, 0, 0],
        ..Default::default()
    };
    let copies = 6 * 2 + (10 + 2 * 20 + 3 * 40) + (3 * 100 + 2 * 200 + 400);
    let summary_block = 2 * (1 + 1_000 + 100); // command, 512 bytes at 512 MB/s, an LSB program
    assert_eq!(drive.gc_time(gc), copies + summary_block + 2 * (1 + 1_000));
}

/// A drive preconditioned by `precondition_writes` (in slices of
/// `slice` writes) and one written page by page by `precondition_write`.
fn both_paths(overrides: &[&str], slice: u64) -> (super::Ssd, super::Ssd) {
    let mut raw = crate::config::RawConfig::from_preset("disksim-ssd-validation").expect("preset");
    let settings = ["ssd.geometry.channels=2", "ssd.geometry.planes_per_die=4", "ssd.geometry.blocks_per_plane=32", "ssd.geometry.pages_per_block=8"];
    for o in settings.iter().chain(overrides).filter(|o| o.contains('=')) {
        raw.set(o).expect("override");
    }
    let resolved = raw.resolve().expect("valid");
    let crate::config::MemberConfig::Ssd { ssd, .. } = &resolved.members[0] else { panic!("an SSD") };
    let mut ssd = ssd.clone();
    // "mirroring": CR5M's last chip of each channel keeps copies (set by its array level, not a key).
    ssd.geometry.mirroring_chips_per_channel = u32::from(overrides.contains(&"mirroring"));
    let geometry = ssd.validate().expect("valid geometry");
    let (mut bulk, mut paged) = (super::Ssd::new(&ssd, &geometry), super::Ssd::new(&ssd, &geometry));
    let plan = bulk.precondition_plan(&resolved.config.precondition);
    assert!(plan.filled > 0);
    let seed = |s| rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(s);
    let (mut r1, mut r2) = (seed(7), seed(7));
    let mut at = 0;
    while at < plan.total() {
        let end = (at + slice).min(plan.total());
        bulk.precondition_writes(at..end, &plan, &mut r1).expect("bulk");
        at = end;
    }
    for i in 0..plan.total() {
        paged.precondition_write(i, &plan, &mut r2).expect("page by page");
    }
    (bulk, paged)
}

/// The bulk fill is an optimisation, not a model: it must leave every
/// map, block, plane and round-robin pointer as writing page by page does,
/// for each allocation, partial fills, slices that split the fill, and
/// overwrites (collection active) after it.
#[test]
fn the_bulk_fill_leaves_the_drive_as_page_by_page_writes_do() {
    let cases: [&[&str]; 7] = [
        &[],
        &["precondition.fill_fraction=0.37"],
        &["ssd.ftl.allocation=\"static\"", "ssd.ftl.static_order=\"PDWC\""],
        &["ssd.ftl.allocation=\"dynamic\"", "precondition.fill_fraction=0.8"],
        &["precondition.random_overwrite_factor=1.5"],
        &["ssd.ftl.summary_pages_per_block=0", "precondition.sequential_overwrite_factor=2"],
        &["ssd.geometry.chips_per_channel=3", "precondition.fill_fraction=0.9", "mirroring"],
    ];
    for (i, overrides) in cases.iter().enumerate() {
        for slice in [1, 5, 1 << 20] {
            let (bulk, paged) = both_paths(overrides, slice);
            let same = bulk.ftl().same_state_as(paged.ftl());
            assert_eq!(same, Ok(()), "case {i} {overrides:?}, slices of {slice}");
            assert_eq!(bulk.next_plane_in_die, paged.next_plane_in_die, "case {i}: round-robin pointers differ");
            bulk.ftl().check_invariants().expect("consistent maps");
        }
    }
}

/// The closed form holds for a fresh drive only: a second fill is an
/// internal error, not a drive silently rewritten as if empty.
#[test]
fn a_fill_asked_of_a_written_drive_is_an_internal_error() {
    let (mut bulk, _) = both_paths(&[], 1 << 20);
    let plan = PreconditionPlan { filled: 10, random_overwrites: 0, sequential_overwrites: 0, parts: Vec::new() };
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    let err = bulk.precondition_writes(0..10, &plan, &mut rng).expect_err("refused");
    assert!(matches!(err, crate::Error::Internal(ref m) if m.contains("already written")), "{err}");
}
