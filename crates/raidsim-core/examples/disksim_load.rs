//! raidsim beside DiskSim 4.0 and SSDsim under sustained load (issue #7):
//! the full 1,000,000-request cases, the peers' figures beside ours.
//!
//! ```sh
//! cargo run --release -p raidsim-core --example disksim_load [-- REQUESTS [KEY=VALUE ...]]
//! ```

#[path = "../tests/integration/common/load_cases.rs"]
mod load_cases;

use load_cases::{pages_moved, run_load_case, LOAD_CASES};

fn main() {
    let mut args = std::env::args().skip(1);
    let requests: u64 = args.next().map_or(1_000_000, |a| a.parse().expect("REQUESTS: an integer"));
    let extra: Vec<String> = args.collect();
    let ms = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.4}"));
    let n = |x: Option<u64>| x.map_or("-".to_string(), |v| v.to_string());
    println!("{requests} requests per case (the peers' figures are for 1,000,000)\n");
    println!("| case | simulator | mean ms | read ms | write ms | erases | pages moved | wall s |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for case in &LOAD_CASES {
        let t = std::time::Instant::now();
        let r = run_load_case(case, requests, &extra);
        let wall = t.elapsed().as_secs_f64();
        let h = &r.host;
        println!(
            "| {} | raidsim | {:.4} | {:.4} | {:.4} | {} | {} | {wall:.1} |",
            case.name,
            h.response.mean_ns / 1e6,
            h.read_response.mean_ns / 1e6,
            h.write_response.mean_ns / 1e6,
            r.devices[0].erases,
            pages_moved(&r)
        );
        println!(
            "| | {} | {} | {} | {} | {} | {} | |",
            case.peer,
            ms(case.mean_ms),
            ms(case.read_ms),
            ms(case.write_ms),
            n(case.erases),
            n(case.pages_moved)
        );
    }
}
