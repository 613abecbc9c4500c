//! The array's front end: what a host request crosses before the planner
//! and after the members — the controller's overhead, the host link (inside
//! one SSD, the SSD's own link shared by all members), the write-back cache
//! and read-ahead (the RAIS paper's LSI controller; `array::cache`,
//! `array::read_ahead` hold their state).

use super::*;

/// What host requests cross outside the array controller: its overhead,
/// and (inside one SSD) the SSD's host link, shared by all members.
pub(super) struct FrontEnd {
    pub(super) overhead_ns: Ns,
    pub(super) link_bytes_per_s: u64,
    pub(super) link: Timeline,
    pub(super) cache: Option<crate::array::cache::WriteBackCache>,
    pub(super) read_ahead: Option<ReadAheadCache>,
}

impl FrontEnd {
    /// The read-ahead data; an internal error when read-ahead is off (only its own paths call this).
    pub(super) fn read_ahead_mut(&mut self) -> Result<&mut ReadAheadCache> {
        self.read_ahead.as_mut().ok_or_else(|| Error::Internal("read-ahead without its cache".into()))
    }

    /// When a request arriving at `now` reaches the planner: after the
    /// overhead and, for a write, its data's transfer.
    pub(super) fn inbound(&mut self, now: Ns, op: Op, len_bytes: u64) -> Ns {
        let ready = now + self.overhead_ns;
        if op == Op::Write {
            self.transfer(now, ready, len_bytes)
        } else {
            ready
        }
    }

    /// When `bytes` ready at `ready` have crossed the link, booked at `now`.
    pub(super) fn transfer(&mut self, now: Ns, ready: Ns, bytes: u64) -> Ns {
        if self.link_bytes_per_s == 0 {
            return ready;
        }
        // Only the past is forgotten: a later event may still book a gap before `ready`.
        self.link.advance(now);
        let d = crate::config::transfer_ns(bytes, self.link_bytes_per_s);
        self.link.book_remembered(ready, d) + d
    }
}

/// The flow of the controller's own reads ahead: none of the host's.
const READ_AHEAD_FLOW: u16 = u16::MAX;

/// The controller's read-ahead data, when `array.controller.read_ahead` is on.
pub(super) fn read_ahead_cache(resolved: &ResolvedConfig, controller: Option<&ArrayController>) -> Option<ReadAheadCache> {
    let c = &resolved.config.array.controller;
    let capacity = controller?.planner().geometry().capacity_bytes();
    (c.read_ahead != ReadAheadPolicy::Off).then(|| ReadAheadCache::new(c.read_ahead, c.read_ahead_bytes, c.cache_bytes, capacity))
}

impl Simulation {
    /// Host job `job`, past the front end, meets the write-back cache (if
    /// any): it is planned now, acknowledged now and written behind, or waits.
    pub(super) fn admit(&mut self, now: Ns, job: u32) -> Result<()> {
        if self.front_end.read_ahead.is_some() {
            return self.admit_with_read_ahead(now, job);
        }
        let Some(cache) = self.front_end.cache.as_mut() else { return self.start_job(now, job) };
        let Some(j) = self.jobs.get(job) else { return Err(Error::Internal(format!("host job {job} is not in flight"))) };
        let admission = cache.admit(job, j.op, j.offset_bytes, j.len_bytes);
        self.admitted(now, job, admission)
    }

    pub(super) fn admitted(&mut self, now: Ns, job: u32, admission: Admission) -> Result<()> {
        match admission {
            Admission::Wait => return Ok(()),
            Admission::Through => {}
            Admission::Hit => {
                // Answered from the cache: only the data's way back over the host link.
                self.answer(now, job)?;
                self.cache_hits += 1;
                return Ok(());
            }
            Admission::Cached => {
                self.cache_writes += 1;
                let j = self.jobs.get_mut(job).ok_or_else(|| Error::Internal(format!("host job {job} is not in flight")))?;
                j.kind = JobKind::CachedWrite;
                let j = j.clone();
                self.acknowledge(now, &j)?;
            }
        }
        self.start_job(now, job)
    }

    /// Cached host job `job` has reached the members: its room in the cache
    /// frees, and the jobs waiting for room or for its data go in order.
    pub(super) fn destaged(&mut self, now: Ns, job: u32, served: bool) -> Result<()> {
        let j = self.jobs.remove(job).ok_or_else(|| Error::Internal(format!("cached host job {job} is not in flight")))?;
        if !served {
            return Err(Error::Internal(format!("cached write {job} touched lost data after its acknowledgement")));
        }
        let cache = self.front_end.cache.as_mut().ok_or_else(|| Error::Internal("a cached job without a cache".into()))?;
        if !cache.destaged(j.offset_bytes, j.len_bytes) {
            return Err(Error::Internal(format!("cached write {job} was not in the cache")));
        }
        while let Some((next, admission)) = self.front_end.cache.as_mut().and_then(|c| c.next_admitted()) {
            self.admitted(now, next, admission)?;
        }
        Ok(())
    }

    /// Host job `job`, past the front end, meets the read-ahead data: a write
    /// drops what it overlaps; a read is a hit, waits for data on its way, or
    /// goes to the members, and then the controller may read further ahead.
    pub(super) fn admit_with_read_ahead(&mut self, now: Ns, job: u32) -> Result<()> {
        let Some(j) = self.jobs.get(job) else { return Err(Error::Internal(format!("host job {job} is not in flight"))) };
        let (op, offset, len) = (j.op, j.offset_bytes, j.len_bytes);
        let ra = self.front_end.read_ahead_mut()?;
        if op == Op::Write {
            ra.written(offset, len);
            return self.start_job(now, job);
        }
        // Looked up before reading ahead: making room could drop the data this read wants.
        self.read_from_cache_or_members(now, job)?;
        let ra = self.front_end.read_ahead_mut()?;
        match ra.after_read(offset, len) {
            Some((start, bytes)) => self.read_ahead(now, start, bytes),
            None => Ok(()),
        }
    }

    /// Host job `job` has reached the members: if it is a write, data read
    /// ahead while it was on its way may predate it, so what it overlaps is
    /// dropped again (its admission dropped what was held then).
    pub(super) fn write_landed(&mut self, job: u32) {
        if let (Some(ra), Some(j)) = (self.front_end.read_ahead.as_mut(), self.jobs.get(job)) {
            if j.op == Op::Write {
                ra.written(j.offset_bytes, j.len_bytes);
            }
        }
    }

    /// Host read `job` is answered from the read-ahead data, waits for it,
    /// or goes to the members.
    pub(super) fn read_from_cache_or_members(&mut self, now: Ns, job: u32) -> Result<()> {
        let Some(j) = self.jobs.get(job) else { return Err(Error::Internal(format!("host job {job} is not in flight"))) };
        let (offset, len) = (j.offset_bytes, j.len_bytes);
        let ra = self.front_end.read_ahead_mut()?;
        match ra.lookup(offset, len) {
            Lookup::Hit => {
                if let Some(c) = self.controller.as_mut().filter(|_| self.resolved.config.sim.verify) {
                    let versions = ra.versions(offset, len, crate::array::verify::SECTOR).unwrap_or_default();
                    c.verify_cached_read(offset, len, &versions);
                }
                self.answer_from_read_ahead(now, job)
            }
            Lookup::Pending(start) if ra.wait(start, job) => Ok(()),
            Lookup::Pending(start) => Err(Error::Internal(format!("read-ahead extent at {start} is not being read"))),
            Lookup::Miss => self.start_job(now, job),
        }
    }

    /// The controller reads `[start, start + bytes)` ahead.
    pub(super) fn read_ahead(&mut self, now: Ns, start: u64, bytes: u64) -> Result<()> {
        let ra = self.front_end.read_ahead_mut()?;
        let job = self.jobs.insert(HostJob {
            arrival_ns: now,
            offset_bytes: start,
            len_bytes: bytes,
            op: Op::Read,
            kind: JobKind::ReadAhead,
            measured: false,
            read_ahead_hit: false,
            flow: READ_AHEAD_FLOW,
        });
        ra.reading(start, bytes, job);
        (self.read_ahead_reads, self.read_ahead_bytes) = (self.read_ahead_reads + 1, self.read_ahead_bytes + bytes);
        self.start_job(now, job)
    }

    /// Read-ahead job `job` has ended: the host reads that waited for its
    /// data are answered (or, if it could not be read, go to the members).
    pub(super) fn read_ahead_done(&mut self, now: Ns, job: u32, served: bool) -> Result<()> {
        let j = self.jobs.remove(job).ok_or_else(|| Error::Internal(format!("read-ahead job {job} is not in flight")))?;
        let ra = self.front_end.read_ahead_mut()?;
        let (waiters, dropped) =
            ra.filled(job, j.offset_bytes, served).ok_or_else(|| Error::Internal(format!("read-ahead job {job} was not issued")))?;
        if served && !dropped {
            if let Some(versions) = self.controller.as_ref().and_then(|c| c.verify_versions(j.offset_bytes, j.len_bytes)) {
                ra.set_versions(j.offset_bytes, versions);
            }
        }
        for waiter in waiters {
            // A read that waited on data a later write dropped came first:
            // the data read ahead is its answer (unchecked by sim.verify,
            // which knows only the last write).
            if served && dropped {
                self.answer_from_read_ahead(now, waiter)?;
            } else {
                self.read_from_cache_or_members(now, waiter)?;
            }
        }
        Ok(())
    }

    /// Host read `job` is answered from data read ahead.
    pub(super) fn answer_from_read_ahead(&mut self, now: Ns, job: u32) -> Result<()> {
        if let Some(j) = self.jobs.get_mut(job) {
            j.read_ahead_hit = true;
        }
        self.answer(now, job)
    }
}
