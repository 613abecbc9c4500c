//! The parity engine's two primitives on this machine, bytes per second of
//! source (issue #13): `xor::xor_into` (one source XORed into an
//! accumulator) and `gf256::mul_acc` (one source multiplied by a GF(2^8)
//! constant and XORed in), on 4 KiB, 64 KiB and 1 MiB regions; median of 7
//! runs. These calibrate `array.controller.xor_bytes_per_s` and
//! `gf_mul_bytes_per_s` under `parity_compute = "code_ops"`, which counts a
//! stripe plan's work in the same two operations.
//!
//! Run: `cargo bench -p raidsim-codes --bench region_ops`

use raidsim_codes::{gf256, xor};
use std::hint::black_box;
use std::time::Instant;

const RUNS: usize = 7;

fn bytes_per_s(len: usize, op: impl Fn(&mut [u8], &[u8])) -> f64 {
    let src: Vec<u8> = (0..len).map(|j| (j * 7 + 3) as u8).collect();
    let mut dst = vec![0u8; len];
    // Enough iterations for ~50 ms per run.
    let iters = (50_000_000 / len).max(3);
    let mut rates = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let t = Instant::now();
        for _ in 0..iters {
            op(black_box(&mut dst), black_box(&src));
        }
        black_box(&dst);
        rates.push((len * iters) as f64 / t.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    rates[RUNS / 2]
}

fn main() {
    println!("parity engine primitives, bytes of source per second (median of {RUNS})");
    println!("{:<24} {:>14} {:>14} {:>14}", "operation", "4 KiB", "64 KiB", "1 MiB");
    let sizes = [4096, 65536, 1 << 20];
    let xor_rates = sizes.map(|n| bytes_per_s(n, xor::xor_into));
    // A multiply by g^3 (column 3's Q coefficient), as a Q update uses.
    let mul_rates = sizes.map(|n| bytes_per_s(n, |d, s| gf256::mul_acc(d, s, gf256::pow2(3))));
    for (name, r) in [("xor_into", xor_rates), ("gf256::mul_acc", mul_rates)] {
        println!("{:<24} {:>14.3e} {:>14.3e} {:>14.3e}", name, r[0], r[1], r[2]);
    }
    println!("suggested: array.controller.xor_bytes_per_s = {:.0}, gf_mul_bytes_per_s = {:.0} (64 KiB regions)", xor_rates[1], mul_rates[1]);
}
