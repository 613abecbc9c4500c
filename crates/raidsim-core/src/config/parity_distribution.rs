//! Uneven parity: Diff-RAID's parity shares (`array.parity_distribution`).
//!
//! RAID-5 rotates parity so that every member holds the same share of it,
//! and under small random writes (each updating one data unit and its
//! parity) every member then takes the same share of the writes: an array
//! of SSDs wears its members out together, and when one fails near the end
//! of its rated erasures the others, just as worn, read back with their
//! highest bit error rates. Diff-RAID (Balakrishnan, Kadav, Prabhakaran,
//! Malkhi, "Differential RAID: Rethinking RAID for SSD Reliability",
//! EuroSys 2010) gives the members uneven parity shares instead, written
//! as percentages such as (70, 10, 10, 10, 0): the members holding more
//! parity take more of the updates and age faster, so the array's members
//! are of different ages. RAID-4 is (0, …, 0, 100), RAID-5 the even split.
//!
//! Stripe `s` keeps its parity on member `cycle[s mod L]`, where the cycle
//! of `L` stripes holds each member `share × L` times, `L` the smallest
//! number of stripes that realises every share exactly (at most
//! [`MAX_CYCLE_STRIPES`]). The members take their turns interleaved as
//! evenly as the shares allow (smooth weighted round robin), so that any
//! run of consecutive stripes, not only a whole cycle, comes close to the
//! shares. The data units of a stripe fill the other members as
//! `array.layout` says: in member order (asymmetric), or from the member
//! after the parity (symmetric). An array whose stripe count is not a
//! multiple of `L` ends with part of a cycle.

use crate::error::{Error, Result};

/// The longest cycle of stripes a distribution may need: shares are
/// fractions with a common denominator of at most this.
pub const MAX_CYCLE_STRIPES: u32 = 1000;

/// How far a share's multiple of the cycle may lie from a whole number of
/// stripes, per stripe of the cycle, and the shares' sum from 1: the
/// rounding of decimal shares as a computer holds them, nothing a user
/// would write.
const SHARE_TOLERANCE: f64 = 1e-9;

/// The parity member of each stripe of one cycle, for `shares` (one per
/// member, summing to 1): the exact cycle when one of at most
/// [`MAX_CYCLE_STRIPES`] stripes exists (validation refuses the rest),
/// else the nearest of that length.
pub fn parity_cycle(shares: &[f64]) -> Vec<u32> {
    let counts = cycle_counts(shares);
    let len: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let mut credit = vec![0i64; counts.len()];
    (0..len)
        .map(|_| {
            for (c, &k) in credit.iter_mut().zip(&counts) {
                *c += i64::from(k);
            }
            // The member furthest behind its share goes next; ties to the lowest index.
            let next = (0..credit.len()).fold(0, |best, i| if credit[i] > credit[best] { i } else { best });
            credit[next] -= len as i64;
            next as u32
        })
        .collect()
}

/// Stripes per member in one cycle: the smallest exact cycle, else shares
/// of [`MAX_CYCLE_STRIPES`] rounded by largest remainder.
fn cycle_counts(shares: &[f64]) -> Vec<u32> {
    let exact = (1..=MAX_CYCLE_STRIPES).find_map(|len| {
        let counts: Vec<u32> = shares.iter().map(|s| (s * f64::from(len)).round().max(0.0) as u32).collect();
        let whole = shares.iter().zip(&counts).all(|(s, &c)| (s * f64::from(len) - f64::from(c)).abs() <= SHARE_TOLERANCE * f64::from(len));
        (whole && counts.iter().sum::<u32>() == len).then_some(counts)
    });
    exact.unwrap_or_else(|| largest_remainder(shares, MAX_CYCLE_STRIPES))
}

fn largest_remainder(shares: &[f64], len: u32) -> Vec<u32> {
    let ideal: Vec<f64> = shares.iter().map(|s| (s * f64::from(len)).max(0.0)).collect();
    let mut counts: Vec<u32> = ideal.iter().map(|x| x.floor() as u32).collect();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| (ideal[b] - ideal[b].floor()).total_cmp(&(ideal[a] - ideal[a].floor())).then(a.cmp(&b)));
    let missing = len.saturating_sub(counts.iter().sum());
    for &i in order.iter().cycle().take(missing as usize) {
        counts[i] += 1;
    }
    counts
}

/// Checks `shares` for an array of `members` members at `level_name`
/// (`parity_units` per stripe), naming `array.parity_distribution`.
pub fn validate(shares: &[f64], members: u32, single_parity: bool, level_name: &str) -> Result<()> {
    const KEY: &str = "array.parity_distribution";
    if shares.is_empty() {
        return Ok(());
    }
    if !single_parity {
        return Err(Error::config(
            KEY,
            format!("Diff-RAID's parity shares apply to RAID-5 (one parity unit per stripe, on members), not to {level_name}"),
        ));
    }
    if shares.len() != members as usize {
        return Err(Error::config(KEY, format!("{} shares for {members} members: give one per member, in member order", shares.len())));
    }
    if let Some(i) = shares.iter().position(|s| !(s.is_finite() && *s >= 0.0)) {
        return Err(Error::config(format!("{KEY}[{i}]"), format!("{} must be a finite share >= 0", shares[i])));
    }
    let sum: f64 = shares.iter().sum();
    if (sum - 1.0).abs() > SHARE_TOLERANCE {
        return Err(Error::config(
            KEY,
            format!("the shares sum to {sum:.6}, not 1 (RAID-5 of 5: [0.2, 0.2, 0.2, 0.2, 0.2]; Diff-RAID: [0.7, 0.1, 0.1, 0.1, 0.0])"),
        ));
    }
    let cycle = parity_cycle(shares);
    let len = cycle.len() as f64;
    let realised = |m: usize| cycle.iter().filter(|&&p| p as usize == m).count() as f64 / len;
    if let Some(m) = (0..shares.len()).find(|&m| (realised(m) - shares[m]).abs() > SHARE_TOLERANCE) {
        return Err(Error::config(
            format!("{KEY}[{m}]"),
            format!(
                "{} is no whole number of stripes in any cycle of up to {MAX_CYCLE_STRIPES} stripes (the nearest is {}): give \
                 shares with a common denominator of at most {MAX_CYCLE_STRIPES}, such as 0.7 or 1/3 written out",
                shares[m],
                realised(m)
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(cycle: &[u32], m: u32) -> usize {
        cycle.iter().filter(|&&p| p == m).count()
    }

    #[test]
    fn the_cycle_is_the_shortest_that_realises_every_share() {
        let c = parity_cycle(&[0.7, 0.1, 0.1, 0.1, 0.0]);
        assert_eq!(c.len(), 10);
        assert_eq!([0, 1, 2, 3, 4].map(|m| count(&c, m)), [7, 1, 1, 1, 0]);
        assert_eq!(parity_cycle(&[0.2; 5]), vec![0, 1, 2, 3, 4], "the even split rotates one member a stripe");
        let thirds = parity_cycle(&[1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0]);
        assert_eq!(thirds, vec![0, 1, 2]);
        assert_eq!(parity_cycle(&[0.0, 0.0, 1.0]), vec![2], "RAID-4");
    }

    #[test]
    fn turns_are_interleaved_not_bunched() {
        // 0.5 / 0.25 / 0.25 over 4 stripes, by hand: the member most behind its share after each stripe
        // goes next: (0.5, 0.25, 0.25) → 0; (0, 0.5, 0.5) → 1; (0.5, -0.25, 0.75) → 2; (1, 0, 0) → 0.
        assert_eq!(parity_cycle(&[0.5, 0.25, 0.25]), vec![0, 1, 2, 0]);
        // Any 5 consecutive stripes of (70, 10, 10, 10, 0), across the cycle's end too, hold 3 or 4 of member 0.
        let c = parity_cycle(&[0.7, 0.1, 0.1, 0.1, 0.0]);
        let twice: Vec<u32> = c.iter().chain(&c).copied().collect();
        for w in twice.windows(5) {
            assert!((3..=4).contains(&count(w, 0)), "{c:?}");
        }
        // No run of member 0 longer than ceil(0.7 / 0.3) + 1 = 4.
        let longest = twice.split(|&p| p != 0).map(<[u32]>::len).max().unwrap_or(0);
        assert!(longest <= 4, "{c:?}");
    }

    #[test]
    fn bad_shares_are_refused_by_key() {
        let err = |s: &[f64], n| validate(s, n, true, "raid5").expect_err("refused").to_string();
        assert!(err(&[0.5, 0.4], 2).contains("sum to 0.9"), "{}", err(&[0.5, 0.4], 2));
        assert!(err(&[0.5, 0.5], 3).contains("2 shares for 3 members"));
        assert!(err(&[1.5, -0.5], 2).contains("parity_distribution[1]"));
        assert!(err(&[f64::NAN, 1.0], 2).contains("parity_distribution[0]"));
        assert!(err(&[0.1234, 0.8766], 2).contains("common denominator"));
        assert!(err(&[1.0 / 1001.0, 1000.0 / 1001.0], 2).contains("common denominator"), "rounded to thousandths");
        assert!(err(&[0.5000005, 0.5], 2).contains("sum to"));
        assert!(validate(&[0.5, 0.5], 2, false, "Raid6").expect_err("refused").to_string().contains("RAID-5"));
        assert!(validate(&[0.123, 0.877], 2, true, "raid5").is_ok(), "a denominator of 1000");
        assert!(validate(&[], 2, false, "Raid6").is_ok(), "none given");
    }
}
