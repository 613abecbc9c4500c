//! RAID inside one SSD (issue #11): CR5, RAID-5 across the channels of the
//! CR5M paper's SSDs (Pan & Xie 2018, Table 1 and Table 3).
//!
//! Timing closed forms use its Table 1: a page read is one command (25 ns),
//! sensing (20 us) and 4096 bytes over a 40 MB/s channel (102.4 us); a
//! write is acknowledged when its data reaches the chip (SSDsim): one
//! command and the transfer.

mod common;

use common::config;
use raidsim_core::config::RawConfig;
use raidsim_core::report::Report;
use raidsim_core::simulate;

const T_CMD: u64 = 25;
const T_READ: u64 = 20_000;
const X_PAGE: u64 = 102_400;
const READ: u64 = T_CMD + T_READ + X_PAGE;
const WRITE: u64 = T_CMD + X_PAGE;

fn run(preset: &str, extra: &[&str]) -> Report {
    simulate(config(preset, extra)).expect("runs")
}

fn requests(list: &[(u64, &str, u64, u64)]) -> String {
    let items: Vec<String> = list.iter().map(|(t, op, off, len)| format!("[{t}, \"{op}\", {off}, {len}]")).collect();
    format!("workload.requests=[{}]", items.join(", "))
}

fn run_requests(preset: &str, extra: &[&str], list: &[(u64, &str, u64, u64)]) -> Report {
    let w = requests(list);
    let mut o = vec!["workload.kind=requests", w.as_str()];
    o.extend_from_slice(extra);
    run(preset, &o)
}

fn written(r: &Report, member: usize, cause: &str) -> u64 {
    r.devices[member].pages_written.get(cause).copied().unwrap_or(0)
}

fn read(r: &Report, member: usize, cause: &str) -> u64 {
    r.devices[member].pages_read.get(cause).copied().unwrap_or(0)
}

#[test]
fn table3_shapes_have_the_papers_channels_chips_and_capacity() {
    // Chips of Table 1: 2 dies x 2 planes x 4096 blocks x 64 pages x 4 KiB = 4 GiB.
    let chip = 2 * 2 * 4096 * 64 * 4096u64;
    for (preset, channels, chips) in [("cr5-ssd1", 4u64, 4u64), ("cr5-ssd2", 8, 4), ("cr5-ssd3", 4, 8)] {
        let c = config(preset, &[]);
        assert_eq!(c.members.len() as u64, channels, "{preset}");
        // Each member is one channel: its flash is its chips'.
        let flash: u64 = c.members.iter().map(|m| m.logical_pages()).sum::<u64>() * 4096;
        let raw = channels * chips * chip;
        assert_eq!(raw, if chips * channels == 16 { 64 } else { 128 } * (1 << 30), "{preset}: Table 3's capacity");
        // The host sees (channels - 1) / channels of it.
        // 10 % over-provisioning, floored per plane in spare blocks: a hair over 90 % is logical.
        let logical = flash as f64 / raw as f64;
        assert!((0.9..0.901).contains(&logical), "{preset}: {flash} of {raw}");
        assert_eq!(c.capacity_bytes, c.member_capacity_bytes() / 4096 * 4096 * (channels - 1), "{preset}");
    }
}

#[test]
fn the_layout_is_figure_3s_left_asymmetric_rotation() {
    // Figure 4: D3 on channel 0, D4 on 1, P1 on 2, D5 on 3. Writing D5 alone
    // (reconstruct-write: D3 and D4 pre-read; read-modify-write would read D5
    // and P1, a tie, which goes to reconstruct-write).
    let r = run_requests("cr5-ssd1", &[], &[(0, "W", 5 * 4096, 4096)]);
    assert_eq!(written(&r, 3, "user"), 1);
    assert_eq!(written(&r, 2, "parity"), 1);
    assert_eq!((read(&r, 0, "pre_read_rcw"), read(&r, 1, "pre_read_rcw")), (1, 1));
    // Stripe 0: D0 D1 D2 on channels 0-2, P0 on 3; a full-stripe write pre-reads nothing.
    let r = run_requests("cr5-ssd1", &[], &[(0, "W", 0, 3 * 4096)]);
    assert_eq!((0..3).map(|m| written(&r, m, "user")).collect::<Vec<_>>(), [1, 1, 1]);
    assert_eq!(written(&r, 3, "parity"), 1);
    assert!(r.devices.iter().all(|d| d.pages_read.is_empty()));
}

#[test]
fn reads_and_writes_take_table1s_times() {
    let r = run_requests("cr5-ssd1", &[], &[(0, "R", 0, 4096), (10_000_000, "W", 0, 4096)]);
    // The write pre-reads D1 and D2 (reconstruct-write) in parallel, then writes D0 and P0 in parallel.
    let (read_ns, write_ns) = (r.host.read_response.mean_ns, r.host.write_response.mean_ns);
    assert_eq!(read_ns, READ as f64);
    assert_eq!(write_ns, (READ + WRITE) as f64);
}

#[test]
fn the_ssds_host_link_and_controller_stand_in_front_of_the_channels_once() {
    // A 300 MB/s link: 4096 bytes cross in ceil(13653.3) ns, 12288 in 40960 ns.
    let link = ["ssd.timing.host_link_bandwidth_bytes_per_s=300000000", "ssd.timing.controller_overhead_ns=1000"];
    let r = run_requests("cr5-ssd1", &link, &[(0, "R", 0, 4096), (10_000_000, "W", 0, 3 * 4096)]);
    assert_eq!(r.host.read_response.mean_ns, (1000 + READ + 13_654) as f64);
    // The full-stripe write crosses the link once (not once per channel), then the channels write together.
    assert_eq!(r.host.write_response.mean_ns, (1000 + 40_960 + WRITE) as f64);
    // The link is one: two reads on different channels at once leave it one after the other.
    let r = run_requests("cr5-ssd1", &link, &[(0, "R", 0, 4096), (0, "R", 4096, 4096)]);
    assert_eq!(r.host.read_response.mean_ns, (1000 + READ) as f64 + 13_654.0 * 1.5);
}

#[test]
fn cr5_is_raid5_over_one_channel_ssds() {
    // Same planner, same members: CR5 on SSD1 with no host link is RAID-5
    // of four one-channel SSDs laid out the same way, request for request.
    let w = [
        "workload.kind=synthetic",
        "workload.requests=3000",
        "workload.read_fraction=0.4",
        "workload.size.kind=uniform",
        "workload.size.min_bytes=4096",
        "workload.size.max_bytes=32768",
    ];
    let cr5 = run("cr5-ssd1", &w);
    let mut o = w.to_vec();
    o.extend(["array.level=raid5", "ssd.geometry.channels=1", "ssd.queue_depth=100000"]);
    let raid5 = run("cr5-ssd1", &o);
    assert_eq!(cr5.host, raid5.host);
    for (a, b) in cr5.devices.iter().zip(&raid5.devices) {
        assert_eq!((&a.pages_read, &a.pages_written), (&b.pages_read, &b.pages_written));
    }
    assert!(written(&cr5, 0, "parity") > 0);
}

#[test]
fn cr5_configs_are_checked() {
    let err = |o: &[&str]| {
        let mut raw = RawConfig::from_preset("cr5-ssd1").expect("preset");
        for x in o {
            raw.set(x).expect("parses");
        }
        raw.resolve().expect_err("refused").to_string()
    };
    assert!(err(&["array.members=5"]).contains("ssd.geometry.channels (4)"));
    let e = err(&["member.kind=hdd"]);
    assert!(e.contains("member.kind"), "{e}");
    assert!(err(&["array.spares=1"]).contains("array.spares"));
    assert!(err(&["array.failures=[{member = 0, at_ns = 0}]"]).contains("chip failures"));
    assert!(err(&["array.member_ssd=[{queue_depth = 4}]"]).contains("array.member_ssd"));
}

#[test]
fn a_config_file_can_start_from_a_preset() {
    let raw = RawConfig::from_toml_str("base_preset = \"cr5-ssd2\"\n[array]\nstripe_unit_bytes = 8192\n", "test.toml").expect("parses");
    let c = raw.resolve().expect("resolves");
    // cr5-ssd2's own settings, cr5m-table1's below them, the file's on top.
    assert_eq!((c.config.ssd.geometry.channels, c.config.ssd.timing.t_program_ns, c.config.array.stripe_unit_bytes), (8, 200_000, 8192));
    let e = RawConfig::from_toml_str("base_preset = \"cr5-ssd9\"\n", "test.toml").expect_err("unknown").to_string();
    assert!(e.contains("base_preset") && e.contains("cr5-ssd1"), "{e}");
}
