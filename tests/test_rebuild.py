"""Failure and reconstruction as the Python package shows them (issue #10): Report.rebuild(), the rebuild
figures of summary() and the text `raidsim run` prints, rebuild.csv, plot_rebuild."""

import math
import subprocess
import sys

import pytest

import raidsim

# RAID5 4+1 of one-die SSDs of 8 MiB (7 MiB host-visible each), one hot spare; member 3 fails as the
# 2,000th of 4,000 requests arrives. About 10 ms a run.
SMALL = {
    "ssd.geometry.channels": 1,
    "ssd.geometry.planes_per_die": 1,
    "ssd.geometry.blocks_per_plane": 32,
    "ssd.geometry.pages_per_block": 64,
    "array.level": "raid5",
    "array.members": 5,
    "array.stripe_unit_bytes": 16384,
    "array.spares": 1,
    "array.failures": [{"member": 3, "at_request": 2000}],
    "workload.requests": 4000,
    "workload.read_fraction": 0.7,
    "workload.mean_interarrival_ns": 400000,
}
PHASES = ["before", "degraded", "during", "after"]


def simulate(**changes):
    return raidsim.simulate(None, overrides={**SMALL, **changes})


@pytest.fixture(scope="module")
def report():
    return simulate()


def test_rebuild_table_has_the_four_phases_and_every_request(report):
    t = report.rebuild()
    assert list(t.index) == PHASES and t.index.name == "phase"
    assert list(t.columns) == list(report.latency().columns)  # the same columns, in ms
    # A request counts in the phase in which it completed: the phases hold every request once.
    assert t["count"].sum() == report.to_dict()["host"]["requests"] == 4000
    # Only requests issued before the failure can complete before it.
    assert 1900 < t.loc["before", "count"] <= 2000
    assert t.loc["during", "count"] > 0 and t.loc["after", "count"] > 0
    # No delay and a free spare: the rebuild starts as the member fails, so nothing is served merely
    # degraded, and that empty phase has no times rather than zeros.
    assert t.loc["degraded", "count"] == 0 and t.loc["degraded"].drop("count").isna().all()


def test_user_response_is_slower_during_the_rebuild(report):
    t = report.rebuild()
    assert t.loc["during", "mean_ms"] > 2 * t.loc["before", "mean_ms"]
    assert t.loc["during", "p99_ms"] > t.loc["before", "p99_ms"]
    rb = report.to_dict()["rebuild"]
    assert t.loc["during", "mean_ms"] == pytest.approx(rb["response_during"]["mean_ns"] / 1e6)


def test_the_rebuild_reconstructs_the_failed_member_onto_the_spare(report):
    d = report.to_dict()
    rb = d["rebuild"]
    (f,) = rb["failures"]
    assert f["member"] == 3 and d["devices"][f["spare"]]["name"] == "spare[0]"
    assert rb["start_ns"] == f["rebuild_start_ns"] == f["at_ns"] < rb["end_ns"] == f["rebuild_end_ns"]
    assert rb["duration_ns"] == rb["end_ns"] - rb["start_ns"]
    # The whole member is rebuilt: its share of the host capacity, stripe by stripe.
    assert rb["lost_bytes"] == d["array"]["capacity_bytes"] // 4 == rb["stripes_rebuilt"] * 16384
    assert rb["recovery_bytes_per_s"] == pytest.approx(rb["lost_bytes"] * 1e9 / rb["duration_ns"])
    devices = report.devices()
    pages = rb["lost_bytes"] // 4096
    assert devices.loc["spare[0]", "written.rebuild_write"] == pages
    assert (devices.loc[["member[0]", "member[1]", "member[2]", "member[4]"], "read.rebuild_read"] == pages).all()
    assert rb["data_loss_events"] == [] and rb["failed_reads"] == rb["failed_writes"] == 0


def test_summary_carries_the_rebuild_figures(report):
    s = report.summary().iloc[0]
    rb = report.to_dict()["rebuild"]
    assert s["rebuild_s"] == pytest.approx(rb["duration_ns"] / 1e9)
    assert s["recovery_mb_per_s"] == pytest.approx(rb["recovery_bytes_per_s"] / 1e6)
    assert s["mean_ms_during_rebuild"] == pytest.approx(report.rebuild().loc["during", "mean_ms"])
    assert s["data_loss_events"] == 0


def test_text_has_a_rebuild_section(report):
    text = report.to_text()
    section = text[text.index("Rebuild (DOR, 1 spare)"):]
    rb = report.to_dict()["rebuild"]
    assert f"member[3] failed at {rb['failures'][0]['at_ns'] / 1e9:,.4f} s; rebuilt onto spare[0]" in section
    assert f"{rb['duration_ns'] / 1e9:,.4f} s" in section
    assert f"{rb['recovery_bytes_per_s'] / 1e6:,.2f} MB/s" in section
    assert f"during {rb['response_during']['mean_ns'] / 1e6:,.4f} ms" in section
    assert "data loss         none" in section and "Response time by phase" in section
    # The host table does not repeat the rebuild columns of summary().
    assert "rebuild_s" not in text and "recovery_mb_per_s" not in text


def test_without_a_failure_rebuild_is_an_error_not_zeros():
    r = raidsim.simulate(None, overrides={"workload.requests": 200})
    assert r.to_dict()["rebuild"] is None
    with pytest.raises(raidsim.ConfigError, match="configured no failure.*array.failures"):
        r.rebuild()
    with pytest.raises(raidsim.ConfigError, match="configured no failure"):
        raidsim.plot_rebuild(r, "unused.png")
    assert "rebuild_s" not in r.summary().columns and "Rebuild" not in r.to_text()


def test_save_writes_rebuild_csv_only_with_a_failure(report, tmp_path):
    report.save(tmp_path / "with")
    lines = (tmp_path / "with" / "rebuild.csv").read_text().splitlines()
    assert lines[0].startswith("phase,count,mean_ms") and [x.split(",")[0] for x in lines[1:]] == PHASES
    raidsim.simulate(None, overrides={"workload.requests": 100}).save(tmp_path / "without")
    assert not (tmp_path / "without" / "rebuild.csv").exists()


def test_without_a_spare_the_array_stays_degraded():
    r = simulate(**{"array.spares": 0})
    t, rb = r.rebuild(), r.to_dict()["rebuild"]
    assert rb["start_ns"] is None and rb["recovery_bytes_per_s"] is None
    assert t.loc["before", "count"] + t.loc["degraded", "count"] == 4000
    assert t.loc["during", "count"] == t.loc["after", "count"] == 0
    assert math.isnan(r.summary().iloc[0]["rebuild_s"])
    assert "no spare: degraded to the end of the run" in r.to_text() and "none started (no spare)" in r.to_text()


def test_a_second_failure_during_the_rebuild_loses_data_and_fails_requests():
    r = simulate(**{"array.failures": [{"member": 3, "at_request": 1000}, {"member": 1, "at_request": 1500}]})
    rb = r.to_dict()["rebuild"]
    (loss,) = rb["data_loss_events"]
    assert loss["member"] == 1 and loss["stripes_lost"] > 0 and loss["bytes_lost"] == loss["stripes_lost"] * 4 * 16384
    assert rb["failed_reads"] > 0 and rb["failed_writes"] > 0
    # Requests that failed on lost data are counted apart: the phases hold the ones served.
    served = r.to_dict()["host"]["requests"]
    assert r.rebuild()["count"].sum() == served and served + rb["failed_reads"] + rb["failed_writes"] == 4000
    assert r.summary().iloc[0]["data_loss_events"] == 1
    text = r.to_text()
    assert f"data loss         member[1] at {loss['at_ns'] / 1e9:,.4f} s: {loss['stripes_lost']:,} stripes" in text
    assert f"failed requests   {rb['failed_reads']:,} reads, {rb['failed_writes']:,} writes" in text


def test_a_rate_limit_slows_the_rebuild_and_spares_the_host(report):
    limited = simulate(**{"rebuild.max_bytes_per_s": 4_000_000})
    rb = limited.to_dict()["rebuild"]
    assert rb["end_ns"] is not None and rb["recovery_bytes_per_s"] <= 4_000_000 * 1.01
    assert rb["duration_ns"] > 2 * report.to_dict()["rebuild"]["duration_ns"]
    assert limited.rebuild().loc["during", "mean_ms"] < report.rebuild().loc["during", "mean_ms"] / 2


def test_plot_rebuild_writes_a_png(report, tmp_path):
    path = raidsim.plot_rebuild(report, tmp_path / "figs" / "rebuild.png")
    assert path == str(tmp_path / "figs" / "rebuild.png")
    data = (tmp_path / "figs" / "rebuild.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_raidsim_run_prints_the_rebuild_section():
    sets = [arg for k, v in SMALL.items() if k != "array.failures" for arg in ("--set", f"{k}={v}")]
    sets += ["--set", "array.failures=[{member = 3, at_request = 2000}]"]
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "run", *sets, "--no-progress"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rb = simulate().to_dict()["rebuild"]  # the same run through the API
    assert "Rebuild (DOR, 1 spare)" in p.stdout and "Response time by phase" in p.stdout
    assert f"during {rb['response_during']['mean_ns'] / 1e6:,.4f} ms" in p.stdout
    assert f"{rb['recovery_bytes_per_s'] / 1e6:,.2f} MB/s" in p.stdout


def test_the_guide_quotes_the_rebuild_section_its_command_prints():
    # The user guide's rebuild example (docs/failures.md): its quoted output is what the command prints.
    import pathlib
    import shlex

    page = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "failures.md").read_text()
    section = page[page.index("## An example: one member fails and is rebuilt"):page.index("## Verified bytes")]
    command = next(line for line in section.splitlines() if line.startswith("raidsim run "))
    quoted = section.split("```text\n", 1)[1].split("```", 1)[0]
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", *shlex.split(command)[1:], "--no-progress"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    printed = p.stdout[p.stdout.index("Rebuild ("):]
    assert [line.rstrip() for line in printed.strip().splitlines()] == \
        [line.rstrip() for line in quoted.strip().splitlines()]


@pytest.mark.parametrize("key, value, why", [
    ("array.failures", [{"member": 1, "at_ns": None}], "None is not a TOML value"),
    ("rebuild.policy", None, "None is not a TOML value"),
    ("rebuild.max_bytes_per_s", 2**64 - 1, "signed 64-bit"),
    ("array.failures", [{"member": 1, "at_ns": float("nan")}], "not a finite number"),
])
def test_python_overrides_without_a_toml_form_name_their_key(key, value, why):
    with pytest.raises(raidsim.ConfigError, match=rf"`{key}`.*{why}"):
        raidsim.simulate(None, overrides={key: value}, progress=False)


@pytest.mark.parametrize("value, why", [(None, "None is not a TOML value"), (float("nan"), "not a finite number"),
                                        (2**64, "signed 64-bit")])
def test_workload_values_without_a_toml_form_name_their_key(value, why):
    with pytest.raises(raidsim.ConfigError, match=rf"`workload.requests`.*{why}"):
        raidsim.simulate(None, workload=raidsim.Workload.synthetic(requests=value), progress=False)


def test_a_synthetic_workload_shows_its_request_count():
    assert "'requests': 1200" in repr(raidsim.Workload.synthetic(requests=1200))
