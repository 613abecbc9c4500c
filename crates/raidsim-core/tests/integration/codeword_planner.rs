//! EVENODD/RDP arrays: data lands where the geometry says, and exactly the
//! parity cells covering written cells are rewritten (issue #4).

use proptest::prelude::*;
use raidsim_codes::{structure, Code};
use raidsim_core::array::{ArrayGeometry, ArrayState, Planner};
use raidsim_core::config::{ArrayConfig, ErasureCode, ParityGranularity, ParityPlacement, RaidLevel};
use raidsim_core::device::{Cause, Op};
use std::collections::BTreeSet;

const PAGE: u64 = 4096;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn parity_rewritten_is_the_union_of_covers(
        evenodd in any::<bool>(), k in 2usize..7, unit_pages in 1u64..3, dedicated in any::<bool>(),
        off_pages in 0u64..400, len_pages in 1u64..80,
    ) {
        let (code, ec) = if evenodd { (Code::Evenodd, ErasureCode::Evenodd) } else { (Code::Rdp, ErasureCode::Rdp) };
        let cfg = ArrayConfig {
            level: RaidLevel::Raid6, members: k as u32 + 2, stripe_unit_bytes: unit_pages * PAGE, code: ec,
            parity_placement: if dedicated { ParityPlacement::Dedicated } else { ParityPlacement::Rotated },
            parity_granularity: ParityGranularity::Page, ..Default::default()
        };
        let st = structure(code, k, None).expect("structure");
        let geom = ArrayGeometry::new(&cfg, 1 << 26);
        let mut planner = Planner::new(&cfg, geom.clone(), PAGE).expect("planner");
        let mut plans = Vec::new();
        let (off, len) = (off_pages * PAGE, len_pages * PAGE);
        planner.plan(Op::Write, off, len, &ArrayState::new(cfg.members), &mut plans).expect("plans");
        let u = geom.unit_bytes;
        let cw_bytes = geom.stripe_data_bytes();
        for plan in &plans {
            let s = plan.stripe;
            // Written (cell, page within unit) of this codeword, from the logical addresses alone.
            let mut written = BTreeSet::new();
            let mut expect_data = BTreeSet::new();
            let mut b = off.max(s * cw_bytes);
            while b < (off + len).min((s + 1) * cw_bytes) {
                let unit = (b - s * cw_bytes) / u;
                let (row, col) = (unit as usize / k, unit as usize % k);
                let within = b % u;
                written.insert(((col, row), within / PAGE));
                expect_data.insert((geom.data_member(s, col as u32), geom.row_offset(s, row as u64) + within));
                b += PAGE;
            }
            let data: BTreeSet<(u32, u64)> = plan.writes.iter().filter(|o| o.cause == Cause::User)
                .flat_map(|o| (0..o.len_bytes / PAGE).map(move |i| (o.member, o.offset_bytes + i * PAGE))).collect();
            prop_assert_eq!(data, expect_data);
            let [pm, qm] = geom.parity_members(s);
            let mut expect_parity = BTreeSet::new();
            for ((pc, pr), cells) in &st.cover {
                let m = if *pc == k { pm } else { qm }.expect("parity member");
                for ((col, row), page) in &written {
                    if cells.contains(&(*col, *row)) {
                        expect_parity.insert((m, geom.row_offset(s, *pr as u64) + page * PAGE));
                    }
                }
            }
            let parity: BTreeSet<(u32, u64)> = plan.writes.iter().filter(|o| o.cause == Cause::Parity)
                .flat_map(|o| (0..o.len_bytes / PAGE).map(move |i| (o.member, o.offset_bytes + i * PAGE))).collect();
            prop_assert_eq!(parity, expect_parity);
        }
    }
}
