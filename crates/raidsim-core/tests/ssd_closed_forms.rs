//! The SSD timing model against sums worked out by hand (issue #2).

mod common;

use common::config;
use raidsim_core::simulate;

const X: u64 = 102_400; // 4 KiB over a 40 MB/s channel
const T_READ: u64 = 25_000;
const T_PROG: u64 = 200_000;

fn one_request(op: &str, extra: &[&str]) -> f64 {
    let req = format!("workload.requests=[[0, \"{op}\", 0, 4096]]");
    let mut o = vec!["workload.kind=requests", req.as_str()];
    o.extend_from_slice(extra);
    let r = simulate(config("stripe-unit-table5", &o)).expect("runs");
    assert_eq!(r.host.requests, 1);
    r.host.response.mean_ns
}

#[test]
fn idle_4k_read_is_the_sum_of_its_parts() {
    let extra = ["ssd.timing.controller_overhead_ns=5000", "ssd.timing.t_command_ns=100"];
    // SATA-II 300 MB/s: 4096 B in ceil(13653.3) ns.
    let link = 13_654;
    assert_eq!(one_request("R", &extra), (5_000 + 100 + T_READ + X + link) as f64);
}

#[test]
fn idle_4k_write_is_the_sum_of_its_parts() {
    let extra = ["ssd.timing.controller_overhead_ns=5000", "ssd.timing.t_command_ns=100"];
    let link = 13_654;
    assert_eq!(one_request("W", &extra), (5_000 + link + 100 + X + T_PROG) as f64);
}

fn big_write_time(geometry: &[&str], pages: u64) -> f64 {
    let req = format!("workload.requests=[[0, \"W\", 0, {}]]", pages * 4096);
    let mut o = vec!["workload.kind=requests", req.as_str(), "ssd.timing.host_link_bandwidth_bytes_per_s=0"];
    o.extend_from_slice(geometry);
    simulate(config("stripe-unit-table5", &o)).expect("runs").host.response.mean_ns
}

#[test]
fn sequential_write_on_one_shared_channel_is_channel_bound() {
    // One channel, 8 dies: 7 transfers (716.8 us) outlast a program (200 us),
    // so the bus never idles: N transfers, then the last program.
    let t = big_write_time(&[], 256);
    assert_eq!(t, (256 * X + T_PROG) as f64);
}

#[test]
fn sequential_write_on_private_channels_is_die_bound() {
    // Four dies, each on its own channel: each die moves and programs its
    // N/4 pages back to back.
    let geometry = ["ssd.geometry.channels=4", "ssd.geometry.dies_per_chip=1", "ssd.geometry.planes_per_die=1"];
    let t = big_write_time(&geometry, 256);
    assert_eq!(t, (256 / 4 * (X + T_PROG)) as f64);
}

#[test]
fn reads_queued_on_one_die_add_up() {
    // n reads of distinct pages on a one-die, one-plane drive, all at t = 0:
    // the k-th finishes after k × (t_read + transfer); the mean is (n+1)/2 of that.
    let n = 10u64;
    let reqs: Vec<String> = (0..n).map(|i| format!("[0, \"R\", {}, 4096]", i * 4096)).collect();
    let list = format!("workload.requests=[{}]", reqs.join(", "));
    let o = [
        "workload.kind=requests",
        list.as_str(),
        "ssd.timing.host_link_bandwidth_bytes_per_s=0",
        "ssd.geometry.dies_per_chip=1",
        "ssd.geometry.planes_per_die=1",
        "ssd.geometry.blocks_per_plane=64",
    ];
    let r = simulate(config("stripe-unit-table5", &o)).expect("runs");
    let each = (T_READ + X) as f64;
    assert_eq!(r.host.response.mean_ns, (n + 1) as f64 / 2.0 * each);
    assert_eq!(r.host.response.max_ns, n * (T_READ + X));
}
