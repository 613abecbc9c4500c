"""`raidsim reproduce cr5m` (issue #11): the CR5M paper's Figures 8-14 beside the numbers its text quotes."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pandas as pd
import pytest

from raidsim.papers import cr5m

pytestmark = pytest.mark.slow  # reproductions or a Ray head: minutes; `pytest -m 'not slow'` skips them

PAPERS = pathlib.Path(os.environ.get("RAIDSIM_SHARED_PAPERS",
                                     pathlib.Path(__file__).resolve().parent.parent.parent / "shared" / "papers"))


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "raidsim.cli", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from conftest import SHARED_TRACES

    traces = str(SHARED_TRACES) if SHARED_TRACES.is_dir() else None
    out = tmp_path_factory.mktemp("cr5m")
    return cr5m.run(str(out), quick=True, traces_dir=traces, progress=False), out


def value(result, figure, case, metric):
    hits = [r["raidsim"] for r in result["rows"] if (r["figure"], r["case"], r["metric"]) == (figure, case, metric)]
    assert len(hits) == 1, (figure, case, metric, hits)
    return hits[0]


def test_every_published_number_is_quoted_in_the_paper_text():
    path = PAPERS / "channel-raid5-mirroring-ssd.txt"
    if not path.is_file():
        pytest.skip(f"{path} not found: the papers sit in ../shared/papers beside the project checkout")
    text = path.read_text()
    for p in cr5m.spec()["published"]:
        quoted = f"{abs(p['value']):g}%"
        assert quoted in text, p
    traces = {t["name"]: t for t in cr5m.spec()["traces"]}
    # Table 2, row by row: write share, mean size, requests per second.
    for name, row in (("Fin2", "17.7\t2\t90"), ("Build", "45.7\t6.5\t372"), ("Exchange", "46.4\t12.5\t166"),
                      ("Radius", "88.5\t6.8\t57"), ("ATTO", "47.5\t23.1\t792.4")):
        assert f"{name}\t{row}\t" in text
        t = traces[name]
        assert "\t".join(f"{x:g}" for x in (t["write_percent"], t["mean_kb"], t["requests_per_s"])) == row


def test_rows_carry_the_published_value_beside_the_measured_one(quick):
    result, _ = quick
    published = {(p["figure"], p["case"], p["metric"]): p["value"] for p in cr5m.spec()["published"]}
    # A published number the quick grid does not reach is a row too, without our value, saying so.
    assert all(set(r) - {"missing"} == {"figure", "case", "metric", "raidsim", "paper"} for r in result["rows"])
    assert all(r["raidsim"] is None for r in result["rows"] if "missing" in r)
    assert set(published) <= {(r["figure"], r["case"], r["metric"]) for r in result["rows"]}
    for r in result["rows"]:
        assert r["paper"] == published.get((r["figure"], r["case"], r["metric"])), r
    figures = {r["figure"] for r in result["rows"]}
    assert figures == {f"Figure {n}" for n in range(8, 15)}
    # The quick grid still meets the published numbers of SSD1 and of the sweeps' ends.
    assert sum(r["paper"] is not None for r in result["rows"]) >= 25


def test_improvements_are_computed_from_the_measured_response_times(quick):
    result, _ = quick
    a = value(result, "Figure 11", "write 90 %", "cr5_mean_response_ms")
    b = value(result, "Figure 11", "write 90 %", "cr5m_mean_response_ms")
    assert value(result, "Figure 11", "write 90 %", "improvement_pct") == pytest.approx(100 * (a - b) / a, rel=2e-3)
    d = value(result, "Figure 13", "write 90 %", "dor_recovery_mb_per_s")
    m = value(result, "Figure 13", "write 90 %", "mcr_recovery_mb_per_s")
    assert value(result, "Figure 13", "write 90 %", "recovery_gain_pct") == pytest.approx(100 * (m - d) / d, abs=0.05)
    copied, xor = (value(result, "Figure 13", "write 90 %", k) for k in ("strips_by_copy", "strips_by_xor"))
    assert value(result, "Figure 13", "write 90 %", "copied_pct") == pytest.approx(100 * copied / (copied + xor), abs=1e-3)
    names = [t["name"] for t in cr5m.spec()["traces"]]
    gains = [value(result, "Figure 8", f"ssd1 {n}", "improvement_pct") for n in names]
    assert value(result, "Figure 8", "ssd1 average", "improvement_pct") == pytest.approx(sum(gains) / 5, abs=1e-3)


def test_the_papers_directions_that_raidsim_reproduces(quick):
    result, _ = quick
    for name in [t["name"] for t in cr5m.spec()["traces"]]:
        # Figures 8-9: CR5M is faster and writes less parity, pre-reads less, on every trace.
        assert value(result, "Figure 8", f"ssd1 {name}", "improvement_pct") > 0
        assert value(result, "Figure 9", name, "parity_writes_saved_pct") > 0
        assert value(result, "Figure 9", name, "pre_reads_saved_pct") > 0
    # Figure 10(b): MWLimit 0 never mirrors; raising it to 1.1 lowers the response time.
    assert value(result, "Figure 10", "mw_limit 0.0", "mw_pages") == 0
    r = [value(result, "Figure 10", f"mw_limit {m}", "cr5m_mean_response_ms") for m in (0.0, 0.5, 1.1)]
    assert r[0] > r[1] > r[2]
    # Figure 10(a): past the GC threshold both slow down, CR5M less.
    assert value(result, "Figure 10", "fill 0.8", "cr5_mean_response_ms") > 5 * value(
        result, "Figure 10", "fill 0.0", "cr5_mean_response_ms")
    assert value(result, "Figure 10", "fill 0.8", "improvement_pct") > 0
    # Figure 11: the gain grows with the write share and shrinks with the request size.
    assert value(result, "Figure 11", "write 90 %", "improvement_pct") > value(result, "Figure 11", "write 10 %", "improvement_pct")
    assert value(result, "Figure 11", "size 4 KB", "improvement_pct") > value(result, "Figure 11", "size 64 KB", "improvement_pct")
    # Figure 13(c): more writes, more strips copied (the failed chip holds the span's data).
    assert value(result, "Figure 13", "write 90 %", "copied_pct") > 3 * value(result, "Figure 13", "write 10 %", "copied_pct")


def test_figures_are_written_and_a_rerun_reuses_every_point(quick, tmp_path):
    result, out = quick
    paths = cr5m.plot(result, str(tmp_path))
    assert sorted(os.path.basename(p) for p in paths) == [f"figure{n}.png" for n in range(10, 15)] + ["figure8.png", "figure9.png"]
    assert all(os.path.getsize(p) > 10_000 for p in paths)
    again = cr5m.run(str(out), quick=True, traces_dir=result["traces_dir"], progress=False)
    assert again["rows"] == result["rows"]


def test_shared_traces_run_where_present_and_are_named_where_absent(quick, tmp_path):
    result, _ = quick
    cases = {r["case"] for r in result["rows"] if r["figure"] == "Figure 12"}
    if result["traces_dir"] is None:
        pytest.skip("../shared/traces not found: the shared-trace cases cannot run here")
    assert {"ssdsim-example", "msr-hm0", "disksim-valid"} <= cases
    assert result["missing_traces"] == []
    assert cr5m.shared_traces(str(tmp_path)) == {}


def test_cli_json_and_refused_options(quick):
    result, out = quick
    run = run_cli("reproduce", "cr5m", "--quick", "--json", "--no-progress", "--out", str(out),
                  *(["--traces", result["traces_dir"]] if result["traces_dir"] else []))
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout)
    if result["traces_dir"]:
        assert rows == result["rows"]
    bad = run_cli("reproduce", "cr5m", "--granularity", "page")
    assert bad.returncode == 2 and "does not take --granularity" in bad.stderr
    for wrong in ("/nonexistent", __file__):
        refused = run_cli("reproduce", "cr5m", "--quick", "--no-progress", "--out", str(out), "--traces", wrong)
        assert refused.returncode == 2 and f"--traces {wrong}: not a directory" in refused.stderr, refused.stderr
    empty = out / "no-traces"
    empty.mkdir(exist_ok=True)
    text = run_cli("reproduce", "cr5m", "--quick", "--no-progress", "--out", str(out), "--traces", str(empty))
    assert text.returncode == 0, text.stderr
    assert f"Shared traces not found in {empty}, skipped: ssdsim-example.ascii" in text.stdout
    assert "Figure 14" in text.stdout and "figure14.png" in text.stdout
    assert pd.DataFrame(rows)["figure"].nunique() == 7


def test_the_text_fits_an_80_column_terminal_and_keeps_every_cell(quick):
    from conftest import assert_fits_and_keeps

    result, out = quick
    run = subprocess.run([sys.executable, "-m", "raidsim.cli", "reproduce", "cr5m", "--quick", "--no-progress",
                          "--out", str(out), *(["--traces", result["traces_dir"]] if result["traces_dir"] else [])],
                         capture_output=True, text=True, env={**os.environ, "COLUMNS": "80"})
    assert run.returncode == 0, run.stderr
    assert_fits_and_keeps(run.stdout, cr5m.text(result), 80)
    # The cases the quick grid leaves out (SSD2's, SSD3's) are in no table of cases; their published numbers
    # say "not run".
    assert not re.search(r"^ssd2 Radius +- +- +-$", run.stdout, re.M)
    assert re.search(r"^ssd2 average +improvement_pct +not run +19.4$", run.stdout, re.M)
