//! CR5's chips against closed forms: chips that stay down, CR5 of one chip
//! a channel as RAID-5, and the reads of a chip's rebuild.

use super::*;

fn cr5(channels: u32, chips: u32, spares: u32) -> ReliabilityConfig {
    ReliabilityConfig {
        level: ReliabilityLevel::Cr5,
        members: channels,
        chips_per_channel: chips,
        spares,
        uber: 0.0,
        member_capacity_bytes: 32_000_000_000,
        ..ReliabilityConfig::default()
    }
}

#[test]
fn chips_that_stay_down_lose_data_once_two_channels_hold_one() {
    // No spare chips: a failed chip stays down. With q = exp(-K λ t) the chance a channel has lost no chip
    // by t, data survives while at most one channel has: P(loss) = 1 - q^C - C (1 - q) q^(C-1). Several
    // chips down on one channel lose nothing.
    let (channels, chips, mttf) = (8u32, 4u32, 400_000.0);
    let c = ReliabilityConfig { mttf_hours: mttf, lifetimes: 200_000, ..cr5(channels, chips, 0) };
    let r = reliability(c).expect("runs");
    for y in &r.by_year {
        let q = (-f64::from(chips) * HOURS_PER_YEAR * f64::from(y.year) / mttf).exp();
        let n = f64::from(channels);
        let exact = 1.0 - q.powf(n) - n * (1.0 - q) * q.powf(n - 1.0);
        assert!(y.array_loss.low <= exact && exact <= y.array_loss.high, "year {}: {exact} outside {:?}", y.year, y.array_loss);
    }
    assert_eq!(r.markov_mttdl_hours, None, "no chain of members describes chips counted by channel");
}

#[test]
fn one_chip_a_channel_with_spares_to_spare_is_raid5_of_the_channels() {
    // Each failed chip rebuilt at once onto its channel's spare: the same draws, the same lifetimes as
    // RAID-5 of as many members rebuilt at once.
    let raid5 = ReliabilityConfig {
        members: 6,
        mttf_hours: 20_000.0,
        rebuild_hours: 200.0,
        lifetimes: 50_000,
        uber: 1e-12,
        member_capacity_bytes: 1_000_000_000,
        ..ReliabilityConfig::default()
    };
    let chips = ReliabilityConfig { level: ReliabilityLevel::Cr5, chips_per_channel: 1, spares: 1000, ..raid5.clone() };
    let (a, b) = (reliability(raid5).expect("runs"), reliability(chips).expect("runs"));
    assert_eq!(a.by_year, b.by_year);
    assert_eq!(a.read_error_losses_per_lifetime, b.read_error_losses_per_lifetime);
    assert_eq!(a.rebuild_read_error_probability, b.rebuild_read_error_probability);
}

#[test]
fn a_chips_rebuild_reads_a_chips_worth_of_each_other_channel() {
    // 8 channels of 4 chips of 32 GB: rebuilding one chip reads 7 × 32 GB. Spare chips aplenty and short
    // rebuilds: nearly every failure's rebuild reads with no redundancy left.
    let c = ReliabilityConfig { uber: 1e-13, mttf_hours: 200_000.0, rebuild_hours: 1.0, lifetimes: 100_000, ..cr5(8, 4, 100) };
    let r = reliability(c).expect("runs");
    let p = 1.0 - (-1e-13_f64 * 7.0 * 32e9 * 8.0).exp();
    assert!((r.rebuild_read_error_probability - p).abs() < 1e-12);
    let expected = r.failures_per_lifetime * p;
    assert!((r.read_error_losses_per_lifetime / expected - 1.0).abs() < 0.05, "{} against {expected}", r.read_error_losses_per_lifetime);
    assert!((r.failures_per_lifetime / (32.0 * 5.0 * HOURS_PER_YEAR / 200_000.0) - 1.0).abs() < 0.02, "{}", r.failures_per_lifetime);
}

#[test]
fn cr5_settings_it_cannot_honour_are_refused_by_key() {
    let err = |c: ReliabilityConfig| Reliability::new(c).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err(ReliabilityConfig { replacement_hours: 24.0, ..cr5(4, 2, 1) }).contains("replacement_hours"));
    assert!(err(ReliabilityConfig { chips_per_channel: 0, ..cr5(4, 2, 1) }).contains("chips_per_channel"));
    assert!(err(ReliabilityConfig { wear_out_hours: vec![1.0; 4], ..cr5(4, 2, 1) }).contains("wear_out_hours"));
    assert!(err(ReliabilityConfig { latent_errors_per_hour: 1e-6, ..cr5(4, 2, 1) }).contains("latent_errors_per_hour"));
    assert!(err(ReliabilityConfig { failure_biasing: 0.5, mttf_hours: 1e9, ..cr5(4, 2, 1) }).contains("failure_biasing"));
    let e = config_from_json(r#"{"chips_per_channel": 4}"#, "study").expect_err("raid5").to_string();
    assert!(e.contains("chips_per_channel") && e.contains("cr5"), "{e}");
    assert!(config_from_json(r#"{"level": "cr5", "spares": 1}"#, "study").is_ok(), "spare chips without replacements");
    assert!(config_from_json(r#"{"level": "cr5m", "spares": 1, "mirrored_fraction": 0.1}"#, "study").is_ok());
    let e = config_from_json(r#"{"level": "cr5", "mirrored_fraction": 0.1}"#, "study").expect_err("cr5 mirrors nothing").to_string();
    assert!(e.contains("mirrored_fraction"), "{e}");
    assert!(err(ReliabilityConfig { level: ReliabilityLevel::Cr5m, mirrored_fraction: 1.5, ..cr5(4, 2, 1) }).contains("mirrored_fraction"));
}

#[test]
fn cr5m_loses_mirrored_pages_when_a_data_chip_and_its_mirroring_chip_are_down() {
    // No spare chips: every chip that fails stays down. With q = exp(-K λ t) for a channel's K data chips and
    // m = exp(-λ t) for its mirroring chip, data survives while at most one channel has a data chip down and
    // that channel's mirroring chip is up: P(no loss) = q^C + C (1 - q) m q^(C-1). A mirroring chip down alone
    // loses nothing.
    let (channels, chips, mttf) = (8u32, 4u32, 400_000.0);
    let c =
        ReliabilityConfig { level: ReliabilityLevel::Cr5m, mirrored_fraction: 0.02, mttf_hours: mttf, lifetimes: 200_000, ..cr5(channels, chips, 0) };
    let r = reliability(c).expect("runs");
    for y in &r.by_year {
        let t = HOURS_PER_YEAR * f64::from(y.year);
        let (q, m, n) = ((-f64::from(chips) * t / mttf).exp(), (-t / mttf).exp(), f64::from(channels));
        let exact = 1.0 - q.powf(n) - n * (1.0 - q) * m * q.powf(n - 1.0);
        assert!(y.loss.low <= exact && exact <= y.loss.high, "year {}: {exact} outside {:?}", y.year, y.loss);
    }
    assert!(r.mirrored_page_losses_per_lifetime > 0.0);
    // Without pages pending, the same chips lose what CR5's would: two channels' data chips.
    let none = ReliabilityConfig { level: ReliabilityLevel::Cr5m, mttf_hours: mttf, lifetimes: 200_000, ..cr5(channels, chips, 0) };
    let r = reliability(none).expect("runs");
    let y = &r.by_year[4];
    let q = (-f64::from(chips) * HOURS_PER_YEAR * 5.0 / mttf).exp();
    let exact = 1.0 - q.powi(8) - 8.0 * (1.0 - q) * q.powi(7);
    assert!(y.loss.low <= exact && exact <= y.loss.high, "{exact} outside {:?}", y.loss);
    assert_eq!(r.mirrored_page_losses_per_lifetime, 0.0);
}

#[test]
fn mirrored_pages_are_lost_once_per_data_chip_whatever_the_order() {
    use super::channels::Channels;
    // One channel of 3 data chips (0-2) and its mirroring chip (3): two data chips then the mirroring chip,
    // or the mirroring chip then the two data chips, expose the same two chips' pending pages.
    let mut first = Channels::new(1, 4, 0, true);
    assert_eq!(
        [0, 1, 3].map(|chip| {
            first.fail(chip);
            first.data_chips_losing_mirrored_pages(chip)
        }),
        [0, 0, 2]
    );
    let mut then = Channels::new(1, 4, 0, true);
    assert_eq!(
        [3, 0, 1].map(|chip| {
            then.fail(chip);
            then.data_chips_losing_mirrored_pages(chip)
        }),
        [0, 1, 1]
    );
}

#[test]
fn the_bytes_an_array_loses_count_its_data_once() {
    // RAID-5 of 3 members failing fast, every rebuild meeting read errors: each lifetime loses sectors, then
    // the array, whose data already holds those sectors: the bytes lost are the data's, not more.
    let c = ReliabilityConfig {
        members: 3,
        mttf_hours: 100.0,
        rebuild_hours: 50.0,
        uber: 1e-9,
        member_capacity_bytes: 1_000_000_000,
        lifetimes: 2000,
        mission_years: 1,
        ..ReliabilityConfig::default()
    };
    let r = reliability(c.clone()).expect("runs");
    assert_eq!(r.by_year[0].array_loss.p, 1.0);
    assert!(r.read_error_losses_per_lifetime > 1.0);
    assert!((r.expected_bytes_lost / c.data_bytes() - 1.0).abs() < 1e-12, "{} against {}", r.expected_bytes_lost, c.data_bytes());
}
