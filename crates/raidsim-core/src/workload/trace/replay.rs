//! The replay clock: a trace's timestamps turned into arrival instants, and
//! its requests fitted to the simulated capacity.
//!
//! Arrivals keep the trace's spacing: each request arrives the sum of
//! |t_i − t_{i−1}| so far after the first (times `time_scale`), so a request
//! stamped earlier than the one before it is counted and replayed after it
//! rather than reordered. A pure function of the records in file order, so
//! it runs on the reader thread ([`super::TraceFeed`]).

use super::TraceRecord;
use crate::config::{OutOfOrder, OutOfRange};
use crate::engine::{Ns, MAX_TIME_NS};

/// The replay state of one trace.
#[derive(Clone, Debug)]
pub struct Replay {
    capacity_bytes: u64,
    out_of_range: OutOfRange,
    out_of_order: OutOfOrder,
    time_scale: f64,
    /// Closed loop: the timestamps are not used, so not checked or counted.
    closed: bool,
    /// The previous record's timestamp, on the trace's clock.
    last_time_ns: Option<u128>,
    /// Sum of |t_i − t_{i−1}| so far: the trace's spacing, kept even where it runs backwards.
    distance_ns: u128,
}

/// One record as replayed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Replayed {
    /// Arrival instant.
    pub arrival_ns: Ns,
    /// First byte, fitted to the capacity.
    pub offset_bytes: u64,
    /// The record's gap from the previous one, scaled.
    pub scaled_gap_ns: Ns,
    /// Stamped earlier than the previous record.
    pub out_of_order: bool,
    /// Wrapped to fit the capacity.
    pub wrapped: bool,
}

impl Replay {
    /// A replay onto a device of `capacity_bytes`.
    pub fn new(capacity_bytes: u64, out_of_range: OutOfRange, out_of_order: OutOfOrder, time_scale: f64) -> Self {
        Self { capacity_bytes, out_of_range, out_of_order, time_scale, closed: false, last_time_ns: None, distance_ns: 0 }
    }

    /// A closed-loop replay: arrivals come from completions, so the timestamps are ignored.
    pub fn closed_loop(self) -> Self {
        Self { closed: true, ..self }
    }

    /// Replays the next record, or says what is wrong with it.
    pub fn next(&mut self, r: &TraceRecord) -> Result<Replayed, String> {
        if self.closed {
            let (offset_bytes, wrapped) = self.fit(r)?;
            return Ok(Replayed { offset_bytes, wrapped, ..Replayed::default() });
        }
        let last = self.last_time_ns.replace(r.time_ns).unwrap_or(r.time_ns);
        let out_of_order = r.time_ns < last;
        if out_of_order && self.out_of_order == OutOfOrder::Error {
            return Err(format!(
                "timestamp {} ns precedes the previous one ({last} ns) (workload.out_of_order = \"keep_spacing\" replays it)",
                r.time_ns
            ));
        }
        let gap = r.time_ns.abs_diff(last);
        self.distance_ns += gap;
        let scaled_gap_ns = (gap as f64 * self.time_scale).round() as Ns;
        let arrival = (self.distance_ns as f64 * self.time_scale).round();
        if arrival > MAX_TIME_NS as f64 {
            return Err(format!(
                "timestamp {} ns puts this request {arrival:.3e} ns into the replay, past 2^62 ns (146 years): a corrupt timestamp, or time_scale too large",
                r.time_ns
            ));
        }
        let (offset_bytes, wrapped) = self.fit(r)?;
        Ok(Replayed { arrival_ns: arrival as Ns, offset_bytes, scaled_gap_ns, out_of_order, wrapped })
    }

    /// Record `r` fitted to the capacity: its first byte, and whether it
    /// was wrapped. A trim longer than the device under `wrap` (a
    /// whole-device discard of a larger traced device) covers the whole
    /// device instead (from 0; its source cuts its length), counted as wrapped.
    fn fit(&self, r: &TraceRecord) -> Result<(u64, bool), String> {
        if r.op == crate::workload::HostOp::Trim && r.len_bytes > self.capacity_bytes && self.out_of_range == OutOfRange::Wrap {
            return Ok((0, true));
        }
        crate::workload::fit(r.offset_bytes, r.len_bytes, self.capacity_bytes, Some(self.out_of_range))
    }
}
