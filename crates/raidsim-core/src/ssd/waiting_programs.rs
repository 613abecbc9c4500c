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
use crate::error::{Error, Result};
use crate::ftl::GcWork;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

/// The page of a waiting program whose data a trim dropped: no read finds it.
const TRIMMED: u64 = u64::MAX;

/// A program waiting at its unit, the page it programs, and the buffer
/// slots the page holds.
#[derive(Clone, Copy)]
pub(super) struct WaitingProgram {
    pub(super) program: Program,
    pub(super) lpn: u64,
    /// The physical page it programs.
    pub(super) ppn: u32,
    pub(super) slots: u64,
}

/// The programs waiting, per unit in the order they came, numbered in the
/// order they came across units (the order they are booked in).
#[derive(Default)]
pub(super) struct WaitingPrograms {
    by_unit: Vec<VecDeque<(u64, WaitingProgram)>>,
    /// The units with programs waiting.
    units_waiting: Vec<usize>,
    next_number: u64,
    /// How many have been booked: `next_number - booked` wait.
    booked: u64,
    /// How many programs wait for each page whose data is in DRAM (a page
    /// written twice waits twice; a trimmed one not at all).
    pages: HashMap<u64, u32>,
    /// One pass's units, by the number of their first waiting program
    /// (kept to reuse its room).
    heads: BinaryHeap<Reverse<(u64, usize)>>,
    /// `ssd.multi_plane_programs`: a program takes its die's other planes'
    /// waiting programs of the same page offset along.
    pub(super) multi_plane: bool,
    /// Multi-plane commands booked, and the pages they programmed.
    pub(super) multi_plane_commands: u64,
    pub(super) multi_plane_pages: u64,
    /// Room reused by each multi-plane command: its partners' places in
    /// the unit's queue with their planes, and the programs it gathers.
    partners: Vec<(usize, u32)>,
    gathered: Vec<WaitingProgram>,
}

impl WaitingPrograms {
    pub(super) fn new(units: usize, multi_plane: bool) -> Self {
        Self { by_unit: vec![VecDeque::new(); units], multi_plane, ..Self::default() }
    }

    pub(super) fn push(&mut self, w: WaitingProgram) {
        let queue = &mut self.by_unit[w.program.route.unit];
        if queue.is_empty() {
            self.units_waiting.push(w.program.route.unit);
        }
        queue.push_back((self.next_number, w));
        self.next_number += 1;
        *self.pages.entry(w.lpn).or_default() += 1;
    }

    fn is_empty(&self) -> bool {
        self.units_waiting.is_empty()
    }

    /// The collections the waiting programs' writes asked for, owed to
    /// their units only once the programs are booked.
    pub(super) fn collections(&self) -> impl Iterator<Item = &GcWork> + '_ {
        self.by_unit.iter().flatten().map(|(_, w)| &w.program.gc)
    }

    /// Fills `heads` with every unit that has programs waiting.
    fn start_pass(&mut self) {
        self.heads.clear();
        for &unit in &self.units_waiting {
            if let Some(&(number, _)) = self.by_unit[unit].front() {
                self.heads.push(Reverse((number, unit)));
            }
        }
    }

    /// Puts `unit` back in the pass with its first waiting program, if any
    /// is left once its last was booked (with its multi-plane partners).
    fn back_in_pass(&mut self, unit: usize) {
        if let Some(&(number, _)) = self.by_unit[unit].front() {
            self.heads.push(Reverse((number, unit)));
        }
    }

    /// Takes `unit`'s `nth` waiting program.
    fn take(&mut self, unit: usize, nth: usize) -> Result<WaitingProgram> {
        let queue = &mut self.by_unit[unit];
        let (_, w) = queue.remove(nth).ok_or_else(|| Error::Internal("a unit's waiting program vanished".into()))?;
        self.booked += 1;
        if queue.is_empty() {
            self.units_waiting.retain(|&u| u != unit);
        }
        if let Some(n) = self.pages.get_mut(&w.lpn) {
            *n -= 1;
            if *n == 0 {
                self.pages.remove(&w.lpn);
            }
        }
        Ok(w)
    }
}

impl Ssd {
    /// Books, in the order they came, the waiting programs their units
    /// would have started before `now_ns`, and in time order with them the
    /// page reads waiting that may go before then; a unit's later programs
    /// wait with its first that still waits. A collection owed to a unit that would
    /// have started before `now_ns` ahead of its first waiting program is
    /// booked too: it is under way, and a read that comes now waits for it.
    #[inline]
    pub(super) fn start_waiting_programs(&mut self, now_ns: Ns) -> Result<()> {
        if self.waiting.is_empty() && self.reads_waiting.first_go_ns().is_none() {
            return Ok(());
        }
        self.book_waiting_programs(Some(now_ns))
    }

    /// Books every waiting program, in the order they came.
    pub(super) fn book_all_waiting_programs(&mut self) -> Result<()> {
        if self.waiting.is_empty() {
            return Ok(());
        }
        self.book_waiting_programs(None)
    }

    /// A write arriving at `now_ns` needs `slots` the buffer lacks: books
    /// the waiting programs in the order their units would start them,
    /// until the pages already booked free that room before the next would
    /// start (or none waits). The rest keep waiting, so the write's own
    /// reads go ahead of them, as a read waiting at an idle chip does.
    pub(super) fn book_waiting_programs_until_room(&mut self, now_ns: Ns, slots: u64) -> Result<()> {
        while let Some(start) = self.next_waiting_start() {
            let room = self.write_buffer.as_mut().and_then(|b| b.room_at(now_ns, slots));
            if room.is_some_and(|at| at <= start) {
                break;
            }
            // A read whose entry is known by then reaches its chip first, and may put the start off.
            if self.book_next_read_going_before(Some(start + 1))? {
                continue;
            }
            let before = self.waiting.next_number - self.waiting.booked;
            self.book_programs_due(Some(start + 1))?;
            if self.waiting.next_number - self.waiting.booked == before {
                return Err(Error::Internal("no waiting program was due at its unit's first start".into()));
            }
        }
        Ok(())
    }

    /// The earliest instant a unit would start its first waiting program.
    pub(super) fn next_waiting_start(&self) -> Option<Ns> {
        self.waiting
            .units_waiting
            .iter()
            .filter_map(|&unit| self.waiting.by_unit[unit].front())
            .map(|(_, w)| self.waiting_start(&w.program, self.searchable_from(&w.program)))
            .min()
    }

    /// Books the waiting programs due before `until_ns` (all of them when
    /// `None`), and before each instant a waiting page read's entry is
    /// known by then, the programs due before it and then that read: a
    /// read reaches its chip when its entry is known, ahead of the programs
    /// not begun by then.
    fn book_waiting_programs(&mut self, until_ns: Option<Ns>) -> Result<()> {
        while self.book_next_read_going_before(until_ns)? {}
        self.book_programs_due(until_ns)
    }

    /// Books the page reads waiting that go before `until_ns`, each after
    /// the programs due before it. Only a read's own processing looks this
    /// far ahead: a write's (its data crossing DRAM) may end after a read
    /// that comes later begins, and programs booked up to it would then be
    /// under way for that read, which MQSim's chips would not have begun.
    pub(super) fn book_reads_going_before(&mut self, until_ns: Ns) -> Result<()> {
        while self.book_next_read_going_before(Some(until_ns))? {}
        Ok(())
    }

    /// Books the page read that may go first (its entry known, under
    /// `when_idle` its unit idle), if before `until_ns` (at all when
    /// `None`), after the programs due before then; false when none may.
    fn book_next_read_going_before(&mut self, until_ns: Option<Ns>) -> Result<bool> {
        let Some(go_ns) = self.reads_waiting.first_go_ns().filter(|&t| until_ns.map_or(true, |u| t < u)) else {
            return Ok(false);
        };
        self.book_programs_due(Some(go_ns))?;
        self.book_reads_going_by(go_ns)?;
        Ok(true)
    }

    /// Books the waiting programs due before `until_ns` (all of them when
    /// `None`), taking the units' first ones in the order they came: a
    /// unit whose first is not due leaves the pass. Kept out of line, so
    /// that a drive with none waiting pays one test per request.
    pub(super) fn book_programs_due(&mut self, until_ns: Option<Ns>) -> Result<()> {
        self.waiting.start_pass();
        while let Some(Reverse((_, unit))) = self.waiting.heads.pop() {
            let Some(now_ns) = until_ns else {
                self.book_first_waiting(unit)?;
                continue;
            };
            let first = self.waiting.by_unit[unit].front().map(|&(n, w)| (n, w.program));
            let (number, program) = first.ok_or_else(|| Error::Internal("a unit in the pass has no waiting program".into()))?;
            let ready = self.searchable_from(&program);
            if self.waiting_start(&program, ready) < now_ns {
                self.book_first_waiting(unit)?;
            } else if self.owed_gc_start(unit, ready).is_some_and(|(start, _)| start < now_ns) {
                // Under way: booked, and the program asked again.
                self.book_owed_gc_begun(unit, ready, now_ns);
                self.waiting.heads.push(Reverse((number, unit)));
            }
        }
        Ok(())
    }

    /// True when page `lpn` waits to be programmed: its data is in the
    /// drive's DRAM, whence a read takes it.
    #[inline]
    pub(super) fn waits_to_be_programmed(&self, lpn: u64) -> bool {
        !self.waiting.pages.is_empty() && self.waiting.pages.contains_key(&lpn)
    }

    /// Page `lpn` was trimmed: a read of it no longer finds it in DRAM. Its
    /// program still runs, as it would have begun in arrival order.
    pub(super) fn forget_waiting_page(&mut self, lpn: u64) {
        if self.waiting.pages.remove(&lpn).is_some() {
            for queue in &mut self.waiting.by_unit {
                queue.iter_mut().filter(|(_, w)| w.lpn == lpn).for_each(|(_, w)| w.lpn = TRIMMED);
            }
        }
    }

    /// The end of the run: the programs still waiting are booked, so that
    /// when the flash finished is known.
    pub fn finish(&mut self) -> Result<()> {
        self.check_no_queued_commands()?;
        self.check_no_write_waits()?;
        self.check_no_read_waits()?;
        self.book_all_waiting_programs()
    }

    /// Books `unit`'s first waiting program, which the pass found first of all.
    fn book_first_waiting(&mut self, unit: usize) -> Result<()> {
        let w = self.waiting.take(unit, 0)?;
        self.book_waiting(w)?;
        self.waiting.back_in_pass(unit);
        Ok(())
    }

    fn book_waiting(&mut self, w: WaitingProgram) -> Result<()> {
        let p = &w.program;
        if !self.waiting.multi_plane || self.waiting.by_unit[p.route.unit].is_empty() {
            let page: PageDone = self.book_program(p.route, self.searchable_from(p), p.work, &p.gc, &p.fold);
            return self.waiting_page_left_buffer(page, w.slots);
        }
        self.book_multi_plane(w)
    }

    /// Books `w` in one command with the programs waiting for the other
    /// planes of its die at its page offset, ready when its unit would
    /// start it (MQSim's rule: the first program found for each plane).
    /// The pages cross the channel one after the other and are programmed
    /// together; a page that must first be read (half a page written)
    /// is read with the others, as a multi-plane read.
    fn book_multi_plane(&mut self, w: WaitingProgram) -> Result<()> {
        let (unit, ready) = (w.program.route.unit, self.searchable_from(&w.program));
        let start = self.waiting_start(&w.program, ready);
        let layout = self.ftl.layout();
        let ppb = layout.geometry.pages_per_block;
        let plane_of = |ppn: u32| layout.plane_of_block(layout.block_of(ppn));
        let (lead_plane, offset) = (plane_of(w.ppn), w.ppn % ppb);
        let die = layout.die_of_plane(lead_plane);
        // Scratch room kept across calls: no allocation per command. For
        // each other plane of the die, the first program waiting at the
        // lead's offset, as MQSim takes it, even past an earlier page of
        // that plane's block still waiting (which real NAND, programming a
        // block's pages in order, would not allow: see docs/ssd-model.md).
        let mut partners = std::mem::take(&mut self.waiting.partners);
        partners.clear();
        let others = layout.geometry.planes_per_die as usize - 1;
        for (nth, (_, other)) in self.waiting.by_unit[unit].iter().enumerate() {
            if partners.len() == others {
                break;
            }
            let plane = plane_of(other.ppn);
            if plane == lead_plane || layout.die_of_plane(plane) != die || other.ppn % ppb != offset {
                continue;
            }
            if self.searchable_from(&other.program) <= start && !partners.iter().any(|&(_, p)| p == plane) {
                partners.push((nth, plane));
            }
        }
        let mut pages = std::mem::take(&mut self.waiting.gathered);
        pages.clear();
        pages.push(w);
        // From the back, so that the places found stay true.
        for &(nth, _) in partners.iter().rev() {
            pages.push(self.waiting.take(unit, nth)?);
        }
        let (mut work, mut ready) = (w.program.work, ready);
        for other in &pages[1..] {
            ready = ready.max(self.searchable_from(&other.program));
            work.command = work.command.max(other.program.work.command);
            work.before = work.before.max(other.program.work.before);
            work.transfer += other.program.work.transfer;
            work.after = work.after.max(other.program.work.after);
        }
        let route = w.program.route;
        let done = self.book_program(route, ready, work, &w.program.gc, &w.program.fold);
        for other in &pages[1..] {
            // Its own route: the same unit and channel, its own plane.
            self.book_gc(other.program.route, done.programmed_ns, other.program.gc);
            self.book_fold(other.program.route, done.programmed_ns, other.program.fold);
        }
        if pages.len() > 1 {
            self.waiting.multi_plane_commands += 1;
            self.waiting.multi_plane_pages += pages.len() as u64;
        }
        // Each page has crossed the channel once its own transfer, in turn, has ended.
        let mut crossed = done.transferred_ns - work.transfer;
        let mut left = Ok(());
        for page in &pages {
            crossed += page.program.work.transfer;
            left = left.and_then(|()| self.waiting_page_left_buffer(PageDone { transferred_ns: crossed, ..done }, page.slots));
        }
        (self.waiting.partners, self.waiting.gathered) = (partners, pages);
        left
    }

    /// Where a search for a waiting program's time may begin: its data's
    /// ready instant, or later where its unit's or channel's calendar has
    /// forgotten the busy time before the last instant the drive was asked
    /// something. Nothing is lost: a program still waiting then would have
    /// started after that instant.
    fn searchable_from(&self, p: &Program) -> Ns {
        p.ready_ns.max(self.units[p.route.unit].now_ns()).max(self.channels[p.route.channel].now_ns())
    }

    /// When the program's unit would start it, searching from `ready_ns`:
    /// after the collection owed to the unit, at its first time that it
    /// and its channel fit, as [`Ssd::book`] would book it.
    fn waiting_start(&self, p: &Program, ready_ns: Ns) -> Ns {
        let t = self.owed_gc_start(p.route.unit, ready_ns).map_or(ready_ns, |(start, gc_ns)| ready_ns.max(start + gc_ns));
        let w = p.work;
        self.slot_from(p.route, self.units[p.route.unit].earliest(t, w.before + w.transfer + w.after), w).0
    }
}
