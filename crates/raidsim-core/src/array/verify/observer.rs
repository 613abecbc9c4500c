//! `sim.verify` as the controller's observer: the byte verifier, and the
//! version each host write in flight stores.

use super::{ByteVerifier, VerifyReport, SECTOR};
use crate::array::observer::{ArrayObserver, Work};
use crate::array::{ArrayState, StripePlan, StripeSet};
use crate::device::Op;
use crate::error::{Error, Result};
use crate::ftl::ChipLoss;
use rustc_hash::FxHashMap;

/// The byte verifier following a run through [`ArrayObserver`].
pub struct Verifying {
    verifier: ByteVerifier,
    /// The version each host write in flight stores, by host job.
    versions: FxHashMap<u32, u64>,
}

impl Verifying {
    /// Follows the run with `verifier`.
    pub fn new(verifier: ByteVerifier) -> Self {
        Self { verifier, versions: FxHashMap::default() }
    }
}

impl ArrayObserver for Verifying {
    fn planned(&mut self, host: u32, op: Op, offset: u64, len: u64) -> Result<()> {
        if offset % SECTOR != 0 || len % SECTOR != 0 {
            return Err(Error::Workload(format!("sim.verify checks whole 512-byte sectors; request [{offset}, +{len}) is not aligned")));
        }
        if op == Op::Write {
            self.versions.insert(host, self.verifier.next_version());
        }
        Ok(())
    }

    fn reads_done(&mut self, state: &ArrayState, plan: &StripePlan, work: Work) {
        match work {
            Work::Host { op: Op::Read, offset, len, .. } => self.verifier.check_read(state, plan, offset, len),
            Work::Rebuild { stripe_job, bytes } => self.verifier.prepare_rebuild(stripe_job, state, plan, bytes),
            Work::Host { op: Op::Write, .. } => {}
        }
    }

    fn writes_issued(&mut self, state: &ArrayState, plan: &StripePlan, work: Work) -> Result<()> {
        match work {
            Work::Host { host, op: Op::Write, offset, len } => {
                let version = self.versions.get(&host).copied();
                let version = version.ok_or_else(|| Error::Internal(format!("verify: host job {host} has no version")))?;
                self.verifier.apply_write(state, plan, offset, len, version)
            }
            Work::Rebuild { stripe_job, .. } => {
                self.verifier.apply_rebuild(stripe_job, state);
                Ok(())
            }
            Work::Host { op: Op::Read, .. } => Ok(()),
        }
    }

    fn host_done(&mut self, host: u32) {
        self.versions.remove(&host);
    }

    fn consolidated(&mut self, state: &ArrayState, s: u64) {
        self.verifier.consolidate(state, s);
    }

    fn chip_lost(&mut self, device: u32, loss: &ChipLoss, page: u64) {
        let v = &mut self.verifier;
        loss.current.iter().chain(&loss.current_mirrored).for_each(|&lpn| v.lose(device, lpn * page, page));
        loss.expired.iter().for_each(|&lpn| v.lose_expired(device, lpn * page, page));
        loss.mirror.iter().for_each(|&lpn| v.lose_mirror(device, lpn * page, page));
    }

    fn trimmed(&mut self, state: &ArrayState, ranges: &[crate::array::trim::MemberTrim]) -> Result<()> {
        self.verifier.trim(state, ranges)
    }

    fn cached_read(&mut self, offset: u64, len: u64, versions: &[u64]) {
        self.verifier.check_cached_read(offset, len, versions);
    }

    fn versions(&self, offset: u64, len: u64) -> Option<Vec<u64>> {
        Some(self.verifier.logical_versions(offset, len))
    }

    fn report(&self, state: &ArrayState, lost: &StripeSet, deferred: &dyn Fn(u64) -> bool) -> Option<VerifyReport> {
        let v = &self.verifier;
        let end = v.final_check(state, lost, deferred);
        let mut examples = v.examples.clone();
        examples.extend(end.examples);
        examples.truncate(5);
        Some(VerifyReport {
            sectors_checked_on_reads: v.sectors_checked,
            sectors_checked_after_run: end.sectors_checked,
            redundancy_checked_after_run: end.redundancy_checked,
            mismatches: v.mismatches + end.mismatches,
            first_mismatches: examples,
        })
    }
}
