//! The member-device interface: what an array controller (or the host, for a
//! single drive) sees of an SSD, a hard disk, or one channel of an SSD.
//!
//! A device takes [`DeviceRequest`]s, each tagged with the [`Cause`] that
//! produced it, and reports when each finishes. It may queue requests beyond
//! its own queue depth; when one finishes the engine calls
//! [`MemberDevice::complete`], which may dispatch a queued one. Every page a
//! device reads or writes is counted by cause ([`CauseCounters`]), so every
//! figure of the papers is a group-by over those counters.

use crate::engine::Ns;
use serde::Serialize;

/// Direction of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Read.
    Read,
    /// Write.
    Write,
}

/// Why an I/O happens; every device-level page count is keyed by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// Data the host asked for.
    User,
    /// Pre-read of old data and parity for a read-modify-write.
    PreReadRmw,
    /// Pre-read of untouched data for a reconstruct-write.
    PreReadRcw,
    /// Parity write.
    Parity,
    /// Mirror copy write.
    Mirror,
    /// Garbage collection: reading a valid page to move it.
    GcRead,
    /// Garbage collection: writing a moved page.
    GcWrite,
    /// Block erase.
    Erase,
    /// Reading survivors to serve a read of a lost unit.
    DegradedRead,
    /// Reading survivors to rebuild a lost device.
    RebuildRead,
    /// Writing rebuilt data to a spare.
    RebuildWrite,
    /// Inside an SSD: reading a page's old contents so that a write of part
    /// of the page can program it whole (flash programs whole pages).
    PartialPageRead,
    /// Reading a page's current contents for a rebuild that copies rather
    /// than decodes (CR5M: a mirror copy onto the replacement chip, a page
    /// onto a new mirroring chip, the current data a parity is rebuilt from).
    RebuildCopyRead,
}

impl Cause {
    /// Number of causes.
    pub const COUNT: usize = 13;
    /// Every cause, in index order.
    pub const ALL: [Cause; Cause::COUNT] = [
        Cause::User,
        Cause::PreReadRmw,
        Cause::PreReadRcw,
        Cause::Parity,
        Cause::Mirror,
        Cause::GcRead,
        Cause::GcWrite,
        Cause::Erase,
        Cause::DegradedRead,
        Cause::RebuildRead,
        Cause::RebuildWrite,
        Cause::PartialPageRead,
        Cause::RebuildCopyRead,
    ];

    /// Position in [`Cause::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// `(name, count)` of every cause with a non-zero count, in cause order.
    pub fn nonzero_by_name(counts: &[u64; Cause::COUNT]) -> std::collections::BTreeMap<&'static str, u64> {
        Cause::ALL.iter().filter(|c| counts[c.index()] > 0).map(|c| (c.name(), counts[c.index()])).collect()
    }

    /// The snake_case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Cause::User => "user",
            Cause::PreReadRmw => "pre_read_rmw",
            Cause::PreReadRcw => "pre_read_rcw",
            Cause::Parity => "parity",
            Cause::Mirror => "mirror",
            Cause::GcRead => "gc_read",
            Cause::GcWrite => "gc_write",
            Cause::Erase => "erase",
            Cause::DegradedRead => "degraded_read",
            Cause::RebuildRead => "rebuild_read",
            Cause::RebuildWrite => "rebuild_write",
            Cause::PartialPageRead => "partial_page_read",
            Cause::RebuildCopyRead => "rebuild_copy_read",
        }
    }
}

/// One request to a member device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceRequest {
    /// Caller's handle, returned on completion.
    pub token: u64,
    /// Read or write.
    pub op: Op,
    /// First byte on the device.
    pub offset_bytes: u64,
    /// Length in bytes (> 0).
    pub len_bytes: u64,
    /// Why it is issued.
    pub cause: Cause,
}

/// A request the device has started, and when it will finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// The request's token.
    pub token: u64,
    /// Completion instant.
    pub done_ns: Ns,
}

/// Page and erase counts of one device, by cause.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CauseCounters {
    /// Flash pages (or sectors' worth of pages, for disks) read, by cause.
    pub pages_read: [u64; Cause::COUNT],
    /// Pages written, by cause.
    pub pages_written: [u64; Cause::COUNT],
    /// Blocks erased.
    pub erases: u64,
}

/// An SSD, a hard disk, or one channel of an SSD, as a member of an array.
pub trait MemberDevice {
    /// Bytes the device exposes.
    fn capacity_bytes(&self) -> u64;
    /// Accepts a request at `now_ns`; returns its dispatch if it starts at
    /// once, `None` if it waits in the device's queue.
    fn submit(&mut self, now_ns: Ns, request: DeviceRequest) -> crate::Result<Option<Dispatch>>;
    /// Tells the device a dispatched request has finished; returns the
    /// dispatch of a queued request that starts now, if any.
    fn complete(&mut self, now_ns: Ns) -> crate::Result<Option<Dispatch>>;
    /// Page counts by cause since the last reset.
    fn counters(&self) -> &CauseCounters;
}

/// A member of any kind, with static dispatch: the simulation and the
/// report speak to members only through this type.
// Members are few and live as long as the run: boxing the larger variant
// would only add a pointer chase to every submit.
#[allow(clippy::large_enum_variant)]
pub enum Member {
    /// A flash SSD.
    Ssd(crate::ssd::Ssd),
    /// A hard disk.
    Hdd(crate::hdd::Hdd),
}

/// Forwards a call to whichever device a [`Member`] holds.
macro_rules! each_member {
    ($member:expr, $device:ident => $body:expr) => {
        match $member {
            Member::Ssd($device) => $body,
            Member::Hdd($device) => $body,
        }
    };
}

impl Member {
    /// Prefetches an SSD's map entry at byte `offset_bytes`; a disk has none.
    pub fn prefetch_map_at(&self, offset_bytes: u64) {
        if let Member::Ssd(ssd) = self {
            ssd.prefetch_map_at(offset_bytes);
        }
    }

    /// Builds member `index` of `cfg`; `seed` is the run's (a disk's
    /// spindle phase is drawn from it when spindles are not synchronized).
    /// An SSD polls `stop` between the pages of a long request; a disk
    /// serves any request in a few steps.
    pub fn new(cfg: &crate::config::MemberConfig, index: u32, seed: u64, stop: &crate::engine::StopFlag) -> Self {
        match cfg {
            crate::config::MemberConfig::Ssd { ssd, geometry } => {
                let mut drive = crate::ssd::Ssd::new(ssd, geometry);
                drive.watch(stop.clone());
                Member::Ssd(drive)
            }
            crate::config::MemberConfig::Hdd { hdd, geometry } => {
                Member::Hdd(crate::hdd::Hdd::new(hdd, geometry, seed ^ u64::from(index).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
            }
        }
    }

    /// The page writes of preconditioning; a disk needs none.
    pub fn precondition_plan(&self, cfg: &crate::config::PreconditionConfig) -> crate::ssd::PreconditionPlan {
        match self {
            Member::Ssd(ssd) => ssd.precondition_plan(cfg),
            Member::Hdd(_) => crate::ssd::PreconditionPlan::default(),
        }
    }

    /// Preconditioning writes `writes` (see [`crate::ssd::Ssd::precondition_writes`]).
    pub fn precondition_writes<R: rand::Rng>(
        &mut self,
        writes: std::ops::Range<u64>,
        plan: &crate::ssd::PreconditionPlan,
        rng: &mut R,
    ) -> crate::Result<()> {
        match self {
            Member::Ssd(ssd) => ssd.precondition_writes(writes, plan, rng),
            Member::Hdd(_) if writes.is_empty() => Ok(()),
            Member::Hdd(_) => Err(crate::Error::Internal("preconditioning writes planned for a hard disk".into())),
        }
    }

    /// Ends preconditioning (or a warm-up): counters restart; wear is kept.
    pub fn restart_counters(&mut self) {
        if let Member::Ssd(ssd) = self {
            ssd.precondition_done();
        }
    }

    /// Adds the member's statistics under `name` (`member[3]`).
    pub fn stats(&self, name: &str, out: &mut crate::metrics::Stats) {
        each_member!(self, d => d.stats(name, out))
    }

    /// Collections the member began itself since it was built (0 for a disk).
    pub fn own_gc_starts(&self) -> u64 {
        match self {
            Member::Ssd(ssd) => ssd.own_gc_starts(),
            Member::Hdd(_) => 0,
        }
    }

    /// Harmonia's forced collection at `now_ns` (see [`Ssd::force_gc`]);
    /// a disk has nothing to collect.
    pub fn force_gc(&mut self, now_ns: crate::engine::Ns, free_fraction: f64) -> crate::error::Result<u64> {
        match self {
            Member::Ssd(ssd) => ssd.force_gc(now_ns, free_fraction),
            Member::Hdd(_) => Ok(0),
        }
    }

    /// Writes that triggered garbage collection (0 for a disk).
    pub fn gc_runs(&self) -> u64 {
        match self {
            Member::Ssd(ssd) => ssd.gc_runs(),
            Member::Hdd(_) => 0,
        }
    }

    /// Media writes per write received: flash pages programmed per page the
    /// host wrote, or 1 for a disk that wrote anything (it writes in place);
    /// 0 when nothing was written.
    pub fn write_amplification(&self) -> f64 {
        match self {
            Member::Ssd(ssd) => ssd.write_amplification(),
            Member::Hdd(hdd) => f64::from(u8::from(hdd.counters().pages_written.iter().any(|&n| n > 0))),
        }
    }

    /// Per-block erase counts (empty for a disk).
    pub fn erase_counts(&self) -> &[u32] {
        match self {
            Member::Ssd(ssd) => ssd.ftl().erase_counts(),
            Member::Hdd(_) => &[],
        }
    }

    /// Pages programmed on each chip, GC aside (empty for a disk).
    pub fn chip_pages_written(&self) -> &[u64] {
        match self {
            Member::Ssd(ssd) => ssd.chip_pages_written(),
            Member::Hdd(_) => &[],
        }
    }

    /// With a drive write buffer: when the flash finished programming the
    /// last page the buffer took (0 without one, and for a disk).
    pub fn flash_programmed_until_ns(&self) -> Ns {
        self.as_ssd().map_or(0, crate::ssd::Ssd::flash_programmed_until_ns)
    }

    /// CR5M: whether the member's mirroring chips are idle at `now_ns`
    /// (false when it has none).
    pub fn mirroring_chips_idle(&self, now_ns: Ns) -> bool {
        self.as_ssd().is_some_and(|ssd| ssd.mirroring_chips_idle(now_ns))
    }

    /// CR5M bookkeeping on the member's mapping (an SSD channel with a mirroring chip).
    pub fn remap(&mut self, remap: crate::array::mirroring::Remap, offset_bytes: u64, len_bytes: u64) -> crate::Result<()> {
        use crate::array::mirroring::Remap;
        match (self, remap) {
            (Member::Ssd(ssd), Remap::KeepAsExpired) => ssd.keep_as_expired(offset_bytes, len_bytes),
            (Member::Ssd(ssd), Remap::DropCopies) => ssd.drop_copies(offset_bytes, len_bytes),
            (Member::Hdd(_), _) => Err(crate::Error::Internal("a mirroring write planned for a hard disk".into())),
        }
    }

    /// Chip `chip` of this member (an SSD channel) fails; a spare chip
    /// replaces it. Returns the pages lost.
    pub fn fail_chip(&mut self, chip: u32) -> crate::Result<crate::ftl::ChipLoss> {
        match self {
            Member::Ssd(ssd) => ssd.fail_chip(chip),
            Member::Hdd(_) => Err(crate::Error::Internal("a chip failure planned for a hard disk".into())),
        }
    }

    /// The SSD, if the member is one.
    pub fn as_ssd(&self) -> Option<&crate::ssd::Ssd> {
        match self {
            Member::Ssd(ssd) => Some(ssd),
            Member::Hdd(_) => None,
        }
    }

    /// The disk, if the member is one.
    pub fn as_hdd(&self) -> Option<&crate::hdd::Hdd> {
        match self {
            Member::Hdd(hdd) => Some(hdd),
            Member::Ssd(_) => None,
        }
    }
}

impl MemberDevice for Member {
    fn capacity_bytes(&self) -> u64 {
        each_member!(self, d => d.capacity_bytes())
    }

    #[inline]
    fn submit(&mut self, now_ns: Ns, request: DeviceRequest) -> crate::Result<Option<Dispatch>> {
        each_member!(self, d => d.submit(now_ns, request))
    }

    #[inline]
    fn complete(&mut self, now_ns: Ns) -> crate::Result<Option<Dispatch>> {
        each_member!(self, d => d.complete(now_ns))
    }

    fn counters(&self) -> &CauseCounters {
        each_member!(self, d => d.counters())
    }
}
