//! Where a written page goes: the allocation policy's plane, the least busy
//! plane, and (RAID inside the SSD, the CR5M paper) the mirroring chips and
//! chip failures.

use super::*;

/// Collection a read's placement of a page never written asked for, on
/// the page's plane.
#[derive(Clone, Copy)]
pub(super) struct PlacementGc {
    plane: u32,
    gc: GcWork,
}

impl Ssd {
    /// A read of `lpn`, its entry known at `known_ns`, finds the page never
    /// written: with `ssd.ftl.place_unwritten_reads` the FTL places it, as
    /// a write of it would, in the next page of its plane's open block,
    /// without programming it (MQSim's `online_create_entry_for_reads`),
    /// and its cached entry, if any, is changed; the read then goes there.
    /// The collection the placement asks for, with its plane, is returned:
    /// [`Ssd::book_placement_gc`] books it after the read, as a write's
    /// follows its program (MQSim serves user reads before collection).
    pub(super) fn place_unwritten_read(&mut self, lpn: u64, known_ns: Ns) -> Result<Option<PlacementGc>> {
        if self.ftl.lookup(lpn).is_some() || self.ftl.mirror_of(lpn).is_some() {
            return Ok(None);
        }
        let plane = self.place(lpn)?;
        let outcome = self.ftl.write(lpn, plane, known_ns)?;
        if let Some(cmt) = self.cmt.as_mut() {
            cmt.mark_changed(lpn);
        }
        self.count_own_gc(outcome.gc);
        self.placed_by_reads.insert(lpn);
        self.pages_placed_by_reads += 1;
        Ok((!outcome.gc.is_empty()).then_some(PlacementGc { plane, gc: outcome.gc }))
    }

    /// Books the collection a read's placement asked for, once the read
    /// has its data (`read_ns`), as `ssd.ftl.gc_holds` books a write's.
    pub(super) fn book_placement_gc(&mut self, now_ns: Ns, read_ns: Ns, placed: Option<PlacementGc>) {
        if let Some(PlacementGc { plane, gc }) = placed {
            let route = self.route(now_ns, plane);
            self.book_gc(route, read_ns, gc);
        }
    }

    /// Page `id` is written or trimmed: it no longer counts as placed by a
    /// read. True when it did, so it held no data.
    #[inline]
    pub(super) fn forget_placed_by_read(&mut self, id: u64) -> bool {
        !self.placed_by_reads.is_empty() && self.placed_by_reads.remove(&id)
    }

    pub(super) fn place(&mut self, lpn: u64) -> Result<u32> {
        match self.allocation {
            Allocation::Static => Ok(self.ftl.static_plane(lpn)),
            Allocation::StaticDie => Ok(self.most_free_plane(lpn)),
            Allocation::Dynamic => self.least_busy_plane(),
        }
    }

    /// `static_die`: the die static allocation gives `lpn`, and in it the
    /// plane with the most free pages; ties go round robin from the plane
    /// after the last one chosen (DiskSim's `ssd_pick_parunits`).
    pub(super) fn most_free_plane(&mut self, lpn: u64) -> u32 {
        let layout = self.ftl.layout();
        let ppd = layout.geometry.planes_per_die as usize;
        let die = layout.die_of_plane(self.ftl.static_plane(lpn)) as usize;
        let free = &self.ftl.free_pages_by_plane()[die * ppd..(die + 1) * ppd];
        let from = self.next_plane_in_die[die] as usize;
        // From `from` round the die; the first of the most free wins.
        let (mut best, mut best_free) = (from, 0);
        for i in (from..ppd).chain(0..from) {
            if free[i] > best_free {
                (best, best_free) = (i, free[i]);
            }
        }
        self.next_plane_in_die[die] = if best + 1 == ppd { 0 } else { best as u32 + 1 };
        (die * ppd + best) as u32
    }

    /// The unit (die, chip or plane) that serves `plane`.
    pub(super) fn unit_of_plane(&self, plane: u32) -> usize {
        let layout = self.ftl.layout();
        match self.parallel_unit {
            ParallelUnit::Die => layout.die_of_plane(plane) as usize,
            ParallelUnit::Chip => layout.chip_of_die(layout.die_of_plane(plane)) as usize,
            ParallelUnit::Plane => plane as usize,
        }
    }

    /// When every unit serving `die` has nothing booked any more.
    fn die_free_at(&self, die: u32) -> Ns {
        let ppd = self.ftl.layout().geometry.planes_per_die;
        if self.parallel_unit != ParallelUnit::Plane {
            // One unit serves all of the die's planes.
            return self.units[self.unit_of_plane(die * ppd)].last_end();
        }
        (die * ppd..(die + 1) * ppd).map(|p| self.units[p as usize].last_end()).max().unwrap_or(0)
    }

    /// When the unit serving `plane` has nothing booked any more.
    pub(super) fn unit_free_at(&self, plane: u32) -> Ns {
        self.units[self.unit_of_plane(plane)].last_end()
    }

    /// Chip `chip` of this drive fails; a spare chip takes its place and
    /// receives the reconstruction's writes. Returns what was lost.
    pub fn fail_chip(&mut self, chip: u32) -> Result<crate::ftl::ChipLoss> {
        let loss = self.ftl.fail_chip(chip)?;
        self.replacement_chip = Some(chip);
        Ok(loss)
    }

    /// True when every mirroring chip is idle at `now_ns` (CR5M writes a
    /// mirror copy only then, §3.1.2) and has room for a copy; false when
    /// the drive has none.
    pub fn mirroring_chips_idle(&self, now_ns: Ns) -> bool {
        let layout = self.ftl.layout();
        let mut dies = (0..layout.dies).filter(|&d| layout.is_mirroring_die(d)).peekable();
        dies.peek().is_some() && dies.all(|d| self.die_free_at(d) <= now_ns) && self.mirroring_chip_has_room()
    }

    /// Where the paper is silent: a mirroring chip too full to collect
    /// takes no more copies, and the data chips keep old copies only while
    /// they hold no more valid pages than the host's logical pages (the
    /// room over-provisioning was sized for), so the write updates parity
    /// instead.
    pub(super) fn mirroring_chip_has_room(&self) -> bool {
        let layout = self.ftl.layout();
        let mirroring_room = (0..layout.planes).any(|p| layout.is_mirroring_die(layout.die_of_plane(p)) && !self.ftl.plane_is_full(p));
        mirroring_room && self.ftl.data_valid_pages() < self.ftl.logical_pages()
    }

    /// Dynamic allocation: the data die whose unit frees first (lowest
    /// index on ties; a chip's dies in turn when the chip is the unit),
    /// planes round robin inside it, skipping planes too full to collect.
    pub(super) fn least_busy_plane(&mut self) -> Result<u32> {
        self.least_busy_plane_of(false)
    }

    /// Where a mirror copy goes: the mirroring chip's least busy die.
    pub(super) fn mirroring_plane(&mut self) -> Result<u32> {
        self.least_busy_plane_of(true)
    }

    pub(super) fn least_busy_plane_of(&mut self, mirroring: bool) -> Result<u32> {
        self.least_busy_plane_where(|l, d| l.is_mirroring_die(d) == mirroring).map_err(|e| match e {
            Error::Device(_) if mirroring => Error::Device("the mirroring chip is full: more pages are mirrored than it holds".into()),
            other => other,
        })
    }

    /// The least busy plane among the dies `eligible` accepts (see
    /// [`Ssd::least_busy_plane`]).
    pub(super) fn least_busy_plane_where(&mut self, eligible: impl Fn(&crate::flash::FlashLayout, u32) -> bool) -> Result<u32> {
        let layout = self.ftl.layout();
        let (ppd, n) = (layout.geometry.planes_per_die, layout.dies as usize);
        let eligible = |d: usize| eligible(layout, d as u32);
        // A chip's dies share one unit, and so one free time: they take the
        // writes in turn (by the chip's pages written), not the first die all.
        let dpc = layout.geometry.dies_per_chip as usize;
        let turn = |d: usize| match self.parallel_unit {
            ParallelUnit::Chip => d / dpc * dpc + (d % dpc + dpc - (self.chip_pages_written[d / dpc] % dpc as u64) as usize) % dpc,
            ParallelUnit::Die | ParallelUnit::Plane => d,
        };
        let best = (0..n).filter(|&d| eligible(d)).min_by_key(|&d| (self.die_free_at(d as u32), turn(d)));
        let best = best.ok_or_else(|| Error::Internal("no die of the kind asked for on this drive".into()))?;
        for die in std::iter::once(best).chain((0..n).filter(|&d| d != best && eligible(d))) {
            for _ in 0..ppd {
                let slot = self.next_plane_in_die[die];
                self.next_plane_in_die[die] = (slot + 1) % ppd;
                let plane = die as u32 * ppd + slot;
                if !self.ftl.plane_is_full(plane) {
                    return Ok(plane);
                }
            }
        }
        Err(Error::Device("every plane is full: the workload writes more than the drive's logical capacity".into()))
    }
}
