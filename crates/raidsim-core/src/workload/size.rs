//! Request-size sampling with truncation, redraws and mean adjustment.
//!
//! A draw `x` of the underlying distribution becomes `k = floor(x / q)`
//! quanta; sizes outside `[min, max]` are drawn again; the kept size is
//! rounded up to the alignment. The realised mean therefore differs from the
//! underlying one. With `adjust_mean`, the underlying mean is found by
//! bisection on the exact expectation of that discrete distribution, so the
//! realised mean is the target (Chen & Lee 1995, §3).

use crate::config::{SizeDistribution, SizeKind};
use crate::error::{Error, Result};
use rand::Rng;
use rand_distr::{Distribution, Exp, Normal};

/// Draws request sizes.
#[derive(Clone, Debug)]
pub struct SizeSampler {
    kind: SizeKind,
    underlying_mean: f64,
    std: f64,
    min: u64,
    max: u64,
    quantum: u64,
    alignment: u64,
}

const MAX_REDRAWS: u32 = 10_000;

impl SizeSampler {
    /// A sampler for `d` with sizes rounded up to `alignment` bytes.
    pub fn new(d: &SizeDistribution, alignment: u64) -> Result<Self> {
        let mut s = Self {
            kind: d.kind,
            underlying_mean: d.mean_bytes as f64,
            std: d.std_bytes as f64,
            min: d.min_bytes.max(1),
            max: d.max_bytes,
            quantum: d.quantum_bytes,
            alignment,
        };
        if d.adjust_mean && matches!(d.kind, SizeKind::Exponential | SizeKind::Normal) {
            s.underlying_mean = s.solve_underlying_mean(d.mean_bytes as f64)?;
        }
        Ok(s)
    }

    /// The underlying distribution's mean in use, bytes.
    pub fn underlying_mean(&self) -> f64 {
        self.underlying_mean
    }

    /// Draws one size, bytes.
    pub fn sample<R: Rng>(&self, rng: &mut R) -> Result<u64> {
        for _ in 0..MAX_REDRAWS {
            let x = match self.kind {
                SizeKind::Fixed => self.underlying_mean,
                SizeKind::Uniform => rng.gen_range(self.min as f64..=self.max as f64 + self.quantum as f64 - 1.0),
                SizeKind::Exponential => Exp::new(1.0 / self.underlying_mean).map(|e| e.sample(rng)).unwrap_or(0.0),
                SizeKind::Normal => Normal::new(self.underlying_mean, self.std).map(|n| n.sample(rng)).unwrap_or(0.0),
            };
            if let Some(size) = self.keep(x) {
                return Ok(size);
            }
        }
        Err(Error::Workload(format!(
            "no request size within [{}, {}] bytes after {MAX_REDRAWS} draws: check workload.size",
            self.min,
            if self.max == 0 { "inf".to_string() } else { self.max.to_string() }
        )))
    }

    fn keep(&self, x: f64) -> Option<u64> {
        // NaN is refused too.
        if x.is_nan() || x < 0.0 {
            return None;
        }
        let size = (x / self.quantum as f64).floor() as u64 * self.quantum;
        if size < self.min || (self.max > 0 && size > self.max) {
            return None;
        }
        Some(size.div_ceil(self.alignment) * self.alignment)
    }

    fn cdf(&self, mean: f64, x: f64) -> f64 {
        match self.kind {
            SizeKind::Exponential => {
                if x <= 0.0 {
                    0.0
                } else {
                    1.0 - (-x / mean).exp()
                }
            }
            _ => 0.5 * erfc(-(x - mean) / (self.std * std::f64::consts::SQRT_2)),
        }
    }

    /// Exact mean of the kept, aligned size when the underlying mean is `mean`.
    pub fn realised_mean(&self, mean: f64) -> f64 {
        let q = self.quantum as f64;
        let k_min = self.min.div_ceil(self.quantum);
        let tail = match self.kind {
            SizeKind::Exponential => mean * 60.0,
            _ => mean + 40.0 * self.std,
        };
        let k_max_dist = ((tail / q).ceil() as u64 + 1).max(k_min + 64);
        let k_max = if self.max > 0 { (self.max / self.quantum).min(k_max_dist) } else { k_max_dist };
        let (mut mass, mut sum) = (0.0, 0.0);
        for k in k_min..=k_max {
            let p = self.cdf(mean, (k + 1) as f64 * q) - self.cdf(mean, k as f64 * q);
            let size = (k * self.quantum).div_ceil(self.alignment) * self.alignment;
            mass += p;
            sum += p * size as f64;
        }
        if mass > 0.0 {
            sum / mass
        } else {
            f64::NAN
        }
    }

    fn solve_underlying_mean(&self, target: f64) -> Result<f64> {
        let (mut lo, mut hi) = (
            match self.kind {
                // Small enough that nearly every draw truncates to one quantum,
                // large enough that the probability mass stays representable.
                SizeKind::Exponential => self.quantum as f64 / 20.0,
                _ => -4.0 * self.std,
            },
            target * 2.0 + 4.0 * self.std,
        );
        let f = |m: f64| self.realised_mean(m);
        if !(f(lo) <= target && f(hi) >= target) {
            return Err(Error::config("workload.size.mean_bytes", format!("cannot reach a mean of {target} bytes with these bounds and quantum")));
        }
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if f(mid) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(0.5 * (lo + hi))
    }
}

/// Complementary error function (Numerical Recipes' Chebyshev fit,
/// fractional error below 1.2e-7 everywhere).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06 + t * (0.278_868_07 + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn dist(kind: SizeKind, mean: u64, std: u64) -> SizeDistribution {
        SizeDistribution { kind, mean_bytes: mean, std_bytes: std, min_bytes: 1024, max_bytes: 0, quantum_bytes: 1024, adjust_mean: true }
    }

    #[test]
    fn geometric_closed_form_for_truncated_exponential() {
        // floor(X/q) of an exponential is geometric: conditioned on >= 1 its
        // mean is 1 / (1 - e^{-q/m}) quanta.
        let d = SizeDistribution { adjust_mean: false, ..dist(SizeKind::Exponential, 4096, 0) };
        let s = SizeSampler::new(&d, 1024).expect("valid");
        let expected = 1024.0 / (1.0 - (-1024.0f64 / 4096.0).exp());
        assert!((s.realised_mean(4096.0) - expected).abs() < 1e-6 * expected);
    }

    #[test]
    fn adjusted_means_are_met_by_sampling() {
        for (kind, mean, std) in [(SizeKind::Exponential, 4096, 0), (SizeKind::Normal, 102_400, 102_400)] {
            let s = SizeSampler::new(&dist(kind, mean, std), 1024).expect("valid");
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
            let n = 200_000;
            let total: u64 = (0..n).map(|_| s.sample(&mut rng).expect("draw")).sum();
            let got = total as f64 / n as f64;
            assert!((got - mean as f64).abs() < 0.01 * mean as f64, "{kind:?}: {got}");
            assert!(total % 1024 == 0);
        }
    }
}
