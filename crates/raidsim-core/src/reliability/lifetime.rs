//! One array lifetime, event by event: each member's failure drawn from its
//! life distribution (a new member starts at age 0), each failed member
//! rebuilt on its own, unrecoverable read errors drawn when a rebuild must
//! read the survivors with no redundancy left.

use super::config::{LifeDistribution, RebuildDistribution, ReliabilityConfig};
use rand_distr::{Distribution, Exp, Poisson, Weibull};
use rand_xoshiro::Xoshiro256PlusPlus;

/// What befell one lifetime. Each loss carries the lifetime's likelihood
/// ratio at that instant (1 without importance sampling), by which it
/// counts in the estimates.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The first loss of data of any kind: hours, weight.
    pub first_loss: Option<(f64, f64)>,
    /// The array's loss (failures beyond its tolerance): hours, weight.
    pub array_loss: Option<(f64, f64)>,
    /// Rebuilds that met unrecoverable read errors, weighted.
    pub error_losses: f64,
    /// Bytes lost, weighted: sectors to read errors, and the whole array's data when it is lost.
    pub bytes_lost: f64,
    /// Member failures, weighted by the lifetime's likelihood ratio at its end.
    pub failures: f64,
}

impl Outcome {
    /// The array is lost at `now`, the lifetime's weight then `weight`.
    pub(super) fn array_lost(&mut self, now: f64, weight: f64, data_bytes: f64) {
        self.array_loss = Some((now, weight));
        self.first_loss.get_or_insert((now, weight));
        self.bytes_lost += weight * data_bytes;
    }

    /// A rebuild with no redundancy left reads `survivors` members whole at
    /// `now`: an unrecoverable error there loses its sector.
    pub(super) fn read_survivors(&mut self, survivors: u32, now: f64, weight: f64, d: &Draws, rng: &mut Xoshiro256PlusPlus) {
        let errors = d.read_errors(survivors, rng);
        if errors > 0 {
            self.error_losses += weight;
            self.bytes_lost += weight * errors as f64 * d.sector_bytes;
            self.first_loss.get_or_insert((now, weight));
        }
    }
}

/// The random draws of a lifetime, built once per study.
pub(super) struct Draws {
    life: Life,
    rebuild: Rebuild,
    replacement_hours: f64,
    /// Expected read errors when a rebuild reads one survivor whole.
    errors_per_survivor: f64,
    sector_bytes: f64,
    pub(super) data_bytes: f64,
}

enum Life {
    Exponential(Exp<f64>),
    Weibull(Weibull<f64>),
}

enum Rebuild {
    Exponential(Exp<f64>),
    Fixed(f64),
}

impl Draws {
    pub(super) fn new(c: &ReliabilityConfig) -> Option<Self> {
        let life = match c.life {
            LifeDistribution::Exponential => Life::Exponential(Exp::new(1.0 / c.mttf_hours).ok()?),
            LifeDistribution::Weibull => Life::Weibull(Weibull::new(c.weibull_scale_hours, c.weibull_shape).ok()?),
        };
        let rebuild = match c.rebuild {
            RebuildDistribution::Exponential => Rebuild::Exponential(Exp::new(1.0 / c.rebuild_hours).ok()?),
            RebuildDistribution::Fixed => Rebuild::Fixed(c.rebuild_hours),
        };
        Some(Self {
            life,
            rebuild,
            replacement_hours: c.replacement_hours,
            errors_per_survivor: c.uber * c.member_capacity_bytes as f64 * 8.0,
            sector_bytes: c.sector_bytes as f64,
            data_bytes: c.data_bytes(),
        })
    }

    fn life(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        match &self.life {
            Life::Exponential(e) => e.sample(rng),
            Life::Weibull(w) => w.sample(rng),
        }
    }

    fn rebuild(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        match &self.rebuild {
            Rebuild::Exponential(e) => e.sample(rng),
            Rebuild::Fixed(h) => *h,
        }
    }

    /// Read errors met reading `survivors` whole members: Poisson, with
    /// P(at least one) = 1 - exp(-UBER x bits read).
    fn read_errors(&self, survivors: u32, rng: &mut Xoshiro256PlusPlus) -> u64 {
        let mean = self.errors_per_survivor * f64::from(survivors);
        if mean <= 0.0 {
            return 0;
        }
        Poisson::new(mean).map(|p| p.sample(rng) as u64).unwrap_or(0)
    }
}

/// The array's shape, as loss is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Groups of members that fail independently of each other's redundancy (RAID-10's mirrors; else 1).
    pub groups: u32,
    /// Members in each group.
    pub size: u32,
    /// Failures a group survives.
    pub tolerance: u32,
    /// Hot spares at the start.
    pub spares: u32,
}

/// Per-lifetime state, reused from one lifetime to the next.
pub(super) struct Lifetime {
    shape: Shape,
    /// Each member's next failure, hours (infinite while it is failed).
    fails_at: Vec<f64>,
    /// Each failed member's rebuild end, hours (infinite while healthy).
    rebuilt_at: Vec<f64>,
    failed_in_group: Vec<u32>,
    /// When each spare used is replenished, hours.
    restocks: Vec<f64>,
}

impl Lifetime {
    pub(super) fn new(shape: Shape) -> Self {
        let n = (shape.groups * shape.size) as usize;
        Self {
            shape,
            fails_at: vec![0.0; n],
            rebuilt_at: vec![f64::INFINITY; n],
            failed_in_group: vec![0; shape.groups as usize],
            restocks: Vec::new(),
        }
    }

    /// Runs one lifetime up to `horizon_hours` (infinite: to the array's loss).
    pub(super) fn run(&mut self, d: &Draws, horizon_hours: f64, rng: &mut Xoshiro256PlusPlus) -> Outcome {
        for f in self.fails_at.iter_mut() {
            *f = d.life(rng);
        }
        self.rebuilt_at.fill(f64::INFINITY);
        self.failed_in_group.fill(0);
        self.restocks.clear();
        let mut spares = self.shape.spares;
        let mut out = Outcome::default();
        loop {
            let (fail_at, failing) = min_at(&self.fails_at);
            let (rebuilt_at, rebuilt) = min_at(&self.rebuilt_at);
            let now = fail_at.min(rebuilt_at);
            if now > horizon_hours {
                return out;
            }
            // Spares that arrived by now are on hand again.
            let before = self.restocks.len();
            self.restocks.retain(|&t| t > now);
            spares += (before - self.restocks.len()) as u32;
            if rebuilt_at <= fail_at {
                self.rebuilt(rebuilt, now, d, rng);
                continue;
            }
            out.failures += 1.0;
            if self.failed(failing, now, d, &mut spares, rng, &mut out) {
                return out;
            }
        }
    }

    fn rebuilt(&mut self, m: usize, now: f64, d: &Draws, rng: &mut Xoshiro256PlusPlus) {
        self.rebuilt_at[m] = f64::INFINITY;
        self.failed_in_group[m / self.shape.size as usize] -= 1;
        self.fails_at[m] = now + d.life(rng);
    }

    /// Member `m` fails at `now`: true when the array is lost.
    fn failed(&mut self, m: usize, now: f64, d: &Draws, spares: &mut u32, rng: &mut Xoshiro256PlusPlus, out: &mut Outcome) -> bool {
        let g = m / self.shape.size as usize;
        self.fails_at[m] = f64::INFINITY;
        self.failed_in_group[g] += 1;
        let failed = self.failed_in_group[g];
        if failed > self.shape.tolerance {
            out.array_lost(now, 1.0, d.data_bytes);
            return true;
        }
        let start = if *spares > 0 {
            *spares -= 1;
            self.restocks.push(now + d.replacement_hours);
            now
        } else {
            now + d.replacement_hours
        };
        self.rebuilt_at[m] = start + d.rebuild(rng);
        if failed == self.shape.tolerance {
            out.read_survivors(self.shape.size - failed, now, 1.0, d, rng);
        }
        false
    }
}

/// The smallest value and its index.
fn min_at(v: &[f64]) -> (f64, usize) {
    v.iter().enumerate().fold((f64::INFINITY, 0), |(best, at), (i, &x)| if x < best { (x, i) } else { (best, at) })
}
