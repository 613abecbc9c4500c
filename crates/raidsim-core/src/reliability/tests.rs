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
            let ours = markov::mttdl_hours(shape, 1.0 / mttf, 1.0 / rebuild, 0.0).expect("a small chain");
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
    // RAID-5 of 4, MTTF 300,000 h, 500-hour rebuilds: 0.58 failures a lifetime, P(loss in 5 years) about 0.3 %.
    let plain = ReliabilityConfig { members: 4, mttf_hours: 300_000.0, rebuild_hours: 500.0, lifetimes: 200_000, ..ReliabilityConfig::default() };
    let biased = ReliabilityConfig { failure_biasing: 0.5, lifetimes: 20_000, seed: 5, ..plain.clone() };
    let (a, b) = (reliability(plain).expect("runs"), reliability(biased).expect("runs"));
    assert!(b.importance_sampling && !a.importance_sampling);
    let (x, y) = (a.by_year[4].array_loss, b.by_year[4].array_loss);
    assert!(x.low <= y.high && y.low <= x.high, "{x:?} against {y:?}");
    assert!((y.high - y.low) < (x.high - x.low), "a tenth of the lifetimes, a narrower interval: {y:?} against {x:?}");
    // Failures counted along biased paths are weighted back: about 4 × 43,830 h / 300,000 h, as without bias.
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
    assert!(refused(ReliabilityConfig { wear_out_hours: vec![1.0; 3], ..d() }).contains("wear_out_hours"));
    assert!(refused(ReliabilityConfig { wear_out_hours: vec![f64::NAN; 8], ..d() }).contains("wear_out_hours[0]"));
    assert!(refused(ReliabilityConfig { wear_out_spread: 1.0, ..d() }).contains("wear_out_spread"));
    assert!(refused(ReliabilityConfig { wear_out_hours: vec![1.0; 8], failure_biasing: 0.5, ..d() }).contains("failure_biasing"));
    // Biasing over lifetimes with many failures: refused, naming how many.
    let e = refused(ReliabilityConfig { members: 48, level: ReliabilityLevel::Raid10, mttf_hours: 100_000.0, failure_biasing: 0.5, ..d() });
    assert!(e.contains("failure_biasing") && e.contains("21.0 member failures"), "{e}");
    assert!(refused(ReliabilityConfig { mttdl_lifetimes: 1, ..d() }).contains("mttdl_lifetimes"));
    let e = config_from_json(r#"{"spares": 2}"#, "the study").expect_err("no effect");
    assert!(e.to_string().contains("`spares`"), "{e}");
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

#[test]
fn a_mirror_whose_two_members_wear_out_together_is_lost_when_the_second_goes_during_the_first_rebuild() {
    // Both wear out at 10,000 h ± 10 % (uniform over 2,000 h), random failures almost never; a fixed
    // 100-hour rebuild gives the first's replacement its redundancy back. Loss: the two wear-out instants
    // within 100 h of each other, P = 1 - (1 - 100 / 2000)^2 = 0.0975.
    let c = ReliabilityConfig {
        level: ReliabilityLevel::Raid1,
        members: 2,
        mttf_hours: 1e15,
        wear_out_hours: vec![10_000.0, 10_000.0],
        wear_out_spread: 0.1,
        rebuild: RebuildDistribution::Fixed,
        rebuild_hours: 100.0,
        uber: 0.0,
        mission_years: 2,
        lifetimes: 200_000,
        ..ReliabilityConfig::default()
    };
    let r = reliability(c).expect("runs");
    let exact = 1.0 - (1.0 - 100.0 / 2_000.0f64).powi(2);
    let y = r.by_year[1].array_loss;
    assert!(y.low <= exact && exact <= y.high, "{exact} outside {y:?}");
    assert_eq!(r.by_year[0].array_loss.p, 0.0, "nothing wears out in the first 8,766 h but below 9,000 h");
    assert!((r.array_loss_by_wear_out - y.p).abs() < 1e-12, "every loss was a wear-out");
    assert!(r.wear_outs_per_lifetime > 1.9, "both members wear out within the two years");
}

#[test]
fn a_member_that_wears_faster_fails_alone_and_the_window_stays_open() {
    // RAID-4's parity member wearing out at half the data members' hours: its wear-out and theirs never
    // meet within a rebuild, so wear-out alone loses nothing.
    let c = ReliabilityConfig {
        members: 4,
        mttf_hours: 1e15,
        wear_out_hours: vec![20_000.0, 20_000.0, 20_000.0, 10_000.0],
        wear_out_spread: 0.0,
        rebuild: RebuildDistribution::Fixed,
        rebuild_hours: 24.0,
        uber: 0.0,
        mission_years: 2,
        lifetimes: 1_000,
        ..ReliabilityConfig::default()
    };
    let r = reliability(c.clone()).expect("runs");
    assert_eq!(r.by_year[1].array_loss.p, 0.0);
    assert!((r.wear_outs_per_lifetime - 1.0).abs() < 1e-12, "only the parity member wore out by 17,532 h");
    // Every member at the same hours, exactly: they fail together, and the array is lost at once.
    let together = ReliabilityConfig { wear_out_hours: vec![15_000.0; 4], ..c };
    assert_eq!(reliability(together).expect("runs").by_year[1].array_loss.p, 1.0);
}

#[test]
fn lives_past_f64s_range_end_the_lifetime_quietly() {
    // RAID-0 of one whose life is never drawn within f64's range: nothing ever happens, even without a horizon.
    let c = ReliabilityConfig {
        level: ReliabilityLevel::Raid0,
        members: 1,
        mttf_hours: 1e308,
        mttdl_lifetimes: 3,
        lifetimes: 2,
        ..ReliabilityConfig::default()
    };
    let r = reliability(c).expect("runs");
    assert_eq!(r.by_year[4].loss.p, 0.0);
}

#[test]
fn the_chain_keeps_its_digits_where_rebuilds_are_a_million_times_faster() {
    // RAID-1 of 3, λ/μ = 1e-6: the birth-death chain's exact mean, a sum of positive terms.
    let (lambda, mu) = (1e-6, 1.0);
    let shape = Shape { groups: 1, size: 3, tolerance: 2, spares: 0 };
    // From state k (failed), rates: up (3 - k) λ, down k μ; E[T from 0 to absorbing 3] by the standard
    // birth-death sum: sum over k of (1 / (up_k π_k)) × sum_{j <= k} π_j, π_0 = 1, π_j = π_{j-1} up_{j-1} / down_j.
    let up = |k: f64| (3.0 - k) * lambda;
    let down = |k: f64| k * mu;
    let mut pi = vec![1.0];
    for j in 1..3 {
        let last = pi[j - 1];
        pi.push(last * up((j - 1) as f64) / down(j as f64));
    }
    let exact: f64 = (0..3).map(|k| pi[..=k].iter().sum::<f64>() / (up(k as f64) * pi[k])).sum();
    let ours = markov::mttdl_hours(shape, lambda, mu, 0.0).expect("small");
    assert!((ours / exact - 1.0).abs() < 1e-12, "{ours} against {exact}");
    // RAID-1 of 5 at the defaults' rates: computed (Gaussian elimination lost it).
    let five = Shape { groups: 1, size: 5, tolerance: 4, spares: 0 };
    assert!(markov::mttdl_hours(five, 1.0 / 1.5e6, 1.0 / 24.0, 0.0).is_some_and(|t| t > 4e24 && t < 5e24));
}

#[test]
fn a_rebuild_meets_the_latent_errors_since_each_survivors_last_scrub() {
    // A mirror: member 0 wears out every 1,000 h, member 1 never. Member 1 develops 1e-3 latent errors an
    // hour and is scrubbed every 300 h from its installation, so the k-th rebuild (at k × 1,000 h) reads
    // (k × 1,000 mod 300) hours of them: 100, 200, 0, 100, 200, 0, 100, 200 h in the 1-year mission, each
    // met with probability 1 - exp(-1e-3 × hours).
    let c = |scrub: f64| ReliabilityConfig {
        level: ReliabilityLevel::Raid1,
        members: 2,
        mttf_hours: 1e15,
        rebuild: RebuildDistribution::Fixed,
        rebuild_hours: 1e-6,
        wear_out_hours: vec![1000.0, 0.0],
        wear_out_spread: 0.0,
        uber: 0.0,
        latent_errors_per_hour: 1e-3,
        scrub_interval_hours: scrub,
        mission_years: 1,
        lifetimes: 20_000,
        ..ReliabilityConfig::default()
    };
    let met = |hours: &[f64]| hours.iter().map(|h| 1.0 - (-1e-3 * h).exp()).sum::<f64>();
    let scrubbed = reliability(c(300.0)).expect("runs");
    let expected = met(&[100.0, 200.0, 0.0, 100.0, 200.0, 0.0, 100.0, 200.0]);
    assert!((scrubbed.latent_error_losses_per_lifetime - expected).abs() < 0.02, "{} against {expected}", scrubbed.latent_error_losses_per_lifetime);
    assert_eq!(scrubbed.read_error_losses_per_lifetime, 0.0);
    // Never scrubbed, each rebuild still reads member 1 whole, finding what grew since the rebuild before.
    let never = reliability(c(0.0)).expect("runs");
    let expected = met(&[1000.0; 8]);
    assert!((never.latent_error_losses_per_lifetime - expected).abs() < 0.02, "{} against {expected}", never.latent_error_losses_per_lifetime);
    // Each error found loses its sector.
    assert!(never.expected_bytes_lost > scrubbed.expected_bytes_lost);
}

#[test]
fn latent_error_settings_are_refused_by_key() {
    let err = |c: ReliabilityConfig| Reliability::new(c).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err(ReliabilityConfig { latent_errors_per_hour: -1.0, ..ReliabilityConfig::default() }).contains("latent_errors_per_hour"));
    assert!(err(ReliabilityConfig { latent_errors_per_hour: f64::NAN, ..ReliabilityConfig::default() }).contains("latent_errors_per_hour"));
    let scrub = ReliabilityConfig { latent_errors_per_hour: 1e-6, scrub_interval_hours: -2.0, ..ReliabilityConfig::default() };
    assert!(err(scrub).contains("scrub_interval_hours"));
    let biased = ReliabilityConfig { latent_errors_per_hour: 1e-6, failure_biasing: 0.5, mttf_hours: 1e9, ..ReliabilityConfig::default() };
    assert!(err(biased).contains("failure_biasing"));
    let e = config_from_json(r#"{"scrub_interval_hours": 168}"#, "study").expect_err("no latent errors").to_string();
    assert!(e.contains("scrub_interval_hours") && e.contains("latent_errors_per_hour"), "{e}");
    assert!(config_from_json(r#"{"sector_bytes": 512, "uber": 0, "latent_errors_per_hour": 1e-6}"#, "study").is_ok());
}

#[test]
fn common_cause_events_lose_the_array_at_their_own_rate_and_enter_the_chain() {
    // Without independent failures, the array is lost at the first of its group's events: P(by year y) =
    // 1 - exp(-rate × 8,766 y).
    let rate = 2e-5;
    let c = ReliabilityConfig {
        members: 4,
        mttf_hours: 1e15,
        uber: 0.0,
        group_failures_per_hour: rate,
        lifetimes: 100_000,
        ..ReliabilityConfig::default()
    };
    let r = reliability(c).expect("runs");
    for y in &r.by_year {
        let exact = -(-rate * HOURS_PER_YEAR * f64::from(y.year)).exp_m1();
        assert!(y.array_loss.low <= exact && exact <= y.array_loss.high, "year {}: {exact} outside {:?}", y.year, y.array_loss);
    }
    assert_eq!(Some(r.array_loss_by_common_cause), r.by_year.last().map(|y| y.array_loss.p));
    // RAID-5's chain with an exit at rate c from both states, solved by hand: T0 (nλ + c) = 1 + nλ T1 and
    // T1 ((n-1)λ + μ + c) = 1 + μ T0.
    let (n, lambda, mu, common) = (6.0, 1e-4, 0.05, 3e-5);
    let (a, b) = (n * lambda + common, (n - 1.0) * lambda + mu + common);
    let t0 = (1.0 + n * lambda / b) / (a - n * lambda * mu / b);
    let shape = Shape { groups: 1, size: 6, tolerance: 1, spares: 0 };
    let ours = markov::mttdl_hours(shape, lambda, mu, common).expect("small");
    assert!((ours / t0 - 1.0).abs() < 1e-12, "{ours} against {t0}");
    let refused = ReliabilityConfig { group_failures_per_hour: -1.0, ..ReliabilityConfig::default() };
    assert!(Reliability::new(refused).err().map(|e| e.to_string()).unwrap_or_default().contains("group_failures_per_hour"));
}

#[test]
fn no_loss_suggests_biasing_only_where_it_applies() {
    let none = |c: ReliabilityConfig| reliability(c).expect("runs").warnings.join(" ");
    let plain = ReliabilityConfig { mttf_hours: 1e12, lifetimes: 100, ..ReliabilityConfig::default() };
    assert!(none(plain.clone()).contains("set failure_biasing"));
    let weibull = ReliabilityConfig { life: LifeDistribution::Weibull, weibull_scale_hours: 1e12, ..plain };
    let w = none(weibull);
    assert!(w.contains("run more lifetimes") && !w.contains("set failure_biasing"), "{w}");
}

#[test]
fn a_latent_error_rate_past_any_drive_is_refused_and_huge_means_do_not_hang() {
    let err = |c: ReliabilityConfig| Reliability::new(c).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err(ReliabilityConfig { latent_errors_per_hour: 1e308, ..ReliabilityConfig::default() }).contains("latent_errors_per_hour"));
    // UBER near 1 over huge members: a mean past the Poisson sampler's range still loses data.
    let c = ReliabilityConfig { uber: 0.9, member_capacity_bytes: u64::MAX, mttf_hours: 1e4, lifetimes: 10, ..ReliabilityConfig::default() };
    let r = reliability(c).expect("runs");
    assert!(r.read_error_losses_per_lifetime > 0.5, "{}", r.read_error_losses_per_lifetime);
}
