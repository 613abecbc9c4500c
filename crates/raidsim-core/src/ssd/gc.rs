//! Garbage collection's time and counts, and collection forced from
//! outside (Harmonia's globally coordinated GC).

use super::*;

impl Ssd {
    /// Each copy is a read and a program, each as long as its page's type
    /// makes it; each block a copy filled has its summary pages programmed.
    #[cfg(test)]
    pub(super) fn gc_time(&self, gc: GcWork) -> Ns {
        let (copies, erases) = self.gc_phases(gc);
        copies + erases
    }

    /// A collection's two phases, ns: its copies (without copy-back each
    /// copied page also crosses the channel out and back), then its erases.
    pub(super) fn gc_phases(&self, gc: GcWork) -> (Ns, Ns) {
        let (t, l) = (&self.timing, &self.latencies);
        let by_type: Ns = (0..PageType::COUNT).map(|i| gc.reads_by_type[i] * l.read_ns[i] + gc.programs_by_type[i] * l.program_ns[i]).sum();
        let per_block = u64::from(self.ftl.summary_pages_per_block());
        let sealed_blocks = gc.summary_pages.checked_div(per_block).unwrap_or(0);
        let transfers = if self.gc_copy_back { 0 } else { gc.pages_copied * 2 * self.channel_ns(self.page_size_bytes) };
        let copies = gc.pages_copied * 2 * t.t_command_ns + by_type + transfers + sealed_blocks * self.summary_block_ns;
        (copies, gc.blocks_erased * (t.t_command_ns + t.t_erase_ns))
    }

    /// Books collection `gc` of a plane on `route`, from `from_ns` on.
    /// Held by the unit alone (`GcHolds::Unit`), it is owed to the unit
    /// and runs before the unit's next operation. Holding the channel
    /// (SSDsim's uninterruptible collection), it is booked now, ahead of
    /// anything booked later: the unit and its channel from the first
    /// instant both are free for the copies, then the unit for the erases.
    pub(super) fn book_gc(&mut self, r: Route, from_ns: Ns, gc: GcWork) {
        if gc.is_empty() {
            return;
        }
        let (copies, erases) = self.gc_phases(gc);
        if copies + erases == 0 {
            return;
        }
        if self.yielding_gc.is_some() {
            return self.owe_yielding_gc(r, from_ns, copies, gc);
        }
        if self.gc_holds == GcHolds::Unit {
            let owed = &mut self.owed_gc[r.unit];
            *owed = (owed.0 + copies + erases, if owed.0 > 0 { owed.1 } else { from_ns }, erases);
            return;
        }
        let mut t = from_ns;
        loop {
            let start = self.units[r.unit].earliest(t, copies + erases);
            let on_channel = self.channels[r.channel].earliest(start, copies);
            if on_channel == start {
                self.units[r.unit].book_at(start, start + copies + erases);
                self.channels[r.channel].book_at(start, start + copies);
                self.note_erases(r.unit, start + copies + erases, erases);
                return;
            }
            t = on_channel;
        }
    }

    /// Counts collection's copies and an SLC cache's folds apart, and
    /// the erases of both.
    /// Books `work` on `unit` alone, at the first instant from `from_ns`
    /// it fits there; returns its end.
    pub(super) fn book_on_unit(&mut self, unit: usize, from_ns: Ns, work: GcWork) -> Ns {
        let (copies, erases) = self.gc_phases(work);
        let end = self.units[unit].book(from_ns, copies + erases) + copies + erases;
        self.note_erases(unit, end, erases);
        end
    }

    pub(super) fn count_gc(&mut self, gc: GcWork) {
        if gc.is_empty() {
            return;
        }
        self.gc_runs += u64::from(gc.ran());
        let copied = gc.pages_copied - gc.pages_folded;
        self.counters.pages_read[Cause::GcRead.index()] += copied;
        self.counters.pages_written[Cause::GcWrite.index()] += copied;
        self.counters.pages_read[Cause::SlcFoldRead.index()] += gc.pages_folded;
        self.counters.pages_written[Cause::SlcFoldWrite.index()] += gc.pages_folded;
        self.counters.erases += gc.blocks_erased;
        self.summary_pages_written += gc.summary_pages;
    }

    /// Counts collection that one of the drive's own placements asked
    /// for (a write's page, or a read's placement of one never written).
    pub(super) fn count_own_gc(&mut self, gc: GcWork) {
        self.own_gc_starts += u64::from(gc.ran());
        self.count_gc(gc);
    }

    /// Collections this drive started itself, ever (see `own_gc_starts`).
    pub fn own_gc_starts(&self) -> u64 {
        self.own_gc_starts
    }

    /// Harmonia's forced collection (Kim et al., MSST 2011): at `now_ns`,
    /// every plane with fewer than `free_fraction` of its blocks free is
    /// collected up to it, each on its unit from now on (ahead of whatever
    /// is booked later). Returns the blocks erased.
    pub fn force_gc(&mut self, now_ns: Ns, free_fraction: f64) -> Result<u64> {
        self.start_waiting_programs(now_ns)?;
        let layout = self.ftl.layout();
        let (planes, target) = (layout.planes, (f64::from(layout.geometry.blocks_per_plane) * free_fraction).ceil() as usize);
        let mut erased = 0;
        for plane in 0..planes {
            if self.ftl.free_blocks(plane) >= target {
                continue;
            }
            let gc = self.ftl.collect_until(plane, target, now_ns)?;
            if gc.blocks_erased == 0 {
                continue;
            }
            // Counted even when it takes no time (a zero erase time): the blocks were erased.
            let route = self.route(now_ns, plane);
            if self.gc_holds == GcHolds::Unit {
                self.book_on_unit(route.unit, now_ns, gc);
            } else {
                self.book_gc(route, now_ns, gc);
            }
            self.count_gc(gc);
            self.forced_gc_runs += 1;
            erased += gc.blocks_erased;
        }
        Ok(erased)
    }
}
