//! Cell types: each page of a block takes its own page type's read and
//! program latency, in MQSim's order (`flash::cell`), by hand count on one
//! die (`common::ONE_DIE`: no command time, 4 KiB in 102.4 us, no link).

use crate::common::{config, refused, responses_in_arrival_order, ONE_DIE};

const X: u64 = 102_400; // 4 KiB over a 40 MB/s channel
const READ: [u64; 3] = [25_000, 50_000, 100_000]; // LSB, CSB, MSB
const PROGRAM: [u64; 3] = [200_000, 400_000, 800_000];
const TLC: [&str; 5] = [
    "ssd.geometry.cell_type=\"tlc\"",
    "ssd.timing.t_read_csb_ns=50000",
    "ssd.timing.t_read_msb_ns=100000",
    "ssd.timing.t_program_csb_ns=400000",
    "ssd.timing.t_program_msb_ns=800000",
];

/// Writes of pages 0..n, one at a time, then reads of them: each request's response, in issue order.
fn write_then_read(n: u64, extra: &[&str]) -> Vec<u64> {
    let mut list: Vec<String> = (0..n).map(|k| format!("[{}, \"W\", {}, 4096]", k * 10_000_000, k * 4096)).collect();
    list.extend((0..n).map(|k| format!("[{}, \"R\", {}, 4096]", (n + k) * 10_000_000, k * 4096)));
    let req = format!("workload.requests=[{}]", list.join(", "));
    responses_in_arrival_order(&[&ONE_DIE[..], &["workload.kind=\"requests\"", req.as_str()], extra].concat())
}

#[test]
fn tlc_pages_take_their_types_latency_in_mqsims_order() {
    // Pages 0-15 of the first block: L L L L L L C C L L C C M M L L (0 = LSB, 1 = CSB, 2 = MSB).
    let types = [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 0, 0];
    let got = write_then_read(16, &TLC);
    for (k, &t) in types.iter().enumerate() {
        assert_eq!(got[k], X + PROGRAM[t], "write of page {k}");
        assert_eq!(got[16 + k], READ[t] + X, "read of page {k}");
    }
}

#[test]
fn mlc_alternates_lsb_and_msb_pages() {
    let mlc = ["ssd.geometry.cell_type=\"mlc\"", "ssd.timing.t_read_msb_ns=100000", "ssd.timing.t_program_msb_ns=800000"];
    let got = write_then_read(4, &mlc);
    assert_eq!(got, [X + PROGRAM[0], X + PROGRAM[2], X + PROGRAM[0], X + PROGRAM[2], READ[0] + X, READ[2] + X, READ[0] + X, READ[2] + X]);
}

#[test]
fn qlc_takes_each_word_lines_four_pages_in_turn() {
    let qlc = [
        "ssd.geometry.cell_type=\"qlc\"",
        "ssd.timing.t_read_csb_ns=50000",
        "ssd.timing.t_read_msb_ns=100000",
        "ssd.timing.t_read_tsb_ns=150000",
        "ssd.timing.t_program_csb_ns=400000",
        "ssd.timing.t_program_msb_ns=800000",
        "ssd.timing.t_program_tsb_ns=1600000",
    ];
    let (read, program) = ([25_000, 50_000, 100_000, 150_000], [200_000, 400_000, 800_000, 1_600_000]);
    let got = write_then_read(8, &qlc);
    for k in 0..8 {
        assert_eq!(got[k], X + program[k % 4], "write of page {k}");
        assert_eq!(got[8 + k], read[k % 4] + X, "read of page {k}");
    }
    let tlc = refused(&[&TLC[..], &["ssd.timing.t_read_tsb_ns=1"]].concat());
    assert!(tlc.contains("ssd.timing.t_read_tsb_ns") && tlc.contains("no such page type"), "{tlc}");
}

#[test]
fn a_page_type_latency_the_cells_cannot_use_is_refused_and_a_missing_one_named() {
    let slc = refused(&["ssd.timing.t_read_msb_ns=100000"]);
    assert!(slc.contains("ssd.timing.t_read_msb_ns") && slc.contains("no such page type"), "{slc}");
    let mlc =
        refused(&["ssd.geometry.cell_type=\"mlc\"", "ssd.timing.t_read_msb_ns=1", "ssd.timing.t_program_msb_ns=1", "ssd.timing.t_read_csb_ns=1"]);
    assert!(mlc.contains("ssd.timing.t_read_csb_ns") && mlc.contains("an MLC upper page is an MSB page"), "{mlc}");
    let tlc =
        refused(&["ssd.geometry.cell_type=\"tlc\"", "ssd.timing.t_read_msb_ns=1", "ssd.timing.t_program_msb_ns=1", "ssd.timing.t_read_csb_ns=1"]);
    assert!(tlc.contains("ssd.timing.t_program_csb_ns") && tlc.contains("give its latency"), "{tlc}");
}

/// Garbage collection on a small, full drive: each copy's read and program by its pages' types.
fn collecting(extra: &[&str]) -> raidsim_core::report::Report {
    let base = [
        "ssd.geometry.channels=1",
        "ssd.geometry.planes_per_die=1",
        "ssd.geometry.blocks_per_plane=32",
        "ssd.geometry.pages_per_block=16",
        "precondition.fill_fraction=0.9",
        "workload.requests=3000",
        "workload.read_fraction=0",
        "workload.size.kind=\"fixed\"",
        "workload.size.mean_bytes=4096",
    ];
    raidsim_core::simulate(config("", &[&base[..], extra].concat())).expect("runs")
}

#[test]
fn garbage_collection_copies_at_their_pages_latencies() {
    let slc = collecting(&[]);
    let copied = |r: &raidsim_core::report::Report| r.devices[0].pages_written.get("gc_write").copied().unwrap_or(0);
    assert!(copied(&slc) > 1000, "the workload must collect: {}", copied(&slc));
    // TLC whose upper pages are as fast as its LSB pages is SLC, to the ns.
    let same = [
        "ssd.geometry.cell_type=\"tlc\"",
        "ssd.timing.t_read_csb_ns=25000",
        "ssd.timing.t_read_msb_ns=25000",
        "ssd.timing.t_program_csb_ns=200000",
        "ssd.timing.t_program_msb_ns=200000",
    ];
    let tlc_as_slc = collecting(&same);
    assert_eq!(tlc_as_slc.host.response.mean_ns, slc.host.response.mean_ns);
    // Slower upper pages: the same pages copied (placement ignores time), every write slower.
    let tlc = collecting(&TLC);
    assert_eq!(copied(&tlc), copied(&slc));
    assert!(tlc.host.response.mean_ns > 1.5 * slc.host.response.mean_ns);
}
