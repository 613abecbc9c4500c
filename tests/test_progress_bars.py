"""Progress bars: a finished bar reads every request, a rebuild that outlasts the requests shows as its own
phase, and Jupyter without ipywidgets gets tqdm's text bar without a warning."""

import re
import sys
import textwrap

import pytest

import raidsim
import raidsim.api
from raidsim import _progress


def frames(err):
    """The states a text bar drew, last last."""
    return [f.strip() for f in re.split(r"[\r\n]", err) if f.strip()]


def test_a_finished_bar_reads_every_request(monkeypatch, capsys):
    # Slices of 5,000 events: the slice that finishes the run also completes its last requests (checked
    # below on the core's own stepper), which a bar updated only before that slice would never show.
    steps = []
    sim = raidsim._native.Simulation(raidsim.Config().with_overrides({"workload.requests": 3000}).layers)
    while not steps or not steps[-1][2]:
        steps.append(sim.step(5000))
    assert len(steps) >= 2 and steps[-1][0] > steps[-2][0] and steps[-1][0] == 3000
    monkeypatch.setattr(raidsim.api, "_EVENTS_PER_STEP", 5000)
    r = raidsim.simulate(None, overrides={"workload.requests": 3000}, progress=True)
    last = frames(capsys.readouterr().err)[-1]
    assert r.to_dict()["host"]["requests"] == 3000
    assert "100%" in last and last.endswith("requests=3,000"), last


def test_the_last_slice_sets_the_bars_final_count(capsys):
    slices = iter([(1000, 0.4, False), (2500, 1.0, False), (3000, 1.0, True)])
    raidsim.api.run_in_slices(lambda: next(slices), "simulating", True, 0.0)
    last = frames(capsys.readouterr().err)[-1]
    assert last.startswith("simulating: 100%") and last.endswith("requests=3,000"), last


# test_rebuild's small RAID5 4+1 with a spare, the member failing near the end: the rebuild outlasts the requests.
REBUILD = {"ssd.geometry.channels": 1, "ssd.geometry.planes_per_die": 1, "ssd.geometry.blocks_per_plane": 64,
           "ssd.geometry.pages_per_block": 64, "array.level": "raid5", "array.members": 5,
           "array.stripe_unit_bytes": 16384, "array.spares": 1, "array.failures": [{"member": 3, "at_request": 3900}],
           "workload.requests": 4000, "workload.read_fraction": 0.7, "workload.mean_interarrival_ns": 400000}


def test_a_rebuild_that_outlasts_the_requests_shows_as_rebuilding(monkeypatch, capsys):
    monkeypatch.setattr(raidsim.api, "_EVENTS_PER_STEP", 300)
    r = raidsim.simulate(None, overrides=REBUILD, progress=True)
    shown = frames(capsys.readouterr().err)
    rb = r.to_dict()["rebuild"]
    assert rb["end_ns"] is not None and rb["end_ns"] > r.to_dict()["host"]["duration_ns"]  # it did outlast them
    rebuilding = [f for f in shown if f.startswith("rebuilding")]
    assert rebuilding, shown[-5:]
    assert all("%" not in f and "requests=4,000" in f for f in rebuilding)  # no share of anything, all requests in
    counts = [int(re.search(r"rebuilt=([\d,]+) stripes", f).group(1).replace(",", "")) for f in rebuilding]
    assert counts == sorted(counts) and counts[-1] < rb["stripes_rebuilt"]
    assert shown[-1].endswith(f"requests=4,000, rebuilt={rb['stripes_rebuilt']:,} stripes"), shown[-1]
    # Before the last request was issued the bar showed its share, not the rebuild phase.
    assert any(f.startswith("simulating:") and "%|" in f and "requests=" in f for f in shown)


def test_a_run_without_failures_never_reads_the_report_for_a_rebuild(monkeypatch, capsys):
    monkeypatch.setattr(raidsim.api, "_EVENTS_PER_STEP", 500)
    raidsim.simulate(None, overrides={"workload.requests": 2000}, progress=True)
    assert not any("rebuil" in f for f in frames(capsys.readouterr().err))


def test_the_bar_is_tqdm_std_without_ipywidgets(monkeypatch):
    import tqdm.std

    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # not importable
    with _progress.bar(total=1, disable=True) as b:
        assert type(b) is tqdm.std.tqdm
    monkeypatch.setattr(_progress, "_widgets_importable", lambda: True)
    import tqdm.auto

    with _progress.bar(total=1, disable=True) as b:
        assert type(b) is tqdm.auto.tqdm


def test_a_jupyter_kernel_without_ipywidgets_shows_the_bar_without_a_tqdm_warning(tmp_path):
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    try:
        import ipywidgets  # noqa: F401
        pytest.skip("ipywidgets is installed: the kernel would draw the widget")
    except ImportError:
        pass
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(textwrap.dedent("""
        import warnings, raidsim, raidsim.api
        warnings.simplefilter("always")
        raidsim.api._EVENTS_PER_STEP = 200  # several slices: the bar shows
        r = raidsim.simulate(None, overrides={"workload.requests": 500}, progress=True)
        print("requests", r.to_dict()["host"]["requests"])
    """))]
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = nb.cells[0].outputs
    text = "".join(o.get("text", "") for o in outputs)
    assert "requests 500" in text and "100%" in text  # the text bar was drawn, to its end
    assert "TqdmWarning" not in text and "IProgress" not in text, text
