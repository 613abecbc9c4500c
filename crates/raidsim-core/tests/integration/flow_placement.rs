//! Flows that place their data (`channels`, `chips`) and precondition their
//! own part (`fill_fraction`), as MQSim's per-flow `Channel_IDs`, `Chip_IDs`
//! and `Initial_Occupancy_Percentage`. A fresh drive of four channels, one
//! die each, timed as `ONE_DIE`: a read alone takes 25 us of sensing and
//! 102.4 us of transfer, and goes to its page's static place.

use crate::common;

use common::{config, refused, ONE_DIE};
use raidsim_core::{simulate, Simulation};

/// One read alone on an idle die: sensing + transfer, ns.
const T: u64 = 25_000 + 102_400;

const READER: &str = "read_fraction = 1.0, size = { kind = \"fixed\", mean_bytes = 4096 }";
const WRITER: &str = "read_fraction = 0.0, size = { kind = \"fixed\", mean_bytes = 4096 }";

/// A fresh drive of `channels` channels of `chips` chips, one die each, running `flows`.
fn drive(channels: u32, chips: u32, flows: &str, extra: &[&str]) -> Vec<String> {
    let mut o: Vec<String> = ONE_DIE.iter().filter(|s| !s.starts_with("ssd.geometry.c")).map(|s| s.to_string()).collect();
    o.push(format!("ssd.geometry.channels={channels}"));
    o.push(format!("ssd.geometry.chips_per_channel={chips}"));
    o.push("precondition.fill_fraction=0".into());
    o.push("precondition.random_overwrite_factor=0".into());
    o.push("workload.kind=flows".into());
    o.push(format!("workload.flows=[{flows}]"));
    o.extend(extra.iter().map(|s| s.to_string()));
    o
}

fn run(overrides: &[String]) -> raidsim_core::Report {
    let o: Vec<&str> = overrides.iter().map(String::as_str).collect();
    simulate(config("", &o)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn flows_on_their_own_channels_never_wait_for_each_other() {
    // Flow 2 keeps 16 reads queued; flow 1 reads one at a time. On their own channels, every read
    // of flow 1 finds its die and bus idle: exactly T. Striped over all four, it waits behind flow 2's.
    let flows = format!("{{ requests = 200, processes = 1, {READER} }}, {{ requests = 2000, processes = 16, {READER} }}");
    let placed =
        flows.replace("processes = 1,", "processes = 1, channels = [0, 1],").replace("processes = 16,", "processes = 16, channels = [2, 3],");
    let r = run(&drive(4, 1, &placed, &[]));
    assert_eq!((r.flows[0].host.response.mean_ns, r.flows[0].host.response.max_ns), (T as f64, T));
    let shared = run(&drive(4, 1, &flows, &[]));
    assert!(shared.flows[0].host.response.mean_ns > 1.5 * T as f64, "{}", shared.flows[0].host.response.mean_ns);
}

#[test]
fn a_flows_pages_land_on_its_chips_only() {
    // Two channels of two chips: flow 1 on chip 0 of channel 1, flow 2 on both chips of channel 0;
    // chip 1 of channel 1 holds nothing. Chips are numbered channel by channel.
    let flows = format!(
        "{{ requests = 300, processes = 4, channels = [1], chips = [0], {WRITER} }}, \
         {{ requests = 500, processes = 4, channels = [0], {WRITER} }}"
    );
    let r = run(&drive(2, 2, &flows, &[]));
    let chips = &r.devices[0].chip_pages_written;
    assert_eq!(chips[2], 300, "flow 1's pages, on channel 1's chip 0: {chips:?}");
    assert_eq!(chips[3], 0, "{chips:?}");
    assert_eq!(chips[0] + chips[1], 500, "{chips:?}");
    // Flow 2's pages stripe over its two chips: 250 each (random pages, their static places alternate).
    assert!(chips[0].abs_diff(chips[1]) < 100, "{chips:?}");
}

#[test]
fn parts_are_sized_by_the_chips_they_hold() {
    // Flow 1 holds one channel of four: a quarter of the capacity; flow 2 the next three quarters.
    let flows =
        format!("{{ requests = 400, processes = 2, channels = [0], {READER} }}, {{ requests = 400, processes = 2, channels = [1, 2, 3], {READER} }}");
    let mut o: Vec<String> = drive(4, 1, &flows, &[]);
    o.push("metrics.request_log=\"unused.parquet\"".into());
    let o: Vec<&str> = o.iter().map(String::as_str).collect();
    let resolved = config("", &o);
    let capacity = resolved.capacity_bytes;
    let quarter = capacity / 4 / 4096 * 4096;
    assert_eq!(resolved.flow_parts, vec![(0, quarter), (quarter, (capacity as u128 * 3 / 4) as u64 / 4096 * 4096)]);
    let mut sim = Simulation::new(resolved).expect("builds");
    sim.run().expect("runs");
    let log = sim.request_log().expect("a log");
    let (mut first, mut second) = (0, 0);
    for &o in &log.offset_bytes {
        if o < quarter {
            first += 1;
        } else {
            second += 1;
        }
    }
    assert_eq!((first, second), (400, 400));
}

#[test]
fn flows_on_the_same_chips_split_them_and_meet_there() {
    // Both on channels 0 and 1 of four: each holds half of those chips' capacity, a quarter of the
    // drive (MQSim's share), and flow 1's reads wait behind flow 2's.
    let flows = format!(
        "{{ requests = 200, processes = 1, channels = [0, 1], {READER} }}, {{ requests = 2000, processes = 16, channels = [0, 1], {READER} }}"
    );
    let o = drive(4, 1, &flows, &[]);
    let resolved = config("", &o.iter().map(String::as_str).collect::<Vec<_>>());
    let quarter = resolved.capacity_bytes / 4 / 4096 * 4096;
    assert_eq!(resolved.flow_parts, vec![(0, quarter), (quarter, quarter)]);
    let r = run(&o);
    assert!(r.flows[0].host.response.mean_ns > 1.5 * T as f64, "{}", r.flows[0].host.response.mean_ns);
    let read = |c: u32| r.stats.iter().find(|s| s.path == format!("ssd.chip[{c}].pages_read")).map_or(-1.0, |s| s.value);
    let chips: Vec<f64> = (0..4).map(read).collect();
    assert_eq!(chips[2..], [0.0, 0.0], "{chips:?}");
    assert_eq!(chips[0] + chips[1], 2200.0, "{chips:?}");
}

#[test]
fn each_flow_preconditions_its_own_part() {
    // Flow 1's chips start nearly full and aged, flow 2's empty: flow 2's writes find free blocks
    // and never collect; the same writes on a drive filled as one space do.
    let flows = |fill: &str| {
        format!(
            "{{ requests = 1, processes = 1, channels = [0, 1], {READER} {fill} }}, \
             {{ requests = 3000, processes = 4, channels = [2, 3], {WRITER} }}"
        )
    };
    let aged = ["precondition.random_overwrite_factor=1"];
    let own = run(&drive(4, 1, &flows(", fill_fraction = 0.9").replace("channels = [2, 3],", "channels = [2, 3], fill_fraction = 0.0,"), &aged));
    assert_eq!(own.devices[0].erases, 0);
    let whole = run(&drive(4, 1, &flows(""), &[aged[0], "precondition.fill_fraction=0.9"]));
    assert!(whole.devices[0].erases > 0, "flow 2's part is filled and aged too");
}

#[test]
fn placements_a_run_cannot_honour_are_refused_by_key() {
    let f = |a: &str, b: &str| drive(4, 2, &format!("{{ requests = 10, {READER} {a} }}, {{ requests = 10, {READER} {b} }}"), &[]);
    let check = |o: Vec<String>, key: &str, says: &str| {
        let o: Vec<&str> = o.iter().map(String::as_str).collect();
        let e = refused(&o);
        assert!(e.contains(key) && e.contains(says), "{e}");
    };
    check(f(", channels = [0, 1]", ", channels = [1, 2]"), "workload.flows[0].channels", "chip 0 of channel 0 by 1 flows, chip 0 of channel 1 by 2");
    check(f(", channels = [0], chips = [0]", ", channels = [0]"), "workload.flows[1].channels", "shared unevenly");
    check(f(", channels = [4]", ", channels = [0]"), "workload.flows[0].channels", "names 4; the drive has 4 channels");
    check(f(", chips = [2]", ", channels = [0]"), "workload.flows[0].chips", "names 2; the drive has 2 data chips");
    check(f(", channels = [0]", ""), "workload.flows[1].channels", "give every flow its set");
    check(f(", channels = [0, 0]", ", channels = [1]"), "workload.flows[0].channels", "names 0 twice");
    check(f(", fill_fraction = 1.5", ""), "workload.flows[0].fill_fraction", "1.5 is not a share");
    let mut shared = f(", channels = [0]", ", channels = [1]");
    shared.push("workload.address_space=shared".into());
    check(shared, "workload.flows[0].channels", "address_space = \"partitioned\"");
    let mut dynamic = f(", channels = [0]", ", channels = [1]");
    dynamic.push("ssd.ftl.allocation=dynamic".into());
    check(dynamic, "ssd.ftl.allocation", "must be \"static\"");
    let mut fast = f(", channels = [0]", ", channels = [1]");
    fast.extend(["ssd.ftl.scheme=fast".into(), "ssd.ftl.log_blocks_per_plane=4".into()]);
    check(fast, "ssd.ftl.scheme", "must be a page map");
    // A flow's own keys are named, however its table is read.
    check(f(", processes = -5", ""), "workload.flows[0].processes", "invalid value");
    let raw = |flow: &str| drive(4, 2, &format!("{{ requests = 10 }}, {flow}"), &[]);
    check(raw("{ requests = 10, size = { kind = \"fixed\", mean_byte = 4096 } }"), "workload.flows[1].size.mean_byte", "unknown field");
    check(f(", chanels = [0]", ""), "workload.flows[0].chanels", "also takes `channels`, `chips` and `fill_fraction`");
    check(f(", channels = [-1]", ", channels = [1]"), "workload.flows[0].channels", "invalid value");
    check(f(", fill_fraction = \"x\"", ""), "workload.flows[0].fill_fraction", "invalid type");
    // Only chips given: the error names chips.
    check(f(", chips = [0]", ", chips = [0, 1]"), "workload.flows[1].chips", "shared unevenly");
    let mut fast_fill = f(", fill_fraction = 0.5", "");
    fast_fill.extend(["ssd.ftl.scheme=fast".into(), "ssd.ftl.log_blocks_per_plane=4".into()]);
    check(fast_fill, "workload.flows[0].fill_fraction", "not offered with ssd.ftl.scheme = \"fast\"");
    // Every flow fills nothing: an overwrite factor would be ignored.
    let mut nothing = f(", fill_fraction = 0.0", ", fill_fraction = 0.0");
    nothing.extend(["precondition.fill_fraction=0.9".into(), "precondition.random_overwrite_factor=1".into()]);
    check(
        nothing,
        "precondition.random_overwrite_factor",
        "the flows' own fill_fraction, which replaces precondition.fill_fraction on their parts, fills none",
    );
    // A per-flow cache window cannot tell flows apart on an array's members.
    let cached = ["ssd.write_buffer_bytes=1048576", "ssd.write_cache.capacity_bytes=1048576", "ssd.write_cache.window=\"per_flow\""];
    let mut on_array = f("", "");
    on_array.extend(cached.iter().map(|s| s.to_string()));
    on_array.extend(["array.level=raid0".into(), "array.members=2".into()]);
    check(on_array.clone(), "ssd.write_cache.window", "an array's members see one stream");
    on_array.retain(|s| !s.starts_with("array."));
    config("", &on_array.iter().map(String::as_str).collect::<Vec<_>>()); // one drive takes it
    let mut array = f(", fill_fraction = 0.5", "");
    array.extend(["array.level=raid5".into(), "array.members=3".into()]);
    check(array, "workload.flows[0].fill_fraction", "array.level = \"single\"");
}
