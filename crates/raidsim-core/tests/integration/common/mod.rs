//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod disk;
pub mod load_cases;

use raidsim_core::config::{RawConfig, ResolvedConfig};
use std::path::PathBuf;

/// SSD settings for closed forms: one channel, one die, one plane, and
/// nothing but sensing (25 us), transfer (4096 B at 40 MB/s = 102.4 us)
/// and program (200 us).
pub const ONE_DIE: [&str; 12] = [
    "ssd.geometry.channels=1",
    "ssd.geometry.chips_per_channel=1",
    "ssd.geometry.dies_per_chip=1",
    "ssd.geometry.planes_per_die=1",
    "ssd.geometry.blocks_per_plane=64",
    "ssd.geometry.spare_bytes_per_sector=0",
    "ssd.timing.t_command_ns=0",
    "ssd.timing.t_read_ns=25000",
    "ssd.timing.t_program_ns=200000",
    "ssd.timing.channel_bandwidth_bytes_per_s=40000000",
    "ssd.timing.host_link_bandwidth_bytes_per_s=0",
    "ssd.timing.controller_overhead_ns=0",
];

/// A resolved config from a preset (or defaults when `preset` is empty) and overrides.
pub fn config(preset: &str, overrides: &[&str]) -> ResolvedConfig {
    let mut raw = if preset.is_empty() { RawConfig::new() } else { RawConfig::from_preset(preset).expect("preset") };
    for o in overrides {
        raw.set(o).unwrap_or_else(|e| panic!("{o}: {e}"));
    }
    raw.resolve().unwrap_or_else(|e| panic!("{e}"))
}

/// The error resolving `overrides` gives (panics if they resolve).
pub fn refused(overrides: &[&str]) -> String {
    let mut raw = RawConfig::new();
    for o in overrides {
        raw.set(o).unwrap_or_else(|e| panic!("{o}: {e}"));
    }
    raw.resolve().expect_err("refused").to_string()
}

/// `../shared/traces`, or `None` (with a note on stderr) when it is absent.
pub fn shared_traces() -> Option<PathBuf> {
    let dir = std::env::var_os("RAIDSIM_SHARED_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: {} not found (the shared traces sit beside the project checkout)", dir.display());
        None
    }
}

/// Runs `overrides` (whose workload is a list of requests) with a request
/// log: each request's response, ns, in arrival order.
pub fn responses_in_arrival_order(overrides: &[&str]) -> Vec<u64> {
    let overrides = [overrides, &["metrics.request_log=\"unused.parquet\""]].concat();
    let mut sim = raidsim_core::Simulation::new(config("", &overrides)).expect("builds");
    sim.run().expect("runs");
    let log = sim.request_log().expect("a log");
    let mut rows: Vec<(u64, u64)> = log.arrival_ns.iter().zip(&log.completion_ns).map(|(&a, &c)| (a, c - a)).collect();
    rows.sort_unstable();
    rows.into_iter().map(|(_, r)| r).collect()
}
