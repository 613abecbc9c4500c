//! Where each stripe unit lives: RAID 0/1/10/4/5/6 address mapping.
//!
//! A stripe (row) holds `data_units` data units and `parity_units` parity
//! units, one per member, each `stripe_unit_bytes` long at member offset
//! `row × stripe_unit_bytes`. RAID-5/6 rotate parity with Linux md's
//! algorithms (`raid5_compute_sector` in drivers/md/raid5.c), with `n`
//! members, `k` data units per stripe and stripe number `s`:
//!
//! ```text
//! RAID-5 left-asymmetric   P = k - s mod n        data d on d, or d+1 if d >= P
//! RAID-5 right-asymmetric  P = s mod n            data d on d, or d+1 if d >= P
//! RAID-5 left-symmetric    P = k - s mod n        data d on (P + 1 + d) mod n
//! RAID-5 right-symmetric   P = s mod n            data d on (P + 1 + d) mod n
//! RAID-6 left-asymmetric   P = n-1 - s mod n, Q = P+1; if P = n-1: Q = 0, data d on d+1;
//!                          else data d on d, or d+2 if d >= P
//! RAID-6 right-asymmetric  P = s mod n, then as left-asymmetric
//! RAID-6 left-symmetric    P = n-1 - s mod n, Q = (P+1) mod n, data d on (P + 2 + d) mod n
//! RAID-6 right-symmetric   P = s mod n,       Q = (P+1) mod n, data d on (P + 2 + d) mod n
//! RAID-4                   P = n - 1 (md's parity-last), data d on d
//! RAID-5, parity shares    P = cycle[s mod L] (`parity_distribution`), data as `layout` says
//! ```
//!
//! RAID-1 is an n-way mirror (one data unit per "stripe", a copy on every
//! member). RAID-10 is md's "near" layout: unit j's copy i sits at position
//! `p = j × copies + i`, on member `p mod n`, row `p div n`.

use super::{ArrayConfig, ParityLayout, ParityPlacement, RaidLevel};

/// One copy of a data unit: which member, and the member offset where the unit starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitCopy {
    /// Member index.
    pub member: u32,
    /// Byte offset of the unit on the member.
    pub member_offset: u64,
}

/// The address mapping of an array.
#[derive(Clone, Debug)]
pub struct ArrayGeometry {
    /// RAID level.
    pub level: RaidLevel,
    /// Member count.
    pub members: u32,
    /// Bytes per stripe unit.
    pub unit_bytes: u64,
    /// Data units per stripe.
    pub data_units: u32,
    /// Parity units per stripe (0, 1 or 2).
    pub parity_units: u32,
    /// RAID-10 copies (RAID-1: members).
    pub copies: u32,
    /// RAID-5/6 rotation.
    pub layout: ParityLayout,
    /// Rows of stripe units that fit on the smallest member (a multiple of `codeword_rows`).
    pub rows: u64,
    /// Rows of units per codeword: 1, or p − 1 for EVENODD/RDP. A "stripe"
    /// of the planner is one codeword.
    pub codeword_rows: u64,
    /// RAID-6 parity on fixed members (n − 2, n − 1).
    pub dedicated: bool,
    /// RAID-5 with parity shares: the parity member of each stripe of one
    /// cycle (empty: `layout`'s rotation).
    pub parity_cycle: Vec<u32>,
}

impl ArrayGeometry {
    /// The geometry of `cfg` over members of `member_capacity_bytes` (the smallest one).
    pub fn new(cfg: &ArrayConfig, member_capacity_bytes: u64) -> Self {
        let n = cfg.members;
        let level = cfg.level.code_level();
        let parity_units = level.parity_units();
        let (data_units, copies) = match level {
            RaidLevel::Single | RaidLevel::Raid0 => (n, 1),
            RaidLevel::Raid1 => (1, n),
            RaidLevel::Raid10 => (n, cfg.copies),
            RaidLevel::Raid4 | RaidLevel::Raid5 | RaidLevel::Cr5 | RaidLevel::Cr5m | RaidLevel::Raid6 => (n - parity_units, 1),
        };
        let codeword_rows = match cfg.xor_code() {
            // p − 1 rows of units per codeword; validation has checked p.
            Some((code, p)) => p.or_else(|| raidsim_codes::default_prime(code, data_units as usize)).map_or(1, |p| p as u64 - 1),
            None => 1,
        };
        let rows = member_capacity_bytes / cfg.stripe_unit_bytes / codeword_rows * codeword_rows;
        let dedicated = cfg.level == RaidLevel::Raid6 && cfg.parity_placement == ParityPlacement::Dedicated;
        Self {
            level,
            members: n,
            unit_bytes: cfg.stripe_unit_bytes,
            data_units,
            parity_units,
            copies,
            layout: cfg.layout,
            rows,
            codeword_rows,
            dedicated,
            parity_cycle: if cfg.parity_distribution.is_empty() {
                Vec::new()
            } else {
                super::parity_distribution::parity_cycle(&cfg.parity_distribution)
            },
        }
    }

    /// Host-visible bytes.
    pub fn capacity_bytes(&self) -> u64 {
        match self.level {
            // RAID-10: n members × rows units, each stored `copies` times,
            // in whole stripes of n units: the units past the last whole
            // stripe would belong to no stripe the rebuild and the loss
            // accounting know of, so they are not offered to the host.
            RaidLevel::Raid10 => {
                let n = u64::from(self.members);
                self.rows * n / u64::from(self.copies) / n * n * self.unit_bytes
            }
            RaidLevel::Single
            | RaidLevel::Raid0
            | RaidLevel::Raid1
            | RaidLevel::Raid4
            | RaidLevel::Raid5
            | RaidLevel::Cr5
            | RaidLevel::Cr5m
            | RaidLevel::Raid6 => self.rows * u64::from(self.data_units) * self.unit_bytes,
        }
    }

    /// Data bytes per stripe (per codeword).
    pub fn stripe_data_bytes(&self) -> u64 {
        u64::from(self.data_units) * self.unit_bytes * self.codeword_rows
    }

    /// Stripes in the array (RAID-10: logical units grouped `members` at a time).
    pub fn stripes(&self) -> u64 {
        self.capacity_bytes() / self.stripe_data_bytes()
    }

    /// The member holding data unit `d` of stripe `s` (parity levels, RAID-0).
    pub fn data_member(&self, s: u64, d: u32) -> u32 {
        let n = u64::from(self.members);
        let k = u64::from(self.data_units);
        let d64 = u64::from(d);
        if self.dedicated {
            return d;
        }
        let m = match (self.level, self.layout) {
            (RaidLevel::Raid4, _) | (RaidLevel::Raid0, _) | (RaidLevel::Single, _) => d64,
            (RaidLevel::Raid5 | RaidLevel::Cr5 | RaidLevel::Cr5m, layout) => {
                let p = self.p_member(s);
                match layout {
                    ParityLayout::LeftAsymmetric | ParityLayout::RightAsymmetric => d64 + u64::from(d64 >= p),
                    ParityLayout::LeftSymmetric | ParityLayout::RightSymmetric => (p + 1 + d64) % n,
                }
            }
            (RaidLevel::Raid6, layout) => {
                let p = self.p_member(s);
                match layout {
                    ParityLayout::LeftAsymmetric | ParityLayout::RightAsymmetric => {
                        if p == n - 1 {
                            d64 + 1
                        } else if d64 >= p {
                            d64 + 2
                        } else {
                            d64
                        }
                    }
                    ParityLayout::LeftSymmetric | ParityLayout::RightSymmetric => (p + 2 + d64) % n,
                }
            }
            (RaidLevel::Raid1 | RaidLevel::Raid10, _) => d64 % n.max(k),
        };
        m as u32
    }

    fn p_member(&self, s: u64) -> u64 {
        if !self.parity_cycle.is_empty() {
            return u64::from(self.parity_cycle[(s % self.parity_cycle.len() as u64) as usize]);
        }
        let n = u64::from(self.members);
        let k = u64::from(self.data_units);
        match (self.level, self.layout) {
            (RaidLevel::Raid4, _) => n - 1,
            (RaidLevel::Raid5 | RaidLevel::Cr5 | RaidLevel::Cr5m, ParityLayout::LeftAsymmetric | ParityLayout::LeftSymmetric) => k - s % n,
            (RaidLevel::Raid6, ParityLayout::LeftAsymmetric | ParityLayout::LeftSymmetric) => n - 1 - s % n,
            (
                RaidLevel::Raid5 | RaidLevel::Cr5 | RaidLevel::Cr5m | RaidLevel::Raid6,
                ParityLayout::RightAsymmetric | ParityLayout::RightSymmetric,
            ) => s % n,
            // Levels without parity never ask; answer as RAID-4 would.
            (RaidLevel::Single | RaidLevel::Raid0 | RaidLevel::Raid1 | RaidLevel::Raid10, _) => n - 1,
        }
    }

    /// Members holding the parity units of stripe `s`: P, then Q (RAID-6).
    pub fn parity_members(&self, s: u64) -> [Option<u32>; 2] {
        if self.parity_units == 0 {
            return [None, None];
        }
        if self.dedicated {
            return [Some(self.members - 2), Some(self.members - 1)];
        }
        let n = u64::from(self.members);
        let p = self.p_member(s);
        let q = match (self.level, self.layout) {
            (RaidLevel::Raid6, ParityLayout::LeftAsymmetric | ParityLayout::RightAsymmetric) => Some(if p == n - 1 { 0 } else { p + 1 }),
            (RaidLevel::Raid6, ParityLayout::LeftSymmetric | ParityLayout::RightSymmetric) => Some((p + 1) % n),
            (
                RaidLevel::Single
                | RaidLevel::Raid0
                | RaidLevel::Raid1
                | RaidLevel::Raid10
                | RaidLevel::Raid4
                | RaidLevel::Raid5
                | RaidLevel::Cr5
                | RaidLevel::Cr5m,
                _,
            ) => None,
        };
        [Some(p as u32), q.map(|q| q as u32)]
    }

    /// Member byte offset where unit row `row` of stripe (codeword) `s` starts.
    pub fn row_offset(&self, s: u64, row: u64) -> u64 {
        (s * self.codeword_rows + row) * self.unit_bytes
    }

    /// The copies of data unit `d` of stripe `s`, primary first.
    /// Fills `out` (cleared first) so the hot path does not allocate.
    pub fn unit_copies(&self, s: u64, d: u32, out: &mut Vec<UnitCopy>) {
        out.clear();
        let u = self.unit_bytes;
        match self.level {
            RaidLevel::Raid1 => {
                out.extend((0..self.members).map(|m| UnitCopy { member: m, member_offset: s * u }));
            }
            RaidLevel::Raid10 => {
                let n = u64::from(self.members);
                let c = u64::from(self.copies);
                let j = s * n + u64::from(d);
                out.extend((0..c).map(|i| {
                    let p = j * c + i;
                    UnitCopy { member: (p % n) as u32, member_offset: (p / n) * u }
                }));
            }
            RaidLevel::Single | RaidLevel::Raid0 | RaidLevel::Raid4 | RaidLevel::Raid5 | RaidLevel::Cr5 | RaidLevel::Cr5m | RaidLevel::Raid6 => {
                out.push(UnitCopy { member: self.data_member(s, d), member_offset: s * u })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry(level: RaidLevel, layout: ParityLayout, n: u32) -> ArrayGeometry {
        let cfg = ArrayConfig { level, members: n, layout, stripe_unit_bytes: 4096, ..Default::default() };
        ArrayGeometry::new(&cfg, 1 << 30)
    }

    /// Member of each data unit, then P (and Q), for stripes 0..n.
    fn table(g: &ArrayGeometry) -> Vec<Vec<u32>> {
        (0..u64::from(g.members))
            .map(|s| {
                let mut row: Vec<u32> = (0..g.data_units).map(|d| g.data_member(s, d)).collect();
                row.extend(g.parity_members(s).iter().flatten());
                row
            })
            .collect()
    }

    // Hand-worked from md's formulas for 4 members (raid5) / 5 members (raid6);
    // each row: data members in data order, then P (then Q).
    #[test]
    fn raid5_layouts_match_md() {
        let ls = table(&geometry(RaidLevel::Raid5, ParityLayout::LeftSymmetric, 4));
        assert_eq!(ls, vec![vec![0, 1, 2, 3], vec![3, 0, 1, 2], vec![2, 3, 0, 1], vec![1, 2, 3, 0]]);
        let la = table(&geometry(RaidLevel::Raid5, ParityLayout::LeftAsymmetric, 4));
        assert_eq!(la, vec![vec![0, 1, 2, 3], vec![0, 1, 3, 2], vec![0, 2, 3, 1], vec![1, 2, 3, 0]]);
        let rs = table(&geometry(RaidLevel::Raid5, ParityLayout::RightSymmetric, 4));
        assert_eq!(rs, vec![vec![1, 2, 3, 0], vec![2, 3, 0, 1], vec![3, 0, 1, 2], vec![0, 1, 2, 3]]);
        let ra = table(&geometry(RaidLevel::Raid5, ParityLayout::RightAsymmetric, 4));
        assert_eq!(ra, vec![vec![1, 2, 3, 0], vec![0, 2, 3, 1], vec![0, 1, 3, 2], vec![0, 1, 2, 3]]);
    }

    #[test]
    fn raid6_layouts_match_md() {
        let ls = table(&geometry(RaidLevel::Raid6, ParityLayout::LeftSymmetric, 5));
        // s=0: P=4, Q=0, data on 1,2,3; s=1: P=3, Q=4, data on 0,1,2; s=2: P=2, Q=3, data 4,0,1.
        assert_eq!(&ls[..3], &[vec![1, 2, 3, 4, 0], vec![0, 1, 2, 3, 4], vec![4, 0, 1, 2, 3]]);
        let la = table(&geometry(RaidLevel::Raid6, ParityLayout::LeftAsymmetric, 5));
        // s=0: P=4 (last) so Q=0 and data shifts by one; s=1: P=3, Q=4, data 0,1,2; s=2: P=2, Q=3, data 0,1,4.
        assert_eq!(&la[..3], &[vec![1, 2, 3, 4, 0], vec![0, 1, 2, 3, 4], vec![0, 1, 4, 2, 3]]);
        let ra = table(&geometry(RaidLevel::Raid6, ParityLayout::RightAsymmetric, 5));
        assert_eq!(&ra[..2], &[vec![2, 3, 4, 0, 1], vec![0, 3, 4, 1, 2]]);
    }

    #[test]
    fn parity_shares_place_parity_by_their_cycle() {
        let shared = |shares: Vec<f64>, layout| {
            let cfg = ArrayConfig {
                level: RaidLevel::Raid5,
                members: 4,
                layout,
                parity_distribution: shares,
                stripe_unit_bytes: 4096,
                ..Default::default()
            };
            table(&ArrayGeometry::new(&cfg, 1 << 30))
        };
        // The even split rotates parity one member a stripe upwards: md's right rotations.
        for layout in [ParityLayout::RightAsymmetric, ParityLayout::RightSymmetric] {
            assert_eq!(shared(vec![0.25; 4], layout), table(&geometry(RaidLevel::Raid5, layout, 4)), "{layout:?}");
        }
        // All parity on the last member is RAID-4, whichever way the data goes.
        let r4 = table(&geometry(RaidLevel::Raid4, ParityLayout::LeftSymmetric, 4));
        assert_eq!(shared(vec![0.0, 0.0, 0.0, 1.0], ParityLayout::LeftAsymmetric), r4);
        // (50, 0, 25, 25) in a cycle of 4 stripes: P on 0, 2, 3, 0; symmetric data starts after P.
        let t = shared(vec![0.5, 0.0, 0.25, 0.25], ParityLayout::LeftSymmetric);
        assert_eq!(t, vec![vec![1, 2, 3, 0], vec![3, 0, 1, 2], vec![0, 1, 2, 3], vec![1, 2, 3, 0]]);
    }

    #[test]
    fn raid4_parity_is_last_and_raid10_near_copies_are_adjacent() {
        let r4 = table(&geometry(RaidLevel::Raid4, ParityLayout::LeftSymmetric, 5));
        assert!(r4.iter().all(|row| row == &vec![0, 1, 2, 3, 4]));
        let cfg = ArrayConfig { level: RaidLevel::Raid10, members: 4, copies: 2, stripe_unit_bytes: 4096, ..Default::default() };
        let g = ArrayGeometry::new(&cfg, 1 << 20);
        let mut out = Vec::new();
        // Units 0..3 on 4 members with 2 copies: (0,1) (2,3) row 0, then (0,1) (2,3) row 1.
        for (d, (s, m, row)) in [(0u32, (0u64, 0u32, 0u64)), (1, (0, 2, 0)), (2, (0, 0, 1)), (3, (0, 2, 1))] {
            g.unit_copies(s, d, &mut out);
            assert_eq!(out[0], UnitCopy { member: m, member_offset: row * 4096 });
            assert_eq!(out[1].member, m + 1);
        }
        assert_eq!(g.capacity_bytes(), 2 * (1 << 20));
    }

    #[test]
    fn raid10_offers_only_whole_stripes_and_every_copy_fits_on_its_member() {
        // 5 members, 3 copies, 896 rows: 896·5/3 = 1493 units, but only 298
        // whole stripes of 5 (1490 units); the 3 units beyond belong to no stripe.
        let cfg = ArrayConfig { level: RaidLevel::Raid10, members: 5, copies: 3, stripe_unit_bytes: 8192, ..Default::default() };
        let g = ArrayGeometry::new(&cfg, 896 * 8192);
        assert_eq!((g.stripes(), g.capacity_bytes()), (298, 1490 * 8192));
        for (n, c, rows) in [(4u32, 3u32, 7u64), (5, 2, 9), (6, 4, 13), (4, 2, 8)] {
            let cfg = ArrayConfig { level: RaidLevel::Raid10, members: n, copies: c, stripe_unit_bytes: 4096, ..Default::default() };
            let g = ArrayGeometry::new(&cfg, rows * 4096);
            assert_eq!(g.capacity_bytes(), g.stripes() * g.stripe_data_bytes(), "{n}x{c}, {rows} rows");
            let mut out = Vec::new();
            for s in 0..g.stripes() {
                for d in 0..n {
                    g.unit_copies(s, d, &mut out);
                    assert!(out.iter().all(|u| u.member_offset < rows * 4096), "{n}x{c}: stripe {s} unit {d} past the member");
                }
            }
        }
    }
}
