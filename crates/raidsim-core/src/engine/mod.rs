//! The discrete-event engine: one queue of timed events.
//!
//! Time is an integer count of nanoseconds ([`Ns`]); there is no floating
//! point clock to drift. Events with the same timestamp come out in the order
//! they were scheduled (FIFO), as in nexosim and simcore, so a run is a pure
//! function of its configuration and seed.
//!
//! The queue is generic over the event type: each simulation defines its own
//! typed event enum and matches it exhaustively. Devices do not put their
//! internal steps on this queue: a flash die, channel or host link is a
//! first-come-first-served server whose next free instant is kept in the
//! device (see [`crate::ssd`]), so only request-level events (arrivals and
//! completions) flow through the engine. That is what makes a run cost a few
//! hundred nanoseconds per request.

mod slab;
pub mod timeline;
pub use slab::Slab;
pub use timeline::Timeline;

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Simulated time in integer nanoseconds.
pub type Ns = u64;

/// The latest instant a run may reach, about 146 years: every arrival and
/// every duration input is bounded so that sums of them never overflow.
pub const MAX_TIME_NS: Ns = 1 << 62;

/// The longest single duration a parameter may give (an hour, ns).
pub const MAX_DURATION_NS: Ns = 3_600 * NS_PER_S;

/// One nanosecond-denominated second, for unit conversions.
pub const NS_PER_S: u64 = 1_000_000_000;

/// A request from outside the run to stop it (Ctrl-C), shared by the run
/// and whoever watches for the signal on another thread. The run polls it
/// between events and every [`StopFlag::ITEMS_BETWEEN_CHECKS`] pages of one
/// request, so that no single request, however large, keeps it going.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl StopFlag {
    /// Pages of one request a device serves, or trace records a summary
    /// reads, between two looks at the flag: about a millisecond of work.
    pub const ITEMS_BETWEEN_CHECKS: u64 = 4096;

    /// Asks the run to stop.
    pub fn request(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Withdraws the request (the run was stopped; it will not go on).
    pub fn clear(&self) {
        self.0.store(false, std::sync::atomic::Ordering::Relaxed);
    }

    /// [`crate::Error::Interrupted`] once a stop was requested.
    #[inline]
    pub fn check(&self) -> crate::Result<()> {
        if self.0.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(crate::Error::Interrupted);
        }
        Ok(())
    }
}

/// A scheduled event. `key` is the time in the high 64 bits and the
/// insertion sequence in the low 64, so one integer comparison orders by
/// time, then by insertion.
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest event,
    // then the earliest scheduled among equal timestamps.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// A priority queue of events ordered by time, ties in insertion order.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now_ns: Ns,
    /// Events asked for in the past (a logic error the owner must report).
    past_events: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        Self { heap: BinaryHeap::with_capacity(1024), next_seq: 0, now_ns: 0, past_events: 0 }
    }

    /// The time of the last event popped.
    pub fn now_ns(&self) -> Ns {
        self.now_ns
    }

    /// Schedules `event` at `at_ns`. Scheduling in the past is a logic
    /// error: the event is kept at now, so that time never runs backwards,
    /// and counted in [`EventQueue::past_events`], which the owner turns
    /// into an error rather than a silently shifted result.
    pub fn schedule(&mut self, at_ns: Ns, event: E) {
        self.past_events += u64::from(at_ns < self.now_ns);
        let at_ns = at_ns.max(self.now_ns);
        self.heap.push(Entry { key: (u128::from(at_ns) << 64) | u128::from(self.next_seq), event });
        self.next_seq += 1;
    }

    /// Removes the next event and advances the clock to it.
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        let entry = self.heap.pop()?;
        self.now_ns = (entry.key >> 64) as Ns;
        Some((self.now_ns, entry.event))
    }

    /// Events scheduled in the past so far (each a logic error).
    pub fn past_events(&self) -> u64 {
        self.past_events
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_timestamps_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(10, 'a');
        q.schedule(5, 'b');
        q.schedule(10, 'c');
        q.schedule(5, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.now_ns(), 10);
        assert_eq!(q.past_events(), 0);
    }

    #[test]
    fn an_event_in_the_past_is_counted_and_kept_at_now() {
        let mut q = EventQueue::new();
        q.schedule(10, 'a');
        q.pop();
        q.schedule(4, 'b');
        assert_eq!(q.past_events(), 1);
        assert_eq!(q.pop(), Some((10, 'b')));
    }
}
