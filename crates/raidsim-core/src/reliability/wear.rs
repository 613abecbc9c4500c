//! Members that wear: each accrues wear, the fraction of its rated P/E
//! cycles it has used, at the rate its share of the array's writes gives
//! it, and wears out when the fraction reaches its limit (1 within
//! `wear_out_spread`).
//!
//! A rate belongs to a *rank*, not to a drive. Ranks are the members
//! ordered from the fastest-wearing (most parity, in Diff-RAID) to the
//! slowest. With `replacement_wear = "same_slot"` a replacement takes the
//! rank of the member it replaces. With `"shift"` it takes the slowest
//! rank and every member ranked after the one replaced moves up one, so
//! the oldest member always ages fastest: Diff-RAID's parity-shifting
//! replacement (Balakrishnan et al., EuroSys 2010), which keeps the
//! members' ages apart. Its ages when a member wears out converge: with
//! rates r₁ ≥ … ≥ rₙ and replacements far shorter than lives, rank k then
//! holds the fraction Σ_{j≥k} r_j / Σ_j r_j of its rated cycles.
//!
//! The bit error rate grows with wear: raw error rates of MLC flash grow
//! exponentially with P/E cycles (Cai, Haratsch, Mutlu, Mai, "Error
//! Patterns in MLC NAND Flash Memory", DATE 2012), so a member `x` of the
//! way to its rated cycles reads with UBER `uber × (uber_worn / uber)^x`.

use super::config::ReplacementWear;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The wear of every member of one lifetime.
pub(super) struct Wear {
    /// Life fraction per hour of each rank, fastest first (0: no wear).
    rate_of_rank: Vec<f64>,
    /// Each member's rank at the start.
    first_rank: Vec<usize>,
    /// Each member's rank now.
    rank: Vec<usize>,
    /// Each member's wear fraction at `since`, and that instant, hours.
    worn: Vec<f64>,
    since: Vec<f64>,
    /// Each member's wear fraction at its wear-out.
    limit: Vec<f64>,
    /// Members failed and not yet replaced: no drive, no wear.
    down: Vec<bool>,
    spread: f64,
    shift: bool,
    /// ln(uber_worn / uber), 0 without growth.
    growth: f64,
    /// The wear fractions of the members with a drive at each of a
    /// lifetime's first wear-outs, oldest first, summed over the lifetimes
    /// that reached it, and per position how many lifetimes had a drive there.
    pub(super) ages_at_wear_outs: Vec<(Vec<f64>, Vec<u64>)>,
    /// Wear-outs so far in this lifetime.
    wear_outs: usize,
    /// Whether this lifetime's ages are recorded (mission lifetimes only).
    pub(super) recording: bool,
}

/// Wear-outs per lifetime whose ages are recorded, per member.
pub const RECORDED_WEAR_OUTS_PER_MEMBER: usize = 3;

impl Wear {
    /// `hours_to_wear_out[m]`: member m's hours from new to its rated
    /// cycles at its starting rank (infinite: it does not wear).
    pub(super) fn new(hours_to_wear_out: &[f64], spread: f64, mode: ReplacementWear, growth: f64) -> Self {
        let n = hours_to_wear_out.len();
        let rate = |h: f64| if h.is_finite() && h > 0.0 { 1.0 / h } else { 0.0 };
        let mut order: Vec<usize> = (0..n).collect();
        let shift = mode == ReplacementWear::Shift;
        if shift {
            order.sort_by(|&a, &b| rate(hours_to_wear_out[b]).total_cmp(&rate(hours_to_wear_out[a])).then(a.cmp(&b)));
        }
        let mut first_rank = vec![0; n];
        for (k, &m) in order.iter().enumerate() {
            first_rank[m] = k;
        }
        Self {
            rate_of_rank: order.iter().map(|&m| rate(hours_to_wear_out[m])).collect(),
            rank: first_rank.clone(),
            first_rank,
            worn: vec![0.0; n],
            since: vec![0.0; n],
            limit: vec![f64::INFINITY; n],
            down: vec![false; n],
            spread,
            shift,
            growth,
            ages_at_wear_outs: vec![(vec![0.0; n], vec![0; n]); RECORDED_WEAR_OUTS_PER_MEMBER * n],
            wear_outs: 0,
            recording: false,
        }
    }

    /// Every member new, at its first rank.
    pub(super) fn reset(&mut self) {
        self.rank.copy_from_slice(&self.first_rank);
        self.worn.fill(0.0);
        self.since.fill(0.0);
        self.down.fill(false);
        self.wear_outs = 0;
    }

    /// Member `m`'s drive is new at `now`: it draws its limit (a uniform
    /// draw, for a member whose rank wears).
    pub(super) fn install(&mut self, m: usize, now: f64, rng: &mut Xoshiro256PlusPlus) {
        (self.worn[m], self.since[m], self.down[m]) = (0.0, now, false);
        self.limit[m] = if self.rate(m) > 0.0 { 1.0 + self.spread * (2.0 * rng.gen::<f64>() - 1.0) } else { f64::INFINITY };
    }

    fn rate(&self, m: usize) -> f64 {
        if self.down[m] {
            0.0
        } else {
            self.rate_of_rank[self.rank[m]]
        }
    }

    /// Member `m` failed at `now`: its slot holds no drive until replaced.
    pub(super) fn down(&mut self, m: usize, now: f64) {
        (self.worn[m], self.since[m], self.down[m]) = (0.0, now, true);
    }

    /// When member `m` wears out, hours (infinite: never).
    pub(super) fn wear_out_at(&self, m: usize) -> f64 {
        let r = self.rate(m);
        if r > 0.0 {
            self.since[m] + (self.limit[m] - self.worn[m]) / r
        } else {
            f64::INFINITY
        }
    }

    /// Member `m`'s wear fraction at `now`.
    pub(super) fn fraction(&self, m: usize, now: f64) -> f64 {
        self.worn[m] + self.rate(m) * (now - self.since[m])
    }

    /// UBER of member `m` at `now` over that of a new member.
    pub(super) fn uber_factor(&self, m: usize, now: f64) -> f64 {
        if self.growth == 0.0 {
            1.0
        } else {
            (self.growth * self.fraction(m, now).max(0.0)).exp()
        }
    }

    /// Whether error rates grow with wear.
    pub(super) fn grows(&self) -> bool {
        self.growth != 0.0
    }

    /// Whether a replacement moves the others' ranks.
    pub(super) fn shifts(&self) -> bool {
        self.shift
    }

    /// Member `m`'s replacement joins at `now` (its rebuild ended): with
    /// `"shift"`, the members ranked after it move up one and it takes the
    /// slowest rank. Every member's wear is brought to `now` first, as
    /// their rates change.
    pub(super) fn replaced(&mut self, m: usize, now: f64, rng: &mut Xoshiro256PlusPlus) {
        self.down[m] = false;
        if self.shift {
            for i in 0..self.rank.len() {
                (self.worn[i], self.since[i]) = (self.fraction(i, now), now);
            }
            let from = self.rank[m];
            for r in self.rank.iter_mut().filter(|r| **r > from) {
                *r -= 1;
            }
            self.rank[m] = self.rank.len() - 1;
        }
        self.install(m, now, rng);
    }

    /// A member wore out at `now` (before it is marked down): records the
    /// wear of every member with a drive then (a slot awaiting its
    /// replacement has none, and is left out).
    pub(super) fn wore_out(&mut self, now: f64, scratch: &mut Vec<f64>) {
        let k = self.wear_outs;
        self.wear_outs += 1;
        if !self.recording || k >= self.ages_at_wear_outs.len() {
            return;
        }
        scratch.clear();
        scratch.extend((0..self.rank.len()).filter(|&i| !self.down[i]).map(|i| self.fraction(i, now)));
        scratch.sort_by(|a, b| b.total_cmp(a));
        let (sums, counts) = &mut self.ages_at_wear_outs[k];
        for ((s, c), x) in sums.iter_mut().zip(counts.iter_mut()).zip(scratch.iter()) {
            *s += x;
            *c += 1;
        }
    }
}
