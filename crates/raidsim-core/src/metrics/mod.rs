//! Host- and device-side measurements, and the report they make.
//!
//! Host side: requests, IOPS, bandwidth, response time (mean and
//! percentiles from an HdrHistogram, reads and writes apart), throughput by
//! the stripe-unit paper's Eq. 5 (bytes over simulated time minus idle time,
//! Rajaei Salmasi et al. 2013), and a time series whose buckets shrink in
//! number as a run grows (so a week-long trace keeps a bounded series).
//! Device side: page counts by cause, erases, garbage collection, write
//! amplification and the spread of per-block erase counts. Every scalar also
//! appears as a [`Stat`] named by its component path.

mod host;
pub mod request_log;
pub mod stop;
mod wear;

pub use host::{ArrayPhase, HostMetrics, HostReport, LatencySummary, Steadiness, TimeSeries, MAX_FIXED_BUCKETS};
pub use request_log::{LoggedRequest, RequestLog};
pub use stop::{BatchMeans, StopReport};
pub use wear::{EraseSpread, Histogram};

use serde::Serialize;

/// One named statistic: `member[3].ftl.gc.pages_copied`, its value, unit and meaning.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Stat {
    /// Dotted component path.
    pub path: String,
    /// Value.
    pub value: f64,
    /// Unit.
    pub unit: &'static str,
    /// What it measures.
    pub description: &'static str,
}

impl Stat {
    /// A statistic.
    pub fn new(path: String, value: f64, unit: &'static str, description: &'static str) -> Self {
        Self { path, value, unit, description }
    }
}

/// A collection of statistics.
pub type Stats = Vec<Stat>;
