//! The check after the run: every sector ever written read back through
//! the array's final state, and the redundancy that protects it compared
//! with it (see the module docs of `array::verify`).

use super::{pattern, ByteVerifier, EXAMPLES, SECTOR};
use crate::array::ArrayState;

impl ByteVerifier {
    /// Reads back every sector ever written through the array's final
    /// state (lost stripes excepted), then checks the redundancy that holds
    /// it: every surviving copy of a mirrored unit, and for parity levels
    /// every surviving parity sector against its data re-encoded (stripes
    /// `parity_deferred` names excepted: CR5M's mirrored stripes, whose
    /// parity covers the expired versions).
    pub fn final_check(&self, state: &ArrayState, lost: &crate::array::StripeSet, parity_deferred: impl Fn(u64) -> bool) -> FinalCheck {
        let mut out = FinalCheck::default();
        let mut places = Vec::new();
        let mut sectors: Vec<(&u64, &u64)> = self.logical.iter().collect();
        sectors.sort_unstable();
        let mut codewords: Vec<(u64, u64)> = Vec::new();
        for (&sector, &version) in sectors {
            let addr = sector * SECTOR;
            let c = self.cell(addr);
            if lost.contains(c.s) {
                continue;
            }
            self.places(addr, &mut places);
            let expected = pattern(sector, version);
            let got = match places.iter().find(|&&(m, _)| state.alive(m, c.s)) {
                Some(&(m, o)) => Some(self.get(state, m, o)),
                None if self.parity() => {
                    let alive = |m: u32, off: u64| state.alive(m, c.s).then(|| self.consistent(state, m, off));
                    self.decode(c.s, c.x, alive)
                        .map(|cols| cols[c.d as usize][(c.row * SECTOR) as usize..((c.row + 1) * SECTOR) as usize].to_vec().into_boxed_slice())
                }
                None => None,
            };
            out.sectors_checked += 1;
            if got.as_deref() != Some(&expected[..]) {
                out.bad(format!("after the run, host sector {sector} (byte {addr}) does not read back its last write"));
            }
            if self.parity() {
                if !parity_deferred(c.s) {
                    codewords.push((c.s, c.x));
                }
                continue;
            }
            for &(m, o) in places.iter().filter(|&&(m, _)| state.alive(m, c.s)) {
                out.redundancy_checked += 1;
                if self.get(state, m, o) != expected {
                    out.bad(format!("after the run, the copy of host sector {sector} on member {m} at byte {o} is stale"));
                }
            }
        }
        codewords.sort_unstable();
        codewords.dedup();
        for (s, x) in codewords {
            self.check_parity(state, s, x, &mut out);
        }
        out
    }

    /// Re-encodes stripe `s`'s data at sector offset `x` (decoded where a
    /// member is down) and compares each surviving parity sector.
    fn check_parity(&self, state: &ArrayState, s: u64, x: u64, out: &mut FinalCheck) {
        let alive = |m: u32, off: u64| state.alive(m, s).then(|| self.get(state, m, off));
        let Some(cols) = self.decode(s, x, alive) else {
            out.bad(format!("after the run, stripe {s} cannot be decoded from its surviving members"));
            return;
        };
        let k = self.geom.data_units as usize;
        let parity = match self.encode(&cols[..k]) {
            Ok(p) => p,
            Err(e) => return out.bad(format!("after the run, stripe {s}: {e}")),
        };
        let members = self.columns(s);
        for (j, p) in parity.iter().enumerate() {
            let m = members[k + j];
            if !state.alive(m, s) {
                continue;
            }
            for r in 0..self.geom.codeword_rows {
                let o = self.geom.row_offset(s, r) + x;
                out.redundancy_checked += 1;
                if self.get(state, m, o)[..] != p[(r * SECTOR) as usize..((r + 1) * SECTOR) as usize] {
                    out.bad(format!("after the run, parity of stripe {s} on member {m} at byte {o} does not match its data"));
                }
            }
        }
    }
}

/// What [`ByteVerifier::final_check`] found.
#[derive(Default)]
pub struct FinalCheck {
    /// Host sectors read back through the array.
    pub sectors_checked: u64,
    /// Parity sectors and mirror copies compared with their data.
    pub redundancy_checked: u64,
    /// Sectors (host or redundancy) that differed.
    pub mismatches: u64,
    /// The first few, described.
    pub examples: Vec<String>,
}

impl FinalCheck {
    fn bad(&mut self, what: String) {
        self.mismatches += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(what);
        }
    }
}
