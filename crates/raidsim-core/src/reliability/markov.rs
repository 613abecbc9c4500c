//! The array as a continuous-time Markov chain, when lives and rebuilds are
//! exponential: the state is how many members of each group have failed;
//! a group with k failed fails again at rate (size - k)·λ and rebuilds at
//! rate k·μ (each failed member on its own); a common-cause event, at rate
//! λc per group, fails a whole group and loses the array from any state.
//!
//! Two uses. [`mttdl_hours`] solves the chain for the mean time to data
//! loss, the quantity the classic formulas give (Patterson, Gibson & Katz,
//! SIGMOD 1988; for RAID-5, ((2N-1)λ+μ)/(N(N-1)λ²)). [`BiasedLifetime`]
//! runs the chain with *balanced failure biasing* (Shahabuddin, "Importance
//! sampling for the simulation of highly reliable Markovian systems",
//! Management Science 1994): while a rebuild is under way the next event is
//! a failure with probability `failure_biasing` instead of its natural,
//! tiny λ/(λ+μ)-order chance, and the lifetime carries the likelihood ratio
//! of the path it took, so the estimate stays unbiased and a loss of
//! probability 10^-9 is seen in a few thousand lifetimes. Holding times are
//! drawn from the true rates, which keeps the ratio a product of
//! transition probabilities only.

use super::lifetime::{Draws, Outcome, Shape};
use rand::Rng;
use rand_distr::{Distribution, Exp};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::HashMap;

/// The most chain states [`mttdl_hours`] solves (a dense solve of this
/// many takes about a second).
pub const MAX_STATES: usize = 600;

/// The chain's mean time to the array's loss from all members healthy,
/// hours, with `common` common-cause events per group per hour; `None`
/// when the chain has more than [`MAX_STATES`] states.
///
/// Solved by state reduction in the manner of Grassmann, Taksar & Heyman
/// (GTH): each state is removed in turn and its rates folded into its
/// neighbours', and a state's total outflow is always summed from its
/// rates, never found by subtraction, so a chain whose rebuilds are a
/// million times faster than its failures keeps its digits (Gaussian
/// elimination on the generator subtracts nearly equal numbers there).
pub fn mttdl_hours(shape: Shape, lambda: f64, mu: f64, common: f64) -> Option<f64> {
    let states = compositions(shape.groups, shape.tolerance + 1);
    if states.len() > MAX_STATES {
        return None;
    }
    let index: HashMap<&Vec<u32>, usize> = states.iter().enumerate().map(|(i, s)| (s, i)).collect();
    let n = states.len();
    let mut rate = vec![vec![0.0; n]; n];
    let mut exit = vec![f64::from(shape.groups) * common; n];
    for (i, s) in states.iter().enumerate() {
        for k in 0..s.len() {
            if s[k] == 0 {
                continue;
            }
            let groups = f64::from(s[k]);
            let fail = groups * f64::from(shape.size - k as u32) * lambda;
            if k + 1 < s.len() {
                rate[i][index[&moved(s, k, k + 1)]] += fail;
            } else {
                exit[i] += fail;
            }
            if k > 0 {
                rate[i][index[&moved(s, k, k - 1)]] += groups * k as f64 * mu;
            }
        }
    }
    let healthy = index[&{
        let mut h = vec![0; (shape.tolerance + 1) as usize];
        h[0] = shape.groups;
        h
    }];
    Some(reduce(rate, exit, healthy))
}

/// Expected time to absorption from `keep`: with `out_i T_i = b_i + sum_j rate_ij T_j` (b = 1 at
/// first), removing state k adds `f = rate_ik / out_k` of k's equation to each i that leads to k.
fn reduce(mut rate: Vec<Vec<f64>>, mut exit: Vec<f64>, keep: usize) -> f64 {
    let n = exit.len();
    let mut b = vec![1.0; n];
    let mut alive = vec![true; n];
    for k in (0..n).filter(|&k| k != keep) {
        alive[k] = false;
        let out_k: f64 = (0..n).filter(|&j| alive[j]).map(|j| rate[k][j]).sum::<f64>() + exit[k];
        for i in 0..n {
            if !alive[i] || rate[i][k] <= 0.0 {
                continue;
            }
            let f = rate[i][k] / out_k;
            rate[i][k] = 0.0;
            b[i] += f * b[k];
            exit[i] += f * exit[k];
            for j in 0..n {
                if alive[j] && j != i {
                    let via = f * rate[k][j];
                    rate[i][j] += via;
                }
            }
        }
    }
    b[keep] / exit[keep]
}

/// Every way to place `groups` groups in `parts` bins (groups with 0, 1, ... failed).
fn compositions(groups: u32, parts: u32) -> Vec<Vec<u32>> {
    if parts == 1 {
        return vec![vec![groups]];
    }
    let mut out = Vec::new();
    for first in 0..=groups {
        for mut rest in compositions(groups - first, parts - 1) {
            rest.insert(0, first);
            out.push(rest);
            if out.len() > MAX_STATES {
                return out;
            }
        }
    }
    out
}

/// `s` with one group moved from bin `from` to bin `to`.
fn moved(s: &[u32], from: usize, to: usize) -> Vec<u32> {
    let mut m = s.to_vec();
    m[from] -= 1;
    m[to] += 1;
    m
}

/// One lifetime of the chain, with failures biased while a rebuild runs.
pub(super) struct BiasedLifetime {
    shape: Shape,
    lambda: f64,
    mu: f64,
    biasing: f64,
    failed_in_group: Vec<u32>,
}

impl BiasedLifetime {
    pub(super) fn new(shape: Shape, lambda: f64, mu: f64, biasing: f64) -> Self {
        Self { shape, lambda, mu, biasing, failed_in_group: vec![0; shape.groups as usize] }
    }

    /// Runs one lifetime up to `horizon_hours` (infinite: to the array's loss).
    pub(super) fn run(&mut self, d: &Draws, horizon_hours: f64, rng: &mut Xoshiro256PlusPlus) -> Outcome {
        self.failed_in_group.fill(0);
        let mut out = Outcome::default();
        let (mut now, mut weight) = (0.0, 1.0);
        let size = f64::from(self.shape.size);
        let mut failed_total = 0u32;
        let mut failures = 0.0;
        loop {
            let fail_rate = (f64::from(self.shape.groups) * size - f64::from(failed_total)) * self.lambda;
            let repair_rate = f64::from(failed_total) * self.mu;
            let total = fail_rate + repair_rate;
            now += Exp::new(total).map(|e| e.sample(rng)).unwrap_or(f64::INFINITY);
            if now > horizon_hours {
                (out.failures, out.final_weight) = (failures * weight, weight);
                return out;
            }
            let natural = fail_rate / total;
            let chance = if repair_rate > 0.0 { self.biasing } else { natural };
            let is_failure = rng.gen::<f64>() < chance;
            weight *= if is_failure { natural / chance } else { (1.0 - natural) / (1.0 - chance) };
            let g = self.pick_group(is_failure, rng);
            if !is_failure {
                self.failed_in_group[g] -= 1;
                failed_total -= 1;
                continue;
            }
            failures += 1.0;
            self.failed_in_group[g] += 1;
            failed_total += 1;
            let failed = self.failed_in_group[g];
            if failed > self.shape.tolerance {
                (out.failures, out.final_weight) = (failures * weight, weight);
                out.array_lost(now, weight, d.data_bytes);
                return out;
            }
            if failed == self.shape.tolerance {
                out.read_survivors(f64::from(self.shape.size - failed), 0.0, now, weight, d, rng);
            }
        }
    }

    /// The group a failure (weighted by its healthy members) or a rebuild
    /// (by its failed ones) happens in: unbiased within the chosen kind.
    fn pick_group(&self, failure: bool, rng: &mut Xoshiro256PlusPlus) -> usize {
        let weight = |f: u32| if failure { self.shape.size - f } else { f };
        let total: u32 = self.failed_in_group.iter().map(|&f| weight(f)).sum();
        let mut draw = rng.gen_range(0..total.max(1));
        for (g, &f) in self.failed_in_group.iter().enumerate() {
            if draw < weight(f) {
                return g;
            }
            draw -= weight(f);
        }
        self.failed_in_group.len() - 1
    }
}
