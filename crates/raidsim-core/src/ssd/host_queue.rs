//! The drive's side of the host interface: `queue_depth` commands in
//! service at once, later ones waiting in arrival order; a SATA drive's
//! host bus adapter ([`super::sata_hba`]) on the way in and out; and the
//! wakes a write waiting for buffer room asks for
//! ([`super::buffer_admission`]).
//!
//! A trim is a command too: it passes the HBA and waits behind the
//! commands queued before it, so that its own flash work (a cached map's
//! translation pages) is booked only once they have started. It takes no
//! slot: it is applied as soon as every command sent before it has started.
//! Its counts belong to the phase in which the host gave it to the drive:
//! one given during the warm-up and applied after is not counted, as the
//! host does not count it.

use super::Ssd;
use crate::device::{CauseCounters, DeviceRequest, Dispatch, MemberDevice};
use crate::engine::Ns;
use crate::error::{Error, Result};

/// A command waiting in the drive's queue.
pub(super) enum Queued {
    Request(DeviceRequest),
    /// A trim of `[offset_bytes, offset_bytes + len_bytes)`, issued in
    /// counting `phase` (see `Ssd::counting_phase`).
    Trim {
        offset_bytes: u64,
        len_bytes: u64,
        phase: u64,
    },
}

impl Ssd {
    /// Takes a trim issued at `now_ns` in its turn: at once where no
    /// command waits ahead of it, else behind them.
    pub(super) fn take_trim(&mut self, now_ns: Ns, offset_bytes: u64, len_bytes: u64) -> Result<()> {
        let arrived_ns = self.arrival(now_ns);
        if self.queue.is_empty() {
            return self.apply_trim(arrived_ns, offset_bytes, len_bytes, true);
        }
        let phase = self.counting_phase;
        self.queue.push_back((Queued::Trim { offset_bytes, len_bytes, phase }, arrived_ns));
        Ok(())
    }

    /// Applies the trims now at the front of the queue, at `now_ns` or as
    /// each reached the drive if later.
    fn apply_queued_trims(&mut self, now_ns: Ns) -> Result<()> {
        while let Some(&(Queued::Trim { offset_bytes, len_bytes, phase }, arrived_ns)) = self.queue.front() {
            self.queue.pop_front();
            self.apply_trim(now_ns.max(arrived_ns), offset_bytes, len_bytes, phase == self.counting_phase)?;
        }
        Ok(())
    }

    /// The end of the run: every queued command was taken.
    pub(super) fn check_no_queued_commands(&self) -> Result<()> {
        match self.queue.len() {
            0 => Ok(()),
            n => Err(Error::Internal(format!("{n} commands still waited in the drive's queue at the end of the run"))),
        }
    }

    /// Starts `req` at `start_ns`; it reached the drive at `arrived_ns`
    /// (no later: a SATA command the HBA sent while it waited for a slot).
    /// `None`: a write that waits in the drive for buffer room.
    fn dispatch(&mut self, start_ns: Ns, req: DeviceRequest, arrived_ns: Ns) -> Result<Option<Dispatch>> {
        self.in_flight += 1;
        let done_ns = self.serve(start_ns, &req, start_ns.max(arrived_ns))?;
        Ok(done_ns.map(|done_ns| self.completed(start_ns, req.token, done_ns)))
    }

    /// The completion of the request `token`, which the drive finished at
    /// `done_ns`, booked at `now_ns`: when the host has it.
    pub(super) fn completed(&mut self, now_ns: Ns, token: u64, done_ns: Ns) -> Dispatch {
        let done_ns = match self.sata_hba.as_mut() {
            Some(hba) => hba.taken_in(now_ns, done_ns),
            None => done_ns,
        };
        Dispatch { token, done_ns }
    }

    /// When the drive wants to be woken, asked at `now_ns`: for the write
    /// first in line for buffer room or the first page read waiting for
    /// its map entry, unless a wake no later is asked for already.
    fn next_wake(&mut self, now_ns: Ns) -> Result<Option<Ns>> {
        let room = if self.waiting_for_room.is_empty() { None } else { self.room_wake_at(now_ns)? };
        let Some(at_ns) = room.into_iter().chain(self.read_wake_at(now_ns)).min() else { return Ok(None) };
        if self.wake_asked_ns.is_some_and(|t| t <= at_ns) {
            return Ok(None);
        }
        self.wake_asked_ns = Some(at_ns);
        Ok(Some(at_ns))
    }

    /// When a request issued at `now_ns` reaches the drive.
    #[inline]
    fn arrival(&mut self, now_ns: Ns) -> Ns {
        self.sata_hba.as_mut().map_or(now_ns, |hba| hba.sent(now_ns))
    }
}

impl MemberDevice for Ssd {
    fn capacity_bytes(&self) -> u64 {
        self.capacity_bytes
    }

    fn submit(&mut self, now_ns: Ns, request: DeviceRequest) -> Result<Option<Dispatch>> {
        let arrived_ns = self.arrival(now_ns);
        if self.in_flight < self.queue_depth {
            return self.dispatch(now_ns, request, arrived_ns);
        }
        self.queue.push_back((Queued::Request(request), arrived_ns));
        Ok(None)
    }

    fn complete(&mut self, now_ns: Ns) -> Result<Option<Dispatch>> {
        self.in_flight -= 1;
        let dispatched = match self.queue.pop_front() {
            Some((Queued::Request(req), arrived_ns)) => self.dispatch(now_ns, req, arrived_ns)?,
            Some((Queued::Trim { .. }, _)) => return Err(Error::Internal("a trim at the front of a drive's queue was not applied".into())),
            None => None,
        };
        self.apply_queued_trims(now_ns)?;
        Ok(dispatched)
    }

    fn wake(&mut self, now_ns: Ns, out: &mut Vec<Dispatch>) -> Result<()> {
        if self.wake_asked_ns.is_some_and(|t| t <= now_ns) {
            self.wake_asked_ns = None;
        }
        self.book_reads_that_may_go(now_ns, out)?;
        self.admit_waiting_writes(now_ns, out)
    }

    #[inline]
    fn wake_request(&mut self, now_ns: Ns) -> Result<Option<Ns>> {
        // Asked after every request: kept to two tests when nothing waits.
        if self.waiting_for_room.is_empty() && self.reads_waiting.is_empty() {
            return Ok(None);
        }
        self.next_wake(now_ns)
    }

    fn counters(&self) -> &CauseCounters {
        &self.counters
    }
}
