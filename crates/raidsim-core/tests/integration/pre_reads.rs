//! Read-modify-write and reconstruct-write read exactly what recomputing
//! the parity needs, for every code: RAID-4/5's row parity, Reed–Solomon
//! P+Q, EVENODD and RDP.
//!
//! The oracle is the code's structure from `raidsim-codes` (each parity
//! cell with the data cells it covers) and the written cells, derived
//! from the request's logical addresses alone, page by page:
//! - the parity cells to rewrite are those covering a written cell;
//! - read-modify-write reads the old data of the written cells and the
//!   old parity cells it rewrites (new = old ⊕ Δ);
//! - reconstruct-write reads every data cell those parity cells cover that
//!   the request does not overwrite (new = encode of the whole cover);
//! - a write with nothing to reconstruct-read (a full stripe) reads
//!   nothing under any method;
//! - `auto` takes the method with fewer reads, ties to reconstruct-write.
//!
//! The planner is also a function of its arguments: planning reads the
//! array's state and never changes it; committing moves the round-robin
//! read cursor on by the reads that took it.

use proptest::prelude::*;
use raidsim_codes::{structure, Code};
use raidsim_core::array::{ArrayGeometry, ArrayState, Planner, StripePlan};
use raidsim_core::config::{ArrayConfig, ErasureCode, ParityGranularity, RaidLevel, ReadPolicy, WriteMethod};
use raidsim_core::device::{Cause, Op};
use std::collections::{BTreeMap, BTreeSet};

const PAGE: u64 = 4096;

/// (member, member byte offset of a page).
type Page = (u32, u64);

#[derive(Clone, Copy, Debug)]
enum Scheme {
    Raid4,
    Raid5,
    ReedSolomon,
    Evenodd,
    Rdp,
}

fn scheme() -> impl Strategy<Value = Scheme> {
    prop_oneof![Just(Scheme::Raid4), Just(Scheme::Raid5), Just(Scheme::ReedSolomon), Just(Scheme::Evenodd), Just(Scheme::Rdp)]
}

fn method() -> impl Strategy<Value = WriteMethod> {
    prop_oneof![Just(WriteMethod::Auto), Just(WriteMethod::Rmw), Just(WriteMethod::Rcw)]
}

fn config(scheme: Scheme, k: u32, unit_pages: u64, method: WriteMethod) -> (ArrayConfig, Code) {
    let (level, members, code, ec) = match scheme {
        Scheme::Raid4 => (RaidLevel::Raid4, k + 1, Code::Rs, ErasureCode::Rs),
        Scheme::Raid5 => (RaidLevel::Raid5, k + 1, Code::Rs, ErasureCode::Rs),
        Scheme::ReedSolomon => (RaidLevel::Raid6, k + 2, Code::Rs, ErasureCode::Rs),
        Scheme::Evenodd => (RaidLevel::Raid6, k + 2, Code::Evenodd, ErasureCode::Evenodd),
        Scheme::Rdp => (RaidLevel::Raid6, k + 2, Code::Rdp, ErasureCode::Rdp),
    };
    let cfg = ArrayConfig {
        level,
        members,
        code: ec,
        stripe_unit_bytes: unit_pages * PAGE,
        parity_granularity: ParityGranularity::Page,
        write_method: method,
        ..Default::default()
    };
    (cfg, code)
}

/// Pages of `plan` read for `cause`.
fn pages(plan: &StripePlan, cause: Cause) -> BTreeSet<Page> {
    let ops = plan.reads.iter().filter(|o| o.cause == cause);
    ops.flat_map(|o| (0..o.len_bytes / PAGE).map(move |i| (o.member, o.offset_bytes + i * PAGE))).collect()
}

/// The oracle's pre-reads of codeword `s` for a page-aligned write of
/// `[off, off + len)`: (read-modify-write's, reconstruct-write's) pages.
fn expected(
    geom: &ArrayGeometry,
    cover: &raidsim_codes::array_code::Cover,
    method: WriteMethod,
    s: u64,
    (off, len): (u64, u64),
) -> (BTreeSet<Page>, BTreeSet<Page>) {
    let (u, k) = (geom.unit_bytes, geom.data_units as usize);
    let cw = geom.stripe_data_bytes();
    // Written cells of the codeword, by page within the unit.
    let mut written: BTreeMap<u64, BTreeSet<(usize, usize)>> = BTreeMap::new();
    let mut b = off.max(s * cw);
    while b < (off + len).min((s + 1) * cw) {
        let unit = ((b - s * cw) / u) as usize;
        written.entry(b % u / PAGE).or_default().insert((unit % k, unit / k));
        b += PAGE;
    }
    let [pm, qm] = geom.parity_members(s);
    let data_page = |(col, row): (usize, usize), page: u64| (geom.data_member(s, col as u32), geom.row_offset(s, row as u64) + page * PAGE);
    let (mut rmw_all, mut rcw_all) = (BTreeSet::new(), BTreeSet::new());
    for (&page, cells) in &written {
        let rewritten: Vec<_> = cover.iter().filter(|(_, covered)| covered.iter().any(|c| cells.contains(c))).collect();
        let mut rmw: BTreeSet<Page> = cells.iter().map(|&c| data_page(c, page)).collect();
        let mut rcw = BTreeSet::new();
        for ((pc, pr), covered) in &rewritten {
            let m = if *pc == k { pm } else { qm }.expect("a parity member for every parity column");
            rmw.insert((m, geom.row_offset(s, *pr as u64) + page * PAGE));
            rcw.extend(covered.iter().filter(|c| !cells.contains(c)).map(|&c| data_page(c, page)));
        }
        let take_rmw = match method {
            _ if rcw.is_empty() => false,
            WriteMethod::Rmw => true,
            WriteMethod::Rcw => false,
            WriteMethod::Auto => rmw.len() < rcw.len(),
        };
        if take_rmw {
            rmw_all.extend(rmw);
        } else {
            rcw_all.extend(rcw);
        }
    }
    (rmw_all, rcw_all)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn pre_reads_are_what_recomputing_parity_needs(
        scheme in scheme(), method in method(), k in 2u32..7, unit_pages in 1u64..4,
        off_pages in 0u64..300, len_pages in 1u64..60,
    ) {
        let (cfg, code) = config(scheme, k, unit_pages, method);
        let geom = ArrayGeometry::new(&cfg, 1 << 26);
        let mut planner = Planner::new(&cfg, geom.clone(), PAGE).expect("planner");
        let mut st = structure(code, k as usize, None).expect("structure").cover;
        if matches!(scheme, Scheme::Raid4 | Scheme::Raid5) {
            st.truncate(1); // the row parity alone
        }
        let (off, len) = (off_pages * PAGE, len_pages * PAGE);
        prop_assume!(off + len <= geom.capacity_bytes());
        let mut plans = Vec::new();
        planner.plan(Op::Write, off, len, &ArrayState::new(cfg.members), &mut plans).expect("plans");
        for plan in &plans {
            let (rmw, rcw) = expected(&geom, &st, method, plan.stripe, (off, len));
            prop_assert_eq!(pages(plan, Cause::PreReadRmw), rmw, "stripe {}: read-modify-write pre-reads", plan.stripe);
            prop_assert_eq!(pages(plan, Cause::PreReadRcw), rcw, "stripe {}: reconstruct-write pre-reads", plan.stripe);
            let other = plan.reads.iter().filter(|o| !matches!(o.cause, Cause::PreReadRmw | Cause::PreReadRcw)).count();
            prop_assert_eq!(other, 0, "a healthy write reads nothing else");
        }
    }
}

/// Planning reads the state and leaves it as it was; the round-robin
/// cursor moves only when the caller commits the plans, by one per unit
/// read that took it.
#[test]
fn planning_leaves_the_state_alone_and_commit_moves_the_round_robin_cursor() {
    let cfg = ArrayConfig {
        level: RaidLevel::Raid1,
        members: 2,
        copies: 2,
        stripe_unit_bytes: PAGE,
        read_policy: ReadPolicy::RoundRobin,
        ..Default::default()
    };
    let geom = ArrayGeometry::new(&cfg, 1 << 24);
    let mut planner = Planner::new(&cfg, geom, PAGE).expect("planner");
    let mut state = ArrayState::new(cfg.members);
    let (mut first, mut again) = (Vec::new(), Vec::new());
    planner.plan(Op::Read, 0, 3 * PAGE, &state, &mut first).expect("plans");
    planner.plan(Op::Read, 0, 3 * PAGE, &state, &mut again).expect("plans");
    assert_eq!(first, again, "the same arguments give the same plans");
    assert_eq!(state.round_robin, 0, "planning did not move the cursor");
    let members: Vec<u32> = first.iter().flat_map(|p| p.reads.iter().map(|o| o.member)).collect();
    assert_eq!(members, [0, 1, 0], "three units, the copies in turn");
    state.commit(&first);
    assert_eq!(state.round_robin, 3);
    let mut next = Vec::new();
    planner.plan(Op::Read, 0, PAGE, &state, &mut next).expect("plans");
    assert_eq!(next[0].reads[0].member, 1, "the next request starts at the next copy");
}
