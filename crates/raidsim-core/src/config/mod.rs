//! One source of truth for configuration.
//!
//! Each component's parameters are one serde struct here, with its default,
//! its unit in the field name and a doc comment (gem5 style). A raw config is
//! a TOML table built from a preset, a file or a dict, with `--set
//! dotted.key=value` overrides applied on top ([`RawConfig`]); it is then
//! deserialized with unknown keys rejected (the error lists the valid ones)
//! and validated into a [`ResolvedConfig`] that carries derived geometry.
//! [`ResolvedConfig::to_toml`] writes it sorted, beside every result.
//!
//! Python never re-declares a default: it hands tables and overrides here.

mod array;
mod array_geometry;
mod cost;
mod erase_suspend;
mod flow_parts;
mod flows;
mod ftl;
mod hdd;
mod log_blocks;
mod mapping_cache;
mod members;
mod memory;
mod parity_distribution;
pub use memory::MAX_FIXED_BUCKETS;
mod presets;
mod raw;
mod rebuild;
mod run_checks;
mod scheduling;
mod slc_cache;
mod ssd;
mod trims;
mod workload;
mod write_cache;

pub use array::{
    ArrayConfig, CacheMode, ControllerConfig, ErasureCode, GcCoordination, MemberFailure, ParityCompute, ParityGranularity, ParityLayout,
    ParityPlacement, RaidLevel, ReadAheadPolicy, ReadPolicy, StripeOrder, WriteMethod,
};
pub use array_geometry::{ArrayGeometry, UnitCopy};
pub use cost::Prices;
pub use erase_suspend::{EraseSuspendConfig, SuspendingOps};
pub use flow_parts::{ChipGrid, DrivePart};
pub use flows::{within_flow, FlowAddressSpace, FlowConfig, FlowsConfig, MAX_FLOWS};
pub use ftl::{Allocation, FtlConfig, GcHolds, GcVictim, WriteFrontiers, MAX_GC_VICTIM_SAMPLE};
pub use hdd::{
    fit_seek_curve, seek_moments, seek_moments_closed_form, seek_table_ns, HddCacheConfig, HddCommandOverhead, HddConfig, HddGeometry, HddZone,
    QueuePolicy, ReadAheadUntil,
};
pub use mapping_cache::{FtlScheme, MappingCacheGeometry};
pub use presets::{preset, preset_names, PRESETS};
pub use raw::RawConfig;
pub use rebuild::{RebuildConfig, RebuildPolicy};
pub use scheduling::{CommandIssue, FlashScheduling, ParallelUnit};
pub use slc_cache::{SlcCacheConfig, SlcWhenFull};
pub use ssd::{bus_bytes, transfer_ns, BufferSlotUntil, BufferUnit, CellType, GeometryConfig, SsdConfig, TimingConfig, WriteAck};
pub use trims::{carries_trims, refuse_trims};
pub use workload::{
    unpack_requests, AddressPattern, ArrivalProcess, OutOfOrder, OutOfRange, RequestTuple, SizeDistribution, SizeKind, SyntheticConfig, TraceConfig,
    TraceFormat, TracePath, TraceReplay, TraceTrims, WorkloadConfig,
};
pub use write_cache::{CacheWindow, WriteCacheConfig};

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Run-wide settings.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// Seed of every random stream of the run (workload, preconditioning).
    pub seed: u64,
    /// Stop after this many host requests have completed (0 = no limit).
    pub max_requests: u64,
    /// The first this many host requests to end warm the drives up and are
    /// not measured, as the RAIS paper warms each drive "with an I/O
    /// pattern identical to that of the experiment" (§4): they run like
    /// the rest, but the host's metrics and time series start when the
    /// `warmup_requests`-th ends, and count every request that ends after
    /// (those in flight then with their whole response time); the devices'
    /// counters restart then (flash wear is kept). They are taken from the
    /// workload: a workload of R requests measures R − `warmup_requests`.
    /// 0 = no warm-up.
    pub warmup_requests: u64,
    /// Refuse a configuration whose estimated memory exceeds this, bytes;
    /// 0 = the memory the machine has available now (`/proc/meminfo`).
    pub memory_limit_bytes: u64,
    /// Stop with an error when this many host requests are outstanding at
    /// once: an open-loop load beyond what the drives serve would otherwise
    /// queue without bound (about 50 bytes each).
    pub max_outstanding_requests: u64,
    /// Stop when the mean response time is known to a given precision.
    pub stop: StopConfig,
    /// Members hold real bytes: host writes carry a pattern from (address,
    /// version), parity is computed on them with `raidsim-codes`, degraded
    /// reads and rebuilds decode them, and every read is checked (small
    /// configurations: the bytes are kept in memory). Timing is unchanged.
    pub verify: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            max_requests: 0,
            warmup_requests: 0,
            memory_limit_bytes: 0,
            max_outstanding_requests: 10_000_000,
            stop: StopConfig::default(),
            verify: false,
        }
    }
}

/// Stop issuing requests once the mean response time lies within
/// `relative_half_width` of the true mean at `confidence`, by batch means
/// (Chen & Lee 1995: 5 % at 95 %); see [`crate::metrics::stop`]. What is
/// outstanding then drains and is reported with the rest.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct StopConfig {
    /// Half-width of the interval as a fraction of the mean; 0 = the rule is off.
    pub relative_half_width: f64,
    /// Confidence level of the interval (0.95 = 95 %).
    pub confidence: f64,
    /// Requests per batch at the start (batches double as the run grows).
    pub batch_requests: u64,
    /// Never stop before this many requests have completed.
    pub min_requests: u64,
    /// Stop here even if the interval is still wider (reported as not converged).
    pub max_requests: u64,
}

impl Default for StopConfig {
    fn default() -> Self {
        Self { relative_half_width: 0.0, confidence: 0.95, batch_requests: 50, min_requests: 2_000, max_requests: 1_000_000 }
    }
}

impl StopConfig {
    fn validate(&self) -> Result<()> {
        if !(self.relative_half_width >= 0.0 && self.relative_half_width < 1.0) {
            return Err(Error::config("sim.stop.relative_half_width", "must lie in [0, 1) (0 = off)"));
        }
        if !(self.confidence > 0.5 && self.confidence < 1.0) {
            return Err(Error::config("sim.stop.confidence", "must lie in (0.5, 1)"));
        }
        if self.batch_requests == 0 {
            return Err(Error::config("sim.stop.batch_requests", "must be > 0"));
        }
        if self.max_requests < self.min_requests || self.max_requests == 0 {
            return Err(Error::config("sim.stop.max_requests", "must be > 0 and at least sim.stop.min_requests"));
        }
        Ok(())
    }
}

/// Aging the drive before the measured run starts.
///
/// The CR5M paper measures at 0-85 % initial use; DiskSim and MQSim users
/// precondition by hand. The fill is sequential over logical pages, then
/// uniformly random overwrites of the filled pages age the block layout,
/// then sequential overwrites (again from the first page, wrapping) bring a
/// drive to the steady state a long sequential workload leaves: the
/// over-provisioned free pool used up, so garbage collection runs from the
/// first measured write (the RAIS paper's drives, warmed "with the same
/// pattern"). A fresh fill alone leaves the whole spare area free, and a
/// sequential run shorter than it never collects.
/// Preconditioning takes no simulated time; device counters are reset after
/// it, block erase counts (the wear) are kept.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PreconditionConfig {
    /// Fraction of the logical space written sequentially before the run (0..=1).
    pub fill_fraction: f64,
    /// Random overwrites after the fill, as a multiple of the filled pages
    /// (1.0 = as many overwrites as filled pages).
    pub random_overwrite_factor: f64,
    /// Sequential overwrites after the random ones, as a multiple of the
    /// filled pages (0.1 = the first tenth of them rewritten in order).
    pub sequential_overwrite_factor: f64,
}

impl Default for PreconditionConfig {
    fn default() -> Self {
        Self { fill_fraction: 0.0, random_overwrite_factor: 0.0, sequential_overwrite_factor: 0.0 }
    }
}

/// What the report measures beyond the fixed host and device statistics.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// Width of one time-series bucket in ns; 0 = choose so the run spans
    /// about 100 buckets (decided after the run from its duration).
    pub interval_ns: u64,
    /// Bins of the per-block erase-count histogram.
    pub erase_histogram_bins: u32,
    /// A Parquet file to write one row per measured host request to
    /// (arrival, op, offset, length, completion, response, served); empty =
    /// none. The core keeps the rows (34 bytes each; about 80 at the peak,
    /// with the copies made to write the file); the Python package and
    /// the CLI write the file when the run ends.
    #[schemars(with = "String")]
    pub request_log: TracePath,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        Self { interval_ns: 0, erase_histogram_bins: 20, request_log: TracePath::default() }
    }
}

/// A complete simulation configuration.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Run-wide settings.
    pub sim: SimConfig,
    /// What kind of device the members are.
    pub member: MemberSelection,
    /// The SSD under test (every array member, unless `array.member_ssd`
    /// says otherwise), when `member.kind = "ssd"`.
    pub ssd: SsdConfig,
    /// The hard disk of every member, when `member.kind = "hdd"`.
    pub hdd: HddConfig,
    /// The array controller (`level = "single"`: one SSD, no array).
    pub array: ArrayConfig,
    /// Reconstruction of failed members onto spares.
    pub rebuild: RebuildConfig,
    /// Drive aging before the run.
    pub precondition: PreconditionConfig,
    /// Report options.
    pub metrics: MetricsConfig,
    /// The I/O the host issues.
    pub workload: WorkloadConfig,
}

/// The JSON Schema of [`Config`], generated from these declarations (each
/// field's type, default and doc comment): what `raidsim keys` lists, so
/// the list of keys is never written twice.
pub fn config_schema_json() -> Result<String> {
    serde_json::to_string(&schemars::schema_for!(Config)).map_err(|e| Error::Internal(format!("the config schema does not serialise: {e}")))
}

/// The kind of device every member of the array is (one kind per array).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MemberKind {
    /// A flash SSD, set by `[ssd]`.
    #[default]
    Ssd,
    /// A hard disk, set by `[hdd]`.
    Hdd,
}

/// `[member]`: what the array is built of.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MemberSelection {
    /// `"ssd"` (parameters in `[ssd]`) or `"hdd"` (parameters in `[hdd]`).
    pub kind: MemberKind,
}

/// Quantities derived from the SSD geometry during validation.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DerivedGeometry {
    /// Dies in the drive (channels × chips × dies per chip).
    pub dies: u32,
    /// Planes in the drive.
    pub planes: u32,
    /// Flash blocks in the drive.
    pub blocks: u64,
    /// Physical flash pages.
    pub physical_pages: u64,
    /// Pages the host can address (physical less over-provisioning).
    pub logical_pages: u64,
    /// Host-visible capacity in bytes.
    pub capacity_bytes: u64,
    /// Free blocks per plane below which garbage collection runs.
    pub gc_threshold_blocks: u32,
    /// Free blocks per plane, less those whose erase is owed, below which
    /// collection stops yielding (`ssd.ftl.gc_hard_threshold_fraction`).
    pub gc_hard_threshold_blocks: Option<u32>,
    /// Time to move one page over a channel, ns.
    pub page_transfer_ns: u64,
    /// The cached map's sizes (`ssd.ftl.scheme = "dftl"`).
    pub mapping_cache: MappingCacheGeometry,
}

/// One array member, resolved.
// Built once per member when a run is resolved, never on the hot path:
// the SSD's larger settings cost nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MemberConfig {
    /// A flash SSD.
    Ssd {
        /// Its SSD settings (`[ssd]` with its `array.member_ssd` entry merged in).
        ssd: SsdConfig,
        /// Its derived geometry.
        geometry: DerivedGeometry,
    },
    /// A hard disk.
    Hdd {
        /// Its settings (`[hdd]`).
        hdd: HddConfig,
        /// Its derived geometry and seek curve.
        geometry: HddGeometry,
    },
}

impl MemberConfig {
    /// Bytes the member exposes.
    pub fn capacity_bytes(&self) -> u64 {
        match self {
            MemberConfig::Ssd { geometry, .. } => geometry.capacity_bytes,
            MemberConfig::Hdd { geometry, .. } => geometry.capacity_bytes,
        }
    }

    /// The member's unit of reading and writing, bytes: a flash page, or a
    /// disk sector. Array page counts are made in the smallest of them.
    pub fn page_bytes(&self) -> u64 {
        match self {
            MemberConfig::Ssd { ssd, .. } => u64::from(ssd.geometry.page_size_bytes),
            MemberConfig::Hdd { geometry, .. } => geometry.bytes_per_sector,
        }
    }

    /// Requests the member serves at once.
    pub fn queue_depth(&self) -> u32 {
        match self {
            MemberConfig::Ssd { ssd, .. } => ssd.queue_depth,
            MemberConfig::Hdd { .. } => 1,
        }
    }

    /// Pages the host can address on an SSD (what preconditioning writes); 0 for a disk.
    pub fn logical_pages(&self) -> u64 {
        match self {
            MemberConfig::Ssd { geometry, .. } => geometry.logical_pages,
            MemberConfig::Hdd { .. } => 0,
        }
    }
}

/// A validated configuration with its derived quantities.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedConfig {
    /// The configuration, every field filled in.
    pub config: Config,
    /// Derived geometry of the `[ssd]` drive (of the defaults when the
    /// members are disks).
    pub geometry: DerivedGeometry,
    /// Every member, in index order (one for `level = "single"`), then the
    /// hot spares (`array.spares`).
    pub members: Vec<MemberConfig>,
    /// Bytes the host can address (the drive's, or the array's).
    pub capacity_bytes: u64,
    /// What the drives and controller cost (`None`: nothing is priced).
    pub prices: Option<Prices>,
    /// A flows workload: each flow's part of the device, (first byte, bytes).
    pub flow_parts: Vec<(u64, u64)>,
    /// The single drive's flows that place or precondition their own part
    /// (empty: none does, and the drive is one space).
    pub drive_parts: Vec<DrivePart>,
}

impl ResolvedConfig {
    /// Validates `config` and derives its geometry.
    pub fn new(config: Config) -> Result<Self> {
        let geometry = config.ssd.validate()?;
        config.workload.validate()?;
        config.array.validate()?;
        config.rebuild.validate(config.array.level)?;
        if config.sim.verify && config.array.level == RaidLevel::Single {
            return Err(Error::config(
                "sim.verify",
                "checks an array's bytes; a single drive has none to check (use level \"raid0\" with members = 1)",
            ));
        }
        if config.sim.verify && config.array.parity_granularity == ParityGranularity::Disksim {
            return Err(Error::config(
                "sim.verify",
                "array.parity_granularity = \"disksim\" counts DiskSim's parity I/O, which is not correct on real data (a partly written unit counts as whole): verify another granularity",
            ));
        }
        if config.sim.max_outstanding_requests == 0 {
            return Err(Error::config("sim.max_outstanding_requests", "must be at least 1 (it stops a run whose queue grows past it)"));
        }
        validate_precondition(&config.precondition, fills_any(&config))?;
        config.sim.stop.validate()?;
        validate_warmup(&config)?;
        let members = members::resolve_members(&config)?;
        trims::refuse_listed_trims(&config, &members)?;
        let page = members.iter().map(MemberConfig::page_bytes).max().unwrap_or(4096);
        if config.array.level != RaidLevel::Single && config.array.stripe_unit_bytes % page != 0 {
            let what = match config.member.kind {
                MemberKind::Ssd => "flash pages: a page would hold parts of two stripe units",
                MemberKind::Hdd => "disk sectors: a sector would hold parts of two stripe units",
            };
            return Err(Error::config(
                "array.stripe_unit_bytes",
                format!("{} bytes is not a whole number of {page}-byte {what}", config.array.stripe_unit_bytes),
            ));
        }
        let n = config.array.members as usize;
        let (array_members, spares) = members.split_at(n.min(members.len()));
        let member_capacity = smallest_capacity(array_members);
        if let Some(small) = spares.iter().map(MemberConfig::capacity_bytes).find(|&c| c < member_capacity) {
            return Err(Error::config(
                "array.spares",
                format!(
                    "a spare (the [ssd]/[hdd] drive, {small} bytes) is smaller than the smallest member ({member_capacity} bytes): it \
                     could not take a member's place; give [ssd] the members' size or drop the spares"
                ),
            ));
        }
        let capacity_bytes = if config.array.level == RaidLevel::Single {
            member_capacity
        } else {
            let g = ArrayGeometry::new(&config.array, member_capacity);
            if g.rows == 0 {
                return Err(Error::config("array.stripe_unit_bytes", "is larger than a member"));
            }
            if g.stripes() == 0 {
                // RAID-10 with an odd number of members: a stripe spans two rows of units.
                return Err(Error::config(
                    "array.stripe_unit_bytes",
                    format!(
                        "{} bytes leaves no whole stripe ({} data bytes) on members of {member_capacity} bytes: make the unit smaller",
                        g.unit_bytes,
                        g.stripe_data_bytes()
                    ),
                ));
            }
            g.capacity_bytes()
        };
        match &config.workload {
            WorkloadConfig::Synthetic(s) => {
                s.span_within(capacity_bytes)?;
            }
            WorkloadConfig::Requests { requests, packed } => run_checks::listed_requests(requests, packed, capacity_bytes, config.sim.verify)?,
            WorkloadConfig::Flows(_) => {} // with their parts, below
            WorkloadConfig::Trace(_) => {}
        }
        run_checks::request_log(&config.metrics.request_log)?;
        let (flow_parts, drive_parts) = flow_parts::resolve(&config, &members, capacity_bytes)?;
        let prices = Prices::of(&config, &members)?;
        let resolved = Self { config, geometry, members, capacity_bytes, prices, flow_parts, drive_parts };
        memory::check(&resolved)?;
        Ok(resolved)
    }

    /// Bytes of the smallest member: every member holds that many rows of
    /// stripe units (spares, at least as large, hold the same).
    pub fn member_capacity_bytes(&self) -> u64 {
        smallest_capacity(&self.members[..(self.config.array.members as usize).min(self.members.len())])
    }

    /// What a host request crosses before and after the array controller
    /// plans it: `(controller overhead, ns; host link, bytes/s, 0 = none)`.
    /// An array of drives has its controller's overhead and no link model
    /// (each drive has its own); inside one SSD (`cr5`) the SSD's
    /// controller and host link are shared by every channel, so they stand
    /// in front of the array, once per request.
    pub fn array_front_end(&self) -> (u64, u64) {
        let (array, t) = (&self.config.array, &self.config.ssd.timing);
        if array.level.inside_one_ssd() {
            (array.controller.overhead_ns + t.controller_overhead_ns, t.host_link_bandwidth_bytes_per_s)
        } else {
            (array.controller.overhead_ns, array.controller.host_link_bytes_per_s)
        }
    }

    /// The smallest member page (or sector), the unit array page counts are made in.
    pub fn member_page_bytes(&self) -> u64 {
        self.members.iter().map(MemberConfig::page_bytes).min().unwrap_or(4096)
    }

    /// The resolved configuration as sorted TOML, with a `[derived]` table,
    /// for writing beside results. Only the table of the members' kind is
    /// written (`[ssd]` or `[hdd]`), so the file resolves again as it is.
    pub fn to_toml(&self) -> Result<String> {
        let broken = |what: &str, e: &dyn std::fmt::Display| Error::Internal(format!("the resolved config does not serialise ({what}): {e}"));
        let mut table = toml::Table::try_from(&self.config).map_err(|e| broken("config", &e))?;
        let mut derived = match (self.config.member.kind, self.members.first()) {
            (MemberKind::Hdd, Some(MemberConfig::Hdd { geometry, .. })) => {
                table.remove("ssd");
                toml::Table::try_from(geometry).map_err(|e| broken("derived disk geometry", &e))?
            }
            (MemberKind::Ssd, _) => {
                table.remove("hdd");
                toml::Table::try_from(&self.geometry).map_err(|e| broken("derived geometry", &e))?
            }
            (kind, _) => return Err(broken("members", &format!("member.kind = {kind:?} but the first member is not one"))),
        };
        if let Some(toml::Value::Table(array)) = table.get_mut("array") {
            if self.config.member.kind == MemberKind::Hdd {
                array.remove("member_ssd");
            }
        }
        let capacity = i64::try_from(self.capacity_bytes).map_err(|e| broken("host capacity", &e))?;
        derived.insert("host_capacity_bytes".into(), toml::Value::Integer(capacity));
        table.insert("derived".into(), toml::Value::Table(derived));
        toml::to_string(&table).map_err(|e| broken("TOML", &e))
    }
}

fn smallest_capacity(members: &[MemberConfig]) -> u64 {
    members.iter().map(MemberConfig::capacity_bytes).min().unwrap_or(0)
}

/// A warm-up as long as the run is refused before it runs, where the
/// run's length is known (a trace's is not: that run ends with the error).
fn validate_warmup(config: &Config) -> Result<()> {
    let warmup = config.sim.warmup_requests;
    if warmup == 0 {
        return Ok(()); // nothing to check, and a packed request list is not decoded twice
    }
    let issued = match &config.workload {
        WorkloadConfig::Synthetic(s) => Some(s.requests),
        WorkloadConfig::Requests { requests, packed } if packed.is_empty() => Some(requests.len() as u64),
        WorkloadConfig::Requests { requests, packed } => Some((requests.len() + workload::unpack_requests(packed)?.len()) as u64),
        WorkloadConfig::Flows(f) => f.requests(),
        WorkloadConfig::Trace(_) => None,
    };
    let limit = [issued, (config.sim.max_requests > 0).then_some(config.sim.max_requests)].into_iter().flatten().min();
    match limit {
        Some(n) if n <= warmup => Err(Error::config(
            "sim.warmup_requests",
            format!("{warmup} warm-up requests but the run issues {n}: none would be measured (the warm-up is taken from the workload)"),
        )),
        _ => Ok(()),
    }
}

/// The most overwrite passes preconditioning takes (`precondition.*_overwrite_factor`).
pub const MAX_OVERWRITE_FACTOR: f64 = 1000.0;

/// The greatest common divisor.
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Whether preconditioning fills any page: by `precondition.fill_fraction`,
/// or, when flows place or fill their own parts, by any part's fill.
fn fills_any(config: &Config) -> bool {
    let global = config.precondition.fill_fraction;
    match &config.workload {
        WorkloadConfig::Flows(f) if f.flows.iter().any(|f| f.is_placed()) => f.flows.iter().any(|f| f.fill_fraction.unwrap_or(global) > 0.0),
        _ => global > 0.0,
    }
}

/// `fills`: preconditioning fills some page ([`fills_any`]).
fn validate_precondition(p: &PreconditionConfig, fills: bool) -> Result<()> {
    if !(0.0..=1.0).contains(&p.fill_fraction) {
        return Err(Error::config("precondition.fill_fraction", "must lie in [0, 1]"));
    }
    // A thousand passes over a drive is far past any steady state, and
    // bounds the page count (it could overflow or run for days).
    for (key, factor) in [
        ("precondition.random_overwrite_factor", p.random_overwrite_factor),
        ("precondition.sequential_overwrite_factor", p.sequential_overwrite_factor),
    ] {
        if !(0.0..=MAX_OVERWRITE_FACTOR).contains(&factor) {
            return Err(Error::config(
                key,
                format!("must be a finite number >= 0 and at most {MAX_OVERWRITE_FACTOR} (passes over the filled pages)"),
            ));
        }
        if factor > 0.0 && !fills {
            let why = if p.fill_fraction == 0.0 {
                "precondition.fill_fraction = 0 fills none"
            } else {
                "the flows' own fill_fraction, which replaces precondition.fill_fraction on their parts, fills none"
            };
            return Err(Error::config(key, format!("overwrites filled pages, and {why}: set a fill")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_lists_valid_ones() {
        let mut raw = RawConfig::new();
        raw.set("ssd.geometry.chanels=4").expect("override parses");
        let err = raw.resolve().expect_err("unknown key must be rejected").to_string();
        assert!(err.contains("ssd.geometry"), "{err}");
        assert!(err.contains("chanels") && err.contains("channels"), "{err}");
    }

    #[test]
    fn overrides_parse_toml_values() {
        let mut raw = RawConfig::new();
        raw.set("ssd.geometry.channels=4").expect("int");
        raw.set("ssd.ftl.gc_victim=cost_benefit").expect("bare string");
        let resolved = raw.resolve().expect("valid");
        assert_eq!(resolved.config.ssd.geometry.channels, 4);
        assert_eq!(resolved.config.ssd.ftl.gc_victim, GcVictim::CostBenefit);
    }

    #[test]
    fn every_preset_resolves() {
        for name in preset_names() {
            RawConfig::from_preset(name).and_then(|r| r.resolve()).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
