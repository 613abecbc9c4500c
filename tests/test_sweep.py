"""Studies as data: sweep specs, parallel points, reruns, the demo (issue #3)."""

import subprocess
import sys

import pandas as pd
import pytest

from raidsim.study import Study, run_study
from raidsim.study.metrics import extract

SPEC = """
name = "tiny"
metrics = ["host.requests", "host.response.mean_ns", "array.parity_pages_written"]
[base]
preset = "erasure-code-table6"
workload = { kind = "synthetic", requests = 300, read_fraction = 0.0 }
[[cases]]
name = "raid5"
set = { "array.level" = "raid5", "array.members" = 4 }
[axes]
"array.stripe_unit_bytes" = [4096, 16384]
"array.write_method" = ["auto", "rmw"]
"""


def test_sweep_runs_every_point_once_and_skips_finished(tmp_path):
    spec = tmp_path / "tiny.toml"
    spec.write_text(SPEC)
    study = Study.from_file(spec)
    assert len(study.points()) == 4
    out = tmp_path / "out"
    df = run_study(study, out, workers=2, progress=False)
    assert len(df) == 4 and (df["host.requests"] == 300).all()
    assert len(list((out / "configs").glob("*.toml"))) == 4
    assert pd.read_parquet(out / "results.parquet").shape == df.shape
    # Parity columns come per member.
    assert {f"array.parity_pages_written[{i}]" for i in range(4)} <= set(df.columns)
    # A rerun finds every point done and runs nothing new.
    mtime = (out / "configs").stat().st_mtime_ns
    df2 = run_study(study, out, progress=False)
    assert len(df2) == 4 and (out / "configs").stat().st_mtime_ns == mtime


def test_bad_point_names_itself(tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text(SPEC.replace("[4096, 16384]", "[4096, 1000]"))
    with pytest.raises(Exception, match="stripe_unit_bytes"):
        run_study(Study.from_file(spec), tmp_path / "out", workers=1, progress=False)


def test_extract_expands_lists_and_devices():
    report = {"host": {"requests": 5}, "devices": [{"erases": 1, "pages_read": {"user": 3}}, {"erases": 2, "pages_read": {}}]}
    assert extract(report, "host.requests") == {"host.requests": 5}
    assert extract(report, "devices.erases") == {"devices.erases[0]": 1, "devices.erases[1]": 2}
    assert extract(report, "devices.pages_read.user") == {"devices.pages_read.user[0]": 3, "devices.pages_read.user[1]": 0}


def test_demo_writes_table_figures_and_html(tmp_path):
    out = tmp_path / "demo"
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "demo", "--out", str(out), "--no-progress"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "raid4" in p.stdout and "mean response (ms)" in p.stdout and "Scaled down" in p.stdout
    # The demo is an ordinary study: its figures and table are declared in its spec, drawn as `sweep` draws any.
    figures = ("fig5_extra_page_reads", "fig6_page_writes", "fig9_response_time", "fig10_throughput", "fig12_erases")
    for f in [f"figures/{name}.{ext}" for name in figures for ext in ("png", "svg")] + [
            "tables/summary.csv", "report.html", "results.csv", "results_long.csv", "results_long.parquet"]:
        assert (out / f).stat().st_size > 0, f
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") == len(figures) and "Scaled down" in page
    df = pd.read_csv(out / "results.csv")
    raid4 = df[df.case == "raid4"].sort_values("array.stripe_unit_bytes")
    # The paper's finding (Fig. 6): parity-disk writes grow with the stripe unit, data-disk writes do not.
    parity = list(raid4["array.parity_pages_written[4]"])
    assert parity == sorted(parity) and parity[-1] > 3 * parity[0]
    data0 = raid4["array.data_pages_written[0]"]
    assert data0.max() < 1.1 * data0.min()
