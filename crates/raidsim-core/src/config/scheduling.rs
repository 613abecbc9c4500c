//! How a flash unit serves its operations: which part of the flash runs one
//! operation at a time (`ssd.parallel_unit`), and in what order the
//! operations waiting for it go (`ssd.scheduling`).
//!
//! A drive that acknowledges writes from DRAM programs them behind the host's
//! back, and a read that finds its unit with programs waiting need not wait
//! for them all: MQSim's transaction scheduler (`PRIORITY_OUT_OF_ORDER`,
//! Tavakkol et al., FAST'18 §4.2) keeps a queue of reads and one of writes
//! per chip and, whenever the chip goes idle, serves a waiting read first.
//! A program already under way is not interrupted (program suspension is
//! not modelled, as MQSim's default scheduler never suspends).
//!
//! When a read is issued (`ssd.command_issue`) decides how the chips of a
//! channel share it. A controller that plans (the default) books each page
//! read as its request comes, on its unit's first free time, where its
//! command and data fit the channel: under load the chips of a channel
//! take staggered turns. MQSim's controller issues a read to its chip once
//! the chip is idle, and moves sensed data waiting for the channel before
//! any new command: chips that free while data waits are issued together
//! once the channel drains, and the channel idles while they sense
//! (`ssd/waiting_reads.rs`).

use super::SsdConfig;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The unit that runs one flash operation at a time.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParallelUnit {
    /// Each die (a DiskSim element with one die).
    Die,
    /// Each chip: its dies share one busy state (SSDsim; MQSim, which
    /// issues to an idle chip one die's command at a time and keeps the
    /// chip busy until it has ended and sent its data).
    Chip,
    /// Each plane: a die's planes run their operations side by side, the
    /// most multi-plane operations give (see `docs/ssd-model.md`).
    Plane,
}

/// The order in which a unit serves the operations waiting for it.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlashScheduling {
    /// As they arrive: each operation takes its unit's first free time when
    /// its request comes (DiskSim, SSDsim).
    #[default]
    ArrivalOrder,
    /// A program of a page the write buffer holds waits at its unit while
    /// reads that come later go first, until the unit would start it (the
    /// program in progress is never interrupted): MQSim's
    /// `PRIORITY_OUT_OF_ORDER` scheduler. Needs a write buffer.
    ReadsFirst,
}

/// When a page read is issued to its unit and its command to the channel.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommandIssue {
    /// As its request comes: on its unit's first free time, where its
    /// command and data fit the channel.
    #[default]
    Planned,
    /// MQSim's: once its unit is idle, after the transfers of the data
    /// sensed before. Needs `scheduling = "reads_first"`.
    WhenIdle,
}

impl CommandIssue {
    /// The name the configuration gives it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Planned => "planned",
            Self::WhenIdle => "when_idle",
        }
    }
}

impl FlashScheduling {
    /// The name the configuration gives it.
    pub fn name(self) -> &'static str {
        match self {
            Self::ArrivalOrder => "arrival_order",
            Self::ReadsFirst => "reads_first",
        }
    }
}

/// Refuses `reads_first` where it would change nothing or where what it
/// changes is not modelled.
pub(super) fn validate(ssd: &SsdConfig) -> Result<()> {
    validate_multi_plane(ssd)?;
    if ssd.scheduling == FlashScheduling::ArrivalOrder {
        if ssd.command_issue == CommandIssue::WhenIdle {
            return Err(Error::config(
                "ssd.command_issue",
                "\"when_idle\" holds a read until its unit is idle, as only ssd.scheduling = \"reads_first\" lets operations wait; \
                 set that, or ssd.command_issue = \"planned\"",
            ));
        }
        return Ok(());
    }
    let refuse = |why: &str| {
        let hint = "set ssd.scheduling = \"arrival_order\" for it (presets mqsim-default and mqsim-fast18 set \"reads_first\")";
        Err(Error::config("ssd.scheduling", format!("\"reads_first\" {why}; {hint}")))
    };
    if ssd.write_buffer_bytes == 0 {
        return refuse(
            "lets reads pass programs a write buffer holds; without one (ssd.write_buffer_bytes = 0) the host waits for \
             each program, which is booked when its write comes",
        );
    }
    if ssd.ftl.allocation == super::Allocation::Dynamic {
        return refuse(
            "is not modelled with ssd.ftl.allocation = \"dynamic\", which places a page by when its unit frees, and waiting programs would be unseen",
        );
    }
    if ssd.geometry.mirroring_chips_per_channel > 0 {
        return refuse("is not modelled with mirroring chips (CR5M), which mirror a write only while their chips are idle");
    }
    if ssd.erase_suspend.ops != super::SuspendingOps::None {
        return refuse("is not modelled together with erase suspension (ssd.erase_suspend.ops)");
    }
    Ok(())
}

/// Refuses `multi_plane_programs` where there is nothing to gather: only
/// waiting programs can wait for a partner, and a drive whose planes are
/// units already programs them side by side.
fn validate_multi_plane(ssd: &SsdConfig) -> Result<()> {
    if !ssd.multi_plane_programs {
        return Ok(());
    }
    let refuse = |why: &str| Err(Error::config("ssd.multi_plane_programs", format!("true {why}; set it false")));
    if ssd.scheduling != FlashScheduling::ReadsFirst {
        return refuse(
            "gathers programs that wait at their unit, and only ssd.scheduling = \"reads_first\" lets them wait (each other program is booked as its write comes)",
        );
    }
    if ssd.parallel_unit == ParallelUnit::Plane {
        return refuse("changes nothing with ssd.parallel_unit = \"plane\": each plane already programs on its own");
    }
    if ssd.geometry.planes_per_die < 2 {
        return refuse("needs dies of two planes or more (ssd.geometry.planes_per_die)");
    }
    Ok(())
}
