//! Parameters of the array controller: level, geometry, policies, failures.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The most members an array may have (each is a whole simulated drive).
pub const MAX_MEMBERS: u32 = 100_000;

/// RAID level.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RaidLevel {
    /// No array: the host talks to one SSD (`members` must be 1).
    Single,
    /// Striping, no redundancy.
    Raid0,
    /// n-way mirror: every member holds all data.
    Raid1,
    /// Striped mirrors, Linux md's "near" layout with `copies` copies.
    Raid10,
    /// Striping with dedicated parity on the last member.
    Raid4,
    /// Striping with rotated parity.
    Raid5,
    /// Striping with rotated P and Q parity (Reed–Solomon P+Q, Linux md).
    Raid6,
    /// RAID-5 across the channels of one SSD (Pan & Xie 2018, "CR5"): each
    /// member is one channel of the `[ssd]` — its chips and its bus — and
    /// the SSD's host link and controller are shared in front of them.
    Cr5,
    /// CR5 with a mirroring chip on each channel (Pan & Xie 2018, "CR5M",
    /// Algorithm 1): a partial-stripe write may write its pages to their
    /// data chips and to their channels' mirroring chips instead of
    /// updating parity (`array.mw_limit`).
    Cr5m,
}

/// Parity rotation of RAID-5/6, Linux md's algorithms (drivers/md/raid5.c).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParityLayout {
    /// md's default: parity moves left, data restarts after it.
    LeftSymmetric,
    /// Parity moves left, data in member order skipping it.
    LeftAsymmetric,
    /// Parity moves right, data restarts after it.
    RightSymmetric,
    /// Parity moves right, data in member order skipping it.
    RightAsymmetric,
}

/// The RAID-6 code (Alinezhad Chamazcoti et al. 2015 compare the three).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErasureCode {
    /// Reed–Solomon P+Q, Linux md's RAID-6 (one row per codeword).
    Rs,
    /// EVENODD (codeword of p − 1 rows).
    Evenodd,
    /// Row-Diagonal Parity (codeword of p − 1 rows).
    Rdp,
}

/// Where RAID-6 parity lives.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParityPlacement {
    /// Rotated per stripe (RS: md's `layout`) or per codeword (EVENODD, RDP: left-symmetric).
    Rotated,
    /// Row parity on member n − 2 and second parity on member n − 1 (the erasure-code paper's set-up).
    Dedicated,
}

/// At which granularity a partial-stripe write picks read-modify-write or
/// reconstruct-write, and over which bytes its parity I/O runs.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParityGranularity {
    /// Per row of pages across the stripe, fewer pre-reads wins, ties to
    /// reconstruct-write: Linux md, which decides per 4 KiB `stripe_head`.
    Page,
    /// Per stripe over whole stripe units: the stripe-unit paper's analytic
    /// model (its Eqs. 1-3 count whole units). No real controller we know
    /// of works this way; it is kept to evaluate those equations.
    WholeUnit,
    /// DiskSim's rule (`disksim_redun.c`): per stripe row, a partial row
    /// writing fewer than `floor(rmw_threshold_fraction × members)` units is
    /// read-modify-write, otherwise reconstruct-write; every parity I/O of the
    /// row covers only the row's written extent (lowest to highest written
    /// unit-relative offset). RAID-4/5 and Reed–Solomon RAID-6 only.
    Disksim,
}

/// How a partial-stripe write updates parity.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WriteMethod {
    /// The method with fewer pre-reads; ties go to reconstruct-write (Linux md, the CR5M paper).
    Auto,
    /// Always read-modify-write (old data and parity, when possible).
    Rmw,
    /// Always reconstruct-write (the untouched data, when possible).
    Rcw,
}

/// How the stripes of one request are served.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StripeOrder {
    /// All stripes at once.
    Parallel,
    /// One stripe after another.
    Sequential,
}

/// Which copy a RAID-1/10 read goes to.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReadPolicy {
    /// The first surviving copy.
    Primary,
    /// Copies in turn.
    RoundRobin,
    /// The copy whose member has the fewest operations outstanding.
    ShortestQueue,
}

/// A member failing during the run: give exactly one of `at_ns`,
/// `at_request` and `at_random_mean_ns`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemberFailure {
    /// Member index.
    pub member: u32,
    /// When it fails, ns of simulated time (0 = from the start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_ns: Option<u64>,
    /// It fails when the host request with this index (0-based, in issue
    /// order) arrives, before that request is served; the CR5M paper fails
    /// a chip at the middle request of its traces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_request: Option<u64>,
    /// It fails at a time drawn from an exponential distribution with this
    /// mean, ns, seeded from `sim.seed` and the failure's index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_random_mean_ns: Option<u64>,
    /// `cr5`/`cr5m`: the chip of channel `member` that fails (0-based
    /// within the channel; in `cr5m` the last is the mirroring chip). Its
    /// pages are lost and rebuilt onto the channel's spare chip (the CR5M
    /// paper, §3.2). Other levels lose whole members and take no `chip`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chip: Option<u32>,
}

impl MemberFailure {
    /// True when the failure is there before the first request.
    pub fn at_start(&self) -> bool {
        self.at_ns == Some(0) || self.at_request == Some(0)
    }
}

/// When the controller reads beyond what the host asked (LSI MegaRAID's
/// "No Read Ahead", "Always Read Ahead" and "Adaptive Read Ahead"; see
/// `array::read_ahead`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReadAheadPolicy {
    /// Never (the RAIS paper's setting, its Table 1).
    Off,
    /// After every host read.
    Always,
    /// After a host read that starts where the previous one ended.
    Adaptive,
}

/// How the controller's parity engine is charged (see
/// `array::planner::ComputeWork`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParityCompute {
    /// Parity bytes written, at `xor_bytes_per_s`, whatever the code: one
    /// engine pass per parity byte (the default; decoding is free).
    ParityBytes,
    /// The code's own work: XORs at `xor_bytes_per_s` and Reed–Solomon's
    /// GF(2^8) multiplies at `gf_mul_bytes_per_s`, counted from the
    /// structure of each stripe plan (encode, update, decode). The
    /// erasure-code paper leaves computation out (its §3.1.1); this shows
    /// what it would add.
    CodeOps,
}

/// When the controller acknowledges a host write.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CacheMode {
    /// When the members have written it (no cache; the RAIS paper's LSI
    /// MegaRAID default, its Table 1).
    WriteThrough,
    /// When its data is in the controller's cache (`cache_bytes`); the
    /// members are written behind (see `array::cache`).
    WriteBack,
}

/// How the members' garbage collections are scheduled.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GcCoordination {
    /// Each SSD collects when its own planes run short, unaware of the
    /// others (commodity drives; the RAIS paper's §5.3 blames the array's
    /// bandwidth swings on this).
    Local,
    /// Harmonia (Kim et al., "Harmonia: A Globally Coordinated Garbage
    /// Collector for Arrays of Solid-State Drives", MSST 2011): when one
    /// member begins a collection, the controller has every member collect
    /// at once, each plane up to `array.gc_forced_free_fraction` free
    /// blocks, so that their collections overlap instead of stalling the
    /// array one member at a time.
    Global,
}

/// The RAID controller's own hardware (the RAIS paper used an LSI MegaRAID
/// SAS 9260-8i: PCIe 2.0 x8, eight SATA/SAS ports, 512 MB of cache, a RAID
/// engine for XOR and P+Q). The default is a controller that costs no time:
/// software RAID on a fast host.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ControllerConfig {
    /// Controller time per host request before any member I/O, ns.
    /// Requests overlap in it.
    pub overhead_ns: u64,
    /// Parity engine speed (XOR, and P+Q for RAID-6), bytes of parity per
    /// second under `parity_compute = "parity_bytes"`; bytes XORed into an
    /// accumulator per second under `"code_ops"`. 0 = instant.
    pub xor_bytes_per_s: u64,
    /// How parity computation is charged.
    pub parity_compute: ParityCompute,
    /// `code_ops`: bytes multiplied by a GF(2^8) constant and accumulated
    /// per second (Reed–Solomon's Q); `cargo bench -p raidsim-codes --bench
    /// region_ops` measures this machine's. 0 under `parity_bytes`.
    pub gf_mul_bytes_per_s: u64,
    /// The link between the host and the controller (PCIe), bytes per
    /// second, shared by reads and writes; 0 = infinitely fast. `cr5`/`cr5m`
    /// use the SSD's `host_link_bandwidth_bytes_per_s` instead.
    pub host_link_bytes_per_s: u64,
    /// Write-through or write-back.
    pub cache: CacheMode,
    /// The controller's cache memory, bytes: written data under
    /// `write_back` (a write larger than it is written through), data read
    /// ahead under `read_ahead`.
    pub cache_bytes: u64,
    /// Reading ahead of host reads into the cache.
    pub read_ahead: ReadAheadPolicy,
    /// Bytes read ahead at once, from where a host read ends (or the data
    /// already read ahead of it ends); the controller keeps this much ahead
    /// of a read.
    pub read_ahead_bytes: u64,
    /// Drive ports (SATA/SAS): members and spares must fit; 0 = no limit.
    pub ports: u32,
    /// Partial-stripe writes (read-modify-write or reconstruct-write) the
    /// controller works on at once, from their pre-reads to their last
    /// write; the rest wait in order. Full-stripe writes, which read
    /// nothing first, are not held. 0 = no limit. The RAIS paper's RAID-5/6 random writes stay flat with
    /// queue depth while RAID-0's scale (its Figure 4b, d): a controller
    /// that, writing through, holds one stripe update in its RAID engine at
    /// a time behaves so. The paper does not say why; this is the model's
    /// reading of it, not a documented LSI parameter.
    pub parity_updates_at_once: u32,
    /// Purchase price of the RAID controller, US dollars (the RAIS paper's
    /// Table 6: $579), added to the drives' in the report's cost efficiency;
    /// 0 = none (software RAID, or unpriced).
    pub price_usd: f64,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        Self {
            overhead_ns: 0,
            xor_bytes_per_s: 0,
            parity_compute: ParityCompute::ParityBytes,
            gf_mul_bytes_per_s: 0,
            host_link_bytes_per_s: 0,
            cache: CacheMode::WriteThrough,
            cache_bytes: 0,
            read_ahead: ReadAheadPolicy::Off,
            read_ahead_bytes: 0,
            ports: 0,
            parity_updates_at_once: 0,
            price_usd: 0.0,
        }
    }
}

impl ControllerConfig {
    fn validate(&self, array: &ArrayConfig) -> Result<()> {
        super::ssd::at_most_an_hour("array.controller.overhead_ns", self.overhead_ns)?;
        match (self.cache, self.cache_bytes) {
            (CacheMode::WriteBack, 0) => {
                return Err(Error::config("array.controller.cache_bytes", "a write-back cache needs a size in bytes (LSI 9260-8i: 536870912)"))
            }
            (CacheMode::WriteThrough, b) if b > 0 && self.read_ahead == ReadAheadPolicy::Off => {
                return Err(Error::config(
                    "array.controller.cache_bytes",
                    format!(
                        "{b} bytes of cache but cache = \"write_through\" with read_ahead = \"off\" uses none: set cache = \"write_back\" \
                         or a read_ahead policy"
                    ),
                ))
            }
            _ => {}
        }
        let inside = array.level.inside_one_ssd();
        self.validate_read_ahead(array)?;
        self.validate_parity_compute(array)?;
        if self.cache == CacheMode::WriteBack && (inside || array.level == RaidLevel::Single) {
            return Err(Error::config(
                "array.controller.cache",
                "a write-back controller cache needs a RAID controller; for a drive's own DRAM use ssd.write_buffer_bytes",
            ));
        }
        if self.cache == CacheMode::WriteBack && !array.failures.is_empty() {
            return Err(Error::config(
                "array.controller.cache",
                "write-back with member failures is not modelled (a write lost after its acknowledgement); use write_through to study failures",
            ));
        }
        if inside && self.host_link_bytes_per_s > 0 {
            return Err(Error::config(
                "array.controller.host_link_bytes_per_s",
                "cr5/cr5m sit behind the SSD's own link: set ssd.timing.host_link_bandwidth_bytes_per_s",
            ));
        }
        let drives = u64::from(array.members) + u64::from(array.spares);
        if self.ports > 0 && !inside && drives > u64::from(self.ports) {
            return Err(Error::config(
                "array.controller.ports",
                format!("{drives} drives (members and spares) on a controller of {} ports", self.ports),
            ));
        }
        if self.ports > 0 && (inside || array.level == RaidLevel::Single) {
            return Err(Error::config("array.controller.ports", "only a RAID controller of drives has ports"));
        }
        Ok(())
    }
}

impl ControllerConfig {
    fn validate_parity_compute(&self, array: &ArrayConfig) -> Result<()> {
        let rs = array.level.code_level() == RaidLevel::Raid6 && array.xor_code().is_none();
        match self.parity_compute {
            ParityCompute::ParityBytes if self.gf_mul_bytes_per_s > 0 => Err(Error::config(
                "array.controller.gf_mul_bytes_per_s",
                "set, but parity_compute = \"parity_bytes\" charges parity bytes at xor_bytes_per_s: set parity_compute = \"code_ops\" or leave it 0",
            )),
            ParityCompute::ParityBytes => Ok(()),
            ParityCompute::CodeOps if array.level.parity_units() == 0 => Err(Error::config(
                "array.controller.parity_compute",
                format!("\"code_ops\" charges a parity code's work, and {:?} keeps no parity", array.level),
            )),
            ParityCompute::CodeOps if self.xor_bytes_per_s == 0 => Err(Error::config(
                "array.controller.xor_bytes_per_s",
                "parity_compute = \"code_ops\" needs the XOR rate in bytes per second (cargo bench -p raidsim-codes --bench region_ops)",
            )),
            ParityCompute::CodeOps if rs && self.gf_mul_bytes_per_s == 0 => Err(Error::config(
                "array.controller.gf_mul_bytes_per_s",
                "Reed-Solomon's Q under parity_compute = \"code_ops\" needs the GF(2^8) multiply rate in bytes per second \
                 (cargo bench -p raidsim-codes --bench region_ops)",
            )),
            ParityCompute::CodeOps if !rs && self.gf_mul_bytes_per_s > 0 => Err(Error::config(
                "array.controller.gf_mul_bytes_per_s",
                "only Reed-Solomon's Q multiplies in GF(2^8); this code only XORs: leave it 0",
            )),
            ParityCompute::CodeOps => Ok(()),
        }
    }

    fn validate_read_ahead(&self, array: &ArrayConfig) -> Result<()> {
        let key = "array.controller.read_ahead_bytes";
        if self.read_ahead == ReadAheadPolicy::Off {
            if self.read_ahead_bytes > 0 {
                return Err(Error::config(key, "set, but read_ahead = \"off\": choose \"always\" or \"adaptive\", or leave it 0"));
            }
            return Ok(());
        }
        if array.level == RaidLevel::Single || array.level.inside_one_ssd() {
            return Err(Error::config("array.controller.read_ahead", "reading ahead needs a RAID controller of drives"));
        }
        if self.cache == CacheMode::WriteBack {
            let why = "read-ahead with a write-back cache is not modelled (data read ahead could be older than a cached write); use cache = \"write_through\"";
            return Err(Error::config("array.controller.read_ahead", why));
        }
        if self.read_ahead_bytes == 0 || self.read_ahead_bytes % 512 != 0 {
            return Err(Error::config(key, "must be a positive multiple of 512 bytes (e.g. one stripe of data)"));
        }
        if self.cache_bytes < self.read_ahead_bytes {
            return Err(Error::config(
                "array.controller.cache_bytes",
                format!(
                    "{} bytes cannot hold one read-ahead of {} bytes (read_ahead_bytes; LSI 9260-8i: 536870912)",
                    self.cache_bytes, self.read_ahead_bytes
                ),
            ));
        }
        Ok(())
    }
}

/// The array controller.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ArrayConfig {
    /// RAID level (`single` = one SSD, no controller).
    pub level: RaidLevel,
    /// Member devices.
    pub members: u32,
    /// Stripe unit (chunk) per member, bytes; a multiple of 512.
    pub stripe_unit_bytes: u64,
    /// RAID-5/6 parity rotation.
    pub layout: ParityLayout,
    /// RAID-5: each member's share of the parity, in member order, summing
    /// to 1 (Diff-RAID's uneven parity, `config::parity_distribution`);
    /// empty: `layout`'s even rotation.
    pub parity_distribution: Vec<f64>,
    /// RAID-10: copies of each unit.
    pub copies: u32,
    /// RAID-6 code.
    pub code: ErasureCode,
    /// RAID-6 parity placement.
    pub parity_placement: ParityPlacement,
    /// EVENODD/RDP prime p; 0 = the smallest that fits the data members.
    pub prime: u32,
    /// Granularity of the RMW/RCW decision.
    pub parity_granularity: ParityGranularity,
    /// Parity update method for partial-stripe writes.
    pub write_method: WriteMethod,
    /// `parity_granularity = "disksim"`: DiskSim's `rmw_threshold`, as a
    /// fraction of the members (parity included); a partial row writing
    /// fewer than `floor(fraction × members)` units is read-modify-write.
    pub rmw_threshold_fraction: f64,
    /// Stripes of one request in parallel or in order.
    pub stripe_order: StripeOrder,
    /// RAID-1/10 read policy.
    pub read_policy: ReadPolicy,
    /// The controller itself: overhead, parity engine, cache, host link.
    pub controller: ControllerConfig,
    /// Local (each SSD on its own) or global (Harmonia) garbage collection.
    pub gc_coordination: GcCoordination,
    /// `gc_coordination = "global"`: a forced collection brings each plane
    /// of each member to at least this fraction of its blocks free.
    pub gc_forced_free_fraction: f64,
    /// `cr5m`: MWLimit of Algorithm 1. A channel takes a mirroring write
    /// only while its mirroring writes so far are at most `mw_limit` × the
    /// average writes of one of its data chips; 0 = never (the paper:
    /// "CR5M degrades to CR5"). The paper's default: 1.1.
    pub mw_limit: f64,
    /// Member failures (from the start when `at_ns = 0`). Failures at the
    /// start beyond what the level tolerates are refused; later ones beyond
    /// it are recorded as data-loss events.
    pub failures: Vec<MemberFailure>,
    /// Hot spares: a failed member is rebuilt onto the next free spare
    /// (`[rebuild]`). Spares are fresh drives of the `[ssd]`/`[hdd]` kind,
    /// not preconditioned, and serve nothing until a rebuild starts.
    pub spares: u32,
    /// `cr5`/`cr5m`: spare chips per channel (the paper's `s`), serving
    /// nothing until a chip of the channel fails and one replaces it. They
    /// add no capacity; a chip failure needs one on its channel.
    pub spare_chips_per_channel: u32,
    /// Per-member SSD settings merged over `[ssd]` (heterogeneous arrays);
    /// entry i applies to member i, missing entries use `[ssd]` unchanged.
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub member_ssd: Vec<toml::Table>,
}

impl Default for ArrayConfig {
    fn default() -> Self {
        Self {
            level: RaidLevel::Single,
            members: 1,
            stripe_unit_bytes: 65_536,
            layout: ParityLayout::LeftSymmetric,
            parity_distribution: Vec::new(),
            copies: 2,
            code: ErasureCode::Rs,
            parity_placement: ParityPlacement::Rotated,
            prime: 0,
            parity_granularity: ParityGranularity::Page,
            write_method: WriteMethod::Auto,
            rmw_threshold_fraction: 0.5,
            stripe_order: StripeOrder::Parallel,
            read_policy: ReadPolicy::Primary,
            controller: ControllerConfig::default(),
            gc_coordination: GcCoordination::Local,
            gc_forced_free_fraction: 0.1,
            mw_limit: 1.1,
            failures: Vec::new(),
            spares: 0,
            spare_chips_per_channel: 0,
            member_ssd: Vec::new(),
        }
    }
}

impl RaidLevel {
    /// Member failures the level survives with `members` members.
    pub fn tolerates(self, members: u32, copies: u32) -> u32 {
        match self.code_level() {
            RaidLevel::Single | RaidLevel::Raid0 => 0,
            RaidLevel::Raid1 => members - 1,
            RaidLevel::Raid10 => copies - 1,
            RaidLevel::Raid4 | RaidLevel::Raid5 | RaidLevel::Cr5 | RaidLevel::Cr5m => 1,
            RaidLevel::Raid6 => 2,
        }
    }

    /// Parity units per stripe.
    pub fn parity_units(self) -> u32 {
        match self.code_level() {
            RaidLevel::Raid4 | RaidLevel::Raid5 | RaidLevel::Cr5 | RaidLevel::Cr5m => 1,
            RaidLevel::Raid6 => 2,
            RaidLevel::Single | RaidLevel::Raid0 | RaidLevel::Raid1 | RaidLevel::Raid10 => 0,
        }
    }

    /// The level whose layout and code the planner runs: a RAID level
    /// inside one SSD is planned as the level it applies to channels.
    pub fn code_level(self) -> RaidLevel {
        match self {
            RaidLevel::Cr5 | RaidLevel::Cr5m => RaidLevel::Raid5,
            level => level,
        }
    }

    /// True when the members are the channels of one SSD.
    pub fn inside_one_ssd(self) -> bool {
        matches!(self, RaidLevel::Cr5 | RaidLevel::Cr5m)
    }
}

impl ArrayConfig {
    /// The codec-crate code and prime of a RAID-6 EVENODD/RDP array; `None` otherwise.
    pub fn xor_code(&self) -> Option<(raidsim_codes::Code, Option<usize>)> {
        if self.level != RaidLevel::Raid6 {
            return None;
        }
        let p = (self.prime > 0).then_some(self.prime as usize);
        match self.code {
            ErasureCode::Rs => None,
            ErasureCode::Evenodd => Some((raidsim_codes::Code::Evenodd, p)),
            ErasureCode::Rdp => Some((raidsim_codes::Code::Rdp, p)),
        }
    }

    /// Checks the array parameters that do not depend on the members.
    pub fn validate(&self) -> Result<()> {
        let n = self.members;
        let min = match self.level.code_level() {
            RaidLevel::Single => 1,
            RaidLevel::Raid0 | RaidLevel::Raid1 => 1,
            RaidLevel::Raid10 => self.copies.max(2),
            RaidLevel::Raid4 | RaidLevel::Raid5 | RaidLevel::Cr5 | RaidLevel::Cr5m => 2,
            RaidLevel::Raid6 => 3,
        };
        if n > MAX_MEMBERS {
            return Err(Error::config("array.members", format!("{n} members: at most {MAX_MEMBERS}")));
        }
        if self.level == RaidLevel::Cr5m && n > 33 {
            return Err(Error::config("array.members", format!("cr5m tracks mirrored pages of up to 32 data channels, got {}", n - 1)));
        }
        if self.level == RaidLevel::Single && n != 1 {
            return Err(Error::config("array.members", "level \"single\" has exactly one member; pick a RAID level for more"));
        }
        if n < min {
            return Err(Error::config("array.members", format!("{:?} needs at least {min} members, got {n}", self.level)));
        }
        if self.stripe_unit_bytes == 0 || self.stripe_unit_bytes % 512 != 0 {
            return Err(Error::config("array.stripe_unit_bytes", "must be a positive multiple of 512"));
        }
        if self.level == RaidLevel::Raid10 && (self.copies < 2 || self.copies > n) {
            return Err(Error::config("array.copies", format!("RAID-10 needs 2 <= copies <= members ({n})")));
        }
        if self.level == RaidLevel::Raid6 && self.code == ErasureCode::Rs && n - 2 > raidsim_codes::MAX_RS_DATA_COLUMNS as u32 {
            return Err(Error::config(
                "array.members",
                format!(
                    "Reed-Solomon RAID-6 takes at most {} data members (Q's coefficients repeat after that), got {}",
                    raidsim_codes::MAX_RS_DATA_COLUMNS,
                    n - 2
                ),
            ));
        }
        if self.level == RaidLevel::Raid6 && self.code != ErasureCode::Rs {
            let kind = if self.code == ErasureCode::Evenodd { raidsim_codes::Code::Evenodd } else { raidsim_codes::Code::Rdp };
            let p = (self.prime > 0).then_some(self.prime as usize);
            raidsim_codes::structure(kind, (n - 2) as usize, p).map_err(|e| Error::config("array.prime", e.to_string()))?;
        }
        self.controller.validate(self)?;
        super::parity_distribution::validate(&self.parity_distribution, n, self.level == RaidLevel::Raid5, &format!("{:?}", self.level))?;
        if !(self.gc_forced_free_fraction > 0.0 && self.gc_forced_free_fraction < 0.5) {
            return Err(Error::config("array.gc_forced_free_fraction", "must lie in (0, 0.5)"));
        }
        if self.gc_coordination == GcCoordination::Global && (self.level == RaidLevel::Single || self.level.inside_one_ssd()) {
            return Err(Error::config(
                "array.gc_coordination",
                "\"global\" coordinates the collections of an array's SSDs; level \"single\", cr5 and cr5m have one SSD",
            ));
        }
        if !(self.mw_limit >= 0.0 && self.mw_limit.is_finite()) {
            return Err(Error::config("array.mw_limit", "must be a finite number >= 0"));
        }
        if !(0.0..=1.0).contains(&self.rmw_threshold_fraction) {
            return Err(Error::config("array.rmw_threshold_fraction", "must lie in [0, 1]"));
        }
        if self.parity_granularity == ParityGranularity::Disksim && self.xor_code().is_some() {
            return Err(Error::config(
                "array.parity_granularity",
                "\"disksim\" is DiskSim's per-row rule: it applies to RAID-4/5 and Reed-Solomon RAID-6, not to EVENODD/RDP codewords",
            ));
        }
        if self.member_ssd.len() > n as usize {
            return Err(Error::config("array.member_ssd", format!("{} entries for {n} members", self.member_ssd.len())));
        }
        if self.spares > MAX_MEMBERS {
            return Err(Error::config("array.spares", format!("{}: at most {MAX_MEMBERS}", self.spares)));
        }
        if self.level == RaidLevel::Single && (!self.failures.is_empty() || self.spares > 0) {
            return Err(Error::config(
                "array.failures",
                "level \"single\" has no array controller to fail a member or rebuild onto a spare; use level \"raid0\" with members = 1",
            ));
        }
        if self.spares > 0 && self.level.tolerates(n, self.copies) == 0 {
            return Err(Error::config(
                "array.spares",
                format!("{:?} of {n} keeps no redundancy: a failed member cannot be rebuilt onto a spare", self.level),
            ));
        }
        // They add no capacity and serve one failure each: a handful is all a channel can use.
        if self.spare_chips_per_channel > 64 {
            return Err(Error::config("array.spare_chips_per_channel", format!("{}: at most 64", self.spare_chips_per_channel)));
        }
        if self.spare_chips_per_channel > 0 && !self.level.inside_one_ssd() {
            return Err(Error::config("array.spare_chips_per_channel", format!("{:?} has no channels as members: use array.spares", self.level)));
        }
        for (i, f) in self.failures.iter().enumerate() {
            let triggers = [f.at_ns.is_some(), f.at_request.is_some(), f.at_random_mean_ns.is_some()];
            if triggers.iter().filter(|&&t| t).count() != 1 {
                return Err(Error::config(format!("array.failures[{i}]"), "give exactly one of at_ns, at_request, at_random_mean_ns"));
            }
            if f.at_random_mean_ns == Some(0) {
                return Err(Error::config(format!("array.failures[{i}].at_random_mean_ns"), "must be > 0"));
            }
            if f.member >= n {
                return Err(Error::config(format!("array.failures[{i}].member"), format!("member {} does not exist (0..{n})", f.member)));
            }
            if f.chip.is_some() && !self.level.inside_one_ssd() {
                return Err(Error::config(
                    format!("array.failures[{i}].chip"),
                    format!("{:?} loses whole members; only cr5/cr5m lose a chip of a channel", self.level),
                ));
            }
            if self.failures[..i].iter().any(|g| g.member == f.member) {
                let why = if self.level.inside_one_ssd() {
                    "loses a second chip (a channel loses at most one, as in the CR5M paper)"
                } else {
                    "fails twice"
                };
                return Err(Error::config(format!("array.failures[{i}]"), format!("member {} {why}", f.member)));
            }
        }
        let at_start: Vec<u32> = self.failures.iter().filter(|f| f.at_start()).map(|f| f.member).collect();
        if !self.survives(&at_start) {
            return Err(Error::config(
                "array.failures",
                format!(
                    "members {at_start:?} failed from the start but {:?} of {n} tolerates {}{}: the array would hold no data \
                     (fail them later to study data loss)",
                    self.level,
                    self.level.tolerates(n, self.copies),
                    if self.level == RaidLevel::Raid10 { " of each unit's copies" } else { "" }
                ),
            ));
        }
        Ok(())
    }

    /// Whether every stripe keeps its data with the members `failed` lost.
    /// RAID-10 survives as many failures as no `copies` of one unit share:
    /// unit `j`'s copies sit on members `j·c .. j·c + c − 1` (mod n), so the
    /// runs that hold one unit start at the multiples of gcd(c, n).
    pub fn survives(&self, failed: &[u32]) -> bool {
        let n = self.members;
        if self.level != RaidLevel::Raid10 {
            return failed.len() as u32 <= self.level.tolerates(n, self.copies);
        }
        let (c, g) = (self.copies, super::gcd(u64::from(self.copies), u64::from(n)));
        !(0..n).step_by(g as usize).any(|t| (0..c).all(|i| failed.contains(&((t + i) % n))))
    }
}
