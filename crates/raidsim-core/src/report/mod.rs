//! The report of a run: host summary, per-device counters by cause, wear,
//! time series and the flat list of named statistics. Serialises to JSON;
//! the same config and seed give byte-identical JSON.

use crate::array::MemberPages;
use crate::config::ResolvedConfig;
use crate::device::{Cause, MemberDevice};
use crate::member::Member;
use crate::metrics::{EraseSpread, HostMetrics, HostReport, Stat, Stats, TimeSeries};
use crate::workload::WorkloadReport;
use serde::Serialize;
use std::collections::BTreeMap;

mod drive_warnings;
use drive_warnings::{buffer_warning, owed_gc_warning, scheduling_warning, warm_cache_warning};

/// A drain after the last arrival longer than this fraction of the arrival
/// span means requests came faster than they were served.
const SATURATION_DRAIN_FRACTION: f64 = 0.1;
/// One gap between requests longer than this fraction of the run, and than
/// a minute, is taken for a corrupt timestamp.
const ABSURD_GAP_FRACTION: f64 = 0.25;
/// Fewer requests than this say nothing about saturation (a burst of three
/// requests drains after its last arrival by design).
const SATURATION_MIN_REQUESTS: u64 = 100;
const ABSURD_GAP_MIN_NS: u64 = 60 * crate::engine::NS_PER_S;

/// A trace replayed closed loop issues one request at a time: no queue can
/// grow (its timestamps are not read, so no gap or inversion is counted).
fn closed_trace(resolved: &ResolvedConfig) -> bool {
    matches!(&resolved.config.workload, crate::config::WorkloadConfig::Trace(t) if t.replay == crate::config::TraceReplay::Closed)
}

fn warnings(host: &HostReport, (first, last_arrival, last_done): (u64, u64, u64), w: &WorkloadReport, closed: bool) -> Vec<String> {
    let mut out = Vec::new();
    let s = |ns: u64| ns as f64 / 1e9;
    let span = last_arrival.saturating_sub(first);
    let drain = last_done.saturating_sub(last_arrival);
    // A closed loop's queue cannot grow: its drain is the last request's own service.
    if !closed && span > 0 && host.requests >= SATURATION_MIN_REQUESTS && drain as f64 > SATURATION_DRAIN_FRACTION * span as f64 {
        let offered = (host.requests - 1) as f64 / s(span);
        let served = host.requests as f64 / s(last_done.saturating_sub(first)).max(1e-9);
        out.push(format!(
            "saturated: requests arrived at {offered:.0} IOPS but were served at {served:.0} IOPS; the last one finished \
             {:.3} s after the last arrival (arrivals spanned {:.3} s), so response times (mean {:.3} ms) measure a \
             growing queue, not the device; lower the load or add drives",
            s(drain),
            s(span),
            host.response.mean_ns / 1e6
        ));
    }
    if w.largest_gap_ns > ABSURD_GAP_MIN_NS && w.largest_gap_ns as f64 >= ABSURD_GAP_FRACTION * host.duration_ns as f64 {
        out.push(format!(
            "one gap of {:.0} s before request {} holds most of the run's {:.0} s: a corrupt timestamp? IOPS and MB/s \
             over the duration are diluted by it (`raidsim trace-stats` shows the gap)",
            s(w.largest_gap_ns),
            w.largest_gap_request,
            s(host.duration_ns)
        ));
    }
    if w.out_of_order > 0 {
        out.push(format!(
            "{} requests had a timestamp earlier than the previous one; replayed keeping the trace's spacing \
             (workload.out_of_order = \"error\" refuses them)",
            w.out_of_order
        ));
    }
    out
}

/// Requests outstanding at once past which a run is called saturated for a
/// while, whatever its end: far beyond any drive's own queue.
const SATURATION_PEAK_OUTSTANDING: u64 = 1000;

/// A backlog in the middle of a run that drained before its end.
fn peak_warning(out: &mut Vec<String>, (peak, at_ns): (u64, u64), resolved: &ResolvedConfig) {
    let queues: u64 = resolved.members.iter().map(|m| u64::from(m.queue_depth())).sum();
    if peak < SATURATION_PEAK_OUTSTANDING.max(10 * queues) || out.iter().any(|w| w.starts_with("saturated")) {
        return;
    }
    out.push(format!(
        "saturated for a while: {peak} requests were outstanding at once ({:.3} s into the run), {} times what the \
         drives admit; response times of that stretch measure the backlog, not the device (the time series shows when)",
        at_ns as f64 / 1e9,
        peak / queues.max(1)
    ));
}

/// Counters of one device.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DeviceReport {
    /// Component path (`ssd`, `hdd`, `member[3]`).
    pub name: String,
    /// `ssd` or `hdd`.
    pub kind: crate::config::MemberKind,
    /// Bytes the device exposes.
    pub capacity_bytes: u64,
    /// Flash pages (disk sectors) read, by cause (causes with zero omitted).
    pub pages_read: BTreeMap<&'static str, u64>,
    /// Flash pages (disk sectors) written, by cause.
    pub pages_written: BTreeMap<&'static str, u64>,
    /// Blocks erased during the run.
    pub erases: u64,
    /// Writes that triggered garbage collection.
    pub gc_runs: u64,
    /// Flash pages written per page written by the host (0 when nothing was written).
    pub write_amplification: f64,
    /// Flash pages programmed on each chip, chip by chip (GC aside): where
    /// chips differ — a CR5M channel's mirroring chip against its data chips
    /// (Pan & Xie 2018, Figure 9c), a replaced chip. Empty for a disk.
    pub chip_pages_written: Vec<u64>,
    /// Spread of per-block erase counts (including preconditioning); absent for a disk.
    pub erase_count: Option<EraseSpread>,
    /// Where a disk's time went; absent for an SSD.
    pub disk: Option<DiskReport>,
}

/// A disk's time per request it served, split as the stripe-unit paper's
/// Tables 7-9 split it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DiskReport {
    /// Requests served (each merged continuation counts as one).
    pub requests: u64,
    /// Requests served as the continuation of the previous one (no positioning).
    pub merged: u64,
    /// Mean seek (and head switch) time per request, ns.
    pub mean_seek_ns: f64,
    /// Mean rotational wait per request, ns.
    pub mean_rotation_ns: f64,
    /// Mean positioning (seek + rotational wait) per request, ns.
    pub mean_positioning_ns: f64,
    /// Mean data-moving time per request (media, or a slower interface), ns.
    pub mean_transfer_ns: f64,
    /// Mean per-request overhead, ns.
    pub mean_overhead_ns: f64,
    /// Sums over the run, ns: positioning, transfer, overhead.
    pub positioning_ns: u64,
    /// Total data-moving time (media, or a slower interface), ns.
    pub transfer_ns: u64,
    /// Total overhead, ns.
    pub overhead_ns: u64,
}

impl DiskReport {
    fn new(t: &crate::hdd::DiskTimes) -> Self {
        let per = |v: u64| if t.requests == 0 { 0.0 } else { v as f64 / t.requests as f64 };
        Self {
            requests: t.requests,
            merged: t.merged,
            mean_seek_ns: per(t.seek_ns),
            mean_rotation_ns: per(t.rotation_ns),
            mean_positioning_ns: per(t.positioning_ns()),
            mean_transfer_ns: per(t.transfer_ns),
            mean_overhead_ns: per(t.overhead_ns),
            positioning_ns: t.positioning_ns(),
            transfer_ns: t.transfer_ns,
            overhead_ns: t.overhead_ns,
        }
    }
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
    /// Array totals (absent for a single drive).
    pub array: Option<ArraySummary>,
    /// `sim.stop`: how precisely the mean response time is known (absent when the rule is off).
    pub stop: Option<crate::metrics::StopReport>,
    /// What a reader of these figures must know: saturation, a corrupt
    /// timestamp, requests out of order (printed by the CLI, in `summary()`).
    pub warnings: Vec<String>,
    /// Failures and reconstruction (absent when no failure is configured).
    pub rebuild: Option<RebuildReport>,
    /// `sim.verify`: the byte check (absent when it is off).
    pub verify: Option<VerifyReport>,
    /// Performance and capacity per dollar (absent when nothing is priced).
    pub cost: Option<CostReport>,
    /// Each flow of a flows workload (absent for one workload).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowReport>,
    /// The host's trims (all zero when it issued none).
    pub trim: TrimReport,
}

/// The host's trims: what it asked, and what the members dropped or kept
/// (`sim::trim`; the drives' own counts are `<drive>.trim.*` stats).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct TrimReport {
    /// Trims applied (the warm-up's excepted), never in the response figures.
    pub requests: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Bytes in parts of stripes under parity, which the members keep.
    pub kept_bytes: u64,
    /// Bytes trimmed on the drives, every copy and parity included.
    pub member_bytes: u64,
}

/// One flow's figures (`workload.kind = "flows"`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowReport {
    /// `flow-1`, `flow-2`, ... in the order of `[[workload.flows]]`.
    pub name: String,
    /// Requests the flow issued (warm-up included).
    pub issued: u64,
    /// Most of its commands waiting in its submission queue at once, unfetched.
    pub peak_queued: u64,
    /// Its reads that failed on lost data (untimed, not in `host`).
    pub failed_reads: u64,
    /// Its writes that failed on lost data.
    pub failed_writes: u64,
    /// Its requests as the host saw them: response times from the instant each was queued.
    pub host: HostReport,
}

impl Report {
    /// Adds each flow's section, and its figures as `flows.<name>.*` stats.
    pub fn set_flows(&mut self, flows: Vec<FlowReport>) {
        for f in &flows {
            let prefix = format!("flows.{}.", f.name);
            self.stats
                .extend(host_stats(&f.host).into_iter().map(|st| Stat { path: format!("{prefix}{}", st.path.trim_start_matches("host.")), ..st }));
        }
        self.flows = flows;
    }
}

/// Cost efficiency, the RAIS paper's §5.4 (Kim et al., ORNL 2010): IOPS and
/// MB/s per dollar of drives and controller, and capacity per dollar.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CostReport {
    /// Every drive bought (members and hot spares), US dollars.
    pub drives_usd: f64,
    /// The RAID controller, US dollars.
    pub controller_usd: f64,
    /// Drives and controller, US dollars.
    pub total_usd: f64,
    /// Host-visible capacity, 10^9 bytes.
    pub capacity_gb: f64,
    /// Host requests per second (simulated time) per dollar; absent when
    /// no request completed (nothing was measured).
    pub iops_per_usd: Option<f64>,
    /// Host 10^6 bytes per second per dollar; absent likewise.
    pub mb_per_s_per_usd: Option<f64>,
    /// Capacity per dollar, 10^9 bytes.
    pub gb_per_usd: f64,
}

impl CostReport {
    fn new(prices: crate::config::Prices, capacity_bytes: u64, host: &HostReport) -> Self {
        let total = prices.total_usd();
        let capacity_gb = capacity_bytes as f64 / 1e9;
        let measured = host.requests > 0;
        Self {
            drives_usd: prices.drives_usd,
            controller_usd: prices.controller_usd,
            total_usd: total,
            capacity_gb,
            iops_per_usd: measured.then(|| host.iops / total),
            mb_per_s_per_usd: measured.then(|| host.mb_per_s / total),
            gb_per_usd: capacity_gb / total,
        }
    }

    fn stats(&self, out: &mut Stats) {
        for (name, value, unit, what) in [
            ("total_usd", Some(self.total_usd), "USD", "drives (members and spares) and RAID controller"),
            ("iops_per_usd", self.iops_per_usd, "requests/s/USD", "host requests per second of simulated time per dollar"),
            ("mb_per_s_per_usd", self.mb_per_s_per_usd, "MB/s/USD", "host 10^6 bytes per second per dollar"),
            ("gb_per_usd", Some(self.gb_per_usd), "GB/USD", "host-visible 10^9 bytes per dollar"),
        ] {
            if let Some(v) = value {
                out.push(Stat::new(format!("cost.{name}"), v, unit, what));
            }
        }
    }
}

pub use crate::array::verify::VerifyReport;

/// Failures, reconstruction onto spares, and what the host saw meanwhile.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RebuildReport {
    /// Reconstruction policy (`dor`, `sor`).
    pub policy: crate::config::RebuildPolicy,
    /// Hot spares configured.
    pub spares: u32,
    /// `cr5`/`cr5m`: spare chips per channel.
    pub spare_chips_per_channel: u32,
    /// Every failure: member, time, spare, its rebuild's start and end.
    pub failures: Vec<crate::array::rebuild::FailureRecord>,
    /// First rebuild start, ns (absent when none started: no spare).
    pub start_ns: Option<u64>,
    /// Last rebuild end, ns (absent when a rebuild has not finished).
    pub end_ns: Option<u64>,
    /// Time during which a rebuild ran: `end_ns − start_ns` for one
    /// rebuild; separate rebuilds add up, the gap between them does not.
    pub duration_ns: Option<u64>,
    /// Bytes reconstructed onto spares for stripes that survived: the
    /// failed members' contents (a stripe lost while its reconstruction ran
    /// wrote the spare for nothing and is not counted).
    pub lost_bytes: u64,
    /// Data recovery speed, `lost_bytes` over the rebuild's duration (the
    /// CR5M paper's metric), bytes/s.
    pub recovery_bytes_per_s: Option<f64>,
    /// Stripe reconstructions done.
    pub stripes_rebuilt: u64,
    /// `cr5`/`cr5m`: lost strips recovered by decoding them from the other
    /// channels (a lost parity of an MW stripe: encoded over the current data).
    pub strips_by_xor: u64,
    /// `cr5m`: lost strips recovered by copying a replica (the CR5M paper's
    /// Figure 12c counts these against `strips_by_xor`).
    pub strips_by_copy: u64,
    /// `cr5m`: MW stripes whose parity was rebuilt over their current data.
    pub stripes_consolidated: u64,
    /// Responses of requests completed before the first failure.
    pub response_before: crate::metrics::LatencySummary,
    /// Completed while degraded with no rebuild running (no spare yet, or `rebuild.delay_ns`).
    pub response_degraded: crate::metrics::LatencySummary,
    /// Completed while a rebuild ran.
    pub response_during: crate::metrics::LatencySummary,
    /// Completed after the last rebuild ended.
    pub response_after: crate::metrics::LatencySummary,
    /// Failures beyond what a stripe's code tolerates: time, member, stripes and bytes lost.
    pub data_loss_events: Vec<crate::array::rebuild::DataLossEvent>,
    /// Host reads that touched lost data and failed.
    pub failed_reads: u64,
    /// Host writes that touched lost data and failed.
    pub failed_writes: u64,
}

impl RebuildReport {
    /// The record of `controller`'s failures and rebuilds.
    pub fn new(controller: &crate::array::ArrayController, host: &HostMetrics, resolved: &ResolvedConfig) -> Self {
        use crate::array::ArrayPhase;
        let r = controller.rebuild();
        let duration_ns = r.end_ns.map(|_| r.busy_ns);
        let (failed_reads, failed_writes) = host.failed_counts();
        Self {
            policy: resolved.config.rebuild.policy,
            spares: resolved.config.array.spares,
            spare_chips_per_channel: resolved.config.array.spare_chips_per_channel,
            failures: r.failures.clone(),
            start_ns: r.start_ns,
            end_ns: r.end_ns,
            duration_ns,
            lost_bytes: r.bytes_rebuilt,
            recovery_bytes_per_s: duration_ns.filter(|&d| d > 0).map(|d| r.bytes_rebuilt as f64 * 1e9 / d as f64),
            stripes_rebuilt: r.stripes_rebuilt,
            strips_by_xor: r.strips_by_xor,
            strips_by_copy: r.strips_by_copy,
            stripes_consolidated: r.stripes_consolidated,
            response_before: host.phase_response(ArrayPhase::Healthy),
            response_degraded: host.phase_response(ArrayPhase::Degraded),
            response_during: host.phase_response(ArrayPhase::Rebuilding),
            response_after: host.phase_response(ArrayPhase::Rebuilt),
            data_loss_events: r.data_loss_events.clone(),
            failed_reads,
            failed_writes,
        }
    }

    fn stats(&self, out: &mut Stats) {
        let mut s = |p: &str, v: f64, u: &'static str, d: &'static str| out.push(Stat::new(format!("rebuild.{p}"), v, u, d));
        if let Some(d) = self.duration_ns {
            s("duration_ns", d as f64, "ns", "time during which a rebuild ran");
        }
        if let Some(v) = self.recovery_bytes_per_s {
            s("recovery_bytes_per_s", v, "bytes/s", "bytes reconstructed over the rebuild's duration");
        }
        s("lost_bytes", self.lost_bytes as f64, "bytes", "bytes reconstructed onto spares");
        if self.response_during.count > 0 {
            s("response_during.mean_ns", self.response_during.mean_ns, "ns", "mean response of requests completed during rebuild");
            s("response_during.p99_ns", self.response_during.p99_ns as f64, "ns", "99th-percentile response during rebuild");
        }
        if self.strips_by_xor + self.strips_by_copy > 0 {
            s("strips_by_xor", self.strips_by_xor as f64, "strips", "lost strips decoded from the other channels");
            s("strips_by_copy", self.strips_by_copy as f64, "strips", "lost strips copied from a replica (CR5M)");
            s("stripes_consolidated", self.stripes_consolidated as f64, "stripes", "MW stripes given parity over their current data");
        }
        s("data_loss_events", self.data_loss_events.len() as f64, "events", "failures that lost data");
        s("failed_requests", (self.failed_reads + self.failed_writes) as f64, "requests", "host requests that touched lost data");
    }
}

/// Array-level figures the papers report, from the member counters.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ArraySummary {
    /// RAID level.
    pub level: crate::config::RaidLevel,
    /// Stripe unit, bytes.
    pub stripe_unit_bytes: u64,
    /// Host-visible bytes.
    pub capacity_bytes: u64,
    /// Per member: pre-read pages (read-modify-write + reconstruct-write), the "extra page reads".
    pub extra_page_reads: Vec<u64>,
    /// Per member: parity pages written, the "extra page writes".
    pub parity_pages_written: Vec<u64>,
    /// Per member: pages of user data written (including mirror copies).
    pub data_pages_written: Vec<u64>,
    /// Parity pages written over data pages written, whole array.
    pub parity_to_data_write_ratio: f64,
    /// Per member: blocks erased.
    pub erases: Vec<u64>,
    /// Dedicated RAID-6 parity: the row-parity member's NoW, NoR and NoC.
    pub row_parity: Option<ParityMemberFigures>,
    /// Dedicated RAID-6 parity: the second-parity member's NoW, NoR and NoC.
    pub second_parity: Option<ParityMemberFigures>,
}

/// The erasure-code paper's figures for one parity member.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ParityMemberFigures {
    /// Member index.
    pub member: u32,
    /// NoW: pages written.
    pub pages_written: u64,
    /// NoR: pages read.
    pub pages_read: u64,
    /// NoC: blocks erased (clean cycles).
    pub erases: u64,
}

impl Report {
    /// Assembles the report of a run over `members` (one for a single drive).
    pub fn new(
        resolved: &ResolvedConfig,
        host_metrics: &HostMetrics,
        members: &[Member],
        workload: WorkloadReport,
        stop: Option<crate::metrics::StopReport>,
    ) -> Self {
        let single = resolved.config.array.level == crate::config::RaidLevel::Single;
        let bins = resolved.config.metrics.erase_histogram_bins;
        let host = host_metrics.report();
        let mut stats = host_stats(&host);
        let mut devices = Vec::with_capacity(members.len());
        for (i, member) in members.iter().enumerate() {
            let kind = match member {
                Member::Ssd(_) => crate::config::MemberKind::Ssd,
                Member::Hdd(_) => crate::config::MemberKind::Hdd,
            };
            let n = resolved.config.array.members as usize;
            let name = match (single, kind) {
                (true, crate::config::MemberKind::Ssd) => "ssd".to_string(),
                (true, crate::config::MemberKind::Hdd) => "hdd".to_string(),
                (false, _) if i >= n => format!("spare[{}]", i - n),
                (false, _) => format!("member[{i}]"),
            };
            member.stats(&name, &mut stats);
            let c = member.counters();
            devices.push(DeviceReport {
                name,
                kind,
                capacity_bytes: member.capacity_bytes(),
                pages_read: Cause::nonzero_by_name(&c.pages_read),
                pages_written: Cause::nonzero_by_name(&c.pages_written),
                erases: c.erases,
                gc_runs: member.gc_runs(),
                write_amplification: member.write_amplification(),
                chip_pages_written: member.chip_pages_written().to_vec(),
                erase_count: member.as_ssd().map(|_| EraseSpread::new(member.erase_counts(), bins)),
                disk: member.as_hdd().map(|h| DiskReport::new(h.times())),
            });
        }
        let array = (!single).then(|| {
            let counters: Vec<_> = members.iter().map(|m| m.counters().clone()).collect();
            ArraySummary::new(resolved, &counters.iter().map(|c| (c.pages_read, c.pages_written, c.erases)).collect::<Vec<_>>())
        });
        let mut warnings = warnings(&host, host_metrics.span_ns(), &workload, closed_trace(resolved));
        let time_series = host_metrics.time_series();
        let asked_interval = resolved.config.metrics.interval_ns;
        if asked_interval > 0 && time_series.interval_ns != asked_interval {
            warnings.push(format!(
                "metrics.interval_ns = {asked_interval} was widened to {} ns: the run's {:.6} s would need more than {} buckets of \
                 {asked_interval} ns (the most a time series keeps)",
                time_series.interval_ns,
                host.duration_ns as f64 / 1e9,
                crate::metrics::MAX_FIXED_BUCKETS
            ));
        }
        if workload.wrapped_out_of_range > 0 {
            warnings.push(format!(
                "wrapped: {}; the workload is not the trace's (it reaches byte {}: give the drive at least that capacity)",
                crate::workload::wrapped_summary(&workload, resolved.capacity_bytes),
                workload.highest_end_bytes
            ));
        }
        peak_warning(&mut warnings, host_metrics.peak_outstanding(), resolved);
        buffer_warning(&mut warnings, host_metrics.span_ns(), members);
        scheduling_warning(&mut warnings, members);
        warm_cache_warning(&mut warnings, members);
        owed_gc_warning(&mut warnings, members);
        if let Some(s) = stop.as_ref().filter(|s| !s.converged) {
            warnings.push(format!(
                "sim.stop: the mean response time is not known to ±{:.1} % at {:.0} % confidence after {} requests (the workload \
                 ended or sim.stop.max_requests was reached): the interval is ±{:.1} %",
                resolved.config.sim.stop.relative_half_width * 100.0,
                s.confidence * 100.0,
                s.requests,
                if s.mean_ns > 0.0 { s.half_width_ns / s.mean_ns * 100.0 } else { f64::INFINITY }
            ));
        }
        let cost = resolved.prices.map(|p| CostReport::new(p, resolved.capacity_bytes, &host));
        if let Some(c) = &cost {
            c.stats(&mut stats);
        }
        Self {
            host,
            devices,
            workload,
            time_series,
            stats,
            array,
            stop,
            warnings,
            rebuild: None,
            verify: None,
            cost,
            flows: Vec::new(),
            trim: TrimReport::default(),
        }
    }

    /// Adds the failures-and-rebuild section (and its statistics).
    pub fn set_rebuild(&mut self, rebuild: RebuildReport) {
        rebuild.stats(&mut self.stats);
        if rebuild.start_ns.is_some() && rebuild.end_ns.is_none() {
            self.warnings.push(format!(
                "the rebuild started at {:.3} s had not finished when the run ended ({} stripes rebuilt): rebuild.only_when_idle \
                 under a busy host, or a run too short",
                rebuild.start_ns.unwrap_or(0) as f64 / 1e9,
                rebuild.stripes_rebuilt
            ));
        }
        for f in rebuild.failures.iter().filter(|f| f.stripes_given_up > 0) {
            self.warnings.push(format!(
                "member {}'s rebuild gave up {} stripes lost to failures beyond tolerance: its end ({}) is not a full reconstruction",
                f.member,
                f.stripes_given_up,
                f.rebuild_end_ns.map_or("not reached".to_string(), |e| format!("{:.3} s", e as f64 / 1e9))
            ));
        }
        if !rebuild.data_loss_events.is_empty() {
            let stripes: u64 = rebuild.data_loss_events.iter().map(|e| e.stripes_lost).sum();
            self.warnings.push(format!(
                "data lost: {} failures beyond what the code tolerates lost {stripes} stripes; {} reads and {} writes touched them and failed",
                rebuild.data_loss_events.len(),
                rebuild.failed_reads,
                rebuild.failed_writes
            ));
        }
        self.rebuild = Some(rebuild);
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

type PageCounts = ([u64; Cause::COUNT], [u64; Cause::COUNT], u64);

impl ArraySummary {
    fn new(resolved: &ResolvedConfig, members: &[PageCounts]) -> Self {
        let extra = |r: &[u64; Cause::COUNT]| r[Cause::PreReadRmw.index()] + r[Cause::PreReadRcw.index()];
        let data = |w: &[u64; Cause::COUNT]| w[Cause::User.index()] + w[Cause::Mirror.index()];
        let parity: Vec<u64> = members.iter().map(|(_, w, _)| w[Cause::Parity.index()]).collect();
        let data_written: Vec<u64> = members.iter().map(|(_, w, _)| data(w)).collect();
        let total_data: u64 = data_written.iter().sum();
        let a = &resolved.config.array;
        let dedicated = a.level == crate::config::RaidLevel::Raid6 && a.parity_placement == crate::config::ParityPlacement::Dedicated;
        let figures = |m: u32| {
            let (r, w, e) = &members[m as usize];
            ParityMemberFigures { member: m, pages_written: w.iter().sum(), pages_read: r.iter().sum(), erases: *e }
        };
        Self {
            row_parity: dedicated.then(|| figures(a.members - 2)),
            second_parity: dedicated.then(|| figures(a.members - 1)),
            level: resolved.config.array.level,
            stripe_unit_bytes: resolved.config.array.stripe_unit_bytes,
            capacity_bytes: resolved.capacity_bytes,
            extra_page_reads: members.iter().map(|(r, _, _)| extra(r)).collect(),
            parity_to_data_write_ratio: if total_data == 0 { 0.0 } else { parity.iter().sum::<u64>() as f64 / total_data as f64 },
            parity_pages_written: parity,
            data_pages_written: data_written,
            erases: members.iter().map(|(_, _, e)| *e).collect(),
        }
    }
}

/// The report of counting mode: exact page counts per member and cause.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CountReport {
    /// Host requests planned.
    pub requests: u64,
    /// Page size counted in, bytes.
    pub page_size_bytes: u64,
    /// Members in index order.
    pub members: Vec<crate::array::count::MemberPagesReport>,
    /// What changed the workload being counted (trace requests wrapped to fit).
    pub warnings: Vec<String>,
}

impl CountReport {
    /// Wraps the counts of `count_pages`.
    pub fn new(members: &[MemberPages], requests: u64, page_size_bytes: u64) -> Self {
        let members = members.iter().enumerate().map(|(i, m)| m.report(i as u32)).collect();
        Self { requests, page_size_bytes, members, warnings: Vec::new() }
    }

    /// JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}
