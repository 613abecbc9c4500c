//! Trim (discard, deallocate): the host says a logical page's data is no
//! longer needed, so the page map forgets it and its flash page turns
//! invalid at once. Collection then erases the page's block without moving
//! it, which is why trim lowers write amplification as a lower fill does:
//! what counts is the valid data, not the written, so the over-provisioning
//! of `analytic::greedy_uniform_write_amplification` is the physical pages
//! over the pages still mapped. A trimmed page reads as one never written.

use super::*;

impl Ftl {
    /// Forgets `lpn`'s data: true when it held a page, which is now invalid.
    /// Only the page map takes trims: the block-mapped FTLs keep a page's
    /// offset in its block, and CR5M's copies belong to parity; both are
    /// refused before a trim reaches here, so meeting one is an internal error.
    pub fn trim(&mut self, lpn: u64) -> Result<bool> {
        if self.log_blocks.is_some() {
            return Err(Error::Internal("a trim reached a block-mapped FTL".into()));
        }
        if self.translation_base > self.logical_pages && (self.mirror_of(lpn).is_some() || self.expired_of(lpn).is_some()) {
            return Err(Error::Internal(format!("a trim reached lpn {lpn}, which keeps CR5M copies")));
        }
        let old = self.ppn_of(lpn);
        if old == NO_PAGE {
            return Ok(false);
        }
        self.check_maps_agree(lpn, old)?;
        self.invalidate(old);
        self.set_ppn(lpn, NO_PAGE);
        Ok(true)
    }
}
