//! Wear against hand derivations: Diff-RAID's parity-shifting replacement
//! and its ages at replacement, error rates that grow with wear.

use super::*;

/// Members that only wear out (random lives far past the mission), each
/// member `k` reaching its rated cycles after `hours[k]`, rebuilt at once.
fn wearing(hours: &[f64], replacement_wear: ReplacementWear, years: u32) -> ReliabilityConfig {
    ReliabilityConfig {
        members: hours.len() as u32,
        mttf_hours: 1e15,
        rebuild: RebuildDistribution::Fixed,
        rebuild_hours: 1e-6,
        wear_out_hours: hours.to_vec(),
        wear_out_spread: 0.0,
        replacement_wear,
        uber: 0.0,
        mission_years: years,
        lifetimes: 3,
        ..ReliabilityConfig::default()
    }
}

/// A record's fractions, NaN where no lifetime had a drive.
fn ages(w: &WearAtWearOut) -> Vec<f64> {
    w.fractions.iter().map(|x| x.unwrap_or(f64::NAN)).collect()
}

/// Diff-RAID's ages when the oldest wears out, by its own recursion: after
/// a replacement rank k holds `b[k]` (the newest, rank n − 1, 0); the
/// oldest reaches 1 after T = (1 − b₀)/r₀, when each rank has grown by
/// r_k·T, and every rank moves up one.
fn shifted_ages(rates: &[f64], wear_outs: usize) -> Vec<Vec<f64>> {
    let mut b = vec![0.0; rates.len()];
    (0..wear_outs)
        .map(|_| {
            let t = (1.0 - b[0]) / rates[0];
            let at: Vec<f64> = b.iter().zip(rates).map(|(b, r)| b + r * t).collect();
            b = at[1..].iter().copied().chain([0.0]).collect();
            at
        })
        .collect()
}

#[test]
fn shifted_replacement_ages_follow_diff_raids_recursion_and_converge() {
    // (80, 5, 5, 5, 5) under small random writes: member shares p + (1 − p)/4 of the writes, 0.85 and
    // 0.2875, so hours to wear out are inversely proportional.
    let rates = [0.85, 0.2875, 0.2875, 0.2875, 0.2875];
    let hours: Vec<f64> = rates.iter().map(|r| 10_000.0 / r).collect();
    let r = reliability(wearing(&hours, ReplacementWear::Shift, 20)).expect("runs");
    let expected = shifted_ages(&rates, 15);
    assert_eq!(r.wear_at_wear_outs.len(), 15, "three wear-outs per member recorded");
    for (w, e) in r.wear_at_wear_outs.iter().zip(&expected) {
        assert_eq!(w.lifetimes, 3);
        for (got, want) in ages(w).iter().zip(e) {
            assert!((got - want).abs() < 1e-6, "wear-out {}: {:?} against {e:?}", w.wear_out, w.fractions);
        }
    }
    // The recursion converges to its fixed point, rank k holding Σ_{j≥k} r_j / Σ r_j of its cycles:
    // (1, 0.575, 0.431, 0.2875, 0.144); the simulated ages approach it wear-out by wear-out.
    let fixed = [1.0, 0.575, 0.43125, 0.2875, 0.14375];
    let far = shifted_ages(&rates, 2000);
    let distance = |a: &[f64]| a.iter().zip(fixed).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
    assert!(distance(&far[1999]) < 1e-9, "{:?}", far[1999]);
    let (fifth, fifteenth) = (distance(&ages(&r.wear_at_wear_outs[4])), distance(&ages(&r.wear_at_wear_outs[14])));
    assert!(fifteenth < fifth && fifteenth < 0.03, "{fifth} then {fifteenth}");
}

#[test]
fn kept_slots_wear_out_in_lockstep() {
    // The same shares, each slot keeping its rate: when member 0 wears out for the third time (after
    // 3 × 11,765 h), the others are at 3 × 0.2875 / 0.85 = 1.015 of their lives: they wore out just
    // before, together, and were replaced new.
    let rates = [0.85, 0.2875, 0.2875, 0.2875, 0.2875];
    let hours: Vec<f64> = rates.iter().map(|r| 10_000.0 / r).collect();
    let r = reliability(wearing(&hours, ReplacementWear::SameSlot, 20)).expect("runs");
    let first = &ages(&r.wear_at_wear_outs[0]);
    for (got, want) in first.iter().zip([1.0, 0.338, 0.338, 0.338, 0.338]) {
        assert!((got - want).abs() < 1e-3, "{first:?}");
    }
    // Four members wearing out at one instant: RAID-5 is lost at the second of them.
    assert_eq!(r.by_year.last().map(|y| y.array_loss.p), Some(1.0));
}

#[test]
fn a_worn_survivor_reads_with_its_grown_error_rate() {
    // RAID-5 of two: member 0 wears out after 10,000 h, when member 1 (40,000 h) is a quarter of the
    // way. The rebuild reads member 1 whole with UBER 1e-12 × (1e-9 / 1e-12)^0.25: P(error) =
    // 1 − exp(−bits × UBER). Random lives and the second wear-out fall past the 2-year mission.
    let capacity = 100_000_000u64;
    let c = ReliabilityConfig {
        member_capacity_bytes: capacity,
        uber: 1e-12,
        uber_worn: 1e-9,
        lifetimes: 40_000,
        mission_years: 2,
        ..wearing(&[10_000.0, 40_000.0], ReplacementWear::SameSlot, 2)
    };
    let r = reliability(c.clone()).expect("runs");
    let uber = 1e-12 * 1000f64.powf(0.25);
    let p = 1.0 - (-(capacity as f64) * 8.0 * uber).exp();
    let loss = r.by_year[1].loss;
    assert!(loss.low <= p && p <= loss.high, "{p} outside {loss:?}");
    assert!((r.read_error_losses_per_lifetime - p).abs() < 0.02, "{}", r.read_error_losses_per_lifetime);
    // Without growth the same rebuild meets errors at the new rate: about a sixth as often.
    let flat = reliability(ReliabilityConfig { uber_worn: 0.0, ..c }).expect("runs");
    let p_new = 1.0 - (-(capacity as f64) * 8.0 * 1e-12).exp();
    assert!((flat.read_error_losses_per_lifetime - p_new).abs() < 0.01, "{}", flat.read_error_losses_per_lifetime);
}

#[test]
fn wear_settings_are_refused_where_they_do_nothing_or_make_no_sense() {
    let err = |c: ReliabilityConfig| Reliability::new(c).err().map(|e| e.to_string()).unwrap_or_default();
    let worn = wearing(&[10_000.0, 20_000.0], ReplacementWear::SameSlot, 1);
    assert!(err(ReliabilityConfig { uber: 1e-12, uber_worn: 1e-13, ..worn.clone() }).contains("uber_worn"));
    assert!(err(ReliabilityConfig { uber: 0.0, uber_worn: 1e-13, ..worn.clone() }).contains("uber > 0"));
    assert!(err(ReliabilityConfig { uber: 1e-12, uber_worn: f64::NAN, ..worn }).contains("uber_worn"));
    let text = r#"{"uber_worn": 1e-12, "uber": 1e-15}"#;
    let e = config_from_json(text, "study").expect_err("no member wears").to_string();
    assert!(e.contains("uber_worn") && e.contains("wear_out_hours"), "{e}");
    let e = config_from_json(r#"{"replacement_wear": "shift"}"#, "study").expect_err("no member wears").to_string();
    assert!(e.contains("replacement_wear"), "{e}");
    assert!(config_from_json(r#"{"replacement_wear": "rotate"}"#, "study").is_err());
}

#[test]
fn lifetimes_that_never_lose_the_array_stop_and_give_no_mttdl() {
    // Members wearing out in turn, each rebuilt long before the next goes, and no random failures: the
    // array is never lost, so a lifetime run to its loss would never end.
    let hours = [10_000.0 / 0.85, 10_000.0 / 0.2875, 10_000.0 / 0.2875, 10_000.0 / 0.2875, 10_000.0 / 0.2875];
    let c = ReliabilityConfig { mttdl_lifetimes: 2, ..wearing(&hours, ReplacementWear::Shift, 1) };
    let r = reliability(c).expect("runs");
    assert_eq!(r.mttdl_hours, None);
    assert!(r.warnings.iter().any(|w| w.contains("mttdl_lifetimes") && w.contains("20000000")), "{:?}", r.warnings);
}

#[test]
fn a_slot_awaiting_its_replacement_is_left_out_of_the_ages() {
    // RAID-6 of 4 wearing out at 1,000, 2,000, 3,000 and 4,000 h, replacements 1,500 h away: at the second
    // wear-out (member 1, 2,000 h) member 0's slot has no drive until 2,500 h, so only three ages are met.
    let c = ReliabilityConfig {
        level: ReliabilityLevel::Raid6,
        replacement_hours: 1500.0,
        rebuild_hours: 1.0,
        ..wearing(&[1000.0, 2000.0, 3000.0, 4000.0], ReplacementWear::SameSlot, 1)
    };
    let r = reliability(c).expect("runs");
    let second = &r.wear_at_wear_outs[1];
    assert_eq!(second.fractions[3], None, "{second:?}");
    for (got, want) in ages(second)[..3].iter().zip([1.0, 2.0 / 3.0, 0.5]) {
        assert!((got - want).abs() < 1e-9, "{second:?}");
    }
}
