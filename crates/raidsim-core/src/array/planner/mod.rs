//! The array planner: a pure function from a host request, the geometry and
//! the array state to phases of member operations, each tagged with its cause.
//!
//! A write is split per stripe. Each stripe is served as a full-stripe
//! write (no pre-read), a reconstruct-write (read the data units not being
//! overwritten) or a read-modify-write (read the old data being overwritten
//! and the old parity), whichever needs fewer pre-reads, ties to
//! reconstruct-write (Linux md's rule, and the CR5M paper's); a policy can
//! force one (Rajaei Salmasi et al. 2013, §3 and §4.1; Chen & Lee 1995,
//! §2.2). The decision is taken per row of pages across the stripe (Linux md
//! decides per 4 KiB `stripe_head`), per stripe over whole stripe units (the
//! stripe-unit paper's analysis), or by DiskSim's rule (a threshold on the
//! number of written units, parity I/O over the row's written extent; see
//! [`ParityGranularity::Disksim`]). Counts are in pages; a partly covered
//! page counts whole, and reconstruct-write reads it first.
//!
//! Every parity level is planned by one routine from its code's structure
//! (DESIGN.md, "Codes are described by structure"): for each parity cell,
//! the data cells it covers. RAID-4/5's parity and Reed–Solomon's P and Q
//! cover their whole row; EVENODD's and RDP's cells come from
//! `raidsim-codes`, over codewords of p − 1 rows of units filled row by row.
//! For a set of written cells the routine derives the parity cells to
//! rewrite, the read-modify-write and reconstruct-write pre-reads, and (with
//! failed members) the cells a degraded read or write needs.
//!
//! Phase 1 holds every read (pre-reads, user reads, degraded reads), issued
//! together; phase 2 every write. With failed members, a method whose reads
//! would touch a failed member is not used; when neither is possible the
//! stripe is rebuilt from all survivors (`degraded_read`) before writing.
//! A lost unit is read back from its row (one data member lost, row parity
//! alive) or from every survivor of its codeword.

mod compute_ops;
mod disksim_rule;
mod plan;
mod reconstruction;

pub use plan::{ArrayState, ComputeWork, MemberOp, PlanOptions, StripePlan, StripeSet};

use crate::config::{ArrayConfig, ParityGranularity, ReadPolicy, WriteMethod};
use crate::config::{ArrayGeometry, UnitCopy};
use crate::device::{Cause, Op};
use crate::error::{Error, Result};

/// Written byte range of one data unit, unit-relative.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    lo: u64,
    hi: u64,
}

impl Span {
    fn is_empty(self) -> bool {
        self.lo >= self.hi
    }
}

/// Plans requests for one array; keeps scratch space so planning does not allocate per unit.
pub struct Planner {
    geom: ArrayGeometry,
    page_bytes: u64,
    /// The array's configured write method and parity granularity, used
    /// by [`Planner::plan`]; [`Planner::plan_reusing`] takes them as an argument.
    options: PlanOptions,
    /// DiskSim's `rmwpoint`: written units below which a row is read-modify-write.
    rmwpoint: u32,
    read_policy: ReadPolicy,
    spans: Vec<Span>,
    /// Member of each data unit of the stripe being planned (computed once per stripe).
    data_members: Vec<u32>,
    /// P and Q members of the stripe being planned.
    parity_members: [Option<u32>; 2],
    copies: Vec<UnitCopy>,
    breaks: Vec<u64>,
    /// Each parity cell (0 = row parity, 1 = second parity; row) with the
    /// data cells (`row × k + column`) it covers: the code's structure, the
    /// one description every parity level is planned from.
    cover: Option<Vec<(usize, u64, Vec<usize>)>>,
    /// Scratch: data cells to pre-read, parity cells to rewrite.
    need_data: Vec<bool>,
    need_parity: Vec<bool>,
    /// Test-only fault: read-modify-write plans write no parity.
    #[doc(hidden)]
    pub fault_skip_rmw_parity: bool,
    /// Test-only: plan every request by the general routine (the
    /// one-cell path must give the same plans; see [`Planner::plan_one_cell`]).
    #[doc(hidden)]
    pub general_only: bool,
    /// Requests planned by the one-cell path (tests check it was taken).
    #[doc(hidden)]
    pub one_cell_plans: u64,
    /// Mirrored writes take the stripe lock (hot spares are configured).
    lock_mirrored_writes: bool,
    /// The second parity is Reed–Solomon's Q (GF multiplies), not an XOR code's.
    q_multiplies: bool,
}

/// Pages touched by `[offset, offset + len)`.
pub fn pages_touched(offset: u64, len: u64, page_bytes: u64) -> u64 {
    if len == 0 {
        return 0;
    }
    (offset + len - 1) / page_bytes - offset / page_bytes + 1
}

/// Pages touched by a list of operations.
pub fn pages_touched_sum(ops: &[MemberOp], page_bytes: u64) -> u64 {
    ops.iter().map(|o| pages_touched(o.offset_bytes, o.len_bytes, page_bytes)).sum()
}

impl Planner {
    /// A planner for `cfg` over `geom`, counting in pages of `page_bytes`.
    pub fn new(cfg: &ArrayConfig, geom: ArrayGeometry, page_bytes: u64) -> Result<Self> {
        let k = geom.data_units as usize;
        let cells = k * geom.codeword_rows as usize;
        // Every parity level is described the same way: RAID-4/5's parity and
        // RS's P and Q each cover the whole row; EVENODD/RDP come from raidsim-codes.
        let cover = match (cfg.level.code_level(), cfg.xor_code()) {
            (_, Some((code, p))) => {
                let st = raidsim_codes::structure(code, k, p).map_err(|e| Error::config("array.prime", e.to_string()))?;
                let cells = st.cover.into_iter();
                Some(cells.map(|((col, row), data)| (col - k, row as u64, data.into_iter().map(|(c, r)| r * k + c).collect())).collect())
            }
            (level, None) => {
                let row: Vec<usize> = (0..k).collect();
                let parities = level.parity_units() as usize;
                (parities > 0).then(|| (0..parities).map(|kind| (kind, 0, row.clone())).collect())
            }
        };
        let q_multiplies = cover.is_some() && cfg.xor_code().is_none() && cfg.level.parity_units() == 2;
        Ok(Self {
            cover,
            q_multiplies,
            fault_skip_rmw_parity: false,
            general_only: false,
            one_cell_plans: 0,
            lock_mirrored_writes: cfg.spares > 0,
            need_data: vec![false; cells],
            need_parity: vec![false; 2 * geom.codeword_rows as usize],
            page_bytes,
            options: PlanOptions { write_method: cfg.write_method, granularity: cfg.parity_granularity },
            rmwpoint: (cfg.rmw_threshold_fraction * f64::from(cfg.members)).floor() as u32,
            read_policy: cfg.read_policy,
            spans: vec![Span::default(); cells],
            data_members: vec![0; geom.data_units as usize],
            parity_members: [None, None],
            copies: Vec::with_capacity(geom.copies as usize),
            breaks: Vec::with_capacity(4 * geom.data_units as usize + 2),
            geom,
        })
    }

    /// The array's configured write method and parity granularity.
    pub fn options(&self) -> PlanOptions {
        self.options
    }

    /// The geometry planned over.
    pub fn geometry(&self) -> &ArrayGeometry {
        &self.geom
    }

    /// Plans `op` on host bytes `[offset, offset + len)` with the array's
    /// configured options; appends one plan per stripe to `out`. The plans
    /// depend on the arguments alone: the state is read, never changed (the
    /// caller commits a plan's round-robin reads with
    /// [`ArrayState::commit`]).
    pub fn plan(&mut self, op: Op, offset: u64, len: u64, state: &ArrayState, out: &mut Vec<StripePlan>) -> Result<()> {
        self.plan_reusing((op, offset, len), self.options, state, out, &mut Vec::new())
    }

    /// As [`Planner::plan`] for `(op, offset, len)` with `opts` for this
    /// request, taking finished plans from `pool` so their buffers are
    /// reused (the timed simulation recycles every plan). The planner's own
    /// buffers are scratch space.
    pub fn plan_reusing(
        &mut self,
        request: (Op, u64, u64),
        opts: PlanOptions,
        state: &ArrayState,
        out: &mut Vec<StripePlan>,
        pool: &mut Vec<StripePlan>,
    ) -> Result<()> {
        let (op, offset, len) = request;
        let cap = self.geom.capacity_bytes();
        if len == 0 || offset + len > cap {
            return Err(Error::Workload(format!("array request [{offset}, +{len}) outside the array's {cap} bytes")));
        }
        if self.plan_one_cell(request, opts, state, out, pool) {
            return Ok(());
        }
        // Round-robin reads of earlier stripes of this request, not yet committed.
        let mut picks = 0u64;
        let w = self.geom.stripe_data_bytes();
        for s in offset / w..=(offset + len - 1) / w {
            let mut plan = pool.pop().unwrap_or_default();
            plan.reset(s);
            self.fill_spans(s, offset, offset + len);
            if self.geom.parity_units > 0 {
                self.load_members(s);
            }
            match (op, self.cover.is_some()) {
                (Op::Read, false) => self.plan_mirrored_read(s, state, state.round_robin + picks, &mut plan)?,
                (Op::Write, false) => self.plan_mirrored_write(s, state, &mut plan),
                (Op::Read, true) => self.plan_parity_read(s, state, &mut plan)?,
                (Op::Write, true) => self.plan_parity_write(s, opts, state, &mut plan),
            }
            picks += u64::from(plan.copy_picks);
            coalesce(&mut plan.reads);
            coalesce(&mut plan.writes);
            out.push(plan);
        }
        Ok(())
    }

    /// The commonest request, planned directly: inside one data unit of a
    /// healthy array under row parity (RAID-4/5, Reed–Solomon RAID-6), and
    /// for a write, whole pages at page granularity. The general routine
    /// spends most of a small request's cost on scratch work for every
    /// cell (spans, segment breaks, cover scans); this path gives the very
    /// plan it gives — the same rules, specialised to one written cell and
    /// one segment — and `planner_properties` checks that over random
    /// arrays and requests. False when the request is not such a one.
    fn plan_one_cell(
        &mut self,
        (kind, offset, len): (Op, u64, u64),
        opts: PlanOptions,
        state: &ArrayState,
        out: &mut Vec<StripePlan>,
        pool: &mut Vec<StripePlan>,
    ) -> bool {
        let (u, p) = (self.geom.unit_bytes, self.page_bytes);
        let (lo, hi) = (offset % u, offset % u + len);
        let write = kind == Op::Write;
        let eligible = !self.general_only
            && self.cover.is_some()
            && self.geom.codeword_rows == 1
            && hi <= u
            && !state.degraded()
            && (!write || (opts.granularity == ParityGranularity::Page && lo % p == 0 && hi % p == 0 && !self.fault_skip_rmw_parity));
        if !eligible {
            return false;
        }
        let (s, col) = self.cell_of(offset);
        let (m, at) = (self.geom.data_member(s, col), self.geom.row_offset(s, 0) + lo);
        let mut plan = pool.pop().unwrap_or_default();
        plan.reset(s);
        if write {
            self.plan_one_cell_write(s, col, m, (at, len), opts.write_method, &mut plan);
        } else {
            plan.reads.push(op(m, Op::Read, at, len, Cause::User));
        }
        out.push(plan);
        self.one_cell_plans += 1;
        true
    }

    /// Stripe (row) and data column of host byte `offset`, one row per
    /// stripe (row parity or RAID-0).
    fn cell_of(&self, offset: u64) -> (u64, u32) {
        let g = &self.geom;
        (offset / g.stripe_data_bytes(), (offset / g.unit_bytes % u64::from(g.data_units)) as u32)
    }

    /// [`Planner::plan_one_cell`]'s write of `[at, at + len)` on data unit
    /// `col` (member `m`) of stripe `s`, every member alive: the unit is
    /// wholly overwritten over the segment, so reconstruct-write reads the
    /// other `k − 1` units and read-modify-write the old data and each parity.
    fn plan_one_cell_write(&mut self, s: u64, col: u32, m: u32, (at, len): (u64, u64), method: WriteMethod, plan: &mut StripePlan) {
        let k = self.geom.data_units;
        let parity = self.geom.parity_members(s);
        let parities = self.geom.parity_units as usize;
        let rcw_reads = k - 1;
        let rmw = match method {
            _ if rcw_reads == 0 => false,
            WriteMethod::Rmw => true,
            WriteMethod::Rcw => false,
            WriteMethod::Auto => 1 + (parities as u32) < rcw_reads,
        };
        let (mut rcw_ops, mut rmw_ops) = ((0u64, 0u64), (0u64, 0u64));
        for kind in 0..parities {
            for c in 0..k as usize {
                let term = self.term_ops(kind, c);
                rcw_ops = (rcw_ops.0 + term.0, rcw_ops.1 + term.1);
            }
            let term = self.term_ops(kind, col as usize);
            rmw_ops = (rmw_ops.0 + 1 + term.0, rmw_ops.1 + term.1);
        }
        plan.locks_stripe = true;
        plan.compute.add(if rmw { rmw_ops } else { rcw_ops }, len);
        if rmw {
            plan.reads.push(op(m, Op::Read, at, len, Cause::PreReadRmw));
        } else {
            for c in (0..k).filter(|&c| c != col) {
                plan.reads.push(op(self.geom.data_member(s, c), Op::Read, at, len, Cause::PreReadRcw));
            }
        }
        plan.writes.push(op(m, Op::Write, at, len, Cause::User));
        for &pm in parity.iter().take(parities).flatten() {
            if rmw {
                plan.reads.push(op(pm, Op::Read, at, len, Cause::PreReadRmw));
            }
            plan.writes.push(op(pm, Op::Write, at, len, Cause::Parity));
            plan.parity_bytes += len;
        }
        coalesce(&mut plan.reads);
        coalesce(&mut plan.writes);
    }

    /// Where host byte `offset` is stored under striping or parity: its
    /// data member and byte on it, and the parity members that cover it at
    /// the same byte (row parity only: RAID-4/5, Reed–Solomon RAID-6).
    /// `None` for mirrored levels and codewords of several rows.
    pub fn home_of(&self, offset: u64) -> Option<(u32, u64, [Option<u32>; 2])> {
        let g = &self.geom;
        let row_level = self.cover.is_some() && g.codeword_rows == 1;
        if !(row_level || g.level == crate::config::RaidLevel::Raid0) || offset >= g.capacity_bytes() {
            return None;
        }
        let (s, col) = self.cell_of(offset);
        Some((g.data_member(s, col), g.row_offset(s, 0) + offset % g.unit_bytes, g.parity_members(s)))
    }

    /// Written byte range of every data cell (`row × k + column`) of stripe
    /// (codeword) `s`; logical units fill a codeword row by row.
    fn fill_spans(&mut self, s: u64, lo: u64, hi: u64) {
        let u = self.geom.unit_bytes;
        let base = s * self.geom.stripe_data_bytes();
        for (d, span) in self.spans.iter_mut().enumerate() {
            let start = base + d as u64 * u;
            *span = Span { lo: lo.max(start).saturating_sub(start), hi: hi.min(start + u).saturating_sub(start) };
            if hi <= start || lo >= start + u {
                *span = Span::default();
            }
        }
    }

    /// RAID-0/1/10 reads: each unit from one surviving copy; under
    /// `round_robin`, the copies in turn from `cursor` on.
    fn plan_mirrored_read(&mut self, s: u64, state: &ArrayState, cursor: u64, plan: &mut StripePlan) -> Result<()> {
        for d in 0..self.geom.data_units {
            let span = self.spans[d as usize];
            if span.is_empty() {
                continue;
            }
            self.geom.unit_copies(s, d, &mut self.copies);
            let Some(copy) = pick_copy(&self.copies, self.read_policy, state, s, cursor + u64::from(plan.copy_picks)) else {
                return Err(Error::Device(format!("stripe {s}, unit {d}: every copy is on a failed member")));
            };
            plan.reads.push(op(copy.member, Op::Read, copy.member_offset + span.lo, span.hi - span.lo, Cause::User));
            plan.copy_picks += u32::from(self.read_policy == ReadPolicy::RoundRobin);
        }
        Ok(())
    }

    /// RAID-0/1/10 writes: every surviving copy; the first is the user's,
    /// the rest mirrors. With hot spares configured, writes are serialized
    /// per stripe, so that a rebuild never copies a unit while a write to
    /// it is in flight (the copy would miss the update).
    fn plan_mirrored_write(&mut self, s: u64, state: &ArrayState, plan: &mut StripePlan) {
        plan.locks_stripe = self.lock_mirrored_writes || state.rebuilding();
        for d in 0..self.geom.data_units {
            let span = self.spans[d as usize];
            if span.is_empty() {
                continue;
            }
            self.geom.unit_copies(s, d, &mut self.copies);
            let mut first = true;
            for c in self.copies.iter().filter(|c| state.alive(c.member, s)) {
                let cause = if first { Cause::User } else { Cause::Mirror };
                first = false;
                plan.writes.push(op(c.member, Op::Write, c.member_offset + span.lo, span.hi - span.lo, cause));
            }
        }
    }

    /// Unit-relative byte offsets where the coverage pattern of the written
    /// cells changes (page granularity), or just the unit's ends.
    fn segment_breaks(&mut self, granularity: ParityGranularity) {
        let p = self.page_bytes;
        let u = self.geom.unit_bytes;
        self.breaks.clear();
        match granularity {
            ParityGranularity::WholeUnit => self.breaks.extend([0, u]),
            // A degraded DiskSim row falls back to md's page rule.
            ParityGranularity::Page | ParityGranularity::Disksim => {
                self.breaks.extend([0, u]);
                for span in self.spans.iter().filter(|sp| !sp.is_empty()) {
                    // Coverage changes at the first and last page of each span,
                    // and partial pages form segments of their own.
                    let (a, b) = (span.lo / p * p, span.hi.div_ceil(p) * p);
                    self.breaks.extend([a, b, (span.lo.div_ceil(p) * p).min(u), (span.hi / p * p).max(a)]);
                }
                self.breaks.sort_unstable();
                self.breaks.dedup();
            }
        }
    }

    /// Reads of stripe (codeword) `s` under parity. With one data member
    /// lost and the row parity alive, a lost cell is rebuilt from its row
    /// (the other data cells and the row parity); otherwise from every
    /// surviving cell of the codeword over the same bytes (RS P+Q: the row's
    /// survivors, Q included; EVENODD/RDP: a double erasure's diagonal chains
    /// run through every row).
    fn plan_parity_read(&mut self, s: u64, state: &ArrayState, plan: &mut StripePlan) -> Result<()> {
        let k = self.geom.data_units as usize;
        let recovery = self.recovery(s, state);
        let alive_parity = self.parity_members.iter().flatten().filter(|&&m| state.alive(m, s)).count();
        if recovery.lost_data > alive_parity {
            let lost = recovery.lost_data;
            return Err(Error::Device(format!("stripe {s}: {lost} data units lost and {alive_parity} parity units left")));
        }
        let by_row = recovery.by_row;
        let mut lost = (u64::MAX, 0u64);
        for cell in 0..self.spans.len() {
            let span = self.spans[cell];
            if span.is_empty() {
                continue;
            }
            let (row, col) = ((cell / k) as u64, cell % k);
            let m = self.data_members[col];
            let base = self.geom.row_offset(s, row);
            if state.alive(m, s) {
                plan.reads.push(op(m, Op::Read, base + span.lo, span.hi - span.lo, Cause::User));
                continue;
            }
            plan.locks_stripe = true;
            let p = self.page_bytes;
            let (a, b) = (span.lo / p * p, span.hi.div_ceil(p) * p);
            if by_row {
                for (c, &other) in self.data_members.iter().enumerate() {
                    let sp = self.spans[row as usize * k + c];
                    let user = if sp.is_empty() || c == col { (0, 0) } else { (sp.lo / p * p, sp.hi.div_ceil(p) * p) };
                    if c != col && state.alive(other, s) {
                        for (x, y) in subtract((a, b), user) {
                            plan.reads.push(op(other, Op::Read, base + x, y - x, Cause::DegradedRead));
                        }
                        // The user's read of a page it only partly wants is
                        // widened to the whole page within the lost range, so
                        // the decode has every byte (its page counts once).
                        let (ua, ub) = (user.0.max(a), user.1.min(b));
                        if ua < ub {
                            for (x, y) in subtract((ua, ub), (sp.lo, sp.hi)) {
                                plan.reads.push(op(other, Op::Read, base + x, y - x, Cause::User));
                            }
                        }
                    }
                }
                // Row recovery reads the row parity alone (Recovery::reads_parity).
                if let Some(pm) = self.parity_members[0] {
                    plan.reads.push(op(pm, Op::Read, base + a, b - a, Cause::DegradedRead));
                }
                plan.compute.add(self.decode_ops(true), b - a);
            } else {
                lost = (lost.0.min(a), lost.1.max(b));
            }
        }
        if lost.0 >= lost.1 {
            return Ok(());
        }
        let (a, b) = lost;
        let lost_cells = recovery.lost_data as u64 * self.geom.codeword_rows;
        plan.compute.add(self.decode_ops(false), lost_cells * (b - a));
        let parity = self.parity_members.into_iter().enumerate().filter(|&(kind, _)| recovery.reads_parity(kind));
        let parity = parity.filter_map(|(_, m)| m);
        for row in 0..self.geom.codeword_rows {
            let off = self.geom.row_offset(s, row) + a;
            for m in self.data_members.iter().copied().chain(parity.clone()) {
                if state.alive(m, s) {
                    plan.reads.push(op(m, Op::Read, off, b - a, Cause::DegradedRead));
                }
            }
        }
        Ok(())
    }

    /// Writes of stripe (codeword) `s` under parity: per segment of rows
    /// with one coverage pattern, the parity cells covering a written cell
    /// are rewritten, by read-modify-write (old data and old parity) or
    /// reconstruct-write (every data cell those parity cells cover that is
    /// not wholly overwritten), whichever reads fewer cells, ties to
    /// reconstruct-write. A full stripe needs no pre-read: reconstruct-write
    /// with nothing to read.
    fn plan_parity_write(&mut self, s: u64, opts: PlanOptions, state: &ArrayState, plan: &mut StripePlan) {
        plan.locks_stripe = true;
        let healthy = self.data_members.iter().chain(self.parity_members.iter().flatten()).all(|&m| state.alive(m, s));
        if opts.granularity == ParityGranularity::Disksim && healthy {
            self.plan_disksim_row(s, opts.write_method, plan);
            return;
        }
        self.segment_breaks(opts.granularity);
        for i in 1..self.breaks.len() {
            let (lo, hi) = (self.breaks[i - 1], self.breaks[i]);
            if lo < hi {
                self.plan_parity_segment(s, (lo, hi), opts, state, plan);
            }
        }
    }

    fn plan_parity_segment(&mut self, s: u64, (lo, hi): (u64, u64), opts: PlanOptions, state: &ArrayState, plan: &mut StripePlan) {
        let k = self.geom.data_units as usize;
        let Some(cover) = self.cover.as_ref() else { return };
        let touched = |sp: &Span| !sp.is_empty() && sp.lo < hi && sp.hi > lo;
        let covered = |sp: &Span| touched(sp) && sp.lo <= lo && sp.hi >= hi;
        let alive_col = |c: usize| state.alive(self.data_members[c], s);
        let parity_member = |kind: usize| self.parity_members[kind];
        // Parity cells to rewrite: those covering a written cell, on a surviving member.
        self.need_parity.iter_mut().for_each(|x| *x = false);
        self.need_data.iter_mut().for_each(|x| *x = false);
        let rows = self.geom.codeword_rows as usize;
        let (mut rmw_ok, mut rcw_ok) = (true, true);
        let (mut written, mut rewrite) = (0u32, 0u32);
        // Parity engine operations (XORs, multiplies) per byte, by method.
        let (mut rcw_ops, mut rmw_ops) = ((0u64, 0u64), (0u64, 0u64));
        for (cell, sp) in self.spans.iter().enumerate() {
            if touched(sp) {
                written += 1;
                rmw_ok &= alive_col(cell % k);
            }
        }
        if written == 0 {
            return;
        }
        for (kind, prow, cells) in cover {
            if !cells.iter().any(|&c| touched(&self.spans[c])) {
                continue;
            }
            if !parity_member(*kind).is_some_and(|m| state.alive(m, s)) {
                continue;
            }
            self.need_parity[kind * rows + *prow as usize] = true;
            rewrite += 1;
            for &c in cells {
                if !covered(&self.spans[c]) {
                    self.need_data[c] = true;
                }
                let term = self.term_ops(*kind, c % k);
                rcw_ops = (rcw_ops.0 + term.0, rcw_ops.1 + term.1);
                if touched(&self.spans[c]) {
                    rmw_ops = (rmw_ops.0 + 1 + term.0, rmw_ops.1 + term.1);
                }
            }
        }
        let rcw_reads = self.need_data.iter().filter(|&&x| x).count() as u32;
        rcw_ok &= self.need_data.iter().enumerate().all(|(c, &x)| !x || alive_col(c % k));
        let method = match (rmw_ok, rcw_ok, opts.write_method) {
            _ if rewrite == 0 => Method::None,
            // A full-stripe write reads nothing under any method.
            (_, true, _) if rcw_reads == 0 => Method::Rcw,
            (false, false, _) => Method::Rebuild,
            (true, false, _) | (true, true, WriteMethod::Rmw) => Method::Rmw,
            (false, true, _) | (true, true, WriteMethod::Rcw) => Method::Rcw,
            (true, true, WriteMethod::Auto) => {
                if written + rewrite < rcw_reads {
                    Method::Rmw
                } else {
                    Method::Rcw
                }
            }
        };
        match method {
            Method::None => {}
            Method::Rmw => plan.compute.add(rmw_ops, hi - lo),
            Method::Rcw => plan.compute.add(rcw_ops, hi - lo),
            Method::Rebuild => {
                let recovery = self.recovery(s, state);
                plan.compute.add(self.decode_ops(recovery.by_row), recovery.lost_data as u64 * rows as u64 * (hi - lo));
                plan.compute.add(rcw_ops, hi - lo);
            }
        }
        let whole_unit = opts.granularity == ParityGranularity::WholeUnit;
        for (cell, sp) in self.spans.iter().enumerate() {
            let m = self.data_members[cell % k];
            let base = self.geom.row_offset(s, (cell / k) as u64);
            if !state.alive(m, s) {
                continue;
            }
            let cause = match method {
                Method::Rmw if touched(sp) => Some(Cause::PreReadRmw),
                Method::Rcw if self.need_data[cell] => Some(Cause::PreReadRcw),
                Method::Rebuild => Some(Cause::DegradedRead),
                _ => None,
            };
            if let Some(cause) = cause {
                let (a, b) = if whole_unit || !touched(sp) || method != Method::Rmw { (lo, hi) } else { (sp.lo.max(lo), sp.hi.min(hi)) };
                plan.reads.push(op(m, Op::Read, base + a, b - a, cause));
            }
            if touched(sp) {
                plan.writes.push(op(m, Op::Write, base + sp.lo.max(lo), sp.hi.min(hi) - sp.lo.max(lo), Cause::User));
            }
        }
        for kind in 0..2 {
            let Some(m) = parity_member(kind).filter(|&m| state.alive(m, s)) else { continue };
            for prow in 0..rows {
                let rewritten = self.need_parity[kind * rows + prow];
                let base = self.geom.row_offset(s, prow as u64);
                let read = match method {
                    Method::Rmw => rewritten.then_some(Cause::PreReadRmw),
                    Method::Rebuild => Some(Cause::DegradedRead),
                    _ => None,
                };
                if let Some(cause) = read {
                    plan.reads.push(op(m, Op::Read, base + lo, hi - lo, cause));
                }
                if rewritten && !(self.fault_skip_rmw_parity && method == Method::Rmw) {
                    plan.writes.push(op(m, Op::Write, base + lo, hi - lo, Cause::Parity));
                    plan.parity_bytes += hi - lo;
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    None,
    Rmw,
    Rcw,
    Rebuild,
}

fn op(member: u32, op: Op, offset_bytes: u64, len_bytes: u64, cause: Cause) -> MemberOp {
    MemberOp { member, op, offset_bytes, len_bytes, cause }
}

/// The copy of a unit of stripe `s` a read goes to (under `round_robin`,
/// the `cursor`-th surviving copy, cyclically); `None` when every copy is lost.
fn pick_copy(copies: &[UnitCopy], policy: ReadPolicy, state: &ArrayState, s: u64, cursor: u64) -> Option<UnitCopy> {
    let alive = || copies.iter().filter(|c| state.alive(c.member, s));
    let n = alive().count().max(1);
    let chosen = match policy {
        ReadPolicy::Primary => alive().next(),
        ReadPolicy::RoundRobin => {
            let i = (cursor % n as u64) as usize;
            alive().nth(i)
        }
        ReadPolicy::ShortestQueue => alive().min_by_key(|c| state.outstanding[state.device_of[c.member as usize] as usize]),
    };
    chosen.copied()
}

/// Merges adjacent operations on one member with the same direction and cause.
fn coalesce(ops: &mut Vec<MemberOp>) {
    if ops.len() < 2 {
        return;
    }
    ops.sort_by_key(|o| (o.member, o.op == Op::Write, o.cause as u8, o.offset_bytes));
    let mut w = 0;
    for r in 1..ops.len() {
        let (prev, cur) = (ops[w], ops[r]);
        if prev.member == cur.member && prev.op == cur.op && prev.cause == cur.cause && prev.offset_bytes + prev.len_bytes == cur.offset_bytes {
            ops[w].len_bytes += cur.len_bytes;
        } else {
            w += 1;
            ops[w] = cur;
        }
    }
    ops.truncate(w + 1);
}

/// `(a, b)` minus `(c, d)`: up to two intervals.
fn subtract((a, b): (u64, u64), (c, d): (u64, u64)) -> impl Iterator<Item = (u64, u64)> {
    let left = (a, b.min(c));
    let right = (a.max(d), b);
    let whole = c >= d || d <= a || c >= b;
    let parts = if whole { [(a, b), (0, 0)] } else { [left, right] };
    parts.into_iter().filter(|(x, y)| x < y)
}
