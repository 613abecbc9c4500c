//! Tables 3 and 4 of the stripe-unit paper, all 32 rows, exactly, from
//! counting mode, at both parity granularities (issue #3).

use raidsim_core::array::{count_pages, ArrayGeometry, ArrayState, Planner};
use raidsim_core::config::{ArrayConfig, ParityGranularity, RaidLevel};
use raidsim_core::device::{Cause, Op};

const SPEC: &str = include_str!("../../../../python/raidsim/papers/experiments/stripe-unit-tables.toml");

fn counts(unit: u64, start_disk: u64, granularity: ParityGranularity) -> (Vec<u64>, Vec<u64>) {
    let cfg = ArrayConfig { level: RaidLevel::Raid4, members: 5, stripe_unit_bytes: unit, parity_granularity: granularity, ..Default::default() };
    let geom = ArrayGeometry::new(&cfg, 1 << 30);
    let mut planner = Planner::new(&cfg, geom, 4096).expect("planner");
    let mut state = ArrayState::new(5);
    let req = Ok((Op::Write, start_disk * unit, 512 * 1024));
    let m = count_pages(&mut planner, &mut state, 4096, [req]).expect("plans");
    let reads = m.iter().map(|p| p.pages_read[Cause::PreReadRmw.index()] + p.pages_read[Cause::PreReadRcw.index()]).collect();
    let writes = m.iter().map(|p| p.pages_written.iter().sum()).collect();
    (reads, writes)
}

#[test]
fn tables_3_and_4_exactly() {
    let spec: toml::Table = SPEC.parse().expect("spec parses");
    let rows = spec["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 16, "16 rows per table, 32 in all");
    let ints = |v: &toml::Value| v.as_array().expect("list").iter().map(|x| x.as_integer().expect("int") as u64).collect::<Vec<_>>();
    for granularity in [ParityGranularity::Page, ParityGranularity::WholeUnit, ParityGranularity::Disksim] {
        for row in rows {
            let unit = row["stripe_unit_bytes"].as_integer().expect("unit") as u64;
            let sdi = row["start_disk"].as_integer().expect("sdi") as u64;
            let (reads, writes) = counts(unit, sdi, granularity);
            assert_eq!(reads, ints(&row["published_reads"]), "Table 3, SUS {unit}, SDI D{sdi}, {granularity:?}");
            assert_eq!(writes, ints(&row["published_writes"]), "Table 4, SUS {unit}, SDI D{sdi}, {granularity:?}");
        }
    }
}

#[test]
fn starting_at_d0_is_all_full_stripes() {
    let (reads, writes) = counts(4096, 0, ParityGranularity::Page);
    assert_eq!(reads, vec![0; 5]);
    assert_eq!(writes, vec![32, 32, 32, 32, 32]);
}
