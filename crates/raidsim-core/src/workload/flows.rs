//! The sources of a flows workload: one synthetic generator per flow, on
//! the flow's part of the device, each with its own random stream.

use super::{HostRequest, RequestSource, SyntheticSource, WorkloadReport};
use crate::config::FlowsConfig;
use crate::error::Result;

/// Stream id of a flow's random numbers, mixed with its index: flow 2's
/// draws never repeat flow 1's from the same config seed.
const FLOW_STREAM: u64 = 0x464c_4f57_0000_0000;

/// One flow's requests, placed on its part of the device.
pub struct FlowSource {
    inner: SyntheticSource,
    /// The first byte of the flow's part.
    base_bytes: u64,
    /// Open loop: no request arrives at or after this instant (0: no limit).
    stop_time_ns: u64,
    ended: bool,
    /// Requests handed out (a draw past the stop time is not one).
    issued: u64,
}

impl FlowSource {
    /// The sources of every flow of `config`, each on its part (`parts`,
    /// from [`FlowsConfig::parts`]: first byte and bytes).
    pub fn all(config: &FlowsConfig, parts: &[(u64, u64)], seed: u64) -> Result<Vec<FlowSource>> {
        if parts.len() != config.flows.len() {
            return Err(crate::Error::Internal(format!("{} flows given {} parts", config.flows.len(), parts.len())));
        }
        config
            .flows
            .iter()
            .zip(parts)
            .enumerate()
            .map(|(i, (flow, &(base_bytes, part)))| {
                let mut cfg = flow.generator.clone();
                if cfg.requests == 0 {
                    cfg.requests = u64::MAX; // until the stop time, which validation requires
                }
                let inner = SyntheticSource::new(&cfg, part, seed ^ FLOW_STREAM ^ i as u64).map_err(|e| crate::config::within_flow(e, i))?;
                Ok(FlowSource { inner, base_bytes, stop_time_ns: config.stop_time_ns, ended: false, issued: 0 })
            })
            .collect()
    }
}

impl RequestSource for FlowSource {
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        if self.ended {
            return Ok(None);
        }
        let next = self.inner.next_request()?;
        match next {
            Some(r) if self.stop_time_ns == 0 || r.arrival_ns < self.stop_time_ns => {
                self.issued += 1;
                Ok(Some(HostRequest { offset_bytes: r.offset_bytes + self.base_bytes, ..r }))
            }
            _ => {
                self.ended = true;
                Ok(None)
            }
        }
    }

    fn progress(&self) -> f64 {
        self.inner.progress()
    }

    fn report(&self) -> WorkloadReport {
        WorkloadReport { requests: self.issued, ..Default::default() }
    }
}
