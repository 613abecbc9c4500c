//! Spread of per-block erase counts (wear).

use serde::Serialize;

/// Equal-width histogram.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Histogram {
    /// Bin edges, `counts.len() + 1` of them.
    pub edges: Vec<f64>,
    /// Items per bin; the last bin includes its right edge.
    pub counts: Vec<u64>,
}

/// Summary of the erase counts of every block of a drive.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EraseSpread {
    /// Fewest erases of any block.
    pub min: u32,
    /// Mean erases per block.
    pub mean: f64,
    /// Most erases of any block.
    pub max: u32,
    /// Population standard deviation.
    pub std: f64,
    /// Histogram of erase counts.
    pub histogram: Histogram,
}

impl EraseSpread {
    /// Summarises `counts` into `bins` bins.
    pub fn new(counts: &[u32], bins: u32) -> Self {
        let n = counts.len().max(1) as f64;
        let min = counts.iter().copied().min().unwrap_or(0);
        let max = counts.iter().copied().max().unwrap_or(0);
        let mean = counts.iter().map(|&c| f64::from(c)).sum::<f64>() / n;
        let var = counts.iter().map(|&c| (f64::from(c) - mean).powi(2)).sum::<f64>() / n;
        let bins = bins.max(1) as usize;
        let width = (f64::from(max - min) / bins as f64).max(1.0);
        let mut hist = vec![0u64; bins];
        for &c in counts {
            let i = ((f64::from(c - min)) / width) as usize;
            hist[i.min(bins - 1)] += 1;
        }
        let edges = (0..=bins).map(|i| f64::from(min) + i as f64 * width).collect();
        Self { min, mean, max, std: var.sqrt(), histogram: Histogram { edges, counts: hist } }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_a_hand_counted_set() {
        let s = EraseSpread::new(&[0, 2, 2, 4], 2);
        assert_eq!((s.min, s.max), (0, 4));
        assert_eq!(s.mean, 2.0);
        assert!((s.std - 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(s.histogram.counts, vec![1, 3]);
    }
}
