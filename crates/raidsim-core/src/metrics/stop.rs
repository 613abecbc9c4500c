//! Stopping a run when its mean response time is known well enough.
//!
//! Chen & Lee (1995, §3.3) run each workload "until the mean response time
//! is within 5 % of the true mean at a 95 % confidence level". This is the
//! method of batch means: completed requests' response times are grouped
//! into consecutive batches; the batch means are nearly independent when
//! batches are long, so a Student-t interval over them bounds the true mean.
//! Batches start at `batch_requests` requests; when 64 are full, pairs are
//! merged (32 batches of twice the size), so batches grow with the run and
//! stay long compared with the response times' correlation. The run stops
//! issuing requests once the interval's half-width is at most
//! `relative_half_width` of the mean (at least `min_requests` completed, at
//! least 10 batches), or at `max_requests`, and drains what is outstanding.

use crate::config::StopConfig;
use serde::Serialize;

const MAX_BATCHES: usize = 64;
const MIN_BATCHES: usize = 10;

/// Batch means of response times.
#[derive(Clone, Debug)]
pub struct BatchMeans {
    rule: StopConfig,
    batch_size: u64,
    current_sum: f64,
    current_count: u64,
    /// Means of the full batches.
    means: Vec<f64>,
    completed: u64,
    half_width: Option<f64>,
}

/// What the stopping rule saw at the end of a run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StopReport {
    /// The mean was known to the asked precision before `max_requests`.
    pub converged: bool,
    /// Requests counted by the rule when it stopped the run.
    pub requests: u64,
    /// Full batches and their size, requests.
    pub batches: u64,
    /// Requests per batch at the end.
    pub batch_requests: u64,
    /// Mean of the batch means, ns.
    pub mean_ns: f64,
    /// Half-width of the confidence interval over it, ns (0 with fewer than 10 batches).
    pub half_width_ns: f64,
    /// Confidence level of the interval.
    pub confidence: f64,
}

impl BatchMeans {
    /// A rule that is on (`relative_half_width > 0`).
    pub fn new(rule: &StopConfig) -> Self {
        Self {
            rule: rule.clone(),
            batch_size: rule.batch_requests.max(1),
            current_sum: 0.0,
            current_count: 0,
            means: Vec::with_capacity(MAX_BATCHES),
            completed: 0,
            half_width: None,
        }
    }

    /// Records one response time; returns true when the run should stop issuing.
    pub fn record(&mut self, response_ns: u64) -> bool {
        self.completed += 1;
        self.current_sum += response_ns as f64;
        self.current_count += 1;
        if self.current_count == self.batch_size {
            self.means.push(self.current_sum / self.batch_size as f64);
            (self.current_sum, self.current_count) = (0.0, 0);
            if self.means.len() == MAX_BATCHES {
                self.means = self.means.chunks_exact(2).map(|p| (p[0] + p[1]) / 2.0).collect();
                self.batch_size *= 2;
            }
            self.half_width = self.interval().map(|(_, h)| h);
        }
        self.should_stop()
    }

    fn should_stop(&self) -> bool {
        if self.completed >= self.rule.max_requests {
            return true;
        }
        self.completed >= self.rule.min_requests && self.converged()
    }

    fn converged(&self) -> bool {
        match (self.interval(), self.half_width) {
            (Some((mean, _)), Some(h)) => mean > 0.0 && h <= self.rule.relative_half_width * mean,
            _ => false,
        }
    }

    /// `(mean, half-width)` of the batch means, ns, with at least 10 batches.
    fn interval(&self) -> Option<(f64, f64)> {
        let n = self.means.len();
        if n < MIN_BATCHES {
            return None;
        }
        let mean = self.means.iter().sum::<f64>() / n as f64;
        let var = self.means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let t = student_t_quantile(0.5 + self.rule.confidence / 2.0, (n - 1) as f64);
        Some((mean, t * (var / n as f64).sqrt()))
    }

    /// The rule's state now.
    pub fn report(&self) -> StopReport {
        let (mean, half) = self.interval().unwrap_or((0.0, 0.0));
        StopReport {
            converged: self.completed >= self.rule.min_requests && self.converged(),
            requests: self.completed,
            batches: self.means.len() as u64,
            batch_requests: self.batch_size,
            mean_ns: mean,
            half_width_ns: half,
            confidence: self.rule.confidence,
        }
    }
}

/// Quantile `p` of the standard normal (Acklam's rational approximation,
/// relative error below 1.2e-9).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] =
        [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
    const B: [f64; 5] = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
    const C: [f64; 6] = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
    const D: [f64; 4] = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
    let tail =
        |q: f64| (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0);
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Quantile `p` of Student's t with `df` degrees of freedom, by the
/// Cornish-Fisher expansion around the normal (Abramowitz & Stegun 26.7.5);
/// within 0.1 % for `df >= 9` at the usual confidence levels.
pub fn student_t_quantile(p: f64, df: f64) -> f64 {
    let z = normal_quantile(p);
    let (z3, z5, z7, z9) = (z.powi(3), z.powi(5), z.powi(7), z.powi(9));
    z + (z3 + z) / (4.0 * df)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * df * df)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * df.powi(3))
        + (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / (92160.0 * df.powi(4))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_printed_tables() {
        // Published two-sided 95 % / 99 % critical values.
        for (p, df, t) in [(0.975, 9.0, 2.262), (0.975, 31.0, 2.040), (0.995, 15.0, 2.947), (0.975, 63.0, 1.998), (0.95, 20.0, 1.725)] {
            assert!((student_t_quantile(p, df) - t).abs() < 0.002, "t({p}, {df}) = {}", student_t_quantile(p, df));
        }
        assert!((normal_quantile(0.975) - 1.959964).abs() < 1e-6);
    }

    fn rule(rel: f64) -> StopConfig {
        StopConfig { relative_half_width: rel, confidence: 0.95, batch_requests: 10, min_requests: 100, max_requests: 100_000 }
    }

    #[test]
    fn constant_responses_stop_at_the_floor_and_noise_takes_longer() {
        let mut b = BatchMeans::new(&rule(0.05));
        let stopped_at = (1..).find(|_| b.record(1_000)).expect("stops");
        assert_eq!(stopped_at, 100, "zero variance: the floor decides");
        // Alternating 0 / 2000 ns within batches of 10 has zero batch variance too;
        // a slow drift across batches does not: means 1000 ± 50 % need many batches.
        let mut b = BatchMeans::new(&rule(0.01));
        let mut i = 0u64;
        let stopped = loop {
            i += 1;
            let batch = (i - 1) / 10;
            if b.record(if batch % 2 == 0 { 500 } else { 1_500 }) {
                break i;
            }
        };
        let r = b.report();
        assert!(r.converged && stopped > 100, "{stopped} {r:?}");
        assert!(r.half_width_ns <= 0.01 * r.mean_ns);
        assert!((r.mean_ns - 1000.0).abs() <= 0.01 * 1000.0 + 1e-9, "{r:?}");
    }

    #[test]
    fn the_cap_stops_a_run_that_never_converges() {
        let mut r = rule(1e-9);
        r.max_requests = 500;
        let mut b = BatchMeans::new(&r);
        let mut x = 1u64;
        let stopped = (1..).find(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            b.record(x >> 40)
        });
        assert_eq!(stopped, Some(500));
        assert!(!b.report().converged);
    }
}
