//! DiskSim's parity rule (`array.parity_granularity = "disksim"`, issue #7
//! item 3) and the full-stripe fix of `write_method = "rmw"` (item 4), worked
//! by hand on RAID-4 4+1 (members 0-3 data, 4 parity; rmwpoint =
//! floor(0.5 × 5) = 2) with 4 KiB pages.

use raidsim_core::array::{count_pages, ArrayGeometry, ArrayState, Planner};
use raidsim_core::config::{ArrayConfig, ParityGranularity, RaidLevel, WriteMethod};
use raidsim_core::device::{Cause, Op};

const KIB: u64 = 1024;

struct Counts {
    extra_reads: Vec<u64>,
    writes: Vec<u64>,
    parity_writes: u64,
}

fn count(cfg: ArrayConfig, requests: &[(u64, u64)]) -> Counts {
    let geom = ArrayGeometry::new(&cfg, 1 << 30);
    let mut planner = Planner::new(&cfg, geom, 4096).expect("planner");
    let mut state = ArrayState::new(cfg.members);
    let reqs = requests.iter().map(|&(o, l)| Ok((Op::Write, o, l)));
    let m = count_pages(&mut planner, &mut state, 4096, reqs).expect("plans");
    Counts {
        extra_reads: m.iter().map(|p| p.pages_read[Cause::PreReadRmw.index()] + p.pages_read[Cause::PreReadRcw.index()]).collect(),
        writes: m.iter().map(|p| p.pages_written.iter().sum()).collect(),
        parity_writes: m.iter().map(|p| p.pages_written[Cause::Parity.index()]).sum(),
    }
}

fn raid4(unit: u64, g: ParityGranularity) -> ArrayConfig {
    ArrayConfig { level: RaidLevel::Raid4, members: 5, stripe_unit_bytes: unit, parity_granularity: g, ..Default::default() }
}

#[test]
fn disksim_single_page_write_into_128k_unit_touches_one_page_of_data_and_parity() {
    let c = count(raid4(128 * KIB, ParityGranularity::Disksim), &[(0, 4 * KIB)]);
    // One written unit < rmwpoint 2: read-modify-write over the 4 KiB extent.
    assert_eq!(c.extra_reads, [1, 0, 0, 0, 1]);
    assert_eq!(c.writes, [1, 0, 0, 0, 1]);
    // The whole-unit model reads and rewrites the whole 32-page unit.
    let w = count(raid4(128 * KIB, ParityGranularity::WholeUnit), &[(0, 4 * KIB)]);
    assert_eq!(w.parity_writes, 32);
}

#[test]
fn disksim_write_spanning_two_rows_uses_each_rows_own_extent() {
    // 16 KiB units, 64 KiB of data per row. [56, 68) KiB: row 0 writes
    // unit 3 bytes [8, 16) KiB; row 1 writes unit 0 bytes [0, 4) KiB. Each
    // row writes one unit (< 2): RMW over [8, 16) KiB and [0, 4) KiB.
    let c = count(raid4(16 * KIB, ParityGranularity::Disksim), &[(56 * KIB, 12 * KIB)]);
    assert_eq!(c.extra_reads, [1, 0, 0, 2, 3]);
    assert_eq!(c.writes, [1, 0, 0, 2, 3]);
}

#[test]
fn disksim_row_at_exactly_rmwpoint_units_is_reconstruct_write() {
    // [8, 24) KiB: unit 0 bytes [8, 16), unit 1 bytes [0, 8): two units =
    // rmwpoint, so reconstruct-write over the extent [0, 16) KiB: the
    // uncovered halves of units 0 and 1 and the whole of units 2 and 3.
    let c = count(raid4(16 * KIB, ParityGranularity::Disksim), &[(8 * KIB, 16 * KIB)]);
    assert_eq!(c.extra_reads, [2, 2, 4, 4, 0]);
    assert_eq!(c.writes, [2, 2, 0, 0, 4]);
    // One more unit needed for RCW (rmwpoint 3): read-modify-write instead,
    // reading the written ranges and the old parity over the extent.
    let cfg = ArrayConfig { rmw_threshold_fraction: 0.6, ..raid4(16 * KIB, ParityGranularity::Disksim) };
    let c = count(cfg, &[(8 * KIB, 16 * KIB)]);
    assert_eq!(c.extra_reads, [2, 2, 0, 0, 4]);
    assert_eq!(c.writes, [2, 2, 0, 0, 4]);
}

#[test]
fn disksim_forced_method_overrides_the_threshold() {
    let cfg = ArrayConfig { write_method: WriteMethod::Rcw, ..raid4(16 * KIB, ParityGranularity::Disksim) };
    let c = count(cfg, &[(0, 4 * KIB)]);
    // RCW over the extent [0, 4) KiB: the first page of units 1-3.
    assert_eq!(c.extra_reads, [0, 1, 1, 1, 0]);
}

#[test]
fn rmw_full_stripe_write_needs_no_pre_read() {
    for g in [ParityGranularity::Page, ParityGranularity::WholeUnit, ParityGranularity::Disksim] {
        for method in [WriteMethod::Rmw, WriteMethod::Rcw, WriteMethod::Auto] {
            let cfg = ArrayConfig { write_method: method, ..raid4(4 * KIB, g) };
            let c = count(cfg, &[(0, 16 * KIB)]);
            assert_eq!(c.extra_reads, [0, 0, 0, 0, 0], "{g:?} {method:?}");
            assert_eq!(c.writes, [1, 1, 1, 1, 1], "{g:?} {method:?}");
        }
    }
}

#[test]
fn disksim_rule_is_refused_for_evenodd_codewords() {
    let cfg = ArrayConfig {
        level: RaidLevel::Raid6,
        members: 6,
        code: raidsim_core::config::ErasureCode::Evenodd,
        parity_granularity: ParityGranularity::Disksim,
        ..Default::default()
    };
    let err = cfg.validate().expect_err("EVENODD has no rows").to_string();
    assert!(err.contains("parity_granularity"), "{err}");
}

#[test]
fn disksim_small_write_across_a_unit_boundary_is_two_groups() {
    // [12, 20) KiB on 16 KiB units: unit 0 bytes [12, 16), unit 1 bytes
    // [0, 4). The ranges do not overlap (12 > 4), so DiskSim plans each unit
    // as its own one-unit group: two read-modify-writes, parity rewritten
    // over [12, 16) and [0, 4) KiB only.
    let c = count(raid4(16 * KIB, ParityGranularity::Disksim), &[(12 * KIB, 8 * KIB)]);
    assert_eq!(c.extra_reads, [1, 1, 0, 0, 2]);
    assert_eq!(c.writes, [1, 1, 0, 0, 2]);
}

#[test]
fn disksim_row_with_every_unit_touched_counts_as_full() {
    // [8, 56) KiB: unit 0 from 8 KiB, units 1-2 whole, unit 3 up to 8 KiB.
    // Every unit is touched, so DiskSim reads nothing and writes parity
    // over the whole unit (md's page rule would read the uncovered halves).
    let c = count(raid4(16 * KIB, ParityGranularity::Disksim), &[(8 * KIB, 48 * KIB)]);
    assert_eq!(c.extra_reads, [0, 0, 0, 0, 0]);
    assert_eq!(c.writes, [2, 4, 4, 2, 4]);
    let md = count(raid4(16 * KIB, ParityGranularity::Page), &[(8 * KIB, 48 * KIB)]);
    assert_eq!(md.extra_reads.iter().sum::<u64>(), 4);
}

#[test]
fn disksim_two_data_units_split_before_counting_the_row_full() {
    // RAID-5 of 3 (two data units per row), 16 KiB units, [12, 20) KiB:
    // both data units are touched, yet DiskSim splits them first (12 > 4),
    // so each is its own group: with rmwpoint floor(1.0 × 3) = 3 each is
    // read-modify-write (written range and old parity), parity over
    // [12, 16) and [0, 4) KiB only. Row 0's parity is on member 2
    // (left-symmetric), its data on members 0 and 1.
    let cfg = ArrayConfig {
        level: RaidLevel::Raid5,
        members: 3,
        stripe_unit_bytes: 16 * KIB,
        parity_granularity: ParityGranularity::Disksim,
        rmw_threshold_fraction: 1.0,
        ..Default::default()
    };
    let c = count(cfg, &[(12 * KIB, 8 * KIB)]);
    assert_eq!(c.extra_reads, [1, 1, 2]);
    assert_eq!(c.parity_writes, 2);
}
