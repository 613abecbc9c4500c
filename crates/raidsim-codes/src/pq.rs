//! Reed–Solomon P+Q as Linux md RAID-6: P = ⊕ D_i, Q = Σ 2^i · D_i in
//! GF(2^8)/0x11d, with i the data index (md's Q slot order). Any column
//! length. Recovery follows Anvin, "The mathematics of RAID-6".

use crate::gf256::{self, mul2_byte};
use crate::xor::{xor_into, BLOCK};
use crate::{Error, Result};

/// Writes P and Q of `data` into `p` and `q`.
///
/// One pass over the data: for each 64-byte block, P and Q of the block are
/// kept in registers while the columns are visited from the highest index
/// down (Horner: q = 2·q ⊕ D_i, so D_i ends up times 2^i), as md's
/// `raid6_gen_syndrome` does.
pub fn encode(data: &[&[u8]], p: &mut [u8], q: &mut [u8]) {
    let len = p.len();
    let whole = len / BLOCK * BLOCK;
    let blocks = p.chunks_exact_mut(BLOCK).zip(q.chunks_exact_mut(BLOCK));
    for (off, (pout, qout)) in (0..whole).step_by(BLOCK).zip(blocks) {
        let (mut pa, mut qa) = ([0u8; BLOCK], [0u8; BLOCK]);
        for d in data.iter().rev() {
            let Ok(b) = <&[u8; BLOCK]>::try_from(&d[off..off + BLOCK]) else { continue };
            for ((pv, qv), x) in pa.iter_mut().zip(qa.iter_mut()).zip(b) {
                *pv ^= x;
                *qv = mul2_byte(*qv) ^ x;
            }
        }
        pout.copy_from_slice(&pa);
        qout.copy_from_slice(&qa);
    }
    for i in whole..len {
        let (mut pb, mut qb) = (0u8, 0u8);
        for d in data.iter().rev() {
            pb ^= d[i];
            qb = gf256::mul(qb, 2) ^ d[i];
        }
        p[i] = pb;
        q[i] = qb;
    }
}

/// Small-write update of data column `index`: P ⊕= Δ, Q ⊕= 2^index · Δ, Δ = old ⊕ new.
pub fn update(p: &mut [u8], q: &mut [u8], index: usize, old: &[u8], new: &[u8]) {
    let mut delta = old.to_vec();
    xor_into(&mut delta, new);
    xor_into(p, &delta);
    gf256::mul_acc(q, &delta, gf256::pow2(index));
}

/// Fills the erased (`None`) columns of `cols` = data..., P, Q; at most two.
pub fn decode(cols: &mut [Option<Vec<u8>>]) -> Result<()> {
    let n = cols.len();
    if n < 3 {
        return Err(Error::Shape("P+Q needs at least one data column and two parity columns".into()));
    }
    let k = n - 2;
    let len = cols.iter().flatten().map(Vec::len).next().ok_or_else(|| Error::Shape("every column is erased".into()))?;
    let missing: Vec<usize> = (0..n).filter(|&i| cols[i].is_none()).collect();
    let data_missing: Vec<usize> = missing.iter().copied().filter(|&i| i < k).collect();
    if missing.len() > 2 {
        return Err(Error::TooManyErasures(missing.len()));
    }
    match data_missing.as_slice() {
        [] => {}
        [x] if cols[k].is_some() => {
            // D_x = P ⊕ the other data.
            let mut dx = cols[k].clone().unwrap_or_default();
            for (i, c) in cols[..k].iter().enumerate() {
                if i != *x {
                    xor_into(&mut dx, c.as_deref().unwrap_or(&[]));
                }
            }
            cols[*x] = Some(dx);
        }
        [x] => {
            // P is lost too: D_x = (Q ⊕ Q_x) · 2^-x, Q_x = Q of the others.
            let (px, mut qx) = syndromes_without(cols, k, len, &[*x]);
            let _ = px;
            xor_into(&mut qx, cols[k + 1].as_deref().unwrap_or(&[]));
            gf256::mul_in_place(&mut qx, gf256::inv(gf256::pow2(*x)));
            cols[*x] = Some(qx);
        }
        [x, y] => {
            let (mut pxy, mut qxy) = syndromes_without(cols, k, len, &[*x, *y]);
            xor_into(&mut pxy, cols[k].as_deref().unwrap_or(&[]));
            xor_into(&mut qxy, cols[k + 1].as_deref().unwrap_or(&[]));
            // g^(y-x) ⊕ 1 is never 0 for x != y; A = g^(y-x)/(g^(y-x)+1), B = g^-x/(g^(y-x)+1).
            let gyx = gf256::pow2(y - x);
            let denom = gf256::inv(gyx ^ 1);
            let a = gf256::mul(gyx, denom);
            let b = gf256::mul(gf256::inv(gf256::pow2(*x)), denom);
            let mut dx = vec![0u8; len];
            gf256::mul_acc(&mut dx, &pxy, a);
            gf256::mul_acc(&mut dx, &qxy, b);
            let mut dy = pxy;
            xor_into(&mut dy, &dx);
            cols[*x] = Some(dx);
            cols[*y] = Some(dy);
        }
        more => return Err(Error::TooManyErasures(more.len())),
    }
    if cols[k].is_none() || cols[k + 1].is_none() {
        let data: Vec<&[u8]> = cols[..k].iter().map(|c| c.as_deref().unwrap_or(&[])).collect();
        let (mut p, mut q) = (vec![0u8; len], vec![0u8; len]);
        encode(&data, &mut p, &mut q);
        cols[k].get_or_insert(p);
        cols[k + 1].get_or_insert(q);
    }
    Ok(())
}

/// P and Q of the data columns other than `skip` (treated as zero).
fn syndromes_without(cols: &[Option<Vec<u8>>], k: usize, len: usize, skip: &[usize]) -> (Vec<u8>, Vec<u8>) {
    let zero = vec![0u8; len];
    let data: Vec<&[u8]> = (0..k).map(|i| if skip.contains(&i) { &zero[..] } else { cols[i].as_deref().unwrap_or(&zero) }).collect();
    let (mut p, mut q) = (vec![0u8; len], vec![0u8; len]);
    encode(&data, &mut p, &mut q);
    (p, q)
}
