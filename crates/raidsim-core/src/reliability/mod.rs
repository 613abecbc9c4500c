//! How likely an array is to lose data over its service life: a seeded
//! Monte Carlo of array lifetimes.
//!
//! Redundancy is bought for one number, the probability of losing data over
//! the array's life, and three things decide it: how members fail, how long
//! the array runs without its redundancy while a failed member is rebuilt,
//! and whether that rebuild can read every survivor (an unrecoverable read
//! error, UBER per bit read, loses the sector when no redundancy is left:
//! with UBER 10^-15, reading 7 × 4 TB meets one with probability
//! 1 - exp(-10^-15 × 2.24·10^14) = 20 %).
//!
//! Each lifetime draws every member's failure from its life distribution
//! (exponential, or Weibull for wear-out), rebuilds each failed member for a
//! drawn duration (onto a hot spare at once, or after a replacement's
//! arrival), checks the survivors' reads when a rebuild has no redundancy
//! left, and ends when more members of a group have failed than it
//! tolerates (RAID-5: 2 of its N; RAID-6: 3; RAID-10: a whole mirrored
//! group) or at the end of the mission. The estimates are the fraction of
//! lifetimes that lost data by each year, with a 95 % interval; the bytes
//! lost; the causes; and, on request, the mean time to data loss (MTTDL)
//! from lifetimes run to the array's loss, beside the Markov chain's exact
//! value when lives and rebuilds are exponential ([`markov`]). Rare losses
//! are estimated by importance sampling (`failure_biasing`, [`markov`]).
//!
//! Field studies say why MTTDL alone misleads: failures within a RAID group
//! are correlated and error rates grow with wear (Schroeder et al., FAST'16;
//! Maneas et al., FAST'20), and MTTDL formulas misjudge double failures by
//! large factors (Elerath & Pecht, IEEE Trans. Computers 2009).

mod channels;
mod config;
mod lifetime;
pub mod markov;
mod wear;

pub use config::{LifeDistribution, RebuildDistribution, ReliabilityConfig, ReliabilityLevel, ReplacementWear, HOURS_PER_YEAR, MAX_LIFETIMES};
pub use lifetime::{Outcome, Shape};
pub use wear::RECORDED_WEAR_OUTS_PER_MEMBER;

#[cfg(test)]
mod channels_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod wear_tests;

use crate::error::{Error, Result};
use lifetime::{Draws, Lifetime};
use markov::BiasedLifetime;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

/// The probability of an event, estimated, with its 95 % interval.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Probability {
    /// The estimate.
    pub p: f64,
    /// The 95 % interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
}

/// The estimates at the end of one year of the mission.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct YearEstimate {
    /// Years since the array was new.
    pub year: u32,
    /// Data lost by then, of any cause.
    pub loss: Probability,
    /// The array lost by then (failures beyond its tolerance).
    pub array_loss: Probability,
}

/// A mean estimated from lifetimes, with its 95 % interval.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct MeanEstimate {
    /// The estimate.
    pub mean: f64,
    /// The 95 % interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// Lifetimes it is estimated from.
    pub lifetimes: u64,
}

/// The members' wear when one of them wears out: the `wear_out`-th of a
/// lifetime (1 = its first), averaged over the lifetimes that reached it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WearAtWearOut {
    /// Which wear-out of a lifetime (1: the first).
    pub wear_out: u32,
    /// Lifetimes that reached it.
    pub lifetimes: u64,
    /// Each member's fraction of its rated P/E cycles, oldest first (the
    /// one wearing out, about 1, first), over the lifetimes that had a
    /// drive in that many slots: a slot awaiting its replacement is left
    /// out, so the last positions may average fewer lifetimes, or none.
    pub fractions: Vec<Option<f64>>,
}

/// What a reliability study found.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ReliabilityReport {
    /// Lifetimes simulated over the mission.
    pub lifetimes: u64,
    /// Each year's estimates.
    pub by_year: Vec<YearEstimate>,
    /// Bytes lost over the mission, expected (read errors' sectors, CR5M's
    /// pending mirrored pages, and the whole array's data when it is lost,
    /// the bytes lost before it counted as part of that data).
    pub expected_bytes_lost: f64,
    /// Expected rebuilds per lifetime that met an unrecoverable read error.
    pub read_error_losses_per_lifetime: f64,
    /// Expected rebuilds per lifetime that met a latent sector error (one
    /// that met both counts in both).
    pub latent_error_losses_per_lifetime: f64,
    /// `cr5m`: expected times per lifetime a data chip and its channel's
    /// mirroring chip were down at once, losing the pages mirrored and not
    /// yet in parity.
    pub mirrored_page_losses_per_lifetime: f64,
    /// Member failures per lifetime, mean.
    pub failures_per_lifetime: f64,
    /// Of those, wear-outs (`wear_out_hours`).
    pub wear_outs_per_lifetime: f64,
    /// The probability that the array is lost within the mission, the
    /// failure that crossed its tolerance being a wear-out (part of the
    /// last year's `array_loss`, not a share of it).
    pub array_loss_by_wear_out: f64,
    /// The probability that the array is lost within the mission to a
    /// common-cause event (`group_failures_per_hour`).
    pub array_loss_by_common_cause: f64,
    /// The probability that one rebuild with no redundancy left meets an
    /// unrecoverable read error: 1 - exp(-UBER × bits it reads), its
    /// survivors new.
    pub rebuild_read_error_probability: f64,
    /// The same with every survivor at its rated cycles (`uber_worn`);
    /// absent when error rates do not grow with wear.
    pub rebuild_read_error_probability_worn: Option<f64>,
    /// Mean time to the array's loss, hours, from `mttdl_lifetimes`
    /// lifetimes run to it (absent when none were asked for).
    pub mttdl_hours: Option<MeanEstimate>,
    /// The Markov chain's exact mean time to the array's loss, hours, when
    /// lives and rebuilds are exponential and no replacement is awaited.
    pub markov_mttdl_hours: Option<f64>,
    /// Lifetimes were weighted by importance sampling (`failure_biasing`).
    pub importance_sampling: bool,
    /// The members' wear at each of a lifetime's first wear-outs (up to
    /// three per member), when members wear: the ages a replacement meets,
    /// which Diff-RAID keeps apart.
    pub wear_at_wear_outs: Vec<WearAtWearOut>,
    /// What a reader of these figures must know.
    pub warnings: Vec<String>,
}

/// A reliability study, run in slices of lifetimes (for progress bars).
pub struct Reliability {
    config: ReliabilityConfig,
    draws: Draws,
    shape: Shape,
    rng: Xoshiro256PlusPlus,
    plain: Lifetime,
    biased: Option<BiasedLifetime>,
    done: u64,
    /// Per year: weighted sums of first-loss and array-loss indicators, and of their squares.
    loss: Vec<[f64; 4]>,
    bytes_lost: f64,
    error_losses: f64,
    latent_losses: f64,
    mirrored_losses: f64,
    failures: f64,
    wear_outs: f64,
    lost_to_wear_out: f64,
    lost_to_common_cause: f64,
    /// Sum of the lifetimes' final likelihood ratios, and of their squares.
    final_weights: (f64, f64),
    /// Lifetimes run to the array's loss so far, the sum of their loss times and of their squares.
    mttdl: (u64, f64, f64),
    mttdl_rng: Xoshiro256PlusPlus,
    /// A lifetime run to the loss was stopped before it (see [`lifetime::MAX_MEMBER_EVENTS_TO_LOSS`]).
    mttdl_censored: bool,
}

/// Stream id of the lifetimes' random numbers.
const RELIABILITY_STREAM: u64 = 0x5245_4c49_4142_0000;
/// Mixed in for the lifetimes run to the array's loss.
const MTTDL_STREAM: u64 = 0x4d54_5444_4c00;

impl Reliability {
    /// A study of `config`, checked.
    pub fn new(mut config: ReliabilityConfig) -> Result<Self> {
        if config.wear_out_hours.len() == config.members as usize && config.wear_out_hours.iter().all(|&h| h == 0.0) {
            config.wear_out_hours.clear(); // no member wears: the same as none given, Markov chain and all
        }
        config.validate()?;
        let draws = Draws::new(&config).ok_or_else(|| Error::Internal("a validated life or rebuild distribution was refused".into()))?;
        let (groups, size, tolerance) = config.groups();
        let shape = Shape { groups, size, tolerance, spares: config.spares };
        let biased = (config.failure_biasing > 0.0)
            .then(|| BiasedLifetime::new(shape, 1.0 / config.mttf_hours, 1.0 / config.rebuild_hours, config.failure_biasing));
        Ok(Self {
            rng: Xoshiro256PlusPlus::seed_from_u64(config.seed ^ RELIABILITY_STREAM),
            mttdl_rng: Xoshiro256PlusPlus::seed_from_u64(config.seed ^ RELIABILITY_STREAM ^ MTTDL_STREAM),
            plain: Lifetime::new(shape, &draws, lifetime::channels_of(&config)),
            loss: vec![[0.0; 4]; config.mission_years as usize],
            draws,
            shape,
            biased,
            config,
            done: 0,
            bytes_lost: 0.0,
            error_losses: 0.0,
            latent_losses: 0.0,
            mirrored_losses: 0.0,
            failures: 0.0,
            wear_outs: 0.0,
            lost_to_wear_out: 0.0,
            lost_to_common_cause: 0.0,
            final_weights: (0.0, 0.0),
            mttdl: (0, 0.0, 0.0),
            mttdl_censored: false,
        })
    }

    /// Runs up to `n` more lifetimes (those of the mission, then those run
    /// to the array's loss); returns the fraction done.
    pub fn step(&mut self, n: u64) -> f64 {
        let horizon = f64::from(self.config.mission_years) * HOURS_PER_YEAR;
        let todo = n.min(self.config.lifetimes - self.done);
        if let Some(w) = self.plain.wear.as_mut() {
            w.recording = true;
        }
        for _ in 0..todo {
            let out = match self.biased.as_mut() {
                Some(b) => b.run(&self.draws, horizon, &mut self.rng),
                None => self.plain.run(&self.draws, horizon, &mut self.rng),
            };
            self.record(&out);
        }
        self.done += todo;
        let to_loss = (n - todo).min(self.config.mttdl_lifetimes - self.mttdl.0);
        if let Some(w) = self.plain.wear.as_mut() {
            w.recording = false;
        }
        for _ in 0..to_loss {
            let out = self.plain.run(&self.draws, f64::INFINITY, &mut self.mttdl_rng);
            if out.censored {
                // One lifetime too long to run to its loss: the others would be too; no estimate.
                self.mttdl_censored = true;
                self.mttdl.0 = self.config.mttdl_lifetimes;
                break;
            }
            let t = out.array_loss.map_or(f64::INFINITY, |(t, _)| t);
            self.mttdl = (self.mttdl.0 + 1, self.mttdl.1 + t, self.mttdl.2 + t * t);
        }
        let total = self.config.lifetimes + self.config.mttdl_lifetimes;
        (self.done + self.mttdl.0) as f64 / total as f64
    }

    fn record(&mut self, out: &Outcome) {
        for (year, sums) in self.loss.iter_mut().enumerate() {
            let by = (year + 1) as f64 * HOURS_PER_YEAR;
            for (slot, event) in [(0, out.first_loss), (2, out.array_loss)] {
                if let Some((_, w)) = event.filter(|&(t, _)| t <= by) {
                    sums[slot] += w;
                    sums[slot + 1] += w * w;
                }
            }
        }
        self.bytes_lost += out.bytes_lost;
        self.error_losses += out.error_losses;
        self.latent_losses += out.latent_losses;
        self.mirrored_losses += out.mirrored_losses;
        self.failures += out.failures;
        self.final_weights = (self.final_weights.0 + out.final_weight, self.final_weights.1 + out.final_weight * out.final_weight);
        self.wear_outs += out.wear_outs;
        if out.lost_to_wear_out {
            self.lost_to_wear_out += out.array_loss.map_or(0.0, |(_, w)| w);
        }
        if out.lost_to_common_cause {
            self.lost_to_common_cause += out.array_loss.map_or(0.0, |(_, w)| w);
        }
    }

    /// The report of the lifetimes run so far.
    pub fn report(&self) -> ReliabilityReport {
        let n = self.done.max(1) as f64;
        let weighted = self.biased.is_some();
        let by_year = self
            .loss
            .iter()
            .enumerate()
            .map(|(i, s)| YearEstimate {
                year: i as u32 + 1,
                loss: probability(s[0], s[1], n, weighted),
                array_loss: probability(s[2], s[3], n, weighted),
            })
            .collect();
        let c = &self.config;
        // A rebuild reads each member left, or for CR5 each other channel (a chip's worth of units).
        let inside = c.level.inside_one_ssd();
        let read = if inside { c.members - 1 } else { self.shape.size - self.shape.tolerance.max(1).min(self.shape.size) };
        let bits = f64::from(read) * c.member_capacity_bytes as f64 * 8.0;
        // CR5's chips fail alone but count by channel: no chain of members describes it.
        let exponential = !inside
            && c.life == LifeDistribution::Exponential
            && c.rebuild == RebuildDistribution::Exponential
            && c.replacement_hours == 0.0
            && c.wear_out_hours.is_empty();
        let markov_mttdl_hours =
            exponential.then(|| markov::mttdl_hours(self.shape, 1.0 / c.mttf_hours, 1.0 / c.rebuild_hours, c.group_failures_per_hour)).flatten();
        let mut report = ReliabilityReport {
            lifetimes: self.done,
            by_year,
            expected_bytes_lost: self.bytes_lost / n,
            read_error_losses_per_lifetime: self.error_losses / n,
            latent_error_losses_per_lifetime: self.latent_losses / n,
            mirrored_page_losses_per_lifetime: self.mirrored_losses / n,
            failures_per_lifetime: self.failures / n,
            wear_outs_per_lifetime: self.wear_outs / n,
            array_loss_by_wear_out: self.lost_to_wear_out / n,
            array_loss_by_common_cause: self.lost_to_common_cause / n,
            rebuild_read_error_probability: if self.shape.tolerance == 0 { 0.0 } else { -(-c.uber * bits).exp_m1() },
            rebuild_read_error_probability_worn: (c.uber_worn > 0.0 && self.shape.tolerance > 0).then(|| -(-c.uber_worn * bits).exp_m1()),
            mttdl_hours: None,
            markov_mttdl_hours,
            importance_sampling: weighted,
            wear_at_wear_outs: self.wear_at_wear_outs(),
            warnings: Vec::new(),
        };
        report.mttdl_hours = (self.mttdl.0 > 1 && !self.mttdl_censored).then(|| {
            let (n, sum, squares) = (self.mttdl.0 as f64, self.mttdl.1, self.mttdl.2);
            let mean = sum / n;
            let half = 1.96 * ((squares / n - mean * mean).max(0.0) / (n - 1.0)).sqrt();
            MeanEstimate { mean, low: mean - half, high: mean + half, lifetimes: self.mttdl.0 }
        });
        self.warn(&mut report, exponential);
        report
    }

    fn wear_at_wear_outs(&self) -> Vec<WearAtWearOut> {
        let Some(w) = self.plain.wear.as_ref() else {
            return Vec::new();
        };
        w.ages_at_wear_outs
            .iter()
            .enumerate()
            .filter(|(_, (_, counts))| counts[0] > 0)
            .map(|(k, (sums, counts))| WearAtWearOut {
                wear_out: k as u32 + 1,
                lifetimes: counts[0],
                fractions: sums.iter().zip(counts).map(|(s, &c)| (c > 0).then(|| s / c as f64)).collect(),
            })
            .collect()
    }

    fn warn(&self, report: &mut ReliabilityReport, exponential: bool) {
        let last = report.by_year.last().map(|y| y.loss);
        if let Some(p) = last.filter(|p| p.p == 0.0) {
            report.warnings.push(if report.importance_sampling {
                format!("no weighted lifetime of {} lost data: its interval [0, 0] says nothing; run more lifetimes", report.lifetimes)
            } else {
                let biased = ReliabilityConfig { failure_biasing: 0.5, ..self.config.clone() };
                let remedy = if biased.validate().is_ok() {
                    "set failure_biasing (for example 0.5) to estimate it"
                } else {
                    "run more lifetimes to estimate it (failure_biasing does not apply to these settings)"
                };
                format!(
                    "no lifetime of {} lost data: the probability is below about {:.1e} (the interval's upper end); {remedy}",
                    report.lifetimes, p.high
                )
            });
        }
        if report.importance_sampling && self.done > 1 {
            // The likelihood ratio's mean is 1 in expectation: far from it, the weights are too scattered to trust.
            let n = self.done as f64;
            let mean = self.final_weights.0 / n;
            let half = 1.96 * ((self.final_weights.1 / n - mean * mean).max(0.0) / n).sqrt();
            if !(mean - half <= 1.0 && 1.0 <= mean + half) {
                report.warnings.push(format!(
                    "the lifetimes' likelihood ratios average {mean:.3} [{:.3}, {:.3}] where they should average 1: the \
                     weights are too scattered for the estimate to be trusted; run more lifetimes, or set failure_biasing = 0",
                    mean - half,
                    mean + half
                ));
            }
        }
        if self.config.level == ReliabilityLevel::Cr5m && self.config.mirrored_fraction == 0.0 {
            report.warnings.push(
                "mirrored_fraction = 0: no page waits on a mirroring chip for its parity, so a data chip and its channel's \
                 mirroring chip down at once lose nothing and CR5M loses what CR5 would; give the share from a cr5m run"
                    .into(),
            );
        }
        if self.mttdl_censored {
            report.warnings.push(format!(
                "mttdl_lifetimes: a lifetime run to the array's loss had not lost it after {} member failures and rebuilds, \
                 so the MTTDL is beyond what running lifetimes to the loss can estimate and none is given{}",
                lifetime::max_events_to_loss(self.shape),
                if exponential { "; the Markov chain's is exact" } else { "; the probabilities by year stand" }
            ));
        }
        if exponential && report.markov_mttdl_hours.is_none() {
            report.warnings.push(format!(
                "the Markov chain's MTTDL is not computed: the chain of these {} groups has more than {} states",
                self.shape.groups,
                markov::MAX_STATES
            ));
        }
    }
}

/// A probability from weighted indicator sums: the Wilson interval for
/// plain counts (exact at 0 and 1 hits, where the normal one collapses),
/// the normal one for likelihood-ratio weights.
fn probability(sum: f64, squares: f64, n: f64, weighted: bool) -> Probability {
    let z = 1.96;
    let p = sum / n;
    if weighted {
        let half = z * ((squares / n - p * p).max(0.0) / n).sqrt();
        return Probability { p, low: (p - half).max(0.0), high: (p + half).min(1.0) };
    }
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    Probability { p, low: (centre - half).max(0.0), high: (centre + half).min(1.0) }
}

/// Runs a study to the end.
pub fn reliability(config: ReliabilityConfig) -> Result<ReliabilityReport> {
    let mut study = Reliability::new(config)?;
    while study.step(1 << 20) < 1.0 {}
    Ok(study.report())
}

/// The JSON Schema of [`ReliabilityConfig`]: the keys a study takes, from
/// their declarations (type, default, doc comment).
pub fn schema_json() -> Result<String> {
    serde_json::to_string(&schemars::schema_for!(ReliabilityConfig))
        .map_err(|e| Error::Internal(format!("the reliability schema does not serialise: {e}")))
}

/// Parses a study from JSON text, every key checked (`what` names the source in errors); a key the
/// study's other settings leave without effect (a Weibull shape for an exponential life) is refused.
pub fn config_from_json(text: &str, what: &str) -> Result<ReliabilityConfig> {
    let mut de = serde_json::Deserializer::from_str(text);
    let config: ReliabilityConfig = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let key = e.path().to_string();
        Error::config(if key == "." { what.to_string() } else { key }, e.into_inner().to_string())
    })?;
    let given: serde_json::Value = serde_json::from_str(text).map_err(|e| Error::config(what, e.to_string()))?;
    let set = |key: &str| given.get(key).is_some();
    let idle = [
        ("weibull_shape", config.life != LifeDistribution::Weibull, "life = \"weibull\""),
        ("weibull_scale_hours", config.life != LifeDistribution::Weibull, "life = \"weibull\""),
        ("mttf_hours", config.life != LifeDistribution::Exponential, "life = \"exponential\""),
        ("copies", config.level != ReliabilityLevel::Raid10, "level = \"raid10\""),
        (
            "spares",
            config.replacement_hours == 0.0 && !config.level.inside_one_ssd(),
            "replacement_hours > 0 (a replacement then arrives at once), or level = \"cr5\" or \"cr5m\" (spare chips)",
        ),
        ("chips_per_channel", !config.level.inside_one_ssd(), "level = \"cr5\" or \"cr5m\""),
        ("mirrored_fraction", config.level != ReliabilityLevel::Cr5m, "level = \"cr5m\""),
        ("sector_bytes", config.uber == 0.0 && config.latent_errors_per_hour == 0.0, "uber > 0 or latent_errors_per_hour > 0"),
        ("scrub_interval_hours", config.latent_errors_per_hour == 0.0, "latent_errors_per_hour > 0"),
        ("wear_out_spread", config.wear_out_hours.iter().all(|&h| h == 0.0), "wear_out_hours gives a member a wear-out"),
        ("replacement_wear", config.wear_out_hours.iter().all(|&h| h == 0.0), "wear_out_hours gives a member a wear-out"),
        ("uber_worn", config.wear_out_hours.iter().all(|&h| h == 0.0), "wear_out_hours gives a member a wear-out"),
    ];
    match idle.iter().find(|(key, unused, _)| *unused && set(key)) {
        Some((key, _, needs)) => Err(Error::config(*key, format!("has no effect unless {needs}: remove it, or set that too"))),
        None => Ok(config),
    }
}
