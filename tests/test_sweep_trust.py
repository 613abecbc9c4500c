"""Sweep results a user can trust (issue #8): identity, metric paths, durability, locking, spec errors."""

import contextlib
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

import raidsim
from raidsim import Config, units
from raidsim.cli import main
from raidsim.papers.packaged import packaged_study
from raidsim.study import journal, local, metrics, plots
from raidsim.study.errors import AnotherStudysResults, PointsFailed, StudyError, SweepLocked
from raidsim.study.journal import JOURNAL
from raidsim.study.spec import Study
from raidsim.study.sweep import run_study

REPO = pathlib.Path(__file__).resolve().parent.parent

SYNTHETIC = 'workload = { kind = "synthetic", requests = 300, read_fraction = 0.0 }'
SPEC = f"""
name = "tiny"
metrics = ["host.requests", "host.response.mean_ns", "array.parity_pages_written"]
[base]
preset = "erasure-code-table6"
{SYNTHETIC}
[[cases]]
name = "raid5"
set = {{ "array.level" = "raid5", "array.members" = 4 }}
[axes]
"array.stripe_unit_bytes" = [4096, 16384]
"array.write_method" = ["auto", "rmw"]
"""

# Twelve points of about a fifth of a second each: long enough to be killed, or locked out, midway.
SLOW_SPEC = """
name = "slow"
metrics = ["host.requests", "host.response.mean_ns", "array.extra_page_reads", "devices.pages_written.user"]
[base]
preset = "erasure-code-table6"
workload = { kind = "synthetic", requests = 60000, read_fraction = 0.0 }
[[cases]]
name = "raid5"
set = { "array.level" = "raid5", "array.members" = 4 }
[axes]
"array.stripe_unit_bytes" = [4096, 8192, 16384, 65536]
"array.write_method" = ["auto", "rmw", "rcw"]
"""


def write_trace(path, requests):
    """An MSR-Cambridge CSV trace of 4 KiB writes."""
    lines = [f"{128166372000000000 + i * 10000},hm,0,Write,{i * 4096},4096,100" for i in range(requests)]
    path.write_text("\n".join(lines) + "\n")


def spec_file(tmp_path, text, name="spec.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def journal_records(out):
    """The journal's point ids, one per complete line (a torn last line is left out)."""
    path = out / JOURNAL
    if not path.exists():
        return []
    return [json.loads(line.rsplit("\t", 1)[0])["point_id"] for line in path.read_text().splitlines(keepends=True)
            if line.endswith("\n")]


class CountingRuns:
    """Stands in for `_run_point` in-process (workers=1), counting runs; may interrupt one."""

    def __init__(self, interrupt_at=None):
        self.calls, self.interrupt_at, self.real = 0, interrupt_at, local.run_point

    def __call__(self, layers, metrics):
        self.calls += 1
        if self.calls == self.interrupt_at:
            raise KeyboardInterrupt
        return self.real(layers, metrics)


# --- 1. a point's identity is everything that decides its result --------------------------------

def edit(path, old, new):
    path.write_text(path.read_text().replace(old, new))


CHANGES = {
    "base": lambda spec, trace: edit(spec, "requests = 300", "requests = 200"),
    "trace": lambda spec, trace: write_trace(trace, 70),
    "metrics": lambda spec, trace: edit(spec, '"host.requests",', '"host.requests", "host.writes",'),
}


@pytest.mark.parametrize("change", ["base", "trace", "metrics", "version"])
def test_rerun_recomputes_points_whose_inputs_changed_and_says_so(tmp_path, capsys, monkeypatch, change):
    trace = tmp_path / "t.csv"
    write_trace(trace, 50)
    replay = f'workload = {{ kind = "trace", path = "{trace}" }}'
    spec = spec_file(tmp_path, SPEC.replace(SYNTHETIC, replay) if change == "trace" else SPEC)
    out = tmp_path / "out"
    run_study(Study.from_file(spec), out, workers=1, progress=False)
    capsys.readouterr()
    if change == "version":
        monkeypatch.setattr(raidsim, "__version__", raidsim.__version__ + ".post1")
    else:
        CHANGES[change](spec, trace)
    df = run_study(Study.from_file(spec), out, workers=1, progress=False)
    assert "4 points changed since the last run: recomputing" in capsys.readouterr().err
    if change == "base":
        assert (df["host.requests"] == 200).all()
    if change == "trace":
        assert (df["host.requests"] == 70).all()
    if change == "metrics":
        assert (df["host.writes"] == 300).all()


# --- 2. a metric path that does not exist is an error ----------------------------------------------

def test_unknown_metric_is_an_error_naming_the_nearest_paths_before_any_point_runs(tmp_path, capsys):
    spec = spec_file(tmp_path, SPEC.replace('"host.requests"', '"host.iopz"'))
    out = tmp_path / "out"
    with pytest.raises(StudyError, match=r"`host\.iopz` is not a path in the report; nearest: host\.iops"):
        run_study(Study.from_file(spec), out, workers=1, progress=False)
    assert journal_records(out) == [] and not list((out / "configs").glob("*.toml"))
    table = spec_file(tmp_path, SPEC.replace('"host.requests"', '"host.response"'), "table.toml")
    with pytest.raises(StudyError, match=r"`host\.response` is a table, not a value; pick from host\.response\.count"):
        run_study(Study.from_file(table), out, workers=1, progress=False)
    # The command line: one line naming the path, exit 1 (a bad spec is bad input).
    assert main(["sweep", str(spec), "--out", str(out), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "host.iopz" in err and "host.iops" in err and err.strip().count("\n") == 0


def test_valid_metrics_still_work_lists_nested_lists_and_causes_absent_from_a_run(tmp_path):
    metrics = ["array.extra_page_reads", "devices.pages_written.user", "devices.pages_read.rebuild_read",
               "array.row_parity.pages_written", "devices.erase_count.histogram.counts"]
    spec = spec_file(tmp_path, re.sub(r"metrics = \[.*\]", f"metrics = {json.dumps(metrics)}", SPEC))
    df = run_study(Study.from_file(spec), tmp_path / "out", workers=1, progress=False)
    assert {"array.extra_page_reads[3]", "devices.pages_written.user[3]", "devices.pages_read.rebuild_read[0]",
            "array.row_parity.pages_written", "devices.erase_count.histogram.counts[3][0]"} <= set(df.columns)
    assert (df["devices.pages_written.user[0]"] > 0).all() and (df["devices.pages_read.rebuild_read[0]"] == 0).all()


def test_cause_names_match_the_core():
    source = REPO / "crates" / "raidsim-core" / "src" / "device" / "mod.rs"
    if not source.exists():
        pytest.skip(f"{source} not found: the Rust sources are not beside this package")
    names = re.findall(r'Cause::\w+ => "(\w+)"', source.read_text())
    assert names and set(names) == set(units.CAUSES)


# --- 3. durability -------------------------------------------------------------------------------

def test_interrupted_sweep_keeps_finished_points_and_reruns_only_the_rest(tmp_path, monkeypatch):
    spec = spec_file(tmp_path, SPEC)
    out = tmp_path / "out"
    monkeypatch.setattr(local, "run_point", CountingRuns(interrupt_at=3))
    with pytest.raises(KeyboardInterrupt):
        run_study(Study.from_file(spec), out, workers=1, progress=False)
    assert len(journal_records(out)) == 2
    assert len(pd.read_csv(out / "results.csv")) == 2  # what finished is visible at once
    runs = CountingRuns()
    monkeypatch.setattr(local, "run_point", runs)
    df = run_study(Study.from_file(spec), out, workers=1, progress=False)
    assert runs.calls == 2 and len(df) == 4 and (df["status"] == "ok").all()
    fresh = run_study(Study.from_file(spec), tmp_path / "fresh", workers=1, progress=False)
    assert (out / "results.csv").read_bytes() == (tmp_path / "fresh" / "results.csv").read_bytes()
    assert list(fresh["point_id"]) == [p.point_id for p in Study.from_file(spec).points()]


def test_failed_point_is_recorded_the_others_finish_and_a_rerun_retries_it(tmp_path, capsys):
    good, missing = tmp_path / "good.csv", tmp_path / "later.csv"
    write_trace(good, 40)
    spec = spec_file(tmp_path, SPEC.replace(SYNTHETIC, 'workload = { kind = "trace" }').replace(
        '"array.write_method" = ["auto", "rmw"]', f'"workload.path" = ["{good}", "{missing}"]'))
    out = tmp_path / "out"
    assert main(["sweep", str(spec), "--out", str(out), "--workers", "2", "--no-progress"]) == 3  # could not finish
    err = capsys.readouterr().err
    assert "2 of 4 points failed" in err and "later.csv" in err and "InputError" in err and "Traceback" not in err
    df = pd.read_csv(out / "results.csv")
    assert list(df["status"]) == ["ok", "failed", "ok", "failed"]
    assert df["error"][1].startswith("InputError:") and (df["host.requests"][[0, 2]] == 40).all()
    ok_configs = {p: p.stat().st_mtime_ns for p in (out / "configs").glob("*.toml")}
    assert len(ok_configs) == 2
    # Unchanged inputs: the failed points are retried (and fail again), the finished ones are not rerun.
    with pytest.raises(PointsFailed, match="later.csv"):
        run_study(Study.from_file(spec), out, workers=1, progress=False)
    assert "2 points failed in the last run: retrying" in capsys.readouterr().err
    assert {p: p.stat().st_mtime_ns for p in ok_configs} == ok_configs
    write_trace(missing, 30)
    df = run_study(Study.from_file(spec), out, workers=1, progress=False)
    assert (df["status"] == "ok").all() and list(df["host.requests"]) == [40, 30, 40, 30]


def test_torn_or_corrupt_rows_are_rejected_and_their_points_recomputed(tmp_path, capsys, monkeypatch):
    spec = spec_file(tmp_path, SPEC)
    out = tmp_path / "out"
    run_study(Study.from_file(spec), out, workers=1, progress=False)
    before = (out / "results.csv").read_bytes()
    lines = (out / JOURNAL).read_text().splitlines(keepends=True)
    lines[0] = lines[0].replace('"host.requests": 300', '"host.requests": 301')  # a value changed under its checksum
    lines[-1] = lines[-1][: len(lines[-1]) // 2]  # a line cut short by a kill
    (out / JOURNAL).write_text("".join(lines))
    runs = CountingRuns()
    monkeypatch.setattr(local, "run_point", runs)
    run_study(Study.from_file(spec), out, workers=1, progress=False)
    assert runs.calls == 2
    assert "2 incomplete or corrupt rows ignored" in capsys.readouterr().err
    assert (out / "results.csv").read_bytes() == before
    assert sorted(journal_records(out)) == sorted(p.point_id for p in Study.from_file(spec).points())


# --- 4. one sweep per output directory ----------------------------------------------------------

def sweep_process(spec, out, *extra, **popen):
    return subprocess.Popen([sys.executable, "-m", "raidsim.cli", "sweep", str(spec), "--out", str(out), "--no-progress",
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def wait_for_rows(out, proc, rows, timeout=120.0):
    """Waits until `rows` points are in the journal; fails if the sweep ends first."""
    deadline = time.monotonic() + timeout
    while len(journal_records(out)) < rows:
        assert proc.poll() is None, f"the sweep ended before {rows} rows appeared: {proc.communicate()}"
        assert time.monotonic() < deadline, "no rows appeared"
        time.sleep(0.02)


def test_second_sweep_on_the_same_out_fails_naming_the_directory(tmp_path, capsys):
    spec = spec_file(tmp_path, SLOW_SPEC)
    out = tmp_path / "out"
    first = sweep_process(spec, out, "--workers", "1")
    try:
        wait_for_rows(out, first, 1)
        with pytest.raises(SweepLocked, match=re.escape(str(out))):
            run_study(Study.from_file(spec), out, workers=1, progress=False)
        assert main(["sweep", str(spec), "--out", str(out), "--no-progress"]) == 3  # could not finish
        assert f"{out} is in use by another sweep" in capsys.readouterr().err
        assert first.poll() is None, "the first sweep ended before the second tried: the check proved nothing"
    finally:
        stdout, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    df = pd.read_csv(out / "results.csv")
    assert len(df) == 12 and (df["status"] == "ok").all()


# --- 5. acceptance: kill -9 midway, rerun, same results ----------------------------------------------

def test_sweep_killed_midway_and_rerun_gives_the_same_results(tmp_path):
    spec = spec_file(tmp_path, SLOW_SPEC)
    whole = sweep_process(spec, tmp_path / "whole", "--workers", "2")
    _, stderr = whole.communicate(timeout=300)
    assert whole.returncode == 0, stderr
    out = tmp_path / "killed"
    victim = sweep_process(spec, out, "--workers", "2", start_new_session=True)
    try:
        wait_for_rows(out, victim, 2)
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        finished = journal_records(out)
        assert 2 <= len(finished) < 12, "killed too late to test anything"
        kept = {p: (out / "configs" / f"{p}.toml").stat().st_mtime_ns for p in finished}
        # Its workers may still be finishing a point; the rerun must not wait for them or be locked out.
        rerun = sweep_process(spec, out, "--workers", "2")
        _, stderr = rerun.communicate(timeout=300)
        assert rerun.returncode == 0, stderr
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(victim.pid, signal.SIGKILL)  # whatever of the killed sweep is left
    assert (out / "results.csv").read_bytes() == (tmp_path / "whole" / "results.csv").read_bytes()
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"),
                                  pd.read_parquet(tmp_path / "whole" / "results.parquet"))
    # Exactly the finished points were skipped: their configs were not rewritten.
    assert {p: (out / "configs" / f"{p}.toml").stat().st_mtime_ns for p in finished} == kept


# --- 6. a malformed spec is a one-line error naming the key ------------------------------------------

@pytest.mark.parametrize("bad, named", [
    ('"array.stripe_unit_bytes" = 4096', 'axis `axes."array.stripe_unit_bytes"` must be a non-empty list'),
    ('"array.stripe_unit_bytes" = []', 'axis `axes."array.stripe_unit_bytes"` must be a non-empty list'),
    ('"array.stripe_unit_bytes" = [4096, 4096]', 'axis `axes."array.stripe_unit_bytes"` lists a value twice'),
])
def test_axis_that_is_not_a_list_of_distinct_values_is_a_one_line_error_naming_it(tmp_path, capsys, bad, named):
    spec = spec_file(tmp_path, SPEC.replace('"array.stripe_unit_bytes" = [4096, 16384]', bad))
    assert main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert named in err and err.startswith("raidsim: error:") and err.strip().count("\n") == 0


def test_case_set_that_is_not_a_table_is_a_one_line_error_naming_it(tmp_path, capsys):
    spec = spec_file(tmp_path, SPEC.replace('set = { "array.level" = "raid5", "array.members" = 4 }', 'set = "raid5"'))
    assert main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "cases[0] (`raid5`): `set` must be a table" in err and err.strip().count("\n") == 0


# --- 7. a panicking point, clashing columns, missing values, spec keys, names, column types ------------

class CorePanic(BaseException):
    """Stands in for pyo3's PanicException: a BaseException, not an Exception, and no pickle."""


def panic_on(stripe_unit):
    real = raidsim.api.simulate

    def simulate(config, *args, **kwargs):
        if config.resolved()["array"]["stripe_unit_bytes"] == stripe_unit:
            raise CorePanic("attempt to add with overflow")
        return real(config, *args, **kwargs)
    return simulate


def test_point_whose_core_panics_is_recorded_as_failed_with_the_message_and_the_sweep_exits_3(
        tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(raidsim.api, "simulate", panic_on(16384))
    spec = spec_file(tmp_path, SPEC)
    out = tmp_path / "out"
    assert main(["sweep", str(spec), "--out", str(out), "--workers", "1", "--no-progress"]) == 3
    err = capsys.readouterr().err
    assert "2 of 4 points failed" in err and "CorePanic: attempt to add with overflow" in err and "Traceback" not in err
    df = pd.read_csv(out / "results.csv")
    assert list(df["status"]) == ["ok", "ok", "failed", "failed"]
    assert (df["error"][2:] == "CorePanic: attempt to add with overflow").all()


def test_point_runner_returns_a_panic_as_text_and_lets_interrupts_through(monkeypatch):
    layers = Config.preset("erasure-code-table6").layers
    monkeypatch.setattr(raidsim.api, "simulate", lambda *a, **k: (_ for _ in ()).throw(CorePanic("boom")))
    row = local.run_point(layers, ["host.requests"])
    assert row == {"_error": "CorePanic: boom"}  # a string only: it crosses from a worker by pickle
    for stop in (KeyboardInterrupt, SystemExit):
        monkeypatch.setattr(raidsim.api, "simulate", lambda *a, stop=stop, **k: (_ for _ in ()).throw(stop()))
        with pytest.raises(stop):
            local.run_point(layers, ["host.requests"])


def test_a_program_time_that_once_panicked_the_core_is_refused_before_any_point_runs(tmp_path, capsys):
    # 2^63 - 1 ns of program time overflowed the core's clock (a panic in a worker, then a PicklingError);
    # the core now refuses durations past an hour, so the sweep stops at once naming the key.
    spec = spec_file(tmp_path, SPEC.replace('"array.write_method" = ["auto", "rmw"]',
                                            '"ssd.timing.t_program_ns" = [200000, 9223372036854775807]'))
    out = tmp_path / "out"
    status = main(["sweep", str(spec), "--out", str(out), "--workers", "2", "--no-progress"])
    err = capsys.readouterr().err
    assert status == 1 and "ssd.timing.t_program_ns" in err and "more than an hour" in err
    assert "Traceback" not in err and "PicklingError" not in err and journal_records(out) == []


def test_metric_with_the_name_of_an_axis_or_a_case_setting_is_refused_before_any_point_runs(tmp_path):
    clash = SPEC.replace('metrics = ["host.requests",', 'metrics = ["workload.requests", "host.requests",')
    spec = spec_file(tmp_path, clash.replace('"array.write_method" = ["auto", "rmw"]', '"workload.requests" = [100, 200]'))
    out = tmp_path / "out"
    with pytest.raises(StudyError, match=r"metric `workload\.requests` has the name of an axis or a case's setting"):
        run_study(Study.from_file(spec), out, workers=1, progress=False)
    assert journal_records(out) == []
    spec = spec_file(tmp_path, clash.replace('"array.members" = 4 }', '"array.members" = 4, "workload.requests" = 100 }'))
    with pytest.raises(StudyError, match=r"metric `workload\.requests` has the name of an axis or a case's setting"):
        Study.from_file(spec)


def test_metric_missing_from_a_points_report_is_empty_not_zero(tmp_path):
    # A single SSD's report has no `array` section: its array columns are empty, never a measured-looking 0.
    spec = spec_file(tmp_path, SPEC.replace('metrics = ["host.requests",', 'metrics = ["array.parity_to_data_write_ratio", '
                                            '"devices.pages_read.gc_read", "host.requests",').replace(
        '[[cases]]', '[[cases]]\nname = "single"\naxes = false\nset = { "array.level" = "single", "array.members" = 1 }\n'
                     '[[cases]]', 1))
    df = run_study(Study.from_file(spec), tmp_path / "out", workers=1, progress=False)
    single, raid5 = df[df.case == "single"].iloc[0], df[df.case == "raid5"]
    assert pd.isna(single["array.parity_to_data_write_ratio"]) and pd.isna(single["array.parity_pages_written[0]"])
    assert (raid5["array.parity_to_data_write_ratio"] > 0).all()
    # A cause with no pages is omitted from a report, and is 0 pages.
    assert single["devices.pages_read.gc_read[0]"] == 0 and (raid5["devices.pages_read.gc_read[3]"] == 0).all()
    assert "array.parity_pages_written" not in df.columns  # no bare, empty column beside the per-member ones
    assert metrics.extract({"host": {"requests": 1}}, "array.erases") == {"array.erases": None}
    assert metrics.extract({"devices": [{"pages_read": {}}]}, "devices.pages_read.user") == {"devices.pages_read.user[0]": 0}


def test_a_study_table_shows_values_a_point_lacks_as_a_dash_not_zero_or_nan():
    study = packaged_study("stripe-unit-study")
    rows = [plots.PointRow("single", {"array.level": "single"}, "ok", {
                "array.stripe_unit_bytes": None, "array.parity_to_data_write_ratio": None, "array.extra_page_reads": None,
                "array.data_pages_written": None, "array.parity_pages_written": None, "devices.erases[0]": 7,
                "host.response.mean_ns": 2e6, "host.throughput_eq5_mb_per_s": 60.0}),
            plots.PointRow("raid0", {"array.stripe_unit_bytes": 4096}, "ok", {
                "array.parity_to_data_write_ratio": 0.0, "array.extra_page_reads[0]": 0,
                "array.data_pages_written[0]": 10, "array.parity_pages_written[0]": 0, "devices.erases[0]": 3,
                "host.response.mean_ns": 1e6, "host.throughput_eq5_mb_per_s": 120.0}),
            plots.PointRow("raid0", {"array.stripe_unit_bytes": 8192}, "failed", {})]
    table = plots.tabulate(study.tables[0], rows, "here")
    single, raid0, failed = (dict(zip(table.header, r)) for r in table.rows)
    for column in ("stripe unit (KiB)", "extra page reads (pages)", "data page writes (pages)",
                   "parity/data writes (ratio)"):
        assert single[column] == "-", column
    assert raid0["extra page reads (pages)"] == "0" and raid0["parity/data writes (ratio)"] == "0.000"
    assert single["erases (blocks)"] == "7" and raid0["mean response (ms)"] == "1.000"
    assert failed["case"] == "raid0" and set(list(failed.values())[2:]) == {"-"}  # a failed point: no 0s
    text = "\n".join(" ".join(r) for r in table.rows)
    assert "nan" not in text.lower() and "<NA>" not in text


@pytest.mark.parametrize("bad, named", [
    ('sets = { "array.level" = "raid5" }', r"cases\[0\] \(`raid5`\): unknown key `sets` \(did you mean `set`\?\); "
                                           r"valid: name, set, axes"),
    ("bogus = 1", r"cases\[0\] \(`raid5`\): unknown key `bogus`; valid: name, set, axes"),
])
def test_unknown_key_in_a_case_is_refused_naming_it_and_the_valid_ones(tmp_path, capsys, bad, named):
    spec = spec_file(tmp_path, SPEC.replace('name = "raid5"', f'name = "raid5"\n{bad}'))
    with pytest.raises(StudyError, match=named):
        Study.from_file(spec)
    assert main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("raidsim: error:") and err.strip().count("\n") == 0


@pytest.mark.parametrize("bad, named", [
    ("bogus = 1", r"unknown study key `bogus`; valid: name, title, scaled_down, base, cases, axes, metrics"),
    ("metric = 1", r"unknown study key `metric` \(did you mean `metrics`\?\)"),
    ("rows = []", r"unknown study key `rows`"),  # a key of the packaged reproductions, meaningless in a study
])
def test_unknown_key_at_the_top_of_a_spec_is_refused_naming_it_and_the_valid_ones(tmp_path, bad, named):
    with pytest.raises(StudyError, match=named):
        Study.from_file(spec_file(tmp_path, f"{bad}\n{SPEC}"))


def test_packaged_study_and_reproductions_still_load():
    assert packaged_study("stripe-unit-study").name == "stripe-unit-study"
    assert main(["reproduce", "stripe-unit-tables", "--json"]) == 0
    assert main(["reproduce", "erasure-code-updates", "--json"]) == 0


@pytest.mark.parametrize("name", ["../../../x", "", ".", "..", ".hidden", "a/b", "/abs", "a b", "x" * 256])
def test_study_name_that_is_not_one_plain_path_component_is_refused_naming_the_rule(tmp_path, capsys, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    spec = spec_file(tmp_path, SPEC.replace('name = "tiny"', f"name = {json.dumps(name)}"))
    with pytest.raises(StudyError, match=r"not a study name: .*a single plain path component: letters, digits"):
        Study.from_file(spec)
    assert main(["sweep", str(spec), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("raidsim: error:") and err.strip().count("\n") == 0 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.toml"]  # nothing written, inside or out


def test_study_names_of_letters_digits_dashes_underscores_and_dots_are_accepted():
    for name in ("tiny", "stripe-unit_study.v2", "2024"):
        assert Study.from_dict({"name": name, "metrics": ["host.iops"]}).name == name
    assert Study.from_dict({"metrics": ["host.iops"]}, "/some/dir/my-study.toml").name == "my-study"


@pytest.mark.parametrize("spec_text, named", [
    ('name = 5\nmetrics = ["host.iops"]', r"`name` must be a string"),
    ('metrics = ["host.iops"]\n[base]\npreset = 5', r"`base.preset` must be a preset's name \(a string"),
    ('title = 5\nmetrics = ["host.iops"]', r"`title` must be a string"),
    ('metrics = ["host.iops"]\n[axes]\n"sim.seed" = [1979-05-27]', r'axis `axes."sim.seed"` holds a value that is no config value'),
])
def test_spec_value_of_the_wrong_type_is_a_one_line_error_exit_1(tmp_path, capsys, monkeypatch, spec_text, named):
    monkeypatch.chdir(tmp_path)  # no --out: the default directory is built from the name
    spec = spec_file(tmp_path, spec_text)
    with pytest.raises(StudyError, match=named):
        Study.from_file(spec)
    assert main(["sweep", str(spec), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("raidsim: error:") and err.strip().count("\n") == 0 and "Traceback" not in err


def test_integer_axis_columns_stay_integer_when_a_row_failed(tmp_path):
    good, missing = tmp_path / "good.csv", tmp_path / "absent.csv"
    write_trace(good, 40)
    seed = 2**53 + 1  # not a float: through float64 it would come back as 2**53
    spec = spec_file(tmp_path, SPEC.replace(SYNTHETIC, 'workload = { kind = "trace" }').replace(
        '"array.write_method" = ["auto", "rmw"]', f'"workload.path" = ["{good}", "{missing}"]\n"sim.seed" = [{seed}, 7]'))
    out = tmp_path / "out"
    with pytest.raises(PointsFailed):
        run_study(Study.from_file(spec), out, workers=1, progress=False)
    text = (out / "results.csv").read_text()
    assert "4096.0" not in text and ",4096," in text and f",{seed}," in text and ",40," in text and ",40.0," not in text
    for df in (pd.read_csv(out / "results.csv"), pd.read_parquet(out / "results.parquet")):
        assert sorted(set(df["array.stripe_unit_bytes"])) == [4096, 16384]
    df = pd.read_parquet(out / "results.parquet")
    assert pd.api.types.is_integer_dtype(df["array.stripe_unit_bytes"]) and pd.api.types.is_integer_dtype(df["sim.seed"])
    assert set(df["sim.seed"]) == {seed, 7} and pd.api.types.is_integer_dtype(df["host.requests"])
    assert df["host.requests"].isna().sum() == 4 and (df["host.requests"].dropna() == 40).all()


def test_a_metric_only_an_overwrite_preconditioned_case_reports_is_known(tmp_path):
    # The metric check probes each case without preconditioning; overwrites without a fill are refused, so
    # the probe must drop them too, or a metric only that case's report has would be called unknown.
    study = Study.from_dict({
        "name": "probe-overwrites",
        "base": {"preset": "stripe-unit-table5", "ssd": {"price_usd": 100.0, "geometry": {"blocks_per_plane": 32}},
                 "precondition": {"fill_fraction": 0.5, "random_overwrite_factor": 1.0},
                 "workload": {"requests": 20}},
        "metrics": ["cost.total_usd"],
        "cases": [{"name": "r5", "set": {"array.level": "raid5", "array.members": 4}}],
    })
    table = run_study(study, tmp_path / "out", workers=1, progress=False)
    assert table["cost.total_usd"].tolist() == [400.0]  # four priced drives, no controller price


def test_a_response_time_nothing_measured_is_an_empty_cell_not_zero(tmp_path):
    # A read-only workload completes no write: its write response time does not exist, and a table must
    # not show one of 0 ns (which a mean over points would count as the fastest writes of all).
    study = Study.from_dict({
        "name": "read-only",
        "base": {"preset": "stripe-unit-table5", "ssd": {"geometry": {"blocks_per_plane": 32}},
                 "workload": {"requests": 20, "read_fraction": 1.0}},
        "metrics": ["host.read_response.mean_ns", "host.write_response.mean_ns", "host.write_response.p99_ns"],
    })
    table = run_study(study, tmp_path / "out", workers=1, progress=False)
    assert table["host.read_response.mean_ns"].iloc[0] > 0
    assert table["host.write_response.mean_ns"].isna().all() and table["host.write_response.p99_ns"].isna().all()
    long = pd.read_csv(tmp_path / "out" / "results_long.csv")
    writes = long[long.metric.str.startswith("host.write_response")]
    assert len(writes) == 2 and writes.value.isna().all()


# --- 8. issue #30: another study's results, clashing settings, a full disk -------------------------

OTHER = SPEC.replace('name = "tiny"', 'name = "other"').replace('"array.write_method" = ["auto", "rmw"]', "")


def test_a_different_study_into_an_out_holding_another_studys_results_is_refused_unless_overwrite(tmp_path, capsys):
    first, second = spec_file(tmp_path, SPEC), spec_file(tmp_path, OTHER, "other.toml")
    out = tmp_path / "mix"
    assert main(["sweep", str(first), "--out", str(out), "--workers", "1", "--no-progress"]) == 0
    journal, results = (out / JOURNAL).read_bytes(), (out / "results.csv").read_bytes()
    capsys.readouterr()
    # A wrong --out (exit 2, before anything is written): the directory, the study there, the way out.
    assert main(["sweep", str(second), "--out", str(out), "--workers", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == (f"raidsim: usage error: {out} holds the results of study `tiny`: 4 finished points in "
                   f"{out / JOURNAL}, which running study `other` there would discard: pass --overwrite to replace "
                   "them, or choose another --out\n")
    assert (out / JOURNAL).read_bytes() == journal and (out / "results.csv").read_bytes() == results
    with pytest.raises(AnotherStudysResults, match="study `tiny`"):
        run_study(Study.from_file(second), out, workers=1, progress=False)
    # The first study itself still resumes there, as before: nothing to run.
    assert len(run_study(Study.from_file(first), out, workers=1, progress=False)) == 4
    # --overwrite: the other study's rows and configs go, said so.
    capsys.readouterr()
    assert main(["sweep", str(second), "--out", str(out), "--workers", "1", "--no-progress", "--overwrite"]) == 0
    assert "the 4 finished points of study `tiny` there are replaced by study other's" in capsys.readouterr().err
    points = Study.from_file(second).points()
    assert sorted(journal_records(out)) == sorted(p.point_id for p in points)
    assert sorted(p.stem for p in (out / "configs").glob("*.toml")) == sorted(p.point_id for p in points)
    assert len(pd.read_csv(out / "results.csv")) == 2


def test_an_edited_study_says_which_finished_points_it_drops(tmp_path, capsys):
    spec = spec_file(tmp_path, SPEC)
    out = tmp_path / "out"
    run_study(Study.from_file(spec), out, workers=1, progress=False)
    capsys.readouterr()
    edit(spec, '"array.write_method" = ["auto", "rmw"]', '"array.write_method" = ["auto"]')  # same study, narrowed
    assert len(run_study(Study.from_file(spec), out, workers=1, progress=False)) == 2
    assert (f"2 finished points of the last run of study tiny in {out} are no longer in the study: dropped from the "
            "results") in capsys.readouterr().err


def test_journal_rows_that_do_not_name_their_study_are_another_ones_only_if_no_point_is_shared(tmp_path):
    # Rows written before the journal named the study: this study's own resume; a study sharing no point is refused.
    spec = spec_file(tmp_path, SPEC)
    out = tmp_path / "out"
    run_study(Study.from_file(spec), out, workers=1, progress=False)
    rows = [json.loads(line.rsplit("\t", 1)[0]) for line in (out / JOURNAL).read_text().splitlines()]
    (out / JOURNAL).write_text("".join(journal._format_line({k: v for k, v in r.items() if k != "study"}) for r in rows))
    assert len(run_study(Study.from_file(spec), out, workers=1, progress=False)) == 4
    elsewhere = spec_file(tmp_path, OTHER.replace("[4096, 16384]", "[8192]"), "other.toml")
    with pytest.raises(AnotherStudysResults, match="another study \\(its rows do not name it"):
        run_study(Study.from_file(elsewhere), out, workers=1, progress=False)


@pytest.mark.parametrize("case_set, axis, named", [
    ('{ "sim.seed" = 3 }', '"sim.seed" = [1, 2]', '`sim.seed` = 3, which the axis `axes."sim.seed"` = [1, 2]'),
    # A table sets each of its keys; an axis over one of them overrides it.
    ('{ "workload" = { requests = 50 } }', '"workload.requests" = [10, 20]',
     '`workload.requests` = 50, which the axis `axes."workload.requests"` = [10, 20]'),
])
def test_a_case_setting_that_an_axis_sets_too_is_refused_naming_the_case_key_and_axis(tmp_path, capsys, case_set,
                                                                                    axis, named):
    text = f"""
name = "clash"
metrics = ["host.requests"]
[base]
preset = "erasure-code-table6"
{SYNTHETIC}
[[cases]]
name = "seeded"
set = {case_set}
[axes]
{axis}
"""
    spec = spec_file(tmp_path, text)
    with pytest.raises(StudyError, match=re.escape(f"cases[0] (`seeded`): `set` gives {named} also sets")):
        Study.from_file(spec)
    assert main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("raidsim: error:") and "seeded" in err and err.strip().count("\n") == 0
    # A case that runs without the axes sets what it likes.
    assert len(Study.from_file(spec_file(tmp_path, text.replace('name = "seeded"', 'name = "seeded"\naxes = false')))
               .points()) == 1


class DiskFullJournal:
    """Stands in for `open` in raidsim.study.journal: an append to the journal writes half its line, then the disk is full."""

    def __init__(self):
        self.real = open

    def __call__(self, path, mode="r", *args, **kwargs):
        f = self.real(path, mode, *args, **kwargs)
        if str(path).endswith(JOURNAL) and "a" in mode:
            write = f.write

            def full(text):
                write(text[: len(text) // 2])
                f.flush()
                raise OSError(28, "No space left on device")  # as the kernel's: no file named
            f.write = full
        return f


def test_a_sweep_whose_disk_fills_exits_3_naming_the_file_and_the_same_command_resumes(tmp_path, capsys, monkeypatch):
    spec = spec_file(tmp_path, SPEC)
    out = tmp_path / "out"
    command = ["sweep", str(spec), "--out", str(out), "--workers", "1", "--no-progress"]
    monkeypatch.setattr(journal, "open", DiskFullJournal(), raising=False)
    assert main(command) == 3  # could not finish, as the guide's exit statuses say (docs/getting-started.md)
    err = capsys.readouterr().err
    assert (f"study tiny could not finish: [Errno 28] No space left on device: '{out / JOURNAL}'; every point that "
            f"finished is kept in {out / JOURNAL}") in err
    assert err.count("\n") == 1 and "Traceback" not in err
    monkeypatch.undo()
    assert main(command) == 0
    assert "1 incomplete or corrupt row ignored" in capsys.readouterr().err  # the torn half line
    assert len(pd.read_csv(out / "results.csv")) == 4 and not list(out.glob("*.tmp"))


def test_a_file_replaced_atomically_is_whole_or_as_it_was_and_its_error_names_it(tmp_path):
    from raidsim import _atomic

    path = tmp_path / "results.csv"
    path.write_text("the last results\n")

    def half_then_full(tmp):
        with open(tmp, "w") as f:
            f.write("half")
            f.flush()
            raise OSError(28, "No space left on device")
    with pytest.raises(OSError, match=re.escape(f"[Errno 28] No space left on device: '{path}'")):
        _atomic.replace_atomically(str(path), half_then_full)
    assert path.read_text() == "the last results\n" and sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]
