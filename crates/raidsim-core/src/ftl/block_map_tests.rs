//! The block-mapped FTL's in-place writes and block rewrites, counted by
//! hand on one plane of 8 blocks of 4 pages, half spare (logical pages 0-15
//! in logical blocks 0-3); free blocks are taken in the order erased.

use super::*;

fn one_plane() -> Ftl {
    let mut ssd = SsdConfig::default();
    let g = &mut ssd.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (1, 1, 1, 1);
    (g.blocks_per_plane, g.pages_per_block, g.over_provisioning_fraction) = (8, 4, 0.5);
    ssd.ftl.scheme = FtlScheme::BlockMap;
    let d = ssd.validate().expect("valid");
    Ftl::new(&ssd, &d)
}

fn write(ftl: &mut Ftl, lpn: u64) -> (u64, u64) {
    let gc = ftl.write(lpn, 0, 0).expect("writes").gc;
    assert_eq!(ftl.check_invariants(), Ok(()), "after writing {lpn}");
    (gc.pages_copied, gc.blocks_erased)
}

/// In order, a block's pages go in place; a rewrite copies the others into a free block and erases the old.
#[test]
fn a_rewrite_moves_the_whole_block() {
    let mut ftl = one_plane();
    for lpn in 0..4 {
        assert_eq!(write(&mut ftl, lpn), (0, 0), "{lpn} in place");
    }
    assert_eq!(write(&mut ftl, 1), (3, 1), "pages 0, 2, 3 copied to block 1, block 0 erased");
    assert_eq!(ftl.lookup(1), Some(4 + 1));
    assert_eq!(write(&mut ftl, 1), (3, 1), "and again, into block 2");
    assert_eq!((ftl.lookup(3), ftl.erase_counts()[..3].to_vec()), (Some(2 * 4 + 3), vec![1, 1, 0]));
    assert_eq!(ftl.merges().map(|m| (m.switch, m.partial, m.full)), Some((0, 0, 2)));
}

/// A page above every page programmed goes in place, even past a gap; one below does not.
#[test]
fn pages_go_in_place_while_they_follow_the_last_one_programmed() {
    let mut ftl = one_plane();
    assert_eq!(write(&mut ftl, 2), (0, 0), "a new block, page 2");
    assert_eq!(write(&mut ftl, 0), (1, 1), "page 0 is below page 2: the block is rewritten, page 2 copied");
    assert_eq!(write(&mut ftl, 3), (0, 0), "page 3 follows page 2 in place");
    assert_eq!(write(&mut ftl, 1), (3, 1), "page 1 does not: 0, 2 and 3 copied");
    assert_eq!(ftl.lookup(1), Some(2 * 4 + 1));
}

/// The fill is the block map: a filled block takes rewrites by copying, a partly filled one appends.
#[test]
fn the_fill_leaves_partly_filled_blocks_open_for_appends() {
    let mut ftl = one_plane();
    ftl.fill_in_order(6, false).expect("fills"); // blocks 0 (pages 0-3) and 1 (pages 4-5)
    assert_eq!(ftl.check_invariants(), Ok(()));
    assert_eq!(write(&mut ftl, 6), (0, 0), "page 6 appends to block 1");
    assert_eq!(write(&mut ftl, 3), (3, 1), "page 3 rewrites block 0");
    assert_eq!(write(&mut ftl, 12), (0, 0), "block 3 had no data block");
}
