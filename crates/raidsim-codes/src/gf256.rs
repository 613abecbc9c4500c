//! GF(2^8) with Linux md's RAID-6 field: polynomial x^8+x^4+x^3+x^2+1
//! (0x11d), generator 2 (H. Peter Anvin, "The mathematics of RAID-6").

/// Log and exponent tables of the field.
pub struct Tables {
    /// `exp[i] = 2^i`, doubled in length so `exp[log a + log b]` needs no modulo.
    pub exp: [u8; 512],
    /// `log[a]` for a != 0.
    pub log: [u8; 256],
}

const fn build() -> Tables {
    let mut exp = [0u8; 512];
    let mut log = [0u8; 256];
    let mut x: u16 = 1;
    let mut i = 0;
    while i < 255 {
        exp[i] = x as u8;
        exp[i + 255] = x as u8;
        log[x as usize] = i as u8;
        x <<= 1;
        if x & 0x100 != 0 {
            x ^= 0x11d;
        }
        i += 1;
    }
    Tables { exp, log }
}

/// The field's tables, computed at compile time.
pub static TABLES: Tables = build();

/// a · b.
#[inline]
pub fn mul(a: u8, b: u8) -> u8 {
    if a == 0 || b == 0 {
        return 0;
    }
    TABLES.exp[TABLES.log[a as usize] as usize + TABLES.log[b as usize] as usize]
}

/// 2^e.
#[inline]
pub fn pow2(e: usize) -> u8 {
    TABLES.exp[e % 255]
}

/// a^-1 (a != 0).
#[inline]
pub fn inv(a: u8) -> u8 {
    debug_assert!(a != 0);
    TABLES.exp[255 - TABLES.log[a as usize] as usize]
}

/// Multiplies eight field elements packed in a u64 by 2 (SWAR: shift each
/// byte left, reduce the bytes whose top bit fell out by 0x1d).
#[inline(always)]
pub fn mul2_u64(x: u64) -> u64 {
    let hi = x & 0x8080_8080_8080_8080;
    ((x << 1) & 0xfefe_fefe_fefe_fefe) ^ ((hi >> 7) * 0x1d)
}

/// 2 · x, branch-free so that loops over byte arrays vectorize.
#[inline(always)]
pub fn mul2_byte(x: u8) -> u8 {
    let reduce = ((x as i8) >> 7) as u8 & 0x1d;
    (x << 1) ^ reduce
}

/// `dst ^= c · src`, byte by byte through a 256-entry row of the product table.
pub fn mul_acc(dst: &mut [u8], src: &[u8], c: u8) {
    if c == 0 {
        return;
    }
    let mut row = [0u8; 256];
    for (v, r) in row.iter_mut().enumerate() {
        *r = mul(v as u8, c);
    }
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= row[*s as usize];
    }
}

/// `dst = c · dst`.
pub fn mul_in_place(dst: &mut [u8], c: u8) {
    let mut row = [0u8; 256];
    for (v, r) in row.iter_mut().enumerate() {
        *r = mul(v as u8, c);
    }
    for d in dst.iter_mut() {
        *d = row[*d as usize];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_axioms_on_every_pair() {
        for a in 1..=255u8 {
            assert_eq!(mul(a, inv(a)), 1);
            for b in 0..=255u8 {
                assert_eq!(mul(a, b), mul(b, a));
            }
        }
        // 2 generates the multiplicative group: 255 distinct powers.
        let powers: std::collections::BTreeSet<u8> = (0..255).map(pow2).collect();
        assert_eq!(powers.len(), 255);
    }

    #[test]
    fn byte_doubling_matches_the_table() {
        for a in 0..=255u8 {
            assert_eq!(mul2_byte(a), mul(a, 2));
        }
    }

    #[test]
    fn swar_doubling_matches_the_table() {
        for a in 0..=255u8 {
            let packed = u64::from_le_bytes([a; 8]);
            assert_eq!(mul2_u64(packed), u64::from_le_bytes([mul(a, 2); 8]));
        }
    }
}
