"""metrics.request_log and the timeline: one row per measured request, written as Parquet; the
timeline's p99 per interval computed from those rows."""

import math
import os
import pathlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import raidsim
from raidsim.timeline import _p99_by_interval

SMALL = {"ssd.geometry.blocks_per_plane": 64, "array.level": "raid5", "array.members": 4}


def test_the_log_has_the_reports_requests_and_times(tmp_path):
    path = tmp_path / "run.parquet"
    report = raidsim.simulate("stripe-unit-table5", raidsim.Workload.synthetic(requests=3000, read_fraction=0.4),
                              overrides={**SMALL, "metrics.request_log": str(path), "sim.warmup_requests": 400},
                              progress=False)
    log = raidsim.read_request_log(path)
    host = report.to_dict()["host"]
    assert list(log.columns) == ["arrival_ns", "op", "offset_bytes", "len_bytes", "completion_ns", "response_ns",
                                 "served", "flow"]
    assert (log["flow"] == 0).all()  # a single workload
    assert len(log) == host["requests"] == 2600  # the warm-up's 400 are not measured, nor logged
    assert (log["op"] == "R").sum() == host["reads"] and (log["op"] == "W").sum() == host["writes"]
    assert int(log["len_bytes"].sum()) == host["bytes_read"] + host["bytes_written"]
    assert (log["response_ns"] == log["completion_ns"] - log["arrival_ns"]).all()
    assert math.isclose(log["response_ns"].mean(), host["response"]["mean_ns"], rel_tol=1e-9)
    assert log["completion_ns"].is_monotonic_increasing
    # Offsets lie inside the array, lengths are the workload's fixed 4 KiB.
    assert (log["len_bytes"] == 4096).all() and (log["offset_bytes"] % 4096 == 0).all()


def test_without_the_key_no_file_and_the_same_report(tmp_path):
    overrides = {**SMALL, "workload.requests": 1500}
    with_log = raidsim.simulate("stripe-unit-table5", overrides={**overrides, "metrics.request_log": str(tmp_path / "a.parquet")},
                                progress=False)
    plain = raidsim.simulate("stripe-unit-table5", overrides=overrides, progress=False)
    assert with_log.to_dict()["host"] == plain.to_dict()["host"]
    assert list(tmp_path.iterdir()) == [tmp_path / "a.parquet"]


def test_failed_requests_are_logged_as_not_served(tmp_path):
    # RAID-0 loses data with its first failed member: requests touching it fail.
    path = tmp_path / "lost.parquet"
    report = raidsim.simulate("stripe-unit-table5", overrides={
        "ssd.geometry.blocks_per_plane": 64, "array.level": "raid0", "array.members": 2, "workload.requests": 2000,
        "array.failures": [{"member": 1, "at_ns": 500_000_000}], "metrics.request_log": str(path)}, progress=False)
    log = raidsim.read_request_log(path)
    rebuild = report.to_dict()["rebuild"]
    failed = rebuild["failed_reads"] + rebuild["failed_writes"]
    assert failed > 0 and (~log["served"]).sum() == failed
    assert log["served"].sum() == report.to_dict()["host"]["requests"]
    assert log.loc[~log["served"], "completion_ns"].min() >= 500_000_000


def test_p99_by_interval_is_each_intervals_99th_percentile():
    rng = np.random.default_rng(7)
    completion = np.sort(rng.integers(0, 3_000, size=900))
    response = rng.integers(1, 10_000_000, size=900)
    log = pd.DataFrame({"completion_ns": completion.astype("uint64"), "response_ns": response.astype("uint64"),
                        "served": np.ones(900, dtype=bool)})
    got = _p99_by_interval(log, 0, 1_000, 4)
    for i in range(3):
        inside = response[(completion >= i * 1_000) & (completion < (i + 1) * 1_000)]
        assert got[i] == pytest.approx(np.quantile(inside, 0.99) / 1e6)
    assert math.isnan(got[3])  # nothing completed in the last interval


def test_plot_timeline_draws_a_png_with_the_logs_p99(tmp_path):
    path = tmp_path / "run.parquet"
    report = raidsim.simulate("stripe-unit-table5", overrides={**SMALL, "workload.requests": 2000,
                                                               "metrics.request_log": str(path)}, progress=False)
    out = report.plot_timeline(tmp_path / "timeline.png")
    with open(out, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_counting_mode_refuses_a_request_log():
    with pytest.raises(raidsim.ConfigError, match="metrics.request_log"):
        raidsim.count("stripe-unit-table5", overrides={"metrics.request_log": "x.parquet"})


def test_the_cli_writes_the_log(tmp_path):
    path = tmp_path / "cli.parquet"
    subprocess.run([sys.executable, "-m", "raidsim.cli", "run", "--preset", "stripe-unit-table5", "--no-progress",
                    "--set", "workload.requests=500", "--set", f"metrics.request_log={path}"],
                   check=True, capture_output=True)
    assert len(raidsim.read_request_log(path)) == 500


def test_a_sweep_refuses_a_request_log(tmp_path):
    from raidsim.study import Study, StudyError, run_study

    study = Study.from_dict({"name": "logged", "metrics": ["host.iops"],
                             "base": {"workload": {"requests": 100}, "metrics": {"request_log": "x.parquet"}},
                             "axes": {"workload.read_fraction": [0.0, 1.0]}})
    with pytest.raises(StudyError, match="metrics.request_log"):
        run_study(study, str(tmp_path / "out"), progress=False)
    assert not (tmp_path / "x.parquet").exists()


def test_the_time_series_counts_the_drives_garbage_collection(tmp_path):
    report = raidsim.simulate("stripe-unit-table5", overrides={
        **SMALL, "precondition.fill_fraction": 0.9, "precondition.sequential_overwrite_factor": 1,
        "workload.requests": 4000, "workload.read_fraction": 0}, progress=False)
    stats = report.stats()
    by_drives = stats[stats["path"].str.endswith(".ftl.gc.runs")]["value"].sum()
    assert by_drives > 50
    assert report.time_series()["gc_runs"].sum() == by_drives


def test_the_timeline_draws_the_runs_own_log_not_the_file_another_run_overwrote(tmp_path):
    path = tmp_path / "shared.parquet"
    first = raidsim.simulate("stripe-unit-table5", overrides={**SMALL, "workload.requests": 1500,
                                                             "metrics.request_log": str(path)}, progress=False)
    kept = first.request_log()
    raidsim.simulate("stripe-unit-table5", overrides={**SMALL, "workload.requests": 700, "workload.read_fraction": 1.0,
                                                      "metrics.request_log": str(path)}, progress=False)
    assert len(raidsim.read_request_log(path)) == 700  # the file is the second run's now
    assert len(first.request_log()) == 1500 and first.request_log().equals(kept)


@pytest.mark.parametrize("name", ["run:2.parquet", "with space.parquet", b"bad\xff.parquet"])
def test_odd_but_local_file_names_take_the_log(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    path = os.fsdecode(name)
    raidsim.simulate("stripe-unit-table5", overrides={**SMALL, "workload.requests": 300,
                                                     "metrics.request_log": pathlib.Path(path)}, progress=False)
    assert len(raidsim.read_request_log(open(path, "rb"))) == 300
    assert sorted(os.listdir(tmp_path)) == [path]  # and no temporary file left beside it


@pytest.mark.parametrize("value, says", [("/", "is a directory"), ("/no/such/dir/x.parquet", "no directory"),
                                         ("~/x.parquet", "not expanded"), ("log.csv", "Parquet")])
def test_a_log_path_that_cannot_take_the_file_is_refused_before_the_run(value, says):
    cfg = raidsim.Config.preset("stripe-unit-table5").set("metrics.request_log", value)
    with pytest.raises(raidsim.ConfigError, match=says):
        cfg.resolved_toml()


def test_the_op_column_has_both_categories_whatever_the_run_held(tmp_path):
    path = tmp_path / "reads.parquet"
    raidsim.simulate("stripe-unit-table5", overrides={**SMALL, "workload.requests": 200, "workload.read_fraction": 1.0,
                                                     "metrics.request_log": str(path)}, progress=False)
    op = raidsim.read_request_log(path)["op"]
    assert list(op.cat.categories) == ["R", "W"] and (op == "R").all()


def test_each_row_names_the_flow_that_issued_it(tmp_path):
    path = tmp_path / "flows.parquet"
    # Flow 1 reads 4 KiB, flow 2 writes 8 KiB: a row's op and size say which flow issued it.
    flows = raidsim.Workload.flows(
        raidsim.Workload.synthetic(requests=300, read_fraction=1.0, processes=2, size={"kind": "fixed", "mean_bytes": 4096}),
        raidsim.Workload.synthetic(requests=200, read_fraction=0.0, processes=2, size={"kind": "fixed", "mean_bytes": 8192}))
    report = raidsim.simulate("stripe-unit-table5", flows, overrides={**SMALL, "metrics.request_log": str(path)},
                              progress=False)
    log = raidsim.read_request_log(path)
    issued = {f["name"]: f["host"]["requests"] for f in report.to_dict()["flows"]}
    assert issued == {"flow-1": 300, "flow-2": 200}
    assert sorted(log["flow"].unique()) == [1, 2]
    one, two = log[log["flow"] == 1], log[log["flow"] == 2]
    assert (len(one), len(two)) == (300, 200)
    assert (one["op"] == "R").all() and (one["len_bytes"] == 4096).all()
    assert (two["op"] == "W").all() and (two["len_bytes"] == 8192).all()
