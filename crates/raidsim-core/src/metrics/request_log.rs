//! The per-request log: one row per measured host request, as DiskSim,
//! MQSim and fio keep one, for what a summary hides (a tail that comes in
//! bursts, a rebuild's effect request by request, a trace replayed line
//! against line).
//!
//! Rows are appended in completion order, as columns, so a million
//! requests cost 36 MB and no allocation per request once the columns
//! have grown. The population is the report's: requests issued after the
//! warm-up, served or failed on lost data. The core keeps the columns; the
//! Python package writes them as Parquet to `metrics.request_log`.

use crate::device::Op;
use crate::engine::Ns;

/// The log's columns, one entry per request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestLog {
    /// When the host issued the request, ns.
    pub arrival_ns: Vec<Ns>,
    /// 0 = read, 1 = write.
    pub op: Vec<u8>,
    /// First host byte.
    pub offset_bytes: Vec<u64>,
    /// Length, bytes.
    pub len_bytes: Vec<u64>,
    /// When the host learned the request was done (or failed), ns.
    pub completion_ns: Vec<Ns>,
    /// 1 = served; 0 = failed on data the array had lost.
    pub served: Vec<u8>,
    /// The flow that issued it: 0 for a single workload, N for `flow-N` of a flows workload.
    pub flow: Vec<u16>,
}

/// One request's row.
#[derive(Clone, Copy, Debug)]
pub struct LoggedRequest {
    /// When the host issued it, ns.
    pub arrival_ns: Ns,
    /// Read or write.
    pub op: Op,
    /// First host byte.
    pub offset_bytes: u64,
    /// Length, bytes.
    pub len_bytes: u64,
    /// The flow that issued it (0: a single workload; N: `flow-N`).
    pub flow: u16,
}

impl RequestLog {
    /// Appends `r`, done at `completion_ns` (`served`: false when it failed).
    pub fn push(&mut self, r: LoggedRequest, completion_ns: Ns, served: bool) {
        self.arrival_ns.push(r.arrival_ns);
        self.op.push(u8::from(r.op == Op::Write));
        self.offset_bytes.push(r.offset_bytes);
        self.len_bytes.push(r.len_bytes);
        self.completion_ns.push(completion_ns);
        self.served.push(u8::from(served));
        self.flow.push(r.flow);
    }

    /// Rows logged.
    pub fn len(&self) -> usize {
        self.arrival_ns.len()
    }

    /// No row logged.
    pub fn is_empty(&self) -> bool {
        self.arrival_ns.is_empty()
    }
}
