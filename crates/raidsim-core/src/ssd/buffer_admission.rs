//! Writes waiting for room in the write buffer while later reads go first
//! (`ssd.scheduling = "reads_first"`, MQSim's data cache with its
//! `PRIORITY_OUT_OF_ORDER` scheduler, Tavakkol et al., FAST'18 §4.2).
//!
//! A write that finds the DRAM buffer full waits until programs end and
//! give slots back. Under `reads_first` which programs end first depends
//! on reads still to come: a read that arrives while the write waits goes
//! ahead of the programs waiting at its unit, and so delays the room. The
//! write's admission therefore cannot be fixed when it arrives. It waits in
//! the drive, first come first served (MQSim's
//! `waiting_user_requests_queue_for_dram_free_slot`), and the drive asks to
//! be woken when room may come: when a booked page leaves the buffer, or a
//! unit would start its next waiting program. At each wake the programs
//! due by then are booked (they have begun, and nothing passes them any
//! more), and the waiting writes that now fit are admitted in order and
//! acknowledged as any buffered write.
//!
//! Fixing the admission on arrival instead means booking the programs that
//! free its room at once, and then every read that comes while the buffer
//! is full waits behind them: under a mixed burst the reads queue as long
//! as the writes (MQSim's tpcc trace: reads and writes both about 6.5 ms,
//! where MQSim's reads pass).
//!
//! A write larger than the whole buffer streams through it: at the head of
//! the line it books the waiting programs that free its room. A trim drops
//! the pages it covers from the writes waiting (their data came first).
//!
//! A read that arrives at the very instant a waiting program would begin
//! goes first, whether or not a write waits: a wake books only the
//! programs due before it, and asks for the next one a nanosecond after
//! that program's start.

use std::collections::VecDeque;

use super::Ssd;
use crate::device::{Cause, DeviceRequest, Dispatch};
use crate::engine::Ns;
use crate::error::{Error, Result};

/// Wakes in a row at one instant that admit nothing before the drive
/// calls it a livelock: each wake books what is due, so a second one at
/// the same instant finds nothing new unless a request came in between.
const MAX_IDLE_WAKES_AT_ONE_INSTANT: u32 = 1_000;

/// A write that waits for buffer room: its pages `(lpn, bytes, cause)`
/// bound for flash, the slots they need, and when its data could first
/// enter the buffer (the processor has handled it).
struct WaitingWrite {
    req: DeviceRequest,
    ready_ns: Ns,
    pages: Vec<(u64, u64, Cause)>,
    slots: u64,
}

/// The writes waiting for buffer room, in arrival order.
#[derive(Default)]
pub(super) struct WritesWaitingForRoom {
    queue: VecDeque<WaitingWrite>,
    /// The last wake's instant and how many wakes in a row admitted nothing then.
    idle_wakes: (Ns, u32),
    /// Writes that waited, for the report.
    pub(super) writes_waited: u64,
}

impl WritesWaitingForRoom {
    pub(super) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

impl Ssd {
    /// Whether a write needing `slots`, its data ready at `ready_ns`, must
    /// wait in line for room (see the module doc): under `reads_first`,
    /// when others wait already or the buffer is short of room.
    pub(super) fn must_wait_for_room(&mut self, ready_ns: Ns, slots: u64) -> Result<bool> {
        if !self.reads_first {
            return Ok(false);
        }
        if !self.waiting_for_room.is_empty() {
            return Ok(true);
        }
        let capacity = self.buffer()?.capacity_slots();
        Ok(slots <= capacity && self.buffer()?.short_of_room(ready_ns, slots))
    }

    /// Puts a write in line for buffer room: it is acknowledged when admitted.
    pub(super) fn wait_for_room(&mut self, req: DeviceRequest, ready_ns: Ns, pages: Vec<(u64, u64, Cause)>, slots: u64) {
        self.waiting_for_room.writes_waited += 1;
        self.waiting_for_room.queue.push_back(WaitingWrite { req, ready_ns, pages, slots });
    }

    /// The drive is woken at `now_ns`: books the programs begun by then and
    /// admits the waiting writes that fit, first come first, pushing their
    /// acknowledgements onto `out`.
    pub(super) fn admit_waiting_writes(&mut self, now_ns: Ns, out: &mut Vec<Dispatch>) -> Result<()> {
        let admitted_before = out.len();
        // A program due at `now_ns` is booked by the next wake, after a
        // read arriving at `now_ns` went first.
        self.start_waiting_programs(now_ns)?;
        let capacity = self.buffer()?.capacity_slots();
        while let Some((ready_ns, slots)) = self.waiting_for_room.queue.front().map(|w| (w.ready_ns, w.slots)) {
            if ready_ns > now_ns || (slots <= capacity && self.buffer()?.short_of_room(now_ns, slots)) {
                break;
            }
            let w = self.waiting_for_room.queue.pop_front().ok_or_else(|| Error::Internal("a waiting write vanished".into()))?;
            // Only a write larger than the whole buffer is short of room
            // here: `fill_buffer` books the programs that free it.
            let acknowledged = self.fill_buffer(now_ns, now_ns, w.pages.into_iter(), slots, &w.req)?;
            out.push(self.completed(now_ns, w.req.token, acknowledged));
        }
        self.count_idle_wake(now_ns, out.len() > admitted_before)
    }

    fn count_idle_wake(&mut self, now_ns: Ns, admitted: bool) -> Result<()> {
        let idle = &mut self.waiting_for_room.idle_wakes;
        *idle = match (*idle, admitted) {
            (_, true) => (now_ns, 0),
            ((t, n), false) if t == now_ns => (t, n + 1),
            (_, false) => (now_ns, 1),
        };
        if idle.1 > MAX_IDLE_WAKES_AT_ONE_INSTANT {
            return Err(Error::Internal(format!("the drive was woken {} times at {now_ns} ns and admitted no waiting write", idle.1)));
        }
        Ok(())
    }

    /// When the drive wants to be woken for the write first in line, asked
    /// at `now_ns`: `None` when no write waits.
    pub(super) fn room_wake_at(&mut self, now_ns: Ns) -> Result<Option<Ns>> {
        let Some(front) = self.waiting_for_room.queue.front() else { return Ok(None) };
        let (ready_ns, slots) = (front.ready_ns, front.slots);
        let at_ns = if slots > self.buffer()?.capacity_slots() {
            ready_ns
        } else {
            // Room comes as booked pages leave, or once a waiting program
            // begins and its end is known.
            let leaving = self.buffer()?.room_from_booked(slots);
            let starting = self.next_waiting_start().map(|t| t.saturating_add(1));
            let room = match (leaving, starting) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => a.or(b).ok_or_else(|| Error::Internal("a write waits for buffer room that nothing will free".into()))?,
            };
            room.max(ready_ns)
        }
        .max(now_ns);
        Ok(Some(at_ns))
    }

    /// A trim drops page `lpn` from the writes still waiting for room: its
    /// data came before the trim (a host trim waits for the host's writes
    /// it overlaps, but a page a cache evicts rides with a later write, and
    /// a rebuild's writes are not the host's).
    pub(super) fn forget_page_waiting_for_room(&mut self, lpn: u64) {
        let unit = self.write_buffer_unit;
        for w in &mut self.waiting_for_room.queue {
            w.pages.retain(|&(page, bytes, _)| {
                let trimmed = page == lpn;
                if trimmed {
                    w.slots -= super::write_buffer::slots_of(unit, bytes);
                }
                !trimmed
            });
        }
    }

    /// The end of the run: a write still waiting for room is a fault.
    pub(super) fn check_no_write_waits(&self) -> Result<()> {
        match self.waiting_for_room.queue.len() {
            0 => Ok(()),
            n => Err(Error::Internal(format!("{n} writes still waited for buffer room at the end of the run"))),
        }
    }
}
