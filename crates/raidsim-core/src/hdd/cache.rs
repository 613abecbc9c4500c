//! The drive's on-board buffer: a few segments, each holding one run of
//! consecutive sectors — data read (and read ahead past a read), or data
//! written and not yet on the media (write-back).
//!
//! This is the segmented cache of DiskSim's disk model (`disksim_diskcache.c`)
//! reduced to what its validated drives use: reads are hits only when a
//! segment holds all their sectors; a clean segment is replaced least
//! recently used first; a segment of written data is not replaced until its
//! data is on the media (its destage has ended).

use crate::engine::Ns;

/// Whether a segment's data is on the media.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dirty {
    /// On the media (read, read ahead, or written and destaged).
    Clean,
    /// Written, waiting for its destage to start.
    Pending,
    /// Written, its destage ends at this instant.
    Until(Ns),
}

/// One segment: sectors `start..end`.
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    /// First sector held.
    pub start: u64,
    /// The sector after the last one held.
    pub end: u64,
    /// Whether its data is on the media.
    pub dirty: Dirty,
    last_used: u64,
}

impl Segment {
    /// The segment's data is on the media at `t`.
    fn clean_at(&self, t: Ns) -> bool {
        match self.dirty {
            Dirty::Clean => true,
            Dirty::Pending => false,
            Dirty::Until(done) => done <= t,
        }
    }
}

/// The segments of one drive.
#[derive(Clone, Debug)]
pub struct DiskCache {
    segments: Vec<Option<Segment>>,
    /// Sectors per segment.
    pub segment_sectors: u64,
    /// Segments that may hold written data not yet on the media.
    max_write_segments: usize,
    clock: u64,
}

impl DiskCache {
    /// `segments` empty segments of `segment_sectors` each.
    /// (`max_write_segments` may hold written data; 0 = all).
    pub fn new(segments: u32, segment_sectors: u64, max_write_segments: u32) -> Self {
        let max_write_segments = if max_write_segments == 0 { segments } else { max_write_segments } as usize;
        Self { segments: vec![None; segments as usize], segment_sectors, max_write_segments, clock: 0 }
    }

    /// A segment free at `t` for written data: one of [`Self::free_segment`],
    /// if fewer than the limit hold written data not yet on the media.
    pub fn free_write_segment(&self, t: Ns) -> Option<usize> {
        let written = self.segments.iter().flatten().filter(|s| !s.clean_at(t)).count();
        if written >= self.max_write_segments {
            return None;
        }
        self.free_segment(t)
    }

    /// The segment `i`.
    pub fn segment(&self, i: usize) -> Option<&Segment> {
        self.segments.get(i).and_then(Option::as_ref)
    }

    /// Segment `i`, to change.
    pub fn segment_mut(&mut self, i: usize) -> Option<&mut Segment> {
        self.segments.get_mut(i).and_then(Option::as_mut)
    }

    /// A segment holds every sector of `first..end` (written data counts
    /// only if `written_data_hits`); it becomes the most recently used.
    /// Data destaged by `now` counts as read data.
    pub fn hit(&mut self, first: u64, end: u64, now: Ns, written_data_hits: bool) -> bool {
        self.clock += 1;
        let clock = self.clock;
        let found = self.segments.iter_mut().flatten().find(|s| s.start <= first && end <= s.end && (written_data_hits || s.clean_at(now)));
        match found {
            Some(s) => {
                s.last_used = clock;
                true
            }
            None => false,
        }
    }

    /// A write of `first..end` at `now` makes what segments on the media
    /// hold of it stale: they keep the part before it (a segment holds one
    /// run). Written data still to be destaged stays: it must reach the
    /// media, and the newer write lands after it.
    pub fn invalidate(&mut self, first: u64, end: u64, now: Ns) {
        for slot in &mut self.segments {
            if let Some(s) = slot.filter(|s| s.clean_at(now) && s.start < end && first < s.end) {
                *slot = (s.start < first).then_some(Segment { end: first, dirty: Dirty::Clean, ..s });
            }
        }
    }

    /// A segment free at `t` for new data (empty, or the least recently
    /// used one whose data is on the media), or `None`.
    pub fn free_segment(&self, t: Ns) -> Option<usize> {
        if let Some(i) = self.segments.iter().position(Option::is_none) {
            return Some(i);
        }
        (0..self.segments.len())
            .filter(|&i| self.segments[i].is_some_and(|s| s.clean_at(t)))
            .min_by_key(|&i| self.segments[i].map_or(0, |s| s.last_used))
    }

    /// The earliest instant after `t` that a segment's destage ends.
    pub fn next_destage_end(&self, t: Ns) -> Option<Ns> {
        self.segments.iter().flatten().filter_map(|s| if let Dirty::Until(end) = s.dirty { Some(end) } else { None }).filter(|&end| end > t).min()
    }

    /// Puts `first..end` in segment `i`.
    pub fn fill(&mut self, i: usize, first: u64, end: u64, dirty: Dirty) {
        self.clock += 1;
        self.segments[i] = Some(Segment { start: first, end, dirty, last_used: self.clock });
    }

    /// A segment of written data still waiting for its destage that
    /// `first..end` continues, with room for it.
    pub fn combinable(&self, first: u64, end: u64) -> Option<usize> {
        self.segments.iter().position(|s| s.is_some_and(|s| s.dirty == Dirty::Pending && s.end == first && end - s.start <= self.segment_sectors))
    }
}
