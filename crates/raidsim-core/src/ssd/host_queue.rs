//! The drive's side of the host interface: `queue_depth` commands in
//! service at once, later ones waiting in arrival order; a SATA drive's
//! host bus adapter ([`super::sata_hba`]) on the way in and out; and the
//! wakes a write waiting for buffer room asks for
//! ([`super::buffer_admission`]).

use super::Ssd;
use crate::device::{CauseCounters, DeviceRequest, Dispatch, MemberDevice};
use crate::engine::Ns;
use crate::error::Result;

impl Ssd {
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
        let Some(at_ns) = room.into_iter().chain(self.entry_wake_at(now_ns)).min() else { return Ok(None) };
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
        self.queue.push_back((request, arrived_ns));
        Ok(None)
    }

    fn complete(&mut self, now_ns: Ns) -> Result<Option<Dispatch>> {
        self.in_flight -= 1;
        match self.queue.pop_front() {
            Some((req, arrived_ns)) => self.dispatch(now_ns, req, arrived_ns),
            None => Ok(None),
        }
    }

    fn wake(&mut self, now_ns: Ns, out: &mut Vec<Dispatch>) -> Result<()> {
        if self.wake_asked_ns.is_some_and(|t| t <= now_ns) {
            self.wake_asked_ns = None;
        }
        self.book_reads_with_known_entries(now_ns, out)?;
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
