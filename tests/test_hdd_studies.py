"""Hard-disk studies (issue #9): Chen & Lee's Tables 1-2 and the stripe-unit paper's Tables 7-9."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pandas as pd
import pytest

from raidsim.papers import hdd_stripe_unit, striping

pytestmark = pytest.mark.slow  # reproductions or a Ray head: minutes; `pytest -m 'not slow'` skips them

PAPERS = pathlib.Path(os.environ.get("RAIDSIM_SHARED_PAPERS",
                                     pathlib.Path(__file__).resolve().parent.parent.parent / "shared" / "papers"))
KB = 1024


def paper(name):
    path = PAPERS / name
    if not path.is_file():
        pytest.skip(f"{path} not found: the papers sit in ../shared/papers beside the project checkout")
    return path.read_text()


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "raidsim.cli", *args], capture_output=True, text=True)


# --- the published values are transcribed from the papers, number for number -------------------

def test_tables_7_to_9_in_the_spec_are_the_papers():
    # Rows of 13 numbers (unit, then 4 x 3 values) in the order the paper prints them: Tables 7, 8, 9.
    rows = []
    for line in paper("stripe-unit-size-ssd-raid.txt").splitlines():
        tokens = line.split()
        if len(tokens) == 13 and all(re.fullmatch(r"\d+(\.\d+)?", t) for t in tokens):
            rows.append([float(t) for t in tokens])
    assert len(rows) == 18, "three tables of six stripe units"
    spec = hdd_stripe_unit.spec()
    for k, table in enumerate(spec["tables"]):
        for i, row in enumerate(rows[6 * k: 6 * k + 6]):
            assert row[0] == spec["stripe_units_kb"][i]
            for j, key in enumerate(("response_ms", "positioning_ms", "transfer_ms", "positioning_share_pct")):
                assert table[key][i] == row[1 + 3 * j: 4 + 3 * j], (table["table"], key, row[0])


def test_chen_lee_tables_1_and_2_in_the_spec_are_the_papers():
    text = paper("striping-raid5-disk-array.txt")
    cells = {}
    for line in text.splitlines():
        parts = [p.strip() for p in line.strip().strip("|").split("|")]
        if len(parts) >= 4:
            cells[parts[0]] = parts[1:]
    disks = striping.spec()["disks_published"]
    for col, d in enumerate(disks):
        number = lambda label: float(re.match(r"[\d.]+", cells[label][col]).group())  # noqa: E731
        assert number("Disk Capacity") == d["capacity_mb"]
        assert number("Sustained Transfer Rate") == d["sustained_mb_per_s"]
        assert number("Effective Average Seek Time (first 300 MB of disk)") == d["effective_average_seek_ms"]
        assert number("Effective Average Positioning Time") == d["effective_positioning_ms"]
        assert number("Effective Disk Performance Product") == d["performance_product_kb"]
    rows = {"hdd-ibm-lightning": "17 Lightnings", "hdd-seagate-elite3": "17 Elite3", "hdd-seagate-wren4": "17 Wren4"}
    for d in disks:
        assert [float(x) for x in cells[rows[d["preset"]]][:5]] == [d[k] for k in striping.COEFFICIENTS]


# --- Table 1 and the coefficients, against hand counts ------------------------------------------

def test_disk_parameters_within_5_percent_of_table_1():
    rows = striping.disk_parameters()
    assert [r["disk"] for r in rows] == ["IBM Lightning", "Seagate Elite3", "Seagate Wren4"]
    for r in rows:
        for k in striping.TABLE_1_KEYS:
            assert abs(r[f"{k}_error_pct"]) <= 5, (r["disk"], k, r[k], r[f"{k}_published"])


def test_cli_disk_parameters_json():
    p = run_cli("reproduce", "disk-parameters", "--json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert rows[0]["performance_product_kb_published"] == 33
    assert abs(rows[0]["performance_product_kb"] - 33) < 1


def _runs(table):
    """Hand-made runs: {(op, size, concurrency): [pct at unit 1, 2, 4 KB]}."""
    rows = []
    for (op, size, conc), pcts in table.items():
        for unit_kb, pct in zip((1, 2, 4), pcts):
            rows.append({"op": op, "size": size, "concurrency": conc, "unit_bytes": unit_kb * KB, "pct_of_best": pct})
    return pd.DataFrame(rows)


def test_coefficients_follow_chen_and_lees_rules_on_a_hand_count():
    runs = _runs({
        ("read", "a", 1): [1.00, 0.96, 0.80], ("read", "b", 1): [0.97, 1.00, 0.90],
        ("read", "a", 3): [0.70, 0.96, 1.00], ("read", "b", 3): [0.60, 0.95, 1.00],
        ("write", "a", 1): [1.00, 0.85, 0.50], ("write", "b", 1): [1.00, 0.92, 0.60],
        ("write", "a", 3): [0.95, 1.00, 0.70], ("write", "b", 3): [0.91, 1.00, 0.80],
    })
    dpp = 4 * KB
    c = striping.coefficients(runs, dpp)
    # Z: the unit whose worst share is largest. Reads: worst 0.60 / 0.95 / 0.80 -> 2 KB.
    assert c["Z_r"] == 2 * KB / dpp and c["Z_r_guarantee"] == 0.95
    # Writes: worst 0.91 / 0.85 / 0.50 -> 1 KB.
    assert c["Z_w"] == 1 * KB / dpp and c["Z_w_guarantee"] == 0.91
    # Both: worst 0.60 / 0.85 / 0.50 -> 2 KB.
    assert c["Z_rw"] == 2 * KB / dpp and c["Z_rw_guarantee"] == 0.85
    # Ranges at concurrency 3: reads >= 95 % at 2 and 4 KB; the smallest slope through (1, 512 B)
    # that stays inside is (2048 - 512) / (3 - 1) = 768 B per unit of concurrency.
    assert c["S_r_ranges"][3] == (2 * KB, 4 * KB)
    assert c["S_r"] == 768 / dpp
    # Writes >= 90 % at concurrency 3: 1 and 2 KB -> (1024 - 512) / 2 = 256 B.
    assert c["S_w_ranges"][3] == (1 * KB, 2 * KB)
    assert c["S_w"] == 256 / dpp


def test_a_concurrency_with_no_unit_at_the_threshold_falls_back_to_its_best_unit():
    runs = _runs({("read", "a", 1): [1.0, 0.9, 0.8], ("read", "a", 3): [0.9, 0.94, 1.0],
                  ("read", "b", 3): [1.0, 0.94, 0.90],
                  ("write", "a", 1): [1.0, 1.0, 1.0], ("write", "a", 3): [1.0, 1.0, 1.0]})
    c = striping.coefficients(runs, 4 * KB)
    # Worst shares at concurrency 3: 0.90 / 0.94 / 0.90, none at 95 %: the best unit, 2 KB, alone.
    assert c["S_r_ranges"][3] == (2 * KB, 2 * KB)
    assert c["S_r"] == (2 * KB - 512) / 2 / (4 * KB)


def test_a_range_is_the_run_of_units_around_the_best_not_a_hull():
    runs = pd.DataFrame([{"op": "read", "size": "a", "concurrency": conc, "unit_bytes": u * KB, "pct_of_best": p}
                         for conc in (1, 2) for u, p in zip((1, 2, 4, 8, 16), (0.96, 0.90, 0.97, 1.0, 0.96))]
                        + [{"op": "write", "size": "a", "concurrency": 1, "unit_bytes": KB, "pct_of_best": 1.0}])
    c = striping.coefficients(runs, 4 * KB)
    # 1 KB also reaches 95 %, but 2 KB between it and the best (8 KB) does not.
    assert c["S_r_ranges"][2] == (4 * KB, 16 * KB)


def _two_unit_runs(e, e_b_at_1kb=None):
    """Two workloads, units 1 and 2 KB: rates a = 1.0 / 0.8, b = 0.7 / 1.0; every run known to ±e
    (b's 1 KB run to ±e_b_at_1kb where given)."""
    rows = [("a", 1, 1.0), ("a", 2, 0.8), ("b", 1, 0.7), ("b", 2, 1.0)]
    t = pd.DataFrame([{"op": op, "size": size, "concurrency": 1, "unit_bytes": u * KB, "rate": r,
                       "rel_half_width": e_b_at_1kb if (size, u) == ("b", 1) and e_b_at_1kb else e}
                      for size, u, r in rows for op in ("read", "write")])
    return striping.share_bounds(t, t["rate"])


def test_share_bounds_by_hand():
    t = _two_unit_runs(0.10).query("op == 'write'").set_index(["size", "unit_bytes"])
    # a at 2 KB: rate 0.8 in [0.8/1.1, 0.8/0.9]; a's best in [1/1.1, 1/0.9] (the 1 KB run).
    assert t.loc[("a", 2 * KB), "share_lo"] == pytest.approx((0.8 / 1.1) / (1 / 0.9))
    assert t.loc[("a", 2 * KB), "share_hi"] == pytest.approx((0.8 / 0.9) / (1 / 1.1))
    assert t.loc[("a", 2 * KB), "pct_of_best"] == pytest.approx(0.8)
    # The best run's share is at most 1 however wide its interval.
    assert t.loc[("a", KB), "share_hi"] == 1.0


def test_a_z_band_holds_the_units_the_runs_precision_cannot_tell_from_the_best():
    # Guarantees: 1 KB 0.70, 2 KB 0.80 -> Z = 2 KB. At ±10 %: 1 KB's upper bound (b) 0.7/0.9 / (1/1.1) = 0.856
    # reaches the bar, 2 KB's lower bound (a) 0.8/1.1 / (1/0.9) = 0.655 -> both units.
    c = striping.coefficients(_two_unit_runs(0.10), KB)
    assert c["Z_w"] == 2 and (c["Z_w_band"]["lo"], c["Z_w_band"]["hi"]) == (1, 2)
    assert c["Z_w_band"]["bar"] == pytest.approx((0.8 / 1.1) / (1 / 0.9))
    # At ±2 %: 0.7/0.98 / (1/1.02) = 0.729 < 0.8/1.02 / (1/0.98) = 0.769 -> 2 KB alone.
    assert striping.coefficients(_two_unit_runs(0.02), KB)["Z_w_band"]["units"] == [2 * KB]
    # Each run's own precision counts: b's 1 KB run at ±10 %, the rest at ±2 %:
    # 0.7/0.9 / (1/1.02) = 0.793 >= 0.769 -> both units.
    assert striping.coefficients(_two_unit_runs(0.02, 0.10), KB)["Z_w_band"]["units"] == [KB, 2 * KB]


def test_share_of_best_reads_shares_from_response_times_and_refuses_unusable_runs():
    table = pd.DataFrame({"case": ["read-exp4KB", "read-exp4KB"], "array.stripe_unit_bytes": [KB, 2 * KB],
                          "workload.processes": [1, 1], "host.mb_per_s": [2.0, 4.0], "status": ["ok", "ok"],
                          "stop.half_width_ns": [30.0, 20.0], "stop.mean_ns": [1000.0, 500.0]})
    t = striping.share_of_best(table)
    # Little's law: at one concurrency and size, throughput is inverse to the mean response time.
    assert list(t["pct_of_best"]) == [0.5, 1.0]
    assert list(t["rel_half_width"]) == [0.03, 0.04]
    with pytest.raises(ValueError, match="stop.half_width_ns"):
        striping.share_of_best(table.drop(columns=["stop.half_width_ns"]))
    for column, values in (("stop.mean_ns", [0.0, 500.0]), ("stop.half_width_ns", [float("nan"), 20.0]),
                           ("stop.half_width_ns", [0.0, 20.0]), ("stop.half_width_ns", [2000.0, 20.0]),
                           ("host.mb_per_s", [float("nan"), 4.0])):
        with pytest.raises(ValueError, match="read-exp4KB, unit 1024 B, concurrency 1"):
            striping.share_of_best(table.assign(**{column: values}))


def test_the_study_refuses_overrides_of_what_it_controls():
    from raidsim.study.errors import StudyError

    for key in ("array.members=5", "array.stripe_unit_bytes=8192", "workload.read_fraction=0.5",
                "sim.stop.relative_half_width=0.2"):
        with pytest.raises(StudyError, match="sets .* itself"):
            striping.study("hdd-ibm-lightning", [1], [1], 17, {}, [key])
    with pytest.raises(StudyError, match="sets array.members itself"):
        hdd_stripe_unit.study(hdd_stripe_unit.spec()["tables"][0], ["array.members=3"])
    p = run_cli("reproduce", "striping-coefficients", "--quick", "--set", "array.members=5")
    assert p.returncode != 0 and "array.members" in p.stderr, p.stderr


def test_overrides_reach_every_run_and_bad_ones_are_refused():
    from raidsim.study.errors import StudyError
    from raidsim.study.spec import override_settings

    t = hdd_stripe_unit.spec()["tables"][0]
    s = hdd_stripe_unit.study(t, ["hdd.interface_sector_transfer_ns=0"])
    assert all(p.settings["hdd.interface_sector_transfer_ns"] == 0 for p in s.points())
    with pytest.raises(StudyError, match="dotted.key=value"):
        override_settings(["no-equals-sign"])


def test_reproduce_refuses_options_it_would_ignore():
    p = run_cli("reproduce", "disk-parameters", "--quick")
    assert p.returncode == 2 and "does not take --quick" in p.stderr, p.stderr
    p = run_cli("reproduce", "hdd-stripe-unit-tables", "--granularity", "page")
    assert p.returncode == 2 and "--granularity" in p.stderr, p.stderr
    p = run_cli("reproduce", "striping-coefficients", "--workers", "0")
    assert p.returncode == 2 and "--workers: 0 is not a positive number of processes" in p.stderr, p.stderr


def test_a_sweep_with_failed_points_gives_no_coefficients():
    table = pd.DataFrame({"case": ["read-exp4KB"], "array.stripe_unit_bytes": [KB], "workload.processes": [1],
                          "host.mb_per_s": [None], "status": ["failed"], "error": ["boom"]})
    with pytest.raises(ValueError, match="did not finish"):
        striping.share_of_best(table)


@pytest.fixture(scope="module")
def striping_quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("striping-quick")
    return striping.striping_coefficients(str(out), quick=True, progress=False), out


def test_striping_text_shows_each_z_band_and_whether_the_published_z_is_in_it(striping_quick):
    result, out = striping_quick
    (row,) = result["rows"]
    text = striping.striping_coefficients_text(result)
    for k in ("Z_r", "Z_w", "Z_rw"):
        lo, hi = row[f"{k}_band"]
        assert lo <= row[k] <= hi
        inside = row[f"{k}_published_unit_bytes"] / KB in row[f"{k}_band_units_kb"]
        assert row[f"{k}_published_in_band"] == inside == (row[f"{k}_published_margin"] >= 0)
        assert f"{k} {lo:.3f}-{hi:.3f} {'in' if inside else 'out'} ({100 * row[k + '_published_margin']:+.1f})" in text
    # The quick grid keeps its own directories: a full sweep beside it is not overwritten.
    assert all(p.name.endswith("-quick") for p in out.iterdir() if p.is_dir())


def test_striping_quick_reads_off_z_r_near_the_papers(striping_quick):
    result, out = striping_quick
    (row,) = result["rows"]
    assert row["disk"] == "IBM Lightning"
    # Published Z_r = 0.73 (a 24 KB unit for 17 Lightnings); the quick grid reads it to within 30 %.
    assert abs(row["Z_r"] / 0.73 - 1) <= 0.30, row
    assert row["unconverged_runs"] <= 0.05 * row["runs"]
    figures = striping.plot_striping(result, str(out))
    assert all(os.path.getsize(f) > 10_000 for f in figures)


def test_striping_cli_json_carries_the_rows_and_figure_7(striping_quick):
    result, out = striping_quick
    p = run_cli("reproduce", "striping-coefficients", "--quick", "--json", "--no-progress", "--out", str(out))
    assert p.returncode == 0, p.stderr
    printed = json.loads(p.stdout)
    assert printed["quick"] is True and printed["figure7"] == result["by_disks"]
    assert [r["Z_w_band"] for r in printed["rows"]] == [r["Z_w_band"] for r in result["rows"]]


# --- Tables 7-9 ----------------------------------------------------------------------------------

def test_per_access_counts_a_merged_chain_as_one_access():
    cols = {"case": ["d"], "workload.read_fraction": [1.0], "array.stripe_unit_bytes": [4096],
            "workload.size.mean_bytes": [8192], "host.response.mean_ns": [10e6], "stop.converged": [True],
            "host.requests": [100]}
    for i in range(5):
        # Member i served 3 requests of which 2 merged: one access of 6 ms positioning, 3 ms transfer.
        cols |= {f"devices.disk.requests[{i}]": [3], f"devices.disk.merged[{i}]": [2],
                 f"devices.disk.positioning_ns[{i}]": [6e6], f"devices.disk.transfer_ns[{i}]": [3e6]}
    t = hdd_stripe_unit.per_access(pd.DataFrame(cols), 5)
    with pytest.raises(ValueError, match="exactly 4 disks"):
        hdd_stripe_unit.per_access(pd.DataFrame(cols), 4)
    with pytest.raises(ValueError, match="exactly 5 disks"):
        hdd_stripe_unit.per_access(pd.DataFrame(cols).assign(**{"devices.disk.merged[2]": [None]}), 5)
    assert t["positioning_ms"][0] == 6.0 and t["transfer_ms"][0] == 3.0
    assert t["positioning_share_pct"][0] == 60.0


@pytest.fixture(scope="module")
def hdd_tables(tmp_path_factory):
    out = tmp_path_factory.mktemp("hdd-tables")
    return hdd_stripe_unit.hdd_stripe_unit_tables(str(out), progress=False), out


def test_hdd_tables_show_the_papers_three_observations(hdd_tables):
    rows, _ = hdd_tables
    found = {(f["drive"], f["read_fraction"]): f for f in hdd_stripe_unit.findings(rows)}
    for drive in ("hdd-cheetah-15k5", "hdd-cheetah-9lp", "hdd-atlas-iii"):
        reads = found[(drive, 1.0)]
        # Response at 8 KB flat across stripe units (within ±10 %), positioning above 75 % of it.
        assert reads["response_spread_8kb"] <= 0.20, reads
        assert reads["min_share_8kb_pct"] > 75, reads
    # Positioning below 10 % at 1600 KB for the 9LP (the Atlas III misses: see docs/reproductions/stripe-unit.md).
    assert found[("hdd-cheetah-9lp", 1.0)]["max_share_1600kb_pct"] < 10
    # Large requests are transfer-bound: for every drive and mix, the share falls with the request size.
    for f in found.values():
        assert f["max_share_1600kb_pct"] < f["min_share_8kb_pct"]


def test_hdd_tables_rows_carry_the_published_twin(hdd_tables):
    rows, out = hdd_tables
    assert len(rows) == 3 * 6 * 3 * 2, "drives x units x sizes x mixes"
    r = next(r for r in rows if r["table"] == 9 and r["stripe_unit_bytes"] == 4 * KB
             and r["mean_request_bytes"] == 1600 * KB and r["read_fraction"] == 1.0)
    assert r["transfer_ms_published"] == 88.36
    # A 1600 KB read over 4 data disks moves 400 KB a disk at the interface's 0.106 ms a sector.
    assert abs(r["transfer_ms"] / (800 * 0.106) - 1) < 0.1, r
    assert all(r["converged"] for r in rows)
    figures = hdd_stripe_unit.plot_hdd_tables(rows, str(out))
    assert [os.path.basename(f) for f in figures] == ["table7-hdd-cheetah-15k5.png", "table8-hdd-cheetah-9lp.png",
                                                      "table9-hdd-atlas-iii.png"]


def test_hdd_tables_cli_json_carries_the_rows_and_the_findings(hdd_tables):
    rows, out = hdd_tables
    p = run_cli("reproduce", "hdd-stripe-unit-tables", "--json", "--no-progress", "--out", str(out))
    assert p.returncode == 0, p.stderr
    printed = json.loads(p.stdout)
    assert len(printed["rows"]) == len(rows)
    assert printed["findings"] == json.loads(json.dumps(hdd_stripe_unit.findings(rows)))
