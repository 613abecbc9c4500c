//! The controller's parity engine: computations of concurrent stripes queue
//! for one engine, charged by parity bytes or by the code's region
//! operations (`array.controller.parity_compute`).

use super::*;

/// What a parity computation is for (its statistics are kept apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComputePurpose {
    /// Encoding or updating parity for a host write (degraded writes decode too).
    HostWrite,
    /// Decoding lost data for a host read.
    HostRead,
    /// Reconstructing a stripe onto a spare.
    Rebuild,
}

impl ComputePurpose {
    /// Every purpose, in report order.
    pub const ALL: [ComputePurpose; 3] = [ComputePurpose::HostWrite, ComputePurpose::HostRead, ComputePurpose::Rebuild];

    /// The name in stat paths.
    pub fn name(self) -> &'static str {
        match self {
            ComputePurpose::HostWrite => "host_write",
            ComputePurpose::HostRead => "host_read",
            ComputePurpose::Rebuild => "rebuild",
        }
    }
}

/// The controller's parity engine (`array.controller.xor_bytes_per_s`,
/// `parity_compute`, `gf_mul_bytes_per_s`): one computation at a time,
/// each booked after the reads of its stripe plan.
pub(super) struct ParityEngine {
    pub(super) mode: crate::config::ParityCompute,
    pub(super) xor_bytes_per_s: u64,
    pub(super) gf_mul_bytes_per_s: u64,
    pub(super) timeline: crate::engine::Timeline,
    /// Per purpose: (busy ns, bytes XORed, bytes multiplied), since the
    /// counters were last restarted.
    pub(super) tally: [(u64, u64, u64); 3],
}

impl ParityEngine {
    pub(super) fn new(cfg: &crate::config::ControllerConfig) -> Self {
        Self {
            mode: cfg.parity_compute,
            xor_bytes_per_s: cfg.xor_bytes_per_s,
            gf_mul_bytes_per_s: cfg.gf_mul_bytes_per_s,
            timeline: crate::engine::Timeline::default(),
            tally: [(0, 0, 0); 3],
        }
    }

    /// Books `plan`'s computation at `now`: when it is done, or `None` when it needs none.
    pub(super) fn book(&mut self, now: Ns, plan: &StripePlan, purpose: ComputePurpose) -> Option<Ns> {
        // Bytes XORed and multiplied: under parity_bytes one XOR pass per parity byte.
        let (xor, mul) = match self.mode {
            crate::config::ParityCompute::ParityBytes => (plan.parity_bytes, 0),
            crate::config::ParityCompute::CodeOps => (plan.compute.xor_bytes, plan.compute.gf_mul_bytes),
        };
        // A rate of 0 is an instant engine under parity_bytes (its default);
        // code_ops is validated to have a rate for every operation its code
        // uses, and a missing one would cost 1 byte/s, never nothing.
        let instant = self.mode == crate::config::ParityCompute::ParityBytes && self.xor_bytes_per_s == 0;
        let time = |bytes: u64, per_s: u64| if bytes == 0 || instant { 0 } else { crate::config::transfer_ns(bytes, per_s.max(1)) };
        let d = time(xor, self.xor_bytes_per_s) + time(mul, self.gf_mul_bytes_per_s);
        if d == 0 {
            return None;
        }
        let t = &mut self.tally[purpose as usize];
        *t = (t.0 + d, t.1 + xor, t.2 + mul);
        self.timeline.advance(now);
        Some(self.timeline.book_remembered(now, d) + d)
    }
}
