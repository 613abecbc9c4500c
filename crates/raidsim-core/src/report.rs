//! The report of a run: host summary, per-device counters by cause, wear,
//! time series and the flat list of named statistics. Serialises to JSON;
//! the same config and seed give byte-identical JSON.

use crate::config::ResolvedConfig;
use crate::device::{Cause, MemberDevice};
use crate::metrics::{EraseSpread, HostMetrics, HostReport, Stat, Stats, TimeSeries};
use crate::ssd::Ssd;
use crate::workload::WorkloadReport;
use serde::Serialize;
use std::collections::BTreeMap;

/// Counters of one device.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DeviceReport {
    /// Component path (`ssd`, `member[3]`).
    pub name: String,
    /// Bytes the device exposes.
    pub capacity_bytes: u64,
    /// Flash pages read, by cause (causes with zero omitted).
    pub pages_read: BTreeMap<&'static str, u64>,
    /// Flash pages written, by cause.
    pub pages_written: BTreeMap<&'static str, u64>,
    /// Blocks erased during the run.
    pub erases: u64,
    /// Writes that triggered garbage collection.
    pub gc_runs: u64,
    /// Flash pages written per page written by the host (0 when nothing was written).
    pub write_amplification: f64,
    /// Spread of per-block erase counts (including preconditioning).
    pub erase_count: EraseSpread,
}

/// Everything a run measured.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Report {
    /// Host side.
    pub host: HostReport,
    /// Devices in index order.
    pub devices: Vec<DeviceReport>,
    /// Workload bookkeeping.
    pub workload: WorkloadReport,
    /// Host series per interval.
    pub time_series: TimeSeries,
    /// Every scalar as a named statistic.
    pub stats: Stats,
}

fn by_cause(counts: &[u64; Cause::COUNT]) -> BTreeMap<&'static str, u64> {
    Cause::ALL.iter().filter(|c| counts[c.index()] > 0).map(|c| (c.name(), counts[c.index()])).collect()
}

impl Report {
    /// Assembles the report of a single-drive run.
    pub fn new(resolved: &ResolvedConfig, host_metrics: &HostMetrics, ssd: &Ssd, workload: WorkloadReport) -> Self {
        let c = ssd.counters();
        let device = DeviceReport {
            name: "ssd".into(),
            capacity_bytes: ssd.capacity_bytes(),
            pages_read: by_cause(&c.pages_read),
            pages_written: by_cause(&c.pages_written),
            erases: c.erases,
            gc_runs: ssd.gc_runs(),
            write_amplification: ssd.write_amplification(),
            erase_count: EraseSpread::new(ssd.ftl().erase_counts(), resolved.config.metrics.erase_histogram_bins),
        };
        let host = host_metrics.report();
        let mut stats = host_stats(&host);
        ssd.stats("ssd", &mut stats);
        Self { host, devices: vec![device], workload, time_series: host_metrics.time_series(), stats }
    }

    /// JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

fn host_stats(h: &HostReport) -> Stats {
    let s = |p: &str, v: f64, u: &'static str, d: &'static str| Stat::new(format!("host.{p}"), v, u, d);
    vec![
        s("requests", h.requests as f64, "requests", "requests completed"),
        s("iops", h.iops, "requests/s", "requests completed per second of simulated time"),
        s("mb_per_s", h.mb_per_s, "MB/s", "10^6 bytes moved per second of simulated time"),
        s("throughput_eq5_mb_per_s", h.throughput_eq5_mb_per_s, "MB/s", "bytes over busy time (stripe-unit paper, Eq. 5)"),
        s("response.mean_ns", h.response.mean_ns, "ns", "mean response time"),
        s("response.p99_ns", h.response.p99_ns as f64, "ns", "99th-percentile response time"),
        s("read_response.mean_ns", h.read_response.mean_ns, "ns", "mean read response time"),
        s("write_response.mean_ns", h.write_response.mean_ns, "ns", "mean write response time"),
    ]
}
