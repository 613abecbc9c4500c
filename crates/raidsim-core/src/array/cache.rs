//! The RAID controller's write-back cache.
//!
//! A hardware RAID controller (the RAIS paper's LSI MegaRAID 9260-8i has
//! 512 MB) may acknowledge a write as soon as its data is in the cache and
//! write the stripes behind; the paper ran its default, write-through (its
//! Table 1), and `array.controller.cache = "write_back"` is the other
//! setting. A cached write holds its bytes of cache until the members have
//! written it, parity included; a write that finds the cache full waits for
//! room, in arrival order. A write larger than the whole cache is written
//! through (acknowledged when written).
//!
//! A read that lies wholly in one write still in the cache is served from
//! the cache (a hit: no member I/O). Order is kept on data, not only on
//! time: any other request that overlaps data still on its way to the
//! members waits until that data is there, so a read never returns what a
//! later-acknowledged write replaced and two writes of one block reach the
//! members in the order the host issued them. A read that straddles cached
//! and uncached data waits too (a real controller might merge the two).

use crate::device::Op;
use std::collections::{BTreeMap, VecDeque};

/// What becomes of a host request at the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Served by the members and acknowledged when they are done.
    Through,
    /// In the cache: acknowledged now, written behind.
    Cached,
    /// A read of data all in one cached write: answered from the cache.
    Hit,
    /// Waits (for room, or for data it overlaps to reach the members).
    Wait,
}

/// The cache's state.
#[derive(Debug)]
pub struct WriteBackCache {
    capacity_bytes: u64,
    used_bytes: u64,
    /// Cached extents not yet on the members: start → end. Disjoint, since
    /// a write overlapping one waits for it.
    dirty: BTreeMap<u64, u64>,
    /// Host jobs waiting, in arrival order, with what they ask.
    waiting: VecDeque<(u32, Op, u64, u64)>,
}

impl WriteBackCache {
    /// An empty cache of `capacity_bytes`.
    pub fn new(capacity_bytes: u64) -> Self {
        Self { capacity_bytes, used_bytes: 0, dirty: BTreeMap::new(), waiting: VecDeque::new() }
    }

    /// Host job `job` asks for `[offset, offset + len)`. Reads that overlap
    /// no cached data pass everything waiting; the rest keep arrival order.
    pub fn admit(&mut self, job: u32, op: Op, offset_bytes: u64, len_bytes: u64) -> Admission {
        let hit = op == Op::Read && self.holds(offset_bytes, len_bytes);
        let must_queue = !hit && !self.waiting.is_empty() && (op == Op::Write || self.overlaps(offset_bytes, len_bytes));
        match (!must_queue).then(|| self.try_admit(op, offset_bytes, len_bytes)).flatten() {
            Some(a) => a,
            None => {
                self.waiting.push_back((job, op, offset_bytes, len_bytes));
                Admission::Wait
            }
        }
    }

    fn try_admit(&mut self, op: Op, offset_bytes: u64, len_bytes: u64) -> Option<Admission> {
        if op == Op::Read && self.holds(offset_bytes, len_bytes) {
            return Some(Admission::Hit);
        }
        if self.overlaps(offset_bytes, len_bytes) {
            return None;
        }
        if op == Op::Read || len_bytes > self.capacity_bytes {
            return Some(Admission::Through);
        }
        if self.used_bytes + len_bytes > self.capacity_bytes {
            return None;
        }
        self.used_bytes += len_bytes;
        self.dirty.insert(offset_bytes, offset_bytes + len_bytes);
        Some(Admission::Cached)
    }

    /// Whether `[offset, offset + len)` overlaps cached data: the extents
    /// are disjoint and sorted, so only the last one starting before the
    /// end can reach into it.
    fn overlaps(&self, offset_bytes: u64, len_bytes: u64) -> bool {
        self.dirty.range(..offset_bytes + len_bytes).next_back().is_some_and(|(_, &end)| end > offset_bytes)
    }

    /// Whether `[offset, offset + len)` lies wholly in one cached write.
    fn holds(&self, offset_bytes: u64, len_bytes: u64) -> bool {
        self.dirty.range(..=offset_bytes).next_back().is_some_and(|(_, &end)| end >= offset_bytes + len_bytes)
    }

    /// The cached write of `[offset, offset + len)` is on the members: its
    /// room is free again. False if no such write was cached.
    pub fn destaged(&mut self, offset_bytes: u64, len_bytes: u64) -> bool {
        if self.dirty.get(&offset_bytes) != Some(&(offset_bytes + len_bytes)) {
            return false;
        }
        self.dirty.remove(&offset_bytes);
        self.used_bytes -= len_bytes;
        true
    }

    /// The first waiting job, if it may now go, and how.
    pub fn next_admitted(&mut self) -> Option<(u32, Admission)> {
        let &(job, op, offset, len) = self.waiting.front()?;
        let admission = self.try_admit(op, offset, len)?;
        self.waiting.pop_front();
        Some((job, admission))
    }

    /// Bytes of cache holding data not yet on the members.
    pub fn used_bytes(&self) -> u64 {
        self.used_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_cache_makes_writes_wait_in_order_and_reads_pass() {
        let mut c = WriteBackCache::new(8192);
        assert_eq!(c.admit(0, Op::Write, 0, 4096), Admission::Cached);
        assert_eq!(c.admit(1, Op::Write, 4096, 4096), Admission::Cached);
        assert_eq!(c.admit(2, Op::Write, 65536, 4096), Admission::Wait);
        // A read of other data passes the waiting write; one of cached data is a hit.
        assert_eq!(c.admit(3, Op::Read, 1 << 20, 4096), Admission::Through);
        assert_eq!(c.admit(4, Op::Read, 4096, 512), Admission::Hit, "all in one cached write: served from the cache");
        assert_eq!(c.admit(5, Op::Read, 2048, 4096), Admission::Wait, "[2048, 6144) straddles two cached writes");
        assert_eq!(c.next_admitted(), None);
        assert!(c.destaged(0, 4096));
        assert_eq!(c.next_admitted(), Some((2, Admission::Cached)));
        assert_eq!(c.next_admitted(), None, "job 5 still overlaps [4096, 8192), cached");
        assert!(c.destaged(4096, 4096));
        assert_eq!(c.next_admitted(), Some((5, Admission::Through)));
        assert_eq!(c.used_bytes(), 4096);
    }

    #[test]
    fn overlap_is_found_at_both_edges_and_a_write_larger_than_the_cache_goes_through() {
        let mut c = WriteBackCache::new(8192);
        assert_eq!(c.admit(0, Op::Write, 8192, 4096), Admission::Cached);
        assert!(!c.overlaps(4096, 4096), "ends where the cached extent starts");
        assert!(c.overlaps(4096, 4097));
        assert!(c.overlaps(12287, 1));
        assert!(!c.overlaps(12288, 4096));
        assert_eq!(c.admit(1, Op::Write, 1 << 20, 16384), Admission::Through);
        assert!(!c.destaged(8192, 512), "no cached write of that extent");
    }
}
