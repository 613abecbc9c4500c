//! Erase suspension (`[ssd.erase_suspend]`): a read, or a write, that finds
//! its die erasing need not wait the whole erase.
//!
//! An erase takes milliseconds, a read tens of microseconds, so a read
//! stuck behind an erase dominates a drive's tail latency. Flash chips
//! therefore accept a suspend command: the erase stops after a suspend
//! latency, the die serves the waiting operation, and the erase resumes
//! where it stopped (Wu & He, "Reducing SSD read latency via NAND flash
//! program and erase suspension", FAST 2012; MQSim's
//! `CMD_Suspension_Support = ERASE`, its default, with `Suspend_Erase_Time`).
//! Suspending is worth it only when much of the erase is left, so the
//! controller suspends only when at least a threshold remains (MQSim's
//! `Preferred_suspend_erase_time_for_read` and `..._for_write`); with less
//! left, the operation waits for the erase in progress.
//!
//! An operation already waiting when an erase would begin goes first: a
//! suspension at no cost, since nothing began. MQSim does this with
//! preemptible collection outside its urgent mode, where a chip's reads and
//! writes are served before its collection's erase; without preemptible
//! collection (its default) the erase goes first, as with `ops = "none"`.
//! MQSim's default scheduler never suspends: the switch that would decide
//! it falls through to "no", so `mqsim-default` leaves suspension off.
//!
//! Program suspension is not modelled: a write's completion is fixed when
//! the write is booked, and a later read that stretched its program would
//! change an answer already given.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Which operations may suspend an erase.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SuspendingOps {
    /// None: an operation waits for the erase to end.
    #[default]
    None,
    /// Reads of host data and of translation pages.
    Reads,
    /// Reads, and writes (MQSim suspends an erase for either).
    ReadsAndWrites,
}

/// Erase suspension for the operations that wait behind an erase.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EraseSuspendConfig {
    /// Which operations may suspend an erase.
    pub ops: SuspendingOps,
    /// From the suspend command to a die ready for another command, ns
    /// (MQSim's `Suspend_Erase_Time`, 700 µs by default). The erase makes
    /// no progress meanwhile.
    pub latency_ns: u64,
    /// A read suspends an erase only when at least this much of it is left,
    /// ns (MQSim's `Preferred_suspend_erase_time_for_read`, 700 µs).
    pub read_min_remaining_ns: u64,
    /// The same for a write, ns (MQSim's
    /// `Preferred_suspend_erase_time_for_write`, 700 µs).
    pub write_min_remaining_ns: u64,
}

impl Default for EraseSuspendConfig {
    fn default() -> Self {
        Self { ops: SuspendingOps::None, latency_ns: 700_000, read_min_remaining_ns: 700_000, write_min_remaining_ns: 700_000 }
    }
}

impl EraseSuspendConfig {
    /// Checks the durations; settings that cannot act while `ops = "none"`
    /// are refused rather than ignored.
    pub fn validate(&self) -> Result<()> {
        for (key, ns) in [
            ("ssd.erase_suspend.latency_ns", self.latency_ns),
            ("ssd.erase_suspend.read_min_remaining_ns", self.read_min_remaining_ns),
            ("ssd.erase_suspend.write_min_remaining_ns", self.write_min_remaining_ns),
        ] {
            super::ssd::at_most_an_hour(key, ns)?;
        }
        let default = Self::default();
        let idle = |key: &str| Error::config(key, "has no effect while ssd.erase_suspend.ops = \"none\": set ops too");
        if self.ops == SuspendingOps::None {
            if self.latency_ns != default.latency_ns {
                return Err(idle("ssd.erase_suspend.latency_ns"));
            }
            if self.read_min_remaining_ns != default.read_min_remaining_ns {
                return Err(idle("ssd.erase_suspend.read_min_remaining_ns"));
            }
        }
        if self.ops != SuspendingOps::ReadsAndWrites && self.write_min_remaining_ns != default.write_min_remaining_ns {
            return Err(Error::config("ssd.erase_suspend.write_min_remaining_ns", "applies only to ops = \"reads_and_writes\""));
        }
        Ok(())
    }

    /// The least an erase must have left for an operation to suspend it,
    /// ns; `None` when that operation may not.
    pub fn min_remaining_ns(&self, write: bool) -> Option<u64> {
        match (self.ops, write) {
            (SuspendingOps::None, _) | (SuspendingOps::Reads, true) => None,
            (_, false) => Some(self.read_min_remaining_ns),
            (SuspendingOps::ReadsAndWrites, true) => Some(self.write_min_remaining_ns),
        }
    }
}
