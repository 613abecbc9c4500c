"""``raidsim endurance``: years until each member wears out, from a run's report or a run of a config."""

from __future__ import annotations

import argparse
import json

from ..api import simulate
from ._common import UsageError, add_command, add_json, add_no_progress, add_pe_cycles, progress, refuse_empty
from .run import TRACE_OPTIONS, add_config_options, config


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "endurance", _endurance, "years until each member reaches its rated P/E cycles, and "
                                                  "whether members wear out together", (
        "Projects, from a run's erases per block and its simulated time, the years until each member's mean block "
        "reaches the rated P/E cycles, assuming the workload repeats; then the window between the first member's "
        "wear-out and the one that loses data. Takes a finished run's JSON report (raidsim run ... --json > r.json) "
        "or runs a config as `raidsim run` does."))
    p.add_argument("report", nargs="?", help="a finished run's JSON report; without it, the config given is run")
    add_config_options(p)
    add_pe_cycles(p, "required unless the preset's flash is known (rais-ssd-a, -b, -c)")
    add_json(p, "print the projection as JSON")
    add_no_progress(p)


def _endurance(args: argparse.Namespace) -> int:
    from ..tools import endurance

    refuse_empty(args, {"report": "REPORT"})  # read as no report, the default config would run
    run_options = [args.preset, args.config, args.trace, args.overrides,
                   *(getattr(args, dest, None) for dest in TRACE_OPTIONS)]
    if args.report and any(option not in (None, False, []) for option in run_options):
        raise UsageError("endurance takes a finished run's REPORT, or a config to run (--preset/--config, --trace "
                         "and its options, --set), not both")
    copies, origin = None, "the run's report"
    if args.report:
        data, origin = endurance.load_report(args.report), args.report
        cycles, source = endurance.pe_cycles_for(args.pe_cycles, None)
    else:
        cfg = config(args)
        array = cfg.resolved()["array"]
        # Before the run: a missing P/E figure is an error now, not after minutes of simulating.
        cycles, source = endurance.pe_cycles_for(args.pe_cycles, args.preset, bool(array.get("member_ssd")))
        data, copies = simulate(cfg, progress=progress(args)).to_dict(), array.get("copies")
    result = endurance.project(data, cycles, source, copies, origin=origin)
    print(json.dumps(result, indent=2) if args.json else endurance.text(result))
    return 0
