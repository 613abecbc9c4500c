//! A trim on bytes: the member ranges it reached read as never written
//! (zeros), so the host sectors they hold are expected as zeros from then
//! on, and a rebuild in flight that read the stripe before the trim writes
//! zeros there too. Under parity the array trims whole codewords, data and
//! parity alike, and the parity of zeros is zeros: the checks after the
//! run hold the codewords to that.

use super::{ByteVerifier, SECTOR};
use crate::array::trim::MemberTrim;
use crate::array::ArrayState;
use crate::config::RaidLevel;
use crate::error::{Error, Result};

impl ByteVerifier {
    /// The array trimmed `ranges` (array positions; their current devices).
    pub fn trim(&mut self, state: &ArrayState, ranges: &[MemberTrim]) -> Result<()> {
        for r in ranges {
            let end = r.offset_bytes + r.len_bytes;
            if r.offset_bytes % SECTOR != 0 || r.len_bytes % SECTOR != 0 {
                return Err(Error::Workload(format!(
                    "sim.verify checks whole 512-byte sectors; a trim reached [{}, +{}) of member {}",
                    r.offset_bytes, r.len_bytes, r.member
                )));
            }
            let device = state.device_of[r.member as usize];
            for o in (r.offset_bytes..end).step_by(SECTOR as usize) {
                self.store.remove(&(device, o));
                if let Some(addr) = self.host_of(self.stripe_at(o), r.member, o) {
                    self.logical.insert(addr / SECTOR, 0);
                }
            }
            let zeros = || vec![0u8; SECTOR as usize].into_boxed_slice();
            for writes in self.pending_rebuilds.values_mut() {
                for w in writes.iter_mut().filter(|w| w.0 == r.member && (r.offset_bytes..end).contains(&w.1)) {
                    w.2 = zeros();
                }
            }
        }
        Ok(())
    }

    /// The stripe (codeword) whose part on a member starts at or holds member byte `offset`.
    fn stripe_at(&self, offset: u64) -> u64 {
        let rows_per_stripe = if self.one_place() {
            self.geom.codeword_rows
        } else if self.geom.level == RaidLevel::Raid1 {
            1
        } else {
            u64::from(self.geom.copies)
        };
        offset / self.geom.unit_bytes / rows_per_stripe
    }
}
