//! Simulated host requests per second (issues #2 and #3).
//!
//! 1,000,000 random 4 KiB requests, 30 % reads, uniform over 3 GiB, Poisson
//! arrivals at 10,000 IOPS, on the stripe-unit paper's 32 GiB drive (Table 5)
//! alone, and on a RAID5 4+1 of it (64 KiB stripe unit), empty; and the
//! single drive full, as the preset starts; and a 17-disk RAID5 of Chen &
//! Lee's IBM Lightning under their closed loop (20 processes, exponential
//! 16 KiB requests, half writes). Reports the median of 5 runs of
//! each, in-core (`Simulation::run`) and including the drive set-up
//! (preconditioning), and the process's peak resident memory after each.
//!
//! Run: `cargo bench -p raidsim-core --bench requests`

use raidsim_core::config::RawConfig;
use raidsim_core::Simulation;
use std::time::Instant;

const REQUESTS: u64 = 1_000_000;
const RUNS: usize = 5;

const SSD_WORKLOAD: &str = "1,000,000 random 4 KiB requests, 30 % reads, 3 GiB span, Poisson 10,000 IOPS, Table-5 32 GiB drive";
const HDD_WORKLOAD: &str = "1,000,000 requests, closed loop of 20, exponential 16 KiB (1 KiB steps), half writes, uniform";

fn config(array: &[&str]) -> raidsim_core::config::ResolvedConfig {
    let mut raw = RawConfig::from_preset("stripe-unit-table5").expect("preset");
    for o in array {
        raw.set(o).expect("override");
    }
    for o in [
        "workload.requests=1000000",
        "workload.read_fraction=0.3",
        "workload.span_bytes=3221225472",
        "workload.arrival=poisson",
        "workload.mean_interarrival_ns=100000",
        "workload.size.kind=fixed",
        "workload.size.mean_bytes=4096",
    ] {
        raw.set(o).expect("override");
    }
    raw.resolve().expect("valid config")
}

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    // Empty drives, as issues #2 and #3 measured; then the preset as it
    // stands (full, as DiskSim starts), where every write invalidates an old
    // page somewhere in the maps: slower, for cache misses, not more work.
    bench("single Table-5 SSD, empty", config(&["precondition.fill_fraction=0"]), SSD_WORKLOAD);
    bench(
        "RAID5 4+1 of the Table-5 SSD, 64 KiB unit, empty",
        config(&["precondition.fill_fraction=0", "array.level=raid5", "array.members=5", "array.stripe_unit_bytes=65536"]),
        SSD_WORKLOAD,
    );
    bench("single Table-5 SSD, full (the preset)", config(&[]), SSD_WORKLOAD);
    bench("RAID5 of 17 IBM Lightning disks, 16 KiB unit", disk_array(), HDD_WORKLOAD);
}

fn disk_array() -> raidsim_core::config::ResolvedConfig {
    let mut raw = RawConfig::from_preset("hdd-ibm-lightning").expect("preset");
    for o in [
        "array.level=raid5",
        "array.members=17",
        "array.stripe_unit_bytes=16384",
        "workload.requests=1000000",
        "workload.processes=20",
        "workload.read_fraction=0.5",
        "workload.alignment_bytes=1024",
        "workload.size.kind=exponential",
        "workload.size.mean_bytes=16384",
        "workload.size.quantum_bytes=1024",
        "workload.size.min_bytes=1024",
    ] {
        raw.set(o).expect("override");
    }
    raw.resolve().expect("valid config")
}

fn bench(name: &str, resolved: raidsim_core::config::ResolvedConfig, workload: &str) {
    println!("== {name}");
    let mut rates = Vec::with_capacity(RUNS);
    let mut build_s = Vec::with_capacity(RUNS);
    for run in 0..RUNS {
        let t0 = Instant::now();
        let mut sim = Simulation::new(resolved.clone()).expect("builds");
        let t1 = Instant::now();
        sim.run().expect("runs");
        let t2 = Instant::now();
        let done = sim.report().host.requests;
        assert_eq!(done, REQUESTS);
        let rate = done as f64 / (t2 - t1).as_secs_f64();
        let total_rate = done as f64 / (t2 - t0).as_secs_f64();
        eprintln!("run {run}: {rate:>12.0} requests/s simulating, {total_rate:>12.0} requests/s including drive set-up");
        rates.push(rate);
        build_s.push((t1 - t0).as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    build_s.sort_by(f64::total_cmp);
    println!("workload: {workload}");
    println!("median simulated host requests/s: {:.0} (of {RUNS} runs; min {:.0}, max {:.0})", rates[RUNS / 2], rates[0], rates[RUNS - 1]);
    println!("median drive set-up time: {:.3} s", build_s[RUNS / 2]);
    match peak_rss_mib() {
        Some(m) => println!("peak resident memory: {m:.0} MiB"),
        None => println!("peak resident memory: unavailable (no /proc/self/status)"),
    }
}
