"""A run over time: the host's view interval by interval, and each request on its own.

A report's summary (mean, percentiles) hides what happens when: a burst of
slow requests behind garbage collection, the cost of a rebuild while it
runs. Two things show it.

* **The request log.** ``metrics.request_log = "run.parquet"`` makes a run
  keep one row per measured host request (the requests the report counts:
  after the warm-up, served or failed on lost data) and :func:`raidsim.simulate`
  writes them as Parquet when the run ends — the per-request trace DiskSim,
  MQSim and fio each write. Columns: ``arrival_ns``, ``op`` (``"R"``/``"W"``),
  ``offset_bytes``, ``len_bytes``, ``completion_ns``, ``response_ns``,
  ``served`` and ``flow`` (0 for a single workload, N for ``flow-N`` of a
  flows workload); rows in completion order. Trims have no row. :func:`read_request_log` reads one
  back as a pandas DataFrame.
* **The timeline.** :func:`plot_timeline` (or ``report.plot_timeline(path)``)
  draws, per interval of the report's time series (``metrics.interval_ns``),
  completed IOPS, MB/s, and the mean response time; with a request log, the
  99th percentile of the requests completed in each interval too. The
  drives' garbage-collection runs per second stand beside the IOPS, and
  each member failure and rebuild is marked.

Example::

    import raidsim
    report = raidsim.simulate("stripe-unit-table5", raidsim.Workload.synthetic(requests=20_000),
                              overrides={"metrics.request_log": "run.parquet"})
    log = raidsim.read_request_log("run.parquet")
    report.plot_timeline("timeline.png")
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

from . import _atomic

if TYPE_CHECKING:
    import pandas as pd

#: The columns the core hands over: (name, numpy dtype of its little-endian bytes).
_CORE_COLUMNS = {"arrival_ns": "<u8", "op": "u1", "offset_bytes": "<u8", "len_bytes": "<u8",
                 "completion_ns": "<u8", "served": "u1", "flow": "<u2"}


def log_path(resolved: Dict[str, Any]) -> Optional[str]:
    """The ``metrics.request_log`` path of a resolved config (as parsed TOML), or None when empty.
    A path that is not UTF-8 is stored as the list of its bytes."""
    value = resolved.get("metrics", {}).get("request_log", "")
    if isinstance(value, list):
        return os.fsdecode(bytes(value))
    return value or None


def request_log_table(columns: List[Tuple[str, bytes]]) -> Any:
    """The core's columns (:meth:`raidsim._native.Simulation.request_log`) as a pyarrow table."""
    import numpy as np
    import pyarrow as pa

    raw = {name: np.frombuffer(data, dtype=_CORE_COLUMNS[name]) for name, data in columns}
    if set(raw) != set(_CORE_COLUMNS):
        raise RuntimeError(f"the core's request log has columns {sorted(raw)}, expected {sorted(_CORE_COLUMNS)}")
    # The op's categories are R and W whatever the run held, so logs of two runs concatenate.
    op = pa.DictionaryArray.from_arrays(pa.array(raw["op"], type=pa.int8()), pa.array(["R", "W"]))
    return pa.table({
        "arrival_ns": raw["arrival_ns"],
        "op": op,
        "offset_bytes": raw["offset_bytes"],
        "len_bytes": raw["len_bytes"],
        "completion_ns": raw["completion_ns"],
        "response_ns": raw["completion_ns"] - raw["arrival_ns"],
        "served": raw["served"].astype(bool),
        "flow": raw["flow"],
    })


def write_request_log(table: Any, path: str) -> str:
    """Writes a request log table to ``path`` as Parquet, whole or not at all; returns ``path``.

    Through a Python file, so the path is a local file name whatever it looks like (pyarrow reads
    ``run:2.parquet`` as a URI and expands ``~``), and a path that is not UTF-8 works."""
    import pyarrow.parquet as pq

    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            pq.write_table(table, f)

    _atomic.replace_atomically(path, write)
    return path


def read_request_log(path: Union[str, os.PathLike]) -> "pd.DataFrame":
    """A request log written by a run (``metrics.request_log``), one row per request."""
    import pandas as pd

    return pd.read_parquet(path)


def _p99_by_interval(log: "pd.DataFrame", start_ns: int, width_ns: int, buckets: int) -> List[float]:
    """The 99th percentile response (ms) of the served requests completed in each interval; NaN where none."""
    served = log[log["served"]]
    index = ((served["completion_ns"].astype("int64") - start_ns) // width_ns).clip(0, buckets - 1)
    p99 = served["response_ns"].groupby(index).quantile(0.99) / 1e6
    return [float(p99.get(i, float("nan"))) for i in range(buckets)]


def plot_timeline(report: Any, path: Union[str, os.PathLike], *, request_log: Optional["pd.DataFrame"] = None,
                  title: Optional[str] = None) -> str:
    """A PNG of ``report`` (a :class:`raidsim.Report`) interval by interval; returns ``path``.

    Top: mean response time (ms) of the requests completed in each interval, and their 99th
    percentile when a request log is at hand (``request_log``, or the one the run kept with
    ``metrics.request_log``; never a file read back, which another run may have overwritten); middle: completed IOPS, and the drives' garbage-collection runs per
    second (dashed, right scale) when they collected; bottom: MB/s. An interval in which nothing
    completed is a gap, not a zero. Member failures and rebuilds are marked as in
    :func:`raidsim.plot_rebuild`.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ._figures import save_figure

    data = report.to_dict()
    ts = report.time_series()
    width_ns = int(data["time_series"]["interval_ns"])
    if len(ts) == 0 or width_ns == 0:
        raise ValueError("the report has no time series to draw (a run of no requests)")
    if request_log is None:
        request_log = report.request_log()
    mid = ts["start_s"] + width_ns / 2e9
    served = ts["iops"] > 0
    fig, (ax, ax_iops, ax_mb) = plt.subplots(3, 1, figsize=(8, 6.4), sharex=True, height_ratios=[2, 1, 1])
    ax.plot(mid, ts["mean_latency_ms"].where(served), color="tab:blue", lw=1.4, label="mean response time")
    if request_log is not None and len(request_log):
        p99 = _p99_by_interval(request_log, int(data["time_series"]["start_ns"][0]), width_ns, len(ts))
        ax.plot(mid, p99, color="tab:purple", lw=1.1, label="p99 response time")
    ax_iops.plot(mid, ts["iops"], color="tab:gray", lw=1.2)
    if ts["gc_runs"].any():
        # Collection on a second scale: runs per second of the drives, beside what the host completed.
        ax_gc = ax_iops.twinx()
        ax_gc.plot(mid, ts["gc_runs"] / (width_ns / 1e9), color="tab:brown", lw=0.9, ls="--")
        ax_gc.set_ylabel("GC runs/s", color="tab:brown")
        ax_gc.set_ylim(bottom=0)
    ax_mb.plot(mid, ts["mb_per_s"], color="tab:green", lw=1.2)
    _mark_failures(data, (ax, ax_iops, ax_mb))
    for a, label in ((ax, "response time (ms)"), (ax_iops, "completed (IOPS)"), (ax_mb, "MB/s")):
        a.set_ylabel(label)
        a.set_ylim(bottom=0)
        a.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    ax_mb.set_xlabel(f"simulated time (s); intervals of {width_ns / 1e6:g} ms")
    ax.set_title(title or _default_title(data), fontsize=10)
    return save_figure(fig, os.fspath(path))


def _mark_failures(data: Dict[str, Any], axes: Tuple[Any, ...]) -> None:
    """Vertical lines at each member failure and rebuild start and end, the rebuild shaded."""
    rebuild = data.get("rebuild") or {}
    labelled = set()

    def label(kind: str, a: Any) -> Optional[str]:  # one legend entry a kind, on the top panel
        if a is not axes[0] or kind in labelled:
            return None
        labelled.add(kind)
        return kind

    for f in rebuild.get("failures", []):
        for a in axes:
            a.axvline(f["at_ns"] / 1e9, color="tab:red", lw=1.2, label=label("failure", a))
            if f.get("rebuild_start_ns") is not None:
                end = f["rebuild_end_ns"] if f.get("rebuild_end_ns") is not None else data["host"]["duration_ns"]
                a.axvspan(f["rebuild_start_ns"] / 1e9, end / 1e9, color="tab:orange", alpha=0.1, lw=0,
                          label=label("rebuild", a))
    for e in rebuild.get("data_loss_events", []):
        for a in axes:
            a.axvline(e["at_ns"] / 1e9, color="black", lw=1.2, ls=":", label=label("data loss", a))


def _default_title(data: Dict[str, Any]) -> str:
    host = data["host"]
    level = str((data.get("array") or {}).get("level", "single drive")).upper()
    title = (f"{level}: {host['requests']:,} requests served, mean {host['response']['mean_ns'] / 1e6:.3f} ms, "
             f"p99 {host['response']['p99_ns'] / 1e6:.3f} ms")
    rebuild = data.get("rebuild") or {}
    failed = rebuild.get("failed_reads", 0) + rebuild.get("failed_writes", 0)
    return title + (f"; {failed:,} failed on lost data" if failed else "")
