"""Chen & Lee 1995, §6: Figures 8-10, the venus, ccm and composite traces by striping unit and concurrency.

The runs are the packaged study ``experiments/striping-traces.toml`` (an ordinary study: its cases are
the stand-ins, one per trace and concurrency, named ``TRACE-cN``; its header says how each stand-in
follows the text). This module reads, off those runs, each run's throughput as a share of the best
striping unit's at its trace and concurrency (:func:`raidsim.papers.striping.share_of_best`, as Figures
4-5: throughput from the mean response time, each share with its 95 % bounds) and sets the numbers §6
prints beside ours, a row each:

- Figure 8 (venus): the 21 KB unit "guarantees reasonable performance to all concurrencies (66%)",
  "at least 66% of the maximum possible performance for each concurrency": the smallest share of the
  21 KB unit over the concurrencies; "workloads with all large I/Os perform best with very small
  striping units over all concurrencies": the best unit at each concurrency, left of the 21 KB line.
- Figure 9a (ccm): the 21 KB unit "only guarantees about 30% of the maximum possible performance to
  each concurrency", "due to the workload with concurrency one": the smallest share and the concurrency
  it falls at; "a workload with only one process can achieve much better performance by using a small
  striping unit": the best unit at concurrency one; "our recommended striping unit ... does about as
  well as any other": 21 KB among the units whose guarantee cannot be told from the best one's (the
  band of :func:`raidsim.papers.striping.coefficients`).
- Figure 9b (ccm, grouped): "almost 80% of the best possible performance for each individual
  workload": the smallest share of the 21 KB unit.
- Figure 10 (composite): "For concurrency one, the best striping unit is small"; "For all others, our
  recommended striping unit guarantees at least 85% of the best performance": the smallest share over
  concurrencies 2 and up; "our recommended striping unit (21 KB) performs as well as any other (circle
  A)": 21 KB in the band over every concurrency.

The rules that judge them are the study file's ``[[catalog.verdicts]]``; the band rows carry their own.
"""

from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence

import pandas as pd

from .catalog import Rule
from .packaged import packaged_spec
from .striping import KB, _band, share_of_best

NAME = "striping-traces"
#: The striping unit the paper recommends without workload knowledge for the Elite3 (its vertical lines).
RECOMMENDED_BYTES = 21 * KB
#: "Small": left of the 21 KB line, i.e. at most the grid's largest unit below it (16 KB).
SMALL_KB = 16
#: Each figure: (trace of the cases, what the figure shows).
FIGURES = {"Figure 8": "venus", "Figure 9a": "ccm", "Figure 9b": "ccm-grouped", "Figure 10": "composite"}
#: Where the text says the best unit is small: figure -> the concurrencies it says it of (None: all).
SMALL_BEST = {"Figure 8": None, "Figure 9a": (1,), "Figure 10": (1,)}
#: The 21 KB unit's guarantee the text prints: figure -> (published %, concurrencies it is over; None: all).
GUARANTEES = {"Figure 8": (66, None), "Figure 9a": (30, None), "Figure 9b": (80, None), "Figure 10": (85, "2+")}
#: Where the text says the 21 KB unit does as well as any other (over every concurrency).
AS_WELL_AS_ANY = ("Figure 9a", "Figure 10")
_CASE = re.compile(r"(?P<trace>.+)-c(?P<concurrency>\d+)\Z")


def spec() -> Dict[str, Any]:
    """The packaged study (the stand-ins, the grid, the catalog's rules)."""
    return packaged_spec(NAME)


def shares(table: pd.DataFrame) -> pd.DataFrame:
    """The study's results with ``trace``, ``concurrency``, ``unit_bytes`` and each run's share of the best
    unit's throughput at its trace and concurrency (``pct_of_best``, a fraction; ``share_lo``/``share_hi``).

    The trace and the concurrency come from the case's name (``venus-c4``), not from the settings: a case
    that replays a paper's trace has no ``workload.processes``."""
    t = table.copy()
    parsed = t["case"].map(_CASE.match)
    if parsed.isna().any():
        raise ValueError(f"{NAME}: case {t['case'][parsed.isna()].iloc[0]!r} is not named TRACE-cN")
    t["workload.processes"] = [int(m["concurrency"]) for m in parsed]
    # A replayed trace that ends before the stopping rule has measured (stop.mean_ns 0) is the whole workload:
    # its mean response is the trace's own, not a sample's, so its half-width is taken as nil (a millionth).
    whole = ~(t["stop.mean_ns"] > 0) & (t.get("host.response.mean_ns", 0) > 0)
    if whole.any():
        t.loc[whole, "stop.mean_ns"] = t.loc[whole, "host.response.mean_ns"]
        t.loc[whole, "stop.half_width_ns"] = t.loc[whole, "host.response.mean_ns"] * 1e-6
    t = share_of_best(t)  # groups by each case's (op, size, concurrency): one group per case
    t["trace"] = [m["trace"] for m in t["case"].map(_CASE.match)]
    return t


def guarantee(t: pd.DataFrame) -> pd.Series:
    """Each unit's smallest share over the rows of ``t`` (its guarantee), by unit in bytes."""
    return t.groupby("unit_bytes")["pct_of_best"].min()


def best_units(t: pd.DataFrame) -> pd.Series:
    """The unit (bytes) with the largest share at each concurrency of ``t``."""
    return t.loc[t.groupby("concurrency")["pct_of_best"].idxmax()].set_index("concurrency")["unit_bytes"]


def rows(t: pd.DataFrame, sources: Optional[Mapping[str, str]] = None) -> List[Dict[str, Any]]:
    """The rows of :mod:`raidsim.papers.reproduce_all`'s shape (not yet judged) from :func:`shares`' table.
    ``sources``: each case's source (trace, stand-in) where a paper's trace stands in."""
    from .paper_traces import source_of_cases
    from .rows import row

    sources = sources or {}
    if RECOMMENDED_BYTES not in set(t["unit_bytes"]):
        raise ValueError(f"{NAME}: the grid lacks the recommended {RECOMMENDED_BYTES // KB} KB unit")
    out = []
    for figure, trace in FIGURES.items():
        f = t[t["trace"] == trace]
        if f.empty:
            raise ValueError(f"{NAME}: no runs of the {trace} stand-in ({figure})")
        concs = sorted(int(c) for c in f["concurrency"].unique())

        def source(cs: Sequence[int]) -> str:
            return source_of_cases([f"{trace}-c{c}" for c in cs], sources)

        at = f[f["unit_bytes"] == RECOMMENDED_BYTES].set_index("concurrency")
        best = best_units(f)
        small_at = SMALL_BEST.get(figure, ())
        for c in concs:
            s = at.loc[c]
            out.append(row(figure, f"{trace}, concurrency {c}", "21 KB unit, % of the best", 100 * s["pct_of_best"],
                           None, "%", note=f"95 % bounds {100 * s['share_lo']:.0f}-{100 * s['share_hi']:.0f} %",
                           source=source([c])))
            judged_here = small_at is None or c in small_at
            out.append(row(figure, f"{trace}, concurrency {c}", "best unit (KB)", best[c] / KB,
                           SMALL_KB if judged_here else None, "KB", source=source([c])))
        pub, over = GUARANTEES[figure]
        cs = [c for c in concs if over is None or c >= 2]
        g = at.loc[cs, "pct_of_best"]
        label = "every concurrency" if over is None else "concurrencies 2 and up"
        out.append(row(figure, f"{trace}, {label}", "21 KB unit's guarantee (smallest % of the best)",
                       100 * g.min(), pub, "%", note=f"at concurrency {int(g.idxmin())}", source=source(cs)))
        if figure == "Figure 9a":
            out.append(row(figure, f"{trace}, every concurrency", "concurrency of the 21 KB unit's smallest share",
                           int(g.idxmin()), 1, "", source=source(concs)))
        if figure in AS_WELL_AS_ANY:
            band = _band(f, KB)
            worst = guarantee(f)
            inside = RECOMMENDED_BYTES in band["units"]
            rule = Rule("band", {"lo": band["lo"], "hi": band["hi"], "published_in_band": inside},
                        "the text: the 21 KB unit does about as well as any other: it is one of the units whose "
                        "guarantee (smallest share over the concurrencies) cannot be told from the best one's "
                        "within each run's 95 % interval (striping.coefficients' band)")
            out.append(row(figure, f"{trace}, every concurrency", "unit guaranteeing the most (KB)",
                           float(worst.idxmax()) / KB, RECOMMENDED_BYTES / KB, "KB", rule=rule,
                           note=f"guarantees {100 * worst.max():.0f} %; the 21 KB unit "
                                f"{100 * worst[RECOMMENDED_BYTES]:.0f} %; band "
                                f"{', '.join(f'{u / KB:g}' for u in band['units'])} KB",
                           source=source(concs)))
    return out


def run(e: Any, ctx: Any) -> Dict[str, Any]:
    """Runs (or resumes) the study into ``ctx.out_dir``, replaying the paper's traces the user gave
    (:func:`raidsim.papers.paper_traces.study_for`); the shares, the rows and the notes."""
    from ..study.sweep import run_study
    from .paper_traces import study_for

    study, sources, notes = study_for(e, ctx.given_traces(e.name))
    table = run_study(study, ctx.out_dir, workers=ctx.workers, progress=ctx.progress)
    t = shares(table)
    report = table.attrs.get("report")
    figures = [f.png for f in report.figures] if report is not None else []
    return {"shares": t, "rows": rows(t, sources), "notes": notes, "figures": figures}


def plot(t: pd.DataFrame, out_dir: str) -> List[str]:
    """Figures 8, 9a, 9b and 10: % of the best throughput by striping unit, a curve per concurrency, the
    21 KB unit as the paper's vertical line."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .._figures import save_figure
    from .striping import _plain

    os.makedirs(out_dir, exist_ok=True)
    fig, axes = plt.subplots(1, len(FIGURES), figsize=(3.3 * len(FIGURES) + 1.4, 3.4), sharey=True)
    for ax, (figure, trace) in zip(axes, FIGURES.items()):
        f = t[t["trace"] == trace]
        for c, g in f.groupby("concurrency"):
            g = g.sort_values("unit_bytes")
            ax.plot(g["unit_bytes"] / KB, 100 * g["pct_of_best"], marker="o", ms=3, label=str(c))
        ax.axvline(RECOMMENDED_BYTES / KB, color="k", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xticks([1, 4, 16, 64, 256, 1024])
        ax.xaxis.set_major_formatter(_plain)
        ax.set_ylim(0, 105)
        ax.set_title(f"{figure}: {trace}", fontsize=10)
        ax.set_xlabel("striping unit (KB)")
    axes[0].set_ylabel("% of the best throughput")
    axes[-1].legend(title="concurrency", fontsize=8, title_fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.suptitle("Chen & Lee Figures 8-10 on the stand-ins: 17 Seagate Elite3 disks, RAID5 (line: 21 KB)")
    return [save_figure(fig, os.path.join(out_dir, "figures8-10.png"))]


def text(judged_rows: Sequence[Mapping[str, Any]]) -> str:
    """The judged rows with a published number, a line each, then the 21 KB unit's share per concurrency."""
    out = ["Chen & Lee 1995, Figures 8-10 (stand-ins unless a row says trace): ours / published"]
    for r in judged_rows:
        if r["published"] is None:
            continue
        unit = "" if not r["unit"] else f" {r['unit']}"
        out.append(f"  {r['figure']}, {r['case']}: {r['metric']}: {r['raidsim']:.4g}{unit} / {r['published']:g}{unit}"
                   f" ({r['tolerance']}): {r['verdict']}" + (f" (class {r['gap_class']})" if r["gap_class"] else "")
                   + (f"; {r['note']}" if r["note"] else "")
                   + (f" [{r['source']}]" if r.get("source") in ("trace", "mixed") else ""))
    out.append("The 21 KB unit's % of the best by concurrency:")
    shares_ = [r for r in judged_rows if r["metric"] == "21 KB unit, % of the best"]
    for figure, trace in FIGURES.items():
        cells = ", ".join(f"{r['case'].rsplit(' ', 1)[1]}: {r['raidsim']:.0f}" for r in shares_ if r["figure"] == figure)
        out.append(f"  {figure} ({trace}): {cells}")
    return "\n".join(out)
