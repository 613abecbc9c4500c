"""``raidsim reproduce all``: every reproduction of the catalog, one report of ours beside the published.

Each entry of :mod:`raidsim.papers.catalog` is run by the module that reproduces it, exactly as ``raidsim
reproduce NAME`` runs it (its own function, its own figures), into ``OUT/NAME`` (``OUT/NAME-quick`` for
the quick grid of an entry that has one: a full run beside it is not overwritten). Its results are then put in the catalog's one
shape, a row per (table or figure, case, metric) with raidsim's value, the published one or none, the
unit, the rule that judges it, the study file's mapping note if the published number is read under one,
and the verdict (:func:`raidsim.papers.catalog.judge`; a pass under a mapping is ``pass (mapped)``, counted apart). An entry that fails is
recorded, with its error, and the others still run; the caller exits non-zero at the end.

``OUT/report.html`` is an index of the verdicts, a line per entry linking its page ``OUT/entries/NAME.html``
(its verdict, the paper, what it covers, the rules that judged it, its rows beside the published numbers,
its known gaps, its figures, the rows the paper gives no number for): :mod:`raidsim.papers.verdict_pages`.
``OUT/rows.csv`` and ``OUT/rows.json`` hold every row of every entry; ``OUT/entries.json`` each entry's
status, time and counts.
"""

from __future__ import annotations

import csv
import json
import os
import re
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from . import catalog, verdict_pages
from .catalog import COUNT_KEYS, GAP, PASS, PASS_MAPPED, Entry, Rule
from .rows import row

KB = 1024
#: The columns of rows.csv, in order.
COLUMNS = ("entry", "paper", "figure", "case", "metric", "raidsim", "published", "unit", "rule", "tolerance",
           "verdict", "mapping", "note", "gap_class", "gap_why", "source")


@dataclass
class RunContext:
    """How one entry runs: where, how big, how parallel."""

    out_dir: str
    quick: bool = False
    workers: Optional[int] = None
    progress: Optional[bool] = None
    traces_dir: Optional[str] = None
    #: The papers' traces the user gave (``--trace``), by (entry or None, name): :mod:`.paper_traces`.
    trace_paths: Mapping[Tuple[Optional[str], str], str] = field(default_factory=dict)

    def given_traces(self, entry: str) -> Dict[str, Any]:
        """The paper traces given for ``entry``, checked (by --trace, or found in --traces DIR)."""
        from . import paper_traces

        return paper_traces.for_entry(entry, self.trace_paths, self.traces_dir)


@dataclass
class Outcome:
    """What an entry's runner returns: its rows (not yet judged), the figures its run drew, and notes."""

    rows: List[Dict[str, Any]]
    figures: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)


@dataclass
class EntryResult:
    entry: Entry
    status: str  # "ok" or "failed"
    seconds: float
    rows: List[Dict[str, Any]] = field(default_factory=list)
    figures: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    error: str = ""
    trace: str = ""

    def counts(self) -> Dict[str, int]:
        """Rows by verdict: {"pass", "pass_mapped", "gap", "not_run", "no_published_value"}."""
        out = {k: 0 for k in COUNT_KEYS.values()}
        for r in self.rows:
            out[COUNT_KEYS[r["verdict"]]] += 1
        return out


def judged(e: Entry, rows: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The runner's rows in the catalog's shape, each with its rule and verdict."""
    out = []
    for r in rows:
        rule = r["rule"]
        if rule is None and r["published"] is not None and not r["not_run"]:
            rule = e.rule_for(r["figure"], r["case"], r["metric"])
        mapping = r.get("mapping", "") if r["published"] is not None else ""
        verdict = catalog.judge(r["raidsim"], r["published"], rule, not_run=r["not_run"], mapping=mapping)
        if r["expect"] is not None and verdict in (PASS, PASS_MAPPED, GAP) and (verdict != GAP) != r["expect"]:
            raise RuntimeError(f"{e.name}: {r['figure']} / {r['case']} / {r['metric']}: the verdict {verdict} "
                               f"disagrees with the module's own comparison ({r['expect']}); a bug in the runner")
        reason = e.gap_reason_for(r["figure"], r["case"], r["metric"]) if verdict == GAP else None
        if reason is not None and reason.klass == "a" and r.get("source") == "trace":
            reason = None  # "the stand-in cannot carry it" does not explain a gap the paper's own trace gives
        out.append({"entry": e.name, "paper": e.paper.key, "figure": r["figure"], "case": r["case"],
                    "metric": r["metric"], "raidsim": r["raidsim"], "published": r["published"], "unit": r["unit"],
                    "rule": None if rule is None or r["published"] is None else rule.name,
                    "tolerance": None if rule is None or r["published"] is None else rule.describe(r["unit"]),
                    "why": None if rule is None or r["published"] is None else rule.why,
                    "verdict": verdict, "mapping": mapping or None, "note": r["note"],
                    "gap_class": reason.klass if reason else None, "gap_why": reason.why if reason else None,
                    "source": r.get("source") or None})
    return out


# --- the runners: each entry's own functions, its rows in the one shape ------------------------------

def _stripe_unit_tables(ctx: RunContext) -> Outcome:
    from . import reproduce

    rows = []
    for r in reproduce.stripe_unit_tables("page"):
        case = f"SUS {r['stripe_unit_bytes'] // KB} KB, from D{r['start_disk']}"
        for table, key, pub, what in (("Table 3", "reads", "published_reads", "extra page reads"),
                                      ("Table 4", "writes", "published_writes", "page writes")):
            for member, ours, theirs in zip(reproduce.MEMBERS, r[key], r[pub], strict=True):
                rows.append(row(table, case, f"{what}, {member}", ours, theirs, "pages"))
        rows.append(row("Eqs. 1-2", case, "extra page reads, all disks", sum(r["reads"]), r["eq_nepr"], "pages",
                        note="published: the paper's Eqs. 1-2 evaluated"))
        rows.append(row("Eq. 3", case, "page writes, P", r["writes"][-1], r["eq_nepw"], "pages",
                        note="published: the paper's Eq. 3 evaluated"))
    return Outcome(rows)


def _stripe_unit_traces(ctx: RunContext) -> Outcome:
    from . import stripe_unit_traces as sut

    result = sut.run(given=ctx.given_traces(sut.NAME))
    return Outcome([row(**args) for args in sut.row_args(result)], [], result["notes"])


def _erasure_code_updates(ctx: RunContext) -> Outcome:
    from . import reproduce

    rows = []
    for r in reproduce.erasure_code_updates():
        case = (f"{r['code']} {r['data_disks']}+2, {r['request_bytes'] // KB} KB from row {r['start_row']} "
                f"D{r['start_disk']}" + (f" (paper: {r['paper_row']})" if r["paper_row"] else ""))
        for i, parity in enumerate(("P1", "P2")):
            pub = None if r["published"] is None else r["published"][i]
            rows.append(row("Table 3", case, f"parity units, {parity}", r["parity_writes"][i], pub, "units",
                            mapping=r["mapping"]))
    return Outcome(rows)


def _erasure_code_tables(ctx: RunContext) -> Outcome:
    from . import erasure_code_tables as ect

    spec = ect.spec()
    diffs = {d["code"]: d for d in spec["diffs"]}
    texts = {t["what"]: t for t in spec["text"]}
    rows = []
    for r in ect.erasure_code_tables():
        case = (f"{r['code']}, SoR {r['sor_bytes'] / KB:g} KB, NoD {r['nod']}, SUS {r['sus_bytes'] / KB:g} KB"
                + (f", {r['starts']}" if r.get("starts") else ""))
        ours, theirs, rule, unit = r["raidsim"], r["paper"], None, _ect_unit(r)
        if r["quantity"] == "Diff":
            d = diffs[r["code"]]
            ours, theirs = r["raidsim_pct"], d["paper_pct"]
            rule = Rule("absolute", {"tolerance": d["tolerance"]},
                        "the study file's tolerance beside the printed number: the paper truncates or rounds")
        elif r["table"] == "Sec. 3.2.4" and "tolerance" in texts[r["quantity"]]:
            t = texts[r["quantity"]]
            ours, theirs = float(r["raidsim"].rstrip("%x")), t["value"]
            rule = Rule("absolute", {"tolerance": t["tolerance"]}, f"the study file's tolerance beside \"{t['paper']}\"")
        rows.append(row(r["table"], case, r["quantity"], ours, theirs, unit, rule=rule, note=r["note"],
                        expect=r["match"], mapping=r["mapping"]))
    for r in ect.figure5_rows():
        rows.append(row("Figure 5", f"{r['code']} {r['array']}, one 4 KB data unit on 4 KB units", r["quantity"],
                        r["raidsim"], r["paper"], "units", note=r["note"], mapping=r["mapping"]))
    return Outcome(rows)


def _ect_unit(r: Dict[str, Any]) -> str:
    if r["quantity"] in ("AVG (KB)", "SUP (KB)") or r["table"] == "Table 4" and r["quantity"] == "NoW":
        return "KB"
    if r["quantity"] == "Diff" or r["raidsim"].endswith("%"):
        return "%"
    return "×" if r["raidsim"].endswith("x") else "units"


def _disk_parameters(ctx: RunContext) -> Outcome:
    from . import striping

    labels = {"capacity_mb": ("capacity", "MB"), "sustained_mb_per_s": ("sustained transfer rate", "MB/s"),
              "effective_average_seek_ms": ("effective average seek", "ms"),
              "effective_positioning_ms": ("effective positioning", "ms"),
              "performance_product_kb": ("disk performance product", "KB")}
    rows = [row("Table 1", r["disk"], labels[k][0], r[k], r[f"{k}_published"], labels[k][1])
            for r in striping.disk_parameters() for k in striping.TABLE_1_KEYS]
    return Outcome(rows)


def _striping_coefficients(ctx: RunContext) -> Outcome:
    from . import striping

    result = striping.striping_coefficients(ctx.out_dir, quick=ctx.quick, workers=ctx.workers, progress=ctx.progress)
    figures = striping.plot_striping(result, ctx.out_dir)
    rows = []
    for r in result["rows"]:
        case = f"{r['disk']}, {r['disks']} disks"
        for k in striping.COEFFICIENTS:
            rule = None
            if k.startswith("Z"):
                lo, hi = r[f"{k}_band"]
                rule = Rule("band", {"lo": lo, "hi": hi, "published_in_band": r[f"{k}_published_in_band"]},
                            "Z is known to its band: the units whose worst share cannot be told from the best one's "
                            "within each run's 95 % interval (striping.coefficients)")
            # The quick grid's few units and concurrencies may leave no line through every range: S is then
            # not reached by this run (as a disk the grid leaves out), where on the full grid it is a gap.
            unplaced = r[k] is None and k.startswith("S") and result["quick"]
            rows.append(row("Table 2", case, k, r[k], r[f"{k}_published"], "", rule=rule, not_run=unplaced,
                            note="" if r[k] is not None else "no line through (1, one sector) fits every range"
                            + (" of the --quick grid: run without --quick" if unplaced else "")))
        for op in ("read", "write"):
            for conc, (lo, hi) in r[f"ranges_{op}"].items():
                for end, value in (("smallest", lo), ("largest", hi)):
                    rows.append(row("Figure 6", f"{case}, {op}s, concurrency {conc}", f"{end} unit in range",
                                    value / KB, None, "KB"))
    for o in result["observations"]:
        rows.append(row(o["figure"], o["case"], o["metric"], o["raidsim"], o["published"], "%", note=o["note"]))
    ran = {r["preset"] for r in result["rows"]}
    for pub in striping.spec()["disks_published"]:  # a disk the --quick grid leaves out: its Table 2 is not run
        if pub["preset"] not in ran:
            if not result["quick"]:
                raise RuntimeError(f"striping-coefficients: no row for the published {pub['disk']}")
            for k in striping.COEFFICIENTS:
                rows.append(row("Table 2", f"{pub['disk']}, {striping.spec()['disks']} disks", k, None, pub[k], "",
                                not_run=True, note="not in the --quick grid"))
    if not result["quick"] and len(result["observations"]) != len(striping.spec()["observations"]):
        raise RuntimeError("striping-coefficients: §4's observations on Figures 2-3 were not all read off the runs")
    for b in result["by_disks"]:
        for k in ("Z_r", "Z_w", "Z_rw"):
            rows.append(row("Figure 7", f"IBM Lightning, {b['disks']} disks", k, b[k], None, ""))
    notes = ["--quick: IBM Lightning only, fewer units and concurrencies, a 10 % stopping rule: a smoke run"] \
        if result["quick"] else []
    return Outcome(rows, figures, notes)


def _hdd_stripe_unit_tables(ctx: RunContext) -> Outcome:
    from . import hdd_stripe_unit as hdd

    spec = hdd.spec()
    results = hdd.hdd_stripe_unit_tables(ctx.out_dir, workers=ctx.workers, progress=ctx.progress)
    figures = hdd.plot_hdd_tables(results, ctx.out_dir)
    published_mix = spec["read_fractions"][0]  # the spec sets the published values beside this mix only
    names = {t["drive"]: t["name"] for t in spec["tables"]}
    rows = []
    for r in results:
        case = (f"{r['drive_name']}, {r['stripe_unit_bytes'] // KB} KB units, {r['mean_request_bytes'] // KB} KB "
                f"requests, {100 * r['read_fraction']:.0f} % reads")
        for key, label, unit in (("response_ms", "response", "ms"), ("positioning_ms", "positioning per access", "ms"),
                                 ("transfer_ms", "transfer per access", "ms"),
                                 ("positioning_share_pct", "positioning share", "%")):
            pub = r[f"{key}_published"] if r["read_fraction"] == published_mix else None
            rows.append(row(f"Table {r['table']}", case, label, r[key], pub, unit))
    for f in hdd.findings(results):
        for obs in spec["observations"]:
            bound = "at_most" if "at_most" in obs else "at_least"
            judged_here = f["drive"] in obs["drives"] and f["read_fraction"] == published_mix
            rows.append(row("Section 5.3", f"{names[f['drive']]}, {100 * f['read_fraction']:.0f} % reads",
                            obs["finding"], f[obs["finding"]], obs[bound] if judged_here else None,
                            "%" if obs["finding"].endswith("_pct") else "",
                            rule=Rule(bound, why=f"the text: \"{obs['text']}\"") if judged_here else None))
    return Outcome(rows, figures)


def _striping_traces(ctx: RunContext) -> Outcome:
    from . import striping_traces as st

    result = st.run(catalog.entry(st.NAME), ctx)
    return Outcome(result["rows"], result["figures"] + st.plot(result["shares"], ctx.out_dir), result["notes"])


def _disk_validation(ctx: RunContext) -> Outcome:
    from . import disk_validation as dv

    result = dv.run(given=ctx.given_traces(dv.NAME), phases=0 if ctx.quick else None)
    return Outcome([row(**args) for args in dv.row_args(result)], dv.plot(result, ctx.out_dir), result["notes"])


def _mqsim_fast18(ctx: RunContext) -> Outcome:
    from . import mqsim_fast18 as mf

    result = mf.run(quick=ctx.quick)
    notes = [f"each flow ran {result['stop_time_ns'] / 1e9:g} s of simulated time (MQSim's: 10 s)"]
    return Outcome([row(**args) for args in mf.row_args(result)], mf.plot(result, ctx.out_dir), notes)


def _diff_raid(ctx: RunContext) -> Outcome:
    from . import diff_raid as dr

    result = dr.run(quick=ctx.quick)
    return Outcome([row(**args) for args in dr.row_args(result)], dr.plot(result, ctx.out_dir), [])


def _with_traces(module: Any, ctx: RunContext, entry: str) -> Dict[str, Any]:
    return module.run(ctx.out_dir, quick=ctx.quick, traces_dir=ctx.traces_dir, workers=ctx.workers,
                      progress=ctx.progress, given=ctx.given_traces(entry))


def _traces_note(result: Dict[str, Any], entry: str) -> List[str]:
    """Which of the paper's traces ran as given and which as stand-ins, and the shared traces not found."""
    from . import paper_traces

    notes = paper_traces.notes(result.get("given", {}), paper_traces.known(entry))
    if not result["missing_traces"]:
        return notes
    return notes + [f"shared traces not found in {result['traces_dir'] or '(no traces directory)'}, skipped: "
                    + ", ".join(result["missing_traces"])]


def _cr5m(ctx: RunContext) -> Outcome:
    from . import cr5m

    result = _with_traces(cr5m, ctx, "cr5m")
    figures = cr5m.plot(result, ctx.out_dir)
    rows = [{**(_without_a_row("cr5m", r, r["case"], ctx) if r.get("missing") else
                row(r["figure"], r["case"], r["metric"], r["raidsim"], r["paper"], module_unit(r["metric"]))),
             "source": cr5m.source(r["case"], result.get("given", {}))}
            for r in result["rows"]]
    return Outcome(rows, figures, _traces_note(result, "cr5m"))


def _erasure_code_study(ctx: RunContext) -> Outcome:
    from . import erasure_code_study as ecs

    from .paper_traces import source_of

    result = _with_traces(ecs, ctx, "erasure-code-study")
    figures = ecs.plot(result, ctx.out_dir)
    table7 = {w["name"] for w in ecs.spec()["workloads"]}
    readings = ecs.readings()
    rows = []
    for r in result["rows"]:
        parts = [r["workload"], r["code"]] + ([f"NoD {r['nod']}"] if r["nod"] is not None else []) \
            + ([f"SUS {r['sus_bytes'] // KB} KB"] if r["sus_bytes"] is not None else [])
        if r.get("missing"):
            rows.append(_without_a_row("erasure-code-study", r, ", ".join(parts), ctx))
            continue
        rows.append(row(r["figure"], ", ".join(parts), r["metric"], r["raidsim"], r["paper"], module_unit(r["metric"]),
                        note="" if r["raidsim"] is not None or r["paper"] is None else
                        "no value: a point of the claim is missing or its denominator is 0",
                        source=source_of([r["workload"]] if r["workload"] in table7 else [], result.get("given", {})),
                        mapping=readings.get(r["metric"], "") if r["paper"] is not None else ""))
    return Outcome(rows, figures, _traces_note(result, "erasure-code-study"))


def _rais(ctx: RunContext) -> Outcome:
    from . import rais

    result = rais.run(ctx.out_dir, quick=ctx.quick, workers=ctx.workers, progress=ctx.progress)
    figures = rais.plot(result, ctx.out_dir)
    rows = []
    for r in result["rows"]:
        if r.get("missing"):
            rows.append(_without_a_row("rais", r, r["case"], ctx))
        elif r["metric"].endswith("_vs_rais0b") and r["case"].startswith("RAIS-0(B)"):
            # Figure 7 is normalised to RAIS-0(B): its own 1 beside the paper's 1 holds by definition, not a pass.
            rows.append(row(r["figure"], r["case"], r["metric"], r["raidsim"], None, module_unit(r["metric"]),
                            note="the reference of the normalisation: 1 by definition"))
        else:
            rows.append(row(r["figure"], r["case"], r["metric"], r["raidsim"], r["paper"], module_unit(r["metric"])))
    return Outcome(rows, figures)


def _without_a_row(name: str, r: Dict[str, Any], case: str, ctx: RunContext) -> Dict[str, Any]:
    """A published number no row of the module's run took (its :class:`raidsim.papers.rows.PublishedRows` says
    which): not run on a --quick grid, which leaves cases out; on the full grid, which runs every published
    case, the entry fails, naming it."""
    if not ctx.quick:
        raise RuntimeError(f"{name}: no row for the published {r['figure']} / {case} / {r['metric']} "
                           f"({r['missing']})")
    return row(r["figure"], case, r["metric"], None, r["paper"], module_unit(r["metric"]), not_run=True,
               note="not in the --quick grid")


def ordinary_study(e: Entry, ctx: RunContext) -> Outcome:
    """An entry with no runner of its own (a new study file with a [catalog]; the stripe-unit study): its
    sweep, its report's figures, and one row per point, metric and member of ``results_long.csv``."""
    from ..study.spec import Study
    from ..study.sweep import run_study

    from .claims import read_long

    study, sources, notes = study_of(e, ctx)
    table = run_study(study, ctx.out_dir, workers=ctx.workers, progress=ctx.progress)
    report = table.attrs.get("report")
    figures = [f.png for f in report.figures] if report is not None else []
    long_rows = read_long(os.path.join(ctx.out_dir, "results_long.csv"))
    rows = sourced_claim_rows(e, long_rows, sources)
    for r in long_rows:
        settings = [k for k in study.axes if r.get(k)]
        case = ", ".join(([r["case"]] if r["case"] else []) + [f"{k} = {r[k]}" for k in settings])
        metric = r["metric"] + (f"[{r['member']}]" if r["member"] else "") + (f"[{r['index']}]" if r["index"] else "")
        value = None if r["value"] == "" else float(r["value"])
        rows.append(row(_plot_title(study, r), case, metric, value, None, r["unit"],
                        source=sources.get(r["case"], sources.get("", ""))))
    return Outcome(rows, figures, notes + ([f"the study's own report: {report.page}"] if report is not None else []))


def sourced_claim_rows(e: Entry, long_rows: Sequence[Mapping[str, str]], sources: Mapping[str, str]) -> List[Dict[str, Any]]:
    """The entry's claims as rows (:mod:`.claims`), each with the source of the cases its points belong to."""
    from .claims import cases_of, claim_rows
    from .paper_traces import source_of_cases

    return [{**r, "source": source_of_cases(cases_of(c), sources)}
            for c, r in zip(e.claims, claim_rows(e, long_rows), strict=True)]


def study_of(e: Entry, ctx: RunContext) -> Tuple[Any, Dict[str, str], List[str]]:
    """An ordinary study as it runs, replaying the papers' traces the user gave
    (:func:`raidsim.papers.paper_traces.study_for`)."""
    from .paper_traces import study_for

    return study_for(e, ctx.given_traces(e.name) if e.traces else {})


def _plot_title(study: Any, long_row: Dict[str, str]) -> str:
    """The title of the study's first plot that draws this long row's value (its metric, its `where`), else
    "results": the figure a row belongs to, as the study itself declares it."""
    for p in study.plots:
        if any(t.metric == long_row["metric"] for t in p.y) and all(
                long_row.get(k, "") in {str(v) for v in values} for k, values in p.where.items()):
            return p.title or p.name
    return "results"


#: Each entry's runner; a catalog entry without one runs as an ordinary study (:func:`ordinary_study`).
RUNNERS: Dict[str, Callable[[RunContext], Outcome]] = {
    "stripe-unit-tables": _stripe_unit_tables,
    "stripe-unit-traces": _stripe_unit_traces,
    "hdd-stripe-unit-tables": _hdd_stripe_unit_tables,
    "disk-parameters": _disk_parameters,
    "disk-validation": _disk_validation,
    "striping-coefficients": _striping_coefficients,
    "striping-traces": _striping_traces,
    "cr5m": _cr5m,
    "rais": _rais,
    "erasure-code-updates": _erasure_code_updates,
    "erasure-code-tables": _erasure_code_tables,
    "erasure-code-study": _erasure_code_study,
    "mqsim-fast18": _mqsim_fast18,
    "diff-raid": _diff_raid,
}

# Units of the module rows' metrics (cr5m, erasure-code-study, rais), by name: first match wins; a name
# no rule knows has no unit (an empty cell, never a guess).
_UNITS = [
    (r"_pct(_|$)", "%"),  # first: a claim on write amplification (`wa_pct`) is a change in %, not a ratio
    (r"^(stdev_over_avg|wa|wa_.*)$", ""),
    (r"mb_per_s$", "MB/s"),
    (r"_ms$", "ms"),
    (r"_s$", "s"),
    (r"^iops(_ci95_half_width)?$", "IOPS"),
    (r"_vs_rais0b$", "× RAIS-0(B)"),
    (r"_over_", "×"),
    (r"_gb$", "GB"),
    (r"_usd$", "USD"),
    (r"^now_units_", "units"),
    (r"^now$", "pages per write"),
    (r"^noc$", "erases"),
    (r"(writes|pre_reads|_pages)$", "pages"),
    (r"^strips_by_", "strips"),
    (r"^gc_runs$", "collections"),
    (r"^intervals$", "intervals"),
]


def module_unit(metric: str) -> str:
    name = metric.split(":", 1)[0]
    return next((unit for pattern, unit in _UNITS if re.search(pattern, name)), "")


# --- running ----------------------------------------------------------------------------------------

#: The entries whose --quick runs a smaller grid, into a directory of its own; the others run the same either way.
QUICK_MODES = {"striping-coefficients", "cr5m", "rais", "erasure-code-study", "disk-validation", "mqsim-fast18", "diff-raid"}


def entry_dir(out: str, name: str, quick: bool) -> str:
    return os.path.join(out, name + ("-quick" if quick and name in QUICK_MODES else ""))


def run_entry(e: Entry, ctx: RunContext) -> EntryResult:
    """Runs one entry and judges its rows; a failure is recorded, not raised (Ctrl-C is)."""
    started = time.monotonic()
    try:
        runner = RUNNERS.get(e.name)
        outcome = runner(ctx) if runner is not None else ordinary_study(e, ctx)
        rows = judged(e, outcome.rows)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as err:  # pyo3's PanicException derives from BaseException
        return EntryResult(e, "failed", time.monotonic() - started, error=f"{type(err).__name__}: {err}",
                           trace=traceback.format_exc())
    return EntryResult(e, "ok", time.monotonic() - started, rows, outcome.figures, outcome.notes)


def run_all(names: Sequence[str], out: str, *, quick: bool = False, workers: Optional[int] = None,
            progress: Optional[bool] = None, traces_dir: Optional[str] = None,
            echo: Callable[[str], None] = print,
            trace_paths: Optional[Mapping[Tuple[Optional[str], str], str]] = None) -> List[EntryResult]:
    """Runs the named entries (catalog order) into ``out`` and writes the report; every entry runs, whatever
    failed before it. Returns each entry's result; see :func:`write_report` for the files."""
    chosen = [e for e in catalog.entries() if e.name in set(names)]
    unknown = sorted(set(names) - {e.name for e in chosen})
    if unknown:
        raise catalog.CatalogError(f"no reproduction {', '.join(unknown)}; the catalog has: {', '.join(catalog.names())}")
    os.makedirs(out, exist_ok=True)
    from ..study.resume import locked

    with locked(out):  # a second run into the same OUT would interleave its report with this one's
        return _run_locked(chosen, out, quick, workers, progress, traces_dir, echo, dict(trace_paths or {}))


def _run_locked(chosen: Sequence[Entry], out: str, quick: bool, workers: Optional[int], progress: Optional[bool],
                traces_dir: Optional[str], echo: Callable[[str], None],
                trace_paths: Mapping[Tuple[Optional[str], str], str]) -> List[EntryResult]:
    started, results = time.monotonic(), []
    try:
        for i, e in enumerate(chosen, 1):
            echo(f"[{i}/{len(chosen)}] {e.name} ({e.paper.short}; {catalog.runtime_text(e)}) ...")
            ctx = RunContext(entry_dir(out, e.name, quick), quick, workers, progress, traces_dir, trace_paths)
            r = run_entry(e, ctx)
            results.append(r)
            done = verdict_pages.counts_text(r.counts()) if r.status == "ok" else f"FAILED: {r.error}"
            echo(f"[{i}/{len(chosen)}] {e.name}: {done} ({r.seconds:.1f} s; {time.monotonic() - started:.0f} s elapsed)")
    finally:  # interrupted too: the page shows what finished, and says what did not run
        write_report(results, out, quick=quick, seconds=time.monotonic() - started, planned=len(chosen))
    return results


# --- the report -------------------------------------------------------------------------------------

def write_report(results: Sequence[EntryResult], out: str, *, quick: bool, seconds: float,
                 planned: Optional[int] = None) -> str:
    """Writes rows.csv, rows.json, entries.json, and the pages (:mod:`~raidsim.papers.verdict_pages`: the index
    report.html, a page per entry in entries/) into ``out``; returns the index's path."""
    rows = [r for res in results for r in res.rows]
    with open(os.path.join(out, "rows.json"), "w") as f:
        json.dump([{k: r[k] for k in COLUMNS} for r in rows], f, indent=1)
    with open(os.path.join(out, "rows.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow(["" if r[k] is None else r[k] for k in COLUMNS])
    with open(os.path.join(out, "entries.json"), "w") as f:
        json.dump([{"name": res.entry.name, "status": res.status, "seconds": round(res.seconds, 1),
                    "counts": res.counts(), "error": res.error or None, "figures": [os.path.relpath(p, out)
                                                                                  for p in res.figures]}
                   for res in results], f, indent=1)
    return verdict_pages.write_pages(results, out, quick=quick, seconds=seconds,
                                     planned=len(results) if planned is None else planned)
