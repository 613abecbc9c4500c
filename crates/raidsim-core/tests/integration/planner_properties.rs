//! Planner properties on random requests (issue #3).

use proptest::prelude::*;
use raidsim_core::array::{ArrayGeometry, ArrayState, MemberOp, Planner, StripePlan};
use raidsim_core::config::{ArrayConfig, ParityGranularity, ParityLayout, RaidLevel, WriteMethod};
use raidsim_core::device::{Cause, Op};
use std::collections::BTreeSet;

const PAGE: u64 = 4096;
const SECTOR: u64 = 512;

fn level() -> impl Strategy<Value = RaidLevel> {
    prop_oneof![
        Just(RaidLevel::Raid0),
        Just(RaidLevel::Raid1),
        Just(RaidLevel::Raid10),
        Just(RaidLevel::Raid4),
        Just(RaidLevel::Raid5),
        Just(RaidLevel::Raid6)
    ]
}

fn layout() -> impl Strategy<Value = ParityLayout> {
    prop_oneof![
        Just(ParityLayout::LeftSymmetric),
        Just(ParityLayout::LeftAsymmetric),
        Just(ParityLayout::RightSymmetric),
        Just(ParityLayout::RightAsymmetric)
    ]
}

fn setup(level: RaidLevel, layout: ParityLayout, members: u32, unit_pages: u64, g: ParityGranularity, m: WriteMethod) -> (ArrayConfig, Planner) {
    let cfg = ArrayConfig {
        level,
        members,
        layout,
        copies: 2,
        stripe_unit_bytes: unit_pages * PAGE,
        parity_granularity: g,
        write_method: m,
        ..Default::default()
    };
    let geom = ArrayGeometry::new(&cfg, 1 << 24);
    (cfg.clone(), Planner::new(&cfg, geom, PAGE).expect("planner"))
}

fn plan(p: &mut Planner, op: Op, off: u64, len: u64, state: &ArrayState) -> Vec<StripePlan> {
    let mut out = Vec::new();
    p.plan(op, off, len, state, &mut out).expect("plans");
    out
}

/// Every (member, sector) that logical sectors [off, off+len) map to, per copy,
/// from the geometry alone.
fn expected_sectors(g: &ArrayGeometry, off: u64, len: u64) -> BTreeSet<(u32, u64)> {
    let w = g.stripe_data_bytes();
    let mut copies = Vec::new();
    let mut set = BTreeSet::new();
    let mut b = off / SECTOR * SECTOR;
    while b < off + len {
        let (s, d, within) = (b / w, ((b % w) / g.unit_bytes) as u32, b % g.unit_bytes);
        g.unit_copies(s, d, &mut copies);
        for c in &copies {
            set.insert((c.member, c.member_offset + within));
        }
        b += SECTOR;
    }
    set
}

fn sectors<'a>(ops: impl Iterator<Item = &'a MemberOp>) -> Vec<(u32, u64)> {
    let mut v = Vec::new();
    for o in ops {
        let mut b = o.offset_bytes;
        while b < o.offset_bytes + o.len_bytes {
            v.push((o.member, b));
            b += SECTOR;
        }
    }
    v.sort_unstable();
    v
}

fn members_for(level: RaidLevel, extra: u32) -> u32 {
    match level {
        RaidLevel::Raid6 => 4 + extra,
        RaidLevel::Raid10 => 2 + 2 * (extra / 2),
        _ => 2 + extra,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_written_byte_lands_once_per_copy(
        level in level(), layout in layout(), extra in 0u32..5, unit_pages in 1u64..5,
        off_sectors in 0u64..2000, len_sectors in 1u64..400, unit_gran in any::<bool>(),
    ) {
        let g = if unit_gran { ParityGranularity::WholeUnit } else { ParityGranularity::Page };
        let (cfg, mut p) = setup(level, layout, members_for(level, extra), unit_pages, g, WriteMethod::Auto);
        let state = ArrayState::new(cfg.members);
        let (off, len) = (off_sectors * SECTOR, len_sectors * SECTOR);
        let plans = plan(&mut p, Op::Write, off, len, &state);
        let data = sectors(plans.iter().flat_map(|pl| &pl.writes).filter(|o| matches!(o.cause, Cause::User | Cause::Mirror)));
        let expected: Vec<(u32, u64)> = expected_sectors(p.geometry(), off, len).into_iter().collect();
        prop_assert_eq!(data, expected);
    }

    #[test]
    fn exactly_the_parity_of_touched_rows_is_rewritten(
        level in prop_oneof![Just(RaidLevel::Raid4), Just(RaidLevel::Raid5), Just(RaidLevel::Raid6)],
        layout in layout(), extra in 0u32..4, unit_pages in 1u64..5,
        off_sectors in 0u64..2000, len_sectors in 1u64..400, unit_gran in any::<bool>(),
    ) {
        let g = if unit_gran { ParityGranularity::WholeUnit } else { ParityGranularity::Page };
        let (cfg, mut p) = setup(level, layout, members_for(level, extra), unit_pages, g, WriteMethod::Auto);
        let state = ArrayState::new(cfg.members);
        let (off, len) = (off_sectors * SECTOR, len_sectors * SECTOR);
        let plans = plan(&mut p, Op::Write, off, len, &state);
        let geom = p.geometry().clone();
        for pl in &plans {
            // Rows (unit-relative pages) touched by any data unit of this stripe.
            let base = pl.stripe * geom.stripe_data_bytes();
            let (lo, hi) = (off.max(base), (off + len).min(base + geom.stripe_data_bytes()));
            let mut rows = BTreeSet::new();
            let mut b = lo;
            while b < hi {
                rows.insert(((b - base) % geom.unit_bytes) / PAGE);
                b += SECTOR;
            }
            if unit_gran {
                rows = (0..unit_pages).collect();
            }
            for pm in geom.parity_members(pl.stripe).iter().flatten() {
                let written: Vec<u64> = sectors(pl.writes.iter().filter(|o| o.cause == Cause::Parity && o.member == *pm))
                    .into_iter().map(|(_, s)| s).collect();
                let expect: Vec<u64> = rows.iter().flat_map(|r| {
                    let start = pl.stripe * geom.unit_bytes + r * PAGE;
                    (0..PAGE / SECTOR).map(move |i| start + i * SECTOR)
                }).collect();
                prop_assert_eq!(written, expect);
            }
        }
    }

    #[test]
    fn the_chosen_method_has_the_fewest_pre_reads(
        level in prop_oneof![Just(RaidLevel::Raid4), Just(RaidLevel::Raid5), Just(RaidLevel::Raid6)],
        layout in layout(), extra in 0u32..4, unit_pages in 1u64..5,
        off_sectors in 0u64..2000, len_sectors in 1u64..400, unit_gran in any::<bool>(),
    ) {
        let g = if unit_gran { ParityGranularity::WholeUnit } else { ParityGranularity::Page };
        let members = members_for(level, extra);
        let pre_reads = |m: WriteMethod| {
            let (cfg, mut p) = setup(level, layout, members, unit_pages, g, m);
            let state = ArrayState::new(cfg.members);
            let plans = plan(&mut p, Op::Write, off_sectors * SECTOR, len_sectors * SECTOR, &state);
            plans.iter().map(|pl| raidsim_core::array::pages_touched_sum(&pl.reads, PAGE)).collect::<Vec<u64>>()
        };
        let (auto, rmw, rcw) = (pre_reads(WriteMethod::Auto), pre_reads(WriteMethod::Rmw), pre_reads(WriteMethod::Rcw));
        for i in 0..auto.len() {
            prop_assert!(auto[i] <= rmw[i].min(rcw[i]), "stripe {}: auto {} rmw {} rcw {}", i, auto[i], rmw[i], rcw[i]);
        }
    }

    #[test]
    fn degraded_reads_touch_exactly_the_survivors_needed(
        layout in layout(), extra in 0u32..4, unit_pages in 1u64..5, failed_pick in 0u32..8,
        off_sectors in 0u64..2000, len_sectors in 1u64..400,
    ) {
        let members = 3 + extra;
        let failed = failed_pick % members;
        let (cfg, mut p) = setup(RaidLevel::Raid5, layout, members, unit_pages, ParityGranularity::Page, WriteMethod::Auto);
        let mut state = ArrayState::new(cfg.members);
        state.failed[failed as usize] = true;
        let (off, len) = (off_sectors * SECTOR, len_sectors * SECTOR);
        let plans = plan(&mut p, Op::Read, off, len, &state);
        let geom = p.geometry().clone();
        for pl in &plans {
            prop_assert!(pl.reads.iter().all(|o| o.member != failed), "the failed member is never read");
            // Rows of the lost unit that the request reads.
            let base = pl.stripe * geom.stripe_data_bytes();
            let (lo, hi) = (off.max(base), (off + len).min(base + geom.stripe_data_bytes()));
            let mut lost_rows = BTreeSet::new();
            let mut b = lo;
            while b < hi {
                let d = ((b - base) / geom.unit_bytes) as u32;
                if geom.data_member(pl.stripe, d) == failed {
                    lost_rows.insert(((b - base) % geom.unit_bytes) / PAGE);
                }
                b += SECTOR;
            }
            let degraded: BTreeSet<(u32, u64)> = sectors(pl.reads.iter().filter(|o| o.cause == Cause::DegradedRead))
                .into_iter().map(|(m, s)| (m, (s % geom.unit_bytes) / PAGE)).collect();
            let user: BTreeSet<(u32, u64)> = sectors(pl.reads.iter().filter(|o| o.cause == Cause::User))
                .into_iter().map(|(m, s)| (m, (s % geom.unit_bytes) / PAGE)).collect();
            // Every survivor of the stripe supplies each lost row exactly once
            // (read for the user already, or read as a degraded read), and
            // degraded reads touch no other row.
            for m in (0..members).filter(|&m| m != failed) {
                for r in &lost_rows {
                    prop_assert!(degraded.contains(&(m, *r)) ^ user.contains(&(m, *r)), "member {m} row {r}");
                }
            }
            prop_assert!(degraded.iter().all(|(_, r)| lost_rows.contains(r)));
        }
    }
}

/// The planner's one-cell path (a request inside one data unit of a
/// healthy row-parity array) must give exactly the plans of the general
/// routine, for every level, layout, granularity and method: the general
/// routine is the oracle, and each request is planned twice.
mod one_cell_path {
    use super::*;

    fn method() -> impl Strategy<Value = WriteMethod> {
        prop_oneof![Just(WriteMethod::Auto), Just(WriteMethod::Rmw), Just(WriteMethod::Rcw)]
    }

    fn granularity() -> impl Strategy<Value = ParityGranularity> {
        prop_oneof![Just(ParityGranularity::Page), Just(ParityGranularity::WholeUnit), Just(ParityGranularity::Disksim)]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn gives_the_general_routines_plans(
            level in level(), layout in layout(), extra in 0u32..5, unit_pages in 1u64..5,
            g in granularity(), m in method(), write in any::<bool>(), failed_pick in 0u32..12,
            off_sectors in 0u64..4000, len_sectors in 1u64..40, page_aligned in any::<bool>(),
        ) {
            let members = members_for(level, extra);
            let (cfg, mut fast) = setup(level, layout, members, unit_pages, g, m);
            let (_, mut general) = setup(level, layout, members, unit_pages, g, m);
            general.general_only = true;
            let mut state = ArrayState::new(cfg.members);
            // A quarter of the cases with one member failed (the path must step aside).
            if failed_pick < members && failed_pick % 4 == 0 {
                state.failed[failed_pick as usize] = true;
            }
            let (off, len) = if page_aligned {
                (off_sectors / 8 * PAGE, len_sectors.div_ceil(8).min(4) * PAGE)
            } else {
                (off_sectors * SECTOR, len_sectors * SECTOR)
            };
            let op = if write { Op::Write } else { Op::Read };
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let (ra, rb) = (fast.plan(op, off, len, &state, &mut a), general.plan(op, off, len, &state, &mut b));
            prop_assert_eq!(ra.is_ok(), rb.is_ok());
            prop_assert_eq!(a, b);
            prop_assert_eq!(general.one_cell_plans, 0);
        }
    }

    /// The path is taken where it should be: a 4 KiB write and read on a
    /// healthy RAID-5 and RAID-6, and not for a write across two units, a
    /// partial page, whole-unit granularity or a degraded array.
    #[test]
    fn is_taken_for_small_requests_on_healthy_row_parity_arrays() {
        for level in [RaidLevel::Raid5, RaidLevel::Raid6] {
            let members = members_for(level, 1);
            let (cfg, mut p) = setup(level, ParityLayout::LeftSymmetric, members, 4, ParityGranularity::Page, WriteMethod::Auto);
            let mut state = ArrayState::new(cfg.members);
            let mut out = Vec::new();
            for (op, off, len, taken) in [
                (Op::Write, 3 * PAGE, PAGE, true),
                (Op::Read, 5 * PAGE + SECTOR, SECTOR, true),
                (Op::Write, 3 * PAGE, 2 * PAGE, false),
                (Op::Write, PAGE + SECTOR, SECTOR, false),
            ] {
                let before = p.one_cell_plans;
                p.plan(op, off, len, &state, &mut out).expect("plans");
                assert_eq!(p.one_cell_plans - before, u64::from(taken), "{level:?} {op:?} [{off}, +{len})");
            }
            state.failed[0] = true;
            let before = p.one_cell_plans;
            p.plan(Op::Write, 3 * PAGE, PAGE, &state, &mut out).expect("plans");
            assert_eq!(p.one_cell_plans, before, "{level:?}: degraded");
            let (_, mut whole) = setup(level, ParityLayout::LeftSymmetric, members, 4, ParityGranularity::WholeUnit, WriteMethod::Auto);
            whole.plan(Op::Write, 3 * PAGE, PAGE, &ArrayState::new(members), &mut out).expect("plans");
            assert_eq!(whole.one_cell_plans, 0, "{level:?}: whole-unit granularity");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// `home_of` (where the simulation prefetches a request's map entries
    /// from) names the member and byte the planner reads a one-sector read
    /// from, and the stripe's parity members: the planner is the oracle.
    #[test]
    fn home_of_names_where_the_planner_reads(
        level in prop_oneof![Just(RaidLevel::Raid0), Just(RaidLevel::Raid4), Just(RaidLevel::Raid5), Just(RaidLevel::Raid6)],
        layout in layout(), extra in 0u32..5, unit_pages in 1u64..5, off_sectors in 0u64..20_000,
    ) {
        let (cfg, mut p) = setup(level, layout, members_for(level, extra), unit_pages, ParityGranularity::Page, WriteMethod::Auto);
        let off = off_sectors * SECTOR;
        let plans = plan(&mut p, Op::Read, off, SECTOR, &ArrayState::new(cfg.members));
        let read = plans[0].reads[0];
        let (member, at, parity) = p.home_of(off).expect("a striped level");
        prop_assert_eq!((member, at), (read.member, read.offset_bytes));
        prop_assert_eq!(parity, p.geometry().parity_members(plans[0].stripe));
        prop_assert!(p.home_of(p.geometry().capacity_bytes()).is_none());
    }
}

#[test]
fn home_of_is_none_for_mirrors_and_multi_row_codewords() {
    for level in [RaidLevel::Raid1, RaidLevel::Raid10] {
        let (_, p) = setup(level, ParityLayout::LeftSymmetric, 4, 2, ParityGranularity::Page, WriteMethod::Auto);
        assert!(p.home_of(0).is_none(), "{level:?}");
    }
    let cfg = ArrayConfig {
        level: RaidLevel::Raid6,
        members: 7,
        code: raidsim_core::config::ErasureCode::Evenodd,
        prime: 5,
        stripe_unit_bytes: PAGE,
        ..Default::default()
    };
    let geom = ArrayGeometry::new(&cfg, 1 << 24);
    assert!(Planner::new(&cfg, geom, PAGE).expect("planner").home_of(0).is_none());
}
