//! What the controller tells whoever watches the array's bytes: the one
//! way `sim.verify`'s byte verifier ([`super::verify::ByteVerifier`])
//! follows a run.
//!
//! The controller reports each host request it plans, each stripe job
//! whose reads have come back and whose writes go out, each stripe CR5M
//! consolidates, the flash pages a failed chip took with it, the ranges a
//! trim reached, and reads the front end answered from its cache; it asks
//! for the versions a cache holds and, at the end, for the verdict. Without `sim.verify` the
//! observer is [`Unobserved`], whose every method does nothing, so the
//! controller's paths read the same with and without the check.

use super::trim::MemberTrim;
use super::verify::{RebuildBytes, VerifyReport};
use super::{ArrayState, StripePlan, StripeSet};
use crate::device::Op;
use crate::error::Result;
use crate::ftl::ChipLoss;

/// The stripe job a plan belongs to, as an observer needs it.
#[derive(Clone, Copy, Debug)]
pub enum Work {
    /// A stripe of a host request.
    Host {
        /// The host job.
        host: u32,
        /// Read or write.
        op: Op,
        /// First host byte of the stripe's part of the request.
        offset: u64,
        /// Its length, bytes.
        len: u64,
    },
    /// A stripe of a rebuild.
    Rebuild {
        /// The stripe job.
        stripe_job: u32,
        /// What its writes hold.
        bytes: RebuildBytes,
    },
}

/// Follows the array's bytes through a run (see the module docs).
/// `Send + Sync` because a simulation moves between threads (Python runs
/// it with the GIL released, a sweep's worker holds it).
pub trait ArrayObserver: Send + Sync {
    /// Host job `host` is planned: `op` on host bytes `[offset, offset + len)`.
    fn planned(&mut self, _host: u32, _op: Op, _offset: u64, _len: u64) -> Result<()> {
        Ok(())
    }
    /// `plan`'s reads have come back (a stripe the array still holds).
    fn reads_done(&mut self, _state: &ArrayState, _plan: &StripePlan, _work: Work) {}
    /// `plan`'s writes are issued: they land on the devices they go to.
    fn writes_issued(&mut self, _state: &ArrayState, _plan: &StripePlan, _work: Work) -> Result<()> {
        Ok(())
    }
    /// Host job `host` is done.
    fn host_done(&mut self, _host: u32) {}
    /// CR5M consolidated stripe `s`: its parity covers the current data again.
    fn consolidated(&mut self, _state: &ArrayState, _s: u64) {}
    /// A chip of device `device` failed with the pages of `loss` (pages of `page_bytes`).
    fn chip_lost(&mut self, _device: u32, _loss: &ChipLoss, _page_bytes: u64) {}
    /// The host trimmed: `ranges` (array positions) read as never written from now on.
    fn trimmed(&mut self, _state: &ArrayState, _ranges: &[MemberTrim]) -> Result<()> {
        Ok(())
    }
    /// A host read of `[offset, offset + len)` was answered from a cache holding `versions`.
    fn cached_read(&mut self, _offset: u64, _len: u64, _versions: &[u64]) {}
    /// The version of each sector of host bytes `[offset, offset + len)`, when bytes are followed.
    fn versions(&self, _offset: u64, _len: u64) -> Option<Vec<u64>> {
        None
    }
    /// The verdict at the end of the run; `deferred(s)`: stripe `s`'s parity update is still deferred.
    fn report(&self, _state: &ArrayState, _lost: &StripeSet, _deferred: &dyn Fn(u64) -> bool) -> Option<VerifyReport> {
        None
    }
}

/// No observer: `sim.verify` is off.
pub struct Unobserved;

impl ArrayObserver for Unobserved {}
