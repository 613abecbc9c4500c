//! The calendar of one server inside an SSD (the host link, a channel, a
//! die or a chip): its busy intervals from now on.
//!
//! An operation asks for the earliest idle gap, at or after the instant its
//! input is ready, long enough to hold it. It never waits behind an
//! operation that was booked earlier but starts later, as it would with a
//! single "next free instant": a read whose data reaches the host link only
//! after 150 µs of flash work does not hold the link against a write that
//! arrives meanwhile. That is what an event-driven simulator (DiskSim,
//! SSDsim, MQSim) gives, where a server idle now serves whoever is ready
//! now; booked intervals are never moved, so a run stays a pure function of
//! the order in which requests reach the drive.
//!
//! The calendar keeps only intervals that end after the current instant,
//! so its length is bounded by the operations in flight. One request of
//! many pages books many intervals at once (a 4 GiB write books a million);
//! so that it costs time linear in its pages, a search starts where a
//! search from the same instant ended (see [`Hint`]) and skips the
//! intervals that end before it by bisection.

use crate::engine::Ns;
use std::collections::VecDeque;

/// What an earlier search proved: no gap of `duration_ns` starts in
/// `[ready_ns, start_ns)`. Booking only fills gaps and forgetting the past
/// frees nothing at or after the current instant, so the proof holds for
/// any later search from an instant `>= ready_ns` (and `>=` now) for a
/// duration `>= duration_ns`: it may start at `start_ns`.
#[derive(Clone, Copy, Debug)]
struct Hint {
    ready_ns: Ns,
    duration_ns: Ns,
    start_ns: Ns,
}

/// Busy intervals `[start, end)`, sorted and disjoint.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    busy: VecDeque<(Ns, Ns)>,
    /// The last instant passed to [`Timeline::advance`]: busy time before it may be forgotten.
    now_ns: Ns,
    hint: Option<Hint>,
    /// The latest end of anything ever booked: the server idles from then on.
    booked_until: Ns,
    /// Bumped by every booking: a search repeated with no booking between
    /// gives the same answer.
    bookings: u64,
}

impl Timeline {
    /// Forgets intervals over by `now_ns`: nothing can be booked before now.
    #[inline]
    pub fn advance(&mut self, now_ns: Ns) {
        self.now_ns = self.now_ns.max(now_ns);
        while self.busy.front().is_some_and(|&(_, end)| end <= now_ns) {
            self.busy.pop_front();
        }
    }

    /// The last instant passed to [`Timeline::advance`]: a search must
    /// not start before it, where busy time may have been forgotten.
    #[inline]
    pub fn now_ns(&self) -> Ns {
        self.now_ns
    }

    /// Where a search from `ready_ns` for `duration_ns` may begin.
    #[inline]
    fn search_from(&self, ready_ns: Ns, duration_ns: Ns) -> Ns {
        match self.hint {
            Some(h) if ready_ns >= h.ready_ns && duration_ns >= h.duration_ns && ready_ns >= self.now_ns => ready_ns.max(h.start_ns),
            _ => ready_ns,
        }
    }

    /// Earliest start `>= ready_ns` of a gap holding `duration_ns`, and the
    /// index where that interval would be inserted.
    #[inline]
    fn find(&self, ready_ns: Ns, duration_ns: Ns) -> (Ns, usize) {
        // Most often the server is idle from `ready_ns` on: no scan.
        if self.last_end() <= ready_ns {
            return (ready_ns, self.busy.len());
        }
        let mut start = self.search_from(ready_ns, duration_ns);
        // Intervals are disjoint and sorted, so their ends are sorted too.
        let from = self.busy.partition_point(|&(_, e)| e <= start);
        for (i, &(s, e)) in self.busy.range(from..).enumerate() {
            if start + duration_ns <= s {
                return (start, from + i);
            }
            start = start.max(e);
        }
        (start, self.busy.len())
    }

    /// The earliest instant `>= ready_ns` at which `duration_ns` of work fits.
    #[inline]
    pub fn earliest(&self, ready_ns: Ns, duration_ns: Ns) -> Ns {
        self.find(ready_ns, duration_ns).0
    }

    /// [`Timeline::earliest`], remembered so that the next search from
    /// the same instant (the next page of the same request) starts there.
    /// A longer operation from the same instant (a page that seals its
    /// block) keeps the shorter one's hint, which serves both.
    #[inline]
    pub fn earliest_remembered(&mut self, ready_ns: Ns, duration_ns: Ns) -> Ns {
        let start = self.earliest(ready_ns, duration_ns);
        if !self.hint.is_some_and(|h| h.ready_ns == ready_ns && h.duration_ns < duration_ns) {
            self.hint = Some(Hint { ready_ns, duration_ns, start_ns: start });
        }
        start
    }

    /// True when `[start_ns, end_ns)` overlaps no booked interval.
    pub fn is_free(&self, start_ns: Ns, end_ns: Ns) -> bool {
        let first_after = self.busy.partition_point(|&(_, e)| e <= start_ns);
        self.busy.get(first_after).map_or(true, |&(s, _)| s >= end_ns)
    }

    /// Books `duration_ns` at the earliest fitting instant `>= ready_ns`; returns its start.
    #[inline]
    pub fn book(&mut self, ready_ns: Ns, duration_ns: Ns) -> Ns {
        let (start, at) = self.find(ready_ns, duration_ns);
        if duration_ns > 0 {
            self.insert(at, start, start + duration_ns);
        }
        start
    }

    /// Inserts `[start, end)` before interval `at`, merged with the
    /// intervals it touches: a server kept busy back to back (a channel
    /// that is the bottleneck of a large request) is one interval, not a
    /// million to step over.
    #[inline]
    fn insert(&mut self, at: usize, start: Ns, end: Ns) {
        self.booked_until = self.booked_until.max(end);
        self.bookings += 1;
        let joins_next = self.busy.get(at).is_some_and(|&(s, _)| s == end);
        let joins_previous = at > 0 && self.busy.get(at - 1).is_some_and(|&(_, e)| e == start);
        match (joins_previous, joins_next) {
            (true, true) => {
                let next_end = self.busy[at].1;
                self.busy[at - 1].1 = next_end;
                self.busy.remove(at);
            }
            (true, false) => self.busy[at - 1].1 = end,
            (false, true) => self.busy[at].0 = start,
            // Most bookings go last: `push_back` skips `insert`'s general shuffle.
            (false, false) if at == self.busy.len() => self.busy.push_back((start, end)),
            (false, false) => self.busy.insert(at, (start, end)),
        }
    }

    /// [`Timeline::book`] for a server whose many bookings of one instant
    /// (the stripes of one large request) each search from that instant.
    #[inline]
    pub fn book_remembered(&mut self, ready_ns: Ns, duration_ns: Ns) -> Ns {
        let start = self.earliest_remembered(ready_ns, duration_ns);
        self.book_at(start, start + duration_ns);
        start
    }

    /// Books exactly `[start_ns, end_ns)`, which the caller found free.
    pub fn book_at(&mut self, start_ns: Ns, end_ns: Ns) {
        debug_assert!(self.is_free(start_ns, end_ns), "booking over a busy interval");
        if end_ns > start_ns {
            let at = if self.last_end() <= start_ns { self.busy.len() } else { self.busy.partition_point(|&(s, _)| s < start_ns) };
            self.insert(at, start_ns, end_ns);
        }
    }

    /// The latest end of anything ever booked, forgotten or not: from
    /// then on the server idles, until something more is booked.
    pub fn booked_until(&self) -> Ns {
        self.booked_until
    }

    /// How many bookings the calendar has taken: while it is unchanged,
    /// so is the answer to a search from at or after now.
    pub fn bookings(&self) -> u64 {
        self.bookings
    }

    /// End of the last booked interval (the instant the server goes idle for good).
    pub fn last_end(&self) -> Ns {
        self.busy.back().map_or(0, |&(_, e)| e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_ready_operation_fills_an_earlier_gap() {
        let mut t = Timeline::default();
        // A read's transfer booked late ...
        assert_eq!(t.book(150, 20), 150);
        // ... does not delay a transfer ready now that fits before it.
        assert_eq!(t.book(0, 100), 0);
        // One that does not fit goes after both.
        assert_eq!(t.book(100, 60), 170);
        assert_eq!(t.last_end(), 230);
    }

    #[test]
    fn advance_drops_only_finished_intervals() {
        let mut t = Timeline::default();
        t.book(0, 10);
        t.book(20, 10);
        t.advance(10);
        assert_eq!(t.busy.len(), 1);
        assert_eq!(t.book(5, 10), 5);
        assert!(!t.is_free(12, 14));
        assert!(t.is_free(15, 20));
    }

    /// The calendar as a plain list, searched start to end: the oracle.
    #[derive(Default)]
    struct Naive {
        busy: Vec<(Ns, Ns)>,
    }

    impl Naive {
        fn earliest(&self, ready: Ns, duration: Ns) -> Ns {
            let mut start = ready;
            while let Some(&(_, e)) = self.busy.iter().find(|&&(s, e)| s < start + duration.max(1) && start < e) {
                start = e;
            }
            start
        }
    }

    proptest::proptest! {
        /// Remembered searches, bisection and all give the plain scan's answer,
        /// over interleaved requests, retries from later instants, shorter
        /// last pages and the clock moving on.
        #[test]
        fn searches_agree_with_a_plain_scan(ops in proptest::collection::vec((0u8..4, 0u64..400, 1u64..60), 1..300)) {
            let (mut t, mut naive, mut now) = (Timeline::default(), Naive::default(), 0);
            for (kind, a, d) in ops {
                let ready = now + a;
                match kind {
                    0 => {
                        now += a / 4;
                        t.advance(now);
                        naive.busy.retain(|&(_, e)| e > now);
                    }
                    1 => proptest::prop_assert_eq!(t.earliest(ready, d), naive.earliest(ready, d)),
                    _ => {
                        let start = if kind == 2 { t.earliest_remembered(ready, d) } else { t.earliest(ready, d) };
                        proptest::prop_assert_eq!(start, naive.earliest(ready, d));
                        proptest::prop_assert!(t.is_free(start, start + d));
                        t.book_at(start, start + d);
                        naive.busy.push((start, start + d));
                    }
                }
            }
        }
    }

    #[test]
    fn back_to_back_bookings_are_one_interval() {
        let mut t = Timeline::default();
        for i in 0..1000 {
            t.book_at(10 * i, 10 * i + 10);
        }
        t.book_at(20_000, 20_010);
        t.book_at(10_010, 20_000);
        assert_eq!(t.busy.iter().copied().collect::<Vec<_>>(), vec![(0, 10_000), (10_010, 20_010)]);
        t.book_at(10_000, 10_010);
        assert_eq!(t.busy.len(), 1);
        assert_eq!(t.book(0, 5), 20_010);
    }

    #[test]
    fn a_remembered_search_is_not_used_for_a_shorter_duration_or_an_earlier_instant() {
        let mut t = Timeline::default();
        t.book_at(0, 10);
        t.book_at(15, 100);
        // 10 ns do not fit in the gap at 10: found at 100, remembered.
        assert_eq!(t.earliest_remembered(0, 10), 100);
        t.book_at(100, 110);
        // 5 ns do fit there; so does anything from an instant before the hint's.
        assert_eq!(t.earliest(0, 5), 10);
        assert_eq!(t.earliest(0, 10), 110);
        t.advance(12);
        assert_eq!(t.earliest(12, 3), 12);
    }
}
