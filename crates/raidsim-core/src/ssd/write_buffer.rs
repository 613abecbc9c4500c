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
//! that finds too few free slots waits for the earliest pages to leave.
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

use crate::engine::Ns;

/// Buffer slots held by pages not yet in their dies.
pub struct WriteBuffer {
    capacity_pages: u64,
    /// When each buffered page leaves for its die, earliest first.
    held: BinaryHeap<Reverse<Ns>>,
}

/// How a write of several pages enters the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admission {
    /// When the buffer has taken what it can of the other writes' pages:
    /// the data may cross the host link from then.
    pub at_ns: Ns,
    /// How many of the write's own pages must have left for their dies
    /// before its last page has a slot (0 unless it is larger than the
    /// buffer's free room after every earlier page is gone).
    pub own_pages_first: u64,
}

impl WriteBuffer {
    /// A buffer of `capacity_pages` pages (at least one).
    pub fn new(capacity_pages: u64) -> Self {
        Self { capacity_pages, held: BinaryHeap::with_capacity(capacity_pages.min(1 << 20) as usize) }
    }

    /// Admits a write of `pages` pages arriving at `now_ns`.
    pub fn admit(&mut self, now_ns: Ns, pages: u64) -> Admission {
        while self.held.peek().is_some_and(|&Reverse(t)| t <= now_ns) {
            self.held.pop();
        }
        let mut at_ns = now_ns;
        let mut short = (self.held.len() as u64 + pages).saturating_sub(self.capacity_pages);
        while short > 0 {
            let Some(Reverse(t)) = self.held.pop() else { break };
            at_ns = at_ns.max(t);
            short -= 1;
        }
        Admission { at_ns, own_pages_first: short }
    }

    /// A page accepted into the buffer leaves it at `leaves_ns` (its data in its die).
    pub fn hold(&mut self, leaves_ns: Ns) {
        self.held.push(Reverse(leaves_ns));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_buffer_admits_as_the_earliest_pages_leave() {
        let mut b = WriteBuffer::new(2);
        assert_eq!(b.admit(0, 1), Admission { at_ns: 0, own_pages_first: 0 });
        b.hold(300);
        assert_eq!(b.admit(0, 1), Admission { at_ns: 0, own_pages_first: 0 });
        b.hold(600);
        // Full: the next page waits for the page leaving at 300.
        assert_eq!(b.admit(10, 1), Admission { at_ns: 300, own_pages_first: 0 });
        b.hold(900);
        // Pages that left free their slots without waiting.
        assert_eq!(b.admit(650, 1), Admission { at_ns: 650, own_pages_first: 0 });
        b.hold(1200);
        // Larger than the buffer: waits for both held pages, then for one of its own.
        assert_eq!(b.admit(700, 3), Admission { at_ns: 1200, own_pages_first: 1 });
    }
}
