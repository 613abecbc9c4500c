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
//! so its length is bounded by the operations in flight.

use crate::engine::Ns;
use std::collections::VecDeque;

/// Busy intervals `[start, end)`, sorted and disjoint.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    busy: VecDeque<(Ns, Ns)>,
}

impl Timeline {
    /// Forgets intervals over by `now_ns`: nothing can be booked before now.
    #[inline]
    pub fn advance(&mut self, now_ns: Ns) {
        while self.busy.front().is_some_and(|&(_, end)| end <= now_ns) {
            self.busy.pop_front();
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
        let mut start = ready_ns;
        for (i, &(s, e)) in self.busy.iter().enumerate() {
            if e <= start {
                continue;
            }
            if start + duration_ns <= s {
                return (start, i);
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

    /// True when `[start_ns, end_ns)` overlaps no booked interval.
    pub fn is_free(&self, start_ns: Ns, end_ns: Ns) -> bool {
        self.last_end() <= start_ns || !self.busy.iter().any(|&(s, e)| s < end_ns && start_ns < e)
    }

    /// Books `duration_ns` at the earliest fitting instant `>= ready_ns`; returns its start.
    #[inline]
    pub fn book(&mut self, ready_ns: Ns, duration_ns: Ns) -> Ns {
        let (start, at) = self.find(ready_ns, duration_ns);
        if duration_ns > 0 {
            // Most bookings go last: `push_back` skips `insert`'s general shuffle.
            if at == self.busy.len() {
                self.busy.push_back((start, start + duration_ns));
            } else {
                self.busy.insert(at, (start, start + duration_ns));
            }
        }
        start
    }

    /// Books exactly `[start_ns, end_ns)`, which the caller found free.
    pub fn book_at(&mut self, start_ns: Ns, end_ns: Ns) {
        debug_assert!(self.is_free(start_ns, end_ns), "booking over a busy interval");
        if end_ns > start_ns {
            if self.last_end() <= start_ns {
                self.busy.push_back((start_ns, end_ns));
            } else {
                let at = self.busy.partition_point(|&(s, _)| s < start_ns);
                self.busy.insert(at, (start_ns, end_ns));
            }
        }
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
}
