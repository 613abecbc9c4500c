//! # raidsim-core
//!
//! A fast, deterministic discrete-event simulator of flash SSDs (and, as the
//! project grows, arrays of them). This crate has no Python in it; the PyO3
//! layer in `crates/raidsim-py` only converts and maps errors.
//!
//! ```text
//! workload  (trace reader | open-loop generator | closed-loop processes)
//!    │  HostRequest { id, arrival_ns, op, offset_bytes, len_bytes, think_ns }
//!    ▼
//! host      (sim: replay arrival times, keep N outstanding, or a trace one at a time)
//!    │  DeviceRequest { token, op, offset_bytes, len_bytes, cause, stream }
//!    ▼
//! member    Ssd: host link → controller → FTL → channels → dies
//!    ▼
//! engine    one event queue, integer ns, ties in insertion order
//!    ▼
//! metrics   host latency/IOPS/Eq. 5, pages by (device, cause), wear → Report
//! ```
//!
//! Where each concept lives: [`engine`] (time and events), [`config`] (every
//! parameter, once, with its unit; presets), [`flash`] (addresses),
//! [`ftl`] (mapping and garbage collection), [`ssd`] (timing of one drive),
//! [`device`] (the member interface and I/O causes), [`workload`] (traces
//! and generators), [`metrics`] and [`report`], [`analytic`] (closed forms),
//! [`sim`] (a run), [`reliability`] (the probability of losing data over an
//! array's life).
//!
//! ```
//! use raidsim_core::config::RawConfig;
//! let mut raw = RawConfig::from_preset("stripe-unit-table5")?;
//! raw.set("workload.requests=1000")?;
//! let report = raidsim_core::simulate(raw.resolve()?)?;
//! assert_eq!(report.host.requests, 1000);
//! # Ok::<(), raidsim_core::Error>(())
//! ```

pub mod analytic;
pub mod array;
pub mod config;
pub mod device;
pub mod engine;
mod error;
pub mod flash;
pub mod ftl;
pub mod hdd;
pub mod member;
pub mod metrics;
mod prefetch;
pub mod reliability;
pub mod report;
pub mod sim;
pub mod ssd;
pub mod verify_cases;
pub mod workload;

pub use error::{Error, Result};
pub use report::Report;
pub use sim::{count, simulate, Counting, Simulation};
