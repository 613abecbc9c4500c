//! Parameters of the host workload: a trace, a synthetic generator, or an
//! explicit list of requests.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Where the host's requests come from.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkloadConfig {
    /// Open- or closed-loop synthetic generator.
    Synthetic(SyntheticConfig),
    /// Replay of a block trace file.
    Trace(TraceConfig),
    /// Several synthetic flows at once, each with its own queue and report
    /// section (`[[workload.flows]]`).
    Flows(super::FlowsConfig),
    /// An explicit list of requests, readable (`requests`) or compact
    /// (`packed`); both may be given and are taken together.
    Requests {
        /// `[time_ns, "R"|"W"|"T", offset_bytes, len_bytes]` (read, write,
        /// trim), in any time order (they are sorted by time, stably).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        requests: Vec<RequestTuple>,
        /// The same, packed: base64 of 25-byte records — time_ns, offset_bytes,
        /// len_bytes as little-endian u64, then `R`, `W` or `T` — about 34 bytes a
        /// request where a TOML array costs hundreds (Python's
        /// `Workload.requests` packs long lists).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        packed: String,
    },
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig::Synthetic(SyntheticConfig::default())
    }
}

/// Bytes of one packed request (see `WorkloadConfig::Requests::packed`).
pub const PACKED_REQUEST_BYTES: usize = 25;

/// The requests of `packed` as `(time_ns, op letter, offset_bytes, len_bytes)`,
/// each checked as a listed request is.
pub fn unpack_requests(packed: &str) -> Result<Vec<(u64, &'static str, u64, u64)>> {
    use base64::Engine;
    let bytes =
        base64::engine::general_purpose::STANDARD.decode(packed.trim()).map_err(|e| Error::config("workload.packed", format!("not base64: {e}")))?;
    if bytes.len() % PACKED_REQUEST_BYTES != 0 {
        return Err(Error::config("workload.packed", format!("{} bytes is not a whole number of {PACKED_REQUEST_BYTES}-byte requests", bytes.len())));
    }
    let u64_at = |rec: &[u8], at: usize| rec[at..at + 8].iter().rev().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
    bytes
        .chunks_exact(PACKED_REQUEST_BYTES)
        .enumerate()
        .map(|(i, rec)| {
            let key = || format!("workload.packed[{i}]");
            let (t, offset, len) = (u64_at(rec, 0), u64_at(rec, 8), u64_at(rec, 16));
            let letter = match rec[24] {
                b'R' => "R",
                b'W' => "W",
                b'T' => "T",
                other => return Err(Error::config(key(), format!("op byte {other}: expected R, W or T"))),
            };
            if t > crate::engine::MAX_TIME_NS {
                return Err(Error::config(key(), format!("time {t} ns is past 2^62 ns (146 years)")));
            }
            if len == 0 {
                return Err(Error::config(key(), "length must be at least 1 byte"));
            }
            Ok((t, letter, offset, len))
        })
        .collect()
}

/// `(time_ns, op, offset_bytes, len_bytes)` with op `"R"`, `"W"` or `"T"` (trim).
pub type RequestTuple = (u64, String, u64, u64);

/// How arrival instants are spaced (open loop).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalProcess {
    /// Exponential inter-arrival times (Poisson arrivals).
    Poisson,
    /// Every inter-arrival time equals the mean.
    Fixed,
    /// Inter-arrival uniform on [0, 2 × mean] (DiskSim's synthetic generator).
    Uniform,
}

/// Family of the request-size distribution.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SizeKind {
    /// Every request is `mean_bytes`.
    Fixed,
    /// Uniform on [min_bytes, max_bytes].
    Uniform,
    /// Exponential with mean `mean_bytes`.
    Exponential,
    /// Normal with `mean_bytes` and `std_bytes`.
    Normal,
}

/// Request sizes. A draw is truncated to whole `quantum_bytes`; draws below
/// `min_bytes` or above `max_bytes` (when non-zero) are drawn again; the size
/// is then rounded up to the workload's `alignment_bytes`. With
/// `adjust_mean`, the underlying distribution's mean is shifted so that the
/// mean after truncation and redraws is `mean_bytes` — the striping paper's
/// rule ("always a multiple of a kilobyte, at least a kilobyte, means
/// adjusted so the actual mean is the target", Chen & Lee 1995, §3).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SizeDistribution {
    /// Distribution family.
    pub kind: SizeKind,
    /// Target mean size, bytes.
    pub mean_bytes: u64,
    /// Standard deviation for `normal`, bytes.
    pub std_bytes: u64,
    /// Smallest size kept, bytes (smaller draws are drawn again).
    pub min_bytes: u64,
    /// Largest size kept, bytes; 0 = no limit.
    pub max_bytes: u64,
    /// Draws are truncated to a whole number of these, bytes.
    pub quantum_bytes: u64,
    /// Shift the underlying mean so the realised mean equals `mean_bytes`.
    pub adjust_mean: bool,
}

impl Default for SizeDistribution {
    fn default() -> Self {
        Self { kind: SizeKind::Fixed, mean_bytes: 4096, std_bytes: 0, min_bytes: 512, max_bytes: 0, quantum_bytes: 512, adjust_mean: false }
    }
}

/// Spatial pattern of request offsets.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AddressPattern {
    /// Uniform over the span.
    Uniform,
    /// Each request starts where the previous one ended, wrapping at the span's end.
    Sequential,
    /// `hot_access_fraction` of requests go to the first `hot_fraction` of the span.
    HotCold,
}

/// Synthetic workload generator.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SyntheticConfig {
    /// Number of requests to issue.
    pub requests: u64,
    /// Open loop: arrival process. Ignored in closed loop.
    pub arrival: ArrivalProcess,
    /// Open loop: mean time between arrivals, ns (1 000 000 = 1 000 IOPS).
    pub mean_interarrival_ns: u64,
    /// Closed loop when > 0: this many processes each issue their next
    /// request when the previous one completes (the striping paper's
    /// "concurrency", the RAIS paper's queue depth); 0 = open loop.
    pub processes: u32,
    /// Closed loop: think time between a completion and the next issue, ns.
    pub think_time_ns: u64,
    /// Fraction of requests that are reads.
    pub read_fraction: f64,
    /// Fraction of requests that are trims (discards), sized and placed as
    /// the others; the rest are writes. With `read_fraction`, at most 1.
    pub trim_fraction: f64,
    /// Request sizes.
    pub size: SizeDistribution,
    /// Spatial pattern.
    pub address: AddressPattern,
    /// Probability that a request starts where the previous one ended
    /// (DiskSim's "probability of sequential access"); applies to `uniform`
    /// and `hot_cold` addressing.
    pub sequential_fraction: f64,
    /// Hot/cold: fraction of the span that is hot.
    pub hot_fraction: f64,
    /// Hot/cold: fraction of requests that go to the hot region.
    pub hot_access_fraction: f64,
    /// First byte of the addressed span.
    pub start_bytes: u64,
    /// Length of the addressed span, bytes; 0 = the whole device from `start_bytes`.
    pub span_bytes: u64,
    /// Offsets are multiples of this and sizes are rounded up to it, bytes.
    pub alignment_bytes: u64,
}

impl Default for SyntheticConfig {
    fn default() -> Self {
        Self {
            requests: 100_000,
            arrival: ArrivalProcess::Poisson,
            mean_interarrival_ns: 1_000_000,
            processes: 0,
            think_time_ns: 0,
            read_fraction: 0.3,
            trim_fraction: 0.0,
            size: SizeDistribution::default(),
            address: AddressPattern::Uniform,
            sequential_fraction: 0.0,
            hot_fraction: 0.2,
            hot_access_fraction: 0.8,
            start_bytes: 0,
            span_bytes: 0,
            alignment_bytes: 4096,
        }
    }
}

/// Block trace formats (see `../shared/traces/README.md` for provenance).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    MsrCsv,
    /// SPC (UMass): `ASU,LBA,Size,Opcode,Timestamp`.
    Spc,
    /// DiskSim ASCII: `time_ms device start_block blocks flags`.
    DisksimAscii,
    /// MQSim / SSDsim ASCII: `time_ns device lba sectors type` (type 0 = write).
    MqsimAscii,
    /// blkparse default text output.
    Blkparse,
    /// SNIA SYSTOR'17 CSV: `Timestamp,Response,IOType,LUN,Offset,Size`.
    SystorCsv,
    /// FIU: `time_ns pid process lba blocks R/W major minor md5`.
    Fiu,
    /// DiskSim's drive-validation traces (`valid/*.trace`): `R|W buffer
    /// block blocks service_us next_us`, one request at a time as measured
    /// on the real drive: its service time, then the host's idle time
    /// before the next request. Replayed at the drive's own issue instants
    /// (the sum of every earlier service and idle time).
    DisksimValidate,
}

impl TraceFormat {
    /// Every format, for auto-detection and help text.
    pub const ALL: [TraceFormat; 8] = [
        TraceFormat::MsrCsv,
        TraceFormat::Spc,
        TraceFormat::DisksimAscii,
        TraceFormat::MqsimAscii,
        TraceFormat::Blkparse,
        TraceFormat::SystorCsv,
        TraceFormat::Fiu,
        TraceFormat::DisksimValidate,
    ];

    /// The snake_case name used in configs.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::MsrCsv => "msr_csv",
            TraceFormat::Spc => "spc",
            TraceFormat::DisksimAscii => "disksim_ascii",
            TraceFormat::MqsimAscii => "mqsim_ascii",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::SystorCsv => "systor_csv",
            TraceFormat::Fiu => "fiu",
            TraceFormat::DisksimValidate => "disksim_validate",
        }
    }

    /// Parses a name as written in configs.
    pub fn from_name(name: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name).ok_or_else(|| {
            let valid: Vec<&str> = Self::ALL.iter().map(|f| f.name()).collect();
            Error::config("workload.format", format!("unknown trace format `{name}`; valid: {}", valid.join(", ")))
        })
    }
}

/// What to do with a request that lies beyond the simulated capacity.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutOfRange {
    /// Wrap the offset modulo the capacity (counted in the report).
    Wrap,
    /// Stop with an error naming the trace line.
    Error,
}

/// A trace file's path: text, or a list of bytes for a path that is not
/// UTF-8, which a Linux file name may be and TOML text may not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TracePath(pub std::path::PathBuf);

impl Serialize for TracePath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use std::os::unix::ffi::OsStrExt;
        match self.0.to_str() {
            Some(text) => s.serialize_str(text),
            None => self.0.as_os_str().as_bytes().serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for TracePath {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use std::os::unix::ffi::OsStringExt;
        #[derive(Deserialize)]
        #[serde(untagged, expecting = "a path: text, or a list of bytes (0-255) for one that is not UTF-8")]
        enum Form {
            Text(String),
            Bytes(Vec<u8>),
        }
        Ok(TracePath(match Form::deserialize(d)? {
            Form::Text(text) => text.into(),
            Form::Bytes(bytes) => std::ffi::OsString::from_vec(bytes).into(),
        }))
    }
}

/// Replay of a trace file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TraceConfig {
    /// Trace file: plain, gzip or bzip2 (told by its first bytes); a pipe or
    /// FIFO is read once, as it streams. A path that is not UTF-8 (Linux
    /// paths are bytes) is given as the list of its bytes.
    #[schemars(with = "String")]
    pub path: TracePath,
    /// Format; `None` = detect from the first lines.
    pub format: Option<TraceFormat>,
    /// Keep only requests of this device/disk/LUN number; `None` = all.
    pub device: Option<u64>,
    /// Multiply every timestamp (relative to the first) by this; 0.5 replays twice as fast.
    pub time_scale: f64,
    /// Stop after this many requests; 0 = the whole trace.
    pub max_requests: u64,
    /// Requests beyond the simulated capacity.
    pub out_of_range: OutOfRange,
    /// With `out_of_range = "wrap"`: the largest fraction of the trace's
    /// requests, and of their bytes, that may be wrapped. More changes the workload being asked
    /// about (a scaled-down drive folds the trace onto itself), so the run
    /// stops with an error naming the capacity the trace needs; any wrap is
    /// a warning. 1 allows all.
    pub max_wrapped_fraction: f64,
    /// blkparse: replay `D` (issue) or `C` (completion) events.
    pub blkparse_action: String,
    /// Skip malformed lines (counted, first one named in the report) instead
    /// of stopping with an error naming the line.
    pub skip_malformed: bool,
    /// A timestamp earlier than the previous one (counted either way).
    pub out_of_order: OutOfOrder,
    /// When each request is issued: at its timestamp, or one at a time.
    pub replay: TraceReplay,
    /// The trace's trims (blkparse's discards, `D` in `rwbs`): applied, or
    /// left out and counted.
    pub trims: TraceTrims,
}

/// What a trace replay does with the trims (discards) a trace carries.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceTrims {
    /// Each trim reaches the drives, which drop the pages it covers.
    Apply,
    /// Trims are left out (counted in the report): the trace as a drive
    /// without trim support, or a file system mounted without `discard`, sees it.
    Skip,
}

/// When a trace's requests are issued.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceReplay {
    /// Open loop: each request arrives at its timestamp (the trace's spacing), whatever the
    /// simulated device does.
    Open,
    /// Closed loop, one request at a time: each is issued the trace's idle time after the
    /// previous one completes in the simulation (DiskSim's validation traces give it per
    /// request, as DiskSim's validation mode replays them; 0 in formats without one, which
    /// then replay back to back). The timestamps are not used.
    Closed,
}

/// What a trace replay does with a timestamp earlier than the previous one.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutOfOrder {
    /// Keep the trace's spacing: each request arrives |t_i − t_{i−1}| after
    /// the previous one (a reversed trace replays at its own pace).
    KeepSpacing,
    /// Stop with an error naming the line.
    Error,
}

impl Default for TraceConfig {
    fn default() -> Self {
        Self {
            path: TracePath::default(),
            format: None,
            device: None,
            time_scale: 1.0,
            max_requests: 0,
            out_of_range: OutOfRange::Wrap,
            max_wrapped_fraction: 0.01,
            blkparse_action: "D".into(),
            skip_malformed: false,
            out_of_order: OutOfOrder::KeepSpacing,
            replay: TraceReplay::Open,
            trims: TraceTrims::Apply,
        }
    }
}

impl WorkloadConfig {
    /// Checks parameters that do not depend on the device.
    pub fn validate(&self) -> Result<()> {
        match self {
            WorkloadConfig::Synthetic(s) => s.validate(),
            WorkloadConfig::Trace(t) => t.validate(),
            WorkloadConfig::Flows(f) => f.validate(),
            WorkloadConfig::Requests { requests, packed } => {
                unpack_requests(packed)?;
                for (i, (t, op, _, len)) in requests.iter().enumerate() {
                    if *t > crate::engine::MAX_TIME_NS {
                        return Err(Error::config(format!("workload.requests[{i}]"), format!("time {t} ns is past 2^62 ns (146 years)")));
                    }
                    if !matches!(op.as_str(), "R" | "W" | "T") {
                        return Err(Error::config(format!("workload.requests[{i}]"), format!("op `{op}`: expected \"R\", \"W\" or \"T\" (trim)")));
                    }
                    if *len == 0 {
                        return Err(Error::config(format!("workload.requests[{i}]"), "length must be at least 1 byte"));
                    }
                }
                Ok(())
            }
        }
    }
}

/// The sector every member addresses, bytes.
const SECTOR_BYTES: u64 = 512;

fn fraction(key: &str, v: f64) -> Result<()> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(Error::config(key, format!("{v} must lie in [0, 1]")))
    }
}

impl SyntheticConfig {
    pub(super) fn validate(&self) -> Result<()> {
        fraction("workload.read_fraction", self.read_fraction)?;
        fraction("workload.trim_fraction", self.trim_fraction)?;
        if self.read_fraction + self.trim_fraction > 1.0 + 1e-9 {
            return Err(Error::config(
                "workload.trim_fraction",
                format!("{} with read_fraction {} makes more than every request", self.trim_fraction, self.read_fraction),
            ));
        }
        super::ssd::at_most_an_hour("workload.mean_interarrival_ns", self.mean_interarrival_ns)?;
        super::ssd::at_most_an_hour("workload.think_time_ns", self.think_time_ns)?;
        fraction("workload.hot_fraction", self.hot_fraction)?;
        fraction("workload.sequential_fraction", self.sequential_fraction)?;
        fraction("workload.hot_access_fraction", self.hot_access_fraction)?;
        // Members address 512-byte sectors: an odd alignment would issue
        // requests (4,098 bytes at byte 3) no drive of the model serves as asked.
        if self.alignment_bytes == 0 || self.alignment_bytes % SECTOR_BYTES != 0 {
            return Err(Error::config(
                "workload.alignment_bytes",
                format!("{} must be a positive multiple of the 512-byte sector", self.alignment_bytes),
            ));
        }
        if self.start_bytes % SECTOR_BYTES != 0 {
            return Err(Error::config("workload.start_bytes", format!("{} must be a multiple of the 512-byte sector", self.start_bytes)));
        }
        if self.start_bytes % self.alignment_bytes != 0 {
            let (start, alignment) = (self.start_bytes, self.alignment_bytes);
            return Err(Error::config("workload.start_bytes", format!("{start} must be a multiple of alignment_bytes ({alignment})")));
        }
        let s = &self.size;
        if s.mean_bytes == 0 || s.quantum_bytes == 0 {
            return Err(Error::config("workload.size", "mean_bytes and quantum_bytes must be at least 1"));
        }
        if s.max_bytes != 0 && s.max_bytes < s.min_bytes.max(s.quantum_bytes) {
            return Err(Error::config("workload.size.max_bytes", "must be 0 (no limit) or at least min_bytes and quantum_bytes"));
        }
        if s.max_bytes != 0 && s.max_bytes < self.alignment_bytes {
            return Err(Error::config(
                "workload.size.max_bytes",
                format!(
                    "{} is below workload.alignment_bytes ({}): every request is rounded up to whole alignments, so none would fit",
                    s.max_bytes, self.alignment_bytes
                ),
            ));
        }
        if s.kind == SizeKind::Fixed && (s.mean_bytes < s.min_bytes || (s.max_bytes != 0 && s.mean_bytes > s.max_bytes)) {
            return Err(Error::config(
                "workload.size.mean_bytes",
                format!("a fixed size of {} bytes lies outside [min_bytes, max_bytes] = [{}, {}]", s.mean_bytes, s.min_bytes, s.max_bytes),
            ));
        }
        if s.kind == SizeKind::Normal && s.std_bytes == 0 {
            return Err(Error::config("workload.size.std_bytes", "a normal size distribution needs std_bytes > 0"));
        }
        if s.kind == SizeKind::Uniform && s.max_bytes == 0 {
            return Err(Error::config("workload.size.max_bytes", "a uniform size distribution needs max_bytes"));
        }
        if self.hot_fraction == 0.0 && self.address == AddressPattern::HotCold {
            return Err(Error::config("workload.hot_fraction", "must be > 0 for hot_cold addressing"));
        }
        Ok(())
    }
}

impl SyntheticConfig {
    /// Bytes the generator addresses from `start_bytes` on a device of
    /// `capacity_bytes` (`span_bytes = 0`: to its end); an error when the
    /// span does not fit.
    pub fn span_within(&self, capacity_bytes: u64) -> Result<u64> {
        if self.start_bytes >= capacity_bytes {
            return Err(Error::config("workload.start_bytes", format!("{} is past the end of the {capacity_bytes}-byte device", self.start_bytes)));
        }
        let span_bytes = if self.span_bytes == 0 { capacity_bytes.saturating_sub(self.start_bytes) } else { self.span_bytes };
        let fits = self.start_bytes.checked_add(span_bytes).is_some_and(|end| end <= capacity_bytes);
        if !fits || span_bytes == 0 {
            return Err(Error::config(
                "workload.span_bytes",
                format!("span [{}, +{}) does not fit the {capacity_bytes}-byte device", self.start_bytes, span_bytes),
            ));
        }
        let s = &self.size;
        // The smallest size the generator can draw, rounded up to the alignment, must fit the span.
        let smallest = match s.kind {
            SizeKind::Fixed => s.mean_bytes,
            _ => s.min_bytes.max(s.quantum_bytes),
        };
        if smallest.div_ceil(self.alignment_bytes) * self.alignment_bytes > span_bytes {
            return Err(Error::config(
                "workload.span_bytes",
                format!("the {span_bytes}-byte span from byte {} holds no request of {smallest} bytes or more", self.start_bytes),
            ));
        }
        Ok(span_bytes)
    }
}

impl TraceConfig {
    fn validate(&self) -> Result<()> {
        if self.path.0.as_os_str().is_empty() {
            return Err(Error::config("workload.path", "a trace workload needs a path"));
        }
        if !(self.time_scale > 0.0 && self.time_scale.is_finite()) {
            return Err(Error::config("workload.time_scale", "must be a finite number > 0"));
        }
        fraction("workload.max_wrapped_fraction", self.max_wrapped_fraction)?;
        if self.blkparse_action != "D" && self.blkparse_action != "C" {
            return Err(Error::config("workload.blkparse_action", "expected \"D\" (issue) or \"C\" (completion)"));
        }
        Ok(())
    }
}
