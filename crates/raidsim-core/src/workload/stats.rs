//! Trace statistics as the papers tabulate them (the stripe-unit paper's
//! Table 6, the CR5M paper's Table 2): requests, read/write shares, mean and
//! maximum sizes, mean inter-arrival of reads and of writes, duration,
//! address span.

use super::trace::{TraceOptions, TraceReader};
use super::HostOp;
use crate::error::Result;
use serde::Serialize;
use std::path::Path;

/// Statistics of one direction.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct OpStats {
    /// Requests.
    pub requests: u64,
    /// Share of all requests, percent.
    pub percent: f64,
    /// Mean size, bytes.
    pub mean_bytes: f64,
    /// Largest size, bytes.
    pub max_bytes: u64,
    /// Mean time between consecutive requests of this direction, ns.
    pub mean_interarrival_ns: f64,
    #[serde(skip)]
    bytes: u64,
    #[serde(skip)]
    first_ns: Option<u128>,
    #[serde(skip)]
    last_ns: u128,
}

/// Statistics of a trace file.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct TraceStats {
    /// File.
    pub path: String,
    /// Detected or named format.
    pub format: String,
    /// Requests.
    pub requests: u64,
    /// Reads.
    pub read: OpStats,
    /// Writes.
    pub write: OpStats,
    /// Trims (discards).
    pub trim: OpStats,
    /// Mean size of all requests, bytes.
    pub mean_bytes: f64,
    /// Last minus first timestamp, ns.
    pub duration_ns: u64,
    /// Lowest byte addressed.
    pub min_offset_bytes: u64,
    /// One past the highest byte addressed.
    pub max_end_bytes: u64,
    /// Malformed lines skipped.
    pub malformed_skipped: u64,
    /// Requests whose timestamp precedes the previous request's.
    pub out_of_order: u64,
    /// Longest time between consecutive requests, ns (a corrupt timestamp shows here).
    pub largest_gap_ns: u64,
    /// Line of the request after the largest gap.
    pub largest_gap_line: u64,
}

impl OpStats {
    fn add(&mut self, t: u128, len: u64) {
        self.requests += 1;
        self.bytes += len;
        self.max_bytes = self.max_bytes.max(len);
        // The earliest, not the first: an unsorted trace's span is max - min.
        self.first_ns = Some(self.first_ns.map_or(t, |f| f.min(t)));
        self.last_ns = self.last_ns.max(t);
    }

    fn finish(&mut self, total: u64) {
        self.percent = 100.0 * self.requests as f64 / total.max(1) as f64;
        self.mean_bytes = self.bytes as f64 / self.requests.max(1) as f64;
        if self.requests > 1 {
            let first = self.first_ns.unwrap_or(0);
            self.mean_interarrival_ns = (self.last_ns - first) as f64 / (self.requests - 1) as f64;
        }
    }
}

impl TraceStats {
    /// Reads the whole trace (streaming) and summarises it.
    pub fn of_file(path: &Path, opts: TraceOptions) -> Result<Self> {
        Self::of_file_until(path, opts, &crate::engine::StopFlag::default())
    }

    /// [`TraceStats::of_file`], ending with [`crate::Error::Interrupted`]
    /// once `stop` is requested (Ctrl-C over a long trace).
    pub fn of_file_until(path: &Path, opts: TraceOptions, stop: &crate::engine::StopFlag) -> Result<Self> {
        let mut reader = TraceReader::open(path, opts)?;
        let mut s = TraceStats {
            path: path.display().to_string(),
            format: reader.format().name().to_string(),
            min_offset_bytes: u64::MAX,
            ..Default::default()
        };
        let (mut first, mut last) = (None, 0u128);
        let mut previous: Option<u128> = None;
        while let Some(r) = reader.next_record()? {
            if s.requests % crate::engine::StopFlag::ITEMS_BETWEEN_CHECKS == 0 {
                stop.check()?;
            }
            s.requests += 1;
            if let Some(p) = previous {
                s.out_of_order += u64::from(r.time_ns < p);
                let gap = u64::try_from(r.time_ns.abs_diff(p)).unwrap_or(u64::MAX);
                if gap > s.largest_gap_ns {
                    (s.largest_gap_ns, s.largest_gap_line) = (gap, reader.line_no());
                }
            }
            previous = Some(r.time_ns);
            first = Some(first.map_or(r.time_ns, |f: u128| f.min(r.time_ns)));
            last = last.max(r.time_ns);
            s.min_offset_bytes = s.min_offset_bytes.min(r.offset_bytes);
            s.max_end_bytes = s.max_end_bytes.max(r.offset_bytes + r.len_bytes);
            match r.op {
                HostOp::Read => s.read.add(r.time_ns, r.len_bytes),
                HostOp::Write => s.write.add(r.time_ns, r.len_bytes),
                HostOp::Trim => s.trim.add(r.time_ns, r.len_bytes),
            }
        }
        if s.requests == 0 {
            return Err(reader.no_records_error());
        }
        s.read.finish(s.requests);
        s.write.finish(s.requests);
        s.trim.finish(s.requests);
        s.mean_bytes = (s.read.bytes + s.write.bytes + s.trim.bytes) as f64 / s.requests.max(1) as f64;
        s.duration_ns = first.map_or(0, |f| u64::try_from(last - f).unwrap_or(u64::MAX));
        s.malformed_skipped = reader.malformed_skipped;
        Ok(s)
    }
}
