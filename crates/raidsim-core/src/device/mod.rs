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
    /// Inside an SSD with a cached map: reading a translation page, on a
    /// miss or to merge a write-back.
    MapRead,
    /// Inside an SSD with a cached map: writing a translation page back.
    MapWrite,
    /// Inside an SSD with an SLC cache: reading a cached page to fold it
    /// into the dense cells.
    SlcFoldRead,
    /// Inside an SSD with an SLC cache: writing a folded page to the dense cells.
    SlcFoldWrite,
}

impl Cause {
    /// Number of causes.
    pub const COUNT: usize = 17;
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
        Cause::MapRead,
        Cause::MapWrite,
        Cause::SlcFoldRead,
        Cause::SlcFoldWrite,
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
            Cause::MapRead => "map_read",
            Cause::MapWrite => "map_write",
            Cause::SlcFoldRead => "slc_fold_read",
            Cause::SlcFoldWrite => "slc_fold_write",
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
    /// The host flow it serves (`workload.flows` index; 0 for a single
    /// workload and for an array's member requests): a drive that keeps
    /// state per flow, as MQSim's data cache does, tells them apart by it.
    pub stream: u16,
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
    /// The device is woken at `now_ns`, as it asked ([`Self::wake_request`]):
    /// pushes onto `out` the dispatches of requests that start now (an SSD's
    /// writes that waited for buffer room).
    fn wake(&mut self, _now_ns: Ns, _out: &mut Vec<Dispatch>) -> crate::Result<()> {
        Ok(())
    }
    /// Asked after each submit, completion and wake at `now_ns`: when the
    /// device wants to be woken, or `None` when it need not be (or a wake
    /// no later is asked for already).
    fn wake_request(&mut self, _now_ns: Ns) -> crate::Result<Option<Ns>> {
        Ok(None)
    }
    /// Page counts by cause since the last reset.
    fn counters(&self) -> &CauseCounters;
}

/// Bookkeeping on a channel's mapping that CR5M's writes need (no time
/// passes): the array's mirroring asks it of an SSD channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remap {
    /// Before a mirroring write: the pages' current copies stay valid as
    /// the parity-consistent ones (unless such copies are kept already).
    KeepAsExpired,
    /// The stripe is parity-consistent again: mirror and old copies go.
    DropCopies,
}
