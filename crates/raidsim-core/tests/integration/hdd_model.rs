//! The hard-disk model against closed forms: the fitted seek curve, the
//! platter's angle, track skew, merging, queue order, and Chen & Lee's
//! Table 1 derived from the presets.

use crate::common::disk::{disk, req, serve};
use raidsim_core::analytic::striping::disk_parameters;
use raidsim_core::config::{seek_moments, seek_moments_closed_form, HddConfig, QueuePolicy, RawConfig};
use raidsim_core::device::{MemberDevice, Op};
use raidsim_core::hdd::Hdd;
use rand::{Rng, SeedableRng};

/// Every hard-disk preset: Chen & Lee's Table 1, the stripe-unit paper's Table 10.
const HDD_PRESETS: [&str; 6] =
    ["hdd-ibm-lightning", "hdd-seagate-elite3", "hdd-seagate-wren4", "hdd-cheetah-15k5", "hdd-cheetah-9lp", "hdd-atlas-iii"];

fn preset_hdd(name: &str) -> HddConfig {
    RawConfig::from_preset(name).and_then(|r| r.resolve()).expect("preset resolves").config.hdd
}

#[test]
fn fitted_seek_curve_returns_the_three_given_times() {
    for name in HDD_PRESETS {
        let cfg = preset_hdd(name);
        if !cfg.seek_table.is_empty() {
            continue; // a measured seek table replaces the curve (`measured_seek_table_is_interpolated_linearly`)
        }
        let d = disk(&cfg);
        assert_eq!(d.seek_ns(0), 0, "{name}");
        assert_eq!(d.seek_ns(1), cfg.single_cylinder_seek_ns, "{name}: single-cylinder seek");
        assert_eq!(d.seek_ns(cfg.cylinders - 1), cfg.max_seek_ns, "{name}: max-stroke seek");
        // The average over every pair of cylinders, summed exactly.
        let c = u64::from(cfg.cylinders);
        let exact: f64 = (1..cfg.cylinders).map(|x| 2.0 * (c - u64::from(x)) as f64 / (c * c) as f64 * d.seek_ns(x) as f64).sum();
        assert!((exact - cfg.average_seek_ns as f64).abs() < 1.0, "{name}: exact mean {exact} ns");
        // And measured over random cylinder pairs, within 1 %.
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let n = 200_000;
        let sum: u64 = (0..n).map(|_| d.seek_ns(rng.gen_range(0..cfg.cylinders).abs_diff(rng.gen_range(0..cfg.cylinders)))).sum();
        let measured = sum as f64 / f64::from(n);
        assert!((measured / cfg.average_seek_ns as f64 - 1.0).abs() < 0.01, "{name}: measured mean {measured} ns");
        // Monotone: a longer seek never takes less time.
        assert!((2..cfg.cylinders).all(|x| d.seek_ns(x - 1) <= d.seek_ns(x)), "{name}: seek curve decreases somewhere");
    }
}

#[test]
fn seek_moments_match_a_brute_force_count() {
    let c = 37u32;
    let (s1, s2, p1) = seek_moments(c);
    let (mut b1, mut b2, mut bp) = (0.0, 0.0, 0.0);
    for i in 0..c {
        for j in 0..c {
            let x = i.abs_diff(j);
            if x > 0 {
                let w = 1.0 / f64::from(c * c);
                (b1, b2, bp) = (b1 + w * f64::from(x - 1).sqrt(), b2 + w * f64::from(x - 1), bp + w);
            }
        }
    }
    assert!((s1 - b1).abs() < 1e-12 && (s2 - b2).abs() < 1e-12 && (p1 - bp).abs() < 1e-12);
}

/// The closed form a disk of billions of cylinders uses agrees with the
/// term-by-term sum wherever both can be computed.
#[test]
fn seek_moments_in_closed_form_match_the_sum() {
    for c in [1_000u32, 72_170, 1 << 20] {
        let (s1, s2, p1) = seek_moments(c);
        let (f1, f2, fp) = seek_moments_closed_form(c);
        for (summed, closed) in [(s1, f1), (s2, f2), (p1, fp)] {
            assert!((closed / summed - 1.0).abs() < 1e-10, "{c} cylinders: summed {summed}, closed form {closed}");
        }
    }
    // Past the switch the moments go on smoothly: sqrt and linear growth.
    let (a, b) = (seek_moments(1 << 20), seek_moments((1 << 20) + 1));
    assert!((b.0 / a.0 - 1.0).abs() < 1e-5 && (b.1 / a.1 - 1.0).abs() < 1e-5);
    let (s1, s2, p1) = seek_moments(4_000_000_000);
    let c = 4e9f64;
    // Continuous limits: E[sqrt(x)] over |U − V|·C is (8/15)·sqrt(C); E[x] is C/3.
    assert!((s1 / (8.0 / 15.0 * c.sqrt()) - 1.0).abs() < 1e-4 && (s2 / (c / 3.0) - 1.0).abs() < 1e-4 && (p1 - 1.0).abs() < 1e-9);
}

#[test]
fn sequential_sectors_need_no_rotation_and_one_behind_waits_almost_a_revolution() {
    let mut cfg = preset_hdd("hdd-ibm-lightning");
    cfg.merge_adjacent = false;
    let rev = cfg.revolution_ns;
    let sector = rev / 48;
    let mut d = disk(&cfg);
    // Synchronized spindles: at t = 0 sector 0 of cylinder 0, head 0 is under the head.
    let t1 = serve(&mut d, 0, req(1, Op::Read, 0, 8));
    assert_eq!(t1, 8 * rev / 48, "8 sectors from angle 0 take 8/48 of a turn");
    let t2 = serve(&mut d, t1, req(2, Op::Read, 8, 8));
    assert_eq!(t2 - t1, 16 * rev / 48 - 8 * rev / 48, "the next 8 sectors follow without waiting");
    assert_eq!(d.times().rotation_ns, 0);
    // Sector 15 has just passed: it comes round again a turn less one sector later.
    let t3 = serve(&mut d, t2, req(3, Op::Read, 15, 1));
    let wait = d.times().rotation_ns;
    assert_eq!(wait, rev - (16 * rev / 48 - 15 * rev / 48), "one sector behind waits a revolution less one sector");
    assert!(wait > rev - 2 * sector);
    assert_eq!(t3 - t2, wait + (16 * rev / 48 - 15 * rev / 48));
}

#[test]
fn a_request_across_tracks_pays_the_switch_not_a_revolution() {
    let mut cfg = preset_hdd("hdd-ibm-lightning");
    cfg.head_switch_ns = 500_000;
    let rev = cfg.revolution_ns;
    let mut d = disk(&cfg);
    // Sectors 40..56: 8 on head 0, then head switch, then 8 on head 1 (skewed by the switch).
    let t = serve(&mut d, 0, req(1, Op::Read, 40, 16));
    let first_wait = 40 * rev / 48;
    assert_eq!(d.times().rotation_ns, first_wait, "only the initial wait for sector 40");
    assert_eq!(d.times().seek_ns, 500_000);
    assert_eq!(t, first_wait + (rev - 40 * rev / 48) + 500_000 + 8 * rev / 48);
}

#[test]
fn merged_adjacent_requests_cost_one_positioning() {
    for merge in [true, false] {
        let mut cfg = preset_hdd("hdd-seagate-wren4");
        cfg.overhead_ns = 300_000;
        cfg.merge_adjacent = merge;
        let mut d = disk(&cfg);
        // Start far from cylinder 0 so the first request seeks.
        let start = 500 * 9 * 53;
        let a = d.submit(0, req(1, Op::Write, start, 20)).expect("ok").expect("ok");
        assert!(d.submit(0, req(2, Op::Write, start + 20, 20)).expect("ok").is_none(), "the second waits in the queue");
        let b = d.complete(a.done_ns).expect("ok").expect("queued request starts");
        let t = d.times();
        if merge {
            assert_eq!(t.merged, 1);
            assert_eq!(b.done_ns - a.done_ns, (40 * 16_700_000 / 53) - (20 * 16_700_000 / 53), "the second only transfers");
            assert_eq!(t.overhead_ns, 300_000, "one overhead");
        } else {
            assert_eq!(t.merged, 0);
            assert_eq!(t.overhead_ns, 600_000);
            assert!(t.rotation_ns > 16_700_000 - 300_000 - 16_700_000 / 53, "the overhead made it miss the sector: {t:?}");
        }
        assert_eq!(t.seek_ns, d.seek_ns(500), "one seek either way");
    }
}

#[test]
fn a_slow_interface_sets_the_transfer_time() {
    // Lightning media: 48 sectors a 13.9 ms turn, 289,583 ns a sector.
    let mut cfg = preset_hdd("hdd-ibm-lightning");
    cfg.merge_adjacent = false;
    let rev = cfg.revolution_ns;
    for (interface, expected) in [
        // Slower than the media: the interface streams 40 sectors from the instant sector 0 is under the head.
        (400_000, 40 * 400_000),
        // Faster: the media sets the time, and the last sector then crosses the interface.
        (100_000, 40 * rev / 48 + 100_000),
        (0, 40 * rev / 48),
    ] {
        cfg.interface_sector_transfer_ns = interface;
        let mut d = disk(&cfg);
        assert_eq!(serve(&mut d, 0, req(1, Op::Read, 0, 40)), expected, "interface {interface} ns/sector");
        assert_eq!(d.times().transfer_ns, expected, "the wait for the interface counts as transfer");
        assert_eq!(d.times().positioning_ns(), 0);
    }
    // A media-bound request still pays for the head switches inside it.
    cfg.head_switch_ns = 500_000;
    cfg.interface_sector_transfer_ns = 100_000;
    let mut d = disk(&cfg);
    let done = serve(&mut d, 0, req(1, Op::Read, 40, 16));
    assert_eq!(done, 40 * rev / 48 + (rev - 40 * rev / 48) + 500_000 + 8 * rev / 48 + 100_000);
    assert_eq!(d.times().seek_ns, 500_000, "the switch was not hidden: the media was the bottleneck");
    cfg.head_switch_ns = 0;
    // Positioning is not overlapped by the interface: a request that waits for its sector still streams from then.
    cfg.interface_sector_transfer_ns = 400_000;
    let mut d = disk(&cfg);
    let done = serve(&mut d, 0, req(1, Op::Read, 24, 10));
    assert_eq!(done, 24 * rev / 48 + 10 * 400_000);
    // A head switch while the interface sets the pace is hidden behind the transfer.
    cfg.head_switch_ns = 500_000;
    let mut d = disk(&cfg);
    let done = serve(&mut d, 0, req(1, Op::Read, 40, 16));
    let first_wait = 40 * rev / 48;
    assert!(8 * (rev / 48) + 500_000 + 8 * (rev / 48) < 16 * 400_000, "the media would finish first");
    assert_eq!(done, first_wait + 16 * 400_000);
    assert_eq!((d.times().seek_ns, d.times().rotation_ns), (0, first_wait), "only the wait for sector 40 positions");
    assert_eq!(d.times().transfer_ns, 16 * 400_000);
}

#[test]
fn merged_requests_stream_at_the_interface_rate_without_losing_a_revolution() {
    let mut cfg = preset_hdd("hdd-ibm-lightning");
    cfg.interface_sector_transfer_ns = 400_000;
    let mut d = disk(&cfg);
    let a = d.submit(0, req(1, Op::Read, 0, 8)).expect("ok").expect("idle disk starts");
    assert!(d.submit(0, req(2, Op::Read, 8, 8)).expect("ok").is_none());
    assert_eq!(a.done_ns, 8 * 400_000);
    let b = d.complete(a.done_ns).expect("ok").expect("the queued request starts");
    // The media read ahead (sector 16 passed at 16/48 of a turn, before the interface finished),
    // so the second request only streams: no rotational wait for sector 8 to come round again.
    assert_eq!(b.done_ns, 16 * 400_000);
    assert_eq!(d.times().merged, 1);
    assert_eq!(d.times().positioning_ns(), 0);
    assert_eq!(d.times().transfer_ns, 16 * 400_000, "all of the disk's busy time is transfer");
}

#[test]
fn table_10_presets_keep_the_papers_figures() {
    // Rajaei Salmasi et al. 2013, Table 10: (preset, sector transfer ms, max seek ms, min seek ms, rpm, blocks, M).
    for (name, sector_ms, max_ms, min_ms, rpm, blocks_m) in [
        ("hdd-cheetah-15k5", 0.0150, 6.9139, 0.5525, 15020.0, 287.0),
        ("hdd-cheetah-9lp", 0.1050, 10.627, 0.8310, 10045.0, 18.0),
        ("hdd-atlas-iii", 0.1060, 15.3600, 1.6630, 7200.0, 18.0),
    ] {
        let cfg = preset_hdd(name);
        let g = cfg.validate().expect("valid");
        assert_eq!(cfg.interface_sector_transfer_ns as f64, sector_ms * 1e6, "{name}");
        assert_eq!(cfg.max_seek_ns as f64, max_ms * 1e6, "{name}");
        assert_eq!(cfg.single_cylinder_seek_ns as f64, min_ms * 1e6, "{name}");
        assert!((60e9 / g.revolution_ns as f64 / rpm - 1.0).abs() < 1e-6, "{name}: rpm");
        let blocks = g.sectors as f64 / 1e6;
        assert!((blocks / blocks_m - 1.0).abs() < 0.02, "{name}: {blocks} M blocks");
    }
}

#[test]
fn queue_policies_pick_by_cylinder() {
    let per_cyl = 14 * 48;
    for (policy, expected) in [(QueuePolicy::Fcfs, [2, 3, 4]), (QueuePolicy::Sstf, [4, 3, 2]), (QueuePolicy::CLook, [4, 2, 3])] {
        let mut cfg = preset_hdd("hdd-ibm-lightning");
        cfg.queue_policy = policy;
        let mut d = disk(&cfg);
        // Head goes to cylinder 300; then queued: cylinder 100, 200, 310.
        let first = d.submit(0, req(1, Op::Read, 300 * per_cyl, 1)).expect("ok").expect("ok");
        for (token, cyl) in [(2, 100), (3, 200), (4, 310)] {
            assert!(d.submit(0, req(token, Op::Read, cyl * per_cyl, 1)).expect("ok").is_none());
        }
        let mut now = first.done_ns;
        let mut order = Vec::new();
        while let Some(next) = d.complete(now).expect("ok") {
            order.push(next.token);
            now = next.done_ns;
        }
        assert_eq!(order, expected, "{policy:?}");
    }
}

#[test]
fn requests_past_the_capacity_limit_are_errors() {
    let cfg = preset_hdd("hdd-ibm-lightning");
    let mut d = disk(&cfg);
    assert_eq!(d.capacity_bytes(), 300 << 20);
    let err = d.submit(0, req(1, Op::Read, (300 << 20) / 512, 1)).expect_err("beyond the first 300 MB");
    assert!(err.to_string().contains("outside the disk"), "{err}");
}

#[test]
fn unsynchronized_spindles_have_their_own_phase() {
    let mut cfg = preset_hdd("hdd-ibm-lightning");
    cfg.synchronized_spindles = false;
    let g = cfg.validate().expect("ok");
    let times: Vec<u64> = (0..4).map(|seed| serve(&mut Hdd::new(&cfg, &g, seed), 0, req(1, Op::Read, 0, 1))).collect();
    assert!(times.windows(2).any(|w| w[0] != w[1]), "{times:?}");
    assert!(times.iter().all(|&t| t <= cfg.revolution_ns + cfg.revolution_ns / 48));
}

/// Chen & Lee, Table 1: (disk, capacity MB, sustained MB/s, effective average seek ms,
/// effective positioning ms, effective disk performance product KB).
const TABLE_1: [(&str, f64, f64, f64, f64, f64); 3] = [
    ("hdd-ibm-lightning", 311.0, 1.8, 12.2, 19.2, 33.0),
    ("hdd-seagate-elite3", 2667.0, 4.6, 4.1, 9.7, 43.0),
    ("hdd-seagate-wren4", 361.0, 1.6, 14.9, 23.2, 37.0),
];

#[test]
fn table_1_derived_rows_within_5_percent() {
    for (name, cap_mb, rate, seek, pos, dpp) in TABLE_1 {
        let p = disk_parameters(&preset_hdd(name)).expect("parameters");
        let mib = f64::from(1u32 << 20);
        let close = |ours: f64, theirs: f64, what: &str| {
            assert!((ours / theirs - 1.0).abs() <= 0.05, "{name} {what}: ours {ours:.3}, published {theirs}");
        };
        close(p.disk_capacity_bytes as f64 / mib, cap_mb, "capacity (MB)");
        // Rates are in 10^6 bytes/s (1.77 rounds to 1.8), capacities and the
        // product in 2^20 and 2^10 bytes (949 cylinders hold 311.4 MiB).
        close(p.sustained_bytes_per_s / 1e6, rate, "sustained rate (MB/s)");
        close(p.effective_average_seek_ns / 1e6, seek, "effective average seek (ms)");
        close(p.effective_positioning_ns / 1e6, pos, "effective positioning (ms)");
        close(p.effective_performance_product_bytes / 1024.0, dpp, "disk performance product (KB)");
    }
}

#[test]
fn a_layer_setting_rpm_replaces_a_presets_revolution() {
    let mut raw = RawConfig::from_preset("hdd-atlas-iii").expect("preset");
    raw.set("hdd.rpm=10000").expect("override");
    let g = raw.resolve().expect("rpm over a preset's revolution_ns is no clash").config.hdd.validate().expect("valid");
    assert_eq!(g.revolution_ns, 6_000_000);
    raw.set("hdd.revolution_ns=5000000").expect("override");
    assert_eq!(raw.resolve().expect("and back").config.hdd.validate().expect("valid").revolution_ns, 5_000_000);
    // Both in one layer still clash: they say the same thing twice.
    let mut both = RawConfig::from_preset("hdd-atlas-iii").expect("preset");
    both.merge(&RawConfig::from_toml_str("[hdd]\nrpm = 7200\nrevolution_ns = 8000000", "<test>").expect("toml"));
    let err = both.resolve().and_then(|r| r.config.hdd.validate()).expect_err("clash");
    assert!(err.to_string().contains("not both"), "{err}");
    // Any other key of the table leaves the preset's speed alone, as a --set and as a layer.
    for preset in ["hdd-atlas-iii", "hdd-cheetah-9lp", "hdd-ibm-lightning"] {
        let speed = |raw: RawConfig| raw.resolve().expect("resolves").config.hdd.validate().expect("valid").revolution_ns;
        let expected = speed(RawConfig::from_preset(preset).expect("preset"));
        let mut raw = RawConfig::from_preset(preset).expect("preset");
        raw.set("hdd.queue_policy=\"sptf\"").expect("override");
        raw.set("hdd.head_switch_ns=1000").expect("override");
        assert_eq!(speed(raw), expected, "{preset}: a --set of another hdd key");
        let mut layered = RawConfig::from_preset(preset).expect("preset");
        layered.merge(&RawConfig::from_toml_str("[hdd]\nsynchronized_spindles = false", "<test>").expect("toml"));
        assert_eq!(speed(layered), expected, "{preset}: a layer with another hdd key");
    }
    // Neither: the default disk's 13.9 ms.
    assert_eq!(HddConfig::default().validate().expect("valid").revolution_ns, 13_900_000);
}

#[test]
fn huge_requests_under_a_slow_interface_are_errors_not_overflows() {
    // A one-zone disk (no zone table to contradict the made-up geometry below).
    let mut cfg = preset_hdd("hdd-seagate-elite3");
    cfg.interface_sector_transfer_ns = 2_000_000_000;
    assert!(cfg.validate().expect_err("slower than a second a sector").to_string().contains("interface_sector_transfer_ns"));
    // A (made-up) disk of 2^35 sectors, read whole at a second a sector: 2^35 s, past 2^64 ns.
    (cfg.interface_sector_transfer_ns, cfg.sectors_per_track, cfg.tracks_per_cylinder, cfg.cylinders) = (1_000_000_000, 8192, 16, 1 << 18);
    cfg.capacity_limit_bytes = 0;
    let mut d = disk(&cfg);
    let err = d.submit(0, req(1, Op::Read, 0, 1 << 35)).expect_err("overflow is an error");
    assert!(err.to_string().contains("2^64"), "{err}");
}
