//! Parameters of several flows (tenants) sharing one device: each flow a
//! synthetic generator with its own queue, as MQSim's `IO_Scenario` holds
//! up to eight `IO_Flow_Parameter_Set_Synthetic` (Tavakkol et al., FAST'18,
//! §3 "multi-queue"), and the NVMe host interface that fetches from their
//! submission queues.

use super::SyntheticConfig;
use crate::error::{Error, Result};
use serde::{Deserialize, Deserializer, Serialize};

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
    /// A flow's table may also place its data (`channels`, `chips`) and
    /// precondition its part (`fill_fraction`): see [`FlowConfig`].
    pub flows: Vec<FlowConfig>,
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
        for (i, flow) in self.flows.iter().enumerate() {
            let f = &flow.generator;
            f.validate().map_err(|e| within_flow(e, i))?;
            flow.validate_placement(i)?;
            if f.requests == 0 && self.stop_time_ns == 0 {
                return Err(Error::config(
                    format!("workload.flows[{i}].requests"),
                    "is 0 (issue until the stop time) but workload.stop_time_ns is 0: give the flow a request count or the run a stop time",
                ));
            }
            if f.requests == 0 && f.trim_fraction >= 1.0 && f.processes > 0 && f.think_time_ns == 0 {
                return Err(Error::config(
                    format!("workload.flows[{i}].trim_fraction"),
                    "is 1 in a closed loop without think time: every request is a trim, which takes no time, so the flow would \
                     issue forever at one instant and never reach the stop time; give it a request count or a think_time_ns",
                ));
            }
        }
        Ok(())
    }

    /// The least common multiple of the flows' alignments (each a multiple of
    /// the 512-byte sector), capped at 2^40 bytes: parts of a larger unit
    /// would be empty, which the span check then refuses.
    pub(super) fn part_unit_bytes(&self) -> u64 {
        self.flows.iter().map(|f| f.generator.alignment_bytes.max(1)).fold(1u64, super::flow_parts::lcm)
    }

    /// Checks each flow's span against its part (`parts`, from [`FlowsConfig::parts`]).
    pub fn check_spans(&self, parts: &[(u64, u64)], capacity_bytes: u64) -> Result<()> {
        for (i, (f, &(start, part))) in self.flows.iter().zip(parts).enumerate() {
            f.generator.span_within(part).map_err(|e| self.in_part(within_flow(e, i), i, start, capacity_bytes))?;
        }
        Ok(())
    }

    /// A span error of flow `i` says, under partitioning, that the bytes it names are the flow's part.
    fn in_part(&self, e: Error, i: usize, start: u64, capacity_bytes: u64) -> Error {
        match e {
            Error::Config { key, message } if self.address_space == FlowAddressSpace::Partitioned => {
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
        self.flows.iter().map(|f| f.generator.requests).try_fold(0u64, |sum, r| (r > 0).then(|| sum.saturating_add(r)))
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

/// One flow of a flows workload: a synthetic generator (its keys at the top
/// of the flow's table), and where on a single drive its data lies, as
/// MQSim's `IO_Flow_Parameter_Set_Synthetic` names the flow's
/// `Channel_IDs`, `Chip_IDs` and `Initial_Occupancy_Percentage`.
#[derive(Clone, Debug, Default, Serialize, PartialEq, schemars::JsonSchema)]
pub struct FlowConfig {
    /// The flow's requests: every key of a synthetic workload.
    #[serde(flatten)]
    pub generator: SyntheticConfig,
    /// Channels that hold the flow's data (MQSim's `Channel_IDs`), from 0;
    /// empty: every channel. Given to one flow, given to all: each flow's
    /// part of the logical space then lives on its own chips only, sized as
    /// MQSim sizes it (each chip's capacity divided among the flows on it),
    /// and flows on disjoint chips meet only in the controller, its cache
    /// and its buffer. Every chip of a flow must be shared by as many flows
    /// (its pages stripe evenly over them). Needs a single drive with static
    /// allocation and a page map (`page_map` or `dftl`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    pub channels: Vec<u32>,
    /// Chips of each of the flow's channels that hold its data (MQSim's
    /// `Chip_IDs`), from 0; empty: every chip of them. Given to one flow,
    /// `channels` or `chips` are given to all (see `channels`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    pub chips: Vec<u32>,
    /// Share of the flow's part written in order before the run (MQSim's
    /// `Initial_Occupancy_Percentage` / 100), in place of
    /// `precondition.fill_fraction`; `precondition`'s overwrite factors
    /// then apply to the pages the flows' fills wrote. Needs a single drive
    /// with a page map or the block map (FAST: `precondition.fill_fraction`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill_fraction: Option<f64>,
}

impl FlowConfig {
    /// The keys a flow's table adds to a synthetic workload's.
    pub const PLACEMENT_KEYS: [&'static str; 3] = ["channels", "chips", "fill_fraction"];

    /// The key that names the flow's chips: `channels`, or `chips` when it gives only those.
    pub fn resources_key(&self) -> &'static str {
        if self.channels.is_empty() && !self.chips.is_empty() {
            "chips"
        } else {
            "channels"
        }
    }

    /// Whether the flow names its chips.
    pub fn has_resources(&self) -> bool {
        !self.channels.is_empty() || !self.chips.is_empty()
    }

    /// Whether the flow places or preconditions its part itself.
    pub fn is_placed(&self) -> bool {
        self.has_resources() || self.fill_fraction.is_some()
    }

    fn validate_placement(&self, i: usize) -> Result<()> {
        for (key, ids) in [("channels", &self.channels), ("chips", &self.chips)] {
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                return Err(Error::config(format!("workload.flows[{i}].{key}"), format!("names {} twice", w[0])));
            }
        }
        if let Some(f) = self.fill_fraction {
            if !(0.0..=1.0).contains(&f) {
                return Err(Error::config(format!("workload.flows[{i}].fill_fraction"), format!("{f} is not a share in [0, 1]")));
            }
        }
        Ok(())
    }
}

/// A flow's table is a synthetic workload's with the placement keys beside:
/// they are taken out, and the rest must be a synthetic workload's keys
/// (an unknown key is refused, as everywhere).
impl<'de> Deserialize<'de> for FlowConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut table = toml::Table::deserialize(d)?;
        fn take<'de, T: Deserialize<'de>, E: serde::de::Error>(table: &mut toml::Table, key: &str) -> std::result::Result<Option<T>, E> {
            table.remove(key).map(|v| T::deserialize(v).map_err(|e| E::custom(format!("{key}: {e}")))).transpose()
        }
        let channels = take(&mut table, "channels")?.unwrap_or_default();
        let chips = take(&mut table, "chips")?.unwrap_or_default();
        let fill_fraction = take(&mut table, "fill_fraction")?;
        let generator = SyntheticConfig::deserialize(toml::Value::Table(table)).map_err(|e| D::Error::custom(e.message().trim_end()))?;
        Ok(Self { generator, channels, chips, fill_fraction })
    }
}
