use super::*;
use crate::array::{Planner, StripeSet};
use crate::config::{ArrayConfig, RaidLevel};

/// A verifier, planner and state of a healthy `level` array of `members`
/// members with 4 KiB units, after one host write of `len` bytes at 0.
fn written(level: RaidLevel, members: u32, len: u64) -> (ByteVerifier, ArrayState) {
    let cfg = ArrayConfig { level, members, stripe_unit_bytes: 4096, ..Default::default() };
    let geom = ArrayGeometry::new(&cfg, 1 << 20);
    let code = (level == RaidLevel::Raid6).then_some((raidsim_codes::Code::Rs, None));
    let mut v = ByteVerifier::new(geom.clone(), code);
    let mut planner = Planner::new(&cfg, geom, 4096).expect("planner");
    let state = ArrayState::new(members);
    let mut plans = Vec::new();
    planner.plan(Op::Write, 0, len, &state, &mut plans).expect("plan");
    let version = v.next_version();
    for p in &plans {
        let start = p.stripe * v.geom.stripe_data_bytes();
        let (lo, hi) = (start, (start + v.geom.stripe_data_bytes()).min(len));
        v.apply_write(&state, p, lo, hi - lo, version).expect("apply");
    }
    (v, state)
}

fn check(v: &ByteVerifier, state: &ArrayState) -> FinalCheck {
    v.final_check(state, &StripeSet::new(v.geom.stripes()), |_| false)
}

/// Flips one byte of member `m` at `offset`.
fn corrupt(v: &mut ByteVerifier, state: &ArrayState, m: u32, offset: u64) {
    let mut bytes = v.get(state, m, offset);
    bytes[7] ^= 1;
    v.put(state, m, offset, bytes);
}

#[test]
fn stale_parity_is_found_without_a_failure() {
    for (level, members) in [(RaidLevel::Raid5, 4), (RaidLevel::Raid6, 5)] {
        // One 4 KiB unit written: every parity sector of stripe 0 is checked.
        let (mut v, state) = written(level, members, 4096);
        let clean = check(&v, &state);
        assert_eq!((clean.mismatches, clean.sectors_checked), (0, 8), "{level:?}");
        assert_eq!(clean.redundancy_checked, 8 * u64::from(level.parity_units()), "{level:?}");
        let last_parity = v.geom.parity_members(0).into_iter().flatten().last().expect("parity");
        corrupt(&mut v, &state, last_parity, 3 * SECTOR);
        assert_eq!(check(&v, &state).mismatches, 1, "{level:?}: a stale parity sector went unnoticed");
    }
}

#[test]
fn a_stale_mirror_copy_is_found() {
    let (mut v, state) = written(RaidLevel::Raid1, 2, 4096);
    let clean = check(&v, &state);
    assert_eq!((clean.mismatches, clean.sectors_checked, clean.redundancy_checked), (0, 8, 16));
    corrupt(&mut v, &state, 1, 5 * SECTOR);
    assert_eq!(check(&v, &state).mismatches, 1);
}

#[test]
fn deferred_parity_is_not_compared() {
    let (mut v, state) = written(RaidLevel::Raid5, 4, 4096);
    let p = v.geom.parity_members(0)[0].expect("parity");
    corrupt(&mut v, &state, p, 0);
    let end = v.final_check(&state, &StripeSet::new(v.geom.stripes()), |s| s == 0);
    assert_eq!((end.mismatches, end.redundancy_checked), (0, 0));
}
