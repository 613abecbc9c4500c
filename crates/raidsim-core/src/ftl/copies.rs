//! The copies CR5M keeps beside a page (its mirror copy and its old,
//! parity-consistent copy), and what a chip failure takes.

use super::*;

/// What a chip failure took: the logical pages whose copies were on it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChipLoss {
    /// Host pages whose current copy was on the chip, with no mirror copy.
    pub current: Vec<u64>,
    /// Host pages whose current copy was on the chip and whose mirror copy
    /// (CR5M) survives on the mirroring chip.
    pub current_mirrored: Vec<u64>,
    /// Host pages whose mirror copy was on it (a mirroring chip, CR5M).
    pub mirror: Vec<u64>,
    /// Host pages whose old, parity-consistent copy was on it (CR5M).
    pub expired: Vec<u64>,
}

impl Ftl {
    /// The mapping id of `lpn`'s mirror copy (CR5M's MPPN entry): the
    /// mapping holds, after the host's pages, one more space for mirror
    /// copies and one for the old, parity-consistent copies of mirrored
    /// pages (its EPPN entries), so garbage collection moves every copy
    /// like any page and finds its entry through the reverse map.
    pub fn mirror_id(&self, lpn: u64) -> u64 {
        self.logical_pages + lpn
    }

    /// The mapping id of `lpn`'s old, parity-consistent copy (EPPN).
    pub fn expired_id(&self, lpn: u64) -> u64 {
        2 * self.logical_pages + lpn
    }

    /// Where `lpn`'s mirror copy is, if it has one.
    pub fn mirror_of(&self, lpn: u64) -> Option<u32> {
        self.slot(self.mirror_id(lpn)).filter(|&p| p != NO_PAGE)
    }

    /// Where `lpn`'s old, parity-consistent copy is, if it has one.
    pub fn expired_of(&self, lpn: u64) -> Option<u32> {
        self.slot(self.expired_id(lpn)).filter(|&p| p != NO_PAGE)
    }

    /// Before a mirrored write of `lpn`: its current copy stays valid as the
    /// parity-consistent old copy, unless one is kept already (only the
    /// version parity covers is kept; later versions are simply replaced).
    pub fn keep_as_expired(&mut self, lpn: u64) -> Result<()> {
        let expired = self.expired_id(lpn);
        let slot = self.slot(expired).ok_or_else(|| Error::Internal(format!("lpn {lpn}: this drive keeps no copies")))?;
        let current = self.ppn_of(lpn);
        if slot == NO_PAGE && current != NO_PAGE {
            self.set_ppn(expired, current);
            self.set_id(current, expired as u32);
            self.set_ppn(lpn, NO_PAGE);
        }
        Ok(())
    }

    /// `lpn`'s stripe is parity-consistent again: its mirror and old copies go.
    pub fn drop_copies(&mut self, lpn: u64) -> Result<()> {
        for id in [self.mirror_id(lpn), self.expired_id(lpn)] {
            let ppn = self.slot(id).ok_or_else(|| Error::Internal(format!("lpn {lpn}: this drive keeps no copies")))?;
            if ppn != NO_PAGE {
                self.invalidate(ppn);
                self.set_ppn(id, NO_PAGE);
            }
        }
        Ok(())
    }

    /// Chip `chip` (numbered across the drive) fails and a fresh spare chip
    /// takes its place: every page mapped to it is unmapped and reported,
    /// its blocks are erased and their wear record starts again.
    pub fn fail_chip(&mut self, chip: u32) -> Result<ChipLoss> {
        if self.slc.is_some() {
            return Err(Error::Internal("a chip failed in a drive with an SLC cache, which validation keeps from CR5M".into()));
        }
        let l = &self.layout;
        let planes_per_chip = l.geometry.dies_per_chip * l.geometry.planes_per_die;
        if chip >= l.planes / planes_per_chip {
            return Err(Error::Internal(format!("chip {chip} does not exist")));
        }
        let (bpp, ppb) = (l.geometry.blocks_per_plane, l.geometry.pages_per_block);
        let mut loss = ChipLoss::default();
        for plane in chip * planes_per_chip..(chip + 1) * planes_per_chip {
            let first = plane * bpp;
            for ppn in first * ppb..(first + bpp) * ppb {
                let id = self.id_at(ppn);
                self.set_id(ppn, NO_PAGE);
                if id == NO_PAGE {
                    continue;
                }
                self.set_ppn(u64::from(id), NO_PAGE);
                // A lost translation page holds no host data: the controller
                // writes it afresh from its cache when next it evicts.
                if u64::from(id) >= self.translation_base {
                    continue;
                }
                let (space, lpn) = (u64::from(id) / self.logical_pages, u64::from(id) % self.logical_pages);
                let mirrored = || self.mirror_of(lpn).is_some();
                match space {
                    0 if mirrored() => loss.current_mirrored.push(lpn),
                    0 => loss.current.push(lpn),
                    1 => loss.mirror.push(lpn),
                    _ => loss.expired.push(lpn),
                }
            }
            for b in first..first + bpp {
                self.valid[b as usize] = 0;
                self.state[b as usize] = BlockState::Free;
                self.erase_count[b as usize] = 0;
                self.last_write_ns[b as usize] = 0;
            }
            self.state[first as usize] = BlockState::Open;
            let host = OpenBlock { block: first, next_page: 0 };
            self.planes[plane as usize] = Plane::new((first + 1..first + bpp).collect(), host, self.data_pages_per_block);
            self.plane_valid[plane as usize] = 0;
            self.sync_free_pages(plane);
        }
        Ok(loss)
    }
}
