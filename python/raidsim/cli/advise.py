"""``raidsim advise``: every level x members x stripe unit of one drive on a workload, ranked."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ._common import (DEFAULT_OUT, POSITIVE_COUNT, UsageError, add_command, add_device, add_format, add_json,
                      add_no_progress, add_out, add_set, add_source, add_time_scale, add_workers, progress,
                      refuse_empty)


def register(sub: argparse._SubParsersAction) -> None:
    from ..tools import advise  # light (no pandas, no sweep): its defaults are named once, there

    p = add_command(sub, "advise", _advise, "rank RAID levels x members x stripe units for a workload: response, "
                                            "wear, capacity, cost", (
        "Runs every combination of --levels, --members and --stripe-units of one drive on a trace (or the config's "
        "synthetic workload), as a resumable sweep, and ranks them by mean and p99 response, erases per member, "
        "usable capacity and cost, marking the Pareto-optimal ones; combinations the core refuses are skipped, "
        "each with its reason. Example: raidsim advise trace.csv "
        "--levels raid5,raid6 --members 4-8 --stripe-units 4K-1M"))
    p.add_argument("trace", nargs="?", help="trace file to replay (any format `run --trace` reads); "
                                            "without it, the config's workload")
    # --drive: this option's first name, kept working (not listed) for the commands people have written.
    add_source(p, preset_help=f"the drive: a packaged preset (default {advise.DEFAULT_DRIVE}; see `raidsim presets`)",
               config_help="TOML config file instead of a preset", hidden_alias="--drive")
    add_format(p)
    add_device(p)
    add_time_scale(p)
    add_set(p, " for every configuration")
    p.add_argument("--levels", default=advise.DEFAULT_LEVELS, help="RAID levels, comma-separated (default %(default)s)")
    p.add_argument("--members", default=advise.DEFAULT_MEMBERS, help="member counts, N or A-B (default %(default)s)")
    p.add_argument("--stripe-units", default=advise.DEFAULT_STRIPE_UNITS,
                   help="stripe units, powers of two, SIZE or SIZE-SIZE with K/M/G (default %(default)s)")
    p.add_argument("--requests", type=POSITIVE_COUNT,
                   help=f"requests each configuration runs: the trace's first N (default {advise.DEFAULT_REQUESTS:,})")
    p.add_argument("--rank-by", default="mean_ms",
                   help=f"order within the Pareto-optimal and the other rows: {', '.join(advise.RANK_KEYS)} "
                        "(default %(default)s)")
    add_out(p, f"output directory (default {DEFAULT_OUT}/advise-<trace or drive>)")
    add_json(p, "print the ranked rows, the rule and what was skipped as JSON")
    add_workers(p)
    add_no_progress(p)


# The replay's options, which shape the trace TRACE names (the dest and the option).
_TRACE_OPTIONS = {"format": "--format", "device": "--device", "time_scale": "--time-scale"}


def _advise(args: argparse.Namespace) -> int:
    from ..tools import advise

    refuse_empty(args, {"preset": "--preset", "drive": "--drive", "config": "--config", "trace": "TRACE"})
    given = [flag for dest, flag in _TRACE_OPTIONS.items() if getattr(args, dest) is not None]
    if given and args.trace is None:
        one = len(given) == 1
        raise UsageError(f"{', '.join(given)} shape{'s' if one else ''} the replay of TRACE; without TRACE "
                         f"{'it' if one else 'they'} would be ignored (for a config's own trace workload, use --set "
                         "workload.KEY=VALUE)")
    try:
        levels, members = advise.parse_levels(args.levels), advise.parse_members(args.members)
        stripe_units = advise.parse_stripe_units(args.stripe_units)
    except advise.RangeError as e:
        raise UsageError(str(e)) from None
    plan = advise.plan(args.trace, drive=args.preset or args.drive, config=args.config, overrides=args.overrides,
                       levels=levels, members=members, stripe_units=stripe_units, requests=args.requests,
                       trace_format=args.format, device=args.device, time_scale=args.time_scale)
    try:
        advise.check_rank_by(args.rank_by, plan.priced)
    except advise.AdviseError as e:
        raise UsageError(str(e)) from None
    out = args.out or os.path.join(DEFAULT_OUT, plan.study.name)
    print(f"raidsim: advise: {len(plan.configurations)} configurations, each {plan.workload}, into {out}",
          file=sys.stderr)
    try:
        result = advise.run(plan, out, rank_by=args.rank_by, workers=args.workers, progress=progress(args))
    except KeyboardInterrupt:
        print(f"raidsim: the configurations that finished are kept in {out}; the same command runs the rest",
              file=sys.stderr)
        raise
    print(json.dumps(result, indent=2) if args.json else advise.text(result))
    return 0
