//! Collection that yields to the host (`ssd.ftl.gc_hard_threshold_fraction`).
//!
//! By default a plane's collection is owed to its unit and runs whole
//! before the unit's next operation ([`super::gc`]). MQSim offers the
//! other choice (`Preemptible_GC_Enabled`, Tavakkol et al., FAST'18 §4.2;
//! its `TSU_OutOfOrder` and `GC_and_WL_Unit_Page_Level`): collection's
//! reads, programs and erases are transactions that a chip serves only when
//! no host transaction waits for it, until a plane of the chip has fewer
//! free blocks than a hard threshold; from then on (its urgent mode) they
//! go first again.
//!
//! Here a unit's owed collections are cut into pieces, one per copy (its
//! read and program) and one per erase, in the order collection chose
//! them. When an operation is booked on the unit, every piece that begins
//! in the unit's idle time before the operation is ready is booked there,
//! from the end of the write that asked for the collection on; the piece
//! under way when the operation becomes ready delays it, as a flash
//! operation under way is not interrupted, and the rest wait for the
//! unit's next idle time. A piece takes the collection's mean copy time
//! (pages of another type take another time; the collection's total is
//! exact). The drive's FTL frees a victim's block at once, so the free
//! blocks that decide urgency are counted as in time: those of the plane
//! less those whose erase is still owed. While a plane of the unit is
//! below the hard threshold, the unit's owed pieces run, in order, ahead
//! of its next operation, until the erases among them bring every plane
//! back to the threshold; the rest yield again.
//! Such an erase is not suspended for the host (MQSim's urgent mode serves
//! no host operation). The FTL may reopen a victim whose erase is still
//! owed (dynamic wear levelling takes the least-erased free block): its
//! programs are then not held until that erase has run.
//!
//! Operations are booked as their requests reach the drive: an operation
//! ready later than one booked after it lets pieces run up to its own
//! ready instant, which the later one then waits behind (by at most the
//! pieces begun before it was ready, a bound the whole collection has
//! without yielding).

use super::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Collection owed to one unit under `gc_hard_threshold_fraction`.
pub(super) struct YieldingGc {
    /// Free blocks a plane keeps, in time, before collection stops yielding.
    hard_threshold_blocks: usize,
    /// One erase, ns.
    erase_ns: Ns,
    /// Per unit: its owed collections, oldest first.
    owed: Vec<VecDeque<OwedCollection>>,
    /// Per unit: the end of its last piece booked.
    last_piece_end: Vec<Ns>,
    /// Per plane: blocks whose erase is owed.
    erases_owed: Vec<u64>,
    /// Per unit: its last search for a piece (the calendar's bookings
    /// then, from, length, and the start found). Waiting programs ask
    /// where collection stands hundreds of times a request, mostly with
    /// nothing booked between.
    last_search: Vec<[AtomicU64; 4]>,
    /// Copies and erases that ran ahead of the host, a plane below the
    /// threshold, and the operations that waited for them.
    pub(super) urgent_pieces: u64,
    pub(super) urgent_waits: u64,
    /// Pieces owed when the counters last restarted (the warm-up's end).
    pub(super) owed_when_counting_began: u64,
}

/// One plane's collection, what is left of it.
#[derive(Clone, Copy)]
struct OwedCollection {
    plane: u32,
    /// When the write that asked for it ended: no piece begins before.
    from_ns: Ns,
    copies: u64,
    copies_ns: Ns,
    /// Each copy but the last, ns: the collection's mean, rounded down.
    copy_ns: Ns,
    erases: u64,
}

impl OwedCollection {
    /// The next piece: its length, and whether it is an erase.
    fn next_piece(&self, erase_ns: Ns) -> Option<(Ns, bool)> {
        match (self.copies, self.erases) {
            (0, 0) if self.copies_ns == 0 => None,
            // Summary pages alone, copied nothing: one piece.
            (0, _) if self.copies_ns > 0 => Some((self.copies_ns, false)),
            (0, _) => Some((erase_ns, true)),
            (1, _) => Some((self.copies_ns, false)),
            _ => Some((self.copy_ns, false)),
        }
    }

    fn take(&mut self, piece_ns: Ns, erase: bool) {
        if erase {
            self.erases -= 1;
        } else {
            self.copies = self.copies.saturating_sub(1);
            self.copies_ns -= piece_ns;
        }
    }

    /// Takes `k` copies, none of them the last.
    fn take_copies(&mut self, k: u64) {
        self.copies -= k;
        self.copies_ns -= k * self.copy_ns;
    }

    /// How many copies of equal length, from `from_ns` with the unit idle
    /// from then on, begin before `until_ns` (all but the last, `None`).
    fn equal_copies_before(&self, from_ns: Ns, until_ns: Option<Ns>) -> u64 {
        let room = self.copies.saturating_sub(1);
        match until_ns {
            _ if self.copy_ns == 0 => room,
            None => room,
            Some(until) => until.saturating_sub(from_ns).div_ceil(self.copy_ns).min(room),
        }
    }
}

/// The pieces collection `gc` is cut into: its copies (one, if it only
/// programs summary pages) and its erases.
pub(super) fn pieces_of(gc: &GcWork) -> u64 {
    gc.pages_copied.max(u64::from(gc.summary_pages > 0)) + gc.blocks_erased
}

impl YieldingGc {
    pub(super) fn new(hard_threshold_blocks: u32, erase_ns: Ns, units: usize, planes: usize) -> Self {
        Self {
            hard_threshold_blocks: hard_threshold_blocks as usize,
            erase_ns,
            owed: vec![VecDeque::new(); units],
            last_piece_end: vec![0; units],
            erases_owed: vec![0; planes],
            last_search: (0..units).map(|_| [u64::MAX, 0, 0, 0].map(AtomicU64::new)).collect(),
            urgent_pieces: 0,
            urgent_waits: 0,
            owed_when_counting_began: 0,
        }
    }

    #[inline]
    pub(super) fn owes(&self, unit: usize) -> bool {
        !self.owed[unit].is_empty()
    }

    /// Copies and erases owed to all units: what a run's end leaves undone
    /// in time (its blocks were collected all the same).
    pub(super) fn pieces_owed(&self) -> u64 {
        self.owed.iter().flatten().map(|c| c.copies.max(u64::from(c.copies_ns > 0)) + c.erases).sum()
    }
}

impl Ssd {
    /// Owes collection `gc` of the plane `r` routes to, from `from_ns` on.
    pub(super) fn owe_yielding_gc(&mut self, r: Route, from_ns: Ns, copies_ns: Ns, gc: GcWork) {
        let Some(y) = &mut self.yielding_gc else { return };
        y.erases_owed[r.plane as usize] += gc.blocks_erased;
        let copy_ns = copies_ns.checked_div(gc.pages_copied).unwrap_or(0);
        y.owed[r.unit].push_back(OwedCollection { plane: r.plane, from_ns, copies: gc.pages_copied, copies_ns, copy_ns, erases: gc.blocks_erased });
    }

    /// Planes of `unit` with fewer free blocks, less those whose erase is
    /// owed, than the hard threshold.
    fn urgent_planes(&self, y: &YieldingGc, unit: usize) -> usize {
        self.planes_of_unit(unit).filter(|&p| self.ftl.free_blocks(p) < y.hard_threshold_blocks + y.erases_owed[p as usize] as usize).count()
    }

    /// Walks the pieces owed to `unit` as they would be booked ahead of an
    /// operation ready at `ready_ns`, booking nothing: each piece's search
    /// starts after the previous piece, so the pieces not booked change no
    /// answer. A piece goes if it begins before `ready_ns` or while a plane
    /// is urgent; urgency ends as the erases walked bring each plane back
    /// to the threshold.
    fn walk_owed_pieces(&self, y: &YieldingGc, unit: usize, ready_ns: Ns) -> Walk {
        let mut walk = Walk { pieces: 0, urgent_pieces: 0, span: None, op_ready_ns: ready_ns };
        let (mut urgent, mut last_end) = (self.urgent_planes(y, unit), y.last_piece_end[unit]);
        let owed = &y.owed[unit];
        for (i, first) in owed.iter().enumerate() {
            let mut c = *first;
            while let Some((piece, erase)) = c.next_piece(y.erase_ns) {
                let from = last_end.max(c.from_ns).max(self.units[unit].now_ns());
                if urgent == 0 && from >= ready_ns {
                    // No piece can begin before the operation: no search needed.
                    return walk;
                }
                // With the unit idle from `from` on, a run of equal copies goes back to back.
                let run = if self.units[unit].last_end() <= from { c.equal_copies_before(from, (urgent == 0).then_some(ready_ns)) } else { 0 };
                if run > 0 {
                    last_end = from + run * c.copy_ns;
                    walk.pieces += run;
                    walk.span = Some((walk.span.map_or(from, |s| s.0), last_end));
                    if urgent > 0 {
                        walk.urgent_pieces += run;
                        walk.op_ready_ns = walk.op_ready_ns.max(last_end);
                    }
                    c.take_copies(run);
                    continue;
                }
                let start = self.piece_start(y, unit, from, piece);
                if urgent == 0 && start >= ready_ns {
                    return walk;
                }
                last_end = start + piece;
                walk.pieces += 1;
                walk.span = Some((walk.span.map_or(start, |s| s.0), last_end));
                if urgent > 0 {
                    walk.urgent_pieces += 1;
                    walk.op_ready_ns = walk.op_ready_ns.max(last_end);
                }
                if erase {
                    // The plane's erases still owed before this one: less those walked.
                    let p = c.plane;
                    let walked = owed.range(..i).filter(|o| o.plane == p).map(|o| o.erases).sum::<u64>() + (first.erases - c.erases);
                    let (free, owed_now) = (self.ftl.free_blocks(p), (y.erases_owed[p as usize] - walked) as usize);
                    if free < y.hard_threshold_blocks + owed_now && free >= y.hard_threshold_blocks + owed_now - 1 {
                        urgent -= 1;
                    }
                }
                c.take(piece, erase);
            }
        }
        walk
    }

    /// [`crate::engine::Timeline::earliest`] for a piece, remembered while
    /// the unit's calendar takes no booking (in atomics, which cost a plain
    /// load here, because the drive must be shareable between threads).
    fn piece_start(&self, y: &YieldingGc, unit: usize, from: Ns, piece: Ns) -> Ns {
        let calendar = &self.units[unit];
        let memo = &y.last_search[unit];
        let key = [calendar.bookings(), from, piece];
        if (0..3).all(|i| memo[i].load(Relaxed) == key[i]) {
            return memo[3].load(Relaxed);
        }
        let start = calendar.earliest(from, piece);
        for (slot, value) in memo.iter().zip([key[0], key[1], key[2], start]) {
            slot.store(value, Relaxed);
        }
        start
    }

    /// Books the collection owed to `unit` that goes before an operation
    /// ready at `ready_ns` (see [`Ssd::walk_owed_pieces`]). Returns when
    /// the operation may start.
    pub(super) fn book_yielding_gc(&mut self, unit: usize, ready_ns: Ns) -> Ns {
        let Some(mut y) = self.yielding_gc.take() else { return ready_ns };
        let walk = self.walk_owed_pieces(&y, unit, ready_ns);
        let (mut left, mut last_erase_urgent) = (walk.pieces, false);
        while left > 0 {
            let urgent = walk.pieces - left < walk.urgent_pieces;
            let (booked, erase) = self.book_next_pieces(&mut y, unit, left);
            last_erase_urgent = if erase { urgent } else { last_erase_urgent };
            left -= booked;
        }
        if last_erase_urgent {
            // An erase that runs ahead of the host is not suspended for it
            // (MQSim's urgent mode serves no host operation meanwhile).
            self.erasing[unit] = None;
        }
        y.urgent_pieces += walk.urgent_pieces;
        y.urgent_waits += u64::from(walk.op_ready_ns > ready_ns);
        self.yielding_gc = Some(y);
        walk.op_ready_ns
    }

    /// Books the first pieces owed to `unit`, at most `most`, where the
    /// walk found them: a run of equal copies at once where the unit idles
    /// from their start, else one piece. Returns how many, and whether the
    /// piece was an erase.
    fn book_next_pieces(&mut self, y: &mut YieldingGc, unit: usize, most: u64) -> (u64, bool) {
        while let Some(c) = y.owed[unit].front_mut() {
            let Some((piece, erase)) = c.next_piece(y.erase_ns) else {
                y.owed[unit].pop_front();
                continue;
            };
            let from = y.last_piece_end[unit].max(c.from_ns).max(self.units[unit].now_ns());
            let run = if self.units[unit].last_end() <= from { c.equal_copies_before(from, None).min(most) } else { 0 };
            if run > 0 {
                self.units[unit].book_at(from, from + run * c.copy_ns);
                y.last_piece_end[unit] = from + run * c.copy_ns;
                c.take_copies(run);
                return (run, false);
            }
            let c = *c;
            let start = self.units[unit].book(from, piece);
            y.last_piece_end[unit] = start + piece;
            if erase {
                y.erases_owed[c.plane as usize] -= 1;
                self.note_erases(unit, start + piece, piece);
            }
            if let Some(front) = y.owed[unit].front_mut() {
                front.take(piece, erase);
                if front.next_piece(y.erase_ns).is_none() {
                    y.owed[unit].pop_front();
                }
            }
            return (1, erase);
        }
        // The walk counts only pieces owed, so this is not reached; ending
        // the caller's loop is all that is left to do if it were.
        debug_assert!(false, "the walk counted {most} pieces more than are owed");
        (most, false)
    }

    /// Where [`Ssd::book_yielding_gc`] would begin the collection owed to
    /// `unit` before an operation ready at `ready_ns`, and where it would
    /// end; `None` when none goes before.
    pub(super) fn yielding_gc_span(&self, unit: usize, ready_ns: Ns) -> Option<(Ns, Ns)> {
        let y = self.yielding_gc.as_ref()?;
        if !y.owes(unit) {
            return None;
        }
        let walk = self.walk_owed_pieces(y, unit, ready_ns);
        walk.span
    }
}

/// What [`Ssd::walk_owed_pieces`] found.
struct Walk {
    /// Pieces that go before the operation, and of them those that go
    /// because a plane was urgent.
    pieces: u64,
    urgent_pieces: u64,
    /// The first one's start and the last one's end.
    span: Option<(Ns, Ns)>,
    /// When the operation may start: after the pieces run while urgent.
    op_ready_ns: Ns,
}
