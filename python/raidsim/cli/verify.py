"""``raidsim verify``: random small arrays run with real bytes, every write checked through failures."""

from __future__ import annotations

import argparse
import json

from ._common import (EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK, POSITIVE_COUNT, add_command, add_json, add_no_progress,
                      int_in, progress)


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "verify", _verify, "random small arrays with real bytes: prove no write is lost through "
                                            "failures and rebuilds", (
        "Runs random small arrays (RAID 0/1/10/4/5/6 with Reed-Solomon, EVENODD or RDP, any stripe unit, parity "
        "granularity and write method) with real bytes through up to two member failures and their rebuilds, "
        "checking every host read and, at the end, every written sector against its last write. Exits 1 with "
        "the first failing case's --set overrides, which replay it alone with `raidsim run`."))
    p.add_argument("--cases", type=POSITIVE_COUNT, default=1000, help="scenarios to run (default 1000)")
    p.add_argument("--seed", type=int_in(0, 2**64, "in [0, 2**64)"), default=1, help="seed of the scenarios (default 1)")
    add_json(p, 'print {"cases", "mismatches", "data_loss_events", "first_failure", ...}')
    p.add_argument("--inject-fault", action="store_true", help=argparse.SUPPRESS)  # test-only: RMW writes no parity
    add_no_progress(p)


def _verify(args: argparse.Namespace) -> int:
    from ..verify import format_result, run_cases

    result = run_cases(args.cases, args.seed, progress=progress(args), fault=args.inject_fault)
    print(json.dumps(result, indent=2) if args.json else format_result(result))
    if result["first_failure"] is not None:
        return EXIT_INPUT
    return EXIT_INTERRUPTED if result["interrupted"] else EXIT_OK
