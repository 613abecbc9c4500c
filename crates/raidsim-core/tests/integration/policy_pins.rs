//! One closed-form test per policy, each failing if that policy is broken
//! by a one-line change (issue #8's list: ties to RMW, round robin not
//! advancing, shortest queue reduced to the primary copy, the stripe lock
//! disabled, XOR time or controller overhead dropped, cost-benefit inverted).
//! Defaults plus the overrides shown; no host link, so flash alone times I/O.

use crate::common;

use common::config;
use raidsim_core::array::{count_pages, ArrayGeometry, ArrayState, Planner};
use raidsim_core::config::{ArrayConfig, RaidLevel};
use raidsim_core::device::{Cause, Op};
use raidsim_core::report::Report;
use raidsim_core::simulate;

fn run(requests: &str, extra: &[&str]) -> Report {
    let list = format!("workload.requests=[{requests}]");
    let mut o = vec!["workload.kind=requests", list.as_str(), "ssd.timing.host_link_bandwidth_bytes_per_s=0", "ssd.geometry.blocks_per_plane=64"];
    o.extend_from_slice(extra);
    simulate(config("", &o)).expect("runs")
}

#[test]
fn a_tie_between_rmw_and_rcw_goes_to_reconstruct_write() {
    // RAID-4 3+1, one unit written: RMW reads it and the parity (2), RCW the
    // two other data units (2). md and the CR5M paper break the tie to RCW.
    let cfg = ArrayConfig { level: RaidLevel::Raid4, members: 4, stripe_unit_bytes: 4096, ..Default::default() };
    let geom = ArrayGeometry::new(&cfg, 1 << 30);
    let mut planner = Planner::new(&cfg, geom, 4096).expect("planner");
    let m = count_pages(&mut planner, &mut ArrayState::new(4), 4096, [Ok((Op::Write, 0, 4096))]).expect("plans");
    let rcw: Vec<u64> = m.iter().map(|p| p.pages_read[Cause::PreReadRcw.index()]).collect();
    let rmw: u64 = m.iter().map(|p| p.pages_read[Cause::PreReadRmw.index()]).sum();
    assert_eq!((rcw, rmw), (vec![0, 1, 1, 0], 0));
}

fn mirror_reads(policy: &str, requests: &str) -> Vec<u64> {
    let p = format!("array.read_policy=\"{policy}\"");
    let r = run(requests, &["array.level=raid1", "array.members=2", p.as_str()]);
    r.devices.iter().map(|d| d.pages_read.values().sum()).collect()
}

#[test]
fn round_robin_alternates_between_copies() {
    let reqs: Vec<String> = (0..10).map(|i| format!("[{}, \"R\", {}, 4096]", i * 1_000_000, i * 4096)).collect();
    assert_eq!(mirror_reads("round_robin", &reqs.join(",")), [5, 5]);
    assert_eq!(mirror_reads("primary", &reqs.join(",")), [10, 0]);
}

#[test]
fn shortest_queue_sends_a_read_to_the_idle_copy() {
    // Two reads at once: the first goes to copy 0, which is then busy; the
    // second goes to the copy with nothing outstanding.
    let reqs = "[0, \"R\", 0, 4096], [0, \"R\", 8192, 4096]";
    assert_eq!(mirror_reads("shortest_queue", reqs), [1, 1]);
}

#[test]
fn the_stripe_lock_serializes_two_updates_of_one_stripe() {
    // RAID-5 4+1, 4 KiB units: two one-unit writes into stripe 0 at once.
    // Each is a read-modify-write of its unit and the parity; the second may
    // start only when the first has written its parity.
    let raid5 = ["array.level=raid5", "array.members=5", "array.stripe_unit_bytes=4096"];
    let one = run("[0, \"W\", 0, 4096]", &raid5).host.response.max_ns;
    let two = run("[0, \"W\", 0, 4096], [0, \"W\", 4096, 4096]", &raid5).host.response.max_ns;
    assert_eq!(two, 2 * one, "the second update waits for the whole first one");
}

#[test]
fn xor_time_and_controller_overhead_add_exactly_their_cost() {
    // A full-stripe write of RAID-5 4+1 (4 KiB units): 4 KiB of parity.
    let base = ["array.level=raid5", "array.members=5", "array.stripe_unit_bytes=4096"];
    let req = "[0, \"W\", 0, 16384]";
    let t0 = run(req, &base).host.response.mean_ns;
    let mut with = base.to_vec();
    with.extend(["array.controller.xor_bytes_per_s=1000000000", "array.controller.overhead_ns=7000"]);
    let t1 = run(req, &with).host.response.mean_ns;
    assert_eq!(t1 - t0, (4096 + 7000) as f64, "4,096 ns of XOR at 1 GB/s and 7,000 ns of controller");
}

/// The block garbage collection erased first, under `victim`.
fn first_victim(victim: raidsim_core::config::GcVictim) -> usize {
    use raidsim_core::config::SsdConfig;
    use raidsim_core::ftl::Ftl;
    // One plane of 16 blocks of 4 pages, 4 spare blocks (48 logical pages);
    // cleaning once fewer than 3 blocks are free.
    let mut ssd = SsdConfig::default();
    let g = &mut ssd.geometry;
    (g.channels, g.dies_per_chip, g.planes_per_die, g.blocks_per_plane, g.pages_per_block) = (1, 1, 1, 16, 4);
    g.over_provisioning_fraction = 0.25;
    ssd.ftl.gc_threshold_fraction = 0.15;
    ssd.ftl.gc_victim = victim;
    let d = ssd.validate().expect("valid");
    let mut ftl = Ftl::new(&ssd, &d);
    let (old, young, now) = (0, 1_000_000_000_000, 1_000_000_001_000);
    // Blocks 0-9 written long ago, blocks 10-11 just now.
    for lpn in 0..48 {
        ftl.write(lpn, 0, if lpn < 40 { old } else { young }).expect("fill");
    }
    // Block 0 half invalid and old; block 10 three-quarters invalid and young.
    for lpn in [0, 1, 40, 41, 42] {
        ftl.write(lpn, 0, now).expect("overwrite");
    }
    let erased: Vec<usize> = (0..16).filter(|&b| ftl.erase_counts()[b] > 0).collect();
    assert_eq!(erased.len(), 1, "exactly one block collected: {erased:?}");
    erased[0]
}

#[test]
fn greedy_takes_the_emptiest_block_and_cost_benefit_the_old_one() {
    use raidsim_core::config::GcVictim;
    // Greedy: fewest valid pages (block 10, one valid). Cost-benefit:
    // (1 - u) / 2u x age: block 0 scores 0.5 x 1e12, block 10 1.5 x 1e3.
    assert_eq!(first_victim(GcVictim::Greedy), 10);
    assert_eq!(first_victim(GcVictim::CostBenefit), 0);
}
