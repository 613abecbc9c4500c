//! A run's report, assembled from the members, the controller, the front
//! end and the host's metrics.

use super::*;
use crate::metrics::LoggedRequest;

impl Simulation {
    /// The write-back cache's statistics, and a warning when it took no write.
    pub(super) fn cache_report(&self, report: &mut Report) {
        let stats = &mut report.stats;
        stats.push(crate::metrics::Stat::new(
            "array.controller.cache.read_hits".into(),
            self.cache_hits as f64,
            "requests",
            "host reads answered from the write-back cache",
        ));
        stats.push(crate::metrics::Stat::new(
            "array.controller.cache.writes_cached".into(),
            self.cache_writes as f64,
            "requests",
            "host writes acknowledged from the write-back cache",
        ));
        if self.cache_writes == 0 && report.host.writes > 0 {
            report.warnings.push(format!(
                "array.controller.cache = \"write_back\" took none of the {} writes: each was larger than its {} bytes (cache_bytes), \
                 so all were written through",
                report.host.writes, self.resolved.config.array.controller.cache_bytes
            ));
        }
    }

    /// The parity engine's work per purpose (`array.controller.parity_compute`).
    pub(super) fn parity_compute_report(&self, report: &mut Report) {
        let Some(c) = self.controller.as_ref() else { return };
        for (purpose, (ns, xor, mul)) in c.parity_compute_tally() {
            let path = |what: &str| format!("array.controller.parity_compute.{}.{what}", purpose.name());
            let stats = &mut report.stats;
            stats.push(crate::metrics::Stat::new(path("busy_ns"), ns as f64, "ns", "parity engine time for this purpose"));
            stats.push(crate::metrics::Stat::new(path("xor_bytes"), xor as f64, "bytes", "bytes XORed (parity_bytes: the parity written)"));
            stats.push(crate::metrics::Stat::new(path("gf_mul_bytes"), mul as f64, "bytes", "bytes multiplied in GF(2^8) (code_ops only)"));
        }
    }

    /// The read-ahead's statistics.
    pub(super) fn read_ahead_report(&self, report: &mut Report) {
        let stats = &mut report.stats;
        let stat = |name: &str, value: u64, unit: &'static str, meaning: &'static str| {
            crate::metrics::Stat::new(format!("array.controller.read_ahead.{name}"), value as f64, unit, meaning)
        };
        stats.push(stat("hits", self.read_ahead_hits, "requests", "host reads answered from data read ahead"));
        stats.push(stat("reads", self.read_ahead_reads, "requests", "reads the controller issued ahead of host reads"));
        stats.push(stat("bytes", self.read_ahead_bytes, "bytes", "bytes the controller read ahead"));
    }

    /// `metrics.request_log`: the rows logged so far (`None` when the key is empty).
    pub fn request_log(&self) -> Option<&RequestLog> {
        self.request_log.as_ref()
    }

    /// Counts in the time series the drives' garbage-collection runs since the last count.
    pub(super) fn count_gc_runs(&mut self, now: Ns) {
        let runs: u64 = self.members.iter().map(Member::gc_runs).sum();
        if runs > self.gc_runs_counted {
            self.host.gc_ran(now, runs - self.gc_runs_counted);
            self.gc_runs_counted = runs;
        }
    }

    /// Logs measured host job `j`, done at `now` (`served`: false when it failed).
    pub(super) fn log_request(&mut self, j: &HostJob, now: Ns, served: bool) {
        if let Some(log) = self.request_log.as_mut() {
            // Flows are named from 1 (`flow-1`); a single workload is flow 0.
            let flow = if self.flows.named() { j.flow + 1 } else { 0 };
            let row = LoggedRequest { arrival_ns: j.arrival_ns, op: j.op, offset_bytes: j.offset_bytes, len_bytes: j.len_bytes, flow };
            log.push(row, now, served);
        }
    }

    /// The report of what has run so far.
    pub fn report(&self) -> Report {
        let stop = self.stop_rule.as_ref().map(crate::metrics::BatchMeans::report);
        let mut report = Report::new(&self.resolved, &self.host, &self.members, self.flows.workload_report(), stop);
        report.set_flows(self.flows.reports());
        if let Some(c) = self.controller.as_ref().filter(|_| !self.resolved.config.array.failures.is_empty()) {
            report.set_rebuild(crate::report::RebuildReport::new(c, &self.host, &self.resolved));
        }
        for &(index, member, chip) in &self.failures_at_request {
            let what = chip.map_or_else(|| format!("member {member}"), |c| format!("chip {c} of member {member}"));
            report.warnings.push(format!("the failure of {what} at request {index} never happened: the host issued only {} requests", self.arrivals));
        }
        self.trim_report(&mut report);
        let array = &self.resolved.config.array;
        if self.front_end.cache.is_some() {
            self.cache_report(&mut report);
        }
        if self.front_end.read_ahead.is_some() {
            self.read_ahead_report(&mut report);
        }
        if array.controller.xor_bytes_per_s > 0 {
            self.parity_compute_report(&mut report);
        }
        if array.controller.parity_updates_at_once > 0 && array.level.parity_units() == 0 {
            report.warnings.push(format!(
                "array.controller.parity_updates_at_once = {} limits parity updates, and {:?} keeps no parity: it had no effect",
                array.controller.parity_updates_at_once, array.level
            ));
        }
        if array.spares > 0 && array.failures.is_empty() {
            report.warnings.push(format!("array.spares = {} but array.failures is empty: the spares took no part in the run", array.spares));
        }
        let last_done = self.host.last_request_end_ns();
        for f in self.controller.as_ref().map(|c| c.rebuild().failures.as_slice()).unwrap_or_default() {
            if f.at_ns > last_done && self.host.arrived_count() > 0 {
                report.warnings.push(format!(
                    "member {} failed at {:.3} s, after the host's last request ended ({:.3} s): no request saw the array degraded",
                    f.member,
                    f.at_ns as f64 / 1e9,
                    last_done as f64 / 1e9
                ));
            }
        }
        if let Some(end) = report.rebuild.as_ref().and_then(|r| r.end_ns).filter(|&e| e > last_done) {
            report.warnings.push(format!(
                "the rebuild ended at {:.3} s, {:.3} s after the host's last request ended: that part of it competed with \
                 no host I/O, so its duration and the response during it do not describe a loaded rebuild",
                end as f64 / 1e9,
                (end - last_done) as f64 / 1e9
            ));
        }
        if let Some(m) = self.controller.as_ref().and_then(ArrayController::mirroring) {
            let stats = &mut report.stats;
            stats.push(crate::metrics::Stat::new(
                "array.mirroring.mw_subrequests".into(),
                m.mirroring_writes as f64,
                "sub-requests",
                "partial-stripe writes served by mirroring writes (CR5M)",
            ));
            stats.push(crate::metrics::Stat::new(
                "array.mirroring.consolidations".into(),
                m.consolidations as f64,
                "stripes",
                "updates that returned an MW stripe to plain RAID-5",
            ));
        }
        report.verify = self.controller.as_ref().and_then(ArrayController::verify_report);
        if let Some(v) = report.verify.as_ref().filter(|v| v.mismatches > 0) {
            report.warnings.push(format!(
                "sim.verify: {} sectors did not read back their last write; first: {}",
                v.mismatches,
                v.first_mismatches.join("; ")
            ));
        }
        report
    }
}
