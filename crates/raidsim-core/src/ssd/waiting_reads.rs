//! Page reads waiting off the calendar, under `ssd.scheduling =
//! "reads_first"`, for their map entry or for their unit to go idle
//! (MQSim's `PRIORITY_OUT_OF_ORDER` scheduler beside its DFTL, Tavakkol et
//! al., FAST'18 §4.2).
//!
//! A read whose entry the cached map lacks cannot go to its chip until the
//! translation page has been read: until then the chip does not know of
//! it. Booking the page read at once, at the instant the entry will be
//! known, would hold the chip for it from now on, and a buffered program
//! that became ready in the meantime (the chip idle) could not start: a
//! program takes hundreds of microseconds, and the gap before the read
//! seldom holds one. MQSim's chip starts that program, and the read, once
//! its entry is known, waits for it. So such a page read waits off the
//! calendar until its entry is known; the drive asks to be woken then,
//! books the programs that began before (they run, and a read does not
//! interrupt them), and books the read. Whatever books waiting programs up
//! to an instant (a command arriving, a write short of room) first books
//! the reads whose entries are known before it, in time order with the
//! programs. The request is acknowledged when its last page read is booked.
//!
//! With `ssd.command_issue = "when_idle"` a page read also waits until its
//! unit is idle, and is woken again while it is not, so that reads are
//! booked in the order their units free, as MQSim's controller issues them
//! (`TSU_Base`, `NVM_PHY_ONFI_NVDDR2`). What that changes is how the chips
//! of a channel share it. Booked as its request comes, a page read goes
//! at the end of its unit's line, far ahead, and its command and data fill
//! whatever gaps the channel has there: the chips settle into staggered
//! turns and the channel is hardly ever idle. Issued as its unit idles, a
//! read finds the transfers of the data sensed before it already booked,
//! and its command goes after them (MQSim moves waiting data before any
//! new command): a chip that frees while others' data wait is held until
//! the channel drains, and then the idle chips are issued together, sense
//! together and queue for the channel together, which idles while they
//! sense. On MQSim's default drive, random 64 KiB reads queued 32 deep
//! start a command on each chip every 150 µs in MQSim (75 µs of sensing and
//! two or three others' transfers of 24.6 µs), every 100 µs when planned.
//!
//! On MQSim's tpcc trace, booking at once let reads pass programs that had
//! begun: reads 39 % quicker than MQSim's and writes 79 % slower.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::Ssd;
use crate::device::{Cause, Dispatch};
use crate::engine::Ns;
use crate::error::{Error, Result};

/// A page read waiting for its entry or its unit: the read it serves (its number in
/// line), when that read was started in the drive (no calendar is asked
/// about earlier), the page, the bytes of it read, and the translation page
/// its lookup evicted (written back after the read).
/// What follows a page read once it is booked: the write-back of the
/// translation page its lookup evicted, and the collection its placement
/// of a page never written asked for.
#[derive(Clone, Copy)]
pub(super) struct AfterRead {
    pub(super) write_back: Option<u64>,
    pub(super) placed: Option<super::placement::PlacementGc>,
}

struct PageWaiting {
    read: u64,
    asked_ns: Ns,
    lpn: u64,
    bytes: u64,
    cause: Cause,
    after: AfterRead,
    /// It waited for its unit to go idle (`when_idle`).
    held_for_unit: bool,
    /// When its entry is known: from then it is in its chip's queue.
    known_ns: Ns,
}

/// A read request with page reads still waiting: its token, when the
/// ones booked deliver their data, how many wait, and its length (for the
/// host link). Tokens need not be unique: an array's job may read one
/// member twice.
struct ReadWaiting {
    token: u64,
    done_ns: Ns,
    pages_waiting: u64,
    len_bytes: u64,
}

/// The page reads waiting, by when they may go (their entry known, their
/// unit idle) and then in the order they came.
#[derive(Default)]
pub(super) struct WaitingReads {
    pages: BinaryHeap<Reverse<(Ns, u64)>>,
    by_number: HashMap<u64, PageWaiting>,
    requests: HashMap<u64, ReadWaiting>,
    next_number: u64,
    next_read: u64,
    /// Reads whose last page read is booked, to be acknowledged at the next wake.
    done: Vec<Dispatch>,
    /// Page reads that waited for their entry, for the report.
    pub(super) pages_waited: u64,
    /// Page reads that waited for their unit to go idle (`when_idle`).
    pub(super) pages_waited_for_unit: u64,
}

impl WaitingReads {
    pub(super) fn is_empty(&self) -> bool {
        self.pages.is_empty() && self.done.is_empty()
    }

    /// When the first waiting page read may go.
    pub(super) fn first_go_ns(&self) -> Option<Ns> {
        self.pages.peek().map(|Reverse((t, _))| *t)
    }
}

impl Ssd {
    /// When a page read of `bytes` of `lpn` (for `cause`) whose entry is known at
    /// `known_ns`, for a read whose processing ended at `ready_ns`, may go
    /// to its unit, if it must wait off the calendar for that; `None`
    /// books it at once.
    #[inline]
    pub(super) fn read_waits_until(&self, lpn: u64, cause: Cause, bytes: u64, known_ns: Ns, ready_ns: Ns) -> Option<Ns> {
        if !self.reads_first {
            return None;
        }
        let at_ns = known_ns.max(ready_ns);
        let go_ns = if self.issue_when_idle { self.unit_idle_for_read(lpn, cause, bytes, at_ns) } else { at_ns };
        (go_ns > ready_ns).then_some(go_ns)
    }

    /// Puts page `lpn` of the read [`Self::read_waits`] will put in line
    /// next in line until `go_ns`, when its entry is known (at `known_ns`)
    /// and, with `when_idle`, its unit is idle; its read was ready at `ready_ns`.
    pub(super) fn wait_for_entry_or_unit(&mut self, asked_ns: Ns, page: (u64, u64, Cause), ready_ns: Ns, known_ns: Ns, go_ns: Ns, after: AfterRead) {
        let (lpn, bytes, cause) = page;
        let line = &mut self.reads_waiting;
        let read = line.next_read;
        let number = line.next_number;
        line.next_number += 1;
        line.pages_waited += u64::from(known_ns > ready_ns);
        let held_for_unit = go_ns > known_ns.max(ready_ns);
        line.pages.push(Reverse((go_ns, number)));
        line.by_number.insert(number, PageWaiting { read, asked_ns, lpn, bytes, cause, after, held_for_unit, known_ns });
    }

    /// Read `token` of `len_bytes` has `pages_waiting` page reads in line;
    /// the others deliver their data by `done_ns`.
    pub(super) fn read_waits(&mut self, token: u64, done_ns: Ns, pages_waiting: u64, len_bytes: u64) {
        let line = &mut self.reads_waiting;
        line.requests.insert(line.next_read, ReadWaiting { token, done_ns, pages_waiting, len_bytes });
        line.next_read += 1;
    }

    /// The drive is woken at `now_ns`: books the page reads that may go by
    /// then (entry known, unit idle), after the programs begun before, and pushes onto
    /// `out` the reads whose last page read is booked.
    pub(super) fn book_reads_that_may_go(&mut self, now_ns: Ns, out: &mut Vec<Dispatch>) -> Result<()> {
        if self.reads_waiting.first_go_ns().is_some_and(|t| t <= now_ns) {
            self.start_waiting_programs(now_ns)?;
            self.book_reads_going_by(now_ns)?;
        }
        out.append(&mut self.reads_waiting.done);
        Ok(())
    }

    /// Books the page reads that may go by `until_ns`, in the order they
    /// may; the programs due before each must be booked already.
    pub(super) fn book_reads_going_by(&mut self, until_ns: Ns) -> Result<()> {
        while let Some(Reverse((go_ns, number))) = self.reads_waiting.pages.peek().copied() {
            if go_ns > until_ns {
                break;
            }
            self.reads_waiting.pages.pop();
            if self.waits_again_for_unit(go_ns, number)? {
                continue;
            }
            self.book_waiting_page(number, go_ns)?;
        }
        Ok(())
    }

    /// Books waiting page read `number` from `go_ns`.
    fn book_waiting_page(&mut self, number: u64, go_ns: Ns) -> Result<()> {
        let page = self.reads_waiting.by_number.remove(&number).ok_or_else(|| Error::Internal("a waiting page read vanished".into()))?;
        self.reads_waiting.pages_waited_for_unit += u64::from(page.held_for_unit);
        let data_ns = self.read_page(page.asked_ns, page.lpn, page.bytes, go_ns, page.cause);
        self.book_placement_gc(page.asked_ns, data_ns, page.after.placed);
        self.write_back(page.asked_ns, page.after.write_back, go_ns)?;
        self.page_read_booked(page.asked_ns, page.read, data_ns)
    }

    /// Under `when_idle`, books now, in the order they go, the page reads
    /// whose entries are known by `ready_ns` and that wait only for their
    /// units: they are in their chips' queues, and go before the programs
    /// of a write larger than the buffer, which are booked as it comes
    /// (MQSim's idle chip serves a waiting read first). The others wait on.
    pub(super) fn book_reads_queued_at_units(&mut self, ready_ns: Ns) -> Result<()> {
        if !self.issue_when_idle {
            return Ok(());
        }
        let mut later = Vec::new();
        while let Some(Reverse((go_ns, number))) = self.reads_waiting.pages.pop() {
            let known_ns = self.reads_waiting.by_number.get(&number).map(|p| p.known_ns);
            if known_ns.ok_or_else(|| Error::Internal("a waiting page read vanished".into()))? > ready_ns {
                later.push(Reverse((go_ns, number)));
                continue;
            }
            self.book_programs_due(Some(go_ns))?;
            self.book_waiting_page(number, go_ns)?;
        }
        self.reads_waiting.pages.extend(later);
        Ok(())
    }

    /// When the unit that page `lpn`'s read of `bytes` (for `cause`) goes to
    /// is idle, from `at_ns`, for as long as the read holds it.
    pub(super) fn unit_idle_for_read(&self, lpn: u64, cause: Cause, bytes: u64, at_ns: Ns) -> Ns {
        let (plane, kind) = self.read_source(lpn, cause);
        let w = self.read_work(kind, bytes);
        self.units[self.unit_of_plane(plane)].earliest(at_ns, w.before + w.transfer)
    }

    /// With `when_idle`, page read `number`, due to go at `go_ns`, whose
    /// unit took other work meanwhile, waits again until the unit is idle.
    fn waits_again_for_unit(&mut self, go_ns: Ns, number: u64) -> Result<bool> {
        if !self.issue_when_idle {
            return Ok(false);
        }
        let page = self.reads_waiting.by_number.get(&number).ok_or_else(|| Error::Internal("a waiting page read vanished".into()))?;
        let idle_ns = self.unit_idle_for_read(page.lpn, page.cause, page.bytes, go_ns);
        if idle_ns == go_ns {
            return Ok(false);
        }
        if let Some(p) = self.reads_waiting.by_number.get_mut(&number) {
            p.held_for_unit = true;
        }
        self.reads_waiting.pages.push(Reverse((idle_ns, number)));
        Ok(true)
    }

    /// One of waiting read `number`'s page reads, started in the drive at
    /// `asked_ns`, delivers its data at `data_ns`; the read is acknowledged
    /// once none waits.
    fn page_read_booked(&mut self, asked_ns: Ns, number: u64, data_ns: Ns) -> Result<()> {
        let read = self.reads_waiting.requests.get_mut(&number).ok_or_else(|| Error::Internal(format!("waiting read {number} is not in line")))?;
        read.done_ns = read.done_ns.max(data_ns);
        read.pages_waiting -= 1;
        if read.pages_waiting > 0 {
            return Ok(());
        }
        let (token, done_ns, len_bytes) = (read.token, read.done_ns, read.len_bytes);
        self.reads_waiting.requests.remove(&number);
        let done_ns = self.host_link(done_ns, len_bytes);
        let dispatch = self.completed(asked_ns, token, done_ns);
        self.reads_waiting.done.push(dispatch);
        Ok(())
    }

    /// When the drive wants to be woken for the first page read waiting
    /// (for its entry, or its unit), asked at `now_ns` (at once for reads
    /// booked, to be acknowledged): `None` when none waits.
    pub(super) fn read_wake_at(&self, now_ns: Ns) -> Option<Ns> {
        if !self.reads_waiting.done.is_empty() {
            return Some(now_ns);
        }
        self.reads_waiting.first_go_ns().map(|t| t.max(now_ns))
    }

    /// The end of the run: a read still waiting (for an entry or a unit) is a fault.
    pub(super) fn check_no_read_waits(&self) -> Result<()> {
        match self.reads_waiting.requests.len() + self.reads_waiting.done.len() {
            0 => Ok(()),
            n => Err(Error::Internal(format!("{n} reads still waited off the calendar (for map entries or units) at the end of the run"))),
        }
    }
}
