use super::*;

fn small_drive() -> Ftl {
    let ssd = SsdConfig::default();
    let d = ssd.validate().expect("valid");
    Ftl::new(&ssd, &d)
}

/// A rewrite refuses to replace a page whose reverse entry names
/// another logical page, or whose block counts no valid page, for pages
/// the fill left and pages written since; a consistent drive rewrites.
#[test]
fn a_rewrite_catches_maps_that_disagree() {
    let mut ftl = small_drive();
    ftl.fill_in_order(100, false).expect("fills");
    let rewrite = |ftl: &mut Ftl, lpn: u64| {
        let plane = ftl.static_plane(lpn);
        ftl.write(lpn, plane, 0)
    };
    let filled = ftl.read_lookup(7).expect("filled");
    let written = rewrite(&mut ftl, 9).expect("consistent").ppn;
    assert_eq!(ftl.read_lookup(9), Some(written));
    ftl.set_id(filled, 8);
    assert!(matches!(rewrite(&mut ftl, 7), Err(Error::Internal(_))));
    ftl.set_id(written, 10);
    assert!(matches!(rewrite(&mut ftl, 9), Err(Error::Internal(_))));
    ftl.set_id(written, 9);
    let block = ftl.layout.block_of(written) as usize;
    let valid = std::mem::replace(&mut ftl.valid[block], 0);
    assert!(matches!(rewrite(&mut ftl, 9), Err(Error::Internal(_))));
    ftl.valid[block] = valid;
    assert!(rewrite(&mut ftl, 9).is_ok());
    ftl.p2l[filled as usize] = AS_FILLED;
    assert!(rewrite(&mut ftl, 7).is_ok());
    assert_eq!(ftl.check_invariants(), Ok(()));
}

/// Garbage collection counts each copy's read by the type of the page it
/// reads and its program by the type of the page it writes: here they
/// differ. One TLC plane, 16-page blocks (L L L L L L C C L L C C M M L L).
#[test]
fn a_collection_counts_copies_by_the_types_of_their_source_and_destination_pages() {
    let mut ssd = SsdConfig::default();
    let g = &mut ssd.geometry;
    (g.channels, g.planes_per_die, g.blocks_per_plane, g.pages_per_block, g.over_provisioning_fraction) = (1, 1, 8, 16, 0.5);
    g.cell_type = crate::config::CellType::Tlc;
    (ssd.timing.t_read_csb_ns, ssd.timing.t_read_msb_ns, ssd.timing.t_program_csb_ns, ssd.timing.t_program_msb_ns) =
        (Some(1), Some(1), Some(1), Some(1));
    let d = ssd.validate().expect("valid");
    let mut ftl = Ftl::new(&ssd, &d);
    // Block A holds pages 0-15 of logical pages 0-15; rewriting 12 and 13 (A's MSB pages) puts them on
    // pages 0-1 of block B and leaves A 14 valid pages, the only victim.
    for lpn in (0..16).chain([12, 13]) {
        ftl.write(lpn, 0, 0).expect("writes");
    }
    let gc = ftl.collect_until(0, ftl.free_blocks(0) + 1, 0).expect("collects");
    assert_eq!((gc.pages_copied, gc.blocks_erased), (14, 1));
    // Read from A: pages 0-11 and 14-15, by hand: LSB 0-5, 8-9, 14-15; CSB 6-7, 10-11.
    assert_eq!(gc.reads_by_type, [10, 4, 0, 0, 0]);
    // Written to B's pages 2-15: LSB 2-5, 8-9, 14-15; CSB 6-7, 10-11; MSB 12-13.
    assert_eq!(gc.programs_by_type, [8, 4, 2, 0, 0]);
    assert_eq!(ftl.check_invariants(), Ok(()));
}

/// A cached map's translation pages take the mapping ids after the host's
/// pages, where a drive with mirroring chips keeps its copies: on a drive
/// without, a host page has no copy even when a translation page's id is
/// the one its mirror copy would take, and a chip failure reports no
/// translation page as host data.
#[test]
fn translation_pages_are_no_ones_copies() {
    let mut ssd = SsdConfig::default();
    (ssd.ftl.scheme, ssd.ftl.cmt_bytes) = (crate::config::FtlScheme::Dftl, Some(1 << 16));
    let d = ssd.validate().expect("valid");
    let mut ftl = Ftl::new(&ssd, &d);
    let host = ftl.static_plane(0);
    ftl.write(0, host, 0).expect("host page");
    let id = ftl.translation_id(0);
    assert_eq!(id, ftl.mirror_id(0));
    let plane = ftl.static_plane(id);
    ftl.write(id, plane, 0).expect("translation page");
    assert_eq!((ftl.mirror_of(0), ftl.expired_of(0)), (None, None));
    let planes_per_chip = ftl.layout.geometry.dies_per_chip * ftl.layout.geometry.planes_per_die;
    let loss = ftl.fail_chip(plane / planes_per_chip).expect("fails");
    assert!(loss.mirror.is_empty() && loss.expired.is_empty() && loss.current_mirrored.is_empty(), "{loss:?}");
    assert_eq!(ftl.lookup(id), None);
}

/// One plane of 32 blocks of 8 pages (25 % over-provisioning: 24 blocks'
/// worth of logical pages), with the wear levelling asked for.
fn one_plane(dynamic: bool, static_threshold: Option<u32>) -> Ftl {
    let mut ssd = SsdConfig::default();
    let g = &mut ssd.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (1, 1, 1, 1);
    (g.blocks_per_plane, g.pages_per_block, g.over_provisioning_fraction) = (32, 8, 0.25);
    (ssd.ftl.dynamic_wear_levelling, ssd.ftl.static_wear_levelling_threshold) = (dynamic, static_threshold);
    let d = ssd.validate().expect("valid");
    Ftl::new(&ssd, &d)
}

/// Dynamic levelling opens the least-erased free block (the first of
/// them on ties); without it, the block free the longest.
#[test]
fn dynamic_levelling_opens_the_least_erased_free_block() {
    for (dynamic, expected) in [(true, 5), (false, 1)] {
        let mut ftl = one_plane(dynamic, None);
        for b in 1..32 {
            ftl.erase_count[b] = if b == 5 || b == 9 { 1 } else { 3 };
        }
        for lpn in 0..9 {
            ftl.write(lpn, 0, 0).expect("write");
        }
        // Block 0 took the first 8 pages; the ninth opened the next block.
        assert_eq!(ftl.lookup(8).map(|p| ftl.layout.block_of(p)), Some(expected), "dynamic: {dynamic}");
    }
}

/// Cold data (the fill, never rewritten) and a hot set of 8 pages
/// rewritten 20,000 times: the largest spread of the erase counts (max -
/// min over the plane) after any of the last 10,000 writes.
fn spread_under_hot_writes(ftl: &mut Ftl) -> u32 {
    for lpn in 0..ftl.logical_pages() {
        ftl.write(lpn, 0, 0).expect("fill");
    }
    let spread = |ftl: &Ftl| {
        let counts = &ftl.erase_count;
        counts.iter().max().copied().unwrap_or(0) - counts.iter().min().copied().unwrap_or(0)
    };
    let mut largest = 0;
    for i in 0..20_000u64 {
        ftl.write(i % 8, 0, 0).expect("hot write");
        if i >= 10_000 {
            largest = largest.max(spread(ftl));
        }
    }
    ftl.check_invariants().expect("consistent");
    largest
}

/// Once the cold blocks the fill left have each been relocated (one per
/// collection: the first 10,000 writes), every collection finds the
/// spread at most one past the threshold and brings the coldest block
/// back into use: the spread stays within threshold + 1. Without static
/// levelling the cold blocks stay at zero erases while the hot ones wear.
#[test]
fn static_levelling_bounds_the_erase_spread() {
    for threshold in [5, 10, 40] {
        let mut levelled = one_plane(true, Some(threshold));
        let largest = spread_under_hot_writes(&mut levelled);
        assert!(largest <= threshold + 1, "threshold {threshold}: spread reached {largest}");
        assert!(levelled.static_wear_levelling_moves() > 0);
    }
    let without = spread_under_hot_writes(&mut one_plane(true, None));
    assert!(without > 300, "spread {without} without static levelling");
}

/// The trigger by hand: a spread of exactly the threshold moves nothing,
/// one more relocates the coldest block in use.
#[test]
fn static_levelling_moves_only_past_the_threshold() {
    for (spread, moves) in [(10, 0), (11, 1)] {
        let mut ftl = one_plane(false, Some(10));
        for lpn in 0..16 {
            ftl.write(lpn, 0, 0).expect("write");
        }
        // Blocks 0 and 1 are full and in use; block 20 is free and the most erased.
        ftl.erase_count[..32].fill(3);
        ftl.erase_count[0] = 1;
        ftl.erase_count[20] = 1 + spread;
        ftl.level_statically(0, 0).expect("levels");
        assert_eq!(ftl.static_wear_levelling_moves(), moves, "spread {spread}");
    }
}

/// Random-greedy draws anew at each collection and from the run's seed:
/// with one block a draw, successive picks on one unchanged plane vary,
/// and another seed picks otherwise.
#[test]
fn random_greedy_draws_anew_each_time_and_from_the_seed() {
    let picks = |seed: u64| {
        let mut ssd = SsdConfig::default();
        (ssd.geometry.channels, ssd.geometry.planes_per_die) = (1, 1);
        ssd.ftl.gc_victim = crate::config::GcVictim::RandomGreedy;
        ssd.ftl.gc_victim_sample = Some(1);
        let d = ssd.validate().expect("valid");
        let mut ftl = Ftl::new(&ssd, &d);
        ftl.seed_gc_draws(seed);
        // Fill three quarters of the plane, so that many used blocks are candidates.
        let pages = u64::from(ssd.geometry.pages_per_block) * u64::from(ssd.geometry.blocks_per_plane) * 3 / 4;
        for lpn in 0..pages {
            ftl.write(lpn, 0, 0).expect("write");
        }
        // Invalidate a page of each block, so that every used block may be drawn.
        for lpn in (0..pages).step_by(ssd.geometry.pages_per_block as usize) {
            ftl.write(lpn, 0, 0).expect("write");
        }
        (0..32).map(|_| ftl.pick_victim(0, 0).expect("a victim")).collect::<Vec<_>>()
    };
    let (a, b) = (picks(1), picks(2));
    let mut distinct = a.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(distinct.len() > 8, "32 draws of one block among many picked only {distinct:?}");
    assert_ne!(a, b, "another seed draws the same victims");
}

/// One plane of 8-page blocks, DFTL, with open blocks shared or by source.
fn one_plane_dftl(frontiers: crate::config::WriteFrontiers) -> Ftl {
    let mut ssd = SsdConfig::default();
    let g = &mut ssd.geometry;
    (g.channels, g.planes_per_die, g.blocks_per_plane, g.pages_per_block, g.over_provisioning_fraction) = (1, 1, 16, 8, 0.5);
    (ssd.ftl.scheme, ssd.ftl.cmt_bytes, ssd.ftl.write_frontiers) = (FtlScheme::Dftl, Some(64), frontiers);
    let d = ssd.validate().expect("valid");
    Ftl::new(&ssd, &d)
}

/// With an open block per source, collection's copies and translation
/// pages go to blocks of their own, and the host's pages stay in a row
/// (MQSim's Data_wf, GC_wf, Translation_wf); with translation pages apart
/// (DFTL's translation blocks), copies follow the host's pages; shared,
/// all three interleave.
#[test]
fn each_source_fills_its_own_open_block_when_frontiers_are_by_source() {
    use crate::config::WriteFrontiers::{BySource, Shared, TranslationApart};
    for frontiers in [Shared, TranslationApart, BySource] {
        let mut ftl = one_plane_dftl(frontiers);
        let (map_apart, copies_apart) = (frontiers != Shared, frontiers == BySource);
        // Block 0 takes logical pages 0-7; rewriting 0-3 puts them on pages 0-3 of block 1.
        for lpn in (0..8).chain(0..4) {
            ftl.write(lpn, 0, 0).expect("writes");
        }
        let row = ftl.lookup(3).expect("written");
        // A translation page, then a host page.
        let map_page = ftl.write(ftl.translation_id(0), 0, 0).expect("writes").ppn;
        let host = ftl.write(8, 0, 0).expect("writes").ppn;
        assert_eq!(host == row + 1, map_apart, "{frontiers:?}: the host's next page follows its last");
        assert_eq!(map_page == row + 1, !map_apart, "{frontiers:?}: the translation page");
        // Collect block 0 (logical pages 4-7 valid, the fewest): its copies.
        let gc = ftl.collect_until(0, ftl.free_blocks(0) + 1, 0).expect("collects");
        assert_eq!((gc.pages_copied, gc.blocks_erased), (4, 1), "{frontiers:?}");
        let copy = ftl.lookup(4).expect("copied");
        assert_eq!(copy == host + 1, !copies_apart, "{frontiers:?}: the first copy");
        let layout = ftl.layout().clone();
        let [c, h, m] = [copy, host, map_page].map(|p| layout.block_of(p));
        assert_eq!(c != h && c != m && h != m, copies_apart, "{frontiers:?}: blocks {c}, {h}, {m}");
        assert_eq!(ftl.check_invariants(), Ok(()));
        // Free pages are those the host can write: what is left of its own
        // open block, 3 by source; 7 with translation pages apart, after one
        // copy spilled into the next block; 6 shared, after two did.
        let open_left = [6, 7, 3][frontiers as usize];
        let free_blocks = ftl.free_blocks(0) as u64;
        assert_eq!(ftl.free_pages(0), free_blocks * 8 + open_left, "{frontiers:?}");
    }
}
