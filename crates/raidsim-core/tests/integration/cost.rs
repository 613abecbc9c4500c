//! Cost efficiency (the RAIS paper, Kim et al., ORNL 2010, §5.4 and Tables
//! 2 and 6): prices of drives and controller, and performance and capacity
//! per dollar in the report.

use crate::common;

use common::config;
use raidsim_core::config::RawConfig;
use raidsim_core::simulate;

const WORKLOAD: [&str; 2] = ["workload.requests=2000", "ssd.geometry.blocks_per_plane=64"];

fn run(extra: &[&str]) -> raidsim_core::report::Report {
    let mut o = WORKLOAD.to_vec();
    o.extend_from_slice(extra);
    simulate(config("", &o)).expect("runs")
}

fn refused(extra: &[&str]) -> String {
    let mut raw = RawConfig::new();
    for o in WORKLOAD.iter().chain(extra) {
        raw.set(o).expect("sets");
    }
    raw.resolve().expect_err("refused").to_string()
}

#[test]
fn a_rais_0_of_six_drives_costs_its_drives_and_its_controller() {
    // Table 6: RAIS-0(A) is six SSD(A)s at $415 (Table 2) and one $579 controller: $3,069.
    let r = run(&["array.level=raid0", "array.members=6", "ssd.price_usd=415", "array.controller.price_usd=579"]);
    let c = r.cost.as_ref().expect("priced");
    assert_eq!((c.drives_usd, c.controller_usd, c.total_usd), (2490.0, 579.0, 3069.0));
    assert_eq!(c.iops_per_usd, Some(r.host.iops / 3069.0));
    assert_eq!(c.mb_per_s_per_usd, Some(r.host.mb_per_s / 3069.0));
    let capacity = r.array.as_ref().expect("array").capacity_bytes as f64;
    assert_eq!((c.capacity_gb, c.gb_per_usd), (capacity / 1e9, capacity / 1e9 / 3069.0));
    assert!(r.stats.iter().any(|s| Some(s.value) == c.iops_per_usd && s.path == "cost.iops_per_usd"));
}

#[test]
fn spares_are_bought_too_and_one_ssd_of_channels_is_one_drive() {
    let r = run(&["array.level=raid5", "array.members=5", "array.spares=2", "ssd.price_usd=799"]);
    assert_eq!(r.cost.expect("priced").total_usd, 7.0 * 799.0);
    let r = simulate(config("cr5-ssd1", &["workload.requests=500", "ssd.price_usd=13990"])).expect("runs");
    assert_eq!(r.cost.expect("priced").drives_usd, 13990.0);
}

#[test]
fn per_member_prices_add_up() {
    let r = run(&["array.level=raid0", "array.members=2", "ssd.price_usd=100", "array.member_ssd=[{price_usd = 250}]"]);
    assert_eq!(r.cost.expect("priced").drives_usd, 350.0);
    // A cent is the smallest price (0.009 is refused below).
    let r = run(&["ssd.price_usd=0.01"]);
    assert_eq!(r.cost.expect("priced").total_usd, 0.01);
}

#[test]
fn a_run_that_completed_nothing_has_no_per_dollar_performance() {
    let r = run(&["ssd.price_usd=10", "workload.requests=0"]);
    let c = r.cost.expect("priced");
    assert_eq!((c.iops_per_usd, c.mb_per_s_per_usd, c.total_usd), (None, None, 10.0));
    assert!(!r.stats.iter().any(|s| s.path == "cost.iops_per_usd"));
}

#[test]
fn an_unpriced_run_has_no_cost_section_rather_than_zeros() {
    let r = run(&["array.level=raid5", "array.members=4"]);
    assert!(r.cost.is_none());
    assert!(!r.stats.iter().any(|s| s.path.starts_with("cost.")));
}

#[test]
fn partial_or_meaningless_prices_are_refused_by_name() {
    let e = refused(&["array.level=raid0", "array.members=3", "array.member_ssd=[{price_usd = 250}]"]);
    assert!(e.contains("`ssd.price_usd`") && e.contains("drives 1, 2") && e.contains("price every drive or none"), "{e}");
    // The unpriced drive named by the key that would price it.
    let e = refused(&["array.level=raid0", "array.members=3", "ssd.price_usd=10", "array.member_ssd=[{price_usd = 0}]"]);
    assert!(e.contains("`array.member_ssd[0].price_usd`") && e.contains("drives 0 "), "{e}");
    let e = refused(&["array.level=raid0", "array.members=3", "array.controller.price_usd=579"]);
    assert!(e.contains("array.controller.price_usd") && e.contains("no drive"), "{e}");
    let e = refused(&["ssd.price_usd=13990", "array.controller.price_usd=579"]);
    assert!(e.contains("array.controller.price_usd") && e.contains("\"single\" has no RAID controller"), "{e}");
    let e = refused(&["array.level=raid0", "array.members=2", "ssd.price_usd=1e308"]);
    assert!(e.contains("add up to more than a number can hold"), "{e}");
    for bad in ["ssd.price_usd=-1", "ssd.price_usd=nan", "ssd.price_usd=inf", "ssd.price_usd=5e-324", "ssd.price_usd=0.009"] {
        let e = refused(&[bad]);
        assert!(e.contains("ssd.price_usd") && e.contains("is no price"), "{bad}: {e}");
    }
}
