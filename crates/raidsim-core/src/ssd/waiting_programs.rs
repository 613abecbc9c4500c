//! Programs that wait at their unit while later reads go first
//! (`ssd.scheduling = "reads_first"`, MQSim's `PRIORITY_OUT_OF_ORDER`
//! transaction scheduler, Tavakkol et al., FAST'18 §4.2).
//!
//! Every other operation takes its unit's first free time when its request
//! comes. A page the write buffer holds is different: the host has its
//! acknowledgement, and nothing needs to know when the page is programmed
//! until the buffer wants its slot back. So its program waits off the
//! calendar, and is booked only when the unit would have started it.
//! Whenever the drive is asked something at `now` (a request, a trim, a
//! collection forced from outside), each unit's waiting programs that it
//! would have started before `now` are booked, in the order they came; the
//! rest keep waiting, so a read that comes at `now` is booked ahead of
//! them, behind only the operation its unit is running. That is MQSim's
//! rule: a chip that goes idle serves a waiting read before a waiting
//! write, and never interrupts a program.
//!
//! Two things book every waiting program at once: a write that finds the
//! buffer short of room (room comes back only as programs end, so their
//! ends must be known), and the end of the run. Under writes alone the
//! buffer is full and every program is booked as it would be in arrival
//! order; reads gain where the buffer has room, as under a mix.

use super::{PageDone, Program, Ssd};
use crate::engine::Ns;
use crate::error::Result;

/// The page of a waiting program whose data a trim dropped: no read finds it.
const TRIMMED: u64 = u64::MAX;

/// A program waiting at its unit, the page it programs, and the buffer
/// slots the page holds.
#[derive(Clone, Copy)]
pub(super) struct WaitingProgram {
    pub(super) program: Program,
    pub(super) lpn: u64,
    pub(super) slots: u64,
}

impl Ssd {
    /// Books, in the order they came, the waiting programs their units
    /// would have started before `now_ns`; a unit's later ones wait with
    /// its first that still waits. A collection owed to a unit that would
    /// have started before `now_ns` ahead of its first waiting program is
    /// booked too: it is under way, and a read that comes now waits for it.
    #[inline]
    pub(super) fn start_waiting_programs(&mut self, now_ns: Ns) -> Result<()> {
        if self.waiting_programs.is_empty() {
            return Ok(());
        }
        self.start_due_programs(now_ns)
    }

    /// [`Ssd::start_waiting_programs`] when some wait: kept out of line,
    /// so that a drive with none pays one test per request.
    fn start_due_programs(&mut self, now_ns: Ns) -> Result<()> {
        // A unit is blocked in this pass when its stamp is this pass's.
        self.waiting_pass += 1;
        let mut i = 0;
        while i < self.waiting_programs.len() {
            let w = self.waiting_programs[i];
            let unit = w.program.route.unit;
            if self.unit_blocked_in_pass[unit] == self.waiting_pass {
                i += 1;
                continue;
            }
            if self.waiting_start(&w.program) < now_ns {
                self.waiting_programs.remove(i);
                self.book_waiting(w)?;
                continue;
            }
            let ready = self.searchable_from(&w.program);
            let (gc_ns, gc_from, _) = self.owed_gc[unit];
            if gc_ns > 0 && self.units[unit].earliest(gc_from.max(ready), gc_ns) < now_ns {
                self.book_owed_gc(unit, ready);
                continue;
            }
            self.unit_blocked_in_pass[unit] = self.waiting_pass;
            i += 1;
        }
        Ok(())
    }

    /// Books every waiting program, in the order they came.
    pub(super) fn book_all_waiting_programs(&mut self) -> Result<()> {
        while let Some(w) = self.waiting_programs.pop_front() {
            self.book_waiting(w)?;
        }
        Ok(())
    }

    /// True when page `lpn` waits to be programmed: its data is in the
    /// drive's DRAM, whence a read takes it.
    #[inline]
    pub(super) fn waits_to_be_programmed(&self, lpn: u64) -> bool {
        self.waiting_programs.iter().any(|w| w.lpn == lpn)
    }

    /// Page `lpn` was trimmed: a read of it no longer finds it in DRAM. Its
    /// program still runs, as it would have begun in arrival order.
    pub(super) fn forget_waiting_page(&mut self, lpn: u64) {
        self.waiting_programs.iter_mut().filter(|w| w.lpn == lpn).for_each(|w| w.lpn = TRIMMED);
    }

    /// The end of the run: the programs still waiting are booked, so that
    /// when the flash finished is known.
    pub fn finish(&mut self) -> Result<()> {
        self.book_all_waiting_programs()
    }

    fn book_waiting(&mut self, w: WaitingProgram) -> Result<()> {
        let p = &w.program;
        let page: PageDone = self.book_program(p.route, self.searchable_from(p), p.work, &p.gc, &p.fold);
        self.waiting_page_left_buffer(page, w.slots)
    }

    /// Where a search for a waiting program's time may begin: its data's
    /// ready instant, or later where its unit's or channel's calendar has
    /// forgotten the busy time before the last instant the drive was asked
    /// something. Nothing is lost: a program still waiting then would have
    /// started after that instant.
    fn searchable_from(&self, p: &Program) -> Ns {
        p.ready_ns.max(self.units[p.route.unit].now_ns()).max(self.channels[p.route.channel].now_ns())
    }

    /// When the program's unit would start it, booked now: after the
    /// collection owed to the unit, at its first time that it and its
    /// channel fit, as [`Ssd::book`] would book it.
    fn waiting_start(&self, p: &Program) -> Ns {
        let unit = &self.units[p.route.unit];
        let ready = self.searchable_from(p);
        let (gc_ns, gc_from, _) = self.owed_gc[p.route.unit];
        let mut t = ready;
        if gc_ns > 0 {
            t = t.max(unit.earliest(gc_from.max(ready), gc_ns) + gc_ns);
        }
        let w = p.work;
        self.slot_from(p.route, unit.earliest(t, w.before + w.transfer + w.after), w).0
    }
}
