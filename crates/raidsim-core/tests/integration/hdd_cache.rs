//! The disk's measured-drive parts against hand counts: zones and spares,
//! the measured seek table, command overheads, the on-board cache (read
//! hits, read-ahead, fast writes and their destage, write combining) and
//! SPTF.

use crate::common::disk::{disk, req, serve};
use raidsim_core::config::{HddConfig, HddZone, QueuePolicy, RawConfig};
use raidsim_core::device::{MemberDevice, Op};

const REV: u64 = 10_000_000;
const SPT: u64 = 100;
const BULK: u64 = 20_000;

fn zone(cylinders: u32, sectors_per_track: u32, spare_sectors: u64) -> HddZone {
    HddZone { cylinders, sectors_per_track, track_skew_sectors: Some(0), cylinder_skew_sectors: Some(0), spare_sectors, front_spare_sectors: 0 }
}

/// 2 heads, 100 cylinders of 100 sectors a track, 10 ms a turn, no skew, a
/// two-point seek table, a 4-segment cache with fast writes.
fn cached() -> HddConfig {
    let mut cfg = HddConfig {
        tracks_per_cylinder: 2,
        cylinders: 100,
        zones: vec![zone(100, SPT as u32, 0)],
        revolution_ns: REV,
        seek_table: vec![[1, 1_000_000], [99, 5_000_000]],
        interface_sector_transfer_ns: BULK,
        merge_adjacent: false,
        ..HddConfig::default()
    };
    let o = &mut cfg.command_overhead;
    (o.read_hit_after_read_ns, o.read_hit_after_write_ns, o.read_miss_after_read_ns, o.read_miss_after_write_ns) =
        (100_000, 150_000, 300_000, 350_000);
    (o.write_hit_after_read_ns, o.write_hit_after_write_ns, o.write_miss_after_read_ns, o.write_miss_after_write_ns) =
        (500_000, 400_000, 700_000, 800_000);
    let c = &mut cfg.cache;
    (c.segments, c.segment_sectors, c.fast_write, c.combine_writes, c.read_hits_on_write_data) = (4, 400, true, true, true);
    cfg
}

#[test]
fn a_zone_boundary_changes_the_sectors_per_track_and_spares_map_nothing() {
    let mut cfg = cached();
    cfg.zones = vec![zone(2, 100, 0), zone(98, 50, 0)];
    let d = disk(&cfg);
    // Zone 0: 2 cylinders x 2 heads x 100 sectors = 400 sectors.
    assert_eq!((d.locate(399).cylinder, d.locate(399).sectors_per_track), (1, 100));
    let z1 = d.locate(400);
    assert_eq!((z1.cylinder, z1.head, z1.sector, z1.sectors_per_track), (2, 0, 0, 50));
    assert_eq!((d.locate(450).head, d.locate(500).cylinder), (1, 3));
    // 30 spare sectors at zone 0's end: sector 370 is the first of cylinder 2.
    cfg.zones = vec![zone(2, 100, 30), zone(98, 50, 0)];
    let d = disk(&cfg);
    assert_eq!((d.locate(369).cylinder, d.locate(369).sector), (1, 69));
    assert_eq!((d.locate(370).cylinder, d.locate(370).sector, d.locate(370).sectors_per_track), (2, 0, 50));
    // Spares that fill a zone are refused.
    cfg.zones = vec![zone(2, 100, 400), zone(98, 50, 0)];
    assert!(cfg.validate().expect_err("refused").to_string().contains("hdd.zones[0].spare_sectors"));
}

#[test]
fn measured_seek_table_is_interpolated_linearly() {
    let cfg = RawConfig::from_preset("hdd-cheetah-9lp").and_then(|r| r.resolve()).expect("preset").config.hdd;
    let d = disk(&cfg);
    // DiskSim's valid/cheetah9LP.seek: 10 -> 1.448 ms, 12 -> 1.449 ms; 6800 -> 10.540, 6894 -> 10.627.
    assert_eq!((d.seek_ns(0), d.seek_ns(1), d.seek_ns(10), d.seek_ns(12)), (0, 831_000, 1_448_000, 1_449_000));
    assert_eq!(d.seek_ns(11), 1_448_500);
    // Past the last point: extrapolated on the last segment's slope, 87 us per 94 cylinders.
    assert_eq!(d.seek_ns(6961), (10_627_000.0 + 87_000.0 * 67.0 / 94.0_f64).round() as u64);
    // The mean over every pair of cylinders, as the earlier one-zone presets derived their average seeks:
    // 5.467 ms for the 9LP, 8.312 ms for the Atlas III.
    let mean = raidsim_core::analytic::striping::disk_parameters(&cfg).expect("parameters").average_seek_ns;
    assert!((mean - 5_467_000.0).abs() < 500.0, "{mean}");
    let atlas = RawConfig::from_preset("hdd-atlas-iii").and_then(|r| r.resolve()).expect("preset").config.hdd;
    let mean = raidsim_core::analytic::striping::disk_parameters(&atlas).expect("parameters").average_seek_ns;
    assert!((mean - 8_312_000.0).abs() < 500.0, "{mean}");
    let mut bad = cached();
    bad.seek_table = vec![[2, 1_000_000]];
    assert!(bad.validate().expect_err("refused").to_string().contains("hdd.seek_table"));
    bad.seek_table = vec![[1, 1_000_000], [1, 2_000_000]];
    assert!(bad.validate().expect_err("refused").to_string().contains("hdd.seek_table[1]"));
}

#[test]
fn a_read_hit_costs_its_overhead_and_the_interface_only() {
    let mut d = disk(&cached());
    // A miss at sector 0, at angle 0 at t = 0: overhead, then 8 sectors under the head, the last over the interface.
    let t1 = serve(&mut d, 0, req(1, Op::Read, 0, 8));
    // Sector 0 passed at 0; after the 0.3 ms overhead it comes round at 10 ms; the media ends at 10.8 ms.
    assert_eq!(t1, REV + 8 * REV / SPT + BULK);
    // The same sectors again, later: served from the segment.
    let t2 = serve(&mut d, t1 + 50_000_000, req(2, Op::Read, 0, 8));
    assert_eq!(t2 - (t1 + 50_000_000), 100_000 + 8 * BULK, "read hit after a read: overhead + 8 sectors over the interface");
    assert_eq!(d.times().cache.read_hits, 1);
}

#[test]
fn a_fast_write_ends_after_the_interface_and_is_destaged_later() {
    let mut d = disk(&cached());
    let t1 = serve(&mut d, 0, req(1, Op::Write, 1000, 16));
    assert_eq!(t1, 500_000 + 16 * BULK, "write hit after (no command, as after) a read: overhead + interface");
    assert_eq!(d.times().cache.destages, 0, "not on the media yet");
    // A read arriving 1 ms later needs the mechanism, which is destaging since t1: it waits.
    serve(&mut d, t1 + 1_000_000, req(2, Op::Read, 15_000, 1));
    assert_eq!(d.times().cache.destages, 1);
    assert_eq!(d.times().cache.destage_sectors, 16);
    assert!(d.times().mechanism_wait_ns > 0, "{:?}", d.times());
    // The written data is read back from the segment (a hit after a read).
    let t3 = serve(&mut d, 900_000_000, req(3, Op::Read, 1000, 16));
    assert_eq!(t3 - 900_000_000, 100_000 + 16 * BULK);
    // After a write, the overheads are the after-write ones: a read hit, then a read miss.
    let t4 = serve(&mut d, 950_000_000, req(4, Op::Write, 3000, 8));
    assert_eq!(t4 - 950_000_000, 500_000 + 8 * BULK, "write hit after a read");
    let t5 = serve(&mut d, 960_000_000, req(5, Op::Read, 3000, 8));
    assert_eq!(t5 - 960_000_000, 150_000 + 8 * BULK, "read hit after a write");
    let before = d.times().overhead_ns;
    serve(&mut d, 990_000_000, req(6, Op::Write, 5000, 1));
    serve(&mut d, 1_000_000_000, req(7, Op::Read, 17_000, 1));
    assert_eq!(d.times().overhead_ns - before, 500_000 + 350_000, "write hit after a read, then read miss after a write");
}

#[test]
fn a_read_goes_before_a_destage_that_has_not_started() {
    let mut d = disk(&cached());
    let t1 = serve(&mut d, 0, req(1, Op::Write, 1000, 16));
    // Arriving the instant the write's data is in, the read takes the mechanism first: no wait; the destage
    // starts once the read is done (the disk's next decision point), 16 sectors from the head's new place.
    let t2 = serve(&mut d, t1, req(2, Op::Read, 15_000, 1));
    assert_eq!((d.times().cache.destages, d.times().mechanism_wait_ns), (1, 0));
    assert!(d.times().cache.destage_ns > 0 && t2 > t1);
}

#[test]
fn write_combining_merges_adjacent_destages() {
    for combine in [true, false] {
        let mut cfg = cached();
        cfg.cache.combine_writes = combine;
        let mut d = disk(&cfg);
        let t1 = serve(&mut d, 0, req(1, Op::Write, 1000, 8));
        // The next write continues the first and arrives before its destage starts.
        let t2 = serve(&mut d, t1, req(2, Op::Write, 1008, 8));
        assert_eq!(t2 - t1, 400_000 + 8 * BULK, "write hit after a write");
        serve(&mut d, 1_000_000_000, req(3, Op::Read, 15_000, 1));
        let c = d.times().cache;
        let expected = if combine { (1, 1, 16) } else { (0, 2, 16) };
        assert_eq!((c.combined_writes, c.destages, c.destage_sectors), expected, "combine_writes = {combine}");
    }
}

#[test]
fn read_ahead_runs_until_a_new_request_arrives() {
    let mut cfg = cached();
    cfg.cache.read_ahead_sectors = 200;
    let mut d = disk(&cfg);
    // A read of sectors 0..10 ends its media at 0.3 ms + (wait to angle 0 at 10 ms) + 1 ms.
    serve(&mut d, 0, req(1, Op::Read, 0, 10));
    let media_done = REV + 10 * REV / SPT;
    // 2.35 ms later a read elsewhere stops the read-ahead: 23 whole sectors (0.1 ms each) are in.
    serve(&mut d, media_done + 2_350_000, req(2, Op::Read, 15_000, 1));
    assert_eq!(d.times().cache.read_ahead_sectors, 23);
    // Sector 32 was read ahead; sector 33 was not (its read goes to the media).
    let hits = d.times().cache.read_hits;
    serve(&mut d, 2_000_000_000, req(3, Op::Read, 32, 1));
    assert_eq!(d.times().cache.read_hits, hits + 1);
    serve(&mut d, 3_000_000_000, req(4, Op::Read, 33, 1));
    assert_eq!(d.times().cache.read_hits, hits + 1);
}

#[test]
fn a_read_of_sectors_the_read_ahead_is_about_to_reach_waits_for_them() {
    let mut cfg = cached();
    cfg.cache.read_ahead_sectors = 200;
    let mut d = disk(&cfg);
    serve(&mut d, 0, req(1, Op::Read, 0, 10));
    let media_done = REV + 10 * REV / SPT;
    // At media_done + 1 ms, sectors 10..20 are in; 15..25 are all in at +1.5 ms.
    let now = media_done + 1_000_000;
    let t = serve(&mut d, now, req(2, Op::Read, 15, 10));
    assert_eq!(t, media_done + 1_500_000 + BULK, "ends when its last sector is in and over the interface");
    assert_eq!(d.times().cache.read_hits, 1);
    // The read-ahead went on: sector 100 (the next track's first) is in by the next command.
    serve(&mut d, now + 50_000_000, req(3, Op::Read, 15_000, 1));
    assert_eq!(d.times().cache.read_ahead_sectors, 200);
    // A read starting beyond what is in is a miss (DiskSim: no buffer match) and stops it.
}

#[test]
fn sptf_serves_the_sector_that_comes_round_first() {
    for (policy, expected) in [(QueuePolicy::Fcfs, [2, 3, 4]), (QueuePolicy::Sptf, [4, 2, 3])] {
        let mut cfg = cached();
        cfg.cache.enabled = false;
        cfg.command_overhead = Default::default();
        cfg.interface_sector_transfer_ns = 0;
        cfg.queue_policy = policy;
        let mut d = disk(&cfg);
        // Busy with sectors 0..10 of track 0 until 1 ms; then the head is at angle 10 sectors.
        let first = d.submit(0, req(1, Op::Read, 0, 10)).expect("ok").expect("starts");
        assert_eq!(first.done_ns, 10 * REV / SPT);
        // Same track: sector 60 is 50 sectors away, 90 is 80, 20 is 10.
        for (token, sector) in [(2, 60), (3, 90), (4, 20)] {
            assert!(d.submit(0, req(token, Op::Read, sector, 1)).expect("ok").is_none());
        }
        let mut order = Vec::new();
        let mut now = first.done_ns;
        while let Some(next) = d.complete(now).expect("ok") {
            order.push(next.token);
            now = next.done_ns;
        }
        assert_eq!(order, expected, "{policy:?}");
    }
}

#[test]
fn the_cache_switched_off_serves_every_request_from_the_media() {
    let mut cfg = cached();
    cfg.cache.enabled = false;
    let mut d = disk(&cfg);
    let t1 = serve(&mut d, 0, req(1, Op::Write, 1000, 16));
    assert!(t1 > 500_000 + 16 * BULK, "a write on the media, not acknowledged from a cache: {t1}");
    assert_eq!(d.times().cache, Default::default());
}

#[test]
fn a_skewed_track_streams_on_without_a_lost_turn() {
    let mut cfg = cached();
    cfg.cache.enabled = false;
    cfg.merge_adjacent = true;
    cfg.command_overhead = Default::default();
    cfg.interface_sector_transfer_ns = 0;
    // Head 1's track is skewed 13 sectors from head 0's, cylinder 1's first track 17 further.
    cfg.zones = vec![HddZone { track_skew_sectors: Some(13), cylinder_skew_sectors: Some(17), ..zone(100, SPT as u32, 0) }];
    let mut d = disk(&cfg);
    // Sector 100 (head 1, sector 0) starts at angle 13 sectors: 1.3 ms from t = 0.
    let t1 = serve(&mut d, 0, req(1, Op::Read, 100, 7));
    assert_eq!((d.times().rotation_ns, t1), (13 * REV / SPT, 13 * REV / SPT + 20 * REV / SPT - 13 * REV / SPT));
    // The continuation streams on: no wait, on the same grid of sector boundaries.
    let t2 = serve(&mut d, t1, req(2, Op::Read, 107, 50));
    assert_eq!((d.times().merged, d.times().rotation_ns), (1, 13 * REV / SPT));
    assert_eq!(t2, (13 + 57) * REV / SPT);
    // Across the track and cylinder boundary (sector 200 = cylinder 1, head 0): only the skews' difference.
    let t3 = serve(&mut d, t2, req(3, Op::Read, 157, 53));
    // Head 1's track ends at 11.3 ms (angle 13 again); a 1-cylinder seek (1 ms, the table's first point) lands
    // at angle 23 sectors; cylinder 1's first sector is at 1·(13 + 17) = 30 sectors: 0.7 ms more, then 10 sectors.
    let track_end = (13 + 100) * REV / SPT;
    assert_eq!(d.seek_ns(1), 1_000_000);
    assert_eq!(t3, track_end + 1_000_000 + 7 * REV / SPT + 10 * REV / SPT);
}

#[test]
fn a_continuation_on_a_skewed_track_waits_for_nothing_whatever_the_turn() {
    // A revolution that sectors do not divide evenly: sector boundaries are rounded, the same way for angles and sweeps.
    for rev in [REV, REV + 3, 8_333_333] {
        let mut cfg = cached();
        (cfg.cache.enabled, cfg.merge_adjacent, cfg.revolution_ns) = (false, true, rev);
        cfg.zones = vec![HddZone { track_skew_sectors: Some(37), cylinder_skew_sectors: Some(41), ..zone(100, 97, 0) }];
        let mut d = disk(&cfg);
        let mut t = serve(&mut d, 0, req(1, Op::Read, 97 + 5, 3));
        let lead = d.times().rotation_ns;
        for (i, sector) in (97 + 8..97 + 90).step_by(3).enumerate() {
            t = serve(&mut d, t, req(i as u64 + 2, Op::Read, sector, 3));
        }
        assert_eq!(d.times().rotation_ns, lead, "revolution {rev} ns: a continuation waited");
    }
}

#[test]
fn empty_space_at_a_zones_front_maps_nothing() {
    let mut cfg = cached();
    cfg.zones = vec![HddZone { front_spare_sectors: 30, ..zone(2, 100, 0) }, zone(98, 50, 0)];
    let d = disk(&cfg);
    // DiskSim's Atlas III: logical sector 0 lies 30 sectors into the zone; the zone holds 400 - 30.
    assert_eq!((d.locate(0).cylinder, d.locate(0).sector), (0, 30));
    assert_eq!((d.locate(369).cylinder, d.locate(369).head, d.locate(369).sector), (1, 1, 99));
    assert_eq!((d.locate(370).cylinder, d.locate(370).sectors_per_track), (2, 50));
}

#[test]
fn a_write_larger_than_a_segment_goes_to_the_media() {
    let mut d = disk(&cached());
    let t = serve(&mut d, 0, req(1, Op::Write, 1000, 500));
    assert_eq!(d.times().cache.fast_writes, 0, "500 sectors do not fit a 400-sector segment");
    assert!(t > 500_000 + 500 * BULK, "written to the media before it completes: {t}");
}

#[test]
fn cache_settings_that_would_do_nothing_are_refused() {
    let mut c = cached();
    c.cache.read_ahead_on_streams_only = true;
    assert!(c.validate().expect_err("no read-ahead").to_string().contains("read_ahead_on_streams_only"));
    let mut c = cached();
    (c.cache.segments, c.cache.fast_write, c.cache.combine_writes, c.cache.read_hits_on_write_data) = (0, false, false, false);
    c.cache.read_ahead_until = raidsim_core::config::ReadAheadUntil::TrackEnd;
    assert!(c.validate().expect_err("no cache").to_string().contains("needs a cache"));
    let mut c = cached();
    c.seek_table = vec![[1, 9_000_000], [2, 1_000_000]];
    assert!(c.validate().expect_err("extrapolates below zero").to_string().contains("hdd.seek_table"));
}
