"""The disk presets against real drives' measured responses (`raidsim reproduce disk-validation`).

DiskSim's validation traces (`valid/cheetah9LP.trace`, `valid/atlas_III.trace` of
github.com/benh/disksim) are not ours to ship: set RAIDSIM_DISKSIM_VALID to a checkout's
`valid/` folder to hold the presets against them; without it those tests skip, saying so.
Recorded (`raidsim reproduce disk-validation --traces DIR`, closed loop as DiskSim replays
them, each drive's cache as it was measured): Cheetah 9LP read 5.719 ms against 5.804
measured, write 1.304 against 1.308, demerit 0.116 ms (DiskSim 0.107); Atlas III read 8.835
against 9.044, write 1.086 against 1.104, demerit 0.311 (DiskSim 0.378); the Cheetah 15K.5
(its DIXtrac tarball's random.trace, cache off) read 6.019 against 6.006, write 6.446
against 6.353, demerit 0.278 (DiskSim 0.297).
The other tests run the reproduction on small traces of the
same format written here.
"""

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import raidsim
from raidsim.papers import disk_validation as dv
from raidsim.papers import paper_traces
from raidsim.papers.reproduce_all import RunContext

VALID = Path(os.environ.get("RAIDSIM_DISKSIM_VALID", "/nonexistent"))
HAVE_VALID = (VALID / "cheetah9LP.trace").is_file()
NEED_VALID = pytest.mark.skipif(
    not HAVE_VALID,
    reason="DiskSim's validation traces are not here: set RAIDSIM_DISKSIM_VALID to a benh/disksim checkout's valid/")


def cli(*args):
    return subprocess.run([sys.executable, "-m", "raidsim.cli", *args], capture_output=True, text=True)


def write_trace(path, n=120):
    """A trace in DiskSim's validation format: reads scattered over the disk, 4 KB writes at one place; the
    'measured' times are made up (5 ms a read, 1 ms a write), so the reproduction must warn it is not DiskSim's."""
    rng = np.random.default_rng(7)
    lines = []
    for i in range(n):
        if i % 3 == 2:
            lines.append(f"W Hit {1_000_000 + 8 * i} 8 1000.0 30000.0")
        else:
            lines.append(f"R Hit {int(rng.integers(0, 17_000_000))} 4 5000.0 30000.0")
    path.write_text("\n".join(lines) + "\n")
    return path


@NEED_VALID
@pytest.mark.parametrize("drive", dv.spec()["drives"], ids=lambda d: d["trace"])
def test_preset_matches_the_measured_drive(drive):
    given = RunContext("", traces_dir=str(VALID)).given_traces(dv.NAME)
    if drive["trace"] not in given:
        pytest.skip(f"{drive['trace']}'s trace is not in {VALID} (the 15K.5's random.trace is in its DIXtrac tarball)")
    trace = given[drive["trace"]].path
    ops, real = dv.measured(trace)
    assert real[ops == "R"].mean() == pytest.approx(drive["measured_read_ms"], abs=1e-4)
    assert real[ops == "W"].mean() == pytest.approx(drive["measured_write_ms"], abs=1e-4)
    as_measured = f"hdd.cache.enabled={str(drive['cache']).lower()}"
    ours = dv.replay(trace, drive["preset"], [as_measured])
    for op in ("R", "W"):
        assert abs(ours[ops == op].mean() / real[ops == op].mean() - 1) < 0.10, op
    assert dv.demerit_ms(real, ours) <= 2 * drive["disksim_demerit_ms"]
    if drive["cache"]:  # without its cache the drive's writes are several times slower than measured
        off = dv.replay(trace, drive["preset"], ["hdd.cache.enabled=false"])
        assert off[ops == "W"].mean() > 4 * real[ops == "W"].mean()


def test_demerit_is_zero_for_one_distribution_and_the_shift_for_a_shifted_one():
    x = np.random.default_rng(1).exponential(5.0, 10_000)
    assert dv.demerit_ms(x, x) == 0.0
    assert dv.demerit_ms(x, x + 0.25) == pytest.approx(0.25)
    # The distance between distributions, not between requests: the same times in another order are 0 apart.
    assert dv.demerit_ms(x, x[::-1]) == 0.0


def test_the_measured_times_are_the_traces_service_column_and_a_bad_line_names_file_and_line(tmp_path):
    t = tmp_path / "t.trace"
    t.write_text("R Hit 10 4 1500.0 100.0\nW Hit 20 8 250.0 100.0\n\nR Hit 30 4 2500.0 0.0\n")
    ops, ms = dv.measured(str(t))
    assert list(ops) == ["R", "W", "R"] and list(ms) == [1.5, 0.25, 2.5]
    t.write_text("R Hit 10 4 1500.0 100.0\nX Hit 20 8 250.0 100.0\n")
    with pytest.raises(paper_traces.TraceError, match=r"t\.trace, line 2: expected `R\|W buffer"):
        dv.measured(str(t))


def test_a_folder_with_the_drives_model_files_finds_its_trace_by_full_name(tmp_path):
    for ext in ("diskspecs", "model", "seek"):
        (tmp_path / f"cheetah9LP.{ext}").write_text("not a trace\n")
    write_trace(tmp_path / "cheetah9LP.trace")
    given = RunContext("", traces_dir=str(tmp_path)).given_traces(dv.NAME)
    assert set(given) == {"cheetah9LP"} and given["cheetah9LP"].path == str(tmp_path / "cheetah9LP.trace")
    # Compressed, it is found the same.
    gz = tmp_path / "gz"
    gz.mkdir()
    (gz / "cheetah9LP.model").write_text("not a trace\n")
    with gzip.open(gz / "atlas_III.trace.gz", "wt") as f:
        f.write((tmp_path / "cheetah9LP.trace").read_text())
    given = RunContext("", traces_dir=str(gz)).given_traces(dv.NAME)
    assert set(given) == {"atlas_III"}


def test_rows_set_each_operations_mean_beside_the_measured_one(tmp_path):
    trace = write_trace(tmp_path / "cheetah9LP.trace")
    given = RunContext("", traces_dir=str(tmp_path)).given_traces(dv.NAME)
    result = dv.run(given=given, phases=2)
    rows = {(r["figure"], r["metric"]): r for r in dv.row_args(result)}
    # An independent replay: the request log's own operation column, not the trace's order.
    log = tmp_path / "log.parquet"
    raidsim.simulate("hdd-cheetah-9lp", raidsim.Workload.trace(str(trace), replay="closed"),
                     overrides=[f"metrics.request_log={log}", "array.level=single"], progress=False)
    table = pq.read_table(log).to_pandas()
    for op, metric in (("R", "mean read response"), ("W", "mean write response")):
        r = rows[("cheetah9LP", metric)]
        expected = table[table["op"] == op]["response_ns"].mean() / 1e6
        assert r["raidsim"] == pytest.approx(expected) and not r["not_run"]
    assert rows[("cheetah9LP", "mean write response")]["raidsim"] < rows[("cheetah9LP", "mean read response")]["raidsim"]
    # The demerit of the same responses against the trace's own measured times (every third line a 1 ms
    # write, the rest 5 ms reads), by numpy's quantiles at every 0.01 %.
    real = np.array([1.0 if i % 3 == 2 else 5.0 for i in range(120)])
    ours = table.sort_values("arrival_ns")["response_ns"].to_numpy() / 1e6
    p = np.arange(1, 10001) / 10000
    expected = np.sqrt(np.mean((np.quantile(real, p) - np.quantile(ours, p)) ** 2))
    assert rows[("cheetah9LP", "demerit")]["raidsim"] == pytest.approx(expected, abs=1e-4)
    assert rows[("cheetah9LP", "demerit, highest over 2 platter phases")]["raidsim"] == max(
        result["drives"]["cheetah9LP"]["phase_demerits"])
    # The caches off: writes go to the media.
    assert rows[("cheetah9LP", "mean write response, caches off")]["raidsim"] > 3 * rows[("cheetah9LP", "mean write response")]["raidsim"]
    # The Atlas III's trace was not given: its rows are not run, and say how to give it.
    assert all(r["not_run"] and "--trace atlas_III=PATH" in r["note"] for (f, _), r in rows.items() if f == "atlas_III")
    # Made-up measured times are not DiskSim's trace: the notes say so, and no row is judged against its numbers.
    assert any(n.startswith("warning: cheetah9LP: the trace's measured mean read response is 5.0000 ms")
               for n in result["notes"])
    assert all(r["published"] is None and "not DiskSim's" in r["note"] for (f, _), r in rows.items() if f == "cheetah9LP")


def test_a_closed_replay_issues_each_request_the_traces_idle_time_after_the_last_completes(tmp_path):
    trace = write_trace(tmp_path / "t.trace", n=30)
    log = tmp_path / "log.parquet"
    raidsim.simulate("hdd-cheetah-9lp", raidsim.Workload.trace(str(trace), replay="closed"),
                     overrides=[f"metrics.request_log={log}", "array.level=single"], progress=False)
    t = pq.read_table(log).to_pandas().sort_values("arrival_ns")
    # Every line's idle time is 30,000 us: each issue 30 ms after the previous completion, to the ns.
    gaps = t["arrival_ns"].to_numpy()[1:] - t["completion_ns"].to_numpy()[:-1]
    assert (gaps == 30_000_000).all() and t["arrival_ns"].iloc[0] == 0


def test_the_right_trace_is_judged_against_the_published_numbers(tmp_path):
    # A trace whose measured means are DiskSim's (to the study file's 4 decimals): judged, not refused.
    d = dv.spec()["drives"][0]
    lines = [f"R Hit {8 * i} 8 {d['measured_read_ms'] * 1000:.1f} 20000.0" for i in range(50)]
    lines += [f"W Hit {100_000 + 8 * i} 8 {d['measured_write_ms'] * 1000:.1f} 20000.0" for i in range(50)]
    (tmp_path / "cheetah9LP.trace").write_text("\n".join(lines) + "\n")
    given = RunContext("", traces_dir=str(tmp_path)).given_traces(dv.NAME)
    rows = {r["metric"]: r for r in dv.row_args(dv.run(given=given, phases=0)) if r["figure"] == "cheetah9LP"}
    assert rows["mean read response"]["published"] == d["measured_read_ms"]
    assert rows["demerit"]["published"] == d["disksim_demerit_ms"]
    from raidsim.papers import catalog
    from raidsim.papers.reproduce_all import judged
    from raidsim.papers.rows import row

    rules = {r["metric"]: r["tolerance"] for r in judged(catalog.entry(dv.NAME), [row(**a) for a in rows.values()])}
    assert rules["demerit"] == "≤ 2× bound" and rules["mean read response"] == "±10 %"


def test_cli_refuses_to_run_without_the_traces_and_says_where_they_are():
    p = cli("reproduce", "disk-validation", "--traces", str(Path(__file__).parent))
    assert p.returncode == 2 and "--traces DIR" in p.stderr and "github.com/benh/disksim" in p.stderr
    assert "random.trace" in p.stderr, "the 15K.5's trace is named too"


def test_cli_judges_the_rows_of_a_given_trace(tmp_path):
    write_trace(tmp_path / "atlas_III.trace")
    p = cli("reproduce", "disk-validation", "--trace", f"atlas_III={tmp_path / 'atlas_III.trace'}", "--quick", "--json",
            "--out", str(tmp_path / "out"))
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    atlas = {r["metric"]: r for r in rows if r["figure"] == "atlas_III"}
    assert set(atlas) == {"mean read response", "mean write response", "demerit", "mean read response, caches off",
                          "mean write response, caches off", "demerit, caches off"}  # --quick: no phases
    assert {r["verdict"] for r in rows if r["figure"] == "cheetah9LP"} == {"not run"}
    assert "not DiskSim's validation trace" in p.stderr
    assert {r["verdict"] for r in rows if r["figure"] == "atlas_III"} == {"—"}, "another trace is not judged"
    assert (tmp_path / "out" / "disk-validation-cdf.png").is_file()


def test_at_most_with_a_factor_bounds_raidsim_by_that_multiple_of_the_published_value():
    from raidsim.papers.catalog import GAP, PASS, CatalogError, Rule, judge

    twice = Rule("at_most", {"factor": 2.0})
    assert judge(0.214, 0.107, twice) == PASS and judge(0.2141, 0.107, twice) == GAP
    assert judge(0.108, 0.107, Rule("at_most")) == GAP  # without it, the published value itself
    with pytest.raises(CatalogError, match="above 0"):
        Rule("at_most", {"factor": 0})
