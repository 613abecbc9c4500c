"""``raidsim sweep`` and ``raidsim demo``: a study spec run as a resumable sweep, with its tables, figures and
report page; ``demo`` is the packaged stripe-unit study."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from ._common import (DEFAULT_OUT, UsageError, add_command, add_no_progress, add_out, add_overwrite, add_workers,
                      progress, refuse_out_file)


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "demo", demo, "the main job: the stripe-unit study (RAID0/4/5 x stripe unit), table, plots, "
                                       "HTML", (
        "Runs the packaged stripe-unit study (Rajaei Salmasi et al. 2013): RAID-0, RAID-4 and RAID-5 of SSDs across "
        "stripe units, as `raidsim sweep` runs any study, and writes its results, tables, figures and report.html. "
        "An interrupted demo resumes where it stopped."))
    add_out(p, f"output directory (default {DEFAULT_OUT}/stripe-unit-study)")
    add_overwrite(p)
    add_workers(p)
    add_no_progress(p)
    p = add_command(sub, "sweep", _sweep, "run a study spec (TOML): base config x cases x axes, in parallel", (
        "Runs a study spec (TOML): a base config, its cases and the axes swept across them, every point in "
        "parallel and recorded as it finishes, so the same command resumes an interrupted sweep and reruns only "
        "points whose config changed; then writes results.csv/.parquet, the long table, the spec's figures and "
        "tables, and report.html."))
    p.add_argument("spec", help="study spec TOML")
    add_out(p, f"output directory (default {DEFAULT_OUT}/<study name>)")
    add_overwrite(p)
    add_workers(p)
    p.add_argument("--ray", metavar="ADDRESS", help="run points on a Ray cluster at ADDRESS ('' for local Ray)")
    add_no_progress(p)


def _sweep(args: argparse.Namespace) -> int:
    from ..study.spec import Study

    if args.ray is not None and args.workers is not None:  # the cluster's CPUs run the points: it would be ignored
        raise UsageError("--workers sets the local processes; with --ray the cluster's CPUs run the points: "
                         "drop --workers (or --ray)")
    return run_study_with_report(Study.from_file(args.spec), args)


def demo(args: argparse.Namespace) -> int:
    """The packaged stripe-unit study, run as `raidsim sweep` runs any study (its plots and tables are in its spec)."""
    from ..papers.packaged import packaged_study

    return run_study_with_report(packaged_study("stripe-unit-study"), args)


def run_study_with_report(study: Any, args: argparse.Namespace) -> int:
    """`sweep` and `demo`: runs the study, writes its results, figures, tables and report.html, and says
    what is where (also when points failed, before the error)."""
    from ..study.errors import PointsFailed
    from ..study.sweep import run_study

    out = args.out or os.path.join(DEFAULT_OUT, study.name)
    refuse_out_file(out, "the study's results")  # a wrong argument, not a sweep that could not finish
    started = time.monotonic()
    try:
        table = run_study(study, out, workers=args.workers, ray_address=getattr(args, "ray", None),
                          progress=progress(args), report=True, overwrite=getattr(args, "overwrite", False))
    except KeyboardInterrupt:
        print(f"raidsim: the points that finished are kept in {out}; the same command runs the rest", file=sys.stderr)
        raise
    except PointsFailed as e:
        _print_study_report(study, out, e.table, time.monotonic() - started)
        raise
    _print_study_report(study, out, table, time.monotonic() - started)
    return 0


def _print_study_report(study: Any, out: str, table: Any, seconds: float) -> None:
    from ..study import page

    report = table.attrs.get("report")
    if report is None:  # run_study always renders when asked to; not having done so is a bug, not a quiet skip
        raise RuntimeError("the sweep wrote no report")
    print(study.title or study.name)
    if study.spec.get("scaled_down"):
        print(f"Scaled down for speed: {study.spec['scaled_down']}.")
    tables = page.text(report)
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
