//! The sustained-load comparison of issue #7, shared by the test
//! `disksim_load.rs` and the example `disksim_load` (which prints the table
//! quoted in the README).
//!
//! The stream: random 4 KiB requests, 30 % reads, uniform over the first
//! 3 GiB, Poisson arrivals at 10,000 IOPS, open loop. Cases: preset
//! `disksim-ssd-validation` as is (2048 blocks per plane, cleaning never
//! runs) and with 1024 blocks per plane (cleaning runs from about 50 s on),
//! beside DiskSim 4.0 + SSD extension; preset `cr5m-table1` (empty drive)
//! beside SSDsim's Linux port. The peers' figures were measured by the
//! issue's author on streams of the same statistics (not the same draws),
//! 1,000,000 requests each.
#![allow(dead_code)]

use raidsim_core::config::RawConfig;
use raidsim_core::report::Report;
use raidsim_core::simulate;

/// One side-by-side case and the peer's published figures.
pub struct LoadCase {
    /// Label.
    pub name: &'static str,
    /// The peer simulator.
    pub peer: &'static str,
    /// Preset.
    pub preset: &'static str,
    /// Blocks per plane (the preset's own, or fewer to make cleaning run).
    pub blocks_per_plane: u32,
    /// Peer's mean response time, ms, if reported.
    pub mean_ms: Option<f64>,
    /// Peer's mean read response time, ms.
    pub read_ms: Option<f64>,
    /// Peer's mean write response time, ms.
    pub write_ms: Option<f64>,
    /// Peer's blocks cleaned.
    pub erases: Option<u64>,
    /// Peer's pages moved by cleaning.
    pub pages_moved: Option<u64>,
}

/// The cases of issue #7.
pub const LOAD_CASES: [LoadCase; 3] = [
    LoadCase {
        name: "disksim-ssd-validation, no cleaning",
        peer: "DiskSim 4.0",
        preset: "disksim-ssd-validation",
        blocks_per_plane: 2048,
        mean_ms: Some(0.3243),
        read_ms: Some(0.200),
        write_ms: Some(0.378),
        erases: None,
        pages_moved: None,
    },
    LoadCase {
        name: "disksim-ssd-validation, 1024 blocks/plane, cleaning",
        peer: "DiskSim 4.0",
        preset: "disksim-ssd-validation",
        blocks_per_plane: 1024,
        mean_ms: Some(1.345),
        read_ms: None,
        write_ms: None,
        erases: Some(8_483),
        pages_moved: Some(240_987),
    },
    LoadCase {
        name: "cr5m-table1, empty",
        peer: "SSDsim",
        preset: "cr5m-table1",
        blocks_per_plane: 4096,
        mean_ms: None,
        read_ms: Some(0.1610),
        write_ms: Some(0.1433),
        erases: None,
        pages_moved: None,
    },
];

/// Runs `case` on `requests` requests of the stream, with extra overrides.
pub fn run_load_case(case: &LoadCase, requests: u64, extra: &[String]) -> Report {
    let mut raw = RawConfig::from_preset(case.preset).expect("preset");
    let stream = [
        format!("ssd.geometry.blocks_per_plane={}", case.blocks_per_plane),
        format!("workload.requests={requests}"),
        "workload.arrival=poisson".into(),
        "workload.mean_interarrival_ns=100000".into(),
        "workload.read_fraction=0.3".into(),
        "workload.size.kind=fixed".into(),
        "workload.size.mean_bytes=4096".into(),
        "workload.address=uniform".into(),
        format!("workload.span_bytes={}", 3u64 << 30),
    ];
    for o in stream.iter().chain(extra) {
        raw.set(o).unwrap_or_else(|e| panic!("{o}: {e}"));
    }
    simulate(raw.resolve().expect("valid")).expect("runs")
}

/// Pages moved by cleaning in a single-drive report.
pub fn pages_moved(r: &Report) -> u64 {
    r.devices[0].pages_written.get("gc_write").copied().unwrap_or(0)
}
