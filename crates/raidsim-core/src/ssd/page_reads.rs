//! How the drive reads a host's pages: from DRAM where the write cache or
//! a waiting program holds them, otherwise from flash once the page's map
//! entry is known, where its copy lies, booked on its unit and channel.
//! Under `ssd.scheduling = "reads_first"` a page read may wait off the
//! calendar for its entry or its chip (`waiting_reads.rs`).

use super::waiting_reads::AfterRead;
use super::*;

impl Ssd {
    /// Serves a read of pages `lpns`, its command handled by `t0`: when the
    /// data has crossed the host link, or `None` while pages wait.
    pub(super) fn serve_read(
        &mut self,
        start_ns: Ns,
        t0: Ns,
        lpns: std::ops::RangeInclusive<u64>,
        req: &DeviceRequest,
        in_page: impl Fn(u64) -> u64,
    ) -> Result<Option<Ns>> {
        let (mut done, mut waiting, first) = (t0, 0, *lpns.start());
        for lpn in lpns {
            self.poll_stop(lpn - first)?;
            if self.write_cache.as_ref().is_some_and(|c| c.holds(lpn)) || self.waits_to_be_programmed(lpn) {
                continue; // served from DRAM
            }
            let (known, write_back) = self.translate(start_ns, lpn, false, t0);
            let placed = if self.place_unwritten_reads { self.place_unwritten_read(lpn, known)? } else { None };
            if let Some(go_ns) = self.read_waits_until(lpn, req.cause, in_page(lpn), known, t0) {
                let after = AfterRead { write_back, placed };
                self.wait_for_entry_or_unit(start_ns, (lpn, in_page(lpn), req.cause), t0, known, go_ns, after);
                waiting += 1;
                continue;
            }
            let data_ns = self.read_page(start_ns, lpn, in_page(lpn), known, req.cause);
            self.book_placement_gc(start_ns, data_ns, placed);
            done = done.max(data_ns);
            self.write_back(start_ns, write_back, known)?;
        }
        if waiting > 0 {
            self.read_waits(req.token, done, waiting, req.len_bytes);
            return Ok(None);
        }
        Ok(Some(self.host_link(done, req.len_bytes)))
    }

    /// A read of a page of type `kind`, `bytes` of it crossing the channel.
    pub(super) fn read_work(&self, kind: PageType, bytes: u64) -> PageWork {
        PageWork {
            command: self.read_command_ns(),
            before: self.timing.t_command_ns + self.latencies.read(kind),
            transfer: self.channel_ns(bytes),
            after: 0,
        }
    }

    /// The part of a read's time that holds its channel before sensing.
    pub(super) fn read_command_ns(&self) -> Ns {
        if self.timing.read_command_on_channel {
            self.timing.t_command_ns
        } else {
            0
        }
    }

    /// The plane page `lpn` is read from for `cause`, and its page type.
    pub(super) fn read_source(&self, lpn: u64, cause: Cause) -> (u32, PageType) {
        let layout = self.ftl.layout();
        let plane_of = |ppn: u32| layout.plane_of_block(layout.block_of(ppn));
        let current = self.ftl.read_lookup(lpn);
        let mirror = self.ftl.mirror_of(lpn);
        // Decoding through parity needs the version parity covers: a
        // mirrored page's old copy (CR5M's EPPN), where one is kept.
        let expired = matches!(cause, Cause::DegradedRead | Cause::RebuildRead).then(|| self.ftl.expired_of(lpn)).flatten();
        let ppn = match (expired, current, mirror) {
            (Some(old), _, _) => Some(old),
            // A mirrored page is read from whichever copy's chip frees first (CR5M §3.1.2).
            (None, Some(c), Some(m)) if self.unit_free_at(plane_of(m)) < self.unit_free_at(plane_of(c)) => Some(m),
            (None, Some(c), _) => Some(c),
            // Its data chip failed: the mirroring chip still holds it (§3.2.2).
            (None, None, Some(m)) => Some(m),
            (None, None, None) => None,
        };
        // A never-written page is read where static allocation would put it, as an LSB page.
        let (plane, kind) = match ppn {
            Some(p) => (plane_of(p), layout.page_type(p)),
            None => (self.ftl.static_plane(lpn), PageType::Lsb),
        };
        (plane, kind)
    }

    pub(super) fn read_page(&mut self, now_ns: Ns, lpn: u64, bytes: u64, ready_ns: Ns, cause: Cause) -> Ns {
        let (plane, kind) = self.read_source(lpn, cause);
        let route = self.route(now_ns, plane);
        self.chip_pages_read[self.ftl.layout().chip_of_die(self.ftl.layout().die_of_plane(plane)) as usize] += 1;
        let work = self.read_work(kind, bytes);
        let x = self.book(route, ready_ns, work, Op::Read);
        self.counters.pages_read[cause.index()] += 1;
        x + work.transfer
    }
}
