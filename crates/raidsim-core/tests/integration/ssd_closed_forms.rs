//! The SSD timing model against sums worked out by hand (issues #2, #7).
//! Every case states its geometry: defaults (8 channels of one die with 8
//! planes, 40 MB/s channels, SATA-II link, no spare bytes, no summary
//! pages, an empty drive) plus the overrides shown.

use crate::common;

use common::config;
use raidsim_core::report::Report;
use raidsim_core::simulate;

const X: u64 = 102_400; // 4 KiB over a 40 MB/s channel
const T_READ: u64 = 25_000;
const T_PROG: u64 = 200_000;
const T_ERASE: u64 = 1_500_000;
/// SATA-II 300 MB/s: 4096 B in ceil(13653.3) ns.
const LINK_4K: u64 = 13_654;

fn run(requests: &[(u64, &str, u64, u64)], extra: &[&str]) -> Report {
    let list: Vec<String> = requests.iter().map(|(t, op, o, l)| format!("[{t}, \"{op}\", {o}, {l}]")).collect();
    let req = format!("workload.requests=[{}]", list.join(", "));
    let mut o = vec!["workload.kind=requests", req.as_str()];
    o.extend_from_slice(extra);
    let r = simulate(config("", &o)).expect("runs");
    assert_eq!(r.host.requests, requests.len() as u64);
    r
}

fn one_request(op: &str, extra: &[&str]) -> f64 {
    run(&[(0, op, 0, 4096)], extra).host.response.mean_ns
}

#[test]
fn idle_4k_read_is_the_sum_of_its_parts() {
    let extra = ["ssd.timing.controller_overhead_ns=5000", "ssd.timing.t_command_ns=100"];
    assert_eq!(one_request("R", &extra), (5_000 + 100 + T_READ + X + LINK_4K) as f64);
}

#[test]
fn idle_4k_write_is_the_sum_of_its_parts() {
    let extra = ["ssd.timing.controller_overhead_ns=5000", "ssd.timing.t_command_ns=100"];
    assert_eq!(one_request("W", &extra), (5_000 + LINK_4K + 100 + X + T_PROG) as f64);
}

#[test]
fn write_ack_transfer_answers_when_the_data_reaches_the_chip() {
    // SSDsim's semantics: 175 ns command + 102.4 us transfer = 102,575 ns unloaded.
    let extra = ["ssd.write_ack=transfer", "ssd.timing.t_command_ns=175", "ssd.timing.host_link_bandwidth_bytes_per_s=0"];
    assert_eq!(one_request("W", &extra), (175 + X) as f64);
    // The program still occupies the die: a read of the same die right after waits for it.
    let r = run(&[(0, "W", 0, 4096), (1, "R", 0, 4096)], &extra);
    assert_eq!(r.host.read_response.mean_ns, (175 + X + T_PROG + 175 + T_READ + X - 1) as f64);
}

#[test]
fn spare_bytes_cross_the_channel_with_every_sector() {
    // DiskSim: 8 sectors × 528 bytes × 25 ns = 105.6 us.
    let extra = ["ssd.geometry.spare_bytes_per_sector=16", "ssd.timing.host_link_bandwidth_bytes_per_s=0"];
    assert_eq!(one_request("R", &extra), (T_READ + 105_600) as f64);
}

#[test]
fn only_the_requested_sectors_cross_the_channel() {
    let extra = ["ssd.timing.host_link_bandwidth_bytes_per_s=0"];
    let r = run(&[(0, "R", 1024, 1024)], &extra);
    assert_eq!(r.host.response.mean_ns, (T_READ + X / 4) as f64);
}

#[test]
fn partial_page_write_reads_the_old_page_first() {
    let extra = ["ssd.timing.host_link_bandwidth_bytes_per_s=0"];
    // The first 2 KiB write finds the page empty: no read.
    let r = run(&[(0, "W", 0, 2048)], &extra);
    assert_eq!(r.host.response.mean_ns, (X / 2 + T_PROG) as f64);
    assert!(!r.devices[0].pages_read.contains_key("partial_page_read"));
    // Once the page holds data, a 2 KiB write senses it, then moves 2 KiB in and programs.
    let r = run(&[(0, "W", 0, 4096), (10_000_000, "W", 2048, 2048)], &extra);
    let second = T_READ + X / 2 + T_PROG;
    assert_eq!(r.host.write_response.mean_ns, (X + T_PROG + second) as f64 / 2.0);
    assert_eq!(r.devices[0].pages_read.get("partial_page_read"), Some(&1));
}

#[test]
fn chip_parallel_unit_makes_the_dies_of_a_chip_take_turns() {
    // One channel, one chip of two dies, one plane each; pages 0 and 1 go to dies 0 and 1.
    let geometry =
        ["ssd.geometry.channels=1", "ssd.geometry.dies_per_chip=2", "ssd.geometry.planes_per_die=1", "ssd.timing.host_link_bandwidth_bytes_per_s=0"];
    let reqs = [(0, "R", 0, 4096), (0, "R", 4096, 4096)];
    // Per die: both sense at once, the second transfer waits for the first.
    let die = run(&reqs, &geometry).host.response.max_ns;
    assert_eq!(die, T_READ + 2 * X);
    // Per chip: the second die senses only after the first read is out.
    let mut chip = geometry.to_vec();
    chip.push("ssd.parallel_unit=chip");
    assert_eq!(run(&reqs, &chip).host.response.max_ns, 2 * (T_READ + X));
}

#[test]
fn a_reads_command_on_the_channel_waits_for_another_dies_transfer() {
    // Dies 0 and 1 on one channel, commands of 1 us. Die 0's read moves its
    // data over [26, 128.4) us; die 1's read arrives at 26.5 us. Charged to
    // the die, its command and sensing overlap that transfer and only its own
    // transfer waits; on the channel (MQSim), its command waits for the
    // channel, then it senses and transfers.
    let geometry = [
        "ssd.geometry.channels=1",
        "ssd.geometry.dies_per_chip=2",
        "ssd.geometry.planes_per_die=1",
        "ssd.timing.host_link_bandwidth_bytes_per_s=0",
        "ssd.timing.t_command_ns=1000",
    ];
    let reqs = [(0, "R", 0, 4096), (26_500, "R", 4096, 4096)];
    let first = 1_000 + T_READ + X;
    assert_eq!(run(&reqs, &geometry).host.response.max_ns, first + X - 26_500);
    let on_channel = [&geometry[..], &["ssd.timing.read_command_on_channel=true"]].concat();
    assert_eq!(run(&reqs, &on_channel).host.response.max_ns, first + 1_000 + T_READ + X - 26_500);
}

#[test]
fn a_read_waiting_for_flash_does_not_hold_the_host_link_against_a_write() {
    // The read of page 0 (channel 0) needs the link only after 127.4 us of
    // flash work; the write of page 1 (channel 1) arriving at 1 us moves its
    // data over the link at once.
    let r = run(&[(0, "R", 0, 4096), (1_000, "W", 4096, 4096)], &[]);
    assert_eq!(r.host.write_response.mean_ns, (LINK_4K + X + T_PROG) as f64);
    assert_eq!(r.host.read_response.mean_ns, (T_READ + X + LINK_4K) as f64);
}

fn big_write_time(geometry: &[&str], pages: u64) -> f64 {
    let mut o = vec!["ssd.timing.host_link_bandwidth_bytes_per_s=0"];
    o.extend_from_slice(geometry);
    run(&[(0, "W", 0, pages * 4096)], &o).host.response.mean_ns
}

#[test]
fn sequential_write_on_one_shared_channel_is_channel_bound() {
    // One channel, 8 dies: 7 transfers (716.8 us) outlast a program (200 us),
    // so the bus never idles: N transfers, then the last program.
    let t = big_write_time(&["ssd.geometry.channels=1", "ssd.geometry.dies_per_chip=8"], 256);
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
    let reqs: Vec<(u64, &str, u64, u64)> = (0..n).map(|i| (0, "R", i * 4096, 4096)).collect();
    let o = [
        "ssd.timing.host_link_bandwidth_bytes_per_s=0",
        "ssd.geometry.channels=1",
        "ssd.geometry.planes_per_die=1",
        "ssd.geometry.blocks_per_plane=64",
    ];
    let r = run(&reqs, &o);
    let each = (T_READ + X) as f64;
    assert_eq!(r.host.response.mean_ns, (n + 1) as f64 / 2.0 * each);
    assert_eq!(r.host.response.max_ns, n * (T_READ + X));
}

#[test]
fn cleaning_owed_by_a_write_runs_before_the_dies_next_operation() {
    // A full one-die drive; the write takes its plane to the threshold and
    // leaves cleaning owed; a read a second later, on the same die, waits for
    // that cleaning first (DiskSim cleans an element before serving it).
    let o = [
        "ssd.timing.host_link_bandwidth_bytes_per_s=0",
        "ssd.geometry.channels=1",
        "ssd.geometry.planes_per_die=1",
        "ssd.geometry.blocks_per_plane=64",
        "precondition.fill_fraction=1.0",
        "ssd.ftl.gc_threshold_fraction=0.1",
    ];
    // Find a write that triggers cleaning: overwrite page 0 until it does.
    let mut writes = Vec::new();
    for i in 0..4096u64 {
        writes.push((i * 1_000_000, "W", 0, 4096));
        let r = run(&writes, &o);
        if r.devices[0].erases > 0 {
            let d = &r.devices[0];
            let copied = d.pages_written.get("gc_write").copied().unwrap_or(0);
            let gc = copied * (T_READ + T_PROG) + d.erases * T_ERASE;
            let t = (i + 1) * 1_000_000 + 500_000_000;
            writes.push((t, "R", 4096, 4096));
            let r = run(&writes, &o);
            assert_eq!(r.host.read_response.max_ns, gc + T_READ + X, "{copied} pages copied, {} erases", d.erases);
            return;
        }
    }
    panic!("no write triggered cleaning");
}
