"""The ``raidsim`` command line: :func:`main` (the console script, and ``python -m raidsim.cli``).

One module per subcommand or small family (``run`` and ``count``; ``sweep`` and ``demo``; ``presets``,
``keys`` and ``trace-stats`` in ``info``), each with a ``register(sub)`` that adds its parser; the options
more than one takes are built once, in ``_common``. Importing this package loads no heavy library: each
command imports what it needs when it runs (issue #14).
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from .. import _native
# A study's errors alone: the sweep machinery would slow every command.
from ..study.errors import AnotherStudysResults, StudyError, SweepError
from . import advise, endurance, info, reliability, reproduce, run, studies, verify
from ._common import (DEFAULT_OUT, EXIT_CODES, EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_PIPE, EXIT_SWEEP,
                      EXIT_USAGE, HelpFormatter, UsageError, VersionAction, error, stdout_closed)
from .reproduce import REPRODUCE_OPTIONS as _REPRODUCE_OPTIONS

__all__ = ["main", "build_parser", "UsageError", "DEFAULT_OUT", "EXIT_CODES", "EXIT_OK", "EXIT_INPUT", "EXIT_USAGE",
           "EXIT_SWEEP", "EXIT_INTERRUPTED", "EXIT_PIPE"]

DESCRIPTION = (
    "Simulate solid-state drives, hard disks and arrays of either: RAID 0, 1, 10, 4, 5 and 6 (Reed-Solomon, "
    "EVENODD or RDP codes) across drives, or RAID-5 across the channels inside one SSD (CR5, CR5M); flash "
    "translation, garbage collection and wear, disk seeks and rotation; member failures, degraded service and "
    "rebuilds onto spares. Replay a trace or a synthetic workload (run, count), sweep a study across "
    "configurations (sweep, demo, advise), project wear-out (endurance), estimate the probability of data "
    "loss over the array's life (reliability), check that no write is lost (verify), and reproduce the papers' "
    "tables and figures (reproduce).")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="raidsim", description=DESCRIPTION, epilog=EXIT_CODES,
                                     formatter_class=HelpFormatter)
    parser.add_argument("--version", action=VersionAction, help="show program's version number and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (run, studies, reproduce, verify, info, advise, endurance, reliability):
        module.register(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status = args.handler(args)
        sys.stdout.flush()  # here, not at exit: a reader that left is then a BrokenPipeError we handle
        return status
    except BrokenPipeError:
        return stdout_closed()
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
    except StudyError as e:  # a sweep's error, but a wrong spec: bad input
        return _input_error(e)
    except SweepError as e:  # before RaidsimError, which it is: the sweep could not finish
        return error(str(e), EXIT_SWEEP)  # failed points are listed one per line
    except (_native.RaidsimError, OSError, ValueError) as e:  # any other raidsim error is bad input
        return _input_error(e)
    except BaseException as e:  # pyo3's PanicException derives from BaseException
        if type(e).__name__ != "PanicException":
            raise
        return error(f"internal error (a raidsim bug; please report it with the command): {e}", EXIT_INPUT)


def _input_error(e: BaseException) -> int:
    # One line: the core's parser messages end in "\nin `table`" and blank lines.
    return error(" ".join(line.strip() for line in str(e).splitlines() if line.strip()), EXIT_INPUT)
