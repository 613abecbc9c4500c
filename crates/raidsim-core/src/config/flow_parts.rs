//! Where the flows of a flows workload lie: each flow's part of the logical
//! space and, on a single drive, the chips that hold that part and how full
//! it starts — MQSim's per-flow `Channel_IDs`, `Chip_IDs` and
//! `Initial_Occupancy_Percentage` (Tavakkol et al., FAST'18, §3: flows
//! isolated in the back end meet only in the front end's cache and queues).

use super::{Config, FlowsConfig, FtlScheme, MemberConfig, RaidLevel, WorkloadConfig};
use crate::config::{Allocation, CacheWindow};
use crate::error::{Error, Result};
use serde::Serialize;

/// One flow's part of a single drive, in logical pages, as the drive places
/// and preconditions it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DrivePart {
    /// The part's first logical page.
    pub first_lpn: u64,
    /// Logical pages in the part.
    pub pages: u64,
    /// Channels holding the part's pages (empty: striped over the whole drive).
    pub channels: Vec<u32>,
    /// Chips of each of those channels holding them (empty with `channels`).
    pub chips: Vec<u32>,
    /// Share of the part written in order before the run.
    pub fill_fraction: f64,
}

/// The drive's chip grid, for sizing parts by the chips they hold.
#[derive(Clone, Copy, Debug)]
pub struct ChipGrid {
    /// Channels of the drive.
    pub channels: u32,
    /// Chips of a channel that hold data (mirroring chips hold none).
    pub chips_per_channel: u32,
    /// Bytes of a flash page: a part holds whole pages.
    pub page_bytes: u64,
}

impl FlowsConfig {
    /// Each flow's part of a device of `capacity_bytes`: its first byte and
    /// length. Parts are whole multiples of every flow's `alignment_bytes`
    /// (and of the page when flows place their data), so a part's offsets
    /// keep the alignment the flow asks for. Flow i of n takes the i-th
    /// n-th, or, when flows name their chips (`grid` given), a share of the
    /// device in proportion to its chips, in flow order.
    pub fn parts(&self, capacity_bytes: u64, grid: Option<ChipGrid>) -> Vec<(u64, u64)> {
        let n = self.flows.len().max(1) as u64;
        if self.address_space == super::FlowAddressSpace::Shared {
            return vec![(0, capacity_bytes); self.flows.len()];
        }
        let placed = self.flows.iter().any(|f| f.is_placed());
        let unit = match grid {
            Some(g) if placed => lcm(self.part_unit_bytes(), g.page_bytes),
            _ => self.part_unit_bytes(),
        };
        let sharers = grid.map(|g| self.sharers(g));
        let mut start = 0;
        self.flows
            .iter()
            .map(|f| {
                let share = match (grid, &sharers) {
                    (Some(g), Some(sharers)) if f.has_resources() => {
                        // MQSim's share: each chip's capacity divided among the flows on it.
                        let chips = f.chips_in(g);
                        let on_each = u128::from(chips.first().map_or(1, |&c| sharers[c]).max(1));
                        let all = u128::from(u64::from(g.channels) * u64::from(g.chips_per_channel));
                        (u128::from(capacity_bytes) * chips.len() as u128 / (all * on_each)) as u64
                    }
                    _ => capacity_bytes / n,
                };
                let part = (start, share / unit * unit);
                start += part.1;
                part
            })
            .collect()
    }

    /// Per chip of the grid (channel-major), how many flows keep data on it.
    fn sharers(&self, g: ChipGrid) -> Vec<u32> {
        let mut sharers = vec![0; (g.channels * g.chips_per_channel) as usize];
        for f in self.flows.iter().filter(|f| f.has_resources()) {
            f.chips_in(g).into_iter().for_each(|c| sharers[c] += 1);
        }
        sharers
    }
}

impl super::FlowConfig {
    /// The flow's channels (all of them when it names none).
    pub fn channels_of(&self, g: ChipGrid) -> Vec<u32> {
        if self.channels.is_empty() {
            (0..g.channels).collect()
        } else {
            self.channels.clone()
        }
    }

    /// The flow's chips as indices of the grid, channel-major (ids past the grid are left out).
    fn chips_in(&self, g: ChipGrid) -> Vec<usize> {
        let chips = self.chips_of(g);
        self.channels_of(g)
            .iter()
            .flat_map(|&c| chips.iter().map(move |&w| (c, w)))
            .filter(|&(c, w)| c < g.channels && w < g.chips_per_channel)
            .map(|(c, w)| (c * g.chips_per_channel + w) as usize)
            .collect()
    }

    /// The flow's chips in each of its channels (all data chips when it names none).
    pub fn chips_of(&self, g: ChipGrid) -> Vec<u32> {
        if self.chips.is_empty() {
            (0..g.chips_per_channel).collect()
        } else {
            self.chips.clone()
        }
    }
}

/// The least common multiple, capped at 2^40 (see [`FlowsConfig::part_unit_bytes`]).
pub(super) fn lcm(a: u64, b: u64) -> u64 {
    (a / super::gcd(a, b).max(1)).saturating_mul(b).min(1 << 40)
}

/// Each flow's part of the device: its first byte and bytes.
pub type FlowPart = (u64, u64);

/// The flows' parts of the device (empty unless the workload is flows), and
/// the single drive's placed parts (empty unless a flow places or
/// preconditions its data). Refuses, by key, placements a run cannot honour.
pub(super) fn resolve(config: &Config, members: &[MemberConfig], capacity_bytes: u64) -> Result<(Vec<FlowPart>, Vec<DrivePart>)> {
    let WorkloadConfig::Flows(f) = &config.workload else { return Ok((Vec::new(), Vec::new())) };
    check_cache_window(config, f, members)?;
    let Some(placed) = f.flows.iter().position(|f| f.is_placed()) else {
        let parts = f.parts(capacity_bytes, None);
        f.check_spans(&parts, capacity_bytes)?;
        return Ok((parts, Vec::new()));
    };
    let flow = &f.flows[placed];
    let key = format!("workload.flows[{placed}].{}", if flow.has_resources() { flow.resources_key() } else { "fill_fraction" });
    let (ssd, page_bytes) = match members {
        [MemberConfig::Ssd { ssd, .. }] if config.array.level == RaidLevel::Single => (ssd, u64::from(ssd.geometry.page_size_bytes)),
        _ => return Err(Error::config(key, "places a flow's data on one drive's chips: it needs array.level = \"single\" and an SSD")),
    };
    if f.address_space == super::FlowAddressSpace::Shared {
        return Err(Error::config(key, "places each flow's own part: it needs workload.address_space = \"partitioned\""));
    }
    if let Some(i) = f.flows.iter().position(|f| f.fill_fraction.is_some()).filter(|_| ssd.ftl.scheme == FtlScheme::Fast) {
        // FAST's whole-drive fill sets its log blocks up as the fill leaves them; a part-wise fill would
        // go through the log blocks page by page and start from another state.
        return Err(Error::config(
            format!("workload.flows[{i}].fill_fraction"),
            "is not offered with ssd.ftl.scheme = \"fast\": use precondition.fill_fraction",
        ));
    }
    let g = &ssd.geometry;
    let grid = ChipGrid { channels: g.channels, chips_per_channel: g.chips_per_channel - g.mirroring_chips_per_channel, page_bytes };
    if f.flows.iter().any(|f| f.has_resources()) {
        check_resources(f, ssd, grid)?;
    }
    let parts = f.parts(capacity_bytes, Some(grid));
    f.check_spans(&parts, capacity_bytes)?;
    let fill = config.precondition.fill_fraction;
    let drive = f
        .flows
        .iter()
        .zip(&parts)
        .map(|(flow, &(start, len))| DrivePart {
            first_lpn: start / page_bytes,
            pages: len / page_bytes,
            channels: if flow.has_resources() { flow.channels_of(grid) } else { Vec::new() },
            chips: if flow.has_resources() { flow.chips_of(grid) } else { Vec::new() },
            fill_fraction: flow.fill_fraction.unwrap_or(fill),
        })
        .collect();
    Ok((parts, drive))
}

/// A write cache that keeps its window per flow tells flows apart by the
/// requests they send; an array's members are sent the array's own, which
/// carry no flow, so several flows on an array would silently share one
/// window: refused.
fn check_cache_window(config: &Config, f: &FlowsConfig, members: &[MemberConfig]) -> Result<()> {
    let per_flow = members.iter().any(|m| matches!(m, MemberConfig::Ssd { ssd, .. } if ssd.write_cache.window == CacheWindow::PerFlow));
    if per_flow && f.flows.len() > 1 && config.array.level != RaidLevel::Single {
        return Err(Error::config(
            "ssd.write_cache.window",
            "is \"per_flow\", which tells flows apart on a single drive; an array's members see one stream of requests: \
             set it to \"drive\" (mqsim-default sets \"per_flow\")",
        ));
    }
    Ok(())
}

/// Every flow names its chips, each within the drive, and every chip of a
/// flow is shared by as many flows: a flow's pages stripe evenly over its
/// chips, so a chip shared by more flows than another of the same flow
/// would be filled past its share.
fn check_resources(f: &FlowsConfig, ssd: &super::SsdConfig, grid: ChipGrid) -> Result<()> {
    for (i, flow) in f.flows.iter().enumerate() {
        if !flow.has_resources() {
            return Err(Error::config(
                format!("workload.flows[{i}].channels"),
                "is not given while another flow names its channels or chips: give every flow its set",
            ));
        }
        let bad = |key: &str, id: u32, of: u32, what: &str| {
            Error::config(format!("workload.flows[{i}].{key}"), format!("names {id}; the drive has {of} {what}, numbered from 0"))
        };
        if let Some(&c) = flow.channels.iter().find(|&&c| c >= grid.channels) {
            return Err(bad("channels", c, grid.channels, "channels"));
        }
        if let Some(&c) = flow.chips.iter().find(|&&c| c >= grid.chips_per_channel) {
            return Err(bad("chips", c, grid.chips_per_channel, "data chips a channel"));
        }
    }
    let sharers = f.sharers(grid);
    for (i, flow) in f.flows.iter().enumerate() {
        let chips = flow.chips_in(grid);
        let (lo, hi) = chips.iter().fold((u32::MAX, 0), |(lo, hi), &c| (lo.min(sharers[c]), hi.max(sharers[c])));
        if lo != hi {
            let at = |n: u32| {
                chips.iter().find(|&&c| sharers[c] == n).map_or((0, 0), |&c| (c as u32 / grid.chips_per_channel, c as u32 % grid.chips_per_channel))
            };
            let ((c1, w1), (c2, w2)) = (at(lo), at(hi));
            return Err(Error::config(
                format!("workload.flows[{i}].{}", flow.resources_key()),
                format!(
                    "holds chips shared unevenly (chip {w1} of channel {c1} by {lo} flows, chip {w2} of channel {c2} by {hi}): \
                     the flow's pages stripe evenly over its chips and would overfill the more shared; \
                     give every chip of a flow as many sharers"
                ),
            ));
        }
    }
    if ssd.ftl.allocation != Allocation::Static {
        return Err(Error::config(
            "ssd.ftl.allocation",
            "must be \"static\" when flows name their channels or chips (a page's place follows from its number)",
        ));
    }
    if matches!(ssd.ftl.scheme, FtlScheme::Fast | FtlScheme::BlockMap) {
        return Err(Error::config("ssd.ftl.scheme", "must be a page map (\"page_map\" or \"dftl\") when flows name their channels or chips"));
    }
    Ok(())
}
