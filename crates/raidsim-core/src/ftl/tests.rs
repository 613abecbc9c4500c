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
