//! Die-interleaved commands: a chip whose dies start together.
//!
//! A flash chip of several dies takes one command at a time on its pins,
//! but a die-interleaved command starts an operation on each of its dies
//! at once (ONFI 2+). MQSim (Tavakkol et al., FAST'18; `TSU_Base::
//! issue_command_to_chip`) issues to an idle chip everything waiting for
//! it, at most one operation per die, and keeps the chip busy until all of
//! them have ended and sent their data (`NVM_PHY_ONFI_NVDDR2`): so the
//! chip, not the die, is the parallel unit, yet two waiting operations on
//! its two dies run side by side.
//!
//! raidsim books an operation when it reaches the drive, so "everything
//! waiting when the chip frees" is every operation booked onto a command
//! that has not started yet: an operation whose chip is busy joins the
//! next command booked on the chip when its die is not in it, and starts
//! with it; otherwise it opens a command of its own. A command that has
//! started takes no one (the chip is busy).

use super::{PageWork, Route, Ssd};
use crate::engine::Ns;
use std::collections::VecDeque;

/// One die-interleaved command: when it starts and ends on its chip, and
/// which dies it holds (a bit each).
#[derive(Clone, Copy, Debug)]
struct Command {
    start_ns: Ns,
    end_ns: Ns,
    dies: u32,
}

/// The commands booked on every chip that have not ended.
#[derive(Clone, Debug, Default)]
pub(super) struct ChipCommands {
    per_chip: Vec<VecDeque<Command>>,
}

impl ChipCommands {
    pub(super) fn new(chips: usize) -> Self {
        Self { per_chip: vec![VecDeque::new(); chips] }
    }

    pub(super) fn advance(&mut self, chip: usize, now_ns: Ns) {
        let q = &mut self.per_chip[chip];
        while q.front().is_some_and(|c| c.end_ns <= now_ns) {
            q.pop_front();
        }
    }

    /// A command of its own for die bit `die` on `chip`, `[start, end)`.
    pub(super) fn open(&mut self, chip: usize, die: u32, start_ns: Ns, end_ns: Ns) {
        let q = &mut self.per_chip[chip];
        let at = q.partition_point(|c| c.start_ns <= start_ns);
        q.insert(at, Command { start_ns, end_ns, dies: die });
    }
}

impl Ssd {
    /// Books `w` onto the first command of `r`'s chip that starts at or
    /// after `ready_ns`, before `latest_ns`, without `r`'s die, if one can
    /// take it: the operation starts with the command, sends its data when
    /// the channel is free, and the command lasts until the operation ends
    /// (unless the chip is booked then). Returns the transfer's start.
    pub(super) fn join_command(&mut self, r: Route, ready_ns: Ns, latest_ns: Ns, w: PageWork) -> Option<Ns> {
        let commands = self.commands.as_ref()?;
        let q = &commands.per_chip[r.unit];
        let first = q.partition_point(|c| c.start_ns < ready_ns);
        for (i, &c) in q.iter().enumerate().skip(first) {
            if c.start_ns > latest_ns {
                return None;
            }
            if c.dies & r.die_bit != 0 {
                continue;
            }
            let x = self.channels[r.channel].earliest(c.start_ns + w.before, w.transfer);
            let end = x + w.transfer + w.after;
            if end > c.end_ns && !self.units[r.unit].is_free(c.end_ns, end) {
                continue;
            }
            self.channels[r.channel].book_at(x, x + w.transfer);
            if end > c.end_ns {
                self.units[r.unit].book_at(c.end_ns, end);
            }
            let c = &mut self.commands.as_mut()?.per_chip[r.unit][i];
            c.end_ns = c.end_ns.max(end);
            c.dies |= r.die_bit;
            return Some(x);
        }
        None
    }
}
