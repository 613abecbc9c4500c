//! What a drive reports: its counters by cause, per chip, GC and write
//! amplification, named by component path.

use super::*;

impl Ssd {
    /// Bytes of one flash page.
    pub fn page_size_bytes(&self) -> u64 {
        self.page_size_bytes
    }

    /// Requests started and not yet completed.
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// Pages programmed on each chip of the SSD, GC aside.
    pub fn chip_pages_written(&self) -> &[u64] {
        &self.chip_pages_written
    }

    /// With `ssd.ftl.gc_hard_threshold_fraction`: how many more copies
    /// and erases of collection were owed at the end than when counting
    /// began, and the run's (`None` otherwise).
    pub fn gc_pieces_owed_growth(&self) -> Option<(u64, u64)> {
        let y = self.yielding_gc.as_ref()?;
        let run = self.counters.pages_written[Cause::GcWrite.index()] + self.counters.erases;
        Some((y.pieces_owed().saturating_sub(y.owed_when_counting_began), run))
    }

    /// With `ssd.scheduling = "reads_first"`: how many buffered programs
    /// were held off the calendar until due (`None` in arrival order).
    pub fn programs_deferred(&self) -> Option<u64> {
        self.reads_first.then_some(self.programs_deferred)
    }

    /// Page reads that waited off the calendar, for their map entries or
    /// their units (`reads_first`).
    pub fn page_reads_waited(&self) -> u64 {
        self.reads_waiting.pages_waited + self.reads_waiting.pages_waited_for_unit
    }

    /// Garbage-collection runs (writes that triggered at least one erase).
    pub fn gc_runs(&self) -> u64 {
        self.gc_runs
    }

    /// Flash pages written per page the host (or array) asked to write.
    pub fn write_amplification(&self) -> f64 {
        let all: u64 = self.counters.pages_written.iter().sum();
        // The drive's own writes: collection's copies, its map's pages, its SLC cache's folds.
        let own: u64 = [Cause::GcWrite, Cause::MapWrite, Cause::SlcFoldWrite].iter().map(|c| self.counters.pages_written[c.index()]).sum();
        if all == own {
            return 0.0;
        }
        all as f64 / (all - own) as f64
    }

    /// This drive's statistics under `prefix` (e.g. `ssd` or `member[3]`).
    pub fn stats(&self, prefix: &str, out: &mut Stats) {
        for cause in Cause::ALL {
            let (r, w) = (self.counters.pages_read[cause.index()], self.counters.pages_written[cause.index()]);
            if r > 0 {
                out.push(Stat::new(format!("{prefix}.flash.pages_read.{}", cause.name()), r as f64, "pages", "flash pages read for this cause"));
            }
            if w > 0 {
                out.push(Stat::new(
                    format!("{prefix}.flash.pages_written.{}", cause.name()),
                    w as f64,
                    "pages",
                    "flash pages programmed for this cause",
                ));
            }
        }
        // Per-chip wear matters where chips differ: a mirroring chip, a replaced chip, flows' own chips.
        if self.ftl.layout().geometry.mirroring_chips_per_channel > 0 || self.replacement_chip.is_some() || !self.flow_parts.is_empty() {
            for (chip, &n) in self.chip_pages_written.iter().enumerate() {
                out.push(Stat::new(format!("{prefix}.chip[{chip}].pages_written"), n as f64, "pages", "pages programmed on this chip, GC aside"));
            }
            for (chip, &n) in self.chip_pages_read.iter().enumerate() {
                out.push(Stat::new(format!("{prefix}.chip[{chip}].pages_read"), n as f64, "pages", "pages read on this chip, GC aside"));
            }
        }
        out.push(Stat::new(format!("{prefix}.flash.erases"), self.counters.erases as f64, "blocks", "blocks erased during the run"));
        if self.erase_suspend.ops != crate::config::SuspendingOps::None {
            let (suspended, deferred) = self.erase_suspension_counts();
            out.push(Stat::new(
                format!("{prefix}.flash.erase_suspensions"),
                suspended as f64,
                "operations",
                "flash operations that suspended a running erase",
            ));
            out.push(Stat::new(
                format!("{prefix}.flash.ahead_of_erase"),
                deferred as f64,
                "operations",
                "flash operations served before an erase that had not begun (or would resume)",
            ));
        }
        if self.reads_first {
            out.push(Stat::new(
                format!("{prefix}.flash.programs_deferred"),
                self.programs_deferred as f64,
                "pages",
                "buffered programs held off their units' calendars until due, so that later reads could pass them (ssd.scheduling = \"reads_first\")",
            ));
            out.push(Stat::new(
                format!("{prefix}.write_buffer.writes_waited"),
                self.waiting_for_room.writes_waited as f64,
                "requests",
                "writes that found the write buffer full and waited in line for room while reads went on",
            ));
            if self.cmt.is_some() {
                out.push(Stat::new(
                    format!("{prefix}.ftl.cmt.page_reads_waited"),
                    self.reads_waiting.pages_waited as f64,
                    "pages",
                    "page reads that waited off their units' calendars until their map entries were known, so that programs begun meanwhile went first",
                ));
            }
            if self.issue_when_idle {
                out.push(Stat::new(
                    format!("{prefix}.flash.page_reads_waited_for_unit"),
                    self.reads_waiting.pages_waited_for_unit as f64,
                    "pages",
                    "page reads that waited off their units' calendars until their units were idle (ssd.command_issue = \"when_idle\")",
                ));
            }
        }
        if self.place_unwritten_reads {
            out.push(Stat::new(
                format!("{prefix}.ftl.pages_placed_by_reads"),
                self.pages_placed_by_reads as f64,
                "pages",
                "pages never written that a read placed in their plane's open block, unprogrammed (ssd.ftl.place_unwritten_reads)",
            ));
        }
        if self.waiting.multi_plane {
            let w = &self.waiting;
            out.push(Stat::new(
                format!("{prefix}.flash.multi_plane_programs"),
                w.multi_plane_commands as f64,
                "commands",
                "programs of two planes or more of a die at once (ssd.multi_plane_programs)",
            ));
            out.push(Stat::new(
                format!("{prefix}.flash.multi_plane_pages"),
                w.multi_plane_pages as f64,
                "pages",
                "pages programmed by multi-plane commands",
            ));
        }
        out.push(Stat::new(format!("{prefix}.ftl.gc.runs"), self.gc_runs as f64, "runs", "writes that triggered garbage collection"));
        out.push(Stat::new(
            format!("{prefix}.ftl.gc.forced_runs"),
            self.forced_gc_runs as f64,
            "runs",
            "planes collected because another member began a collection (array.gc_coordination = \"global\")",
        ));
        if let Some(y) = &self.yielding_gc {
            out.push(Stat::new(
                format!("{prefix}.ftl.gc.urgent_pieces"),
                y.urgent_pieces as f64,
                "operations",
                "copies and erases of collection booked while a plane of their unit had fewer free blocks, less those owed an erase, than the hard threshold: they did not yield (ssd.ftl.gc_hard_threshold_fraction)",
            ));
            out.push(Stat::new(
                format!("{prefix}.ftl.gc.urgent_waits"),
                y.urgent_waits as f64,
                "operations",
                "flash operations that found a plane of their unit below the hard threshold and waited for collection: the pieces that went first, or the one under way (ssd.ftl.gc_hard_threshold_fraction)",
            ));
            out.push(Stat::new(
                format!("{prefix}.ftl.gc.pieces_owed_at_start"),
                y.owed_when_counting_began as f64,
                "operations",
                "copies and erases of collection owed when counting began (after the warm-up), those of programs still waiting included",
            ));
            out.push(Stat::new(
                format!("{prefix}.ftl.gc.pieces_owed_at_end"),
                y.pieces_owed() as f64,
                "operations",
                "copies and erases of collection still owed when the run ended: their blocks were collected, their time not spent",
            ));
        }
        out.push(Stat::new(
            format!("{prefix}.ftl.gc.pages_copied"),
            self.counters.pages_written[Cause::GcWrite.index()] as f64,
            "pages",
            "valid pages moved by garbage collection",
        ));
        out.push(Stat::new(
            format!("{prefix}.ftl.wear_levelling.static_moves"),
            self.ftl.static_wear_levelling_moves() as f64,
            "blocks",
            "blocks in use relocated because the plane's erase counts spread too far (counted in the collection figures too)",
        ));
        if let Some(cmt) = &self.cmt {
            let (hits, misses) = cmt.hits_and_misses();
            out.push(Stat::new(
                format!("{prefix}.ftl.cmt.entries"),
                cmt.entries_held() as f64,
                "entries",
                "map entries the cached map held at the end of the run",
            ));
            out.push(Stat::new(
                format!("{prefix}.ftl.cmt.hits"),
                hits as f64,
                "lookups",
                "map lookups that found their entry in the cached map, known",
            ));
            out.push(Stat::new(
                format!("{prefix}.ftl.cmt.misses"),
                misses as f64,
                "lookups",
                "map lookups that read a translation page (or found none written), or waited for one being read",
            ));
            let ratio = if hits + misses > 0 { hits as f64 / (hits + misses) as f64 } else { 0.0 };
            out.push(Stat::new(format!("{prefix}.ftl.cmt.hit_ratio"), ratio, "ratio", "hits / lookups of the cached map"));
        }
        if let Some(cache) = &self.write_cache {
            let (kept, evicted) = cache.counts();
            out.push(Stat::new(
                format!("{prefix}.write_cache.kept_pages"),
                kept as f64,
                "pages",
                "page writes kept in DRAM, rewritten while cached and lately written back",
            ));
            out.push(Stat::new(
                format!("{prefix}.write_cache.evicted_pages"),
                evicted as f64,
                "pages",
                "dirty pages evicted from the cache and written back",
            ));
        }
        match (self.ftl.merges(), self.ftl.has_log_blocks()) {
            (Some(m), true) => {
                for (kind, n, what) in [
                    ("switch", m.switch, "full sequential log blocks that became data blocks (no copy)"),
                    ("partial", m.partial, "sequential log blocks completed by copies, then switched"),
                    ("full", m.full, "logical blocks copied whole into a new data block"),
                ] {
                    out.push(Stat::new(format!("{prefix}.ftl.merges.{kind}"), n as f64, "merges", what));
                }
            }
            (Some(m), false) => out.push(Stat::new(
                format!("{prefix}.ftl.merges.full"),
                m.full as f64,
                "merges",
                "data blocks rewritten into a free block because a write could not go in place",
            )),
            (None, _) => {}
        }
        self.slc_cache_stats(prefix, out);
        self.trim_stats(prefix, out);
        out.push(Stat::new(
            format!("{prefix}.ftl.summary_pages_written"),
            self.summary_pages_written as f64,
            "pages",
            "block summary pages programmed (not counted as data pages)",
        ));
        out.push(Stat::new(
            format!("{prefix}.ftl.write_amplification"),
            self.write_amplification(),
            "ratio",
            "flash pages written / pages written by the host",
        ));
    }
}
