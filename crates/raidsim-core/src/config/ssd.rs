//! Parameters of one flash SSD: geometry, timing, FTL.

use super::ftl::FtlConfig;
use super::mapping_cache::MappingCacheGeometry;
use super::scheduling::{CommandIssue, FlashScheduling, ParallelUnit};
use super::DerivedGeometry;
use crate::engine::MAX_DURATION_NS;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The physical organisation of the flash array.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct GeometryConfig {
    /// Independent channels (buses); chips on one channel share its bus.
    pub channels: u32,
    /// Flash chips (packages, "ways") on each channel.
    pub chips_per_channel: u32,
    /// Dies per chip; a die runs one read/program/erase at a time.
    pub dies_per_chip: u32,
    /// Planes per die; garbage collection runs per plane.
    pub planes_per_die: u32,
    /// Erase blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per erase block.
    pub pages_per_block: u32,
    /// Bytes per flash page (the mapping unit).
    pub page_size_bytes: u32,
    /// Fraction of each plane's blocks hidden from the host (0.15 = 15 %
    /// reserved), rounded down to whole blocks per plane as DiskSim does
    /// (`reserved = floor(fraction × blocks_per_plane)`).
    pub over_provisioning_fraction: f64,
    /// Spare (out-of-band, ECC) bytes that cross the channel with every
    /// 512-byte sector: DiskSim moves 528 bytes per sector (16 spare).
    pub spare_bytes_per_sector: u32,
    /// Bits per cell, which set the page types of a block and their order
    /// (`flash::cell`; each type's latencies are `ssd.timing`'s).
    pub cell_type: CellType,
    /// The last chips of each channel that hold mirror copies, not data
    /// (CR5M's mirroring chip): not part of the host's capacity. Set by
    /// `array.level = "cr5m"` for its channels, never by a config file.
    #[serde(skip)]
    pub mirroring_chips_per_channel: u32,
}

impl Default for GeometryConfig {
    // The geometry of the stripe-unit paper's Table 5 drive as DiskSim runs
    // it (32 GiB, 8 elements of one die, each on its own pins; see the preset).
    fn default() -> Self {
        Self {
            channels: 8,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 8,
            blocks_per_plane: 2048,
            pages_per_block: 64,
            page_size_bytes: 4096,
            over_provisioning_fraction: 0.15,
            spare_bytes_per_sector: 0,
            cell_type: CellType::Slc,
            mirroring_chips_per_channel: 0,
        }
    }
}

/// Bits per flash cell. Each bit of a cell is read and programmed as its
/// own page, slower for the higher bits: an MLC block interleaves LSB and
/// MSB pages, a TLC block LSB, CSB and MSB pages, a QLC block LSB, CSB,
/// MSB and TSB pages (`flash::cell`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    /// One bit: every page an LSB page.
    Slc,
    /// Two bits: LSB and MSB pages.
    Mlc,
    /// Three bits: LSB, CSB and MSB pages.
    Tlc,
    /// Four bits: LSB, CSB, MSB and TSB pages.
    Qlc,
}

impl CellType {
    /// The name a config gives it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Slc => "slc",
            Self::Mlc => "mlc",
            Self::Tlc => "tlc",
            Self::Qlc => "qlc",
        }
    }

    /// Bits each cell stores: a block written in SLC mode holds this many
    /// times fewer pages.
    pub fn bits(self) -> u32 {
        match self {
            Self::Slc => 1,
            Self::Mlc => 2,
            Self::Tlc => 3,
            Self::Qlc => 4,
        }
    }
}

/// Latencies and bandwidths.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TimingConfig {
    /// Page read: cell array to the die's register, ns; of an LSB page,
    /// every page of SLC flash.
    pub t_read_ns: u64,
    /// Page program: register to cells, ns; of an LSB page, every page of
    /// SLC flash.
    pub t_program_ns: u64,
    /// Read of a CSB (centre-bit) page of TLC or QLC flash, ns (MQSim's
    /// `Page_Read_Latency_CSB`); required for them, refused otherwise.
    pub t_read_csb_ns: Option<u64>,
    /// Read of an MSB page of MLC, TLC or QLC flash, ns; required for them,
    /// refused for SLC.
    pub t_read_msb_ns: Option<u64>,
    /// Read of a TSB (top-bit) page of QLC flash, ns; required for QLC,
    /// refused otherwise.
    pub t_read_tsb_ns: Option<u64>,
    /// Program of a CSB page of TLC or QLC flash, ns (MQSim's
    /// `Page_Program_Latency_CSB`); required for them, refused otherwise.
    pub t_program_csb_ns: Option<u64>,
    /// Program of an MSB page of MLC, TLC or QLC flash, ns; required for
    /// them, refused for SLC.
    pub t_program_msb_ns: Option<u64>,
    /// Program of a TSB page of QLC flash, ns; required for QLC, refused
    /// otherwise.
    pub t_program_tsb_ns: Option<u64>,
    /// Block erase, ns.
    pub t_erase_ns: u64,
    /// Command and address cycles on the channel per flash operation, ns.
    pub t_command_ns: u64,
    /// Whether a read's command cycles need the channel free, as its data
    /// does (MQSim; ONFI sends commands over the bus): a die then cannot
    /// start sensing while its channel moves another die's data. Otherwise
    /// they are charged to the die alone (DiskSim). A program's command
    /// always crosses the channel with its data.
    pub read_command_on_channel: bool,
    /// Channel (flash bus) bandwidth, bytes per second (DiskSim's 25 ns/byte = 40e6).
    pub channel_bandwidth_bytes_per_s: u64,
    /// Host link bandwidth, bytes per second (SATA-II: 300e6); 0 = infinitely fast.
    pub host_link_bandwidth_bytes_per_s: u64,
    /// A SATA host bus adapter's time to send one command, and again to
    /// take in one completion, each one at a time, ns (MQSim's
    /// `SATA_Processing_Delay`; see `ssd::sata_hba`). 0 = none (NVMe).
    pub sata_hba_processing_ns: u64,
    /// Fixed controller time per host request (command decode, FTL lookup), ns.
    /// Requests overlap in it; for work one at a time see `firmware_*_ns`.
    pub controller_overhead_ns: u64,
    /// Time the drive's embedded processor spends on each read command,
    /// one command at a time, ns: a single-core controller (the Indilinx
    /// Barefoot's ARM7, the Intel X25's) caps the drive at 1 / this reads
    /// per second whatever the queue depth. 0 = no such limit.
    pub firmware_read_ns: u64,
    /// The same for each write command, ns: mapping-table and log-block
    /// bookkeeping per write. A drive whose firmware pays this on every
    /// small write keeps its random-write IOPS flat with queue depth, as
    /// the RAIS paper's SSD(A) does (its Figure 2a). 0 = no such limit.
    pub firmware_write_ns: u64,
    /// Processor time per page a write command carries, ns, on top of
    /// `firmware_write_ns`: a controller whose data path moves writes at a
    /// fixed rate (the RAIS paper's SSD(B) writes 175 MB/s with flash
    /// that programs faster) caps sequential writes at page size / this.
    pub firmware_write_page_ns: u64,
}

impl Default for TimingConfig {
    fn default() -> Self {
        Self {
            t_read_ns: 25_000,
            t_program_ns: 200_000,
            t_erase_ns: 1_500_000,
            t_read_csb_ns: None,
            t_read_msb_ns: None,
            t_program_csb_ns: None,
            t_program_msb_ns: None,
            t_read_tsb_ns: None,
            t_program_tsb_ns: None,
            t_command_ns: 0,
            read_command_on_channel: false,
            channel_bandwidth_bytes_per_s: 40_000_000,
            host_link_bandwidth_bytes_per_s: 300_000_000,
            sata_hba_processing_ns: 0,
            controller_overhead_ns: 0,
            firmware_read_ns: 0,
            firmware_write_ns: 0,
            firmware_write_page_ns: 0,
        }
    }
}

/// When the drive acknowledges a write.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WriteAck {
    /// When the last page is programmed (DiskSim, MQSim without a cache).
    Program,
    /// When the last page's data reaches the chip's register; the program
    /// still keeps the chip busy (SSDsim).
    Transfer,
}

/// Until when a page in the DRAM write buffer holds its slot.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BufferSlotUntil {
    /// Until its data has crossed the channel into its die, whose register
    /// holds it while it programs.
    Transferred,
    /// Until its program has ended (MQSim's data cache, whose back-pressure
    /// counts a write back until the flash reports it done).
    Programmed,
}

/// What a DRAM write buffer's room is counted in.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BufferUnit {
    /// A page per page written, however little of it the write covers.
    #[default]
    Page,
    /// The sectors written: a write of half a page takes half a page's
    /// room (MQSim's back-pressure counts sectors).
    Sector,
}

/// One SSD.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SsdConfig {
    /// Flash organisation.
    pub geometry: GeometryConfig,
    /// Latencies and bandwidths.
    pub timing: TimingConfig,
    /// Flash translation layer.
    pub ftl: FtlConfig,
    /// Host requests the drive works on at once; later ones wait in its queue.
    pub queue_depth: u32,
    /// When a write is acknowledged.
    pub write_ack: WriteAck,
    /// DRAM write buffer (write-back cache), bytes; 0 = none. A write is
    /// acknowledged once its data is in the buffer; each page holds its slot
    /// until it has crossed into its die (see `ssd::write_buffer`). A whole
    /// number of pages, at most the drive's capacity.
    pub write_buffer_bytes: u64,
    /// Until when a buffered page holds its slot (a buffer only).
    pub write_buffer_slot_until: BufferSlotUntil,
    /// What the buffer's room is counted in (a buffer only).
    pub write_buffer_unit: BufferUnit,
    /// A DRAM cache that keeps pages rewritten soon (MQSim's data cache).
    pub write_cache: super::write_cache::WriteCacheConfig,
    /// The unit that runs one flash operation at a time.
    pub parallel_unit: ParallelUnit,
    /// The order in which a unit serves the operations waiting for it.
    pub scheduling: FlashScheduling,
    /// A unit about to program a waiting page also programs the pages
    /// waiting for the other planes of its die at the same page offset, in
    /// one multi-plane command (MQSim; `reads_first` only).
    pub multi_plane_programs: bool,
    /// When a page read is issued to its unit and its command to the
    /// channel (`reads_first` only).
    pub command_issue: CommandIssue,
    /// Reads (and writes) that suspend an erase in their way.
    pub erase_suspend: super::erase_suspend::EraseSuspendConfig,
    /// Blocks written in SLC mode in front of TLC or QLC flash.
    pub slc_cache: super::slc_cache::SlcCacheConfig,
    /// Purchase price of one drive, US dollars (the RAIS paper's Table 2),
    /// for the report's cost efficiency; 0 = unpriced.
    pub price_usd: f64,
}

impl Default for SsdConfig {
    fn default() -> Self {
        Self {
            geometry: GeometryConfig::default(),
            timing: TimingConfig::default(),
            ftl: FtlConfig::default(),
            queue_depth: 32,
            write_ack: WriteAck::Program,
            write_buffer_bytes: 0,
            write_buffer_slot_until: BufferSlotUntil::Transferred,
            write_buffer_unit: BufferUnit::Page,
            write_cache: Default::default(),
            parallel_unit: ParallelUnit::Die,
            scheduling: FlashScheduling::ArrivalOrder,
            multi_plane_programs: false,
            command_issue: CommandIssue::Planned,
            erase_suspend: Default::default(),
            slc_cache: Default::default(),
            price_usd: 0.0,
        }
    }
}

/// A duration parameter of at most [`MAX_DURATION_NS`]: larger ones are
/// typing errors, and would overflow simulated time.
pub(crate) fn at_most_an_hour(key: &str, ns: u64) -> Result<()> {
    if ns > MAX_DURATION_NS {
        return Err(Error::config(key, format!("{ns} ns is more than an hour ({MAX_DURATION_NS} ns), the longest duration a parameter may give")));
    }
    Ok(())
}

fn positive(key: &str, value: u64) -> Result<u64> {
    if value == 0 {
        return Err(Error::config(key, "must be at least 1"));
    }
    Ok(value)
}

impl SsdConfig {
    /// Checks the parameters and derives the geometry.
    pub fn validate(&self) -> Result<DerivedGeometry> {
        let g = &self.geometry;
        let channels = positive("ssd.geometry.channels", g.channels.into())?;
        let chips = positive("ssd.geometry.chips_per_channel", g.chips_per_channel.into())?;
        let dies_per_chip = positive("ssd.geometry.dies_per_chip", g.dies_per_chip.into())?;
        let planes_per_die = positive("ssd.geometry.planes_per_die", g.planes_per_die.into())?;
        let blocks_per_plane = positive("ssd.geometry.blocks_per_plane", g.blocks_per_plane.into())?;
        let pages_per_block = positive("ssd.geometry.pages_per_block", g.pages_per_block.into())?;
        if g.page_size_bytes < 512 || g.page_size_bytes % 512 != 0 {
            return Err(Error::config("ssd.geometry.page_size_bytes", "must be a positive multiple of 512"));
        }
        if self.write_buffer_bytes % u64::from(g.page_size_bytes) != 0 {
            return Err(Error::config("ssd.write_buffer_bytes", format!("must be a whole number of {}-byte pages", g.page_size_bytes)));
        }
        if self.write_buffer_bytes > 0 && self.write_ack != WriteAck::Program {
            return Err(Error::config(
                "ssd.write_ack",
                "a write buffer acknowledges writes itself (when their data is in it): leave write_ack = \"program\"",
            ));
        }
        if u64::from(self.ftl.summary_pages_per_block) >= pages_per_block {
            return Err(Error::config("ssd.ftl.summary_pages_per_block", "must leave at least one data page per block"));
        }
        if pages_per_block > u64::from(u16::MAX) {
            return Err(Error::config("ssd.geometry.pages_per_block", "must be at most 65535"));
        }
        if !(0.0..1.0).contains(&g.over_provisioning_fraction) {
            return Err(Error::config("ssd.geometry.over_provisioning_fraction", "must lie in [0, 1)"));
        }
        let too_large = |what: &str| Error::config("ssd.geometry", format!("{what} overflows: the geometry is too large"));
        let dies = channels.checked_mul(chips).and_then(|x| x.checked_mul(dies_per_chip)).ok_or_else(|| too_large("channels × chips × dies"))?;
        let planes = dies.checked_mul(planes_per_die).ok_or_else(|| too_large("dies × planes per die"))?;
        let blocks = planes.checked_mul(blocks_per_plane).ok_or_else(|| too_large("planes × blocks per plane"))?;
        let physical_pages = blocks.checked_mul(pages_per_block).ok_or_else(|| too_large("blocks × pages per block"))?;
        if physical_pages >= u64::from(u32::MAX) {
            return Err(Error::config(
                "ssd.geometry",
                format!("{physical_pages} physical pages: at most 2^32 - 1 pages per drive (use larger pages)"),
            ));
        }
        if self.write_buffer_slot_until != BufferSlotUntil::Transferred && self.write_buffer_bytes == 0 {
            return Err(Error::config("ssd.write_buffer_slot_until", "applies to a write buffer: set ssd.write_buffer_bytes"));
        }
        if self.write_buffer_unit != BufferUnit::Page && self.write_buffer_bytes == 0 {
            return Err(Error::config("ssd.write_buffer_unit", "applies to a write buffer: set ssd.write_buffer_bytes"));
        }
        self.write_cache.validate(u64::from(g.page_size_bytes), self.write_buffer_bytes)?;
        self.ftl.validate_choices()?;
        let threshold = &self.ftl.gc_threshold_fraction;
        // Below two free blocks a plane could have nowhere to copy a victim's
        // valid pages, so the threshold never drops under two.
        let gc_threshold_blocks = ((blocks_per_plane as f64 * threshold).ceil() as u32).max(2);
        // The reserve is whole blocks of every plane, and summary pages hold
        // no data (DiskSim's `ssd_element_metadata_init`).
        let spare_blocks_per_plane = (blocks_per_plane as f64 * g.over_provisioning_fraction).floor() as u64;
        let data_pages = pages_per_block - u64::from(self.ftl.summary_pages_per_block);
        let mirroring = u64::from(g.mirroring_chips_per_channel);
        if mirroring >= chips {
            return Err(Error::config(
                "ssd.geometry.chips_per_channel",
                format!("{chips} chips per channel leave no data chip beside {mirroring} mirroring"),
            ));
        }
        let data_planes = channels * (chips - mirroring) * dies_per_chip * planes_per_die;
        let logical_pages = data_planes * (blocks_per_plane - spare_blocks_per_plane) * data_pages;
        if mirroring > 0 && logical_pages * 3 >= u64::from(u32::MAX) {
            return Err(Error::config("ssd.geometry", "with a mirroring chip, 3 x the logical pages must stay below 2^32 (use larger pages)"));
        }
        // With fewer than three spare blocks per plane, a full plane may hold
        // no block with an invalid page when it needs one; each open block
        // of its own (collection's, the map's) needs one more.
        let open_apart = self.ftl.open_blocks_apart();
        if spare_blocks_per_plane < 3 + open_apart {
            return Err(Error::config(
                "ssd.geometry.over_provisioning_fraction",
                format!(
                    "leaves {spare_blocks_per_plane} spare blocks per plane; garbage collection needs at \
                     least {} (one to copy into, one open, one to reclaim{}); raise over-provisioning",
                    3 + open_apart,
                    if open_apart > 0 { ", and one for each open block ssd.ftl.write_frontiers keeps apart" } else { "" }
                ),
            ));
        }
        super::ftl::validate_order(&self.ftl.static_order)?;
        super::ftl::validate_place_unwritten_reads(self)?;
        let gc_hard_threshold_blocks = super::ftl::validate_gc_hard_threshold(self, gc_threshold_blocks)?;
        super::log_blocks::validate(self, spare_blocks_per_plane)?;
        self.slc_cache.validate(self, spare_blocks_per_plane)?;
        let t = &self.timing;
        for (key, ns) in [
            ("ssd.timing.t_read_ns", t.t_read_ns),
            ("ssd.timing.t_program_ns", t.t_program_ns),
            ("ssd.timing.t_erase_ns", t.t_erase_ns),
            ("ssd.timing.t_command_ns", t.t_command_ns),
            ("ssd.timing.controller_overhead_ns", t.controller_overhead_ns),
            ("ssd.timing.firmware_read_ns", t.firmware_read_ns),
            ("ssd.timing.firmware_write_ns", t.firmware_write_ns),
            ("ssd.timing.firmware_write_page_ns", t.firmware_write_page_ns),
            ("ssd.timing.sata_hba_processing_ns", t.sata_hba_processing_ns),
        ] {
            at_most_an_hour(key, ns)?;
        }
        check_page_types(g.cell_type, t)?;
        self.erase_suspend.validate()?;
        super::scheduling::validate(self)?;
        positive("ssd.timing.channel_bandwidth_bytes_per_s", t.channel_bandwidth_bytes_per_s)?;
        positive("ssd.queue_depth", self.queue_depth.into())?;
        let capacity_bytes = logical_pages * u64::from(g.page_size_bytes);
        if self.write_buffer_bytes > capacity_bytes {
            return Err(Error::config(
                "ssd.write_buffer_bytes",
                format!(
                    "{} bytes is more than the drive holds ({capacity_bytes} bytes): a buffer is a small DRAM in front of the flash",
                    self.write_buffer_bytes
                ),
            ));
        }
        let mapping_cache = MappingCacheGeometry::new(self.ftl.scheme, self.ftl.cmt_bytes, physical_pages, u64::from(g.page_size_bytes))?;
        Ok(DerivedGeometry {
            mapping_cache,
            dies: dies as u32,
            planes: planes as u32,
            blocks,
            physical_pages,
            logical_pages,
            capacity_bytes,
            gc_threshold_blocks,
            gc_hard_threshold_blocks,
            page_transfer_ns: transfer_ns(bus_bytes(u64::from(g.page_size_bytes), g.spare_bytes_per_sector), t.channel_bandwidth_bytes_per_s),
        })
    }
}

/// Bytes that cross a flash channel to move `bytes` of data: whole 512-byte
/// sectors, each with its spare bytes.
pub fn bus_bytes(bytes: u64, spare_bytes_per_sector: u32) -> u64 {
    bytes.div_ceil(512) * (512 + u64::from(spare_bytes_per_sector))
}

/// Time to move `bytes` at `bytes_per_s`, rounded up to whole ns; 0 bandwidth = instant.
pub fn transfer_ns(bytes: u64, bytes_per_s: u64) -> u64 {
    if bytes_per_s == 0 {
        return 0;
    }
    // Every page-sized transfer fits in 64 bits, whose division is several
    // times cheaper than the 128-bit one; both give the same whole ns.
    if let Some(num) = bytes.checked_mul(1_000_000_000) {
        return num.div_ceil(bytes_per_s);
    }
    let num = u128::from(bytes) * 1_000_000_000u128;
    num.div_ceil(u128::from(bytes_per_s)) as u64
}

/// Each page type of the cell type has its latencies, and no other type
/// does: a latency the cells cannot use would be silently ignored.
fn check_page_types(cell: CellType, t: &TimingConfig) -> Result<()> {
    let (csb, msb, tsb) = match cell {
        CellType::Slc => (false, false, false),
        CellType::Mlc => (false, true, false),
        CellType::Tlc => (true, true, false),
        CellType::Qlc => (true, true, true),
    };
    for (key, value, wanted) in [
        ("ssd.timing.t_read_csb_ns", t.t_read_csb_ns, csb),
        ("ssd.timing.t_program_csb_ns", t.t_program_csb_ns, csb),
        ("ssd.timing.t_read_msb_ns", t.t_read_msb_ns, msb),
        ("ssd.timing.t_program_msb_ns", t.t_program_msb_ns, msb),
        ("ssd.timing.t_read_tsb_ns", t.t_read_tsb_ns, tsb),
        ("ssd.timing.t_program_tsb_ns", t.t_program_tsb_ns, tsb),
    ] {
        match (value, wanted) {
            (Some(ns), true) => at_most_an_hour(key, ns)?,
            (None, false) => {}
            (None, true) => {
                return Err(Error::config(key, format!("ssd.geometry.cell_type = \"{}\" has this page type: give its latency", cell.name())));
            }
            (Some(_), false) => {
                return Err(Error::config(
                    key,
                    format!(
                        "ssd.geometry.cell_type = \"{}\" has no such page type (LSB pages use t_read_ns and t_program_ns{})",
                        cell.name(),
                        if cell == CellType::Mlc { "; an MLC upper page is an MSB page: t_read_msb_ns, t_program_msb_ns" } else { "" }
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disksim_transfer_is_102_4_us_per_4k_page() {
        assert_eq!(transfer_ns(4096, 40_000_000), 102_400);
    }

    /// Both divisions round up to the same whole ns, on each side of the
    /// 64-bit limit of `bytes × 10⁹` (hand-worked ceilings).
    #[test]
    fn transfers_round_up_alike_in_64_and_128_bits() {
        // 10⁹ / 3 = 333,333,333.3 -> 333,333,334.
        assert_eq!(transfer_ns(1, 3), 333_333_334);
        let limit = u64::MAX / 1_000_000_000; // the last byte count on the 64-bit path
        assert_eq!(transfer_ns(limit, 1_000_000_000), limit);
        assert_eq!(transfer_ns(limit + 1, 1_000_000_000), limit + 1);
        // (limit + 1) × 10⁹ / 7, exactly, rounded up: past 64 bits.
        let wide = (u128::from(limit + 1) * 1_000_000_000).div_ceil(7) as u64;
        assert_eq!(transfer_ns(limit + 1, 7), wide);
        assert_eq!(transfer_ns(limit, 7), (u128::from(limit) * 1_000_000_000).div_ceil(7) as u64);
    }

    #[test]
    fn disksim_moves_528_bytes_per_sector_105_6_us_per_page() {
        assert_eq!(transfer_ns(bus_bytes(4096, 16), 40_000_000), 105_600);
        assert_eq!(bus_bytes(1, 16), 528);
    }

    #[test]
    fn disksim_validation_drive_exports_877464_pages_per_element() {
        // 2048 blocks/plane, 15 % reserve: floor(307.2) = 307 reserved,
        // 1741 usable blocks × 8 planes × 63 data pages (one summary page).
        let mut ssd = SsdConfig::default();
        ssd.ftl.summary_pages_per_block = 1;
        let d = ssd.validate().expect("valid");
        assert_eq!(d.logical_pages, 8 * 877_464);
    }

    #[test]
    fn huge_geometry_is_an_error_not_an_overflow() {
        let mut ssd = SsdConfig::default();
        ssd.geometry.channels = u32::MAX;
        ssd.geometry.chips_per_channel = u32::MAX;
        ssd.geometry.dies_per_chip = u32::MAX;
        let err = ssd.validate().expect_err("too large").to_string();
        assert!(err.contains("overflows"), "{err}");
    }

    #[test]
    fn too_little_over_provisioning_says_why() {
        let mut ssd = SsdConfig::default();
        ssd.geometry.over_provisioning_fraction = 0.0;
        let err = ssd.validate().expect_err("no spare blocks").to_string();
        assert!(err.contains("spare blocks"), "{err}");
    }
}
