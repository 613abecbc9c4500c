//! Slice XOR, written so the compiler vectorizes it.

/// `dst ^= src` (equal lengths).
#[inline]
pub fn xor_into(dst: &mut [u8], src: &[u8]) {
    let n = dst.len().min(src.len());
    let (d, s) = (&mut dst[..n], &src[..n]);
    let mut dc = d.chunks_exact_mut(32);
    let mut sc = s.chunks_exact(32);
    for (a, b) in (&mut dc).zip(&mut sc) {
        for i in 0..32 {
            a[i] ^= b[i];
        }
    }
    for (a, b) in dc.into_remainder().iter_mut().zip(sc.remainder()) {
        *a ^= b;
    }
}

/// Bytes per block: the accumulators of one block stay in registers.
pub const BLOCK: usize = 64;

/// `dst = ⊕ srcs` (every source at least `dst.len()` long), one pass over
/// each source with the running sum of a 64-byte block kept in registers.
pub fn xor_many(dst: &mut [u8], srcs: &[&[u8]]) {
    let n = dst.len();
    let whole = n / BLOCK * BLOCK;
    for (off, out) in (0..whole).step_by(BLOCK).zip(dst.chunks_exact_mut(BLOCK)) {
        let mut acc = [0u8; BLOCK];
        for s in srcs {
            let Ok(b) = <&[u8; BLOCK]>::try_from(&s[off..off + BLOCK]) else { continue };
            for (a, x) in acc.iter_mut().zip(b) {
                *a ^= x;
            }
        }
        out.copy_from_slice(&acc);
    }
    // Symbols that are not whole blocks (RDP's p - 1 = 6 rows): eight bytes at a time.
    let words = whole + (n - whole) / 8 * 8;
    for off in (whole..words).step_by(8) {
        let w = srcs.iter().fold(0u64, |x, s| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&s[off..off + 8]);
            x ^ u64::from_le_bytes(b)
        });
        dst[off..off + 8].copy_from_slice(&w.to_le_bytes());
    }
    for i in words..n {
        dst[i] = srcs.iter().fold(0, |x, s| x ^ s[i]);
    }
}
