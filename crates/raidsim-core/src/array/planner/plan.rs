//! What the planner produces and reads: member operations, stripe plans
//! in two phases, and the array's state (which members are alive, which
//! stripes are rebuilt).

use super::*;

/// One operation on one member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberOp {
    /// Member index.
    pub member: u32,
    /// Read or write.
    pub op: Op,
    /// Byte offset on the member.
    pub offset_bytes: u64,
    /// Length, bytes.
    pub len_bytes: u64,
    /// Why.
    pub cause: Cause,
}

/// The plan of one stripe of a request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StripePlan {
    /// Stripe number.
    pub stripe: u64,
    /// True when the plan updates parity, reads through it (a degraded read)
    /// or rebuilds the stripe: such plans of one stripe are serialized.
    pub locks_stripe: bool,
    /// Phase 1: reads, issued together.
    pub reads: Vec<MemberOp>,
    /// Phase 2: writes, issued together once the reads are done.
    pub writes: Vec<MemberOp>,
    /// Parity bytes computed between the phases (for the XOR time).
    pub parity_bytes: u64,
    /// The parity engine's work between the phases, by the code's
    /// structure (`array.controller.parity_compute = "code_ops"`).
    pub compute: ComputeWork,
    /// Reads that took the `round_robin` cursor's copy: committing the
    /// plan ([`ArrayState::commit`]) moves the cursor on by as many.
    pub copy_picks: u32,
}

/// How partial-stripe writes update parity: the array's configuration, or
/// what one replanning asks for (CR5M's whole-unit reconstruct-write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanOptions {
    /// Read-modify-write, reconstruct-write, or the fewer pre-reads.
    pub write_method: WriteMethod,
    /// Where the method is decided: per page row, per stripe, or DiskSim's rule.
    pub granularity: ParityGranularity,
}

/// Work of the controller's parity engine, in bytes run through each region
/// primitive of `raidsim-codes`: `xor_into` (one source XORed into an
/// accumulator) and `gf256::mul_acc` (one source multiplied by a GF(2^8)
/// constant and XORed in).
///
/// Counted per parity cell from the cells it covers, with no common
/// subexpression shared between cells: encoding (a full stripe or
/// reconstruct-write) runs each covered data cell once into the parity;
/// read-modify-write forms each written cell's delta (old XOR new) and runs
/// it in; a Reed–Solomon Q term of data column `d > 0` is a multiply by
/// `g^d` (column 0's coefficient is 1: an XOR). EVENODD's adjuster S is
/// among each diagonal cell's covered cells, so it is counted per cell, as
/// a straightforward encoder computes it; this is an upper bound of what
/// an optimised one does (S once per codeword). Decoding a lost cell runs
/// the `k` cells of its row or chain (`k` XORs a byte); Reed–Solomon's
/// double erasures also multiply each (`k` more multiplies a byte). The
/// paper's Table 2 orders the same costs: RS encodes and updates with the
/// fewest operations and decodes with the most.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ComputeWork {
    /// Bytes XORed into an accumulator.
    pub xor_bytes: u64,
    /// Bytes multiplied by a GF(2^8) constant and accumulated.
    pub gf_mul_bytes: u64,
}

impl ComputeWork {
    pub(super) fn add(&mut self, ops: (u64, u64), bytes: u64) {
        self.xor_bytes += ops.0 * bytes;
        self.gf_mul_bytes += ops.1 * bytes;
    }
}

impl StripePlan {
    /// Empties the plan for stripe `stripe`, keeping its buffers.
    pub fn reset(&mut self, stripe: u64) {
        self.stripe = stripe;
        self.locks_stripe = false;
        self.reads.clear();
        self.writes.clear();
        self.parity_bytes = 0;
        self.compute = ComputeWork::default();
        self.copy_picks = 0;
    }
}

/// What the planner needs to know about the array's condition.
#[derive(Clone, Debug)]
pub struct ArrayState {
    /// Failed members (until their rebuild onto a spare completes).
    pub failed: Vec<bool>,
    /// Per member being rebuilt: the stripes already rebuilt onto its
    /// spare, where the member counts as alive again.
    pub rebuilt: Vec<Option<StripeSet>>,
    /// The device serving each member: its own index, or a spare's
    /// (members first, then spares) once a rebuild onto it started.
    pub device_of: Vec<u32>,
    /// Operations outstanding per device (timed mode; for `shortest_queue`).
    pub outstanding: Vec<u32>,
    /// Next copy for `round_robin` reads.
    pub round_robin: u64,
}

impl ArrayState {
    /// A healthy array of `members` members and no spares.
    pub fn new(members: u32) -> Self {
        Self::with_spares(members, 0)
    }

    /// A healthy array of `members` members and `spares` spare devices.
    pub fn with_spares(members: u32, spares: u32) -> Self {
        let n = members as usize;
        Self {
            failed: vec![false; n],
            rebuilt: vec![None; n],
            device_of: (0..members).collect(),
            outstanding: vec![0; n + spares as usize],
            round_robin: 0,
        }
    }

    /// Member `m` holds stripe `s`: it never failed, or `s` is rebuilt on its spare.
    pub fn alive(&self, m: u32, s: u64) -> bool {
        let m = m as usize;
        !self.failed[m] || self.rebuilt[m].as_ref().is_some_and(|r| r.contains(s))
    }

    /// Some member is failed (and not wholly rebuilt).
    pub fn degraded(&self) -> bool {
        self.failed.iter().any(|&f| f)
    }

    /// Commits planned `plans` to the state: their `round_robin` reads
    /// move the cursor on, so the next request starts at the next copy.
    pub fn commit(&mut self, plans: &[StripePlan]) {
        self.round_robin += plans.iter().map(|p| u64::from(p.copy_picks)).sum::<u64>();
    }

    /// Some member is being rebuilt onto a spare.
    pub fn rebuilding(&self) -> bool {
        self.rebuilt.iter().any(Option::is_some)
    }
}

/// A set of stripes, as a bitmap (a member's rebuilt stripes, lost stripes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StripeSet {
    bits: Vec<u64>,
    len: u64,
}

impl StripeSet {
    /// An empty set over stripes `0..stripes`.
    pub fn new(stripes: u64) -> Self {
        Self { bits: vec![0; stripes.div_ceil(64) as usize], len: 0 }
    }

    /// `s` is in the set.
    pub fn contains(&self, s: u64) -> bool {
        self.bits.get((s / 64) as usize).is_some_and(|w| w >> (s % 64) & 1 == 1)
    }

    /// Adds `s`; true when it was not there.
    pub fn insert(&mut self, s: u64) -> bool {
        let Some(w) = self.bits.get_mut((s / 64) as usize) else { return false };
        let bit = 1u64 << (s % 64);
        let new = *w & bit == 0;
        *w |= bit;
        self.len += u64::from(new);
        new
    }

    /// Removes `s`; true when it was in the set.
    pub fn remove(&mut self, s: u64) -> bool {
        let Some(w) = self.bits.get_mut((s / 64) as usize) else { return false };
        let bit = 1u64 << (s % 64);
        let was = *w & bit != 0;
        *w &= !bit;
        self.len -= u64::from(was);
        was
    }

    /// The stripes in the set, in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.bits.iter().enumerate().flat_map(|(i, &w)| (0..64).filter(move |b| w >> b & 1 == 1).map(move |b| i as u64 * 64 + b))
    }

    /// Stripes in the set.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// The set is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
