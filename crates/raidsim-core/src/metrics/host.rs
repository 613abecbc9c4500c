//! What the host sees: response times, IOPS, bandwidth, busy time.

use crate::device::Op;
use crate::engine::{Ns, NS_PER_S};
use hdrhistogram::Histogram as Hdr;
use serde::Serialize;

/// Response-time summary of a class of requests, in ns. With `count` = 0
/// the times are 0 here but written as `null`: a class nothing measured has
/// no response time, and a report must not show one of zero.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct LatencySummary {
    /// Requests in the class.
    pub count: u64,
    /// Exact mean, ns.
    pub mean_ns: f64,
    /// Median, ns (HdrHistogram, 3 significant digits).
    pub p50_ns: u64,
    /// 90th percentile, ns.
    pub p90_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// 99.9th percentile, ns.
    pub p999_ns: u64,
    /// Exact maximum, ns.
    pub max_ns: u64,
}

impl Serialize for LatencySummary {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let measured = self.count > 0;
        let mut out = serializer.serialize_struct("LatencySummary", 7)?;
        out.serialize_field("count", &self.count)?;
        out.serialize_field("mean_ns", &measured.then_some(self.mean_ns))?;
        for (name, value) in
            [("p50_ns", self.p50_ns), ("p90_ns", self.p90_ns), ("p99_ns", self.p99_ns), ("p999_ns", self.p999_ns), ("max_ns", self.max_ns)]
        {
            out.serialize_field(name, &measured.then_some(value))?;
        }
        out.end()
    }
}

struct LatencyRecorder {
    hist: Hdr<u64>,
    sum_ns: u128,
    max_ns: u64,
}

impl LatencyRecorder {
    fn new() -> Self {
        // 3 significant digits from 1 ns up, auto-resizing: bounded memory,
        // 0.1 % error on percentiles; mean and max are kept exactly.
        let hist = Hdr::new(3).unwrap_or_else(|_| unreachable!("3 significant figures is a valid precision"));
        Self { hist, sum_ns: 0, max_ns: 0 }
    }

    fn record(&mut self, ns: u64) {
        // `record` grows the histogram as needed; saturating only if it cannot.
        if self.hist.record(ns.max(1)).is_err() {
            self.hist.saturating_record(ns.max(1));
        }
        self.sum_ns += u128::from(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    fn summary(&self) -> LatencySummary {
        let count = self.hist.len();
        if count == 0 {
            return LatencySummary::default();
        }
        let q = |p: f64| self.hist.value_at_quantile(p).min(self.max_ns);
        LatencySummary {
            count,
            mean_ns: self.sum_ns as f64 / count as f64,
            p50_ns: q(0.5),
            p90_ns: q(0.9),
            p99_ns: q(0.99),
            p999_ns: q(0.999),
            max_ns: self.max_ns,
        }
    }
}

/// Per-interval host series; shows garbage-collection stalls.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct TimeSeries {
    /// Bucket width, ns.
    pub interval_ns: u64,
    /// Start of each bucket, ns.
    pub start_ns: Vec<u64>,
    /// Completed requests per second in the bucket.
    pub iops: Vec<f64>,
    /// Completed MB (10^6 bytes) per second in the bucket.
    pub mb_per_s: Vec<f64>,
    /// Mean response time of requests completed in the bucket, ns (0 if none).
    pub mean_latency_ns: Vec<f64>,
    /// Garbage-collection runs (writes that triggered an erase), summed over
    /// the drives, counted at the first host completion after them: where
    /// collection competed with the host.
    pub gc_runs: Vec<u64>,
    /// How steady the host saw the run: mean and sample standard deviation
    /// of the per-interval figures over every whole interval (the last, cut
    /// short by the end of the run, left out) — the RAIS paper's Tables 3-4
    /// with `metrics.interval_ns = 1_000_000_000`.
    pub steadiness: Steadiness,
}

/// Mean and sample standard deviation of per-interval throughput; each
/// figure is absent (null) with fewer than two whole intervals.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct Steadiness {
    /// Whole intervals the figures cover.
    pub intervals: u64,
    /// Mean of the per-interval MB/s.
    pub mb_per_s_mean: Option<f64>,
    /// Sample standard deviation (n - 1) of the per-interval MB/s.
    pub mb_per_s_std: Option<f64>,
    /// Mean of the per-interval IOPS.
    pub iops_mean: Option<f64>,
    /// Sample standard deviation (n - 1) of the per-interval IOPS.
    pub iops_std: Option<f64>,
}

impl Steadiness {
    /// Over `iops` and `mb_per_s` of whole intervals.
    fn of(iops: &[f64], mb_per_s: &[f64]) -> Self {
        let n = iops.len();
        if n < 2 {
            return Self { intervals: n as u64, ..Self::default() };
        }
        let (iops_mean, iops_std) = mean_and_sample_std(iops);
        let (mb_mean, mb_std) = mean_and_sample_std(mb_per_s);
        Self { intervals: n as u64, mb_per_s_mean: Some(mb_mean), mb_per_s_std: Some(mb_std), iops_mean: Some(iops_mean), iops_std: Some(iops_std) }
    }
}

fn mean_and_sample_std(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

#[derive(Clone, Copy, Default)]
struct Bucket {
    completions: u64,
    bytes: u64,
    latency_ns: u128,
    gc_runs: u64,
}

/// Most buckets kept before they are merged pairwise (automatic interval).
const MAX_BUCKETS: usize = 4096;
pub use crate::config::MAX_FIXED_BUCKETS;
/// Buckets an automatically sized series aims for.
const AUTO_BUCKETS: u64 = 100;

/// Host-side recorder.
pub struct HostMetrics {
    all: LatencyRecorder,
    /// Responses by the array's condition when each request completed:
    /// healthy, degraded without rebuild, rebuilding, rebuilt.
    phases: [LatencyRecorder; 4],
    /// Phase index of completions, or `None` when no failure is configured
    /// (the per-phase histograms then cost nothing).
    phase: Option<usize>,
    arrivals: u64,
    failed_reads: u64,
    failed_writes: u64,
    read: LatencyRecorder,
    write: LatencyRecorder,
    bytes_read: u64,
    bytes_written: u64,
    outstanding: u64,
    /// Most requests outstanding at once, and when.
    peak_outstanding: (u64, Ns),
    busy_since_ns: Ns,
    busy_ns: Ns,
    first_arrival_ns: Option<Ns>,
    last_arrival_ns: Ns,
    last_completion_ns: Ns,
    /// When the last request that failed on lost data ended.
    last_failure_ns: Ns,
    fixed_interval: bool,
    interval_ns: u64,
    /// Where the time series starts (0, or the end of a warm-up).
    origin_ns: Ns,
    buckets: Vec<Bucket>,
}

impl HostMetrics {
    /// A recorder; `interval_ns = 0` sizes the time series automatically.
    pub fn new(interval_ns: u64) -> Self {
        Self::starting_at(interval_ns, 0)
    }

    /// A recorder whose time series starts at `origin_ns` (after a warm-up).
    pub fn starting_at(interval_ns: u64, origin_ns: Ns) -> Self {
        Self {
            all: LatencyRecorder::new(),
            phases: [LatencyRecorder::new(), LatencyRecorder::new(), LatencyRecorder::new(), LatencyRecorder::new()],
            phase: None,
            arrivals: 0,
            failed_reads: 0,
            failed_writes: 0,
            read: LatencyRecorder::new(),
            write: LatencyRecorder::new(),
            bytes_read: 0,
            bytes_written: 0,
            outstanding: 0,
            peak_outstanding: (0, 0),
            busy_since_ns: 0,
            busy_ns: 0,
            first_arrival_ns: None,
            last_arrival_ns: 0,
            last_completion_ns: 0,
            last_failure_ns: 0,
            fixed_interval: interval_ns > 0,
            interval_ns: if interval_ns > 0 { interval_ns } else { 1_000_000 },
            origin_ns,
            buckets: Vec::with_capacity(256),
        }
    }

    /// Requests that reached the host's queue so far.
    pub fn arrived_count(&self) -> u64 {
        self.arrivals
    }

    /// The array entered `phase`: later completions are recorded under it.
    pub fn set_phase(&mut self, phase: ArrayPhase) {
        self.phase = Some(phase as usize);
    }

    /// Continues `other`'s array phase (a fresh recorder after a warm-up).
    pub fn take_phase_from(&mut self, other: &HostMetrics) {
        self.phase = other.phase;
    }

    /// Response times of requests that completed while the array was in `phase`.
    pub fn phase_response(&self, phase: ArrayPhase) -> LatencySummary {
        self.phases[phase as usize].summary()
    }

    /// A request touched lost data and failed (not timed).
    pub fn failed(&mut self, now_ns: Ns, op: Op) {
        match op {
            Op::Read => self.failed_reads += 1,
            Op::Write => self.failed_writes += 1,
        }
        self.last_failure_ns = self.last_failure_ns.max(now_ns);
        self.outstanding -= 1;
        if self.outstanding == 0 {
            self.busy_ns += now_ns - self.busy_since_ns;
        }
    }

    /// When the host's last request ended, served or failed on lost data.
    pub fn last_request_end_ns(&self) -> Ns {
        self.last_completion_ns.max(self.last_failure_ns)
    }

    /// Reads and writes that failed on lost data.
    pub fn failed_counts(&self) -> (u64, u64) {
        (self.failed_reads, self.failed_writes)
    }

    /// A request reached the host's queue.
    pub fn arrived(&mut self, now_ns: Ns) {
        self.arrivals += 1;
        self.first_arrival_ns.get_or_insert(now_ns);
        self.last_arrival_ns = now_ns;
        if self.outstanding == 0 {
            self.busy_since_ns = now_ns;
        }
        self.outstanding += 1;
        if self.outstanding > self.peak_outstanding.0 {
            self.peak_outstanding = (self.outstanding, now_ns);
        }
    }

    /// A request finished.
    pub fn completed(&mut self, now_ns: Ns, arrival_ns: Ns, op: Op, len_bytes: u64) {
        let latency = now_ns - arrival_ns;
        self.all.record(latency);
        if let Some(p) = self.phase {
            self.phases[p].record(latency);
        }
        match op {
            Op::Read => {
                self.read.record(latency);
                self.bytes_read += len_bytes;
            }
            Op::Write => {
                self.write.record(latency);
                self.bytes_written += len_bytes;
            }
        }
        self.outstanding -= 1;
        if self.outstanding == 0 {
            self.busy_ns += now_ns - self.busy_since_ns;
        }
        self.last_completion_ns = self.last_completion_ns.max(now_ns);
        let b = self.bucket_mut(now_ns);
        b.completions += 1;
        b.bytes += len_bytes;
        b.latency_ns += u128::from(latency);
    }

    fn bucket_mut(&mut self, now_ns: Ns) -> &mut Bucket {
        let limit = if self.fixed_interval { MAX_FIXED_BUCKETS } else { MAX_BUCKETS };
        let since = now_ns.saturating_sub(self.origin_ns);
        let mut i = (since / self.interval_ns) as usize;
        while i >= limit {
            self.coarsen();
            i = (since / self.interval_ns) as usize;
        }
        if i >= self.buckets.len() {
            self.buckets.resize(i + 1, Bucket::default());
        }
        &mut self.buckets[i]
    }

    fn coarsen(&mut self) {
        self.interval_ns *= 2;
        let merged = self.buckets.chunks(2).map(merge).collect();
        self.buckets = merged;
    }

    /// `runs` garbage-collection runs happened by `now_ns` since the last call.
    pub fn gc_ran(&mut self, now_ns: Ns, runs: u64) {
        self.bucket_mut(now_ns).gc_runs += runs;
    }

    /// Requests completed.
    pub fn completed_count(&self) -> u64 {
        self.all.hist.len()
    }

    /// Most host requests outstanding at once, and the instant, ns.
    pub fn peak_outstanding(&self) -> (u64, Ns) {
        self.peak_outstanding
    }

    /// Host requests arrived and not yet completed.
    pub fn outstanding(&self) -> u64 {
        self.outstanding
    }

    /// First arrival, last arrival and last completion, ns.
    pub fn span_ns(&self) -> (Ns, Ns, Ns) {
        (self.first_arrival_ns.unwrap_or(0), self.last_arrival_ns, self.last_completion_ns)
    }

    /// The summary.
    pub fn report(&self) -> HostReport {
        let start = self.first_arrival_ns.unwrap_or(0);
        let duration_ns = self.last_completion_ns.saturating_sub(start);
        let requests = self.completed_count();
        let bytes = self.bytes_read + self.bytes_written;
        let per_s = |x: f64, ns: u64| if ns == 0 { 0.0 } else { x * NS_PER_S as f64 / ns as f64 };
        HostReport {
            requests,
            reads: self.read.hist.len(),
            writes: self.write.hist.len(),
            bytes_read: self.bytes_read,
            bytes_written: self.bytes_written,
            duration_ns,
            busy_ns: self.busy_ns,
            iops: per_s(requests as f64, duration_ns),
            mb_per_s: per_s(bytes as f64 / 1e6, duration_ns),
            throughput_eq5_mb_per_s: per_s(bytes as f64 / 1e6, self.busy_ns),
            response: self.all.summary(),
            read_response: self.read.summary(),
            write_response: self.write.summary(),
        }
    }

    /// The time series, merged to about 100 buckets unless the interval was fixed.
    pub fn time_series(&self) -> TimeSeries {
        let mut interval = self.interval_ns;
        let mut buckets = self.buckets.clone();
        while !self.fixed_interval && buckets.len() as u64 > AUTO_BUCKETS * 2 {
            interval *= 2;
            buckets = buckets.chunks(2).map(merge).collect();
        }
        let secs = interval as f64 / NS_PER_S as f64;
        let iops: Vec<f64> = buckets.iter().map(|b| b.completions as f64 / secs).collect();
        let mb_per_s: Vec<f64> = buckets.iter().map(|b| b.bytes as f64 / 1e6 / secs).collect();
        let whole = buckets.len().saturating_sub(1);
        TimeSeries {
            interval_ns: interval,
            start_ns: (0..buckets.len() as u64).map(|i| self.origin_ns + i * interval).collect(),
            steadiness: Steadiness::of(&iops[..whole], &mb_per_s[..whole]),
            iops,
            mb_per_s,
            mean_latency_ns: buckets.iter().map(|b| if b.completions == 0 { 0.0 } else { b.latency_ns as f64 / b.completions as f64 }).collect(),
            gc_runs: buckets.iter().map(|b| b.gc_runs).collect(),
        }
    }
}

fn merge(pair: &[Bucket]) -> Bucket {
    pair.iter().fold(Bucket::default(), |a, b| Bucket {
        completions: a.completions + b.completions,
        bytes: a.bytes + b.bytes,
        latency_ns: a.latency_ns + b.latency_ns,
        gc_runs: a.gc_runs + b.gc_runs,
    })
}

/// Host-side summary of a run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HostReport {
    /// Requests completed.
    pub requests: u64,
    /// Reads completed.
    pub reads: u64,
    /// Writes completed.
    pub writes: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// First arrival to last completion, ns.
    pub duration_ns: u64,
    /// Time with at least one request outstanding, ns.
    pub busy_ns: u64,
    /// Requests per second over the duration.
    pub iops: f64,
    /// MB (10^6 bytes) per second over the duration.
    pub mb_per_s: f64,
    /// Eq. 5 of the stripe-unit paper: MB over (simulated time − idle time), per second.
    pub throughput_eq5_mb_per_s: f64,
    /// All requests.
    pub response: LatencySummary,
    /// Reads.
    pub read_response: LatencySummary,
    /// Writes.
    pub write_response: LatencySummary,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_nothing_measured_has_null_times_not_zero() {
        let mut m = HostMetrics::new(0);
        m.arrived(0);
        m.completed(1_000, 0, Op::Write, 4096);
        let json = serde_json::to_value(m.report()).unwrap_or_default();
        let reads = &json["read_response"];
        assert_eq!(reads["count"], 0);
        for key in ["mean_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"] {
            assert!(reads[key].is_null(), "read_response.{key} = {}", reads[key]);
        }
        assert_eq!(json["write_response"]["mean_ns"], 1_000.0);
        assert_eq!(json["write_response"]["max_ns"], 1_000);
    }

    #[test]
    fn eq5_excludes_idle_time() {
        let mut m = HostMetrics::new(0);
        m.arrived(0);
        m.completed(1_000, 0, Op::Write, 1_000_000);
        m.arrived(9_000);
        m.completed(10_000, 9_000, Op::Read, 1_000_000);
        let r = m.report();
        assert_eq!(r.duration_ns, 10_000);
        assert_eq!(r.busy_ns, 2_000);
        // 2 MB in 2 us of busy time = 1e6 MB/s.
        assert!((r.throughput_eq5_mb_per_s - 1e6).abs() < 1e-6);
        assert_eq!(r.response.mean_ns, 1_000.0);
        assert_eq!(r.response.p50_ns, 1_000);
        assert_eq!(r.response.max_ns, 1_000);
    }

    #[test]
    fn series_stays_bounded() {
        let mut m = HostMetrics::new(0);
        for i in 0..100_000u64 {
            let t = i * 1_000_000_000;
            m.arrived(t);
            m.completed(t + 10, t, Op::Read, 4096);
        }
        let ts = m.time_series();
        assert!(ts.iops.len() <= 200, "{}", ts.iops.len());
        let total: f64 = ts.iops.iter().map(|x| x * ts.interval_ns as f64 / 1e9).sum();
        assert!((total - 100_000.0).abs() < 1e-6);
    }
}

/// The array's condition, for response times before, during and after a
/// rebuild (the array controller sets it; the host's metrics split by it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayPhase {
    /// No member has failed yet.
    Healthy,
    /// A member is failed and no rebuild runs (no spare, or its delay).
    Degraded,
    /// A rebuild runs.
    Rebuilding,
    /// Every rebuild has finished.
    Rebuilt,
}
