"""The erasure-code paper's simulation study (Alinezhad Chamazcoti et al. 2015, §4, Figures 6-17).

Reed-Solomon, EVENODD and RDP on arrays of the Table 6 SSD with dedicated
parity disks, under stand-ins for the six traces of its Table 7: NoW
(parity pages written per host write), NoC (erases) and ART by number of
disks (Figures 8-10) and by stripe unit size (Figures 11-13), write
amplification by page reservation (Figure 14) and the erases of the row
and the second parity disk (Figures 15-17). Every choice the paper leaves
open is stated in ``experiments/erasure-code-study.toml``; the numbers its
text states are data there too (``[[claims]]``), each computed from our
points by the same formula and set beside it.

Every run is a point of one study (:func:`raidsim.study.sweep.run_study`): an
interrupted reproduction resumes, a changed build reruns what changed.
Rows are ``{figure, workload, code, nod, sus_bytes, metric, raidsim, paper}``.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

import pandas as pd

from .. import _text_table
from .._figures import save_figure
from ..study.spec import Study
from ..study.sweep import run_study
from .packaged import packaged_spec
from .rows import PublishedRows

KB = 1024
PAGE = 4096
METRICS = [
    "host.requests",
    "host.writes",
    "host.bytes_written",
    "host.response.mean_ns",
    "array.parity_pages_written",
    "array.data_pages_written",
    "devices.erases",
    "devices.pages_written.gc_write",
]
# A point: (workload, code, NoD, SUS bytes, reserved fraction or None for the preset's).
Point = Tuple[str, str, int, int, Optional[float]]


def spec() -> Dict[str, Any]:
    """The packaged study file ``experiments/erasure-code-study.toml``."""
    return packaged_spec("erasure-code-study")


def grid(quick: bool) -> Dict[str, Any]:
    """The full grid (Table 7's request counts), or ``[quick]``'s smaller one."""
    sp = spec()
    g = {k: sp[k] for k in ("codes", "nods", "sus_bytes", "reserve_fractions", "nod_default", "sus_default")}
    g["requests"] = {w["name"]: w["requests"] for w in sp["workloads"]}
    if quick:
        q = sp["quick"]
        g.update(sus_bytes=q["sus_bytes"], reserve_fractions=q["reserve_fractions"])
        g["requests"] = {name: min(n, q["requests"]) for name, n in g["requests"].items()}
    return g


def stand_in(w: Mapping[str, Any], requests: int) -> Dict[str, Any]:
    """A Table 7 row as synthetic settings (see the study file for each choice)."""
    sp = spec()
    # Whole pages, with the mean shifted so that the mean after truncation is the table's (9.7 KB too).
    mean = int(round(w["mean_write_kb"] * KB))
    size = ({"workload.size.kind": "fixed", "workload.size.mean_bytes": mean} if w.get("fixed_size") else
            {"workload.size.kind": "exponential", "workload.size.mean_bytes": mean, "workload.size.min_bytes": PAGE,
             "workload.size.max_bytes": 4 << 20, "workload.size.quantum_bytes": PAGE, "workload.size.adjust_mean": True})
    return {"workload.kind": "synthetic", "workload.requests": requests, "workload.processes": sp["processes"],
            "workload.read_fraction": round(1 - w["write_percent"] / 100, 6), "workload.address": "uniform",
            "workload.span_bytes": sp["footprint_bytes"], "workload.alignment_bytes": PAGE, **size}


def workloads(quick: bool, traces_dir: Optional[str], given: Optional[Mapping[str, Any]] = None) -> Dict[str, Dict[str, Any]]:
    """Every workload by name: Table 7's, each the user's own trace where given (:mod:`.paper_traces`; its
    first requests on the quick grid) or else its stand-in, then the shared traces present in ``traces_dir``."""
    from . import paper_traces
    from .cr5m import shared_traces

    g, given = grid(quick), given or {}
    out = {w["name"]: paper_traces.trace_settings(given[w["name"]], max_requests=g["requests"][w["name"]] if quick else None)
           if w["name"] in given else stand_in(w, g["requests"][w["name"]]) for w in spec()["workloads"]}
    for name, t in shared_traces(traces_dir, spec()["shared_traces"]).items():
        out[name] = {k: v for k, v in t.items() if not k.startswith("_")}  # replayed at its own times
    return out


def points(g: Mapping[str, Any], names: List[str]) -> List[Point]:
    """The union of Figures 8-13's and Figure 14's points, each once, in a stable order."""
    nod0, sus0 = g["nod_default"], g["sus_default"]
    pts: List[Point] = []
    for w in names:
        for code in g["codes"]:
            pts += [(w, code, nod, sus0, None) for nod in g["nods"]]
            pts += [(w, code, nod0, sus, None) for sus in g["sus_bytes"]]
            if w in spec()["figure14_workloads"]:
                pts += [(w, code, nod0, sus0, r) for r in g["reserve_fractions"]]
    return list(dict.fromkeys(pts))


def _case(p: Point, settings: Mapping[str, Any]) -> Dict[str, Any]:
    w, code, nod, sus, reserve = p
    s = {**settings, "array.level": "raid6", "array.members": nod, "array.code": code,
         "array.parity_placement": "dedicated", "array.stripe_unit_bytes": sus}
    if reserve is not None:
        s["ssd.geometry.over_provisioning_fraction"] = reserve
    return {"name": f"{w}|{code}|{nod}|{sus}|{'' if reserve is None else reserve}", "set": s}


def study(quick: bool, traces_dir: Optional[str], given: Optional[Mapping[str, Any]] = None) -> Study:
    """The one study of every point."""
    ws = workloads(quick, traces_dir, given)
    cases = [_case(p, ws[p[0]]) for p in points(grid(quick), list(ws))]
    return Study.from_dict({"name": "erasure-code-study" + ("-quick" if quick else ""),
                            "title": "Alinezhad Chamazcoti et al. 2015, Figures 6-17",
                            "base": {"preset": spec()["preset"]}, "metrics": METRICS, "cases": cases})


def run(out_dir: str, *, quick: bool = False, traces_dir: Optional[str] = None, workers: Optional[int] = None,
        progress: Optional[bool] = None, given: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Runs (or resumes) the study into ``out_dir``; returns the per-point table and the rows. ``given``: the
    paper's own traces, by Table 7's names, each replayed in place of its stand-in."""
    st = study(quick, traces_dir, given)
    t = run_study(st, out_dir, workers=workers, progress=progress)
    table = measures(t)
    missing = [s["file"] for s in spec()["shared_traces"] if s["name"] not in set(table["workload"])]
    return {"table": table, "rows": rows(table), "quick": quick, "traces_dir": traces_dir, "missing_traces": missing,
            "given": dict(given or {})}


def measures(t: pd.DataFrame) -> pd.DataFrame:
    """Per point: NoW, NoC (all disks, P, Q), ART and write amplification."""
    ok = t[t["status"] == "ok"]
    out = []
    for _, r in ok.iterrows():
        w, code, nod, sus, reserve = str(r["case"]).split("|")
        nod_i = int(nod)
        per_member = lambda path: [float(r[f"{path}[{i}]"]) for i in range(nod_i)]  # noqa: E731
        erases = per_member("devices.erases")
        parity = sum(per_member("array.parity_pages_written"))
        data = sum(per_member("array.data_pages_written"))
        host_pages = float(r["host.bytes_written"]) / PAGE
        out.append({"workload": w, "code": code, "nod": nod_i, "sus_bytes": int(sus),
                    "reserve": float(reserve) if reserve else None,
                    # Parity pages (4 KiB, the paper's NoW unit at its 4 KB default) per host write.
                    "now": parity / float(r["host.writes"]),
                    # NoW read as every page the array writes (data and parity) per host write: the text's
                    # "distributing writes" reading of Figure 8 (a claim's `reading`).
                    "now_total": (data + parity) / float(r["host.writes"]),
                    "noc": sum(erases), "noc_p": erases[-2], "noc_q": erases[-1],
                    "art_ms": float(r["host.response.mean_ns"]) / 1e6,
                    # The paper's write amplification is the code's: data and parity over data ("a code
                    # with higher write amplification imposes the higher NoW"); wa_flash adds GC copies
                    # (not the FTL's summary pages).
                    "wa": (data + parity) / host_pages,
                    # WA read as the parity pages per host page ("higher write amplification imposes the
                    # higher NoW"): Figure 7's second reading.
                    "wa_parity": parity / host_pages,
                    "wa_flash": (data + parity + sum(per_member("devices.pages_written.gc_write"))) / host_pages})
    return pd.DataFrame(out)


# --- rows ----------------------------------------------------------------------------------------

_METRIC = {"now": "now", "now_total": "now_total", "noc": "noc", "art": "art_ms", "wa": "wa", "wa_parity": "wa_parity"}
#: What a row is, in order, and the fields of it that name a number the paper states.
ROW_FIELDS = ("figure", "workload", "code", "nod", "sus_bytes", "metric")
PUBLISHED_KEY = ("figure", "workload", "code", "metric")


def published() -> List[Tuple[Tuple[str, str, str, str], float]]:
    """The numbers the text states, by (figure, workload, code, metric) as the rows name them: Figure 6's
    EVENODD over RS, and each ``[[claims]]`` for each code it names."""
    sp = spec()
    out = [(("Figure 6", "one request", "evenodd", f"evenodd_over_rs_pct_midpoint_sor_{kib}k"), value)
           for kib, value in sp["figure6"]["evenodd_over_rs_pct"].items()]
    out += [(("Figure 6", "one request", "evenodd", f"rs_below_evenodd_pct_midpoint_sor_{kib}k"), value)
            for kib, value in sp["figure6"]["rs_below_evenodd_pct"].items()]
    out += [((c["figure"], c["workload"], code, _claim_metric(c)), value)
            for c in sp["claims"] for code, value in c["paper"].items()]
    return out


def _claim_metric(claim: Mapping[str, Any]) -> str:
    return f"{claim['metric']}_pct: " + claim["text"]


def _add(out: PublishedRows, figure: str, workload: str, code: str, nod: Optional[int], sus: Optional[int],
         metric: str, value: Any) -> None:
    # Plain types: a row goes to JSON, and the table's cells are numpy's.
    out.add(figure, str(workload), str(code), None if nod is None else int(nod), None if sus is None else int(sus),
            metric, value)


def _at(table: pd.DataFrame, workload: str, code: str, nod: int, sus: int, reserve: Optional[float] = None) -> Optional[pd.Series]:
    m = (table.workload == workload) & (table.code == code) & (table.nod == nod) & (table.sus_bytes == sus)
    m &= table.reserve.isna() if reserve is None else (table.reserve == reserve)
    part = table[m]
    return None if part.empty else part.iloc[0]


def rows(table: pd.DataFrame) -> List[Dict[str, Any]]:
    """Rows per figure: the measures at each point, the claims beside the paper's numbers, and the
    parity disks' share of erases."""
    sp = spec()
    nod0, sus0 = sp["nod_default"], sp["sus_default"]
    out = PublishedRows(published(), fields=ROW_FIELDS, key=PUBLISHED_KEY)
    for _, r in table.iterrows():
        by_nod, by_sus = r.sus_bytes == sus0 and pd.isna(r.reserve), r.nod == nod0 and pd.isna(r.reserve)
        for fig, metric, col, show in (("Figure 8", "now", "now", by_nod), ("Figure 9", "noc", "noc", by_nod),
                                       ("Figure 10", "art_ms", "art_ms", by_nod), ("Figure 11", "now", "now", by_sus),
                                       ("Figure 12", "noc", "noc", by_sus), ("Figure 13", "art_ms", "art_ms", by_sus)):
            if show:
                _add(out, fig, r.workload, r.code, r.nod, r.sus_bytes, metric, r[col])
        if r.nod == nod0 and r.sus_bytes == sus0:
            reserve = "preset" if pd.isna(r.reserve) else f"{r.reserve:g}"
            _add(out, "Figure 14", r.workload, r.code, r.nod, r.sus_bytes, f"wa_reserve_{reserve}", r.wa)
            _add(out, "Figure 14", r.workload, r.code, r.nod, r.sus_bytes, f"wa_flash_reserve_{reserve}", r.wa_flash)
        if pd.isna(r.reserve):
            fig = "Figure 15" if (r.nod, r.sus_bytes) == (nod0, sus0) else ("Figure 16" if r.sus_bytes == sus0 else "Figure 17")
            _add(out, fig, r.workload, r.code, r.nod, r.sus_bytes, "noc_q_over_noc_p", r.noc_q / r.noc_p if r.noc_p else None)
    for w in sp["figure7_workloads"]:
        for code in sp["codes"]:
            r = _at(table, w, code, nod0, sus0)
            if r is not None:
                _add(out, "Figure 7", w, code, nod0, sus0, "wa", r.wa)
    _figure6(out)
    _claims(out, table)
    return out.rows()


def _figure6(out: PublishedRows) -> None:
    """Figure 6 by counting: parity units per request of each size, over every start inside a codeword of
    Table 3's arrays, as the mean and as the midpoint of the range; EVENODD over RS beside the text's."""
    from . import erasure_code_tables as ect

    f = spec()["figure6"]
    sus = spec()["sus_default"]
    avg = {}
    for kib in f["sor_kib"]:
        for code, a in f["arrays"].items():
            k, p = a["data_disks"], a["prime"]
            units = [ect.parity_bytes(code, k, p, sus, kib * KB, r * k + d) / sus
                     for r, d, inside in ect.starts(code, k, p, sus, kib * KB) if inside]
            avg[(kib, code)] = {"mean": sum(units) / len(units), "midpoint": (min(units) + max(units)) / 2}
            for how, v in avg[(kib, code)].items():
                _add(out, "Figure 6", "one request", code, k + 2, sus, f"now_units_{how}_sor_{kib}k", v)
    for kib in f["sor_kib"]:
        for how in ("midpoint", "mean"):  # the text's number is the midpoint's
            v = (avg[(kib, "evenodd")][how] / avg[(kib, "rs")][how] - 1) * 100
            _add(out, "Figure 6", "one request", "evenodd", None, sus, f"evenodd_over_rs_pct_{how}_sor_{kib}k", v)
        # The same difference taken over EVENODD: the second reading of the text's "75 % to 44 %".
        v = (1 - avg[(kib, "rs")]["midpoint"] / avg[(kib, "evenodd")]["midpoint"]) * 100
        _add(out, "Figure 6", "one request", "evenodd", None, sus, f"rs_below_evenodd_pct_midpoint_sor_{kib}k", v)


def readings() -> Dict[str, str]:
    """The reading each ambiguous number is judged under, by its row's metric (the catalog's mapping)."""
    sp = spec()
    out = {_claim_metric(c): c["reading"] for c in sp["claims"] if "reading" in c}
    out.update({f"{k}_{kib}k": why for k, by_kib in sp["figure6"]["readings"].items() for kib, why in by_kib.items()})
    return out


def _claims(out: PublishedRows, table: pd.DataFrame) -> None:
    """Each number the text states, from our points by its formula: (a / b - 1) x 100."""
    sp = spec()
    nod0, sus0 = sp["nod_default"], sp["sus_default"]
    for c in sp["claims"]:
        for code in c["paper"]:
            def point(side: Mapping[str, Any]) -> Optional[pd.Series]:
                return _at(table, c["workload"], side.get("code", code), side.get("nod", nod0), side.get("sus_bytes", sus0))
            a, b = point(c["a"]), point(c["b"])
            col = _METRIC[c["metric"]]
            value = None if a is None or b is None or not b[col] else (a[col] / b[col] - 1) * 100
            _add(out, c["figure"], c["workload"], code, None, None, _claim_metric(c), value)


# --- text and figures ----------------------------------------------------------------------------

def text(result: Mapping[str, Any], width: Optional[int] = None) -> str:
    """The measures per figure, and the text's numbers beside ours. ``width``: a table wider than this many
    characters is cut into blocks of columns, each repeating the row labels (the CLI passes the terminal's);
    None, one block however wide. A value the run has not (a ratio over no erases) is a blank cell."""
    t = result["table"]
    g = spec()
    head = (f"Alinezhad Chamazcoti et al. 2015, Figures 6-17 (raidsim, stand-ins for Table 7's traces"
            f"{', quick grid' if result['quick'] else ''}; dedicated parity; closed loop of {g['processes']})")
    out = [_text_table.fill(head, width)]
    if result["missing_traces"]:  # one line: its path is copied whole
        out.append(f"Shared traces not found in {result['traces_dir'] or '(no traces directory)'}, skipped: "
                   + ", ".join(result["missing_traces"]))
    t = t.assign(sus_kb=t.sus_bytes // KB, q_over_p=t.noc_q / t.noc_p.where(t.noc_p > 0))
    for title, mask, key in (
            ("By number of disks (SUS 4 KB): Figures 8-10, 16", (t.sus_bytes == g["sus_default"]) & t.reserve.isna(), "nod"),
            ("By stripe unit (NoD 7): Figures 11-13, 15, 17", (t.nod == g["nod_default"]) & t.reserve.isna(), "sus_kb"),
            ("By page reservation (NoD 7, SUS 4 KB): Figure 14", t.reserve.notna(), "reserve")):
        out += ["", title, _text_table.frame(t[mask].set_index(["workload", "code", key])[TEXT_MEASURES], width=width)]
    out.append(_text_table.fill("now: parity pages per host write; noc: erases, all disks; noc_q: the Q disk's; q_over_p: "
                     "the Q disk's erases over the P disk's (blank: the P disk erased nothing); wa: data and parity "
                     "pages over host pages; wa_flash: with garbage collection's copies.", width))
    rows_ = pd.DataFrame(result["rows"])
    f6 = rows_[(rows_.figure == "Figure 6") & rows_.metric.str.startswith("now_units")]
    f6 = f6.assign(sor_kb=f6.metric.str.extract(r"sor_(\d+)k")[0].astype(int),
                   measure=f6.metric.str.extract(r"now_units_(\w+?)_sor")[0])
    out += ["", _text_table.fill("Figure 6 (counting, Table 3's arrays): parity units per request, over every start in a codeword",
                      width),
            _text_table.frame(f6.pivot_table(index=["sor_kb", "measure"], columns="code", values="raidsim", sort=False),
                              width=width)]
    out += ["", _text_table.fill("Figure 7: the codes' write amplification (data + parity over data) at NoD 7, SUS 4 KB", width),
            _text_table.frame(_figure7(rows_), width=width)]
    claims = rows_[rows_["paper"].notna()]
    if len(claims):
        out += ["", _text_table.fill("The text's numbers, (a / b - 1) x 100 as the paper states them, beside ours (blank: no "
                          "value):", width)]
        for (figure, metric), part in claims.groupby(["figure", "metric"], sort=False):
            out += ["", _text_table.fill(f"{figure}, {metric}", width),
                    _text_table.frame(part.set_index(["workload", "code"])[["raidsim", "paper"]], width=width)]
    return "\n".join(out)


#: The measures the text prints per point, after the point's workload, code and the axis of its table.
TEXT_MEASURES = ["now", "noc", "noc_q", "art_ms", "wa", "wa_flash", "q_over_p"]


def _figure7(rows_: pd.DataFrame) -> pd.DataFrame:
    """Figure 7's write amplifications, a workload a line and a code a column; not its claims (the text's
    numbers, rows of Figure 7 too), which a pivot would average in."""
    wa = rows_[(rows_.figure == "Figure 7") & (rows_.metric == "wa")]
    return wa.pivot_table(index="workload", columns="code", values="raidsim", sort=False)


def plot(result: Mapping[str, Any], out_dir: str) -> List[str]:
    """Figures 8-13 (one panel a workload), 14 and 15-17, as PNGs."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = result["table"]
    g = spec()
    names = list(dict.fromkeys(t.workload))
    paths = []
    for fig_no, col, x, fixed in ((8, "now", "nod", "sus_bytes"), (9, "noc", "nod", "sus_bytes"), (10, "art_ms", "nod", "sus_bytes"),
                                  (11, "now", "sus_bytes", "nod"), (12, "noc", "sus_bytes", "nod"), (13, "art_ms", "sus_bytes", "nod"),
                                  (15, "q_over_p", "sus_bytes", "nod"), (16, "q_over_p", "nod", "sus_bytes")):
        cols = -(-len(names) // 2)
        fig, axes = plt.subplots(2, cols, figsize=(3.4 * cols, 5.6), squeeze=False)
        base = t[t.reserve.isna() & (t[fixed] == (g["sus_default"] if fixed == "sus_bytes" else g["nod_default"]))]
        base = base.assign(q_over_p=base.noc_q / base.noc_p.where(base.noc_p > 0))
        for i, ax in enumerate(axes.flat):
            if i >= len(names):
                ax.axis("off")
                continue
            w = names[i]
            wide = base[base.workload == w].pivot_table(index=x, columns="code", values=col).reindex(columns=g["codes"])
            if wide.dropna(how="all").empty:  # e.g. no erases on the P disk: no ratio to draw
                ax.set_title(f"{w}: too few erases to draw", fontsize=8)
                ax.set_xticks([])
                ax.set_yticks([])
                continue
            if x == "sus_bytes":
                wide.index = [f"{int(v) // KB}K" for v in wide.index]
            wide.plot.bar(ax=ax, rot=0, fontsize=7, legend=i == 0)
            if i == 0:
                ax.legend(fontsize=7)
            ax.set_title(w, fontsize=8)
            ax.set_xlabel("NoD" if x == "nod" else "SUS", fontsize=7)
        label = {"now": "NoW (parity pages per write)", "noc": "NoC (erases)", "art_ms": "ART (ms)",
                 "q_over_p": "erases of Q disk / P disk"}[col]
        name = {15: "15, 17", 16: "16"}.get(fig_no, str(fig_no))
        fig.suptitle(f"Alinezhad Chamazcoti et al. 2015, Fig. {name}: {label} (raidsim)", fontsize=9)
        fig.tight_layout()
        paths.append(save_figure(fig, os.path.join(out_dir, f"figure{fig_no if fig_no != 15 else '15-17'}.png")))
    paths.append(_plot_figure6_7(plt, result["rows"], out_dir))
    wa = t[t.reserve.notna()]
    if len(wa):
        ws = list(dict.fromkeys(wa.workload))
        fig, axes = plt.subplots(1, len(ws), figsize=(3.6 * len(ws), 3.2), squeeze=False)
        for ax, w in zip(axes[0], ws):
            part = wa[wa.workload == w]
            for code in g["codes"]:
                c = part[part.code == code].sort_values("reserve")
                line = ax.plot(c.reserve, c.wa, marker="o", label=code)[0]
                ax.plot(c.reserve, c.wa_flash, marker="x", linestyle="--", color=line.get_color())
            ax.legend(fontsize=7)
            ax.set_title(w, fontsize=8)
            ax.set_xlabel("reserved fraction", fontsize=7)
            ax.set_ylim(bottom=0)
        fig.suptitle("Fig. 14: write amplification by page reservation (NoD 7, SUS 4 KB; raidsim): "
                     "code's (data + parity) / data, solid; with GC copies, dashed", fontsize=9)
        fig.tight_layout()
        paths.append(save_figure(fig, os.path.join(out_dir, "figure14.png")))
    return paths


def _plot_figure6_7(plt: Any, rows_: List[Dict[str, Any]], out_dir: str) -> str:
    df = pd.DataFrame(rows_)
    fig, (a6, a7) = plt.subplots(1, 2, figsize=(11, 3.6))
    f6 = df[(df.figure == "Figure 6") & df.metric.str.startswith("now_units_mean")]
    f6 = f6.assign(sor=f6.metric.str.extract(r"sor_(\d+)k")[0].astype(int))
    f6.pivot_table(index="sor", columns="code", values="raidsim").reindex(columns=spec()["codes"]).plot.bar(ax=a6, rot=0, fontsize=7)
    a6.set_xlabel("request KB", fontsize=7)
    a6.set_title("Fig. 6: parity units per request (mean over starts)", fontsize=8)
    _figure7(df).reindex(columns=spec()["codes"]).plot.bar(ax=a7, rot=0, fontsize=7)
    a7.set_title("Fig. 7: write amplification (data + parity) / data", fontsize=8)
    a7.set_xlabel("")
    fig.suptitle("Alinezhad Chamazcoti et al. 2015, Figures 6-7 (raidsim)", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, os.path.join(out_dir, "figure6-7.png"))
