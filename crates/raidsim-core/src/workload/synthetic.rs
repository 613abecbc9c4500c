//! The synthetic generator: arrivals, read/write mix, sizes, addresses.
//!
//! Open loop, arrivals follow a Poisson, fixed or uniform process. Closed
//! loop (`processes > 0`), the simulation issues each process's next request
//! when its last completes; this source then supplies only what to issue.

use super::HostOp;
use super::{HostRequest, RequestSource, SizeSampler, WorkloadReport};
use crate::config::{AddressPattern, ArrivalProcess, SyntheticConfig};
use crate::engine::Ns;
use crate::error::{Error, Result};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Stream id mixed into the seed so the workload's random numbers never
/// coincide with another component's drawn from the same config seed.
const WORKLOAD_STREAM: u64 = 0x5752_4b4c_4f41_4400;

/// Synthetic request generator.
pub struct SyntheticSource {
    cfg: SyntheticConfig,
    sizes: SizeSampler,
    rng: Xoshiro256PlusPlus,
    span_start: u64,
    span_bytes: u64,
    now_ns: Ns,
    next_sequential: u64,
    issued: u64,
}

impl SyntheticSource {
    /// A generator over a device of `capacity_bytes`.
    pub fn new(cfg: &SyntheticConfig, capacity_bytes: u64, seed: u64) -> Result<Self> {
        let span_bytes = cfg.span_within(capacity_bytes)?;
        let sizes = SizeSampler::new(&cfg.size, cfg.alignment_bytes)?;
        Ok(Self {
            cfg: cfg.clone(),
            sizes,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ WORKLOAD_STREAM),
            span_start: cfg.start_bytes,
            span_bytes,
            now_ns: 0,
            next_sequential: cfg.start_bytes,
            issued: 0,
        })
    }

    fn interarrival(&mut self) -> Ns {
        let mean = self.cfg.mean_interarrival_ns as f64;
        match self.cfg.arrival {
            ArrivalProcess::Fixed => self.cfg.mean_interarrival_ns,
            ArrivalProcess::Uniform => self.rng.gen_range(0.0..=2.0 * mean).round() as Ns,
            ArrivalProcess::Poisson => Exp::new(1.0 / mean.max(1e-9)).map(|e| e.sample(&mut self.rng)).unwrap_or(0.0).round() as Ns,
        }
    }

    /// A uniformly chosen aligned offset in `[lo, lo + len)` that fits `size`.
    fn uniform_in(&mut self, lo: u64, len: u64, size: u64) -> u64 {
        if len < size {
            // A region too small for this request (a tiny cold region): use the whole span.
            return self.uniform_in(self.span_start, self.span_bytes, size);
        }
        let a = self.cfg.alignment_bytes;
        let slots = len.saturating_sub(size) / a + 1;
        lo + a * self.rng.gen_range(0..slots)
    }

    fn offset(&mut self, size: u64) -> u64 {
        let (start, span) = (self.span_start, self.span_bytes);
        let continues = self.issued > 0
            && self.cfg.sequential_fraction > 0.0
            && self.rng.gen_bool(self.cfg.sequential_fraction)
            && self.next_sequential + size <= start + span;
        if continues && self.cfg.address != AddressPattern::Sequential {
            return self.next_sequential;
        }
        match self.cfg.address {
            AddressPattern::Uniform => self.uniform_in(start, span, size),
            AddressPattern::Sequential => {
                if self.next_sequential + size > start + span {
                    self.next_sequential = start;
                }
                self.next_sequential
            }
            AddressPattern::HotCold => {
                let a = self.cfg.alignment_bytes;
                let hot = ((span as f64 * self.cfg.hot_fraction) as u64 / a * a).max(size.min(span));
                if self.rng.gen_bool(self.cfg.hot_access_fraction) || hot >= span {
                    self.uniform_in(start, hot, size)
                } else {
                    self.uniform_in(start + hot, span - hot, size)
                }
            }
        }
    }
}

impl SyntheticSource {
    /// The next request's op. A trim is drawn among the non-reads, and only
    /// when trims are asked for, so a workload without them draws as before.
    fn op(&mut self) -> HostOp {
        let read = self.cfg.read_fraction;
        if self.rng.gen_bool(read) {
            HostOp::Read
        } else if self.cfg.trim_fraction > 0.0 && self.rng.gen_bool((self.cfg.trim_fraction / (1.0 - read)).min(1.0)) {
            HostOp::Trim
        } else {
            HostOp::Write
        }
    }
}

impl RequestSource for SyntheticSource {
    fn next_request(&mut self) -> Result<Option<HostRequest>> {
        if self.issued >= self.cfg.requests {
            return Ok(None);
        }
        if self.cfg.processes == 0 && self.issued > 0 {
            self.now_ns += self.interarrival();
            if self.now_ns > crate::engine::MAX_TIME_NS {
                return Err(Error::Workload(format!(
                    "request {} would arrive past 2^62 ns (146 years): fewer requests or a shorter workload.mean_interarrival_ns",
                    self.issued
                )));
            }
        }
        let op = self.op();
        let size = self.sizes.sample(&mut self.rng)?;
        if size > self.span_bytes {
            return Err(Error::Workload(format!("request size {size} exceeds the {}-byte address span", self.span_bytes)));
        }
        let offset_bytes = self.offset(size);
        self.next_sequential = offset_bytes + size;
        let id = self.issued;
        self.issued += 1;
        Ok(Some(HostRequest { id, arrival_ns: self.now_ns, op, offset_bytes, len_bytes: size, think_ns: 0 }))
    }

    fn progress(&self) -> f64 {
        self.issued as f64 / self.cfg.requests.max(1) as f64
    }

    fn report(&self) -> WorkloadReport {
        WorkloadReport { requests: self.issued, ..Default::default() }
    }
}
