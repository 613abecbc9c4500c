//! Parameters of several flows (tenants) sharing one device: each flow a
//! synthetic generator with its own queue, as MQSim's `IO_Scenario` holds
//! up to eight `IO_Flow_Parameter_Set_Synthetic` (Tavakkol et al., FAST'18,
//! §3 "multi-queue"), and the NVMe host interface that fetches from their
//! submission queues.

use super::SyntheticConfig;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Where each flow's addresses lie.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowAddressSpace {
    /// Flow i of n addresses the i-th n-th of the capacity, as MQSim gives
    /// each flow its own logical space; a flow's `start_bytes` and
    /// `span_bytes` lie within its part.
    #[default]
    Partitioned,
    /// Every flow addresses the whole capacity.
    Shared,
}

/// Several flows issuing to one device at once.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FlowsConfig {
    /// The flows, each a synthetic generator's table (`[[workload.flows]]`),
    /// named `flow-1`, `flow-2`, ... in the report. A flow's `requests = 0`
    /// issues until `stop_time_ns`; with `address_space = "partitioned"`,
    /// its `start_bytes` and `span_bytes` (0: to the end) lie within its part.
    pub flows: Vec<SyntheticConfig>,
    /// Where each flow's addresses lie: "partitioned" (flow i of n on the
    /// i-th n-th of the capacity, MQSim's) or "shared" (every flow on all of it).
    pub address_space: FlowAddressSpace,
    /// NVMe: how many commands of one flow's submission queue the device
    /// holds at once (MQSim's `Queue_Fetch_Size`); the rest wait in the
    /// queue, and that wait is part of their response time. 0: no limit.
    pub queue_fetch_size: u32,
    /// Simulated time from which no flow issues, ns (MQSim's `Stop_Time`):
    /// every flow runs for the same time, so each meets the others all
    /// along; a flow stops earlier at its `requests` when that is not 0.
    /// 0: each flow stops at its `requests`.
    pub stop_time_ns: u64,
}

impl Default for FlowsConfig {
    fn default() -> Self {
        Self { flows: Vec::new(), address_space: FlowAddressSpace::Partitioned, queue_fetch_size: 0, stop_time_ns: 0 }
    }
}

/// The most flows one run takes: each keeps its own metrics and queue.
pub const MAX_FLOWS: usize = 64;

impl FlowsConfig {
    /// Checks every flow, naming its entry (`workload.flows[1].read_fraction`).
    pub fn validate(&self) -> Result<()> {
        if self.flows.is_empty() {
            return Err(Error::config("workload.flows", "a flows workload needs at least one [[workload.flows]] table"));
        }
        if self.flows.len() > MAX_FLOWS {
            return Err(Error::config("workload.flows", format!("{} flows; at most {MAX_FLOWS} are taken", self.flows.len())));
        }
        if self.stop_time_ns > crate::engine::MAX_TIME_NS {
            return Err(Error::config("workload.stop_time_ns", format!("{} ns is past 2^62 ns (146 years)", self.stop_time_ns)));
        }
        for (i, f) in self.flows.iter().enumerate() {
            f.validate().map_err(|e| within_flow(e, i))?;
            if f.requests == 0 && self.stop_time_ns == 0 {
                return Err(Error::config(
                    format!("workload.flows[{i}].requests"),
                    "is 0 (issue until the stop time) but workload.stop_time_ns is 0: give the flow a request count or the run a stop time",
                ));
            }
        }
        Ok(())
    }

    /// Flow `i`'s part of a device of `capacity_bytes`: its first byte and
    /// length. Parts are whole multiples of every flow's `alignment_bytes`,
    /// so a part's offsets keep the alignment the flow asks for.
    pub fn part_of(&self, i: usize, capacity_bytes: u64) -> (u64, u64) {
        match self.address_space {
            FlowAddressSpace::Shared => (0, capacity_bytes),
            FlowAddressSpace::Partitioned => {
                let unit = self.part_unit_bytes();
                let part = capacity_bytes / self.flows.len().max(1) as u64 / unit * unit;
                (part * i as u64, part)
            }
        }
    }

    /// The least common multiple of the flows' alignments (each a multiple of
    /// the 512-byte sector), capped at 2^40 bytes: parts of a larger unit
    /// would be empty, which the span check then refuses.
    fn part_unit_bytes(&self) -> u64 {
        fn gcd(a: u64, b: u64) -> u64 {
            if b == 0 {
                a
            } else {
                gcd(b, a % b)
            }
        }
        self.flows.iter().map(|f| f.alignment_bytes.max(1)).fold(1u64, |l, a| (l / gcd(l, a)).saturating_mul(a).min(1 << 40))
    }

    /// Checks each flow's span against its part of a device of `capacity_bytes`.
    pub fn check_spans(&self, capacity_bytes: u64) -> Result<()> {
        for (i, f) in self.flows.iter().enumerate() {
            let (_, part) = self.part_of(i, capacity_bytes);
            f.span_within(part).map_err(|e| self.in_part(within_flow(e, i), i, capacity_bytes))?;
        }
        Ok(())
    }

    /// A span error of flow `i` says, under partitioning, that the bytes it names are the flow's part.
    fn in_part(&self, e: Error, i: usize, capacity_bytes: u64) -> Error {
        match e {
            Error::Config { key, message } if self.address_space == FlowAddressSpace::Partitioned => {
                let (start, _) = self.part_of(i, capacity_bytes);
                let whose = format!(
                    "-byte part of flow {} (bytes {start}.. of the {capacity_bytes}-byte device, workload.address_space = \"partitioned\"; \
                     start_bytes and span_bytes count from the part's start)",
                    i + 1
                );
                Error::Config { key, message: message.replace("-byte device", &whose) }
            }
            other => other,
        }
    }

    /// Requests the flows issue at most, when every flow has a count (`None`: one runs until the stop time).
    pub fn requests(&self) -> Option<u64> {
        self.flows.iter().try_fold(0u64, |sum, f| (f.requests > 0).then(|| sum.saturating_add(f.requests)))
    }
}

/// An error about a flow's `workload.<key>` names `workload.flows[i].<key>`.
pub fn within_flow(e: Error, i: usize) -> Error {
    match e {
        Error::Config { key, message } => {
            let key = match key.strip_prefix("workload.") {
                Some(rest) => format!("workload.flows[{i}].{rest}"),
                None => key,
            };
            Error::Config { key, message }
        }
        other => other,
    }
}
