//! Encode throughput, GB/s of data (issue #4): 5 data + 2 parity columns of
//! 4 KiB, 64 KiB and 1 MiB, each code; median of 7 runs.
//!
//! Run: `cargo bench -p raidsim-codes --bench encode`
//!
//! RDP with 5 data columns needs p = 7, so a column must be a multiple of
//! p − 1 = 6 bytes: its columns are the size rounded down to a multiple of 6.

use raidsim_codes::{default_prime, encode_into, Code};
use std::hint::black_box;
use std::time::Instant;

const K: usize = 5;
const RUNS: usize = 7;

fn gbps(code: Code, size: usize) -> (usize, f64) {
    let len = match default_prime(code, K) {
        Some(p) => size / (p - 1) * (p - 1),
        None => size,
    };
    let data: Vec<Vec<u8>> = (0..K).map(|i| (0..len).map(|j| (i * 31 + j * 7) as u8).collect()).collect();
    let refs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
    let (mut a, mut b) = (vec![0u8; len], vec![0u8; len]);
    // Enough iterations for ~50 ms per run.
    let iters = (50_000_000 / (K * len)).max(3);
    let mut rates = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let t = Instant::now();
        for _ in 0..iters {
            encode_into(code, black_box(&refs), None, &mut a, &mut b).expect("encode");
            black_box((&a, &b));
        }
        rates.push((K * len * iters) as f64 / t.elapsed().as_secs_f64() / 1e9);
    }
    rates.sort_by(f64::total_cmp);
    (len, rates[RUNS / 2])
}

fn main() {
    println!("encode throughput, {K} data + 2 parity columns, GB/s of data (median of {RUNS})");
    println!("{:<8} {:>12} {:>12} {:>12}", "code", "4 KiB", "64 KiB", "1 MiB");
    for (name, code) in [("rs", Code::Rs), ("evenodd", Code::Evenodd), ("rdp", Code::Rdp)] {
        let cells: Vec<String> = [4096, 65536, 1 << 20]
            .iter()
            .map(|&s| {
                let (len, r) = gbps(code, s);
                if len == s {
                    format!("{r:.1}")
                } else {
                    format!("{r:.1} ({len} B)")
                }
            })
            .collect();
        println!("{:<8} {:>12} {:>12} {:>12}", name, cells[0], cells[1], cells[2]);
    }
}
