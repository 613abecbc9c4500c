//! Counting mode: the planner without timing, for exact page counts.

use super::planner::{pages_touched, ArrayState, Planner, StripePlan};
use crate::device::{Cause, Op};
use crate::error::Result;
use serde::Serialize;
use std::collections::BTreeMap;

/// Pages one member reads and writes, by cause.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemberPages {
    /// Pages read, by cause.
    pub pages_read: [u64; Cause::COUNT],
    /// Pages written, by cause.
    pub pages_written: [u64; Cause::COUNT],
}

/// The JSON shape of one member's counts.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MemberPagesReport {
    /// Member index.
    pub member: u32,
    /// Pages read by cause (zero causes omitted).
    pub pages_read: BTreeMap<&'static str, u64>,
    /// Pages written by cause.
    pub pages_written: BTreeMap<&'static str, u64>,
}

impl MemberPages {
    /// Adds the pages of every operation of `plan`.
    pub fn add_plan(members: &mut [MemberPages], plan: &StripePlan, page_bytes: u64) {
        for op in plan.reads.iter().chain(&plan.writes) {
            let pages = pages_touched(op.offset_bytes, op.len_bytes, page_bytes);
            let m = &mut members[op.member as usize];
            match op.op {
                Op::Read => m.pages_read[op.cause.index()] += pages,
                Op::Write => m.pages_written[op.cause.index()] += pages,
            }
        }
    }

    /// The JSON shape.
    pub fn report(&self, member: u32) -> MemberPagesReport {
        MemberPagesReport { member, pages_read: Cause::nonzero_by_name(&self.pages_read), pages_written: Cause::nonzero_by_name(&self.pages_written) }
    }
}

/// Plans every `(op, offset, len)` and returns each member's page counts.
pub fn count_pages(
    planner: &mut Planner,
    state: &mut ArrayState,
    page_bytes: u64,
    requests: impl IntoIterator<Item = Result<(Op, u64, u64)>>,
) -> Result<Vec<MemberPages>> {
    let mut members = vec![MemberPages::default(); planner.geometry().members as usize];
    let mut plans = Vec::new();
    for r in requests {
        let (op, offset, len) = r?;
        plans.clear();
        planner.plan(op, offset, len, state, &mut plans)?;
        state.commit(&plans);
        for plan in &plans {
            MemberPages::add_plan(&mut members, plan, page_bytes);
        }
    }
    Ok(members)
}
