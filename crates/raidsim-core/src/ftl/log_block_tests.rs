//! FAST's merges, counted by hand on one plane of 8 blocks of 4 pages:
//! half of them spare, so logical pages 0-15 are logical blocks 0-3
//! (page `p` is page `p % 4` of block `p / 4`), with two random log blocks.

use super::*;

fn one_plane(log_blocks: u32) -> Ftl {
    let mut ssd = SsdConfig::default();
    let g = &mut ssd.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (1, 1, 1, 1);
    (g.blocks_per_plane, g.pages_per_block, g.over_provisioning_fraction) = (8, 4, 0.5);
    ssd.ftl.scheme = FtlScheme::Fast;
    ssd.ftl.log_blocks_per_plane = Some(log_blocks);
    let d = ssd.validate().expect("valid");
    Ftl::new(&ssd, &d)
}

fn write(ftl: &mut Ftl, lpn: u64) -> GcWork {
    let gc = ftl.write(lpn, 0, 0).expect("writes").gc;
    assert_eq!(ftl.check_invariants(), Ok(()), "after writing {lpn}");
    gc
}

fn data_block(ftl: &Ftl, lbn: u32) -> u32 {
    ftl.log_blocks.as_ref().expect("FAST").data_block(0, lbn).expect("a data block")
}

/// A logical block written in order from page 0 fills the sequential log
/// block, which then becomes its data block: nothing copied, and the old
/// data block (none the first time) erased.
#[test]
fn a_block_written_in_order_is_switched_with_one_erase_and_no_copy() {
    let mut ftl = one_plane(2);
    let first: Vec<GcWork> = (0..4).map(|lpn| write(&mut ftl, lpn)).collect();
    assert!(first.iter().all(|gc| *gc == GcWork::default()), "no data block to erase yet: {first:?}");
    assert_eq!(data_block(&ftl, 0), 0);
    let again: Vec<GcWork> = (0..4).map(|lpn| write(&mut ftl, lpn)).collect();
    assert_eq!(again[3], GcWork { blocks_erased: 1, ..GcWork::default() }, "the fourth page switches and erases block 0");
    assert_eq!((data_block(&ftl, 0), ftl.erase_counts()[0]), (1, 1));
    assert_eq!(ftl.merges(), Some(MergeCounts { switch: 2, partial: 0, full: 0 }));
    assert_eq!(ftl.lookup(2), Some(4 + 2), "page 2 of block 1");
}

/// A sequential log block closed before it is full takes the pages it
/// lacks from the data block (two copies), which is then erased.
#[test]
fn a_sequential_log_block_closed_early_copies_the_pages_it_lacks() {
    let mut ftl = one_plane(2);
    ftl.fill_in_order(16, false).expect("fills");
    assert_eq!((0..4).map(|lbn| data_block(&ftl, lbn)).collect::<Vec<_>>(), vec![0, 1, 2, 3], "the fill is the block map");
    assert_eq!(ftl.check_invariants(), Ok(()));
    write(&mut ftl, 4);
    write(&mut ftl, 5);
    let gc = write(&mut ftl, 8); // page 0 of block 2: block 1's log block is closed
    assert_eq!((gc.pages_copied, gc.blocks_erased), (2, 1), "pages 6 and 7 copied from block 1, which is erased");
    assert_eq!((data_block(&ftl, 1), ftl.lookup(7), ftl.erase_counts()[1]), (4, Some(4 * 4 + 3), 1));
    assert_eq!(ftl.merges(), Some(MergeCounts { switch: 0, partial: 1, full: 0 }));
}

/// Eight writes off the sequential pattern fill both random log blocks;
/// the ninth merges the oldest, which holds pages of all four logical
/// blocks: four full merges copying 4 + 4 + 4 + 3 pages (page 14, being
/// rewritten, is not copied), four old data blocks and the log block erased.
#[test]
fn the_oldest_random_log_block_is_merged_logical_block_by_logical_block() {
    let mut ftl = one_plane(2);
    ftl.fill_in_order(16, false).expect("fills");
    for lpn in [1, 6, 11, 13, 2, 7, 3, 5] {
        assert_eq!(write(&mut ftl, lpn), GcWork::default(), "{lpn} goes to a random log block");
    }
    let gc = write(&mut ftl, 14);
    assert_eq!((gc.pages_copied, gc.blocks_erased), (15, 5));
    assert_eq!(gc.reads_by_type[0] + gc.reads_by_type[1] + gc.reads_by_type[2], 15);
    assert_eq!(ftl.merges(), Some(MergeCounts { switch: 0, partial: 0, full: 4 }));
    // Free blocks 6 and 7, then the erased 0 and 1, take logical blocks 0-3 in turn;
    // page 14 opens a random log block in block 2, erased by the third merge.
    assert_eq!((0..4).map(|lbn| data_block(&ftl, lbn)).collect::<Vec<_>>(), vec![6, 7, 0, 1]);
    assert_eq!(ftl.lookup(14), Some(2 * 4));
    assert_eq!((0..8).map(|b| ftl.erase_counts()[b]).collect::<Vec<_>>(), vec![1, 1, 1, 1, 1, 0, 0, 0]);
    // Forced collection merges the full random log block left (block 5, emptied by the merges): one erase.
    let forced = ftl.collect_until(0, 8, 0).expect("merges");
    assert_eq!((forced.pages_copied, forced.blocks_erased), (0, 1));
    assert_eq!(ftl.check_invariants(), Ok(()));
}

/// A sequential log block closed early takes each page it lacks from
/// wherever its current copy is, the random log included; a full merge of
/// the sequential log block's logical block empties it, and it is erased
/// with the old data block.
#[test]
fn merges_copy_current_pages_wherever_they_are() {
    let mut ftl = one_plane(1);
    ftl.fill_in_order(16, false).expect("fills");
    write(&mut ftl, 0); // block 4: block 0's sequential log
    for lpn in [9, 10, 11, 3] {
        write(&mut ftl, lpn); // block 5: the random log
    }
    let gc = write(&mut ftl, 12); // page 0 of block 3: block 0's sequential log is closed first
    assert_eq!((gc.pages_copied, gc.blocks_erased), (3, 1), "partial merge: pages 1-2 from block 0, 3 from the random log");
    assert_eq!((data_block(&ftl, 0), ftl.lookup(3)), (4, Some(4 * 4 + 3)));

    let mut ftl = one_plane(1);
    ftl.fill_in_order(16, false).expect("fills");
    for lpn in [0, 1, 9, 3, 10, 11] {
        write(&mut ftl, lpn); // block 4: block 0's sequential log (0, 1); block 5: the random log
    }
    let gc = write(&mut ftl, 6); // the random log is full: merge block 2 (for 9), then block 0 (for 3)
    assert_eq!(ftl.merges(), Some(MergeCounts { switch: 0, partial: 0, full: 2 }));
    assert_eq!((gc.pages_copied, gc.blocks_erased), (4 + 4, 4), "old data blocks 2 and 0, the sequential log and the random log erased");
    assert_eq!((data_block(&ftl, 2), data_block(&ftl, 0), ftl.lookup(6)), (6, 7, Some(2 * 4)));
    assert_eq!((0..8).map(|b| ftl.erase_counts()[b]).collect::<Vec<_>>(), vec![1, 0, 1, 0, 1, 1, 0, 0]);
    let forced = ftl.collect_until(0, 8, 0).expect("merges");
    assert_eq!(forced, GcWork::default(), "the random log block being filled is not merged");
}

/// Random rewrites over a filled drive of four planes keep the maps and
/// the block map's placement consistent after every write, and every merge
/// is counted: copies and erases add up to what the merges did.
#[test]
fn random_rewrites_keep_every_page_in_one_of_its_places() {
    let fast = random_rewrites(FtlScheme::Fast, Some(2));
    assert!(fast.switch > 0 && fast.partial > 0 && fast.full > 0, "every kind of merge ran: {fast:?}");
    let block_map = random_rewrites(FtlScheme::BlockMap, None);
    assert!(block_map.full > 0 && block_map.switch + block_map.partial == 0, "{block_map:?}");
}

fn random_rewrites(scheme: FtlScheme, log_blocks: Option<u32>) -> MergeCounts {
    let mut ssd = SsdConfig::default();
    let g = &mut ssd.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (2, 1, 1, 2);
    (g.blocks_per_plane, g.pages_per_block, g.over_provisioning_fraction) = (16, 8, 0.25);
    ssd.ftl.scheme = scheme;
    ssd.ftl.log_blocks_per_plane = log_blocks;
    let d = ssd.validate().expect("valid");
    let mut ftl = Ftl::new(&ssd, &d);
    ftl.fill_in_order(d.logical_pages * 7 / 10, false).expect("fills");
    let (mut state, mut erased) = (12345u64, 0);
    for i in 0..3_000 {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        // Whole logical blocks of every plane (4 planes x 8 pages) in order,
        // runs from a random start, and single random pages.
        let lpn = (state >> 33) % d.logical_pages;
        let (lpn, run) = match i % 4 {
            0 => (lpn / 32 * 32, 32),
            1 => (lpn, 12),
            _ => (lpn, 1),
        };
        for p in lpn..(lpn + run).min(d.logical_pages) {
            erased += ftl.write(p, ftl.static_plane(p), 0).expect("writes").gc.blocks_erased;
        }
        if i % 100 == 0 {
            assert_eq!(ftl.check_invariants(), Ok(()), "after {i} writes");
        }
    }
    assert_eq!(ftl.check_invariants(), Ok(()));
    assert_eq!(erased, ftl.erase_counts().iter().map(|&e| u64::from(e)).sum::<u64>());
    ftl.merges().expect("a block map")
}
