//! The Monte Carlo against closed forms: RAID-5's MTTDL formula, the
//! probability of a read error in one rebuild, the Weibull of shape 1 as
//! the exponential, and importance sampling against plain sampling.

use super::*;

fn raid5(members: u32, mttf_hours: f64, rebuild_hours: f64) -> ReliabilityConfig {
    ReliabilityConfig { members, mttf_hours, rebuild_hours, uber: 0.0, ..ReliabilityConfig::default() }
}

/// Patterson, Gibson & Katz's RAID-5 MTTDL with exponential failures (λ) and repairs (μ).
fn raid5_mttdl(n: f64, lambda: f64, mu: f64) -> f64 {
    ((2.0 * n - 1.0) * lambda + mu) / (n * (n - 1.0) * lambda * lambda)
}

#[test]
fn the_chain_gives_raid5s_formula() {
    for n in [2u32, 4, 8, 12, 24] {
        for (mttf, rebuild) in [(1e6, 10.0), (1e5, 100.0), (50.0, 5.0)] {
            let c = raid5(n, mttf, rebuild);
            let (groups, size, tolerance) = c.groups();
            let shape = Shape { groups, size, tolerance, spares: 0 };
            let ours = markov::mttdl_hours(shape, 1.0 / mttf, 1.0 / rebuild).expect("a small chain");
            let theirs = raid5_mttdl(f64::from(n), 1.0 / mttf, 1.0 / rebuild);
            assert!((ours / theirs - 1.0).abs() < 1e-9, "N = {n}, MTTF {mttf}: {ours} against {theirs}");
        }
    }
}

#[test]
fn lifetimes_run_to_the_loss_give_raid5s_mttdl_within_their_interval() {
    // λ/μ from 0.2 to 0.002: the formula must lie inside the 95 % interval (each case fails by chance
    // 5 % of the time at most; the seeds are fixed, so the test is deterministic).
    for (n, ratio) in [(4u32, 0.2), (8, 0.02), (12, 0.002)] {
        let rebuild = 10.0;
        let c = ReliabilityConfig { mttdl_lifetimes: 20_000, lifetimes: 1, ..raid5(n, rebuild / ratio, rebuild) };
        let r = reliability(c).expect("runs");
        let m = r.mttdl_hours.expect("asked for");
        let exact = raid5_mttdl(f64::from(n), ratio / rebuild, 1.0 / rebuild);
        assert!(m.low <= exact && exact <= m.high, "N = {n}, λ/μ = {ratio}: {exact} outside [{}, {}]", m.low, m.high);
        assert!((m.high - m.low) / m.mean < 0.1, "a tight interval: {m:?}");
        assert_eq!(r.markov_mttdl_hours.map(|x| (x / exact * 1e6).round()), Some(1e6));
    }
}

#[test]
fn a_rebuild_meets_a_read_error_with_probability_one_minus_exp_of_uber_times_bits() {
    // RAID-1 of two: every rebuild reads its one survivor whole (32 Gbit); rebuilds of a minute keep
    // double failures out of the count.
    let (capacity, uber) = (4_000_000_000u64, 1e-11);
    let c = ReliabilityConfig {
        level: ReliabilityLevel::Raid1,
        members: 2,
        member_capacity_bytes: capacity,
        uber,
        mttf_hours: 2_000.0,
        rebuild_hours: 1.0 / 60.0,
        lifetimes: 20_000,
        mission_years: 1,
        ..ReliabilityConfig::default()
    };
    let r = reliability(c).expect("runs");
    let expected = 1.0 - (-uber * capacity as f64 * 8.0).exp();
    assert!((r.rebuild_read_error_probability / expected - 1.0).abs() < 1e-12);
    let rebuilds = r.failures_per_lifetime * r.lifetimes as f64;
    let met = r.read_error_losses_per_lifetime * r.lifetimes as f64;
    let p = met / rebuilds;
    let half = 1.96 * (expected * (1.0 - expected) / rebuilds).sqrt();
    assert!((p - expected).abs() < half, "{p} against {expected} ± {half} over {rebuilds} rebuilds");
}

#[test]
fn no_redundancy_lost_means_no_read_error_loss() {
    // RAID-6 with one failure at a time keeps a parity: its rebuilds read with redundancy, and lose nothing.
    let c = ReliabilityConfig {
        level: ReliabilityLevel::Raid6,
        uber: 1e-11,
        mttf_hours: 10_000.0,
        rebuild_hours: 0.001,
        lifetimes: 2_000,
        ..ReliabilityConfig::default()
    };
    let r = reliability(c).expect("runs");
    assert!(r.failures_per_lifetime > 1.0);
    assert_eq!(r.read_error_losses_per_lifetime, 0.0);
}

#[test]
fn a_weibull_of_shape_one_is_the_exponential() {
    let exp = ReliabilityConfig { members: 6, mttf_hours: 20_000.0, rebuild_hours: 500.0, lifetimes: 40_000, ..ReliabilityConfig::default() };
    let weibull = ReliabilityConfig { life: LifeDistribution::Weibull, weibull_shape: 1.0, weibull_scale_hours: 20_000.0, seed: 9, ..exp.clone() };
    let (a, b) = (reliability(exp).expect("runs"), reliability(weibull).expect("runs"));
    for (x, y) in a.by_year.iter().zip(&b.by_year) {
        assert!(x.loss.low <= y.loss.high && y.loss.low <= x.loss.high, "year {}: {:?} against {:?}", x.year, x.loss, y.loss);
    }
    assert!(a.by_year[4].loss.p > 0.05, "the case is not trivially 0");
}

#[test]
fn importance_sampling_agrees_with_plain_sampling_and_narrows_the_interval() {
    let plain = ReliabilityConfig { members: 8, mttf_hours: 100_000.0, rebuild_hours: 100.0, lifetimes: 200_000, ..ReliabilityConfig::default() };
    let biased = ReliabilityConfig { failure_biasing: 0.5, lifetimes: 20_000, seed: 5, ..plain.clone() };
    let (a, b) = (reliability(plain).expect("runs"), reliability(biased).expect("runs"));
    assert!(b.importance_sampling && !a.importance_sampling);
    let (x, y) = (a.by_year[4].array_loss, b.by_year[4].array_loss);
    assert!(x.low <= y.high && y.low <= x.high, "{x:?} against {y:?}");
    assert!((y.high - y.low) < (x.high - x.low), "a tenth of the lifetimes, a narrower interval: {y:?} against {x:?}");
    // Failures counted along biased paths are weighted back: about 8 × 43,830 h / 100,000 h, as without bias.
    assert!(
        (b.failures_per_lifetime / a.failures_per_lifetime - 1.0).abs() < 0.05,
        "{} against {}",
        b.failures_per_lifetime,
        a.failures_per_lifetime
    );
}

#[test]
fn spares_and_replacements_lengthen_the_window() {
    // Without spares each rebuild waits a week for a drive: more double failures than with spares on hand.
    let base = ReliabilityConfig { members: 8, mttf_hours: 50_000.0, rebuild_hours: 24.0, lifetimes: 100_000, ..ReliabilityConfig::default() };
    let waiting = ReliabilityConfig { replacement_hours: 168.0, ..base.clone() };
    let spared = ReliabilityConfig { replacement_hours: 168.0, spares: 2, ..base.clone() };
    let (a, w, s) = (reliability(base).expect("runs"), reliability(waiting).expect("runs"), reliability(spared).expect("runs"));
    let p = |r: &ReliabilityReport| r.by_year[4].array_loss;
    assert!(p(&w).low > p(&a).high, "{:?} against {:?}", p(&w), p(&a));
    assert!(p(&s).high < p(&w).low, "{:?} against {:?}", p(&s), p(&w));
}

#[test]
fn raid0_loses_data_at_its_first_failure() {
    let c = ReliabilityConfig {
        level: ReliabilityLevel::Raid0,
        members: 4,
        mttf_hours: 10_000.0,
        lifetimes: 50_000,
        mission_years: 1,
        ..ReliabilityConfig::default()
    };
    let r = reliability(c).expect("runs");
    // P(some member fails within a year) = 1 - exp(-4 × 8766 / 10000).
    let exact = 1.0 - (-4.0 * HOURS_PER_YEAR / 10_000.0).exp();
    let y = r.by_year[0].array_loss;
    assert!(y.low <= exact && exact <= y.high, "{exact} outside {y:?}");
}

#[test]
fn bad_input_is_refused_by_key() {
    let refused = |c: ReliabilityConfig| Reliability::new(c).err().map(|e| e.to_string()).unwrap_or_default();
    let d = ReliabilityConfig::default;
    assert!(refused(ReliabilityConfig { mttf_hours: 0.0, ..d() }).contains("mttf_hours"));
    assert!(refused(ReliabilityConfig { mttf_hours: -5.0, ..d() }).contains("mttf_hours"));
    assert!(refused(ReliabilityConfig { uber: 1.0, ..d() }).contains("uber"));
    assert!(refused(ReliabilityConfig { uber: -1e-15, ..d() }).contains("uber"));
    assert!(refused(ReliabilityConfig { life: LifeDistribution::Weibull, weibull_shape: 0.0, ..d() }).contains("weibull_shape"));
    assert!(refused(ReliabilityConfig { level: ReliabilityLevel::Raid6, members: 2, ..d() }).contains("members"));
    assert!(refused(ReliabilityConfig { level: ReliabilityLevel::Raid10, members: 7, ..d() }).contains("copies"));
    assert!(refused(ReliabilityConfig { failure_biasing: 0.5, rebuild: RebuildDistribution::Fixed, ..d() }).contains("failure_biasing"));
    assert!(refused(ReliabilityConfig { lifetimes: 0, ..d() }).contains("lifetimes"));
    let e = config_from_json(r#"{"members": 8, "colour": 1}"#, "the study").expect_err("unknown key");
    assert!(e.to_string().contains("colour"), "{e}");
    let e = config_from_json(r#"{"weibull_shape": 2.0}"#, "the study").expect_err("no effect");
    assert!(e.to_string().contains("`weibull_shape`") && e.to_string().contains("life = \"weibull\""), "{e}");
    let e = config_from_json(r#"{"life": "weibull", "mttf_hours": 5.0}"#, "the study").expect_err("no effect");
    assert!(e.to_string().contains("`mttf_hours`"), "{e}");
    let e = config_from_json(r#"{"copies": 3}"#, "the study").expect_err("no effect");
    assert!(e.to_string().contains("`copies`"), "{e}");
    assert!(config_from_json(r#"{"level": "raid10", "members": 9, "copies": 3}"#, "the study").is_ok());
}
