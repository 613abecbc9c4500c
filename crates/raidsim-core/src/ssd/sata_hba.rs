//! A SATA drive's host bus adapter (`ssd.timing.sata_hba_processing_ns`),
//! as MQSim models it (`SATA_HBA`, Tavakkol et al., FAST'18).
//!
//! An NVMe host writes a command into a submission queue in its own memory
//! and the drive fetches it; a SATA host hands each command to its HBA,
//! which sends it over the link one at a time, and takes each completion
//! back one at a time. MQSim charges a fixed processing time for each, in
//! two first-in-first-out lines: one for the commands going out (in the
//! order the host issued them), one for the completions coming back. The
//! drive's native command queue (`ssd.queue_depth`, 32 slots on SATA)
//! takes a command once the HBA has sent it and a slot is free, and frees
//! the slot once the HBA has taken its completion in.
//!
//! Here a command is sent, in issue order, as it comes (exactly MQSim's
//! line), so a command that waits for a slot was sent while it waited.
//! Completions are taken in as the drive's commands are started, each at
//! the first free time after its drive finished it: when the HBA is busy,
//! a completion that finished earlier may be taken in after one booked
//! before it, where MQSim's line would take it first.

use crate::engine::{Ns, Timeline};

/// The HBA's two lines, each one thing at a time.
pub(super) struct SataHba {
    processing_ns: Ns,
    commands: Timeline,
    completions: Timeline,
}

impl SataHba {
    /// An HBA that spends `processing_ns` on each command and completion;
    /// none when that is 0.
    pub(super) fn new(processing_ns: Ns) -> Option<Self> {
        (processing_ns > 0).then(|| Self { processing_ns, commands: Timeline::default(), completions: Timeline::default() })
    }

    /// A command issued at `now_ns` has been sent to the drive.
    pub(super) fn sent(&mut self, now_ns: Ns) -> Ns {
        self.commands.advance(now_ns);
        self.commands.book(now_ns, self.processing_ns) + self.processing_ns
    }

    /// The completion of a command the drive finished at `done_ns`,
    /// booked at `now_ns`, has been taken in: the host has it.
    pub(super) fn taken_in(&mut self, now_ns: Ns, done_ns: Ns) -> Ns {
        self.completions.advance(now_ns);
        self.completions.book(done_ns, self.processing_ns) + self.processing_ns
    }
}
