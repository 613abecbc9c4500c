"""The CR5M paper's evaluation (Pan & Xie, ACM TECS 2018, §4.3-4.4, Figures 8-14).

CR5 (channel-level RAID-5 inside one SSD) against CR5M (the same SSD with
one chip per channel turned into a mirroring chip, Algorithm 1), and MCR
against DOR reconstruction (Algorithm 2) after a data chip fails at the
middle request. The paper's traces are not public here: each becomes a
synthetic stand-in with the statistics of its Table 2 (see
``experiments/cr5m.toml`` for every choice the table leaves open), and the
shared traces of the same kinds run beside them.

Every run is a point of a study (:func:`raidsim.study.sweep.run_study`), so an
interrupted reproduction resumes where it stopped, and a changed config or
build reruns only what changed. :func:`cr5m` returns rows
``{figure, case, metric, raidsim, paper}``; ``paper`` is the number the
text quotes, or ``None`` where it quotes none (the bars are not printed).
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

from .. import _text_table
from .._figures import save_figure
from ..study.spec import Study
from ..study.sweep import run_study
from .packaged import packaged_spec
from .rows import PublishedRows

KB = 1024
SECTOR = 512
SHAPES = ("ssd1", "ssd2", "ssd3")
LEVELS = {"cr5": {"array.level": "cr5", "rebuild.policy": "dor"}, "cr5m": {}}  # base preset: cr5m-<shape>
POLICIES = {"dor": {"rebuild.policy": "dor"}, "mcr": {"rebuild.policy": "mcr"}}
METRICS = [
    "host.requests",
    "host.response.mean_ns",
    "devices.pages_written.parity",
    "devices.pages_written.mirror",
    "devices.pages_read.pre_read_rmw",
    "devices.pages_read.pre_read_rcw",
    "devices.chip_pages_written",
]
REBUILD_METRICS = METRICS + [
    "rebuild.recovery_bytes_per_s",
    "rebuild.response_during.mean_ns",
    "rebuild.response_during.count",
    "rebuild.duration_ns",
    "rebuild.lost_bytes",
    "rebuild.strips_by_copy",
    "rebuild.strips_by_xor",
    "rebuild.failed_reads",
    "rebuild.failed_writes",
]


def spec() -> Dict[str, Any]:
    """The packaged study file ``experiments/cr5m.toml``."""
    return packaged_spec("cr5m")


def grid(quick: bool) -> Dict[str, Any]:
    """What is swept: the full grid, or the ``[quick]`` table's smaller one (10,000 requests)."""
    sp = spec()
    g = {"requests": sp["requests"], "shapes": list(SHAPES), **sp["figure10"],
         "write_percents": sp["synthetic"]["write_percents"], "mean_kbs": sp["synthetic"]["mean_kbs"]}
    if quick:
        g.update(sp["quick"], requests=sp["quick_requests"])
    return g


# --- workloads -----------------------------------------------------------------------------------

def _synthetic(requests: int, write_percent: float, mean_kb: float, per_s: float, *, uniform: bool) -> Dict[str, Any]:
    """Open-loop synthetic settings. ``uniform``: §4.3's benchmark (uniform arrivals and sizes);
    otherwise a trace stand-in (Poisson arrivals, exponential sizes about the mean)."""
    mean = int(round(mean_kb * KB / SECTOR)) * SECTOR
    size = ({"workload.size.kind": "uniform", "workload.size.min_bytes": SECTOR,
             "workload.size.max_bytes": 2 * mean - SECTOR} if uniform else
            {"workload.size.kind": "exponential", "workload.size.mean_bytes": mean, "workload.size.min_bytes": SECTOR,
             "workload.size.adjust_mean": True})
    return {
        "workload.kind": "synthetic",
        "workload.requests": requests,
        "workload.read_fraction": round(1 - write_percent / 100, 6),
        "workload.arrival": "uniform" if uniform else "poisson",
        "workload.mean_interarrival_ns": int(round(1e9 / per_s)),
        "workload.address": "uniform",
        "workload.span_bytes": spec()["span_bytes"],
        "workload.alignment_bytes": SECTOR,
        "workload.size.quantum_bytes": SECTOR,
        **size,
    }


def stand_ins(requests: int) -> Dict[str, Dict[str, Any]]:
    """Table 2's five traces as synthetic stand-ins, by name."""
    return {t["name"]: _synthetic(requests, t["write_percent"], t["mean_kb"], t["requests_per_s"], uniform=False)
            for t in spec()["traces"]}


def benchmark(requests: int, write_percent: Optional[float] = None, mean_kb: Optional[float] = None) -> Dict[str, Any]:
    """§4.3's synthetic benchmark (write share 50 % and 8 KB unless given)."""
    s = spec()["synthetic"]
    return _synthetic(requests, s["write_percent"] if write_percent is None else write_percent,
                      s["mean_kb"] if mean_kb is None else mean_kb, s["requests_per_s"], uniform=True)


def shared_traces(traces_dir: Optional[str], entries: Optional[Sequence[Mapping[str, Any]]] = None) -> Dict[str, Dict[str, Any]]:
    """The shared traces of the paper's kinds (``entries``, each {name, file}: this study file's
    ``[[shared_traces]]`` unless given) that are present in ``traces_dir``, with their request counts."""
    from ..api import trace_stats

    out: Dict[str, Dict[str, Any]] = {}
    for t in spec()["shared_traces"] if entries is None else entries:
        path = os.path.join(traces_dir, t["file"]) if traces_dir else ""
        if not (traces_dir and os.path.isfile(path)):
            continue
        # The papers' drives are smaller than these traces' footprints: folding a trace onto the
        # paper's drive is this study's stand-in for the paper's own trace, and each point says so
        # in its warnings (the wrapped fraction, the capacity the trace needs).
        out[t["name"]] = {"workload.kind": "trace", "workload.path": os.path.abspath(path),
                          "workload.out_of_range": "wrap", "workload.max_wrapped_fraction": 1.0,
                          "_requests": trace_stats(path)["requests"]}
    return out


def _failure(settings: Mapping[str, Any], requests: int) -> Dict[str, Any]:
    """A data chip (chip 0 of channel 0) fails at the middle request, as in §4.4."""
    n = settings.get("_requests", requests)
    return {"array.failures": [{"member": 0, "chip": 0, "at_request": n // 2}]}


def _clean(settings: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in settings.items() if not k.startswith("_")}


# --- the studies ---------------------------------------------------------------------------------

def _study(name: str, preset: str, cases: List[Dict[str, Any]], metrics: Sequence[str]) -> Study:
    return Study.from_dict({"name": name, "title": f"Pan & Xie 2018: {name}", "base": {"preset": preset},
                            "metrics": list(metrics), "cases": cases})


def _level_cases(workloads: Mapping[str, Mapping[str, Any]]) -> List[Dict]:
    return [{"name": f"{w}|{level}", "set": {**_clean(s), **LEVELS[level]}} for w, s in workloads.items() for level in LEVELS]


def _policy_cases(workloads: Mapping[str, Mapping[str, Any]], requests: int, fill: float) -> List[Dict]:
    """DOR and MCR after a chip failure, the SSD holding the synthetic span's data from the start (``fill``)."""
    out = []
    for w, s in workloads.items():
        written = {"precondition.fill_fraction": fill} if s["workload.kind"] == "synthetic" else {}
        out += [{"name": f"{w}|{policy}", "set": {**_clean(s), **_failure(s, requests), **written, **POLICIES[policy]}}
                for policy in POLICIES]
    return out


def span_fill(preset: str) -> float:
    """The fill fraction that writes the synthetic workloads' span before the run: SSDsim, which the
    paper extends, writes every page a trace reads before replaying it, so reads find data and a
    failed chip holds it."""
    from ..api import simulate
    from ..config import Config
    from ..workload import Workload

    probe = Config.preset(preset).with_workload(Workload.requests([(0, "R", 0, SECTOR)]))
    capacity = simulate(probe, progress=False).to_dict()["array"]["capacity_bytes"]
    return min(1.0, spec()["span_bytes"] / capacity)


def paper_workloads(n: int, given: Mapping[str, Any], quick: bool) -> Dict[str, Dict[str, Any]]:
    """Table 2's five traces by name: each the user's own trace where given (:mod:`.paper_traces`; its first
    ``n`` requests on the quick grid), else its stand-in."""
    from . import paper_traces

    named = stand_ins(n)
    for name, g in given.items():
        cap = n if quick else None
        named[name] = {**paper_traces.trace_settings(g, max_requests=cap),
                       "_requests": min(g.stats["requests"], cap or g.stats["requests"])}
    return named


def studies(g: Mapping[str, Any], shared: Mapping[str, Dict[str, Any]],
            given: Optional[Mapping[str, Any]] = None, quick: bool = False) -> Dict[str, Study]:
    """Every study the reproduction runs, by name; ``shared`` from :func:`shared_traces`, ``given`` the paper's
    own traces the user gave (:func:`raidsim.papers.paper_traces.for_entry`)."""
    n = g["requests"]
    named = paper_workloads(n, given or {}, quick)
    out = {}
    for shape in g["shapes"]:
        workloads = {**named, **(shared if shape == "ssd1" else {})}
        out[f"fig8-{shape}"] = _study(f"cr5m-fig8-{shape}", f"cr5m-{shape}", _level_cases(workloads), METRICS)
    radius = _clean(named["Radius"])
    fills = _level_cases({f"fill {f}": {**radius, "precondition.fill_fraction": f} for f in g["fills"]})
    limits = [{"name": f"mw_limit {m}|cr5m", "set": {**radius, "array.mw_limit": m}} for m in g["mw_limits"]]
    out["fig10"] = _study("cr5m-fig10", "cr5m-ssd2", fills + limits, METRICS)
    by_write = {f"write {p} %": benchmark(n, write_percent=p) for p in g["write_percents"]}
    by_size = {f"size {k} KB": benchmark(n, mean_kb=k) for k in g["mean_kbs"]}
    out["fig11"] = _study("cr5m-fig11", "cr5m-ssd1", _level_cases({**by_write, **by_size}), METRICS)
    fill = span_fill("cr5m-ssd1")
    out["fig12"] = _study("cr5m-fig12", "cr5m-ssd1", _policy_cases({**named, **shared}, n, fill), REBUILD_METRICS)
    out["fig13-14"] = _study("cr5m-fig13-14", "cr5m-ssd1", _policy_cases({**by_write, **by_size}, n, fill), REBUILD_METRICS)
    return out


def run(out_dir: str, *, quick: bool = False, traces_dir: Optional[str] = None, workers: Optional[int] = None,
        progress: Optional[bool] = None, given: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Runs (or resumes) every study into ``out_dir``; returns the rows, the tables and what was skipped.
    ``given``: the paper's own traces, by name, each replayed in place of its stand-in."""
    g = grid(quick)
    shared = shared_traces(traces_dir)  # reads each trace once, for its request count
    tables = {}
    for key, study in studies(g, shared, given, quick).items():
        t = run_study(study, os.path.join(out_dir, study.name), workers=workers, progress=progress)
        t[["workload", "variant"]] = t["case"].str.split("|", expand=True)
        tables[key] = t
    missing = [t["file"] for t in spec()["shared_traces"] if t["name"] not in shared]
    return {"rows": rows(tables, g), "tables": tables, "quick": quick, "requests": g["requests"],
            "missing_traces": missing, "traces_dir": traces_dir, "given": dict(given or {})}


def source(case: str, given: Mapping[str, Any]) -> str:
    """What a row's case rests on (:func:`raidsim.papers.paper_traces.source_of`): the Table 2 traces it names,
    all five for an average over them, Radius for Figure 10's fills and limits; none for §4.3's benchmark."""
    from .paper_traces import source_of

    names = [t["name"] for t in spec()["traces"]]
    words = case.split()
    if "average" in words and not case.startswith("fill"):
        return source_of(names, given)
    if case.startswith(("fill ", "mw_limit ")):
        return source_of(["Radius"], given)
    return source_of([n for n in names if n in words], given)


# --- rows ----------------------------------------------------------------------------------------

def _sum(t: pd.DataFrame, prefix: str) -> pd.Series:
    cols = [c for c in t.columns if c.startswith(prefix + "[")]
    return t[cols].sum(axis=1)


def _by(t: pd.DataFrame, variant: str) -> pd.DataFrame:
    return t[t["variant"] == variant].set_index("workload")


def _pct_lower(base: float, new: float) -> float:
    """How much lower ``new`` is than ``base``, in percent of ``base``."""
    return 100.0 * (base - new) / base


def _pct_higher(base: float, new: float) -> float:
    return 100.0 * (new - base) / base


def published() -> Dict[Tuple[str, str, str], float]:
    """The numbers the text quotes, by (figure, case, metric) as the rows name them (``[[published]]``)."""
    return {(p["figure"], p["case"], p["metric"]): p["value"] for p in spec()["published"]}


def _compare_levels(out: PublishedRows, figure: str, t: pd.DataFrame, prefix: str, cases: Sequence[str]) -> List[float]:
    """Mean response CR5 vs CR5M per workload; returns the improvements."""
    cr5, cr5m = _by(t, "cr5"), _by(t, "cr5m")
    gains = []
    for w in cases:
        a, b = cr5.loc[w, "host.response.mean_ns"] / 1e6, cr5m.loc[w, "host.response.mean_ns"] / 1e6
        out.add(figure, f"{prefix}{w}", "cr5_mean_response_ms", a)
        out.add(figure, f"{prefix}{w}", "cr5m_mean_response_ms", b)
        gains.append(_pct_lower(a, b))
        out.add(figure, f"{prefix}{w}", "improvement_pct", gains[-1])
    return gains


def _figure8_9(out: PublishedRows, tables: Mapping[str, pd.DataFrame], g: Mapping[str, Any]) -> None:
    names = [t["name"] for t in spec()["traces"]]
    for shape in g["shapes"]:
        t = tables[f"fig8-{shape}"]
        workloads = list(dict.fromkeys(t["workload"]))
        gains = _compare_levels(out, "Figure 8", t, f"{shape} ", workloads)
        out.add("Figure 8", f"{shape} average", "improvement_pct", sum(gains[:len(names)]) / len(names))
    t = tables["fig8-ssd1"]
    cr5, cr5m = _by(t, "cr5"), _by(t, "cr5m")
    saved: Dict[str, List[float]] = {"parity_writes": [], "pre_reads": []}
    for w in dict.fromkeys(t["workload"]):
        for metric, f in (("parity_writes", lambda d: _sum(d, "devices.pages_written.parity")),
                          ("pre_reads", lambda d: _sum(d, "devices.pages_read.pre_read_rmw")
                           + _sum(d, "devices.pages_read.pre_read_rcw"))):
            a, b = f(cr5).loc[w], f(cr5m).loc[w]
            out.add("Figure 9", w, f"cr5_{metric}", a)
            out.add("Figure 9", w, f"cr5m_{metric}", b)
            pct = _pct_lower(a, b) if a else None
            out.add("Figure 9", w, f"{metric}_saved_pct", pct)
            if w in names and pct is not None:
                saved[metric].append(pct)
        chips = [cr5m.loc[w, c] for c in cr5m.columns if c.startswith("devices.chip_pages_written[0][")]
        data, mirror = chips[:-1], chips[-1]  # a channel's mirroring chip follows its data chips (spares are not listed)
        for i, n in enumerate(data):
            out.add("Figure 9", w, f"channel0_data_chip{i}_writes", n)
        out.add("Figure 9", w, "channel0_mirror_chip_writes", mirror)
        out.add("Figure 9", w, "mirror_chip_writes_pct_of_data_chip", 100.0 * mirror * len(data) / sum(data))
    for metric, values in saved.items():
        out.add("Figure 9", "average", f"{metric}_saved_pct", sum(values) / len(values) if values else None)


def _figure10(out: PublishedRows, t: pd.DataFrame, g: Mapping[str, Any]) -> None:
    fills = [f"fill {f}" for f in g["fills"]]
    gains = _compare_levels(out, "Figure 10", t, "", fills)
    loaded = [x for f, x in zip(g["fills"], gains) if 0.7 <= f <= 0.85]
    if loaded:
        out.add("Figure 10", "fill 70-85 % average", "improvement_pct", sum(loaded) / len(loaded))
    cr5m = _by(t, "cr5m")
    for m in g["mw_limits"]:
        w = f"mw_limit {m}"
        out.add("Figure 10", w, "cr5m_mean_response_ms", cr5m.loc[w, "host.response.mean_ns"] / 1e6)
        out.add("Figure 10", w, "mw_pages", _sum(cr5m.loc[[w]], "devices.pages_written.mirror").iloc[0])


def _figure11(out: PublishedRows, t: pd.DataFrame) -> None:
    _compare_levels(out, "Figure 11", t, "", list(dict.fromkeys(t["workload"])))


def _compare_policies(out: PublishedRows, figure: str, t: pd.DataFrame, averaged: Sequence[str]) -> None:
    dor, mcr = _by(t, "dor"), _by(t, "mcr")
    sums: Dict[str, List[float]] = {"during_improvement_pct": [], "recovery_gain_pct": []}
    for w in dict.fromkeys(t["workload"]):
        d, m = dor.loc[w], mcr.loc[w]
        values = {
            "dor_during_mean_response_ms": d["rebuild.response_during.mean_ns"] / 1e6,
            "mcr_during_mean_response_ms": m["rebuild.response_during.mean_ns"] / 1e6,
            "during_improvement_pct": _pct_lower(d["rebuild.response_during.mean_ns"], m["rebuild.response_during.mean_ns"]),
            "dor_recovery_mb_per_s": d["rebuild.recovery_bytes_per_s"] / 1e6,
            "mcr_recovery_mb_per_s": m["rebuild.recovery_bytes_per_s"] / 1e6,
            "recovery_gain_pct": _pct_higher(d["rebuild.recovery_bytes_per_s"], m["rebuild.recovery_bytes_per_s"]),
            "dor_rebuild_s": d["rebuild.duration_ns"] / 1e9,
            "mcr_rebuild_s": m["rebuild.duration_ns"] / 1e9,
            "strips_by_xor": m["rebuild.strips_by_xor"],
            "strips_by_copy": m["rebuild.strips_by_copy"],
            "copied_pct": 100.0 * m["rebuild.strips_by_copy"] / (m["rebuild.strips_by_copy"] + m["rebuild.strips_by_xor"]),
        }
        for k, v in values.items():
            out.add(figure, w, k, v)
        if w in averaged:
            for k in sums:
                sums[k].append(values[k])
    for k, v in sums.items():
        out.add(figure, "average", k, sum(v) / len(v) if v else None)


def rows(tables: Mapping[str, pd.DataFrame], g: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """The rows of every figure from the studies' tables."""
    out = PublishedRows(published())
    _figure8_9(out, tables, g)
    _figure10(out, tables["fig10"], g)
    _figure11(out, tables["fig11"])
    _compare_policies(out, "Figure 12", tables["fig12"], [t["name"] for t in spec()["traces"]])
    t = tables["fig13-14"]
    writes = t["workload"].str.startswith("write")
    _compare_policies(out, "Figure 13", t[writes], list(dict.fromkeys(t[writes]["workload"])))
    _compare_policies(out, "Figure 14", t[~writes], list(dict.fromkeys(t[~writes]["workload"])))
    return out.rows()


# --- text and figures ----------------------------------------------------------------------------

def text(result: Mapping[str, Any], width: Optional[int] = None) -> str:
    """The rows as one table per figure (a row per case, a column per measure; ``-`` where a case has no
    such measure), each figure's averages on lines of their own under it, then the published numbers
    beside ours (``not run`` for one whose case the quick grid leaves out: its case is in no table above).
    ``width``: tables wider than this many characters are cut into blocks of columns that fit, each
    repeating the row labels (the CLI passes the terminal's); None, one block however wide."""
    title = (f"Pan & Xie 2018 (CR5M), Figures 8-14 on synthetic stand-ins for the paper's traces "
             f"({result['requests']:,} requests{', quick grid' if result['quick'] else ''}); "
             "paper = the number the text quotes.")
    out = [_text_table.fill(title, width)]
    if result["missing_traces"]:  # one line: its path is copied whole
        out.append(f"Shared traces not found in {result['traces_dir'] or '(no traces directory)'}, skipped: "
                   + ", ".join(result["missing_traces"]))
    figures: Dict[str, List[Mapping[str, Any]]] = {}
    for row in result["rows"]:
        figures.setdefault(row["figure"], []).append(row)
    for fig, rows in figures.items():
        # An average is one measure over some of the cases, not a case with every measure: a line of its own.
        ran = [r for r in rows if not r.get("missing")]
        averages = [r for r in ran if _is_average(r["case"])]
        cases = [r for r in ran if not _is_average(r["case"])]
        out += ["", fig, _cases_table(cases, width)]
        for case in dict.fromkeys(r["case"] for r in averages):
            values = [f"{r['metric']} {_number(r['raidsim'])}" for r in averages if r["case"] == case
                      and r["raidsim"] is not None]
            if values:
                line = f"{case}: {', '.join(values)}"
                out.append(_text_table.fill(line, width))
        published = [r for r in rows if r["paper"] is not None]
        if published:
            out += ["published beside raidsim:", _text_table.render(
                ["case", "metric", "raidsim", "paper"],
                [[r["case"], r["metric"], "not run" if r.get("missing") else _number(r["raidsim"]), f"{r['paper']:g}"]
                 for r in published], width=width, labels=2)]
    return "\n".join(out)


def _is_average(case: str) -> bool:
    return case == "average" or case.endswith(" average")


def _cases_table(rows: Sequence[Mapping[str, Any]], width: Optional[int]) -> str:
    """A row per case, a column per measure (in the order they first appear), ``-`` where the case lacks it."""
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    values = {(r["case"], r["metric"]): r["raidsim"] for r in rows}
    body = [[case, *(_number(values.get((case, m))) for m in metrics)] for case in dict.fromkeys(r["case"] for r in rows)]
    return _text_table.render(["case", *metrics], body, index=True, width=width)


def _number(value: Any) -> str:
    """Three decimals, whole numbers (page counts) without; ``-`` for no value."""
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.3f}"


def plot(result: Mapping[str, Any], out_dir: str) -> List[str]:
    """One PNG per figure (8-14), laid out as the paper's panels."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    df = pd.DataFrame(result["rows"])
    paths = []
    for fig_name, panels in _PANELS.items():
        part = df[df["figure"] == fig_name]
        if part.empty:
            continue
        fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.6), squeeze=False)
        for ax, (title, series, log, *only) in zip(axes[0], panels):
            _bars(ax, part[part["case"].str.startswith(only[0])] if only else part, series, log)
            ax.set_title(title, fontsize=9)
        fig.suptitle(f"Pan & Xie 2018, {fig_name} (raidsim; stand-ins for the paper's traces)", fontsize=10)
        fig.tight_layout()
        paths.append(save_figure(fig, os.path.join(out_dir, fig_name.lower().replace(" ", "") + ".png")))
    return paths


def _bars(ax: Any, part: pd.DataFrame, series: Sequence[str], log: bool) -> None:
    part = part[~part["case"].str.contains("average")]  # averages are in the text's tables, not among the bars
    wide = part[part["metric"].isin(series)].pivot_table(index="case", columns="metric", values="raidsim", sort=False)
    wide = wide.dropna(how="all")
    if wide.empty:
        return
    if not log:
        ax.set_ylim(min(0.0, float(wide.min().min()) * 1.1), float(wide.max().max()) * 1.1)
    shown = [s for s in series if s in wide.columns]
    wide[shown].rename(columns=_LABELS).plot.bar(ax=ax, logy=log, width=0.8, rot=60, fontsize=7, legend=len(shown) > 1)
    ax.set_xlabel("")
    if len(shown) > 1:  # beside the panel, not over its last bars
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))


# Legend labels of the metrics drawn side by side.
_LABELS = {
    "cr5_mean_response_ms": "CR5", "cr5m_mean_response_ms": "CR5M", "cr5_parity_writes": "CR5",
    "cr5m_parity_writes": "CR5M", "cr5_pre_reads": "CR5", "cr5m_pre_reads": "CR5M",
    "channel0_data_chip0_writes": "data chip 0", "channel0_data_chip1_writes": "data chip 1",
    "channel0_data_chip2_writes": "data chip 2", "channel0_mirror_chip_writes": "mirroring chip",
    "dor_during_mean_response_ms": "DOR", "mcr_during_mean_response_ms": "MCR",
    "dor_recovery_mb_per_s": "DOR", "mcr_recovery_mb_per_s": "MCR",
}

_PANELS: Dict[str, List[tuple]] = {
    "Figure 8": [("mean response time (ms): CR5 vs CR5M", ["cr5_mean_response_ms", "cr5m_mean_response_ms"], False),
                 ("CR5M improvement (%)", ["improvement_pct"], False)],
    "Figure 9": [("(a) parity writes (SSD1)", ["cr5_parity_writes", "cr5m_parity_writes"], True),
                 ("(b) pre-reads (SSD1)", ["cr5_pre_reads", "cr5m_pre_reads"], True),
                 ("(c) writes per chip, channel 0 (CR5M)",
                  ["channel0_data_chip0_writes", "channel0_data_chip1_writes", "channel0_data_chip2_writes",
                   "channel0_mirror_chip_writes"], True)],
    "Figure 10": [("(a) Radius on SSD2 by initial fill: mean response (ms)",
                   ["cr5_mean_response_ms", "cr5m_mean_response_ms"], True, "fill 0"),
                  ("(b) Radius on SSD2 by MWLimit: CR5M mean response (ms)", ["cr5m_mean_response_ms"], False, "mw_limit")],
    "Figure 11": [("mean response (ms), §4.3 benchmark on SSD1", ["cr5_mean_response_ms", "cr5m_mean_response_ms"], False),
                  ("CR5M improvement (%)", ["improvement_pct"], False)],
    **{f: [("(a) mean response during rebuild (ms)", ["dor_during_mean_response_ms", "mcr_during_mean_response_ms"], False),
           ("(b) data recovery speed (MB/s)", ["dor_recovery_mb_per_s", "mcr_recovery_mb_per_s"], False),
           ("(c) strips copied by MCR (%)", ["copied_pct"], False)]
       for f in ("Figure 12", "Figure 13", "Figure 14")},
}

