"""The ``raidsim`` command line."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from typing import Any, Dict, List, Optional

from . import _atomic, _native
# The sweep's errors, from where they are defined: importing raidsim.sweep would slow every command.
from ._sweep_errors import AnotherStudysResults, StudyError, SweepError
from .api import presets, simulate, trace_stats
from .config import Config
from .counting import count
from .workload import Workload

DEFAULT_OUT = "raidsim-out"

# Exit statuses: the one table, also in the epilog and the README.
EXIT_OK = 0
EXIT_INPUT = 1  # a bad config, trace, study spec or other input (any raidsim.RaidsimError)
EXIT_USAGE = 2  # bad arguments: argparse's own status
EXIT_SWEEP = 3  # a sweep could not finish: failed points, its --out in use by another sweep, a file not written
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C
EXIT_PIPE = 141  # 128 + SIGPIPE: stdout's reader left early (e.g. `| head`), as other tools end
EXIT_CODES = ("exit status: 0 done; 1 a bad config, trace, study spec or other input; 2 a usage error "
              "(bad arguments); 3 a sweep could not finish (failed points, its --out in use by another "
              "sweep, a file it could not write; for `reproduce all`, a failed reproduction); 130 interrupted; "
              "141 stdout closed early (e.g. piped into head)")


def _add_run(sub: argparse._SubParsersAction, name: str = "run") -> argparse.ArgumentParser:
    helps = {"run": "simulate one configuration", "count": "exact page counts per member and cause (no timing)"}
    p = sub.add_parser(name, help=helps[name], description=(
        f"{helps[name]}: a preset or TOML config, with a trace or the config's synthetic workload. "
        f"Example: raidsim {name} --preset stripe-unit-table5 --set array.level=raid5 "
        "--set array.members=5 --set workload.requests=100000"))
    src = p.add_mutually_exclusive_group()
    src.add_argument("--preset", help="packaged preset (see `raidsim presets`)")
    src.add_argument("--config", help="TOML config file")
    p.add_argument("--trace", help="replay this trace instead of the config's workload")
    p.add_argument("--format", choices=_native.trace_formats(), help="trace format (default: detect)")
    p.add_argument("--device", type=int, help="keep only this trace device/disk/LUN")
    p.add_argument("--time-scale", type=float, help="multiply trace timestamps (0.5 = twice as fast)")
    p.add_argument("--max-requests", type=int, help="stop the trace after this many requests")
    p.add_argument("--out-of-range", choices=["wrap", "error"], help="requests beyond the capacity (default wrap)")
    p.add_argument("--skip-malformed", action="store_true", help="skip malformed trace lines instead of stopping")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", type=_key_value,
                   help="override a config key, e.g. --set ssd.geometry.channels=4 (repeatable)")
    p.add_argument("--out", type=_out_dir, help="write report.json, config.toml and CSV tables to this directory")
    p.add_argument("--json", action="store_true", help="print the full report as JSON on stdout")
    p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    return p


# `run`'s options that apply to --trace's replay only (the dest and the option).
_TRACE_OPTIONS = {"format": "--format", "device": "--device", "time_scale": "--time-scale",
                  "max_requests": "--max-requests", "out_of_range": "--out-of-range",
                  "skip_malformed": "--skip-malformed"}


def _check_sources(args: argparse.Namespace) -> None:
    """Refuses what `_config` would silently ignore: an empty --preset, --config or --trace (read as not
    given), and a trace option without --trace (it applies only to the replay --trace builds)."""
    _refuse_empty(args, {"preset": "--preset", "config": "--config", "trace": "--trace"})
    given = [flag for dest, flag in _TRACE_OPTIONS.items() if getattr(args, dest) not in (None, False)]
    if given and not args.trace:
        one = len(given) == 1
        raise UsageError(f"{', '.join(given)} {'applies' if one else 'apply'} only with --trace (to the trace it "
                         f"replays); without --trace {'it' if one else 'they'} would be ignored. For a config's own "
                         "trace workload, use --set workload.KEY=VALUE (e.g. --set workload.time_scale=0.5; "
                         "`raidsim keys workload`)")


def _out_dir(value: str) -> str:
    """An empty --out would write nothing (run, count) or the default directory (sweep): refused."""
    if not value.strip():
        raise argparse.ArgumentTypeError(f"{value!r}: an empty directory name; give a directory")
    return value


_NAMES = {"preset": "a preset's name (see `raidsim presets`)", "drive": "a preset's name (see `raidsim presets`)",
          "config": "a TOML file", "trace": "a trace file", "report": "a finished run's JSON report"}


def _refuse_empty(args: argparse.Namespace, options: Dict[str, str]) -> None:
    """An empty name (`--preset ""`) reads as not given, so the default would run instead: refused."""
    for dest, flag in options.items():
        value = getattr(args, dest)
        if value is not None and not value.strip():
            raise UsageError(f"{flag} {value!r}: an empty name; give {_NAMES[dest]}")


def _config(args: argparse.Namespace) -> Config:
    _check_sources(args)
    cfg = Config.preset(args.preset) if args.preset else Config.load(args.config)
    if args.trace:
        cfg = cfg.with_workload(Workload.trace(args.trace, args.format, device=args.device, time_scale=args.time_scale,
                                               max_requests=args.max_requests, out_of_range=args.out_of_range,
                                               skip_malformed=args.skip_malformed or None))
    # Last: `--set workload.time_scale=0.5` applies on top of --trace's [workload] (which replaces the
    # config's whole table), rather than being replaced with the rest of it.
    return cfg.with_overrides(args.overrides)


def _count(args: argparse.Namespace) -> int:
    cfg = _config(args)
    report = count(cfg)
    if args.out:
        # Each whole or not at all: a full disk leaves no empty count.json passing for a result.
        os.makedirs(args.out, exist_ok=True)
        _atomic.write_text(os.path.join(args.out, "count.json"), report.to_json())
        _atomic.write_text(os.path.join(args.out, "config.toml"), cfg.resolved_toml())
    print(report.to_json() if args.json else report)
    if args.json:
        for w in report.warnings:  # the JSON holds them too; a person reads stderr
            print(f"raidsim: warning: {w}", file=sys.stderr)
    return 0


def _run(args: argparse.Namespace) -> int:
    cfg = _config(args)
    report = simulate(cfg, progress=False if args.no_progress else None)
    if args.out:
        report.save(args.out)  # each file written whole or not at all
    if args.json:
        print(report.to_json())
        for w in report.warnings:  # the JSON holds them too; a person reads stderr
            print(f"raidsim: warning: {w}", file=sys.stderr)
    else:
        print(report.to_text())
        if args.out:
            print(f"\nwrote {args.out}/report.json, config.toml and CSV tables")
    # sim.verify found bytes that did not survive: a simulator defect, not a result.
    verify = report.to_dict().get("verify") or {}
    if verify.get("mismatches"):
        print(f"raidsim: error: sim.verify found {verify['mismatches']} mismatched sectors (see the warnings); "
              "please report this run", file=sys.stderr)
        return 1
    return 0


def _presets(args: argparse.Namespace) -> int:
    table = presets()
    if args.name:
        if args.name not in table:
            raise _native.ConfigError(f"unknown preset `{args.name}`; valid: {', '.join(table)}")
        print(table[args.name], end="")
        return 0
    for name, text in table.items():
        first = next((line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("#")), "")
        print(f"{name:26s} {first}")
    return 0


def _keys(args: argparse.Namespace) -> int:
    from .config_keys import keys, keys_text

    found = keys(args.prefix or "")
    print(json.dumps([k.to_dict() for k in found], indent=2) if args.json else keys_text(found))
    return 0


def _fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n}"


def _trace_stats(args: argparse.Namespace) -> int:
    s = trace_stats(args.file, args.format, device=args.device, skip_malformed=args.skip_malformed)
    if args.json:
        print(json.dumps(s, indent=2))
        return 0
    rows = [
        ("file", s["path"]), ("format", s["format"]), ("requests", f"{s['requests']:,}"),
        ("read / write", f"{s['read']['percent']:.1f} % / {s['write']['percent']:.1f} %"),
        ("mean size", _fmt_bytes(s["mean_bytes"])),
        ("mean read size", _fmt_bytes(s["read"]["mean_bytes"])),
        ("mean write size", _fmt_bytes(s["write"]["mean_bytes"])),
        ("max read size", _fmt_bytes(s["read"]["max_bytes"])),
        ("max write size", _fmt_bytes(s["write"]["max_bytes"])),
        ("mean read inter-arrival", f"{s['read']['mean_interarrival_ns'] / 1e6:,.3f} ms"),
        ("mean write inter-arrival", f"{s['write']['mean_interarrival_ns'] / 1e6:,.3f} ms"),
        ("duration", f"{s['duration_ns'] / 1e9:,.3f} s"),
        ("address span", f"[{s['min_offset_bytes']:,}, {s['max_end_bytes']:,}) bytes = "
                         f"{_fmt_bytes(s['max_end_bytes'] - s['min_offset_bytes'])}"),
    ]
    if s["malformed_skipped"]:
        rows.append(("malformed lines skipped", str(s["malformed_skipped"])))
    for k, v in rows:
        print(f"{k:26s} {v}")
    return 0


def _sweep(args: argparse.Namespace) -> int:
    from .sweep import Study

    if args.ray is not None and args.workers is not None:  # the cluster's CPUs run the points: it would be ignored
        raise UsageError("--workers sets the local processes; with --ray the cluster's CPUs run the points: "
                         "drop --workers (or --ray)")
    return _run_study_with_report(Study.from_file(args.spec), args)


def _run_study_with_report(study: Any, args: argparse.Namespace) -> int:
    """`sweep` and `demo`: runs the study, writes its results, figures, tables and report.html, and says
    what is where (also when points failed, before the error)."""
    import time

    from .sweep import PointsFailed, run_study

    out = args.out or os.path.join(DEFAULT_OUT, study.name)
    if os.path.exists(out) and not os.path.isdir(out):  # a wrong argument, not a sweep that could not finish
        raise UsageError(f"--out {out}: a file, not a directory for the study's results")
    started = time.monotonic()
    try:
        table = run_study(study, out, workers=args.workers, ray_address=getattr(args, "ray", None),
                          progress=False if args.no_progress else None, report=True,
                          overwrite=getattr(args, "overwrite", False))
    except KeyboardInterrupt:
        print(f"raidsim: the points that finished are kept in {out}; the same command runs the rest", file=sys.stderr)
        raise
    except PointsFailed as e:
        _print_study_report(study, out, e.table, time.monotonic() - started)
        raise
    _print_study_report(study, out, table, time.monotonic() - started)
    return 0


def _print_study_report(study: Any, out: str, table: Any, seconds: float) -> None:
    from . import study_report

    report = table.attrs.get("report")
    if report is None:  # run_study always renders when asked to; not having done so is a bug, not a quiet skip
        raise RuntimeError("the sweep wrote no report")
    print(study.title or study.name)
    if study.spec.get("scaled_down"):
        print(f"Scaled down for speed: {study.spec['scaled_down']}.")
    tables = study_report.text(report)
    if tables:
        print(f"\n{tables}")
    if report.warnings:
        shown = report.warnings[:10]
        more = f"\n  ... and {len(report.warnings) - len(shown)} more" if len(report.warnings) > len(shown) else ""
        print(f"\nwarnings ({len(report.warnings)}, all in the report):\n" + "\n".join(f"  {w}" for w in shown) + more)
    print()
    if report.figures:
        print(f"figures: {', '.join(f.png for f in report.figures)} (and .svg)")
    print(f"report:  {report.page}   ({seconds:.1f} s)")
    print(f"results: {len(table)} points in {out}/results.csv and results.parquet, one row per point and metric in "
          f"results_long.csv and .parquet (resolved configs in {out}/configs/)")


# Which `reproduce` options each reproduction takes (the rest would be silently ignored); a catalog entry not
# listed (a new study file with a [catalog] table) runs as an ordinary study and takes _STUDY_OPTIONS.
_REPRODUCE_OPTIONS = {
    "stripe-unit-tables": {"granularity", "json"},
    "erasure-code-updates": {"json"},
    "erasure-code-tables": {"json"},
    "disk-parameters": {"json"},
    "stripe-unit-study": {"out", "workers", "no_progress"},
    "striping-coefficients": {"json", "out", "workers", "no_progress", "quick", "set"},
    "hdd-stripe-unit-tables": {"json", "out", "workers", "no_progress", "set"},
    "cr5m": {"json", "out", "workers", "no_progress", "quick", "traces"},
    "erasure-code-study": {"json", "out", "workers", "no_progress", "quick", "traces"},
    "rais": {"json", "out", "workers", "no_progress", "quick"},
    "all": {"out", "workers", "no_progress", "quick", "traces", "only"},
}
_STUDY_OPTIONS = {"json", "out", "workers", "no_progress"}
_UNSET = {"granularity": None, "json": False, "out": None, "workers": None, "no_progress": False, "quick": False,
          "set": None, "traces": None, "only": None}


def _check_reproduce_options(args: argparse.Namespace) -> None:
    takes = _REPRODUCE_OPTIONS.get(args.name, _STUDY_OPTIONS)
    given = [k for k, unset in _UNSET.items() if getattr(args, k) != unset]
    wrong = [k for k in given if k not in takes]
    if wrong:
        flags = ", ".join("--" + k.replace("_", "-") for k in wrong)
        listed = ", ".join(sorted("--" + k.replace("_", "-") for k in takes)) or "none"
        raise UsageError(f"reproduce {args.name} does not take {flags} (it takes: {listed})")


def _reproduce(args: argparse.Namespace) -> int:
    from . import catalog  # light: --list imports no pandas

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
    from . import reproduce

    if args.name == "stripe-unit-tables":
        rows = reproduce.stripe_unit_tables(args.granularity or "page")
        print(json.dumps(rows, indent=2) if args.json else reproduce.stripe_unit_tables_text(rows))
        return 0
    if args.name == "erasure-code-updates":
        rows = reproduce.erasure_code_updates()
        print(json.dumps(rows, indent=2) if args.json else reproduce.erasure_code_updates_text(rows))
        return 0
    if args.name == "erasure-code-tables":
        from . import erasure_code_tables as ect

        rows = ect.erasure_code_tables()
        print(json.dumps(rows, indent=2) if args.json else ect.erasure_code_tables_text(rows))
        return 0
    if args.name == "stripe-unit-study":
        return _demo(args)
    if args.name in ("disk-parameters", "striping-coefficients", "hdd-stripe-unit-tables"):
        return _reproduce_hdd(args)
    if args.name == "cr5m":
        from . import cr5m

        return _reproduce_with_traces(args, cr5m, "cr5m")
    if args.name == "erasure-code-study":
        from . import erasure_code_study

        return _reproduce_with_traces(args, erasure_code_study, "erasure-code-study")
    if args.name == "rais":
        return _reproduce_rais(args)
    return _reproduce_study(args)


def _reproduce_list(args: argparse.Namespace) -> int:
    """``reproduce --list [--json]``: the catalog, one reproduction a line (or a list of objects)."""
    from . import catalog

    given = [k for k, unset in _UNSET.items() if k != "json" and getattr(args, k) != unset]
    if args.name is not None or given:
        extra = ([args.name] if args.name is not None else []) + ["--" + k.replace("_", "-") for k in given]
        raise UsageError(f"reproduce --list takes only --json, not {', '.join(extra)}")
    print(json.dumps(catalog.list_json(), indent=2) if args.json else "\n".join(catalog.list_lines()))
    return 0


def _reproduce_all(args: argparse.Namespace) -> int:
    """``reproduce all``: every reproduction (or --only some), one report; a failed one is reported, the rest
    still run, and the status is EXIT_SWEEP at the end."""
    from . import catalog, reproduce_all

    names = catalog.names()
    if args.only is not None:
        chosen = list(dict.fromkeys(n.strip() for n in args.only.split(",") if n.strip()))
        unknown = [n for n in chosen if n not in names]
        if not chosen or unknown:
            raise UsageError(f"--only {args.only!r}: {'unknown ' + ', '.join(unknown) if unknown else 'no name'}; "
                             f"valid: {', '.join(names)}")
        names = chosen
    out = args.out or os.path.join(DEFAULT_OUT, "reproduce-all")
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"--out {out}: a file, not a directory for the report")
    from .sweep import JOURNAL

    if os.path.exists(os.path.join(out, JOURNAL)):  # its report.html would be replaced by this one
        raise UsageError(f"--out {out} holds a sweep's results ({JOURNAL}), not a `reproduce all` report: "
                         "choose another directory")
    results = reproduce_all.run_all(names, out, quick=args.quick, workers=args.workers,
                                    progress=False if args.no_progress else None, traces_dir=_traces_dir(args),
                                    echo=lambda line: print(line, flush=True))
    print(f"report: {os.path.join(out, 'report.html')} (every row: rows.csv, rows.json)")
    failed = [r.entry.name for r in results if r.status != "ok"]
    if failed:
        return _error(f"{len(failed)} of {len(results)} reproductions failed: {', '.join(failed)} (the report says "
                      "why)", EXIT_SWEEP)
    return 0


def _reproduce_study(args: argparse.Namespace) -> int:
    """A catalog entry with no reproduction module: its study file runs as a sweep; rows as `reproduce all`'s."""
    from . import catalog, reproduce_all

    out = args.out or os.path.join(DEFAULT_OUT, args.name)
    ctx = reproduce_all.RunContext(out, workers=args.workers, progress=False if args.no_progress else None)
    e = catalog.entry(args.name)
    rows = reproduce_all.judged(e, reproduce_all.ordinary_study(e, ctx).rows)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{len(rows)} rows ({sum(r['published'] is not None for r in rows)} beside a published value); "
              f"the study's results and report in {out}")
    return 0


class UsageError(Exception):
    """A command line that argparse accepts but that does not make sense (exit 2, as argparse's own)."""


def _reproduce_hdd(args: argparse.Namespace) -> int:
    from . import hdd_stripe_unit, striping

    if args.name == "disk-parameters":
        rows = striping.disk_parameters()
        print(json.dumps(rows, indent=2) if args.json else striping.disk_parameters_text(rows))
        return 0
    progress = False if args.no_progress else None
    if args.name == "hdd-stripe-unit-tables":
        out = args.out or os.path.join(DEFAULT_OUT, "hdd-stripe-unit-tables")
        rows = hdd_stripe_unit.hdd_stripe_unit_tables(out, workers=args.workers, progress=progress,
                                                      overrides=args.set or ())
        figures = hdd_stripe_unit.plot_hdd_tables(rows, out)
        if args.json:
            print(json.dumps({"rows": rows, "findings": hdd_stripe_unit.findings(rows), "overrides": list(args.set or ())},
                             indent=2))
        else:
            print(hdd_stripe_unit.hdd_stripe_unit_tables_text(rows))
            print(f"\nfigures: {', '.join(figures)}")
        return 0
    out = args.out or os.path.join(DEFAULT_OUT, "striping-coefficients" + ("-quick" if args.quick else ""))
    result = striping.striping_coefficients(out, quick=args.quick, workers=args.workers, progress=progress,
                                            overrides=args.set or ())
    figures = striping.plot_striping(result, out)
    if args.json:
        print(json.dumps({"rows": result["rows"], "figure7": result["by_disks"], "quick": result["quick"],
                          "overrides": result["overrides"]}, indent=2))
    else:
        print(striping.striping_coefficients_text(result))
        print(f"\nfigures: {', '.join(figures)}")
    return 0


def _traces_dir(args: argparse.Namespace) -> Optional[str]:
    """``--traces``, checked, or the default shared traces beside the checkout."""
    if args.traces is not None and not os.path.isdir(args.traces):
        raise UsageError(f"--traces {args.traces}: not a directory (the shared traces, e.g. ../shared/traces)")
    return args.traces if args.traces is not None else _default_traces_dir()


def _reproduce_with_traces(args: argparse.Namespace, module: Any, name: str) -> int:
    """A reproduction that runs shared traces beside its stand-ins (``cr5m``, ``erasure-code-study``):
    ``module`` has ``run``, ``plot`` and ``text``."""
    out = args.out or os.path.join(DEFAULT_OUT, name + ("-quick" if args.quick else ""))
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"--out {out}: a file, not a directory for the study's results")
    traces = _traces_dir(args)
    result = module.run(out, quick=args.quick, traces_dir=traces, workers=args.workers,
                        progress=False if args.no_progress else None)
    figures = module.plot(result, out)
    if args.json:
        if result["missing_traces"]:  # the text says so in its header; JSON rows cannot
            print(f"raidsim: shared traces not found in {traces or '(no traces directory)'}, skipped: "
                  + ", ".join(result["missing_traces"]), file=sys.stderr)
        print(json.dumps(result["rows"], indent=2))
    else:
        print(module.text(result))
        print(f"\nfigures: {', '.join(figures)}")
    return 0


def _reproduce_rais(args: argparse.Namespace) -> int:
    from . import rais

    out = args.out or os.path.join(DEFAULT_OUT, "rais" + ("-quick" if args.quick else ""))
    result = rais.run(out, quick=args.quick, workers=args.workers, progress=False if args.no_progress else None)
    figures = rais.plot(result, out)
    if args.json:
        print(json.dumps(result["rows"], indent=2))
    else:
        print(rais.text(result))
        print(f"\nfigures: {', '.join(figures)}")
    return 0


def _default_traces_dir() -> Optional[str]:
    """``../shared/traces`` beside the working directory, where a clone of raidsim sits; else none."""
    path = os.path.join(os.pardir, "shared", "traces")
    return path if os.path.isdir(path) else None


def _demo(args: argparse.Namespace) -> int:
    """The packaged stripe-unit study, run as `raidsim sweep` runs any study (its plots and tables are in its spec)."""
    from .sweep import Study

    return _run_study_with_report(Study.packaged("stripe-unit-study"), args)


def _verify(args: argparse.Namespace) -> int:
    from .verify import format_result, run_cases

    result = run_cases(args.cases, args.seed, progress=False if args.no_progress else None, fault=args.inject_fault)
    print(json.dumps(result, indent=2) if args.json else format_result(result))
    if result["first_failure"] is not None:
        return EXIT_INPUT
    return EXIT_INTERRUPTED if result["interrupted"] else EXIT_OK


def _advise(args: argparse.Namespace) -> int:
    from . import advise

    _refuse_empty(args, {"drive": "--drive", "config": "--config", "trace": "TRACE"})
    try:
        levels, members = advise.parse_levels(args.levels), advise.parse_members(args.members)
        stripe_units = advise.parse_stripe_units(args.stripe_units)
    except advise.RangeError as e:
        raise UsageError(str(e)) from None
    plan = advise.plan(args.trace, drive=args.drive, config=args.config, overrides=args.overrides, levels=levels,
                       members=members, stripe_units=stripe_units, requests=args.requests)
    try:
        advise.check_rank_by(args.rank_by, plan.priced)
    except advise.AdviseError as e:
        raise UsageError(str(e)) from None
    out = args.out or os.path.join(DEFAULT_OUT, plan.study.name)
    print(f"raidsim: advise: {len(plan.configurations)} configurations, each {plan.workload}, into {out}",
          file=sys.stderr)
    try:
        result = advise.run(plan, out, rank_by=args.rank_by, workers=args.workers,
                            progress=False if args.no_progress else None)
    except KeyboardInterrupt:
        print(f"raidsim: the configurations that finished are kept in {out}; the same command runs the rest",
              file=sys.stderr)
        raise
    print(json.dumps(result, indent=2) if args.json else advise.text(result))
    return 0


def _endurance(args: argparse.Namespace) -> int:
    from . import endurance

    _refuse_empty(args, {"report": "REPORT"})  # read as no report, the default config would run
    if args.report and (args.preset or args.config or args.trace or args.overrides):
        raise UsageError("endurance takes a finished run's REPORT, or a config to run (--preset/--config, --trace, "
                         "--set), not both")
    copies, origin = None, "the run's report"
    if args.report:
        data, origin = endurance.load_report(args.report), args.report
        cycles, source = endurance.pe_cycles_for(args.pe_cycles, None)
    else:
        cfg = _config(args)
        array = cfg.resolved()["array"]
        # Before the run: a missing P/E figure is an error now, not after minutes of simulating.
        cycles, source = endurance.pe_cycles_for(args.pe_cycles, args.preset, bool(array.get("member_ssd")))
        data, copies = simulate(cfg, progress=False if args.no_progress else None).to_dict(), array.get("copies")
    result = endurance.project(data, cycles, source, copies, origin=origin)
    print(json.dumps(result, indent=2) if args.json else endurance.text(result))
    return 0


def _add_advise(sub: argparse._SubParsersAction) -> None:
    from . import advise  # light (no pandas, no sweep): its defaults are named once, there

    p = sub.add_parser("advise", help="rank RAID levels x members x stripe units for a workload: response, wear, "
                                      "capacity, cost", description=(
        "Runs every combination of --levels, --members and --stripe-units of one drive on a trace (or the config's "
        "synthetic workload), as a resumable sweep, and ranks them by mean and p99 response, erases per member, "
        "usable capacity and cost, marking the Pareto-optimal ones; combinations the core refuses are skipped, "
        "each with its reason. Example: raidsim advise trace.csv "
        "--levels raid5,raid6 --members 4-8 --stripe-units 4K-1M"))
    p.add_argument("trace", nargs="?", help="trace file to replay (any format `run --trace` reads); "
                                            "without it, the config's workload")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--drive", "--preset", dest="drive", default=advise.DEFAULT_DRIVE,
                     help="drive preset (default %(default)s; see `raidsim presets`)")
    src.add_argument("--config", help="TOML config file instead of a preset")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", type=_key_value,
                   help="override a config key for every configuration (repeatable), e.g. "
                        "--set ssd.geometry.blocks_per_plane=64")
    p.add_argument("--levels", default=advise.DEFAULT_LEVELS, help="RAID levels, comma-separated (default %(default)s)")
    p.add_argument("--members", default=advise.DEFAULT_MEMBERS, help="member counts, N or A-B (default %(default)s)")
    p.add_argument("--stripe-units", default=advise.DEFAULT_STRIPE_UNITS,
                   help="stripe units, powers of two, SIZE or SIZE-SIZE with K/M/G (default %(default)s)")
    p.add_argument("--requests", type=_int_in(1, 2**63, "a positive count"),
                   help=f"requests each configuration runs: the trace's first N (default {advise.DEFAULT_REQUESTS:,})")
    p.add_argument("--rank-by", default="mean_ms",
                   help=f"order within the Pareto-optimal and the other rows: {', '.join(advise.RANK_KEYS)} "
                        "(default %(default)s)")
    p.add_argument("--out", type=_out_dir, help=f"output directory (default {DEFAULT_OUT}/advise-<trace or drive>)")
    p.add_argument("--json", action="store_true", help="print the ranked rows, the rule and what was skipped as JSON")
    p.add_argument("--workers", type=_WORKERS, help="parallel processes (default: one per core)")
    p.add_argument("--no-progress", action="store_true")


def _add_endurance(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("endurance", help="years until each member reaches its rated P/E cycles, and whether members "
                                         "wear out together", description=(
        "Projects, from a run's erases per block and its simulated time, the years until each member's mean block "
        "reaches the rated P/E cycles, assuming the workload repeats; then the window between the first member's "
        "wear-out and the one that loses data. Takes a finished run's JSON report (raidsim run ... --json > r.json) "
        "or runs a config as `raidsim run` does."))
    p.add_argument("report", nargs="?", help="a finished run's JSON report; without it, the config given is run")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--preset", help="packaged preset (see `raidsim presets`)")
    src.add_argument("--config", help="TOML config file")
    p.add_argument("--trace", help="replay this trace instead of the config's workload")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", type=_key_value,
                   help="override a config key (repeatable), as `raidsim run --set`")
    p.add_argument("--pe-cycles", type=_int_in(1, 2**63, "a positive count"),
                   help="rated program/erase cycles per block (the datasheet's); required unless the preset's "
                        "flash is known (rais-ssd-a, -b, -c)")
    p.add_argument("--json", action="store_true", help="print the projection as JSON")
    p.add_argument("--no-progress", action="store_true")
    # What `_config` reads of `run`'s options; `--set workload.*` reaches the rest.
    p.set_defaults(format=None, device=None, time_scale=None, max_requests=None, out_of_range=None, skip_malformed=False)


def _int_in(low: int, high: int, what: str):
    """An argparse type: an integer in [low, high), else a usage error (exit 2)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not low <= value < high:
            raise argparse.ArgumentTypeError(f"{value} is not {what}")
        return value
    return parse


# At least one: 0 would otherwise mean "one per core" and a negative number fail deep in the pool.
_WORKERS = _int_in(1, 2**31, "a positive number of processes")


def _key_value(text: str) -> str:
    """An argparse type for --set: ``dotted.key=value``, else a usage error (exit 2) naming the option."""
    key, sep, _ = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE (e.g. array.level=raid5)")
    return text


class _VersionAction(argparse.Action):
    """``--version``, as argparse's own, but the version is looked up only when asked for: the lookup
    (importlib.metadata) would cost every other command about 20 ms."""

    def __init__(self, option_strings: List[str], dest: str = argparse.SUPPRESS, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: Optional[str] = None) -> None:
        from . import __version__

        try:
            print(f"raidsim {__version__}", flush=True)
        except BrokenPipeError:  # as every other command: the reader left early
            parser.exit(_stdout_closed())
        parser.exit()


_OVERWRITE_HELP = ("replace another study's results in --out (refused without it; this study's own finished points "
                   "are reused either way)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="raidsim", description="Simulate SSDs and SSD arrays.", epilog=EXIT_CODES)
    parser.add_argument("--version", action=_VersionAction, help="show program's version number and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_run(sub)
    _add_run(sub, "count")
    p = sub.add_parser("demo", help="the main job: the stripe-unit study (RAID0/4/5 x stripe unit), table, plots, HTML")
    p.add_argument("--out", type=_out_dir, help=f"output directory (default {DEFAULT_OUT}/stripe-unit-study)")
    p.add_argument("--overwrite", action="store_true", help=_OVERWRITE_HELP)
    p.add_argument("--workers", type=_WORKERS, help="parallel processes (default: one per core)")
    p.add_argument("--no-progress", action="store_true")
    p = sub.add_parser("sweep", help="run a study spec (TOML): base config x cases x axes, in parallel")
    p.add_argument("spec", help="study spec TOML")
    p.add_argument("--out", type=_out_dir, help=f"output directory (default {DEFAULT_OUT}/<study name>)")
    p.add_argument("--overwrite", action="store_true", help=_OVERWRITE_HELP)
    p.add_argument("--workers", type=_WORKERS, help="parallel processes (default: one per core)")
    p.add_argument("--ray", metavar="ADDRESS", help="run points on a Ray cluster at ADDRESS ('' for local Ray)")
    p.add_argument("--no-progress", action="store_true")
    p = sub.add_parser("reproduce", help="run a packaged reproduction and set published numbers beside ours",
                       description="Runs a reproduction of the catalog (`raidsim reproduce --list`: name, paper, "
                                   "tables and figures, runtime, exact or trend), or `all` of them into one HTML "
                                   "report of ours beside the published numbers with a pass/gap verdict per row.")
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="a reproduction of `raidsim reproduce --list`, or `all`: every one, one report")
    p.add_argument("--list", action="store_true",
                   help="list the reproductions, one a line: name, paper, tables and figures, runtime, exact or trend "
                        "(--json: a list of objects)")
    p.add_argument("--only", metavar="NAME[,NAME]", help="all: only these reproductions")
    p.add_argument("--granularity", choices=["page", "whole_unit", "disksim"],
                   help="stripe-unit-tables: parity decision granularity (default page)")
    p.add_argument("--json", action="store_true", help="print rows as JSON")
    p.add_argument("--out", type=_out_dir, help=f"output directory (the studies that run simulations; all: default "
                                 f"{DEFAULT_OUT}/reproduce-all)")
    p.add_argument("--quick", action="store_true", help="striping-coefficients: one disk, fewer points, ±10 %% stopping rule; cr5m: SSD1 only, 10,000 requests, fewer points; rais: fewer queue depths and sizes, one replicate, shorter runs; all: each one's quick grid")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", type=_key_value,
                   help="the sweeping reproductions: a config override for every run (repeatable); "
                        "the output directory then holds a variant, not the reproduction")
    p.add_argument("--traces", metavar="DIR",
                   help="cr5m, erasure-code-study, all: directory of the shared traces to replay beside the "
                        "stand-ins (default ../shared/traces when it exists)")
    p.add_argument("--workers", type=_WORKERS, help="parallel processes (default: one per core)")
    p.add_argument("--no-progress", action="store_true")
    p = sub.add_parser("verify", help="random small arrays with real bytes: prove no write is lost through failures and rebuilds")
    p.add_argument("--cases", type=_int_in(1, 2**63, "a positive count"), default=1000, help="scenarios to run (default 1000)")
    p.add_argument("--seed", type=_int_in(0, 2**64, "in [0, 2**64)"), default=1, help="seed of the scenarios (default 1)")
    p.add_argument("--json", action="store_true", help='print {"cases", "mismatches", "data_loss_events", "first_failure", ...}')
    p.add_argument("--inject-fault", action="store_true", help=argparse.SUPPRESS)  # test-only: RMW writes no parity
    p.add_argument("--no-progress", action="store_true")
    p = sub.add_parser("keys", help="every config key with its type, unit, default and meaning")
    p.add_argument("prefix", nargs="?", help="only the keys under this table or key (e.g. array, ssd.timing)")
    p.add_argument("--json", action="store_true", help="print a list of {key, type, default, unit, doc, choices, when}")
    p = sub.add_parser("presets", help="list packaged presets, or print one")
    p.add_argument("name", nargs="?", help="print this preset's TOML")
    p = sub.add_parser("trace-stats", help="statistics of a trace file as the papers tabulate them")
    p.add_argument("file")
    p.add_argument("--format", choices=_native.trace_formats(), help="trace format (default: detect)")
    p.add_argument("--device", type=int, help="keep only this device/disk/LUN")
    p.add_argument("--skip-malformed", action="store_true", help="skip malformed lines instead of stopping")
    p.add_argument("--json", action="store_true", help="print JSON")
    _add_advise(sub)
    _add_endurance(sub)
    return parser


HANDLERS = {"run": _run, "count": _count, "presets": _presets, "keys": _keys, "trace-stats": _trace_stats,
            "sweep": _sweep, "reproduce": _reproduce, "demo": _demo, "verify": _verify,
            "advise": _advise, "endurance": _endurance}


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status = HANDLERS[args.command](args)
        sys.stdout.flush()  # here, not at exit: a reader that left is then a BrokenPipeError we handle
        return status
    except BrokenPipeError:
        return _stdout_closed()
    except KeyboardInterrupt:
        print("raidsim: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except UsageError as e:
        print(f"raidsim: usage error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except AnotherStudysResults as e:  # a wrong --out, said before anything is written
        hint = ("pass --overwrite to replace them, or choose another --out" if args.command in ("sweep", "demo")
                else "choose another --out (or remove that directory)")
        print(f"raidsim: usage error: {e}: {hint}", file=sys.stderr)
        return EXIT_USAGE
    except (StudyError, _native.RaidsimError, OSError, ValueError) as e:
        # One line: the core's parser messages end in "\nin `table`" and blank lines.
        return _error(" ".join(line.strip() for line in str(e).splitlines() if line.strip()), EXIT_INPUT)
    except SweepError as e:  # after StudyError, which is one too but means bad input
        return _error(str(e), EXIT_SWEEP)  # failed points are listed one per line
    except BaseException as e:  # pyo3's PanicException derives from BaseException
        if type(e).__name__ != "PanicException":
            raise
        return _error(f"internal error (a raidsim bug; please report it with the command): {e}", EXIT_INPUT)


def _error(message: str, status: int) -> int:
    print(f"raidsim: error: {message}", file=sys.stderr)
    return status


def _stdout_closed() -> int:
    # The recipe of Python's docs (signal module, "Note on SIGPIPE"): stdout goes to devnull so the
    # flush at exit cannot fail again. The reader left on purpose, so nothing is said.
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return EXIT_PIPE


if __name__ == "__main__":
    sys.exit(main())
