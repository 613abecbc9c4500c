//! Mean and standard deviation of per-interval throughput (the RAIS
//! paper's Tables 3-4: bandwidth per one-second interval, its average and
//! standard deviation), by hand on a run whose completions we place.

use crate::common;

use common::config;
use raidsim_core::simulate;

#[test]
fn whole_intervals_give_the_mean_and_sample_deviation_the_last_partial_one_left_out() {
    // 10, 20 and 30 reads of 4 KiB in the first three seconds, one more at 3.5 s.
    let mut list = Vec::new();
    for (second, n) in [(0u64, 10u64), (1, 20), (2, 30)] {
        for i in 0..n {
            list.push(format!("[{}, \"R\", {}, 4096]", second * 1_000_000_000 + 100_000_000 + i * 1_000_000, i * 4096));
        }
    }
    list.push("[3500000000, \"R\", 0, 4096]".into());
    let w = format!("workload.requests=[{}]", list.join(", "));
    let r = simulate(config("", &["workload.kind=requests", w.as_str(), "metrics.interval_ns=1000000000"])).expect("runs");
    let s = &r.time_series.steadiness;
    assert_eq!(s.intervals, 3);
    let near = |x: Option<f64>, v: f64| x.is_some_and(|x| (x - v).abs() < 1e-9 * v);
    // IOPS 10, 20, 30: mean 20, sample deviation 10; MB/s the same x 4096 / 10^6.
    assert!(near(s.iops_mean, 20.0) && near(s.iops_std, 10.0), "{s:?}");
    assert!(near(s.mb_per_s_mean, 0.08192) && near(s.mb_per_s_std, 0.04096), "{s:?}");
    assert_eq!(r.time_series.iops.len(), 4, "the partial fourth interval is in the series, not in the figures");

    let one =
        simulate(config("", &["workload.kind=requests", "workload.requests=[[0, \"R\", 0, 4096]]", "metrics.interval_ns=1000000000"])).expect("runs");
    let s = &one.time_series.steadiness;
    assert!(s.mb_per_s_std.is_none() && s.iops_mean.is_none(), "fewer than two whole intervals give no figures, not zeros");
}
