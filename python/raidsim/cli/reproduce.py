"""``raidsim reproduce``: a packaged reproduction of a paper (or `all` of them), our numbers beside theirs."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Optional, Sequence

from .. import _text_table
from ._common import (DEFAULT_OUT, EXIT_SWEEP, UsageError, add_command, add_json, add_no_progress, add_out,
                      add_set, add_workers, error, progress, refuse_out_file, terminal_width)
from .studies import run_study_with_report

STUDY_OPTIONS = {"json", "out", "workers", "no_progress"}
#: The reproductions that run as studies and replay the papers' traces when given ([[catalog.traces]]).
ORDINARY_WITH_TRACES = ("stripe-unit-study", "stripe-unit-chips", "stripe-unit-md-raid5", "cr5m-chips")
# Which `reproduce` options each reproduction takes (the rest would be silently ignored); a catalog entry not
# listed (a new study file with a [catalog] table) runs as an ordinary study and takes STUDY_OPTIONS.
REPRODUCE_OPTIONS = {
    "stripe-unit-tables": {"granularity", "json"},
    "erasure-code-updates": {"json"},
    "erasure-code-tables": {"json"},
    "disk-parameters": {"json"},
    "disk-validation": {"json", "out", "quick", "traces", "trace"},
    "mqsim-fast18": {"json", "out", "quick"},
    "diff-raid": {"json", "out", "quick"},
    "stripe-unit-traces": {"json", "trace", "traces"},
    "stripe-unit-chips": {"json", "out", "workers", "no_progress", "trace", "traces"},
    "stripe-unit-md-raid5": {"json", "out", "workers", "no_progress", "trace", "traces"},
    "cr5m-chips": {"json", "out", "workers", "no_progress", "trace", "traces"},
    "stripe-unit-study": {"json", "out", "workers", "no_progress", "trace", "traces"},
    "striping-coefficients": {"json", "out", "workers", "no_progress", "quick", "set"},
    "striping-traces": {"json", "out", "workers", "no_progress", "trace", "traces"},
    "hdd-stripe-unit-tables": {"json", "out", "workers", "no_progress", "set"},
    "cr5m": {"json", "out", "workers", "no_progress", "quick", "traces", "trace"},
    "erasure-code-study": {"json", "out", "workers", "no_progress", "quick", "traces", "trace"},
    "rais": {"json", "out", "workers", "no_progress", "quick"},
    "all": {"out", "workers", "no_progress", "quick", "traces", "trace", "only"},
}
_UNSET = {"granularity": None, "json": False, "out": None, "workers": None, "no_progress": False, "quick": False,
          "set": None, "traces": None, "trace": None, "only": None}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "reproduce", _reproduce, "run a packaged reproduction and set published numbers beside ours",
                    "Runs a reproduction of the catalog (`raidsim reproduce --list`: name, paper, tables and figures, "
                    "runtime, exact or trend), or `all` of them into one HTML report of ours beside the published "
                    "numbers with a pass/gap verdict per row (an index of the verdicts, a page per reproduction). "
                    "Each takes only the options that apply to it.")
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="a reproduction of `raidsim reproduce --list`, or `all`: every one, one report")
    p.add_argument("--list", action="store_true",
                   help="list the reproductions, one a line: name, paper, tables and figures, runtime, exact or trend "
                        "(--json: a list of objects)")
    p.add_argument("--only", metavar="NAME[,NAME]", help="all: only these reproductions")
    p.add_argument("--granularity", choices=["page", "whole_unit", "disksim"],
                   help="stripe-unit-tables: parity decision granularity (default page)")
    add_json(p, "print rows as JSON")
    add_out(p, f"output directory (the studies that run simulations; all: default {DEFAULT_OUT}/reproduce-all)")
    p.add_argument("--quick", action="store_true",
                   help="striping-coefficients: one disk, fewer points, ±10 %% stopping rule; disk-validation: no "
                        "platter phases; cr5m: SSD1 only, "
                        "10,000 requests, fewer points; erasure-code-study: 4,000 requests a workload, fewer stripe "
                        "units and reservations; rais: fewer queue depths and sizes, one replicate, shorter "
                        "runs; mqsim-fast18: three scenarios an experiment, 1 s each; all: each one's quick grid")
    add_set(p, " for every run of the sweeping reproductions (the output directory then holds a variant, not the "
               "reproduction)", dest="set")
    p.add_argument("--traces", metavar="DIR",
                   help="directory of traces: the shared traces cr5m and erasure-code-study replay beside their "
                        "stand-ins, and the papers' own traces, found by name (Iozone.trace, Financial1.spc, ...: "
                        "docs/reproductions) and replayed in place of their stand-ins (default ../shared/traces "
                        "when it exists)")
    p.add_argument("--trace", action="append", metavar="NAME=PATH",
                   help="a paper's own trace, by the name its table gives (Iozone, Postmark, Vdbench, Financial1, "
                        "Exchange, CAM03-lvm0, Fin2, ...; PAPER:NAME or REPRODUCTION:NAME where two papers use one name): "
                        "replayed in place of its stand-in, checked against the paper's statistics; repeatable")
    add_workers(p)
    add_no_progress(p)


def _check_reproduce_options(args: argparse.Namespace) -> None:
    takes = REPRODUCE_OPTIONS.get(args.name, STUDY_OPTIONS)
    given = [k for k, unset in _UNSET.items() if getattr(args, k) != unset]
    wrong = [k for k in given if k not in takes]
    if wrong:
        flags = ", ".join("--" + k.replace("_", "-") for k in wrong)
        listed = ", ".join(sorted("--" + k.replace("_", "-") for k in takes)) or "none"
        raise UsageError(f"reproduce {args.name} does not take {flags} (it takes: {listed})")


def _reproduce(args: argparse.Namespace) -> int:
    from ..papers import catalog  # light: --list imports no pandas

    if args.list:
        return _reproduce_list(args)
    if args.name is None:
        raise UsageError("reproduce needs a reproduction's name, `all`, or --list")
    # The names are the catalog's (one per packaged study file with a [catalog] table), read only here:
    # parsing them for every command would slow each one down.
    if args.name != "all" and args.name not in catalog.names():
        raise UsageError(f"unknown reproduction `{args.name}`; valid: {', '.join(catalog.names())}, all "
                         "(`raidsim reproduce --list` says what each covers)")
    _check_reproduce_options(args)
    if args.name == "all":
        return _reproduce_all(args)
    from ..papers import reproduce

    if args.name == "stripe-unit-tables":
        rows = reproduce.stripe_unit_tables(args.granularity or "page")
        print(json.dumps(rows, indent=2) if args.json else reproduce.stripe_unit_tables_text(rows))
        return 0
    if args.name == "erasure-code-updates":
        rows = reproduce.erasure_code_updates()
        print(json.dumps(rows, indent=2) if args.json else reproduce.erasure_code_updates_text(rows))
        return 0
    if args.name == "erasure-code-tables":
        from ..papers import erasure_code_tables as ect

        rows = ect.erasure_code_tables()
        print(json.dumps(rows, indent=2) if args.json else ect.erasure_code_tables_text(rows))
        return 0
    if args.name == "stripe-unit-traces":
        return _reproduce_stripe_unit_traces(args)
    if args.name == "disk-validation":
        return _reproduce_disk_validation(args)
    if args.name == "mqsim-fast18":
        return _reproduce_mqsim_fast18(args)
    if args.name == "diff-raid":
        return _reproduce_diff_raid(args)
    if args.name == "striping-traces":
        return _reproduce_striping_traces(args)
    if args.name in ORDINARY_WITH_TRACES and not args.json:
        return _reproduce_ordinary_study(args)
    if args.name in ("disk-parameters", "striping-coefficients", "hdd-stripe-unit-tables"):
        return _reproduce_hdd(args)
    if args.name == "cr5m":
        from ..papers import cr5m

        return _reproduce_with_traces(args, cr5m, "cr5m")
    if args.name == "erasure-code-study":
        from ..papers import erasure_code_study

        return _reproduce_with_traces(args, erasure_code_study, "erasure-code-study")
    if args.name == "rais":
        return _reproduce_rais(args)
    return _reproduce_study(args)


def _trace_paths(args: argparse.Namespace, entries: Sequence[str]) -> Any:
    """``--trace`` values by (qualifier or None, name), each checked before anything runs: a name none of
    ``entries`` replays, or one (or a ``--traces`` file) two papers would read as different traces, is a usage
    error; a file that is missing or no trace, an error naming it."""
    from ..papers import paper_traces

    try:
        given = paper_traces.parse(args.trace or ())
    except paper_traces.TraceError as e:
        raise UsageError(str(e)) from None
    wrong = paper_traces.check_names(given, entries, _traces_dir(args))
    if wrong:
        raise UsageError(f"--trace/--traces for {', '.join(entries)}: {'; '.join(wrong)}")
    for e in entries:  # every given trace read (and checked) now, not after the reproductions before it ran
        paper_traces.for_entry(e, given, _traces_dir(args))
    return given


def _reproduce_stripe_unit_traces(args: argparse.Namespace) -> int:
    from ..papers import catalog
    from ..papers import stripe_unit_traces as sut
    from ..papers.reproduce_all import EntryResult, RunContext, judged, row
    from ..papers.verdict_pages import counts_text

    ctx = RunContext("", traces_dir=_traces_dir(args), trace_paths=_trace_paths(args, [sut.NAME]))
    result = sut.run(given=ctx.given_traces(sut.NAME))
    e = catalog.entry(sut.NAME)
    rows = judged(e, [row(**a) for a in sut.row_args(result)])
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(sut.text(result, width=_text_width()))
    _print_notes(result["notes"], args.json)
    if not args.json:
        counts = EntryResult(e, "ok", 0.0, rows).counts()
        print(_text_table.fill(f"verdicts: {counts_text(counts)} (a count is not run without the paper's trace; "
                               "`--json` gives every row)", _text_width()))
    return 0


def _reproduce_striping_traces(args: argparse.Namespace) -> int:
    """Chen & Lee's Figures 8-10: a study of trace stand-ins (the paper's traces replayed where given, into
    OUT-trace by default), its shares of the best read off by raidsim.papers.striping_traces and judged."""
    from ..papers import catalog
    from ..papers import striping_traces as st
    from ..papers.reproduce_all import RunContext, judged, study_of

    e = catalog.entry(st.NAME)
    ctx = RunContext("", workers=args.workers, progress=progress(args), traces_dir=_traces_dir(args),
                     trace_paths=_trace_paths(args, [st.NAME]))
    ctx.out_dir = _study_out(args, study_of(e, ctx)[1])
    refuse_out_file(ctx.out_dir, "the study's results")
    result = st.run(e, ctx)
    rows = judged(e, result["rows"])
    figures = result["figures"] + st.plot(result["shares"], ctx.out_dir)
    if args.json:
        print(json.dumps(rows, indent=2))
        _print_notes(result["notes"], True)
        return 0
    print(st.text(rows))
    _print_notes(result["notes"])
    _print_figures(figures)
    return 0


def _reproduce_ordinary_study(args: argparse.Namespace) -> int:
    """A reproduction that runs as a study (stripe-unit-study as `raidsim demo` runs it): replaying the papers'
    traces the user gave where its stand-ins ran (into OUT-trace by default: its points are not the
    stand-ins'), then the numbers the paper's text states about its points beside ours."""
    from ..papers import catalog
    from ..papers.reproduce_all import RunContext, study_of

    e = catalog.entry(args.name)
    ctx = RunContext("", traces_dir=_traces_dir(args), trace_paths=_trace_paths(args, [args.name]))
    study, sources, notes = study_of(e, ctx)
    args.out = _study_out(args, sources)
    _print_notes(notes)
    status = run_study_with_report(study, args)
    _print_claims(args.name, args.out, sources)
    return status


def _study_out(args: argparse.Namespace, sources: Any) -> str:
    """``--out``, or the reproduction's default folder: OUT/NAME, OUT/NAME-trace where it replays a paper's trace
    (its points are not the stand-ins', and a resumed sweep must not mix them)."""
    traced = "trace" in sources.values()
    return args.out or os.path.join(DEFAULT_OUT, args.name + ("-trace" if traced else ""))


def _print_notes(notes: Sequence[str], json_out: bool = False) -> None:
    """A reproduction's notes: its warnings (a given trace that differs from the paper's, one folded onto the
    array) on stderr, the rest on stdout, which holds only JSON with ``json_out``."""
    for note in notes:
        if note.startswith("warning: "):
            print(f"raidsim: {note}", file=sys.stderr)
        elif not json_out:
            print(_text_table.fill(note, _text_width()))


#: What a row ran on, as the terminal says it.
_ON = {"trace": "on the paper's trace", "stand-in": "on the stand-in", "mixed": "on traces and stand-ins"}


def _print_claims(name: str, out: str, sources: Any) -> None:
    """An ordinary study's claims (the numbers its paper's text states about its points), judged; ``sources``:
    what each case ran on (a stand-in's gap reason does not explain a row that ran on the paper's trace)."""
    from ..papers import catalog, claims
    from ..papers.reproduce_all import judged, sourced_claim_rows

    e = catalog.entry(name)
    if not e.claims:
        return
    rows = judged(e, sourced_claim_rows(e, claims.read_long(os.path.join(out, "results_long.csv")), sources))
    print("\nThe text's numbers beside ours (a gap's class: a, the stand-in cannot carry it; b, the paper is "
          "ambiguous; c, the model; `raidsim reproduce all` says why):")
    for r in rows:
        unit = "" if r["unit"] == "ratio" else f" {r['unit']}"
        print(_text_table.fill(f"- {r['figure']}, {r['case']}: {r['metric']}: raidsim "
                               f"{'-' if r['raidsim'] is None else format(r['raidsim'], '.4g')}"
                               f"{unit}, published {r['published']:g}{unit} ({r['tolerance']}): {r['verdict']}"
                               + (f" ({r['gap_class']})" if r["gap_class"] else "")
                               + (f" [{_ON[r['source']]}]" if r["source"] else ""), _text_width()))


def _reproduce_list(args: argparse.Namespace) -> int:
    """``reproduce --list [--json]``: the catalog, one reproduction a line (or a list of objects)."""
    from ..papers import catalog

    given = [k for k, unset in _UNSET.items() if k != "json" and getattr(args, k) != unset]
    if args.name is not None or given:
        extra = ([args.name] if args.name is not None else []) + ["--" + k.replace("_", "-") for k in given]
        raise UsageError(f"reproduce --list takes only --json, not {', '.join(extra)}")
    print(json.dumps(catalog.list_json(), indent=2) if args.json else "\n".join(catalog.list_lines()))
    return 0


def _reproduce_all(args: argparse.Namespace) -> int:
    """``reproduce all``: every reproduction (or --only some), one report; a failed one is reported, the rest
    still run, and the status is EXIT_SWEEP at the end."""
    from ..papers import catalog, reproduce_all

    names = catalog.names()
    if args.only is not None:
        chosen = list(dict.fromkeys(n.strip() for n in args.only.split(",") if n.strip()))
        unknown = [n for n in chosen if n not in names]
        if not chosen or unknown:
            raise UsageError(f"--only {args.only!r}: {'unknown ' + ', '.join(unknown) if unknown else 'no name'}; "
                             f"valid: {', '.join(names)}")
        names = chosen
    out = args.out or os.path.join(DEFAULT_OUT, "reproduce-all")
    refuse_out_file(out, "the report")
    from ..study.journal import JOURNAL

    if os.path.exists(os.path.join(out, JOURNAL)):  # its report.html would be replaced by this one
        raise UsageError(f"--out {out} holds a sweep's results ({JOURNAL}), not a `reproduce all` report: "
                         "choose another directory")
    results = reproduce_all.run_all(names, out, quick=args.quick, workers=args.workers, progress=progress(args),
                                    traces_dir=_traces_dir(args), echo=lambda line: print(line, flush=True),
                                    trace_paths=_trace_paths(args, names))
    from ..papers.verdict_pages import paper_summary, paper_summary_text

    print("\nBy paper:")
    for line in paper_summary_text(paper_summary(results)):
        print(_text_table.fill(line, _text_width()))
    print(f"report: {os.path.join(out, 'report.html')} (the verdicts; a page per reproduction in "
          f"{os.path.join(out, 'entries')}; every row: rows.csv, rows.json)")
    failed = [r.entry.name for r in results if r.status != "ok"]
    if failed:
        return error(f"{len(failed)} of {len(results)} reproductions failed: {', '.join(failed)} (the report says "
                     "why)", EXIT_SWEEP)
    return 0


def _reproduce_study(args: argparse.Namespace) -> int:
    """A catalog entry with no reproduction module: its study file runs as a sweep; rows as `reproduce all`'s."""
    from ..papers import catalog, reproduce_all

    e = catalog.entry(args.name)
    ctx = reproduce_all.RunContext("", workers=args.workers, progress=progress(args), traces_dir=_traces_dir(args),
                                   trace_paths=_trace_paths(args, [args.name]))
    out = ctx.out_dir = _study_out(args, reproduce_all.study_of(e, ctx)[1])
    outcome = reproduce_all.ordinary_study(e, ctx)
    rows = reproduce_all.judged(e, outcome.rows)
    _print_notes(outcome.notes, args.json)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{len(rows)} rows ({sum(r['published'] is not None for r in rows)} beside a published value); "
              f"the study's results and report in {out}")
    return 0


def _reproduce_hdd(args: argparse.Namespace) -> int:
    from ..papers import hdd_stripe_unit, striping

    if args.name == "disk-parameters":
        rows = striping.disk_parameters()
        print(json.dumps(rows, indent=2) if args.json else striping.disk_parameters_text(rows))
        return 0
    if args.name == "hdd-stripe-unit-tables":
        out = args.out or os.path.join(DEFAULT_OUT, "hdd-stripe-unit-tables")
        rows = hdd_stripe_unit.hdd_stripe_unit_tables(out, workers=args.workers, progress=progress(args),
                                                      overrides=args.set or ())
        figures = hdd_stripe_unit.plot_hdd_tables(rows, out)
        if args.json:
            print(json.dumps({"rows": rows, "findings": hdd_stripe_unit.findings(rows), "overrides": list(args.set or ())},
                             indent=2))
        else:
            print(hdd_stripe_unit.hdd_stripe_unit_tables_text(rows))
            _print_figures(figures)
        return 0
    out = args.out or os.path.join(DEFAULT_OUT, "striping-coefficients" + ("-quick" if args.quick else ""))
    result = striping.striping_coefficients(out, quick=args.quick, workers=args.workers, progress=progress(args),
                                            overrides=args.set or ())
    figures = striping.plot_striping(result, out)
    if args.json:
        print(json.dumps({"rows": result["rows"], "figure7": result["by_disks"], "quick": result["quick"],
                          "observations": result["observations"], "overrides": result["overrides"]}, indent=2))
    else:
        print(striping.striping_coefficients_text(result))
        _print_figures(figures)
    return 0


def _traces_dir(args: argparse.Namespace) -> Optional[str]:
    """``--traces``, checked, or the default shared traces beside the checkout."""
    if args.traces is not None and not os.path.isdir(args.traces):
        raise UsageError(f"--traces {args.traces}: not a directory (the shared traces, e.g. ../shared/traces)")
    return args.traces if args.traces is not None else _default_traces_dir()


def _reproduce_with_traces(args: argparse.Namespace, module: Any, name: str) -> int:
    """A reproduction that runs shared traces beside its stand-ins (``cr5m``, ``erasure-code-study``):
    ``module`` has ``run``, ``plot`` and ``text`` (which takes the terminal's ``width``)."""
    out = args.out or os.path.join(DEFAULT_OUT, name + ("-quick" if args.quick else ""))
    refuse_out_file(out, "the study's results")
    from ..papers import paper_traces
    from ..papers.reproduce_all import RunContext

    traces = _traces_dir(args)
    given = RunContext(out, traces_dir=traces, trace_paths=_trace_paths(args, [name])).given_traces(name)
    notes = paper_traces.notes(given, paper_traces.known(name))
    result = module.run(out, quick=args.quick, traces_dir=traces, workers=args.workers, progress=progress(args),
                        given=given)
    figures = module.plot(result, out)
    if args.json:
        if result["missing_traces"]:  # the text says so in its header; JSON rows cannot
            print(f"raidsim: shared traces not found in {traces or '(no traces directory)'}, skipped: "
                  + ", ".join(result["missing_traces"]), file=sys.stderr)
        print(json.dumps(result["rows"], indent=2))
        _print_notes(notes, True)
    else:
        print(module.text(result, width=_text_width()))
        _print_notes(notes)
        _print_figures(figures)
    return 0


def _reproduce_disk_validation(args: argparse.Namespace) -> int:
    """The disk presets on DiskSim's validation traces, which the user gives: without them, nothing can run."""
    from ..papers import catalog
    from ..papers import disk_validation as dv
    from ..papers.reproduce_all import RunContext, judged, row

    given = RunContext("", traces_dir=_traces_dir(args), trace_paths=_trace_paths(args, [dv.NAME])).given_traces(dv.NAME)
    if not given:
        raise UsageError("disk-validation replays DiskSim's validation traces of the real drives, which raidsim does "
                         "not ship: give --traces DIR, a folder holding cheetah9LP.trace and atlas_III.trace (the "
                         "valid/ folder of github.com/benh/disksim) and random.trace (of Seagate-Cheetah15k5.tar.gz "
                         "in github.com/bootbool/disksim valid/), or --trace cheetah9LP=PATH (atlas_III, cheetah15k5)")
    out = args.out or os.path.join(DEFAULT_OUT, dv.NAME)
    refuse_out_file(out, "the figure")
    result = dv.run(given=given, phases=0 if args.quick else None)
    figures = dv.plot(result, out)
    if args.json:
        print(json.dumps(judged(catalog.entry(dv.NAME), [row(**a) for a in dv.row_args(result)]), indent=2))
        _print_notes(result["notes"], True)
    else:
        print(dv.text(result))
        _print_notes(result["notes"])
        _print_figures(figures)
    return 0


def _reproduce_mqsim_fast18(args: argparse.Namespace) -> int:
    """Two flows sharing one SSD, beside MQSim's recorded figures."""
    from ..papers import mqsim_fast18

    return _reproduce_judged_module(args, mqsim_fast18, os.path.join(DEFAULT_OUT, mqsim_fast18.NAME))


def _reproduce_diff_raid(args: argparse.Namespace) -> int:
    """Diff-RAID's parity assignments: simulated wear, then lifetimes, beside the paper's abstract."""
    from ..papers import diff_raid

    return _reproduce_judged_module(args, diff_raid, os.path.join(DEFAULT_OUT, diff_raid.NAME + ("-quick" if args.quick else "")))


def _reproduce_judged_module(args: argparse.Namespace, module: Any, default_out: str) -> int:
    """A reproduction module with ``run(quick)``, ``row_args``, ``plot`` and ``text``: its rows judged by the
    catalog, printed as text or JSON, with its figures."""
    from ..papers import catalog
    from ..papers.reproduce_all import judged, row

    out = args.out or default_out
    refuse_out_file(out, "the figure")
    result = module.run(quick=args.quick)
    rows = judged(catalog.entry(module.NAME), [row(**a) for a in module.row_args(result)])
    figures = module.plot(result, out)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(module.text(result, rows))
        _print_figures(figures)
    return 0


def _reproduce_rais(args: argparse.Namespace) -> int:
    from ..papers import rais

    out = args.out or os.path.join(DEFAULT_OUT, "rais" + ("-quick" if args.quick else ""))
    result = rais.run(out, quick=args.quick, workers=args.workers, progress=progress(args))
    figures = rais.plot(result, out)
    if args.json:
        print(json.dumps(result["rows"], indent=2))
    else:
        print(rais.text(result, width=_text_width()))
        _print_figures(figures)
    return 0


def _text_width() -> int:
    """The width a reproduction's tables fit: the terminal's, 100 columns when the output is no terminal
    (a file, a pager), where a wider table is cut into blocks that each repeat the row labels."""
    return terminal_width(fallback=100)


def _print_figures(figures: Sequence[str]) -> None:
    """The figures a reproduction drew, named once with their folder, wrapped at the terminal's width."""
    folders = {os.path.dirname(p) for p in figures}
    line = (f"figures in {folders.pop()}: {', '.join(os.path.basename(p) for p in figures)}" if len(folders) == 1
            else f"figures: {', '.join(figures)}")
    print("\n" + _text_table.fill(line, _text_width()))


def _default_traces_dir() -> Optional[str]:
    """``../shared/traces`` beside the working directory, where a clone of raidsim sits; else none."""
    path = os.path.join(os.pardir, "shared", "traces")
    return path if os.path.isdir(path) else None
