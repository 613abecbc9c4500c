//! Erasure recovery, small-write updates and structure vs bytes (issue #4).

use raidsim_codes::{decode, encode, structure, update, Code};
use rand::{Rng, SeedableRng};

const PRIMES: [usize; 5] = [3, 5, 7, 11, 13];

fn random_columns(rng: &mut impl Rng, k: usize, len: usize) -> Vec<Vec<u8>> {
    (0..k).map(|_| (0..len).map(|_| rng.gen()).collect()).collect()
}

/// (code, p, k) for every allowed k of every prime; P+Q for k = 1..=13.
fn cases() -> Vec<(Code, Option<usize>, usize)> {
    let mut v = Vec::new();
    for p in PRIMES {
        v.extend((1..=p).map(|k| (Code::Evenodd, Some(p), k)));
        v.extend((1..p).map(|k| (Code::Rdp, Some(p), k)));
    }
    v.extend((1..=13).map(|k| (Code::Rs, None, k)));
    v
}

fn col_len(p: Option<usize>) -> usize {
    p.map_or(37, |p| (p - 1) * 5)
}

#[test]
fn every_single_and_double_erasure_is_recovered() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    for (code, p, k) in cases() {
        let data = random_columns(&mut rng, k, col_len(p));
        let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
        let [a, b] = encode(code, &refs, p).expect("encode");
        let full: Vec<Vec<u8>> = data.iter().cloned().chain([a, b]).collect();
        let n = k + 2;
        for i in 0..n {
            for j in i..n {
                let mut cols: Vec<Option<Vec<u8>>> = full.iter().cloned().map(Some).collect();
                cols[i] = None;
                cols[j] = None;
                decode(code, &mut cols, p).unwrap_or_else(|e| panic!("{code:?} p={p:?} k={k} erase {i},{j}: {e}"));
                let got: Vec<Vec<u8>> = cols.into_iter().map(|c| c.expect("filled")).collect();
                assert_eq!(got, full, "{code:?} p={p:?} k={k} erase {i},{j}");
            }
        }
    }
}

#[test]
fn small_write_update_equals_full_reencode() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(2);
    for (code, p, k) in cases() {
        let mut data = random_columns(&mut rng, k, col_len(p));
        let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
        let [mut a, mut b] = encode(code, &refs, p).expect("encode");
        let index = rng.gen_range(0..k);
        let new: Vec<u8> = (0..data[index].len()).map(|_| rng.gen()).collect();
        update(code, k, p, &mut a, &mut b, index, &data[index], &new).expect("update");
        data[index] = new;
        let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
        assert_eq!([a, b], encode(code, &refs, p).expect("encode"), "{code:?} p={p:?} k={k}");
    }
}

#[test]
fn flipping_a_data_cell_changes_exactly_the_listed_parity_cells() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
    for (code, p, k) in cases() {
        let s = structure(code, k, p).expect("structure");
        let len = col_len(p);
        let l = len / s.rows;
        let data = random_columns(&mut rng, k, len);
        let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
        let before = encode(code, &refs, p).expect("encode");
        for c in 0..k {
            for r in 0..s.rows {
                let mut flipped = data.clone();
                flipped[c][r * l] ^= 0x01;
                let refs: Vec<&[u8]> = flipped.iter().map(Vec::as_slice).collect();
                let after = encode(code, &refs, p).expect("encode");
                let mut changed = Vec::new();
                for (pi, (x, y)) in before.iter().zip(&after).enumerate() {
                    for pr in 0..s.rows {
                        if x[pr * l..(pr + 1) * l] != y[pr * l..(pr + 1) * l] {
                            changed.push((k + pi, pr));
                        }
                    }
                }
                let mut listed: Vec<(usize, usize)> = s.cover.iter().filter(|(_, cells)| cells.contains(&(c, r))).map(|(cell, _)| *cell).collect();
                listed.sort_unstable();
                changed.sort_unstable();
                assert_eq!(changed, listed, "{code:?} p={p:?} k={k} cell ({c}, {r})");
            }
        }
    }
}

#[test]
fn evenodd_adjuster_cells_touch_every_diagonal_parity() {
    // Blaum et al.: a data cell on diagonal p - 1 enters S, so it changes all p - 1 diagonal parities.
    let s = structure(Code::Evenodd, 5, Some(5)).expect("structure");
    let touched = s.cover.iter().filter(|((col, _), cells)| *col == 6 && cells.contains(&(1, 3))).count();
    assert_eq!(touched, 4);
    let row = s.cover.iter().filter(|((col, _), cells)| *col == 5 && cells.contains(&(1, 3))).count();
    assert_eq!(row, 1);
}

#[test]
fn bad_shapes_are_errors() {
    assert!(encode(Code::Evenodd, &[&[0u8; 5][..]], Some(4)).is_err(), "4 is not prime");
    assert!(encode(Code::Rdp, &[&[0u8; 4][..]; 5], Some(5)).is_err(), "RDP p=5 takes 4 data columns");
    assert!(encode(Code::Evenodd, &[&[0u8; 5][..]], Some(5)).is_err(), "5 bytes not divisible by 4");
    let mut cols = vec![None, None, None, Some(vec![0u8; 4])];
    assert!(decode(Code::Rs, &mut cols, None).is_err(), "three erasures");
}

/// Primes past one 64-bit word of unknown cells (2(p − 1) > 64 from p = 37).
const LARGE: [(usize, usize); 4] = [(37, 36), (41, 33), (67, 66), (257, 256)];

#[test]
fn evenodd_and_rdp_with_p_at_least_37_write_the_right_parity() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
    for (p, k) in LARGE {
        for code in [Code::Evenodd, Code::Rdp] {
            let k = if code == Code::Rdp { k.min(p - 1) } else { k };
            let len = p - 1;
            let mut data = random_columns(&mut rng, k, len);
            let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
            let [mut a, mut b] = encode(code, &refs, Some(p)).expect("encode");
            assert!(b.iter().any(|&x| x != 0), "{code:?} p={p}: diagonal parity all zero");
            // A small write updated from the structure equals a re-encode.
            let new: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            update(code, k, Some(p), &mut a, &mut b, 3, &data[3], &new).expect("update");
            data[3] = new;
            let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
            assert_eq!([a.clone(), b.clone()], encode(code, &refs, Some(p)).expect("encode"), "{code:?} p={p} update");
            // Two data erasures recover.
            let full: Vec<Vec<u8>> = data.iter().cloned().chain([a, b]).collect();
            let mut cols: Vec<Option<Vec<u8>>> = full.iter().cloned().map(Some).collect();
            cols[0] = None;
            cols[k - 1] = None;
            decode(code, &mut cols, Some(p)).unwrap_or_else(|e| panic!("{code:?} p={p}: {e}"));
            assert_eq!(cols.into_iter().map(|c| c.expect("filled")).collect::<Vec<_>>(), full, "{code:?} p={p} decode");
        }
    }
}

#[test]
fn written_out_covers_equal_the_solved_equations() {
    use raidsim_codes::array_code::{ArrayCode, ArrayKind};
    for p in [3, 5, 7, 11, 13, 37, 41] {
        for kind in [ArrayKind::Evenodd, ArrayKind::Rdp] {
            let max_k = if kind == ArrayKind::Evenodd { p } else { p - 1 };
            for k in 1..=max_k {
                let c = ArrayCode::new(kind, k, Some(p)).expect("code");
                let mut direct = c.parity_cover();
                direct.iter_mut().for_each(|(_, cells)| cells.sort_unstable());
                assert_eq!(direct, c.parity_cover_by_elimination().expect("solves"), "{kind:?} p={p} k={k}");
            }
        }
    }
}

#[test]
fn a_prime_beyond_257_is_refused_before_building_the_code() {
    for p in [263, 1031, 65537] {
        let err = structure(Code::Evenodd, 4, Some(p)).expect_err("too large").to_string();
        assert!(err.contains("at most 257"), "{err}");
    }
}

#[test]
fn decode_refuses_columns_of_unequal_length() {
    for (code, p) in [(Code::Rs, None), (Code::Evenodd, Some(5)), (Code::Rdp, Some(5))] {
        let data = [vec![1u8; 8], vec![2u8; 8]];
        let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
        let [a, b] = encode(code, &refs, p).expect("encode");
        let mut cols = vec![None, Some(vec![2u8; 4]), Some(a), Some(b)];
        let err = decode(code, &mut cols, p).expect_err("short column").to_string();
        assert!(err.contains("equal lengths"), "{code:?}: {err}");
    }
}

#[test]
fn reed_solomon_refuses_more_than_255_data_columns() {
    let data = vec![vec![0u8; 4]; 256];
    let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
    let err = encode(Code::Rs, &refs, None).expect_err("256 columns").to_string();
    assert!(err.contains("at most 255"), "{err}");
    let data = vec![vec![0u8; 4]; 255];
    let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
    encode(Code::Rs, &refs, None).expect("255 columns");
}
