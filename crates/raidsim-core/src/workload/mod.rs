//! Workloads: where host requests come from.
//!
//! A [`RequestSource`] yields [`HostRequest`]s one at a time, in arrival
//! order, so a trace of any length streams through constant memory. Sources:
//! trace replay ([`TraceSource`]), the open- or closed-loop synthetic
//! generator ([`SyntheticSource`]), an explicit list ([`ListSource`]), and
//! one generator per flow of a flows workload ([`FlowSource`]).
//! Every request is fitted to the simulated capacity here: wrapped modulo
//! the capacity (and counted) or refused with an error naming its origin.

mod flows;
mod size;
mod stats;
mod synthetic;
pub mod trace;

pub use flows::FlowSource;
pub use size::SizeSampler;
pub use stats::{OpStats, TraceStats};
pub use synthetic::SyntheticSource;

use crate::config::{OutOfRange, TraceConfig, WorkloadConfig};
use crate::device::Op;
use crate::engine::Ns;
use crate::error::{Error, Result};
use serde::Serialize;
use trace::{TraceFeed, TraceOptions, TraceReader};

/// What a host request asks of the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HostOp {
    /// Read.
    Read,
    /// Write.
    Write,
    /// Trim (ATA TRIM, NVMe deallocate, SCSI UNMAP, a block layer's
    /// discard): the host no longer needs the range's data, so a drive may
    /// drop its pages. It moves no data; `sim::trim` applies it.
    Trim,
}

impl HostOp {
    /// The device I/O a read or write is; `None` for a trim, which moves no data.
    pub fn io(self) -> Option<Op> {
        match self {
            HostOp::Read => Some(Op::Read),
            HostOp::Write => Some(Op::Write),
            HostOp::Trim => None,
        }
    }

    /// The op of a request list's letter: `R`, `W` or `T`.
    pub fn of_letter(letter: &str) -> Option<HostOp> {
        match letter {
            "R" => Some(HostOp::Read),
            "W" => Some(HostOp::Write),
            "T" => Some(HostOp::Trim),
            _ => None,
        }
    }
}

/// One request from the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostRequest {
    /// Sequence number in issue order.
    pub id: u64,
    /// Arrival instant (open loop; closed-loop sources leave it 0).
    pub arrival_ns: Ns,
    /// Read, write or trim.
    pub op: HostOp,
    /// First byte.
    pub offset_bytes: u64,
    /// Length, bytes.
    pub len_bytes: u64,
    /// Closed-loop trace replay: the host's idle time between the previous
    /// request's completion and this one's issue, ns (0 otherwise).
    pub think_ns: Ns,
}

/// What a workload did besides issuing requests.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WorkloadReport {
    /// Requests issued.
    pub requests: u64,
    /// Requests beyond the capacity that were wrapped.
    pub wrapped_out_of_range: u64,
    /// Bytes of the wrapped requests.
    pub wrapped_bytes: u64,
    /// Bytes of all requests issued.
    pub request_bytes: u64,
    /// The highest byte a request reached before any wrap (exclusive): the
    /// capacity a trace needs to replay unwrapped.
    pub highest_end_bytes: u64,
    /// Trace lines skipped as malformed (`skip_malformed = true`).
    pub malformed_skipped: u64,
    /// The first malformed line skipped.
    pub first_malformed: Option<String>,
    /// Zero-length trace requests skipped.
    pub zero_length_skipped: u64,
    /// Trims in the trace left out (`workload.trims = "skip"`); omitted when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub trims_skipped: u64,
    /// Requests whose timestamp preceded the previous one's.
    pub out_of_order: u64,
    /// Longest time between two consecutive requests on the trace's clock
    /// (after `time_scale`), ns; a corrupt timestamp shows here.
    pub largest_gap_ns: u64,
    /// The request (0-based) that came after the largest gap.
    pub largest_gap_request: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A stream of host requests.
pub trait RequestSource: Send + Sync {
    /// The next request, or `None` when the workload is done.
    fn next_request(&mut self) -> Result<Option<HostRequest>>;
    /// Fraction done, for progress bars.
    fn progress(&self) -> f64;
    /// Counters for the report.
    fn report(&self) -> WorkloadReport;
    /// Called once the run takes no more requests, however it ended: an
    /// error when what was issued breaks a workload limit.
    fn finish(&self) -> Result<()> {
        Ok(())
    }
}

/// Fits `[offset, offset + len)` into `capacity` bytes. `None`: the source
/// has no wrap option (listed requests), so the error offers none.
pub(crate) fn fit(offset: u64, len: u64, capacity: u64, policy: Option<OutOfRange>) -> std::result::Result<(u64, bool), String> {
    let Some(end) = offset.checked_add(len) else {
        return Err(format!("request [{offset}, +{len}) ends beyond 2^64 bytes: a corrupt offset or length"));
    };
    if end <= capacity {
        return Ok((offset, false));
    }
    if len > capacity {
        return Err(format!("request of {len} bytes is larger than the {capacity}-byte device"));
    }
    match policy {
        None => Err(format!("request [{offset}, +{len}) ends beyond the simulated capacity of {capacity} bytes")),
        Some(OutOfRange::Error) => Err(format!(
            "request [{offset}, +{len}) ends beyond the simulated capacity of {capacity} bytes \
             (set workload.out_of_range = \"wrap\" to wrap it)"
        )),
        Some(OutOfRange::Wrap) => {
            let wrapped = offset % capacity;
            Ok((wrapped.min(capacity - len), true))
        }
    }
}

/// Replays a trace file: read, parsed and replayed on the reader thread
/// ([`trace::TraceFeed`]); here, only the report's counts.
pub struct TraceSource {
    feed: TraceFeed,
    report: WorkloadReport,
    capacity_bytes: u64,
    max_wrapped_fraction: f64,
    /// The last record's idle time after it: the next request's think time.
    idle_after_last_ns: Ns,
    /// `workload.time_scale`, which scales the idle times as it does timestamps.
    time_scale: f64,
}

impl TraceSource {
    /// Opens the trace of `config` for a device of `capacity_bytes`.
    pub fn new(config: &TraceConfig, capacity_bytes: u64) -> Result<Self> {
        let reader = TraceReader::open(&config.path.0, trace_options(config))?;
        let mut replay = trace::Replay::new(capacity_bytes, config.out_of_range, config.out_of_order, config.time_scale);
        if config.replay == crate::config::TraceReplay::Closed {
            replay = replay.closed_loop();
        }
        Ok(Self {
            feed: TraceFeed::start(reader, replay)?,
            report: WorkloadReport::default(),
            capacity_bytes,
            max_wrapped_fraction: config.max_wrapped_fraction,
            idle_after_last_ns: 0,
            time_scale: config.time_scale,
        })
    }

    /// When the run takes no more requests: an error when more of those it
    /// issued, or of their bytes, were wrapped than
    /// `workload.max_wrapped_fraction` allows.
    fn refuse_folded_trace(&self) -> Result<()> {
        let r = &self.report;
        // A quotient, not a product: 29 of 100 is exactly the 0.29 a user writes.
        let over = |part: u64, whole: u64| whole > 0 && part as f64 / whole as f64 > self.max_wrapped_fraction;
        if !over(r.wrapped_out_of_range, r.requests) && !over(r.wrapped_bytes, r.request_bytes) {
            return Ok(());
        }
        Err(Error::config(
            "workload.max_wrapped_fraction",
            format!(
                "{}; at most {} % of either may be. The trace reaches byte {}: give the drive at least that capacity, or set \
                 workload.max_wrapped_fraction = 1 to replay it folded onto {} bytes",
                wrapped_summary(r, self.capacity_bytes),
                self.max_wrapped_fraction * 100.0,
                r.highest_end_bytes,
                self.capacity_bytes
            ),
        ))
    }
}

/// "N of M requests (x %) and B of T bytes (y %) ... were wrapped".
pub fn wrapped_summary(r: &WorkloadReport, capacity_bytes: u64) -> String {
    let pct = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 * 100.0 };
    format!(
        "{} of {} trace requests ({:.1} %) and {} of {} bytes ({:.1} %) lay beyond the simulated capacity of {capacity_bytes} \
         bytes and were wrapped to fit it (workload.out_of_range = \"wrap\")",
        r.wrapped_out_of_range,
        r.requests,
        pct(r.wrapped_out_of_range, r.requests),
        r.wrapped_bytes,
        r.request_bytes,
        pct(r.wrapped_bytes, r.request_bytes)
    )
}

/// The reader options of a trace config.
pub fn trace_options(config: &TraceConfig) -> TraceOptions {
    TraceOptions {
        format: config.format,
        device: config.device,
        max_requests: config.max_requests,
        blkparse_action: config.blkparse_action.clone(),
        skip_malformed: config.skip_malformed,
        skip_trims: config.trims == crate::config::TraceTrims::Skip,
    }
}

impl RequestSource for TraceSource {
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        let Some(f) = self.feed.next_record()? else { return Ok(None) };
        let (r, replayed) = (f.record, f.replayed);
        self.report.request_bytes = self.report.request_bytes.saturating_add(r.len_bytes);
        self.report.wrapped_bytes = self.report.wrapped_bytes.saturating_add(if replayed.wrapped { r.len_bytes } else { 0 });
        // The reader checked that offset + length fits 64 bits.
        self.report.highest_end_bytes = self.report.highest_end_bytes.max(r.offset_bytes.saturating_add(r.len_bytes));
        self.report.out_of_order += u64::from(replayed.out_of_order);
        if replayed.scaled_gap_ns > self.report.largest_gap_ns {
            (self.report.largest_gap_ns, self.report.largest_gap_request) = (replayed.scaled_gap_ns, self.report.requests);
        }
        self.report.wrapped_out_of_range += u64::from(replayed.wrapped);
        let id = self.report.requests;
        self.report.requests += 1;
        let idle = std::mem::replace(&mut self.idle_after_last_ns, r.idle_after_ns);
        // Exact at scale 1 (an f64 holds 53 bits); a scaled idle time past 2^64 ns saturates, and the
        // simulation refuses an issue instant that overflows.
        let think_ns = if self.time_scale == 1.0 { idle } else { (idle as f64 * self.time_scale).round() as Ns };
        Ok(Some(HostRequest {
            id,
            arrival_ns: replayed.arrival_ns,
            op: r.op,
            offset_bytes: replayed.offset_bytes,
            // A wrapped trim longer than the device covers all of it (`Replay`).
            len_bytes: r.len_bytes.min(self.capacity_bytes),
            think_ns,
        }))
    }

    fn progress(&self) -> f64 {
        self.feed.progress()
    }

    fn finish(&self) -> Result<()> {
        self.refuse_folded_trace()
    }

    fn report(&self) -> WorkloadReport {
        let (malformed_skipped, zero_length_skipped, trims_skipped, first_malformed) = self.feed.skipped();
        WorkloadReport { malformed_skipped, first_malformed, zero_length_skipped, trims_skipped, ..self.report.clone() }
    }
}

/// An explicit list of requests.
pub struct ListSource {
    requests: Vec<HostRequest>,
    next: usize,
}

impl ListSource {
    /// Requests sorted by arrival (stably), each checked against the capacity.
    pub fn new(tuples: &[crate::config::RequestTuple], packed: &str, capacity_bytes: u64) -> Result<Self> {
        let unpacked = crate::config::unpack_requests(packed)?;
        let mut requests = Vec::with_capacity(tuples.len() + unpacked.len());
        for (i, &(t, letter, offset, len)) in unpacked.iter().enumerate() {
            fit(offset, len, capacity_bytes, None).map_err(|m| Error::Workload(format!("workload.packed[{i}]: {m}")))?;
            let op = HostOp::of_letter(letter).ok_or_else(|| Error::Internal(format!("workload.packed[{i}]: op `{letter}` passed unpacking")))?;
            requests.push(HostRequest { id: 0, arrival_ns: t, op, offset_bytes: offset, len_bytes: len, think_ns: 0 });
        }
        drop(unpacked);
        for (i, (t, op, offset, len)) in tuples.iter().enumerate() {
            let op = HostOp::of_letter(op)
                .ok_or_else(|| Error::Workload(format!("workload.requests[{i}]: op `{op}` is none of \"R\", \"W\" and \"T\" (trim)")))?;
            fit(*offset, *len, capacity_bytes, None).map_err(|m| Error::Workload(format!("workload.requests[{i}]: {m}")))?;
            requests.push(HostRequest { id: 0, arrival_ns: *t, op, offset_bytes: *offset, len_bytes: *len, think_ns: 0 });
        }
        requests.sort_by_key(|r| r.arrival_ns);
        for (i, r) in requests.iter_mut().enumerate() {
            r.id = i as u64;
        }
        Ok(Self { requests, next: 0 })
    }
}

impl RequestSource for ListSource {
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        let r = self.requests.get(self.next).copied();
        self.next += usize::from(r.is_some());
        Ok(r)
    }

    fn progress(&self) -> f64 {
        self.next as f64 / self.requests.len().max(1) as f64
    }

    fn report(&self) -> WorkloadReport {
        WorkloadReport { requests: self.next as u64, ..Default::default() }
    }
}

/// Builds the source of `config` for a device of `capacity_bytes`.
pub fn build_source(config: &WorkloadConfig, capacity_bytes: u64, seed: u64) -> Result<Box<dyn RequestSource>> {
    Ok(match config {
        WorkloadConfig::Trace(t) => Box::new(TraceSource::new(t, capacity_bytes)?),
        WorkloadConfig::Synthetic(s) => Box::new(SyntheticSource::new(s, capacity_bytes, seed)?),
        WorkloadConfig::Requests { requests, packed } => Box::new(ListSource::new(requests, packed, capacity_bytes)?),
        WorkloadConfig::Flows(_) => return Err(Error::Internal("a flows workload has a source per flow (FlowSource::all)".into())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_the_request_inside() {
        assert_eq!(fit(10, 5, 100, Some(OutOfRange::Wrap)), Ok((10, false)));
        assert_eq!(fit(205, 5, 100, Some(OutOfRange::Wrap)), Ok((5, true)));
        assert_eq!(fit(198, 5, 100, Some(OutOfRange::Wrap)), Ok((95, true)));
        assert!(fit(198, 5, 100, Some(OutOfRange::Error)).expect_err("beyond").contains("out_of_range"));
        assert!(!fit(198, 5, 100, None).expect_err("beyond").contains("out_of_range"), "listed requests have no wrap option");
    }
}
