//! A drive's DRAM write buffer (write-back cache).
//!
//! Drives of the RAIS paper's era (Kim et al., ORNL 2010, §5.1.2: SSD(B)
//! and SSD(C) serve random writes faster than random reads, "an enhanced
//! write-buffering scheme [19]") acknowledge a write once its data is in
//! the drive's DRAM and program the flash behind it (write-back, as BPLRU's
//! buffer, Kim & Ahn, FAST 2008, their [19]). A page holds a buffer slot
//! from the moment its data is accepted until it has crossed the channel
//! into its die, whose register holds it while it is programmed (or, with
//! `ssd.write_buffer_slot_until = "programmed"`, until the program has
//! ended, as MQSim's data cache counts its back-pressure); a write
//! that finds too few free slots waits for the earliest pages to leave,
//! and writes are admitted in arrival order (a later write that would fit
//! does not pass one that waits).
//! A slot is a page, or with `ssd.write_buffer_unit = "sector"` a sector
//! written (MQSim's back-pressure counts sectors: a 1 MiB buffer holds 256
//! writes of 4 KiB to 8 KiB pages, not 128).
//! Dies stay busy for each program, so in steady state writes run at the
//! flash's program rate and the buffer only hides latency, absorbs bursts
//! and keeps every die busy whatever the host's queue depth. A write
//! larger than the whole buffer streams through it: it is acknowledged
//! when its last page has a slot, that is when enough of its own earlier
//! pages have left.
//!
//! Not modelled: reads served from pages still in the buffer (they are
//! timed as flash reads), coalescing of rewrites of a buffered page, and
//! flush commands (the paper's benchmark, O_DIRECT on a raw device, sent
//! none).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{BufferSlotUntil, BufferUnit, Ssd};
use crate::device::{Cause, DeviceRequest};
use crate::engine::Ns;
use crate::error::{Error, Result};

impl Ssd {
    /// A write into the DRAM buffer: its data crosses the host link once the
    /// buffer has room and is acknowledged then; each page leaves the buffer
    /// when it has crossed the channel into its die, which programs it.
    /// With a write cache, only the pages it sends to flash take room.
    /// `None`: the write waits in line for room ([`super::buffer_admission`]).
    pub(super) fn write_through_buffer(
        &mut self,
        start_ns: Ns,
        t0: Ns,
        pages: std::ops::RangeInclusive<u64>,
        req: &DeviceRequest,
        in_page: impl Fn(u64) -> u64 + Copy,
    ) -> Result<Option<Ns>> {
        if self.write_cache.is_none() {
            return self.buffer_pages(start_ns, t0, pages.map(move |lpn| (lpn, in_page(lpn), req.cause)), req);
        }
        let (to_flash, evicted) = self.cache_pages(t0, pages, req, in_page)?;
        // An evicted page is read out of the drive's one DRAM before the
        // write goes on (MQSim): `firmware_write_page_ns` each.
        let t0 = self.book_firmware(start_ns, t0, evicted.checked_mul(self.timing.firmware_write_page_ns), evicted)?;
        self.buffer_pages(start_ns, t0, to_flash.into_iter(), req)
    }

    /// The pages of a write the cache sends to flash, `(lpn, bytes, cause)`:
    /// dirty pages it evicts for room, and pages not written back lately;
    /// and how many it evicted.
    #[allow(clippy::type_complexity)]
    fn cache_pages(
        &mut self,
        t0: Ns,
        pages: std::ops::RangeInclusive<u64>,
        req: &DeviceRequest,
        in_page: impl Fn(u64) -> u64,
    ) -> Result<(Vec<(u64, u64, Cause)>, u64)> {
        let page = self.page_size_bytes;
        let cache = self.write_cache.as_mut().ok_or_else(|| Error::Internal("no write cache".into()))?;
        let bytes = |mask: u64| u64::from(mask.count_ones()) * 512;
        let (mut to_flash, mut evicted_pages) = (Vec::new(), 0);
        for lpn in pages {
            let from = req.offset_bytes.max(lpn * page) - lpn * page;
            let w = cache.write(lpn, super::write_cache::sector_mask(from, in_page(lpn)), req.cause, req.stream);
            if let Some((evicted, sectors, cause)) = w.evicted {
                to_flash.push((evicted, bytes(sectors), cause));
                evicted_pages += 1;
            }
            if let Some(sectors) = w.to_flash {
                to_flash.push((lpn, bytes(sectors).min(page), req.cause));
            }
        }
        cache.request_done(t0, req.stream);
        Ok((to_flash, evicted_pages))
    }

    /// Pages `(lpn, bytes, cause)` through the buffer to flash: when the
    /// write is acknowledged, or `None` when it waits in line for room
    /// ([`super::buffer_admission`]) and is acknowledged when admitted.
    fn buffer_pages(
        &mut self,
        start_ns: Ns,
        t0: Ns,
        pages: impl Iterator<Item = (u64, u64, Cause)> + Clone,
        req: &DeviceRequest,
    ) -> Result<Option<Ns>> {
        let unit = self.write_buffer_unit;
        let slots: u64 = pages.clone().map(|(_, bytes, _)| slots_of(unit, bytes)).sum();
        if self.must_wait_for_room(t0, slots)? {
            self.wait_for_room(*req, t0, pages.collect(), slots);
            return Ok(None);
        }
        self.fill_buffer(start_ns, t0, pages, slots, req).map(Some)
    }

    /// Admits a write's pages, needing `slots`, at `t0` or once the pages
    /// booked before them have left, and places them: when it is acknowledged.
    pub(super) fn fill_buffer(
        &mut self,
        start_ns: Ns,
        t0: Ns,
        pages: impl Iterator<Item = (u64, u64, Cause)>,
        slots: u64,
        req: &DeviceRequest,
    ) -> Result<Ns> {
        let unit = self.write_buffer_unit;
        if self.buffer()?.short_of_room(t0, slots) {
            // Its room comes from programs ending: those that end first need their times.
            self.book_waiting_programs_until_room(t0, slots)?;
        }
        let admission = self.buffer()?.admit(t0, slots)?;
        // Programs that begin while it waits for room go ahead of its own reads.
        self.start_waiting_programs(admission.at_ns)?;
        let ready = self.host_link(admission.at_ns, req.len_bytes);
        // A write larger than the buffer needs its own pages' times: they do not wait.
        let may_wait = self.reads_first && admission.own_slots_first == 0;
        if self.reads_first && !may_wait {
            self.book_reads_queued_at_units(ready)?;
        }
        // Larger than the buffer: its last page has a slot once that many of its own have left.
        let mut own_left = Vec::new();
        for (nth, (lpn, bytes, cause)) in pages.enumerate() {
            self.poll_stop(nth as u64)?;
            let slots = slots_of(unit, bytes);
            let Some(page) = self.write_host_page(start_ns, lpn, bytes, ready, cause, may_wait.then_some(slots))? else {
                self.buffer()?.hold_waiting(slots);
                continue;
            };
            let leaves_ns = self.page_left_buffer(page, slots)?;
            if admission.own_slots_first > 0 {
                own_left.push((leaves_ns, slots));
            }
        }
        if admission.own_slots_first == 0 {
            return Ok(ready);
        }
        let own = freed_by_own_pages(own_left, admission.own_slots_first)
            .ok_or_else(|| Error::Internal("a write's own pages free less room than it lacks".into()))?;
        Ok(own.max(ready))
    }

    pub(super) fn buffer(&mut self) -> Result<&mut WriteBuffer> {
        self.write_buffer.as_mut().ok_or_else(|| Error::Internal("no write buffer".into()))
    }

    /// A buffered page, holding `slots`, is booked: when it leaves the
    /// buffer.
    pub(super) fn page_left_buffer(&mut self, page: super::PageDone, slots: u64) -> Result<Ns> {
        self.flash_programmed_until_ns = self.flash_programmed_until_ns.max(page.programmed_ns);
        let leaves_ns = match self.write_buffer_slot_until {
            BufferSlotUntil::Transferred => page.transferred_ns,
            BufferSlotUntil::Programmed => page.programmed_ns,
        };
        self.buffer()?.hold(leaves_ns, slots);
        Ok(leaves_ns)
    }

    /// A waiting page, holding `slots`, is booked: when it leaves the buffer.
    pub(super) fn waiting_page_left_buffer(&mut self, page: super::PageDone, slots: u64) -> Result<()> {
        self.buffer()?.stop_waiting(slots)?;
        self.page_left_buffer(page, slots).map(|_| ())
    }
}

/// Buffer room held by pages not yet in their dies, counted in slots: a
/// page, or a sector (`ssd.write_buffer_unit`).
pub struct WriteBuffer {
    capacity_slots: u64,
    held_slots: u64,
    /// Of `held_slots`, those of pages whose programs wait at their units
    /// (`reads_first`): when they leave is not yet known.
    waiting_slots: u64,
    /// When the last write was admitted: a later one, even one needing no
    /// room (a write its cache keeps), is not admitted before it.
    last_admitted_ns: Ns,
    /// When each buffered page leaves for its die, earliest first, and the slots it holds.
    held: BinaryHeap<Reverse<(Ns, u64)>>,
    /// Room reused by [`Self::room_at`].
    scratch: Vec<(Ns, u64)>,
}

/// How a write of several pages enters the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admission {
    /// When the buffer has taken what it can of the other writes' pages:
    /// the data may cross the host link from then.
    pub at_ns: Ns,
    /// How many slots the write's own pages must free, leaving for their
    /// dies, before its last page has room (0 unless it is larger than the
    /// buffer's free room after every earlier page is gone).
    pub own_slots_first: u64,
}

impl WriteBuffer {
    /// A buffer of `capacity_slots` slots (at least one).
    pub fn new(capacity_slots: u64) -> Self {
        Self {
            capacity_slots,
            held_slots: 0,
            waiting_slots: 0,
            last_admitted_ns: 0,
            held: BinaryHeap::with_capacity(capacity_slots.min(1 << 20) as usize),
            scratch: Vec::new(),
        }
    }

    /// True when a write needing `slots`, arriving at `now_ns`, finds
    /// too little room: it waits for pages to leave.
    pub fn short_of_room(&mut self, now_ns: Ns, slots: u64) -> bool {
        self.release_until(now_ns);
        self.held_slots + slots > self.capacity_slots
    }

    fn release_until(&mut self, now_ns: Ns) {
        while self.held.peek().is_some_and(|&Reverse((t, _))| t <= now_ns) {
            self.release();
        }
    }

    /// When a write needing `slots`, arriving at `now_ns`, would find room
    /// as the pages booked so far leave; `None` when they cannot free
    /// enough (pages still waiting at their units hold the rest).
    pub fn room_at(&mut self, now_ns: Ns, slots: u64) -> Option<Ns> {
        self.release_until(now_ns);
        let at_ns = now_ns.max(self.last_admitted_ns);
        self.room_from_booked(slots).map(|t| t.max(at_ns))
    }

    /// Slots in all.
    pub fn capacity_slots(&self) -> u64 {
        self.capacity_slots
    }

    /// When the pages booked so far have left enough for a write needing
    /// `slots` to fit; `None` when they cannot free enough (pages waiting
    /// at their units hold the rest). Changes nothing.
    pub fn room_from_booked(&mut self, slots: u64) -> Option<Ns> {
        let mut lacking = (self.held_slots + slots).saturating_sub(self.capacity_slots);
        let mut at_ns = 0;
        let mut taken = std::mem::take(&mut self.scratch);
        while lacking > 0 {
            let Some(Reverse((t, s))) = self.held.pop() else { break };
            taken.push((t, s));
            lacking = lacking.saturating_sub(s);
            at_ns = at_ns.max(t);
        }
        self.held.extend(taken.drain(..).map(Reverse));
        self.scratch = taken;
        (lacking == 0).then_some(at_ns)
    }

    /// Admits a write needing `slots` slots, arriving at `now_ns`. Pages
    /// still waiting at their units cannot be waited for (when they leave
    /// is not known): book enough of them first when the buffer is [short
    /// of room](Self::short_of_room); otherwise it is an internal error.
    pub fn admit(&mut self, now_ns: Ns, slots: u64) -> Result<Admission> {
        if self.waiting_slots > 0 && self.room_at(now_ns, slots).is_none() {
            return Err(Error::Internal("a write waits for buffer room held by programs not yet booked".into()));
        }
        self.release_until(now_ns);
        let mut at_ns = now_ns.max(self.last_admitted_ns);
        while self.held_slots + slots > self.capacity_slots {
            let Some(&Reverse((t, _))) = self.held.peek() else { break };
            self.release();
            at_ns = at_ns.max(t);
            // A page larger than the room still lacking frees the rest only when it leaves.
            let rest = self.capacity_slots.saturating_sub(self.held_slots + slots);
            if rest > 0 {
                self.hold(t, rest);
            }
        }
        self.last_admitted_ns = at_ns;
        Ok(Admission { at_ns, own_slots_first: (self.held_slots + slots).saturating_sub(self.capacity_slots) })
    }

    fn release(&mut self) {
        if let Some(Reverse((_, slots))) = self.held.pop() {
            self.held_slots -= slots;
        }
    }

    /// A page accepted into the buffer, holding `slots`, leaves it at
    /// `leaves_ns` (its data in its die).
    pub fn hold(&mut self, leaves_ns: Ns, slots: u64) {
        self.held_slots += slots;
        self.held.push(Reverse((leaves_ns, slots)));
    }

    /// A page accepted into the buffer, holding `slots`, whose program
    /// waits at its unit: when it leaves is known once it is booked.
    pub fn hold_waiting(&mut self, slots: u64) {
        self.held_slots += slots;
        self.waiting_slots += slots;
    }

    /// A waiting page's program is booked: [`Self::hold`] follows with
    /// when it leaves.
    pub fn stop_waiting(&mut self, slots: u64) -> Result<()> {
        if slots > self.waiting_slots {
            return Err(Error::Internal("a page stopped waiting that the buffer did not hold as waiting".into()));
        }
        self.waiting_slots -= slots;
        self.held_slots -= slots;
        Ok(())
    }
}

/// The slots a page of `bytes` written holds: one, or one per sector
/// (`ssd.write_buffer_unit`).
pub(super) fn slots_of(unit: BufferUnit, bytes: u64) -> u64 {
    match unit {
        BufferUnit::Page => 1,
        BufferUnit::Sector => bytes.div_ceil(512),
    }
}

/// When a write's own pages, leaving at the given instants with the given
/// slots, have freed `slots` of them.
pub fn freed_by_own_pages(mut own: Vec<(Ns, u64)>, slots: u64) -> Option<Ns> {
    own.sort_unstable();
    let mut freed = 0;
    own.into_iter()
        .find(|&(_, s)| {
            freed += s;
            freed >= slots
        })
        .map(|(t, _)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One write: admitted as `(now, slots)`, expected `(at, own slots
    /// first)`, then its page held as `(leaves, slots)` if one is given.
    type Step = ((Ns, u64), (Ns, u64), Option<(Ns, u64)>);

    fn steps(capacity: u64, steps: &[Step]) {
        let mut b = WriteBuffer::new(capacity);
        for (i, &((now, slots), (at_ns, own_slots_first), hold)) in steps.iter().enumerate() {
            assert_eq!(b.admit(now, slots).ok(), Some(Admission { at_ns, own_slots_first }), "step {i}");
            if let Some((leaves, slots)) = hold {
                b.hold(leaves, slots);
            }
        }
    }

    #[test]
    fn a_full_buffer_admits_as_the_earliest_pages_leave() {
        steps(
            2,
            &[
                ((0, 1), (0, 0), Some((300, 1))),
                ((0, 1), (0, 0), Some((600, 1))),
                // Full: the next page waits for the page leaving at 300.
                ((10, 1), (300, 0), Some((900, 1))),
                // Pages that left free their slots without waiting.
                ((650, 1), (650, 0), Some((1200, 1))),
                // Larger than the buffer: waits for both held pages, then for one of its own.
                ((700, 3), (1200, 1), None),
            ],
        );
    }

    #[test]
    fn slots_of_different_sizes_free_what_they_held() {
        // 16 sectors: a half page (8) and a whole one (16) cannot both be in.
        steps(
            16,
            &[
                ((0, 8), (0, 0), Some((500, 8))),
                ((0, 8), (0, 0), Some((400, 8))),
                // A whole page waits for both halves to leave.
                ((10, 16), (500, 0), Some((900, 16))),
                // 24 sectors: all 16 held leave, and 8 of its own must too.
                ((20, 24), (900, 8), None),
            ],
        );
        // A half page waits for a whole one; a later half page waits for it
        // too, though the whole page frees room for both, when it leaves.
        steps(8, &[((0, 8), (0, 0), Some((100, 8))), ((0, 4), (100, 0), Some((200, 4))), ((10, 4), (100, 0), None)]);
        assert_eq!(freed_by_own_pages(vec![(1500, 16), (1200, 8)], 8), Some(1200));
        assert_eq!(freed_by_own_pages(vec![(1500, 16), (1200, 4)], 8), Some(1500));
    }

    #[test]
    fn room_held_by_programs_not_yet_booked_is_never_waited_for_blindly() {
        let mut b = WriteBuffer::new(2);
        b.hold_waiting(1);
        assert!(b.admit(0, 1).is_ok(), "room enough beside the waiting page");
        b.hold_waiting(1);
        assert!(b.short_of_room(10, 1));
        assert_eq!(b.room_at(10, 1), None, "only pages not yet booked hold the room");
        assert!(matches!(b.admit(10, 1), Err(Error::Internal(_))));
        // One booked: it leaves at a known time, which frees the room though the other still waits.
        b.stop_waiting(1).expect("it was waiting");
        b.hold(500, 1);
        assert_eq!(b.room_at(10, 1), Some(500));
        assert_eq!(b.room_at(10, 2), None, "two slots need the page still waiting too");
        // The other booked, leaving earlier: the write waits for the earliest.
        b.stop_waiting(1).expect("it was waiting");
        b.hold(300, 1);
        assert_eq!(b.room_at(10, 1), Some(300), "room_at leaves the buffer as it found it");
        assert_eq!(b.admit(10, 1).ok(), Some(Admission { at_ns: 300, own_slots_first: 0 }));
        assert!(matches!(b.stop_waiting(1), Err(Error::Internal(_))), "nothing waits any more");
    }
}
