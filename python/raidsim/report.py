"""Reports: what a run measured, as a dict, JSON, pandas tables and files."""

from __future__ import annotations

import html
import json
import math
import os
import tomllib
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from . import _text_table
from ._native import ConfigError

if TYPE_CHECKING:
    # Imported where a DataFrame is made: `raidsim run` prints its text without pandas (issue #14).
    import pandas as pd

#: The phases of a run with a failure, as the report's ``rebuild`` section names their response times:
#: requests completed before the first failure, while degraded with no rebuild running (no spare yet, or
#: ``rebuild.delay_ns``), while a rebuild ran, and after the last rebuild ended.
REBUILD_PHASES = (("before", "response_before"), ("degraded", "response_degraded"),
                  ("during", "response_during"), ("after", "response_after"))


class Report:
    """The outcome of one simulation run.

    ``to_dict()`` is the full report as the core wrote it; the table methods
    give pandas DataFrames; ``save(dir)`` writes everything beside the
    resolved configuration.
    """

    def __init__(self, data: Dict[str, Any], config_toml: str, request_log: Any = None):
        self._data = data
        self.config_toml = config_toml
        self._request_log = request_log  # a pyarrow table, when the run kept a request log

    def to_dict(self) -> Dict[str, Any]:
        """The full report."""
        return self._data

    def to_json(self, indent: Optional[int] = 2) -> str:
        """The report as JSON text."""
        return json.dumps(self._data, indent=indent, sort_keys=True)

    @property
    def warnings(self) -> list:
        """What a reader of these figures must know (saturation, a corrupt
        timestamp, requests out of order); empty when nothing is amiss."""
        return list(self._data["warnings"])

    def summary(self) -> pd.DataFrame:
        """One row: requests, IOPS, MB/s, Eq. 5 throughput, response times in ms,
        and the report's warnings joined (empty when there are none). A run with a
        failure adds ``rebuild_s``, ``recovery_mb_per_s``, ``mean_ms_during_rebuild``
        (NaN where the rebuild did not finish or no request completed during it) and
        ``data_loss_events``."""
        import pandas as pd

        return pd.DataFrame([self._summary_row()])

    def _summary_row(self) -> Dict[str, Any]:
        """The row of :meth:`summary`; the text's host table is made from it too."""
        h = self._data["host"]
        row = {
            "requests": h["requests"],
            "reads": h["reads"],
            "writes": h["writes"],
            "duration_s": h["duration_ns"] / 1e9,
            "iops": h["iops"],
            "mb_per_s": h["mb_per_s"],
            "throughput_eq5_mb_per_s": h["throughput_eq5_mb_per_s"],
            # No request completed: no response time (NaN, "-" in the text), not the core's zeros.
            "mean_ms": h["response"]["mean_ns"] / 1e6 if h["response"]["count"] else float("nan"),
            "p99_ms": h["response"]["p99_ns"] / 1e6 if h["response"]["count"] else float("nan"),
            "warnings": "; ".join(self._data["warnings"]),
        }
        rb = self._data.get("rebuild")
        if rb is not None:  # only when the run configured a failure: no zeros for a rebuild that never was
            during = rb["response_during"]
            row.update({
                "rebuild_s": _scaled(rb["duration_ns"], 1e-9),
                "recovery_mb_per_s": _scaled(rb["recovery_bytes_per_s"], 1e-6),
                "mean_ms_during_rebuild": during["mean_ns"] / 1e6 if during["count"] else float("nan"),
                "data_loss_events": len(rb["data_loss_events"]),
            })
        return row

    def latency(self) -> pd.DataFrame:
        """Response-time summary (ms) for all requests, reads and writes; a class with no request (the
        writes of a read-only run) has count 0 and NaN times, not zeros."""
        import pandas as pd

        return pd.DataFrame(self._latency_rows()).set_index("class")

    def _latency_rows(self) -> List[Dict[str, Any]]:
        h = self._data["host"]
        return [{"class": name, **_latency_ms(h[key])}
                for name, key in (("all", "response"), ("read", "read_response"), ("write", "write_response"))]

    def flows(self) -> pd.DataFrame:
        """One row per flow of a flows workload (``Workload.flows``), in their order: requests issued,
        completed and failed (on lost data), IOPS, MB/s, the most commands that waited unfetched in its submission queue, and its
        response times (ms) as :meth:`latency` gives them; empty for a workload of one flow."""
        import pandas as pd

        return pd.DataFrame(self._flow_rows(), columns=_FLOW_COLUMNS).set_index("flow")

    def _flow_rows(self) -> List[Dict[str, Any]]:
        return [{"flow": f["name"], "issued": f["issued"], "requests": f["host"]["requests"],
                 "failed": f["failed_reads"] + f["failed_writes"], "iops": f["host"]["iops"],
                 "mb_per_s": f["host"]["mb_per_s"], "peak_queued": f["peak_queued"],
                 **_latency_ms(f["host"]["response"])} for f in self._data.get("flows", [])]

    def rebuild(self) -> pd.DataFrame:
        """Response-time summary (ms) by phase of a failure, in the columns of :meth:`latency`.

        One row per phase: ``before`` the first failure, ``degraded`` (a member failed, no
        rebuild running: no spare, or ``rebuild.delay_ns``), ``during`` a rebuild, ``after`` the
        last rebuild ended; a request counts in the phase in which it completed, so the counts
        sum to the host's requests. A phase in which no request completed has count 0 and NaN
        times, not zeros. The rest of the section (failure times, the spare, recovery speed,
        data-loss events) is ``to_dict()["rebuild"]``.

        Raises :class:`raidsim.ConfigError` when the run configured no failure
        (``array.failures`` empty): there is no rebuild to describe.
        """
        import pandas as pd

        return pd.DataFrame(self._rebuild_rows()).set_index("phase")

    def _rebuild_rows(self) -> List[Dict[str, Any]]:
        rb = self._rebuild_section()
        return [{"phase": phase, **_latency_ms(rb[key])} for phase, key in REBUILD_PHASES]

    def _rebuild_section(self) -> Dict[str, Any]:
        rb = self._data.get("rebuild")
        if rb is None:
            raise ConfigError("this run configured no failure (array.failures is empty), so it has no rebuild to "
                              "report; fail a member, e.g. array.failures = [{member = 0, at_ns = 500000000}], "
                              "with array.spares = 1 to rebuild it onto a spare")
        return rb

    def devices(self) -> pd.DataFrame:
        """Device counters: one row per device, pages read/written by cause, erases, WA."""
        import pandas as pd

        return pd.DataFrame(self._device_rows()).set_index("device")

    def _device_rows(self) -> List[Dict[str, Any]]:
        """The rows of :meth:`devices`, each with every column: a counter a device lacks (a cause it never
        saw, a disk's timings on an SSD) or that the report left null is 0."""
        return _filled([_device_row(d) for d in self._data["devices"]])

    def pages_by_cause(self) -> pd.DataFrame:
        """Long form: device, cause, pages_read, pages_written (a group-by away from every paper figure)."""
        import pandas as pd

        rows = []
        for d in self._data["devices"]:
            causes = sorted(set(d["pages_read"]) | set(d["pages_written"]))
            for c in causes:
                rows.append({"device": d["name"], "cause": c,
                             "pages_read": d["pages_read"].get(c, 0), "pages_written": d["pages_written"].get(c, 0)})
        return pd.DataFrame(rows, columns=["device", "cause", "pages_read", "pages_written"])

    def time_series(self) -> pd.DataFrame:
        """Per-interval IOPS, MB/s, mean latency (ms) and the drives' garbage-collection runs; collection
        stalls show here."""
        import pandas as pd

        ts = self._data["time_series"]
        return pd.DataFrame({
            "start_s": [t / 1e9 for t in ts["start_ns"]],
            "iops": ts["iops"],
            "mb_per_s": ts["mb_per_s"],
            "mean_latency_ms": [x / 1e6 for x in ts["mean_latency_ns"]],
            "gc_runs": ts["gc_runs"],
        })

    def stats(self) -> pd.DataFrame:
        """Every statistic by dotted component path, with unit and description."""
        import pandas as pd

        return pd.DataFrame(self._data["stats"], columns=["path", "value", "unit", "description"])

    def request_log(self) -> Optional[pd.DataFrame]:
        """The run's request log (``metrics.request_log``), one row per measured request, as the run
        kept it; None when the run kept none (or this report was loaded from a file)."""
        return None if self._request_log is None else self._request_log.to_pandas()

    def request_log_rows(self) -> Optional[int]:
        """Rows of the run's request log; None when it kept none."""
        return None if self._request_log is None else self._request_log.num_rows

    def plot_timeline(self, path: str | os.PathLike, **options: Any) -> str:
        """A PNG of the run interval by interval (IOPS, MB/s, mean and p99 response, failures and
        rebuilds marked); see :func:`raidsim.plot_timeline`. Returns ``path``."""
        from .timeline import plot_timeline

        return plot_timeline(self, path, **options)

    def save(self, directory: str | os.PathLike) -> str:
        """Writes report.json, config.toml (resolved, sorted) and the tables as CSV (rebuild.csv when the
        run configured a failure); returns the directory."""
        from . import _atomic

        out = os.fspath(directory)
        os.makedirs(out, exist_ok=True)
        # Each file whole or not at all: a full disk leaves no truncated report that passes for a result.
        _atomic.write_text(os.path.join(out, "report.json"), self.to_json())
        _atomic.write_text(os.path.join(out, "config.toml"), self.config_toml)
        tables = {"summary.csv": (self.summary, {"index": False}), "latency.csv": (self.latency, {}),
                  "devices.csv": (self.devices, {}), "time_series.csv": (self.time_series, {"index": False}),
                  "stats.csv": (self.stats, {"index": False})}
        if self._data.get("rebuild") is not None:
            tables["rebuild.csv"] = (self.rebuild, {})
        for name, (table, options) in tables.items():
            frame = table()
            _atomic.replace_atomically(os.path.join(out, name), lambda tmp, frame=frame, o=options: frame.to_csv(tmp, **o))
        return out

    def to_text(self, width: Optional[int] = None) -> str:
        """Human-readable tables. ``width``: the devices table, a column per device, is cut into blocks of
        devices that fit this many characters (``raidsim run`` passes the terminal's); None, one block."""
        w = self._data["workload"]
        notes = []
        # Wrapped requests are a warning (the core's, with the fractions), listed with the others.
        if w.get("malformed_skipped"):
            notes.append(f"{w['malformed_skipped']} malformed trace lines skipped (first: {w['first_malformed']})")
        if w.get("trims_skipped"):
            notes.append(f"{w['trims_skipped']:,} trims in the trace left out (workload.trims = \"skip\")")
        # The rebuild section shows the rebuild columns of the summary, and the warnings are listed below.
        host = {k: v for k, v in self._summary_row().items() if k not in ("warnings", *_SUMMARY_REBUILD_COLUMNS)}
        parts = [
            "Host", _records_text([host], nan="-", width=width), "",
            "Response time", _records_text(self._latency_rows(), index="class", nan="-"), "",
            *(["Flows", _records_text(self._flow_rows(), index="flow", nan="-", width=width), ""] if self._data.get("flows") else []),
            *self._steadiness_text(),
            # Transposed: a column per device, as there are a few devices and many counters.
            "Devices", _text_table.transposed(self._device_rows(), index="device", width=width), "",
            *self._writes_text(),
        ]
        if self._data.get("rebuild") is not None:
            parts += ["", *self._rebuild_text()]
        if self._data.get("cost") is not None:
            parts += ["", *self._cost_text()]
        parts += self._controller_text()
        if self.warnings:
            parts += ["", "Warnings"] + [f"- {n}" for n in self.warnings]
        if notes:
            parts += ["", "Notes"] + [f"- {n}" for n in notes]
        return "\n".join(parts)

    def _media_writes(self) -> Dict[str, Any]:
        """What the devices wrote for what the host wrote, from the report's counters.

        ``pages``: pages programmed on every device (members and spares) by cause -- the host's data,
        parity, mirror copies, garbage collection, rebuild -- and, on an SSD, the FTL's block summary pages
        (a statistic of their own); ``bytes``: those pages times each device's page (its sector on a disk),
        which the report does not give, so it is read from the resolved config; ``write_amplification``:
        ``bytes`` over the bytes the host's completed writes asked for (None when it wrote nothing)."""
        cfg = tomllib.loads(self.config_toml)
        stats = {st["path"]: st["value"] for st in self._data["stats"]}
        pages: Dict[str, int] = {}
        written = 0
        for position, d in enumerate(self._data["devices"]):
            counted = dict(d["pages_written"])
            summary = int(stats.get(f"{d['name']}.ftl.summary_pages_written", 0))
            if summary:
                counted["summary"] = summary
            for cause, n in counted.items():
                pages[cause] = pages.get(cause, 0) + n
            written += sum(counted.values()) * _page_bytes(cfg, position)
        host = self._data["host"]["bytes_written"]
        return {"kind": cfg["member"]["kind"], "pages": pages, "bytes": written, "host_bytes": host,
                "write_amplification": written / host if host else None}

    def _writes_text(self) -> list:
        """The section under the devices: bytes written by the host and on the media, their ratio (the
        host-to-media write amplification) and, for an array, parity pages written per data page."""
        w = self._media_writes()
        array = self._data.get("array")
        media, verb = ("flash", "programmed") if w["kind"] == "ssd" else ("disk", "written")
        causes = ", ".join(f"{cause} {n:,}" for cause, n in sorted(w["pages"].items(), key=lambda kv: -kv[1]))
        pages = sum(w["pages"].values())
        what = f"{pages:,} {'pages' if w['kind'] == 'ssd' else 'sectors'}" + (f": {causes}" if causes else "")
        wa = w["write_amplification"]
        lines = [
            "Array" if array is not None else "Drive",
            f"{'host bytes written':27s}{w['host_bytes']:,}",
            f"{f'{media} bytes {verb}':27s}{w['bytes']:,} ({what})",
            f"{'write amplification':27s}" + ("- (the host wrote nothing)" if wa is None else
                                              f"{_text_table.format_cell(wa)} ({media} / host bytes, all devices, every cause)"),
        ]
        lines[2:2] = self._trims_text()
        if array is not None:
            lines.append(f"{'parity / data page writes':27s}{_text_table.format_cell(array['parity_to_data_write_ratio'])}")
        return lines

    def _trims_text(self) -> list:
        """What the host trimmed and, in an array, what the members trimmed and what parity kept."""
        t = self._data.get("trim") or {}
        if not t.get("requests"):
            return []
        line = f"{'host bytes trimmed':27s}{t['bytes']:,} ({t['requests']:,} trim{'' if t['requests'] == 1 else 's'}"
        if self._data.get("array") is not None:
            line += f"; {t['member_bytes']:,} bytes on the members, {t['kept_bytes']:,} kept in parts of stripes under parity"
        return [line + ")"]

    def _steadiness_text(self) -> list:
        """Mean and deviation of throughput per interval, when the run spans at least two whole ones."""
        ts = self._data["time_series"]
        s = ts["steadiness"]
        if s["mb_per_s_std"] is None:
            return []
        return [f"Per interval of {ts['interval_ns'] / 1e9:g} s ({s['intervals']} whole): "
                f"{s['mb_per_s_mean']:,.3f} ± {s['mb_per_s_std']:,.3f} MB/s, "
                f"{s['iops_mean']:,.1f} ± {s['iops_std']:,.1f} IOPS (mean ± sample deviation)", ""]

    def _controller_text(self) -> list:
        """The RAID controller's own statistics (write-back cache, read-ahead, parity engine), when it keeps any."""
        prefix = "array.controller."
        stats = [st for st in self._data.get("stats", []) if st["path"].startswith(prefix)]
        if not stats:
            return []
        return ["", "Controller"] + [f"{st['path'][len(prefix):]:42s}{st['value']:>16,.0f} {st['unit']}" for st in stats]

    def _cost_text(self) -> list:
        """The cost section of :meth:`to_text` (the RAIS paper's §5.4 metrics)."""
        c = self._data["cost"]
        controller = f" + controller ${c['controller_usd']:,.2f}" if c["controller_usd"] else ""
        measured = lambda v, f: "- (no request completed)" if v is None else format(v, f)  # noqa: E731
        return [
            f"Cost ${c['total_usd']:,.2f} (drives ${c['drives_usd']:,.2f}{controller})",
            f"{'IOPS per $':18s}{measured(c['iops_per_usd'], ',.4f')}",
            f"{'MB/s per $':18s}{measured(c['mb_per_s_per_usd'], ',.6f')}",
            f"{'GB per $':18s}{c['gb_per_usd']:,.6f} ({c['capacity_gb']:,.1f} GB)",
        ]

    def _rebuild_text(self) -> list:
        """The rebuild section of :meth:`to_text`: failures, rebuild window, recovery speed, data loss,
        and the response times by phase."""
        rb = self._rebuild_section()
        names = [d["name"] for d in self._data["devices"]]

        def device(i: Optional[int], failure: Optional[dict] = None) -> str:
            if failure is not None and failure.get("chip") is not None:
                return "its spare chip"
            return names[i] if i is not None and 0 <= i < len(names) else f"device {i}"

        spare_chips = rb.get("spare_chips_per_channel")
        chips = bool(spare_chips) or any(f.get("chip") is not None for f in rb["failures"])
        if chips:
            spares = f"{spare_chips if spare_chips is not None else '?'} spare chip{'' if spare_chips == 1 else 's'} per channel"
        else:
            spares = f"{rb['spares']} spare{'' if rb['spares'] == 1 else 's'}"
        lines = [f"Rebuild ({str(rb['policy']).upper()}, {spares})"]
        for f in rb["failures"]:
            who = f"member[{f['member']}]" if f.get("chip") is None else f"chip {f['chip']} of member[{f['member']}]"
            what = f"{who} failed at {_seconds(f['at_ns'])}"
            if f["spare"] is None:
                what += "; no spare: degraded to the end of the run"
            elif f["rebuild_end_ns"] is None:
                what += f"; rebuilding onto {device(f['spare'], f)} from {_seconds(f['rebuild_start_ns'])}, unfinished"
            elif len(rb["failures"]) == 1:  # the rebuild line below gives its window
                what += f"; rebuilt onto {device(f['spare'], f)}"
            elif f["rebuild_end_ns"] == f["rebuild_start_ns"]:
                what += f"; nothing to rebuild onto {device(f['spare'], f)}"
            else:
                what += (f"; rebuilt onto {device(f['spare'], f)} from {_seconds(f['rebuild_start_ns'])} "
                         f"to {_seconds(f['rebuild_end_ns'])}")
            if f.get("stripes_given_up"):
                what += f", {f['stripes_given_up']:,} stripes given up as lost"
            lines.append(f"{'failure':18s}{what}")
        if rb["start_ns"] is None:
            window = "none started (no spare)" if rb["spares"] == 0 and not chips else "none started"
        elif rb["end_ns"] is None:
            window = f"from {_seconds(rb['start_ns'])}, unfinished at the end of the run"
        else:
            window = f"{_seconds(rb['start_ns'])} to {_seconds(rb['end_ns'])}: {_seconds(rb['duration_ns'])}"
        lines.append(f"{'rebuild':18s}{window}")
        recovery = "-" if rb["recovery_bytes_per_s"] is None else f"{rb['recovery_bytes_per_s'] / 1e6:,.2f} MB/s"
        lines.append(f"{'recovery':18s}{recovery} ({rb['lost_bytes']:,} bytes, {rb['stripes_rebuilt']:,} stripes "
                     f"rebuilt)")
        if rb.get("strips_by_copy") or rb.get("stripes_consolidated"):
            lines.append(f"{'strips':18s}{rb['strips_by_xor']:,} decoded, {rb['strips_by_copy']:,} copied from a replica; "
                         f"{rb['stripes_consolidated']:,} MW stripes given new parity")
        means = []
        for phase, key in REBUILD_PHASES:
            s = rb[key]
            if s["count"] or phase != "degraded":  # degraded only when something completed in it
                means.append(f"{phase} " + (f"{s['mean_ns'] / 1e6:,.4f} ms" if s["count"] else "-"))
        lines.append(f"{'response mean':18s}{', '.join(means)}")
        if not rb["data_loss_events"]:
            lines.append(f"{'data loss':18s}none")
        for e in rb["data_loss_events"]:
            lines.append(f"{'data loss':18s}member[{e['member']}] at {_seconds(e['at_ns'])}: "
                         f"{e['stripes_lost']:,} stripes, {e['bytes_lost']:,} bytes lost")
        if rb["data_loss_events"] or rb["failed_reads"] or rb["failed_writes"]:
            lines.append(f"{'failed requests':18s}{rb['failed_reads']:,} reads, {rb['failed_writes']:,} writes "
                         "(they touched lost data)")
        # A phase in which nothing completed has no times: "-", not "nan".
        table = _records_text(self._rebuild_rows(), index="phase", nan="-")
        return lines + ["", "Response time by phase", table]

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        h = self._data["host"]
        warned = len(self._data["warnings"])
        r = h["response"]
        times = (f"mean {r['mean_ns'] / 1e6:.4f} ms, p99 {r['p99_ns'] / 1e6:.4f} ms" if r["count"] else
                 "no response time (none completed)")
        return (f"<Report {self._what()}: {h['requests']:,} request{'s' if h['requests'] != 1 else ''}, {times}, "
                f"{h['iops']:,.0f} IOPS, {h['mb_per_s']:.2f} MB/s"
                + (f", {warned} warning{'s' if warned != 1 else ''}>" if warned else ">"))

    def _what(self) -> str:
        """What ran, from the resolved config: "raid5 of 5 ssd members" or "single ssd"."""
        cfg = tomllib.loads(self.config_toml)
        kind, array = cfg["member"]["kind"], cfg["array"]
        return f"single {kind}" if array["level"] == "single" else f"{array['level']} of {array['members']} {kind} members"

    def _repr_html_(self) -> str:
        """Jupyter's view: what ran, the summary, response times, the devices and every warning."""
        parts = [f"<p><b>raidsim report</b>: {html.escape(self._what())}</p>",
                 self.summary().drop(columns="warnings").to_html(index=False, float_format=lambda v: f"{v:.4g}",
                                                                 na_rep="-"),
                 "<p>Response time (ms)</p>", self.latency().to_html(float_format=lambda v: f"{v:.4g}", na_rep="-"),
                 "<p>Devices</p>", self.devices().to_html()]
        if self.warnings:
            parts.append("<p><b>Warnings</b></p><ul>" + "".join(f"<li>{html.escape(w)}</li>" for w in self.warnings) + "</ul>")
        return "\n".join(parts)


def plot_rebuild(report: Report, path: str | os.PathLike, *, title: Optional[str] = None) -> str:
    """A PNG of what the host saw through a failure and its rebuild; returns ``path``.

    Top: mean response time (ms) of the requests completed in each interval of the report's time
    series (``metrics.interval_ns`` sets the width); bottom: completed requests per second. An
    interval in which nothing completed is a gap, not a zero. Vertical lines mark each failure, each
    rebuild's start and end (the rebuild shaded) and each data-loss event. Raises
    :class:`raidsim.ConfigError` when the run configured no failure.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ._figures import save_figure

    rb = report._rebuild_section()
    data = report.to_dict()
    ts = report.time_series()
    width_s = data["time_series"]["interval_ns"] / 1e9
    mid = ts["start_s"] + width_s / 2
    served = ts["iops"] > 0
    fig, (ax, ax_iops) = plt.subplots(2, 1, figsize=(8, 5.2), sharex=True, height_ratios=[2, 1])
    ax.plot(mid, ts["mean_latency_ms"].where(served), color="tab:blue", lw=1.4, label="mean response time")
    ax_iops.plot(mid, ts["iops"], color="tab:gray", lw=1.2)
    labelled = set()

    def mark(ns: Optional[int], label: str, **style: Any) -> None:
        if ns is None:
            return
        for a in (ax, ax_iops):
            a.axvline(ns / 1e9, lw=1.3, **style)
        if label not in labelled:  # one legend entry a kind
            ax.plot([], [], lw=1.3, label=label, **style)
            labelled.add(label)

    for f in rb["failures"]:
        mark(f["at_ns"], "failure", color="tab:red", ls="-")
        mark(f["rebuild_start_ns"], "rebuild start", color="tab:orange", ls="--")
        mark(f["rebuild_end_ns"], "rebuild end", color="tab:green", ls="--")
        if f["rebuild_start_ns"] is not None:
            end = f["rebuild_end_ns"] if f["rebuild_end_ns"] is not None else data["host"]["duration_ns"]
            for a in (ax, ax_iops):
                a.axvspan(f["rebuild_start_ns"] / 1e9, end / 1e9, color="tab:orange", alpha=0.08, lw=0)
    for e in rb["data_loss_events"]:
        mark(e["at_ns"], "data loss", color="black", ls=":")
    ax.set_ylabel("mean response time (ms)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    ax_iops.set_ylabel("completed (IOPS)")
    ax_iops.set_xlabel(f"simulated time (s); intervals of {width_s * 1e3:g} ms")
    ax_iops.set_ylim(bottom=0)
    ax_iops.grid(True, alpha=0.3)
    if title is None:
        level = str((data.get("array") or {}).get("level", "array")).upper()
        members = sum(d["name"].startswith("member[") for d in data["devices"])
        spares = f"{rb['spares']} spare{'' if rb['spares'] == 1 else 's'}"
        title = (f"{level} of {members} members, {spares}: what the host sees through a failure "
                 f"and its {str(rb['policy']).upper()} rebuild")
    ax.set_title(title, fontsize=10)
    out = os.fspath(path)
    if os.path.dirname(out):
        os.makedirs(os.path.dirname(out), exist_ok=True)
    return save_figure(fig, out, dpi=110)


#: The columns summary() adds for a run with a failure (to_text shows them in its rebuild section).
_SUMMARY_REBUILD_COLUMNS = ("rebuild_s", "recovery_mb_per_s", "mean_ms_during_rebuild", "data_loss_events")


#: The columns of :meth:`Report.flows` (an empty frame has them too).
_FLOW_COLUMNS = ["flow", "issued", "requests", "failed", "iops", "mb_per_s", "peak_queued", "count", "mean_ms", "p50_ms", "p90_ms",
                 "p99_ms", "p99.9_ms", "max_ms"]


def _latency_ms(s: Dict[str, Any], empty: float = float("nan")) -> Dict[str, Any]:
    """A latency summary of the report (ns) as a table row in ms; ``empty`` for the times when it counted
    nothing (the core writes null there)."""
    def ms(key: str) -> float:
        return s[key] / 1e6 if s["count"] else empty
    return {"count": s["count"], "mean_ms": ms("mean_ns"), "p50_ms": ms("p50_ns"), "p90_ms": ms("p90_ns"),
            "p99_ms": ms("p99_ns"), "p99.9_ms": ms("p999_ns"), "max_ms": ms("max_ns")}


def _scaled(value: Optional[float], scale: float) -> float:
    return float("nan") if value is None else value * scale


def _seconds(ns: Optional[int]) -> str:
    return "-" if ns is None else f"{ns / 1e9:,.4f} s"


def _page_bytes(cfg: Dict[str, Any], position: int) -> int:
    """The page (an SSD's) or sector (a disk's) of the report's ``position``-th device, in bytes: members
    come first, then spares; ``array.member_ssd[i]`` may give member i pages of its own, spares take ``[ssd]``."""
    if cfg["member"]["kind"] == "hdd":
        return cfg["hdd"]["bytes_per_sector"]
    page = cfg["ssd"]["geometry"]["page_size_bytes"]
    own = cfg["array"].get("member_ssd") or []
    if cfg["array"]["level"] not in ("single", "cr5", "cr5m") and position < min(len(own), cfg["array"]["members"]):
        page = own[position].get("geometry", {}).get("page_size_bytes", page)
    return page


def _device_row(d: Dict[str, Any]) -> Dict[str, Any]:
    """One device's counters, keyed by column of :meth:`Report.devices`; only those the device has."""
    row: Dict[str, Any] = {"device": d["name"]}
    row.update({f"read.{c}": n for c, n in d["pages_read"].items()})
    row.update({f"written.{c}": n for c, n in d["pages_written"].items()})
    row.update({
        "erases": d["erases"],
        "gc_runs": d["gc_runs"],
        "write_amplification": d["write_amplification"],
    })
    if d["erase_count"] is not None:
        row.update({f"erase_count_{k}": d["erase_count"][k] for k in ("min", "mean", "max", "std")})
    if d["disk"] is not None:
        row.update({f"disk.{k}": v for k, v in d["disk"].items()})
    return row


def _filled(rows: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Every row with every key of any row, in the order keys first appear (pandas' column order).

    A missing or null value becomes 0.0: a float, so that the DataFrame has the column types it had
    when pandas' ``fillna(0)`` filled the gaps, and the text prints it as 0 all the same.
    """
    columns = list(dict.fromkeys(k for row in rows for k in row))
    return [{c: _zero_if_missing(row.get(c)) for c in columns} for row in rows]


def _zero_if_missing(value: Any) -> Any:
    return 0.0 if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _records_text(rows: List[Dict[str, Any]], index: Optional[str] = None, nan: str = "nan",
                  width: Optional[int] = None) -> str:
    """Rows of the same keys as a text table, a column per key; ``index`` is the key labelling the rows
    (first, left-aligned, its name on a line under the header); ``width`` as :func:`_text_table.render`'s."""
    if index is None:
        header = list(rows[0])
        return _text_table.render(header, [[_text_table.format_cell(row[k], nan) for k in header] for row in rows],
                                  width=width)
    keys = [index, *(k for k in rows[0] if k != index)]
    body = [[_text_table.format_cell(row[k], nan) for k in keys] for row in rows]
    return _text_table.render(["", *keys[1:]], body, index=True, index_name=index, width=width)
