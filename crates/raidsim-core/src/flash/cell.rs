//! Cells and page types: why a TLC drive's pages do not all take as long.
//!
//! A multi-level cell stores several bits, and each bit of a word line's
//! cells is read and programmed as its own page: the least significant bit
//! (LSB) page, then the centre (CSB) and most significant (MSB) pages. The
//! higher bits need finer voltage steps, so their reads and programs take
//! longer (MQSim's `Page_Read_Latency_LSB/CSB/MSB`; Tanakamaru et al.,
//! Cai et al.). Which page of a block is which type follows the order the
//! chip programs its word lines in, which interleaves the bits of
//! neighbouring word lines to limit interference:
//!
//! - SLC: every page is an LSB page.
//! - MLC: pages alternate LSB, MSB (page `p` is MSB when `p` is odd).
//! - TLC: pages 0-5 are LSB, 6-7 CSB, then pairs cycling LSB, CSB, MSB
//!   (`((p - 8) / 2) mod 3`), after Yaakobi et al., "Characterization and
//!   error-correcting codes for TLC flash memories" (ICNC 2012), as MQSim
//!   models it (`Flash_Chip::Get_command_execution_latency`).
//!
//! - QLC: each word line's four pages in turn, LSB, CSB, MSB, TSB (page
//!   `p` has type `p mod 4`): 3D QLC NAND programs a word line's bits in
//!   one full-sequence ("one-shot") operation (Li et al., "Page
//!   Type-Aware Full-Sequence Program Scheduling via Reinforcement
//!   Learning in High Density SSDs", IEEE TCAD 2024), so a block's pages
//!   come in word-line order, as NVMeVirt (Kim et al., FAST 2023) numbers
//!   them. Each page is still programmed by itself here, at its type's
//!   latency: see `docs/ssd-model.md`.
//!
//! MQSim reads an MLC upper page's latency from its CSB field (its MLC
//! uses the first two of the three); here an MLC's upper page is an MSB
//! page, with `t_read_msb_ns` and `t_program_msb_ns`.
//!
//! A block of TLC or QLC flash can also be written in SLC mode, one bit
//! per cell, as drives do for their SLC cache (`ssd.slc_cache`): its pages
//! are then [`PageType::SlcMode`] pages, with the cache's own latencies.

use crate::config::{CellType, SlcCacheConfig, TimingConfig};
use crate::engine::Ns;

/// The bit of its cells a page holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageType {
    /// Least significant bit (every page of SLC).
    Lsb = 0,
    /// Centre bit (TLC).
    Csb = 1,
    /// Most significant bit (MLC, TLC), the third of QLC's four.
    Msb = 2,
    /// Top bit, QLC's fourth.
    Tsb = 3,
    /// A page of a block written in SLC mode (the SLC cache of a TLC or
    /// QLC drive): one bit per cell.
    SlcMode = 4,
}

impl PageType {
    /// Number of page types.
    pub const COUNT: usize = 5;
}

/// The type of page `page_in_block` of a block of `cell` flash.
#[inline]
pub fn page_type(cell: CellType, page_in_block: u32) -> PageType {
    match cell {
        CellType::Slc => PageType::Lsb,
        CellType::Mlc if page_in_block % 2 == 1 => PageType::Msb,
        CellType::Mlc => PageType::Lsb,
        CellType::Tlc => match page_in_block {
            0..=5 => PageType::Lsb,
            6..=7 => PageType::Csb,
            p => [PageType::Lsb, PageType::Csb, PageType::Msb][((p - 8) / 2 % 3) as usize],
        },
        CellType::Qlc => [PageType::Lsb, PageType::Csb, PageType::Msb, PageType::Tsb][(page_in_block % 4) as usize],
    }
}

/// Read and program latency of each page type, ns (indexed by [`PageType`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageLatencies {
    /// Cell array to register.
    pub read_ns: [Ns; PageType::COUNT],
    /// Register to cells.
    pub program_ns: [Ns; PageType::COUNT],
}

impl PageLatencies {
    /// The latencies `timing` and the SLC cache give each page type; a type
    /// the drive does not have (which validation refuses a latency for)
    /// takes the LSB's.
    pub fn new(timing: &TimingConfig, slc_cache: &SlcCacheConfig) -> Self {
        let t = timing;
        // A type the drive lacks has no latency set: it takes the LSB's.
        let by_type = |lsb: Ns, csb: Option<Ns>, msb: Option<Ns>, tsb: Option<Ns>, slc_mode: Option<Ns>| {
            [lsb, csb.unwrap_or(lsb), msb.unwrap_or(lsb), tsb.unwrap_or(lsb), slc_mode.unwrap_or(lsb)]
        };
        Self {
            read_ns: by_type(t.t_read_ns, t.t_read_csb_ns, t.t_read_msb_ns, t.t_read_tsb_ns, slc_cache.t_read_ns),
            program_ns: by_type(t.t_program_ns, t.t_program_csb_ns, t.t_program_msb_ns, t.t_program_tsb_ns, slc_cache.t_program_ns),
        }
    }

    /// Read of a page of this type.
    #[inline]
    pub fn read(&self, t: PageType) -> Ns {
        self.read_ns[t as usize]
    }

    /// Program of a page of this type.
    #[inline]
    pub fn program(&self, t: PageType) -> Ns {
        self.program_ns[t as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tlc_follows_mqsims_order() {
        // MQSim: (p <= 5) ? 0 : ((p <= 7) ? 1 : (((p - 8) >> 1) % 3)), written out by hand.
        let expected = "LLLLLLCCLLCCMMLLCCMMLL";
        let got: String = (0..22)
            .map(|p| match page_type(CellType::Tlc, p) {
                PageType::Lsb => 'L',
                PageType::Csb => 'C',
                PageType::Msb => 'M',
                PageType::Tsb | PageType::SlcMode => '?',
            })
            .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn qlc_takes_each_word_lines_four_pages_in_turn() {
        let got: Vec<PageType> = (0..9).map(|p| page_type(CellType::Qlc, p)).collect();
        use PageType::*;
        assert_eq!(got, [Lsb, Csb, Msb, Tsb, Lsb, Csb, Msb, Tsb, Lsb]);
    }

    #[test]
    fn mlc_alternates_and_slc_is_all_lsb() {
        assert_eq!(page_type(CellType::Mlc, 0), PageType::Lsb);
        assert_eq!(page_type(CellType::Mlc, 7), PageType::Msb);
        assert!((0..64).all(|p| page_type(CellType::Slc, p) == PageType::Lsb));
    }
}
