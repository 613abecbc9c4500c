//! An estimate of the memory a configuration needs, checked before anything
//! is allocated, so that one large integer (a billion closed-loop
//! processes, ten thousand members, a histogram of four billion bins) is
//! refused with the figure instead of aborting the process.

use super::{MemberConfig, RaidLevel, ResolvedConfig, WorkloadConfig};
use crate::error::{Error, Result};

/// Bytes per logical page (forward map) and per physical page (reverse map).
const MAP_BYTES_PER_PAGE: u64 = 4;
/// Per block: valid count, state, erase count, last-write time.
const BYTES_PER_BLOCK: u64 = 2 + 1 + 4 + 8;
/// A cached map entry as simulated: its key and state, the LRU list's two
/// links, the hash table's slot and the allocator's header (DFTL,
/// `ssd.ftl.scheme`): an estimate.
const CACHED_MAP_BYTES_PER_ENTRY: u64 = 8 + 16 + 16 + 16 + 16;
/// One scheduled event or request slot of the host, generously.
const BYTES_PER_PENDING_EVENT: u64 = 64;
/// One bucket of a fixed-interval time series, from the core's counters to
/// the report's JSON text and the Python lists parsed from it.
const TIME_SERIES_BYTES_PER_BUCKET: u64 = 512;
/// Most buckets `metrics.interval_ns` keeps; beyond it (a trace with a clock
/// glitch, an interval of 1 ns) the interval is doubled until the run fits,
/// rather than memory exhausted, and the report warns of it. A bucket costs
/// about `TIME_SERIES_BYTES_PER_BUCKET` by the time the report has reached
/// Python.
pub const MAX_FIXED_BUCKETS: usize = 1 << 18;
/// `sim.verify` keeps every written sector of every member (512 bytes, its
/// key and the hash table's share): bytes kept per member byte written.
const VERIFIED_BYTES_PER_BYTE: f64 = 1.125;
/// One row of `metrics.request_log` at the run's peak: the core's columns
/// (36 bytes: four `u64`, the op, whether served, the flow's `u16`) with their growth room, and
/// the copies made to write the Parquet file (76-81 bytes measured at 1-5
/// million rows).
pub const REQUEST_LOG_BYTES_PER_ROW: u64 = 96;
/// What the rest of a run needs whatever its size: histograms, buffers.
const BASE_BYTES: u64 = 64 << 20;

/// Estimated peak bytes of a run of `r`.
pub fn estimate_bytes(r: &ResolvedConfig) -> u64 {
    let members: u64 = r
        .members
        .iter()
        .map(|m| {
            // A disk keeps no map: its state is a few words.
            let MemberConfig::Ssd { geometry: g, .. } = m else { return 0 };
            g.logical_pages.saturating_mul(MAP_BYTES_PER_PAGE)
                + g.physical_pages.saturating_mul(MAP_BYTES_PER_PAGE)
                + g.blocks.saturating_mul(BYTES_PER_BLOCK)
                + g.mapping_cache.cached_entries.min(g.logical_pages).saturating_mul(CACHED_MAP_BYTES_PER_ENTRY)
        })
        .fold(0u64, u64::saturating_add);
    let processes = match &r.config.workload {
        WorkloadConfig::Synthetic(s) => u64::from(s.processes),
        WorkloadConfig::Flows(f) => f.flows.iter().map(|s| u64::from(s.generator.processes)).sum(),
        _ => 0,
    };
    let histogram = u64::from(r.config.metrics.erase_histogram_bins).saturating_mul(8);
    // A fixed interval may fill every bucket it is allowed; an automatic one keeps a few thousand.
    let time_series = if r.config.metrics.interval_ns > 0 { MAX_FIXED_BUCKETS as u64 * TIME_SERIES_BYTES_PER_BUCKET } else { 0 };
    BASE_BYTES
        .saturating_add(members)
        .saturating_add(verified_bytes(r))
        .saturating_add(request_log_bytes(r))
        .saturating_add(processes.saturating_mul(BYTES_PER_PENDING_EVENT))
        .saturating_add(histogram)
        .saturating_add(time_series)
}

/// What `sim.verify` keeps: every member sector written. A rebuild onto a
/// spare writes the whole member; host writes, each member byte a host
/// byte reaches (parity and copies included), up to every member's
/// capacity. A trace's writes are known only once it is read: not counted.
fn verified_bytes(r: &ResolvedConfig) -> u64 {
    let a = &r.config.array;
    if !r.config.sim.verify {
        return 0;
    }
    let member = r.member_capacity_bytes();
    let rebuilt = a.failures.iter().filter(|f| f.chip.is_none()).count().min(a.spares as usize) as u64;
    let written = |s: &crate::config::SyntheticConfig| s.requests as f64 * (1.0 - s.read_fraction) * s.size.mean_bytes.max(s.size.min_bytes) as f64;
    let host_written = match &r.config.workload {
        WorkloadConfig::Synthetic(s) => written(s),
        WorkloadConfig::Requests { requests, .. } => requests.iter().filter(|q| q.1 == "W").map(|q| q.3 as f64).sum(),
        WorkloadConfig::Flows(f) => f.flows.iter().map(|f| written(&f.generator)).sum(),
        WorkloadConfig::Trace(_) => 0.0,
    };
    // Each host byte reaches this many member bytes: the copies, or the stripe's members per data unit.
    let spread = match a.level.code_level() {
        RaidLevel::Raid1 => f64::from(a.members),
        RaidLevel::Raid10 => f64::from(a.copies),
        level => f64::from(a.members) / f64::from(a.members.saturating_sub(level.parity_units()).max(1)),
    };
    let host = (host_written * spread).min(member as f64 * f64::from(a.members));
    let bytes = (rebuilt as f64 * member as f64 + host) * VERIFIED_BYTES_PER_BYTE;
    bytes.min(u64::MAX as f64) as u64
}

/// `metrics.request_log`'s rows: one per request of a synthetic workload or
/// a listed one (a trace's length is known only once it is read).
fn request_log_bytes(r: &ResolvedConfig) -> u64 {
    if r.config.metrics.request_log.0.as_os_str().is_empty() {
        return 0;
    }
    let rows = match &r.config.workload {
        WorkloadConfig::Synthetic(s) => s.requests,
        WorkloadConfig::Requests { requests, packed } => requests.len() as u64 + packed.len() as u64 * 3 / 4 / 25,
        WorkloadConfig::Flows(f) => f.requests().unwrap_or(0),
        WorkloadConfig::Trace(_) => 0,
    };
    rows.saturating_mul(REQUEST_LOG_BYTES_PER_ROW)
}

/// The machine's available memory, bytes, if it can be read.
fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Refuses `r` when its estimate exceeds `sim.memory_limit_bytes` (or,
/// when that is 0, the memory available now).
pub fn check(r: &ResolvedConfig) -> Result<()> {
    let need = estimate_bytes(r);
    let (limit, what) = match r.config.sim.memory_limit_bytes {
        0 => match available_bytes() {
            Some(a) => (a, "the memory available on this machine"),
            None => return Ok(()),
        },
        l => (l, "sim.memory_limit_bytes"),
    };
    if need > limit {
        let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
        return Err(Error::config(
            "sim.memory_limit_bytes",
            format!(
                "this configuration needs about {:.1} GiB ({} members' mapping tables and mapping caches, closed-loop processes, \
                 histogram bins, a fixed-interval time series, the bytes sim.verify keeps of a rebuild, the request log), more than {what} ({:.1} GiB); make it smaller or raise sim.memory_limit_bytes",
                gib(need),
                r.members.len(),
                gib(limit)
            ),
        ));
    }
    Ok(())
}
