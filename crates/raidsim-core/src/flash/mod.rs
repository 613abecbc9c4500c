//! Flash array addressing: channels × chips × dies × planes × blocks × pages.
//!
//! A physical page number (ppn) is `(plane × blocks_per_plane + block) ×
//! pages_per_block + page`, with planes numbered channel-major:
//! `plane = ((channel × chips + chip) × dies_per_chip + die) × planes_per_die +
//! plane_in_die`. A die (the unit that runs one read, program or erase at a
//! time) is `plane / planes_per_die`, and its channel is `die /
//! (chips × dies_per_chip)`.

pub mod cell;

use crate::config::{DerivedGeometry, GeometryConfig};

/// Sentinel for "no page".
pub const NO_PAGE: u32 = u32::MAX;

/// Address arithmetic for one drive's flash array: its geometry as
/// configured, and the totals derived from it.
#[derive(Clone, Debug)]
pub struct FlashLayout {
    /// Channels, chips, dies, planes, blocks and pages, as configured
    /// (with the CR5M mirroring chips, when the array sets them).
    pub geometry: GeometryConfig,
    /// Total planes.
    pub planes: u32,
    /// Total dies.
    pub dies: u32,
    /// Blocks of each plane in the dense cells: the first ones. The rest,
    /// the SLC cache's (`ssd.slc_cache`), are written in SLC mode.
    pub native_blocks_per_plane: u32,
}

impl FlashLayout {
    /// The layout of a validated geometry whose planes each keep
    /// `slc_blocks_per_plane` blocks in SLC mode.
    pub fn new(g: &GeometryConfig, d: &DerivedGeometry, slc_blocks_per_plane: u32) -> Self {
        Self { geometry: g.clone(), planes: d.planes, dies: d.dies, native_blocks_per_plane: g.blocks_per_plane - slc_blocks_per_plane }
    }

    /// The global block numbers of `plane`'s blocks in the dense cells.
    #[inline]
    pub fn native_blocks(&self, plane: u32) -> std::ops::Range<u32> {
        let first = plane * self.geometry.blocks_per_plane;
        first..first + self.native_blocks_per_plane
    }

    /// The global block numbers of `plane`'s SLC-cache blocks.
    #[inline]
    pub fn slc_blocks(&self, plane: u32) -> std::ops::Range<u32> {
        let first = plane * self.geometry.blocks_per_plane;
        first + self.native_blocks_per_plane..first + self.geometry.blocks_per_plane
    }

    /// Global block index of a ppn.
    #[inline]
    pub fn block_of(&self, ppn: u32) -> u32 {
        ppn / self.geometry.pages_per_block
    }

    /// Plane of a global block index.
    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 {
        block / self.geometry.blocks_per_plane
    }

    /// Die of a plane.
    #[inline]
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        plane / self.geometry.planes_per_die
    }

    /// Chip (package) of a die, numbered across the drive.
    #[inline]
    pub fn chip_of_die(&self, die: u32) -> u32 {
        die / self.geometry.dies_per_chip
    }

    /// Channel of a die.
    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 {
        die / (self.geometry.chips_per_channel * self.geometry.dies_per_chip)
    }

    /// Data chips on each channel (the others mirror).
    #[inline]
    pub fn data_chips_per_channel(&self) -> u32 {
        self.geometry.chips_per_channel - self.geometry.mirroring_chips_per_channel
    }

    /// True when the die belongs to a mirroring chip.
    #[inline]
    pub fn is_mirroring_die(&self, die: u32) -> bool {
        self.chip_of_die(die) % self.geometry.chips_per_channel >= self.data_chips_per_channel()
    }

    /// The page type of a ppn: its cells' bit ([`cell`]).
    #[inline]
    pub fn page_type(&self, ppn: u32) -> cell::PageType {
        // Every page of SLC is an LSB page: no division on the hot path of the common case.
        if self.geometry.cell_type == crate::config::CellType::Slc {
            return cell::PageType::Lsb;
        }
        let ppb = self.geometry.pages_per_block;
        // Without an SLC cache every block is dense: no division to ask.
        let has_cache = self.native_blocks_per_plane < self.geometry.blocks_per_plane;
        if has_cache && (ppn / ppb) % self.geometry.blocks_per_plane >= self.native_blocks_per_plane {
            return cell::PageType::SlcMode;
        }
        cell::page_type(self.geometry.cell_type, ppn % ppb)
    }

    /// First ppn of a global block.
    #[inline]
    pub fn first_page(&self, block: u32) -> u32 {
        block * self.geometry.pages_per_block
    }
}
