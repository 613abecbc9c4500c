"""Notebook friendliness: the example notebooks run top to bottom, and the objects a notebook shows say what they are."""

import json
import pathlib
import sys

import nbclient
import nbformat
import pytest

import raidsim
from raidsim import _progress

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))


def test_there_is_an_example_notebook():
    assert NOTEBOOKS, f"no notebook in {EXAMPLES}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path):
    # Its own cells assert the paper's statements on the numbers it makes: a wrong count fails here.
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        f"{path.name} is committed with outputs: clear them (they would go stale)"
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    shown = [o for c in nb.cells for o in c.get("outputs", [])]
    assert any("image/png" in o.get("data", {}) for o in shown), "the notebook draws no figure"
    assert any("text/html" in o.get("data", {}) and "raidsim report" in o["data"]["text/html"] for o in shown)
    # What the paper says and these numbers do not show is printed beside them, not left out of the checks.
    if path.name == "stripe_unit_figures.ipynb":
        text = "".join(o.get("text", "") for o in shown)
        assert "Two do not, shown rather than asserted" in text and "'about twice'" in text and "'declined'" in text


def _small_run(requests=3):
    cfg = raidsim.Config.preset("stripe-unit-table5").set("array.level", "raid5").set("array.members", 5) \
        .set("ssd.geometry.blocks_per_plane", 64)
    return raidsim.simulate(cfg, raidsim.Workload.requests([(i * 1000, "W", i * 65536, 4096) for i in range(requests)]),
                            progress=False)


def test_report_repr_says_what_ran_and_how_it_went():
    r = _small_run()
    h = r.to_dict()["host"]
    text = repr(r)
    assert text.startswith("<Report raid5 of 5 ssd members: 3 requests, mean ")
    assert f"{h['response']['mean_ns'] / 1e6:.4f} ms" in text and f"p99 {h['response']['p99_ns'] / 1e6:.4f} ms" in text
    assert "warning" not in text
    assert repr(_small_run(1)).startswith("<Report raid5 of 5 ssd members: 1 request, ")


def test_a_response_time_nothing_measured_is_shown_as_none_not_zero():
    # The core writes zeros for a class with no request; what a notebook (or the text) shows is "-" / NaN.
    cfg = raidsim.Config.preset("stripe-unit-table5").set("array.level", "raid5").set("array.members", 5) \
        .set("ssd.geometry.blocks_per_plane", 64)
    reads = raidsim.simulate(cfg, raidsim.Workload.requests([(i * 1000, "R", i * 65536, 4096) for i in range(3)]),
                             progress=False)
    lat = reads.latency()
    assert lat.loc["write", "count"] == 0 and lat.loc["write"].drop("count").isna().all()
    assert lat.loc["read", "mean_ms"] > 0
    assert "<td>-</td>" in reads._repr_html_() and "write     0       -" in reads.to_text()
    empty = raidsim.simulate(cfg, raidsim.Workload.requests([]), progress=False)
    assert repr(empty) == "<Report raid5 of 5 ssd members: 0 requests, no response time (none completed), 0 IOPS, 0.00 MB/s>"
    assert empty.summary()[["mean_ms", "p99_ms"]].isna().all(axis=None)


def test_report_html_escapes_warnings_and_shows_the_tables():
    r = _small_run()
    data = r.to_dict()
    data["warnings"] = ["queue <grew> & kept growing"]
    shown = raidsim.Report(data, r.config_toml)
    page = shown._repr_html_()
    assert "queue &lt;grew&gt; &amp; kept growing" in page and "<grew>" not in page
    assert "1 warning>" in repr(shown)
    assert page.count("<table") == 3  # summary, response times, devices


def test_count_report_repr():
    cfg = raidsim.Config.preset("stripe-unit-table5").set("array.level", "raid5").set("array.members", 5)
    # One 4 KiB write inside one unit: read-modify-write pre-reads the data and the parity page, writes both.
    c = raidsim.count(cfg, raidsim.Workload.requests([(0, "W", 0, 4096)]))
    assert repr(c) == "<CountReport 5 members: 2 pages read (2 pre-reads), 2 pages written>"
    assert "<table" in c._repr_html_()


def test_config_repr_reads_as_the_layers_in_order():
    c = raidsim.Config.preset("stripe-unit-table5").set("array.level", "raid5").with_overrides(["array.members=5"])
    assert repr(c) == 'Config(preset stripe-unit-table5; array.level = "raid5"; array.members=5)'
    assert repr(raidsim.Config()) == "Config(defaults)"
    assert repr(raidsim.Config.from_toml("[sim]\nseed = 3")) == "Config(sim.seed = 3)"
    assert repr(raidsim.Config.from_dict({"ssd": {"timing": {"t_read_ns": 1}}})) == "Config(ssd.timing.t_read_ns = 1)"


def test_progress_shows_in_a_notebook_kernel(monkeypatch):
    # In Jupyter stderr is no terminal, yet a bar belongs there; elsewhere without a terminal it does not.
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    assert not _progress.interactive()
    monkeypatch.setitem(sys.modules, "ipykernel", object())
    assert _progress.interactive()


def test_keys_json_round_trips():
    k = raidsim.keys("array.level")[0]
    assert json.loads(json.dumps(k.to_dict()))["choices"] == list(k.choices)
