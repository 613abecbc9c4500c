"""``raidsim reliability``: the probability of losing data over an array's service life (a Monte Carlo)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tomllib
from typing import Any, Dict, List, Tuple

from ._common import (DEFAULT_OUT, UsageError, add_command, add_json, add_no_progress, add_out, add_pe_cycles, add_set,
                      int_in, progress, refuse_out_file)


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "reliability", _reliability, "the probability of losing data over an array's life", (
        "Simulates array lifetimes (seeded, reproducible): members fail by an exponential or Weibull life, each "
        "failed member is rebuilt onto a spare or a replacement, a rebuild with no redundancy left can meet an "
        "unrecoverable read error (uber), and the array is lost when more members of a group fail than it "
        "tolerates. Prints the probability of data loss by year with its 95 %% interval, the bytes lost, the "
        "causes and, with mttdl_lifetimes, the mean time to data loss beside the Markov chain's. Without options: "
        "RAID-5 of 8 drives of 4 TB, MTTF 1.5 million hours, 24-hour rebuilds, UBER 1e-17, 5 years."))
    p.add_argument("study", nargs="?", metavar="STUDY", help="a TOML file of the study's keys (`--keys` lists them); "
                                                          "--set overrides it")
    add_set(p, " of the study, e.g. --set level=raid6 --set members=12", dest="overrides")
    p.add_argument("--from-run", metavar="REPORT",
                   help="a finished run's JSON report (raidsim run ... --json > r.json): the array's level, members and "
                        "capacity, each member's hours to its rated P/E cycles (wear_out_hours) and, when the run "
                        "rebuilt a member, the rebuild's hours; needs --pe-cycles; --set overrides any of them")
    add_pe_cycles(p, "required with --from-run")
    p.add_argument("--duty-cycle", type=float, metavar="F",
                   help="--from-run: the share of the time the run's workload runs (default 1: back to back)")
    p.add_argument("--capacity", type=int_in(1, 2**64, "a whole number of bytes > 0"), metavar="BYTES",
                   help="--from-run: the members' real capacity, the run's drives being scaled-down copies of them; "
                        "the hours to wear out and to rebuild grow by its ratio to the run's")
    p.add_argument("--rebuild-from", metavar="CONFIG",
                   help="a run config (TOML) in which a member fails and a spare takes its place: rebuild_hours is its "
                        "rebuild's, simulated once and kept under raidsim-out/cache (scaled by --capacity when given)")
    p.add_argument("--keys", action="store_true", help="list the study's keys with their types, defaults and meaning")
    add_json(p, "print the report as JSON")
    add_out(p, f"where the figure goes (default {DEFAULT_OUT}/reliability)")
    add_no_progress(p)


def _value(text: str) -> Any:
    """A --set value as TOML reads it; a bare word is a string (level=raid6)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _params(args: argparse.Namespace) -> Dict[str, Any]:
    params: Dict[str, Any] = {}
    if args.study:
        try:
            with open(args.study, "rb") as f:
                params.update(tomllib.load(f))
        except OSError as e:
            raise UsageError(f"{args.study}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise UsageError(f"{args.study}: not TOML: {e}") from None
    if args.from_run:
        from ..tools import endurance

        if args.pe_cycles is None:
            raise UsageError("--from-run needs --pe-cycles N, the flash's rated program/erase cycles (a datasheet's)")
        given = dict(_value_pairs(args.overrides))
        read, notes = endurance.reliability_inputs(endurance.load_report(args.from_run), args.pe_cycles,
                                                   1.0 if args.duty_cycle is None else args.duty_cycle,
                                                   copies=given.get("copies"), origin=args.from_run,
                                                   capacity_bytes=args.capacity)
        params.update(read)
        for note in notes:
            print(f"raidsim: note: {note}", file=sys.stderr)
    elif args.pe_cycles is not None or args.duty_cycle is not None or (args.capacity is not None and not args.rebuild_from):
        raise UsageError("--pe-cycles, --duty-cycle and --capacity go with --from-run REPORT (--capacity also with "
                         "--rebuild-from)")
    if args.rebuild_from:
        from ..tools.rebuild_time import simulated_rebuild_hours

        if any(key == "rebuild_hours" for key, _ in _value_pairs(args.overrides)):
            raise UsageError("--rebuild-from simulates rebuild_hours: give it or --set rebuild_hours, not both")
        hours, notes = simulated_rebuild_hours(args.rebuild_from, capacity_bytes=args.capacity, progress=progress(args))
        params["rebuild_hours"] = hours
        if args.capacity is not None:
            params["member_capacity_bytes"] = args.capacity  # the members the hours were scaled to
        for note in notes:
            print(f"raidsim: note: {note}", file=sys.stderr)
    params.update(_value_pairs(args.overrides))
    return params


def _value_pairs(overrides: Any) -> List[Tuple[str, Any]]:
    """``--set`` items as (key, value)."""
    pairs = []
    for item in overrides or []:
        key, _, value = item.partition("=")
        pairs.append((key.strip(), _value(value.strip())))
    return pairs


def _reliability(args: argparse.Namespace) -> int:
    from ..reliability import reliability, reliability_keys

    if args.keys:
        for k in reliability_keys():
            print(f"{k['key']} ({k['type']}) = {json.dumps(k['default'])}\n    {k['doc']}")
        return 0
    out = args.out or os.path.join(DEFAULT_OUT, "reliability")
    refuse_out_file(out, "the figure")
    report = reliability(_params(args), progress=progress(args))
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
        return 0
    os.makedirs(out, exist_ok=True)
    figure = report.plot(os.path.join(out, "reliability.png"))
    print(report.to_text())
    print(f"\nfigure: {figure}")
    return 0
