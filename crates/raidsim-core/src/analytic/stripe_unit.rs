//! Eqs. 1-3 of Rajaei Salmasi et al., "Impact of stripe unit size on
//! performance and endurance of SSD-based RAID arrays" (Scientia Iranica
//! 2013, §4.1-4.2): the number of extra page reads (NEPR) and of parity page
//! writes (NEPW) of one write of `Size_req` bytes starting at data disk SDI
//! of a RAID4/5 array with `N_d` data disks, stripe unit SUS and NPS =
//! SUS / page pages per unit. The paper assumes the request is a whole
//! number of stripe units; LDI = (Size_req / SUS + SDI − 1) mod N_d.
//!
//! These are the paper's formulas as printed. The exact counts come from the
//! planner in counting mode ([`crate::array`]). For requests of whole stripe
//! units (the paper's assumption) the two agree on every start disk, for
//! 2 to 8 data disks and 1 to 3·N_d + 1 units (tests/test_counting.py);
//! for requests that are not whole units the equations do not apply and only
//! the exact count is defined.

/// Rows a request spans: ⌈(SDI + Size_req/SUS) / N_d⌉.
pub fn rows(data_disks: u64, units: u64, sdi: u64) -> u64 {
    (sdi + units).div_ceil(data_disks)
}

/// Last data disk written: (Size_req/SUS + SDI − 1) mod N_d.
pub fn ldi(data_disks: u64, units: u64, sdi: u64) -> u64 {
    (units + sdi - 1) % data_disks
}

/// Eqs. 1 (one row) and 2 (two or more rows): extra page reads.
pub fn nepr(data_disks: u64, stripe_unit_bytes: u64, page_bytes: u64, request_bytes: u64, sdi: u64) -> i64 {
    let nps = (stripe_unit_bytes / page_bytes) as i64;
    let units = request_bytes / stripe_unit_bytes;
    let (nd, sdi_u, ldi_u) = (data_disks as i64, sdi as i64, ldi(data_disks, units, sdi) as i64);
    let half = nd as f64 / 2.0;
    let (s, l) = (sdi_u, ldi_u);
    let factor = if rows(data_disks, units, sdi) == 1 {
        if ((l - s + 1) as f64) < half {
            l - s + 2
        } else {
            nd - l + s - 1
        }
    } else {
        let sdi_high = s as f64 > half;
        let ldi_high = (l + 1) as f64 >= half;
        match (sdi_high, ldi_high) {
            (true, true) => 2 * nd - s - l,
            (true, false) => nd - s + l + 3,
            (false, true) => nd + s - l - 1,
            (false, false) => s + l + 2,
        }
    };
    factor * nps
}

/// Eq. 3: parity page writes, ⌈(SDI + Size_req/SUS) / N_d⌉ × NPS.
pub fn nepw(data_disks: u64, stripe_unit_bytes: u64, page_bytes: u64, request_bytes: u64, sdi: u64) -> u64 {
    rows(data_disks, request_bytes / stripe_unit_bytes, sdi) * (stripe_unit_bytes / page_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_examples_of_section_4_1() {
        // §4.1: 4 KB units, SDI = D1: 3 extra reads; 128 KB units: 96.
        assert_eq!(nepr(4, 4096, 4096, 512 << 10, 1), 3);
        assert_eq!(nepr(4, 128 << 10, 4096, 512 << 10, 1), 96);
        // §4.2: 33 parity pages at 4 KB units, 64 at 128 KB.
        assert_eq!(nepw(4, 4096, 4096, 512 << 10, 1), 33);
        assert_eq!(nepw(4, 128 << 10, 4096, 512 << 10, 1), 64);
    }
}
