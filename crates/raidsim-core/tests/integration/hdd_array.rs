//! Hard disks as array members, end to end: a closed form for one disk, the
//! striping paper's RAID5 of 17 disks under the stopping rule, and the
//! config rules for member kinds.

use raidsim_core::analytic::striping::disk_parameters;
use raidsim_core::config::RawConfig;

fn raw(preset: &str, sets: &[&str]) -> RawConfig {
    let mut r = RawConfig::from_preset(preset).expect("preset");
    for s in sets {
        r.set(s).expect("override");
    }
    r
}

#[test]
fn one_disk_random_one_sector_reads_take_seek_plus_half_a_turn() {
    // Closed loop of one process: every request finds the disk idle, so the
    // mean response is the mean seek over the used cylinders, half a turn and
    // one sector's transfer. The seek between two random sectors of the
    // first 300 MB is the closed form's (sectors spread evenly over cylinders).
    let r = raw(
        "hdd-ibm-lightning",
        &[
            "workload.processes=1",
            "workload.requests=20000",
            "workload.read_fraction=1",
            "workload.size.mean_bytes=512",
            "workload.alignment_bytes=512",
        ],
    )
    .resolve()
    .expect("valid");
    let report = raidsim_core::simulate(r.clone()).expect("runs");
    let p = disk_parameters(&r.config.hdd).expect("parameters");
    let expected_ns = p.effective_positioning_ns + 13_900_000.0 / 48.0;
    let ours = report.host.response.mean_ns;
    assert!((ours / expected_ns - 1.0).abs() < 0.02, "mean {ours:.0} ns, closed form {expected_ns:.0} ns");
    let disk = report.devices[0].disk.as_ref().expect("a disk reports its times");
    assert!((disk.mean_transfer_ns - 13_900_000.0 / 48.0).abs() < 1.0, "{disk:?}");
    assert_eq!(report.devices[0].name, "hdd");
    assert!(report.devices[0].erase_count.is_none(), "a disk has no erase counts to report as zeros");
}

#[test]
fn raid5_of_17_disks_stops_when_the_mean_is_known_to_5_percent() {
    let r = raw(
        "hdd-ibm-lightning",
        &[
            "array.level=raid5",
            "array.members=17",
            "array.stripe_unit_bytes=16384",
            "array.layout=left_symmetric",
            "workload.processes=8",
            "workload.requests=1000000",
            "workload.read_fraction=0",
            "workload.size.kind=exponential",
            "workload.size.mean_bytes=16384",
            "workload.size.quantum_bytes=1024",
            "workload.size.min_bytes=1024",
            "workload.size.adjust_mean=true",
            "workload.alignment_bytes=1024",
            "sim.stop.relative_half_width=0.05",
        ],
    )
    .resolve()
    .expect("valid");
    let report = raidsim_core::simulate(r).expect("runs");
    let stop = report.stop.as_ref().expect("the rule reports");
    assert!(stop.converged && stop.half_width_ns <= 0.05 * stop.mean_ns, "{stop:?}");
    assert!(report.host.requests >= 2_000 && report.host.requests < 1_000_000, "{}", report.host.requests);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    // Small writes on RAID5 pre-read and write parity; every member has disk times.
    let a = report.array.as_ref().expect("array");
    assert!(a.parity_pages_written.iter().sum::<u64>() > 0 && a.extra_page_reads.iter().sum::<u64>() > 0);
    assert!(report.devices.iter().all(|d| d.disk.as_ref().is_some_and(|t| t.requests > 0 && t.mean_positioning_ns > 0.0)));
}

#[test]
fn parameters_of_the_other_member_kind_are_refused() {
    let err = raw("hdd-ibm-lightning", &["ssd.queue_depth=4"]).resolve().expect_err("[ssd] with disks").to_string();
    assert!(err.contains("`ssd`") && err.contains("member.kind"), "{err}");
    let err = raw("stripe-unit-table5", &["hdd.cylinders=100"]).resolve().expect_err("[hdd] with SSDs").to_string();
    assert!(err.contains("`hdd`") && err.contains("member.kind"), "{err}");
    let err = raw("hdd-ibm-lightning", &["member.kind=tape"]).resolve().expect_err("unknown kind").to_string();
    assert!(err.contains("member.kind") && err.contains("hdd"), "{err}");
    let err = raw("hdd-ibm-lightning", &["array.level=raid5", "array.members=5", "array.stripe_unit_bytes=6144", "hdd.bytes_per_sector=4096"])
        .resolve()
        .expect_err("a unit that splits a sector")
        .to_string();
    assert!(err.contains("sector"), "{err}");
}

#[test]
fn a_saved_disk_config_resolves_again_to_the_same_config() {
    let r = raw("hdd-seagate-wren4", &["array.level=raid5", "array.members=5", "array.stripe_unit_bytes=8192"]).resolve().expect("valid");
    let text = r.to_toml().expect("serialises");
    assert!(!text.contains("[ssd") && text.contains("[hdd]") && text.contains("seek_a_ns"), "{text}");
    let again = RawConfig::from_toml_str(&text, "saved").and_then(|x| x.resolve()).expect("resolves again");
    assert_eq!(again.config, r.config);
}
