"""A study's report: its declared figures and tables, and one HTML page of everything a reader needs.

After a sweep, :func:`render` draws the study's ``[[plots]]`` (PNG and SVG in
``figures/``), writes its ``[[tables]]`` (CSV in ``tables/``) and writes
``report.html``: the study's title and name, the raidsim version, the date,
the workload, the figures (PNG embedded, SVG linked), the tables, every
warning (per point: saturation, wrapped or skipped trace requests, failed
points; per figure: values it could not draw) and each point's resolved
config, folded. Every text on the page is escaped. It is rebuilt from the
journal on every run, reused points included, so it always shows the
results beside it; ``figures/`` and ``tables/`` are the report's, and a file
there that the spec no longer declares is removed. See
:mod:`raidsim.study.plot_specs` for what a spec declares.
"""

from __future__ import annotations

import base64
import html
import os
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence

from .. import _text_table
from . import plots

if TYPE_CHECKING:
    from .spec import Point, Study

PAGE = "report.html"
FIGURES = "figures"
TABLES = "tables"


@dataclass
class StudyReport:
    """What :func:`render` wrote."""

    page: str
    figures: List[plots.Figure] = field(default_factory=list)
    tables: List[plots.Table] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)


def point_warnings(report: Mapping[str, Any]) -> List[str]:
    """What a reader of a point's figures must know, from its report: the core's warnings (saturation,
    a corrupt timestamp, requests out of order, ...) and the workload's fitting of a trace to the device."""
    out = list(report.get("warnings", []))
    w = report.get("workload", {})
    # Wrapped requests are among the core's warnings, with their fractions.
    if w.get("malformed_skipped"):
        out.append(f"{w['malformed_skipped']} malformed trace lines skipped (first: {w.get('first_malformed')})")
    if w.get("zero_length_skipped"):
        out.append(f"{w['zero_length_skipped']} zero-length trace requests skipped")
    return out


def render(study: "Study", out: str, points: Sequence["Point"], records: Mapping[str, Mapping[str, Any]],
           write: Callable[[str, Callable[[str], None]], None], left_out: Sequence[str] = ()) -> StudyReport:
    """Draws the study's figures and tables into ``out`` and writes its page; ``write(path, fill)`` writes
    a file atomically (``fill`` writes the temporary path). ``left_out``: metrics results_long.csv lacks."""
    # The earlier page first: a figure that cannot be drawn (a metric whose shape only the points showed)
    # must not leave the last run's page and figures passing for this one's.
    remove(out)
    rows = [_point_row(p, records.get(p.point_id)) for p in points]
    figures = _figures(study, out, rows, write)
    tables = _tables(study, out, rows, write)
    warnings = [f"results_long.csv leaves out {m}: its values are text or true/false" for m in left_out]
    warnings += [n for f in figures for n in f.notes]
    page = os.path.join(out, PAGE)
    report = StudyReport(page, figures, tables, warnings + _points_warnings(points, records))
    text = _page(study, out, points, records, report)
    write(page, lambda tmp: _write_text(tmp, text))
    return report


def _point_row(p: "Point", record: Optional[Mapping[str, Any]]) -> plots.PointRow:
    if record is None:
        return plots.PointRow(p.case, p.settings, "not run", {}, p.label)
    return plots.PointRow(p.case, p.settings, record["status"], record["values"], p.label)


def _figures(study: "Study", out: str, rows: Sequence[plots.PointRow],
             write: Callable[[str, Callable[[str], None]], None]) -> List[plots.Figure]:
    directory = os.path.join(out, FIGURES)
    if study.plots:
        os.makedirs(directory, exist_ok=True)

    def save(fig: Any, path: str, fmt: str) -> None:
        write(path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=110))

    figures = [plots.draw(plot, rows, directory, f"{study.origin}: plots[{plot.index}] (`{plot.name}`)", save)
               for plot in study.plots]
    if study.replicates > 1:
        for f in figures:
            f.caption = (f"each marker is the mean of a point's {study.replicates} replicates (seeds sim.seed, "
                         "sim.seed + 1, ...); summary.csv has their 95 % intervals")
    _remove_stale(directory, {p for f in figures for p in (f.png, f.svg)}, (".png", ".svg"))
    return figures


def _tables(study: "Study", out: str, rows: Sequence[plots.PointRow],
            write: Callable[[str, Callable[[str], None]], None]) -> List[plots.Table]:
    import csv

    directory = os.path.join(out, TABLES)
    if study.tables:
        os.makedirs(directory, exist_ok=True)
    tables, paths = [], set()
    for spec in study.tables:
        table = plots.tabulate(spec, rows, f"{study.origin}: tables[{spec.index}] (`{spec.name}`)")
        path = os.path.join(directory, spec.name + ".csv")

        def fill(tmp: str, table: plots.Table = table) -> None:
            with open(tmp, "w", newline="", encoding="utf-8") as f:
                csv.writer(f).writerows([table.header, *table.rows])
        write(path, fill)
        tables.append(table)
        paths.add(path)
    _remove_stale(directory, paths, (".csv",))
    return tables


def remove(out: str) -> None:
    """Removes a report of an earlier run from ``out`` (the page, its figures and tables): about to be
    outdated by points that run now, it would otherwise pass for the results beside it."""
    page = os.path.join(out, PAGE)
    if os.path.exists(page):
        os.remove(page)
    _remove_stale(os.path.join(out, FIGURES), set(), (".png", ".svg"))
    _remove_stale(os.path.join(out, TABLES), set(), (".csv",))


def _remove_stale(directory: str, kept: set, suffixes: Sequence[str]) -> None:
    """Removes figures or tables of an earlier run that the spec no longer declares: the directory is the report's."""
    if not os.path.isdir(directory):
        return
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        if name.endswith(tuple(suffixes)) and path not in kept:
            os.remove(path)


def _points_warnings(points: Sequence["Point"], records: Mapping[str, Mapping[str, Any]]) -> List[str]:
    out = []
    for p in points:
        r = records.get(p.point_id)
        if r is None:
            out.append(f"{p.label}: not run")
        elif r["status"] != "ok":
            out.append(f"{p.label}: failed: {r['error']}")
        else:
            out += [f"{p.label}: {w}" for w in r.get("warnings", [])]
    return out


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# --- the page ----------------------------------------------------------------------------------

_STYLE = """body{font-family:sans-serif;max-width:1150px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:12px;margin:0.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
th{background:#f3f3f3}figure{display:inline-block;margin:8px;vertical-align:top}img{max-width:540px}
pre{background:#f7f7f7;padding:0.5em;overflow-x:auto;font-size:12px}.meta{color:#555}
li.warning{color:#8a3b00}details{margin:0.2em 0}"""


def _page(study: "Study", out: str, points: Sequence["Point"], records: Mapping[str, Mapping[str, Any]],
          report: StudyReport) -> str:
    import raidsim

    e = html.escape
    failed = sum(1 for p in points if records.get(p.point_id, {}).get("status") != "ok")
    title = study.title or study.name
    parts = [
        f"<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{e(title)}</title><style>{_STYLE}</style>"
        f"</head><body>\n<h1>{e(title)}</h1>",
        f"<p class=\"meta\">study <code>{e(study.name)}</code>"
        + (f" ({e(study.origin)})" if study.origin != study.name else " (packaged)") + " &middot; raidsim "
        f"{e(raidsim.__version__)} &middot; {e(datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC'))} &middot; "
        f"{len(points)} points" + (f", {failed} without results" if failed else "") + " &middot; "
        + (f"<a href=\"#warnings\">{len(report.warnings)} warnings</a>" if report.warnings else "no warnings")
        + "</p>",
    ]
    if study.description:
        parts.append(f"<p>{e(study.description)}</p>")
    if study.spec.get("scaled_down"):
        parts.append(f"<p><b>Scaled down:</b> {e(study.spec['scaled_down'])}</p>")
    configs = _configs(out, points, records)
    parts += _workload_section(configs, points)
    parts += _figures_section(out, report.figures)
    parts += _tables_section(out, report.tables)
    parts.append("<h2 id=\"warnings\">Warnings</h2>")
    parts.append("<ul>" + "".join(f"<li class=\"warning\">{e(w)}</li>" for w in report.warnings) + "</ul>"
                 if report.warnings else "<p>None.</p>")
    parts += _configs_section(points, records, configs)
    parts.append("<h2>Files</h2><p>Every point and metric: <a href=\"results.csv\">results.csv</a> / "
                 "results.parquet (wide: one row per point), <a href=\"results_long.csv\">results_long.csv</a> / "
                 "results_long.parquet (long: one row per point, metric and member); resolved configs in "
                 "<code>configs/</code>; the journal <code>points.jsonl</code>.</p>\n</body></html>\n")
    return "\n".join(parts)


def _configs(out: str, points: Sequence["Point"], records: Mapping[str, Mapping[str, Any]]) -> Dict[str, str]:
    """Each finished point's resolved config (TOML text), from ``configs/``."""
    texts = {}
    for p in points:
        path = os.path.join(out, "configs", f"{p.point_id}.toml")
        if records.get(p.point_id, {}).get("status") == "ok" and os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                texts[p.point_id] = f.read()
    return texts


def _workload_section(configs: Mapping[str, str], points: Sequence["Point"]) -> List[str]:
    e = html.escape
    workloads = [tomllib.loads(t)["workload"] for t in configs.values()]
    if not workloads:
        return ["<h2>Workload</h2><p>No point finished, so no resolved workload to describe.</p>"]
    # What differs: among the finished points' resolved workloads, and what the study sets per point
    # (a failed point has no resolved config to compare).
    varying = {"workload." + k for k in set().union(*workloads) if any(w.get(k) != workloads[0].get(k) for w in workloads)}
    varying |= {k for p in points for k in p.settings if k == "workload" or k.startswith("workload.")}
    common = {k: v for k, v in workloads[0].items() if "workload." + k not in varying}
    first = "The first finished point's workload: " if varying else ""
    lines = ["<h2>Workload</h2>", f"<p>{e(first + describe_workload(workloads[0]))}</p>"]
    if varying:
        lines.append(f"<p>Varies between points: {e(', '.join(sorted(varying)))} (each point's config is below).</p>")
    lines.append(f"<details><summary>the resolved <code>[workload]</code> of every point"
                 f"{' (the keys they share)' if varying else ''}</summary><pre>{e(_toml_lines(common))}</pre></details>")
    return lines


def describe_workload(w: Mapping[str, Any]) -> str:
    """One sentence of a resolved ``[workload]`` table's main settings (the page shows the whole table too).

    Resolved: every key is there (only an unset ``format`` is absent), so a missing one is a KeyError, never a
    sentence with a made-up 0 in it."""
    kind = w["kind"]
    if kind == "synthetic":
        if w["processes"]:
            loop = f"closed loop: {w['processes']} processes, each issuing its next request when its last completes"
            if w["think_time_ns"]:
                loop += f" after {w['think_time_ns'] / 1e6:g} ms"
        else:
            loop = f"open loop: {w['arrival']} arrivals {w['mean_interarrival_ns'] / 1e6:g} ms apart on average"
        size = w["size"]
        sizes = f"sizes {size['kind']}, mean {_bytes(size['mean_bytes'])}"
        if size["kind"] == "uniform":
            sizes = f"sizes uniform from {_bytes(size['min_bytes'])} to {_bytes(size['max_bytes'])}"
        span = f"{_bytes(w['span_bytes'])} from byte {w['start_bytes']:,}" if w["span_bytes"] else "the whole device"
        return (f"Synthetic, {w['requests']:,} requests, {loop}; {w['read_fraction'] * 100:g} % reads; "
                f"{sizes}; {w['address']} addresses over {span}, {w['sequential_fraction'] * 100:g} % "
                "of requests starting where the previous one ended.")
    if kind == "trace":
        limit = f"its first {w['max_requests']:,} requests" if w["max_requests"] else "all its requests"
        timing = (f"closed loop, one request at a time, each the trace's idle time (scaled by {w['time_scale']:g}) "
                  "after the previous one completes" if w.get("replay") == "closed"
                  else f"timestamps scaled by {w['time_scale']:g}")
        return (f"Trace replay of {w['path']} (format {w.get('format') or 'detected'}), {limit}, {timing}; "
                f"requests beyond the capacity: {w['out_of_range']}.")
    if kind == "requests":
        return "Listed requests (workload.requests)."
    if kind == "flows":
        fetch = f"a queue fetch size of {w['queue_fetch_size']:,}" if w["queue_fetch_size"] else "no queue fetch limit"
        stop = f"issuing for {w['stop_time_ns'] / 1e9:g} s" if w["stop_time_ns"] else "each to its request count"
        flows = " ".join(f"Flow {i + 1}: " + _flow_sentence(f, w["address_space"]) for i, f in enumerate(w["flows"]))
        return (f"{len(w['flows'])} flows at once ({w['address_space']} address space, {fetch}, {stop}). {flows}")
    raise ValueError(f"a resolved workload of unknown kind {kind!r} (a raidsim bug)")


def _flow_sentence(f: Mapping[str, Any], address_space: str) -> str:
    """A flow's sentence: the synthetic one, its count and span said as a flow's."""
    text = describe_workload({**f, "kind": "synthetic"})
    if f["requests"] == 0:
        text = text.replace("Synthetic, 0 requests,", "Synthetic, requests until the stop time,", 1)
    if address_space == "partitioned":
        text = text.replace("over the whole device", "over its whole part of the device").replace(
            " from byte ", " from byte (of its part) ")
    return text


def _bytes(n: Any) -> str:
    if not isinstance(n, int):
        return str(n)
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            return f"{n / size:g} {unit}"
    return f"{n} bytes"


def _toml_lines(table: Mapping[str, Any], prefix: str = "") -> str:
    lines = []
    for k, v in table.items():
        if isinstance(v, dict):
            lines.append(_toml_lines(v, f"{prefix}{k}."))
        else:
            lines.append(f"{prefix}{k} = {_toml_value(v)}")
    return "\n".join(x for x in lines if x)


def _toml_value(v: Any) -> str:
    import json

    return json.dumps(v) if not isinstance(v, bool) else str(v).lower()


def _figures_section(out: str, figures: Sequence[plots.Figure]) -> List[str]:
    if not figures:
        return []
    e = html.escape
    parts = ["<h2>Figures</h2>"]
    for f in figures:
        with open(f.png, "rb") as fh:
            data = base64.b64encode(fh.read()).decode("ascii")
        svg, png = os.path.relpath(f.svg, out), os.path.relpath(f.png, out)
        caption = f" &middot; {e(f.caption)}" if f.caption else ""
        parts.append(f"<figure><img src=\"data:image/png;base64,{data}\" alt=\"{e(f.title)}\"><figcaption>"
                     f"{e(f.title)}{caption} &middot; <a href=\"{e(svg)}\">SVG</a> &middot; "
                     f"<a href=\"{e(png)}\">PNG</a></figcaption></figure>")
    return parts


def _tables_section(out: str, tables: Sequence[plots.Table]) -> List[str]:
    if not tables:
        return []
    e = html.escape
    parts = ["<h2>Tables</h2>"]
    for t in tables:
        path = os.path.relpath(os.path.join(out, TABLES, t.name + ".csv"), out)
        parts.append(f"<h3>{e(t.title or t.name)}</h3>")
        head = "".join(f"<th>{e(h)}</th>" for h in t.header)
        body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in t.rows)
        parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
                     f"<p><a href=\"{e(path)}\">{e(path)}</a> (a missing value is {e(plots.MISSING)})</p>")
    return parts


def _configs_section(points: Sequence["Point"], records: Mapping[str, Mapping[str, Any]],
                     configs: Mapping[str, str]) -> List[str]:
    e = html.escape
    parts = ["<h2>Points and their resolved configs</h2>"]
    for p in points:
        r = records.get(p.point_id)
        status = "not run" if r is None else r["status"]
        body = (f"<pre>{e(configs[p.point_id])}</pre>" if p.point_id in configs
                else f"<p>No resolved config: the point {e(status)}"
                     + (f" ({e(str(r['error']))})" if r is not None and r.get("error") else "") + ".</p>")
        parts.append(f"<details><summary><code>{e(p.point_id)}</code> {e(p.label)} &middot; {e(status)}</summary>"
                     f"{body}</details>")
    return parts


def text(report: StudyReport) -> str:
    """The tables as fixed-width text, for a terminal."""
    parts = []
    for t in report.tables:
        parts += [t.title or t.name, _text_table.render(t.header, t.rows), ""]
    return "\n".join(parts).rstrip()
