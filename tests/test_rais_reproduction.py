"""`raidsim reproduce rais --quick` (issue #12): every figure and table has
rows, every published number sits beside ours, and the paper's findings
that the acceptance names hold in the simulation."""

import json
import os
import re
import subprocess
import sys

import pytest

from raidsim.papers import rais

pytestmark = pytest.mark.slow  # reproductions or a Ray head: minutes; `pytest -m 'not slow'` skips them



@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("rais")
    return out, rais.run(str(out), quick=True, progress=False)


def _value(rows, figure, case, metric):
    found = [r["raidsim"] for r in rows if (r["figure"], r["case"], r["metric"]) == (figure, case, metric)]
    assert len(found) == 1, (figure, case, metric, found)
    return found[0]


def test_every_figure_and_table_has_rows_and_every_published_number_is_used(result):
    _, res = result
    rows = res["rows"]
    assert {r["figure"] for r in rows} == ({f"Figure {i}" for i in range(1, 8)} | {f"Table {i}" for i in range(3, 7)}
                                            | {rais.HARMONIA, rais.READ_AHEAD})
    # A published number the quick grid does not reach is a row too, without our value, saying so.
    assert all(set(r) - {"missing"} == {"figure", "case", "metric", "raidsim", "paper"} for r in rows)
    assert all(r["raidsim"] is None for r in rows if "missing" in r)
    keyed = {(r["figure"], r["case"], r["metric"]) for r in rows if r["paper"] is not None}
    assert set(rais.published()) <= keyed


def test_published_tables_3_and_4_are_the_papers(rais_paper_text):
    text = rais_paper_text
    sp = rais.spec()
    for label in ("SSD(A)", "SSD(B)"):
        for key in ("avg", "stdev"):
            assert "\t".join(str(v) for v in sp["table3"][label][key]) in text, (label, key)
    for key, values in sp["table4"].items():
        if key != "levels":
            for stat in ("avg", "stdev"):
                assert "\t".join(str(v) for v in values[stat]) in text, (key, stat)
    # The text gives the arrays' ranges in GB/s.
    in_gb = {1000: "1 GB/s", 1150: "1.15 GB/s", 1200: "1.2 GB/s", 1500: "1.5 GB/s"}
    for p in sp["published"]:
        v = p["value"]
        said = in_gb.get(v) if p["figure"] == "Figure 6" else None
        assert (said in text) if said else re.search(rf"(?<![\d.,])({v:,}|{v})(?![\d])", text), p


def test_single_drive_peaks_are_within_15_percent(result):
    _, res = result
    peaks = [r for r in res["rows"] if r["metric"] == "peak_mb_per_s" and r["figure"] == "Figure 1"]
    assert len(peaks) == 6
    for r in peaks:
        assert abs(r["raidsim"] / r["paper"] - 1) <= 0.15, r


def test_raid5_and_6_random_writes_stay_flat_while_raid0_scales(result):
    _, res = result
    rows = res["rows"]
    for tag in ("A", "B"):
        assert _value(rows, "Figure 4", f"RAIS-0({tag}) random write", "iops_qd64_over_qd1") > 2.0
        for scheme in ("RAIS-5", "RAIS-6"):
            assert _value(rows, "Figure 4", f"{scheme}({tag}) random write", "iops_qd64_over_qd1") < 1.2
        for scheme in ("RAIS-0", "RAIS-5", "RAIS-6"):
            assert _value(rows, "Figure 4", f"{scheme}({tag}) random read", "iops_qd64_over_qd1") > 5.0


def test_cost_efficiency_keeps_figure_7s_orderings(result):
    _, res = result
    rows = res["rows"]
    at = lambda name, reads: _value(rows, "Figure 7", f"{name}, {reads} % reads", "iops_per_usd_vs_rais0b")
    # Write-dominant random work: SSD(C) leads, RAIS-0(A) trails.
    assert at("SSD(C)", 0) > at("RAIS-0(B)", 0) > at("RAIS-0(A)", 0)
    # Read-dominant: RAIS-0(A) has about twice SSD(C)'s IOPS per dollar (the text: "twice").
    assert 1.5 < at("RAIS-0(A)", 100) / at("SSD(C)", 100) < 3.5
    gb = {n: _value(rows, "Figure 7", n, "gb_per_usd_vs_rais0b") for n in ("RAIS-0(A)", "RAIS-0(B)", "SSD(C)")}
    assert max(gb, key=gb.get) == "RAIS-0(A)"


def test_the_cli_prints_the_same_rows_as_json_and_draws_the_figures(result):
    out, res = result
    cmd = [sys.executable, "-m", "raidsim.cli", "reproduce", "rais", "--quick", "--json", "--no-progress", "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == json.loads(json.dumps(res["rows"]))
    for name in ("figure1", "figure2", "figure3", "figure4", "figure5-6", "figure7", "harmonia", "read-ahead"):
        assert (out / f"{name}.png").stat().st_size > 10_000, name


def test_the_text_fits_an_80_column_terminal_and_keeps_every_cell(result):
    from conftest import assert_fits_and_keeps

    out, res = result
    cmd = [sys.executable, "-m", "raidsim.cli", "reproduce", "rais", "--quick", "--no-progress", "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, env={**os.environ, "COLUMNS": "80"})
    assert_fits_and_keeps(done.stdout, rais.text(res), 80)
    # A published number the quick grid does not reach says so, not NaN; a figure's points and its summary
    # measures (no measure in common) are two tables, not one with a column of blanks each.
    assert re.search(r"^Table 5 +RAIS-0\(A\), 20 % reads +iops +not run +13,827$", done.stdout, re.M)
    assert "Figure 2 (no published number): iops_qd64_over_qd1" in done.stdout


def test_harmonia_changes_how_aged_arrays_collect(result):
    _, res = result
    rows = res["rows"]
    for tag in ("A", "B"):
        for scheme in ("RAIS-0", "RAIS-5", "RAIS-6"):
            local = _value(rows, rais.HARMONIA, f"{scheme}({tag}) aged, local collection", "avg_mb_per_s")
            both = _value(rows, rais.HARMONIA, f"{scheme}({tag}) aged, global collection", "avg_mb_per_s")
            assert local > 0 and both > 0 and local != both, (scheme, tag, local, both)
    # Parity arrays wait for every member a stripe touches: collecting together serves them faster.
    assert (_value(rows, rais.HARMONIA, "RAIS-5(B) aged, global collection", "avg_mb_per_s")
            > _value(rows, rais.HARMONIA, "RAIS-5(B) aged, local collection", "avg_mb_per_s"))


def test_table_3_runs_on_drives_that_collect_garbage(result):
    # Figures 5-6 run on drives in the steady state of their sequential
    # work: collection runs on every single drive at every write share.
    _, res = result
    for r in res["rows"]:
        if r["figure"] == "Table 3" and r["metric"] == "gc_runs":
            assert r["raidsim"] > 0, r


def test_read_ahead_serves_sequential_reads_from_the_cache_and_costs_random_ones(result):
    _, res = result
    rows = res["rows"]
    ctl = rais.spec()["controller"]
    at = lambda case: _value(rows, rais.READ_AHEAD, case, "mb_per_s")
    for level in ("RAIS-0(A)", "RAIS-5(A)"):
        # Every 4 KiB sequential read at depth 1 is a hit: the controller's
        # overhead and the data's way over the host link, nothing else.
        hit_ns = ctl["array.controller.overhead_ns"] + 4096 / ctl["array.controller.host_link_bytes_per_s"] * 1e9
        closed_form = 4096 / hit_ns * 1e3
        for policy in ("adaptive", "always"):
            got = at(f"{level} sequential 4 KiB reads, depth 1, read-ahead {policy}")
            assert abs(got / closed_form - 1) < 0.01, (level, policy, got, closed_form)
        assert at(f"{level} sequential 4 KiB reads, depth 1, read-ahead off") < closed_form / 5
        # Random reads: adaptive never reads ahead; always reads a stripe per 4 KiB.
        off = at(f"{level} random 4 KiB reads, depth 16, read-ahead off")
        assert at(f"{level} random 4 KiB reads, depth 16, read-ahead adaptive") == pytest.approx(off, rel=1e-9)
        assert at(f"{level} random 4 KiB reads, depth 16, read-ahead always") < off / 4
