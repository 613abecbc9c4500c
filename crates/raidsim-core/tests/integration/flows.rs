//! Flows (`workload.kind = "flows"`): several synthetic flows at once, each
//! with its own submission queue, part of the device and report section,
//! and the NVMe queue fetch size (MQSim's `Queue_Fetch_Size`). Reads of a
//! fresh drive (nothing written): each goes to its page's static place and
//! takes 25 us of sensing and 102.4 us of transfer when alone.

use crate::common;

use common::{config, refused, ONE_DIE};
use raidsim_core::{simulate, Simulation};

/// One read alone on an idle die: sensing + transfer, ns.
const T: u64 = 25_000 + 102_400;

/// A fresh drive of four channels, one die each, timed as `ONE_DIE`.
fn four_dies(extra: &[&str]) -> Vec<String> {
    let mut o: Vec<String> = ONE_DIE.iter().map(|s| s.to_string()).collect();
    o.retain(|s| !s.starts_with("ssd.geometry.channels="));
    o.push("ssd.geometry.channels=4".into());
    o.push("precondition.fill_fraction=0".into());
    o.push("precondition.random_overwrite_factor=0".into());
    o.push("workload.kind=flows".into());
    o.extend(extra.iter().map(|s| s.to_string()));
    o
}

fn run(overrides: &[String]) -> raidsim_core::Report {
    let o: Vec<&str> = overrides.iter().map(String::as_str).collect();
    simulate(config("", &o)).unwrap_or_else(|e| panic!("{e}"))
}

const READER: &str = "read_fraction = 1.0, size = { kind = \"fixed\", mean_bytes = 4096 }";

#[test]
fn a_fetch_size_of_one_serves_a_queue_one_command_at_a_time_and_counts_the_wait() {
    // Four processes, 100 requests, fetched one at a time: request k ends at (k + 1) T; the first four
    // arrive at 0, each later one when the request four before it ends, so it waits 3 T and is served in T.
    let flows = format!("workload.flows=[{{ requests = 100, processes = 4, {READER} }}]");
    let r = run(&four_dies(&[&flows, "workload.queue_fetch_size=1"]));
    let (n, p) = (100.0, 4.0);
    let mean = (T as f64 * p * (p + 1.0) / 2.0 + (n - p) * p * T as f64) / n;
    let f = &r.flows[0];
    assert_eq!(f.host.response.mean_ns, mean);
    assert_eq!(f.host.response.max_ns, 4 * T);
    assert_eq!(f.peak_queued, 3, "three commands wait while one is served");
    assert_eq!(r.host.duration_ns, 100 * T, "served back to back");
    // Unlimited, the four spread over the dies: no command waits in the queue, and the mean is lower.
    let r = run(&four_dies(&[&flows]));
    assert_eq!(r.flows[0].peak_queued, 0);
    assert!(r.flows[0].host.response.mean_ns < 2.0 * T as f64, "{}", r.flows[0].host.response.mean_ns);
}

#[test]
fn each_queue_is_fetched_on_its_own() {
    // Flow 1's deep queue waits for its own fetch slot, never for flow 2's: flow 2's single process
    // finds its slot free each time, so it waits only for the dies.
    let flows = format!("workload.flows=[{{ requests = 200, processes = 16, {READER} }}, {{ requests = 50, processes = 1, {READER} }}]");
    let r = run(&four_dies(&[&flows, "workload.queue_fetch_size=2", "workload.address_space=shared"]));
    assert_eq!(r.flows[0].peak_queued, 14);
    assert_eq!(r.flows[1].peak_queued, 0);
    // At most 2 + 1 commands on 4 dies: flow 2's read waits at most behind the 2 of flow 1 on its die.
    assert!(r.flows[1].host.response.max_ns <= 3 * T, "{}", r.flows[1].host.response.max_ns);
}

/// The request log's op of a read (a write's is 1).
const READ: u8 = 0;

/// Each request of the run with a request log: (op, offset, arrival), and the capacity.
fn logged(overrides: &[String]) -> (Vec<(u8, u64, u64)>, u64) {
    let mut o: Vec<&str> = overrides.iter().map(String::as_str).collect();
    o.push("metrics.request_log=\"unused.parquet\"");
    let mut sim = Simulation::new(config("", &o)).expect("builds");
    sim.run().expect("runs");
    let capacity = sim.config().capacity_bytes;
    let log = sim.request_log().expect("a log");
    let rows = (0..log.len()).map(|i| (log.op[i], log.offset_bytes[i], log.arrival_ns[i])).collect();
    (rows, capacity)
}

#[test]
fn partitioned_flows_address_their_own_part_of_the_device_and_shared_flows_all_of_it() {
    let flows = "workload.flows=[{ requests = 400, processes = 2, read_fraction = 1.0 }, { requests = 400, processes = 2, read_fraction = 0.0 }]";
    let (rows, capacity) = logged(&four_dies(&[flows]));
    let half = capacity / 2;
    let (reads, writes): (Vec<_>, Vec<_>) = rows.iter().partition(|(op, _, _)| *op == READ);
    assert_eq!((reads.len(), writes.len()), (400, 400));
    assert!(reads.iter().all(|&&(_, o, _)| o + 4096 <= half), "flow 1 stays in the first half");
    assert!(writes.iter().all(|&&(_, o, _)| o >= half), "flow 2 stays in the second half");
    // Shared, each flow draws from the whole device (400 uniform draws all in one half: 2^-400).
    let (rows, _) = logged(&four_dies(&[flows, "workload.address_space=shared"]));
    assert!(rows.iter().any(|&(op, o, _)| op == READ && o >= half));
    assert!(rows.iter().any(|&(op, o, _)| op != READ && o < half));
}

#[test]
fn each_part_starts_on_the_flows_alignment() {
    // A third of the capacity is no whole number of 12 KiB units; each part is, so every offset stays aligned.
    let f = "{ requests = 300, processes = 2, alignment_bytes = 12288, size = { kind = \"fixed\", mean_bytes = 12288 } }";
    let (rows, capacity) = logged(&four_dies(&[&format!("workload.flows=[{f}, {f}, {f}]")]));
    assert_ne!(capacity / 3 % 12288, 0, "the test needs a capacity whose third is not aligned");
    assert!(rows.iter().all(|&(_, o, _)| o % 12288 == 0));
    assert!(rows.iter().any(|&(_, o, _)| o >= 2 * (capacity / 3 / 12288 * 12288)), "the third flow is on the third part");
}

#[test]
fn the_stop_time_ends_every_flow_at_once() {
    // Open loop, one arrival each 100 us from 0: those before 10 ms are 0, 0.1, ... 9.9 ms.
    let open = "{ requests = 0, mean_interarrival_ns = 100000, arrival = \"fixed\", read_fraction = 1.0 }";
    let flows = format!("workload.flows=[{open}, {open}]");
    let r = run(&four_dies(&[&flows, "workload.stop_time_ns=10000000"]));
    assert_eq!((r.flows[0].issued, r.flows[1].issued), (100, 100));
    assert_eq!(r.workload.requests, 200);
    // Closed loop: no process issues at or after the stop time, so none arrives then.
    let closed = format!("workload.flows=[{{ requests = 0, processes = 3, {READER} }}]");
    let (rows, _) = logged(&four_dies(&[&closed, "workload.stop_time_ns=5000000"]));
    assert!(rows.iter().all(|&(_, _, a)| a < 5_000_000));
    assert!(rows.iter().any(|&(_, _, a)| a + T >= 5_000_000), "issued up to the stop time");
}

#[test]
fn the_flows_add_up_to_the_host() {
    let flows = format!("workload.flows=[{{ requests = 300, processes = 8, {READER} }}, {{ requests = 200, processes = 2, read_fraction = 0.5 }}]");
    let r = run(&four_dies(&[&flows, "sim.warmup_requests=50"]));
    let names: Vec<&str> = r.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["flow-1", "flow-2"]);
    let requests: u64 = r.flows.iter().map(|f| f.host.requests).sum();
    assert_eq!(requests, r.host.requests, "after the warm-up, flow by flow as for the host");
    assert_eq!(r.flows.iter().map(|f| f.issued).sum::<u64>(), 500);
    let total_ns: f64 = r.flows.iter().map(|f| f.host.response.mean_ns * f.host.requests as f64).sum();
    assert!((total_ns / requests as f64 - r.host.response.mean_ns).abs() < 1e-6 * r.host.response.mean_ns);
    assert!(r.stats.iter().any(|s| s.path == "flows.flow-2.response.mean_ns"));
}

#[test]
fn requests_that_meet_lost_data_fail_in_their_flow() {
    // RAID-0 of two drives loses a member at the 50th request: from then on, requests touching it fail.
    let flows = format!("workload.flows=[{{ requests = 150, processes = 2, {READER} }}, {{ requests = 150, processes = 3 }}]");
    let r = run(&four_dies(&[&flows, "array.level=raid0", "array.members=2", "array.failures=[{ member = 1, at_request = 50 }]"]));
    let rebuild = r.rebuild.as_ref().expect("a failure section");
    let failed: u64 = r.flows.iter().map(|f| f.failed_reads + f.failed_writes).sum();
    assert!(failed > 0);
    assert_eq!(failed, rebuild.failed_reads + rebuild.failed_writes);
    assert_eq!(r.flows.iter().map(|f| f.failed_writes).sum::<u64>(), rebuild.failed_writes);
    assert_eq!(r.flows[0].failed_writes, 0, "flow 1 only reads");
}

#[test]
fn one_workload_has_no_flow_section() {
    let r = simulate(config("", &ONE_DIE)).expect("runs");
    assert!(r.flows.is_empty());
    let json = serde_json::to_value(&r).expect("json");
    assert!(json.get("flows").is_none(), "a report without flows keeps its shape");
}

#[test]
fn bad_flows_are_refused_by_key() {
    let base = ["workload.kind=flows"];
    let with = |extra: &str| refused(&[base[0], extra]);
    assert!(refused(&base).contains("at least one"), "{}", refused(&base));
    let e = with("workload.flows=[{ read_fraction = 0.5 }, { read_fraction = 2.0 }]");
    assert!(e.contains("workload.flows[1].read_fraction"), "{e}");
    let e = with("workload.flows=[{ requests = 0 }]");
    assert!(e.contains("workload.flows[0].requests") && e.contains("stop_time_ns"), "{e}");
    let e = with("workload.flows=[{ colour = 1 }]");
    assert!(e.contains("workload.flows[0]") && e.contains("colour"), "{e}");
    let e = with("workload.flows=[{ span_bytes = 1099511627776 }, {}]");
    assert!(e.contains("workload.flows[0].span_bytes") && e.contains("part of flow 1"), "{e}");
    let e = refused(&["workload.kind=flows", "workload.flows=[{}]", "workload.stop_time_ns=4611686018427387905"]);
    assert!(e.contains("workload.stop_time_ns"), "{e}");
}

#[test]
fn counting_mode_refuses_flows() {
    let resolved = config("", &["workload.kind=flows", "workload.flows=[{}]", "array.level=raid5", "array.members=4"]);
    let e = raidsim_core::count(&resolved).expect_err("refused");
    assert!(e.to_string().contains("counting mode"), "{e}");
}
