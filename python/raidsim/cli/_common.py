"""What every subcommand shares: exit statuses, the usage error, argument types, and the builders of the
options more than one subcommand takes, so that each option is declared (name, type, help) once."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import textwrap
from typing import Any, Callable, Dict, List, Optional

from .. import _native

DEFAULT_OUT = "raidsim-out"

# Exit statuses: the one table, also in the epilog and the README.
EXIT_OK = 0
EXIT_INPUT = 1  # a bad config, trace, study spec or other input (a raidsim.RaidsimError but a sweep's below)
EXIT_USAGE = 2  # bad arguments: argparse's own status
EXIT_SWEEP = 3  # a sweep could not finish: failed points, its --out in use by another sweep, a file not written
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C
EXIT_PIPE = 141  # 128 + SIGPIPE: stdout's reader left early (e.g. `| head`), as other tools end
EXIT_CODES = ("exit status: 0 done; 1 a bad config, trace, study spec or other input; 2 a usage error "
              "(bad arguments); 3 a sweep could not finish (failed points, its --out in use by another "
              "sweep, a file it could not write; for `reproduce all`, a failed reproduction); 130 interrupted; "
              "141 stdout closed early (e.g. piped into head)")


class UsageError(Exception):
    """A command line that argparse accepts but that does not make sense (exit 2, as argparse's own)."""


Handler = Callable[[argparse.Namespace], int]


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, wrapped at spaces only: a preset's name (stripe-unit-table5) or an option is never
    split at its hyphens."""

    def _split_lines(self, text: str, width: int) -> List[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False, break_long_words=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False, break_long_words=False)


def add_command(sub: argparse._SubParsersAction, name: str, handler: Handler, summary: str,
                description: str) -> argparse.ArgumentParser:
    """A subcommand: ``summary`` is its line in ``raidsim --help``, ``description`` what ``raidsim NAME --help``
    says first (every subcommand has both); ``handler(args)`` runs it and returns the exit status."""
    p = sub.add_parser(name, help=summary, description=description, formatter_class=HelpFormatter)
    p.set_defaults(handler=handler)
    return p


# --- argument types: a bad value is argparse's usage error (exit 2), naming the option ----------------

def int_in(low: int, high: int, what: str) -> Callable[[str], int]:
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


POSITIVE_COUNT = int_in(1, 2**63, "a positive count")
# At least one: 0 would otherwise mean "one per core" and a negative number fail deep in the pool.
WORKERS = int_in(1, 2**31, "a positive number of processes")


def key_value(text: str) -> str:
    """An argparse type for --set: ``dotted.key=value``, else a usage error (exit 2) naming the option."""
    key, sep, _ = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE (e.g. array.level=raid5)")
    return text


def out_dir(value: str) -> str:
    """An empty --out would write nothing (run, count) or the default directory (sweep): refused."""
    if not value.strip():
        raise argparse.ArgumentTypeError(f"{value!r}: an empty directory name; give a directory")
    return value


# --- the shared options: one builder each ---------------------------------------------------------

PRESET_HELP = "packaged preset (see `raidsim presets`)"


def add_source(p: argparse.ArgumentParser, *, preset_help: str = PRESET_HELP,
               config_help: str = "TOML config file", hidden_alias: Optional[str] = None) -> None:
    """``--preset`` or ``--config`` (not both). ``hidden_alias`` is an older name of --preset that still works
    but is not listed (its own dest, so that an error can name the option as typed)."""
    src = p.add_mutually_exclusive_group()
    src.add_argument("--preset", help=preset_help)
    if hidden_alias:
        src.add_argument(hidden_alias, dest=hidden_alias.lstrip("-"), help=argparse.SUPPRESS)
    src.add_argument("--config", help=config_help)


def add_trace(p: argparse.ArgumentParser) -> None:
    p.add_argument("--trace", help="replay this trace instead of the config's workload")


def add_format(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=_native.trace_formats(), help="trace format (default: detect)")


def add_device(p: argparse.ArgumentParser) -> None:
    p.add_argument("--device", type=int, help="keep only this trace device/disk/LUN")


def add_time_scale(p: argparse.ArgumentParser) -> None:
    p.add_argument("--time-scale", type=float, help="multiply trace timestamps (0.5 = twice as fast)")


def add_skip_malformed(p: argparse.ArgumentParser) -> None:
    p.add_argument("--skip-malformed", action="store_true", help="skip malformed trace lines instead of stopping")


def add_set(p: argparse.ArgumentParser, scope: str = "", *, dest: str = "overrides") -> None:
    """``--set KEY=VALUE`` (repeatable); ``scope`` says what the overrides apply to, when not the one run."""
    p.add_argument("--set", dest=dest, action="append", default=[] if dest == "overrides" else None,
                   metavar="KEY=VALUE", type=key_value,
                   help=f"override a config key{scope}, e.g. --set ssd.geometry.channels=4 (repeatable; "
                        "`raidsim keys` lists them)")


def add_pe_cycles(p: argparse.ArgumentParser, when: str) -> None:
    """``--pe-cycles N``: the flash's rated program/erase cycles per block; ``when`` says when it is required."""
    p.add_argument("--pe-cycles", type=POSITIVE_COUNT,
                   help=f"rated program/erase cycles per block (the datasheet's); {when}")


def add_out(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--out", type=out_dir, help=what)


def add_json(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--json", action="store_true", help=what)


def add_workers(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=WORKERS, help="parallel processes (default: one per core)")


def add_no_progress(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-progress", action="store_true",
                   help="never show a progress bar (by default one shows on a terminal or in Jupyter once a run "
                        "has taken a second)")


def add_overwrite(p: argparse.ArgumentParser) -> None:
    p.add_argument("--overwrite", action="store_true",
                   help="replace another study's results in --out (refused without it; this study's own finished "
                        "points are reused either way)")


def progress(args: argparse.Namespace) -> Optional[bool]:
    """--no-progress as the API's ``progress``: False never shows a bar, None shows one where it is seen."""
    return False if args.no_progress else None


# --- checks and output ----------------------------------------------------------------------------

_NAMES = {"preset": "a preset's name (see `raidsim presets`)", "drive": "a preset's name (see `raidsim presets`)",
          "config": "a TOML file", "trace": "a trace file", "report": "a finished run's JSON report"}


def refuse_empty(args: argparse.Namespace, options: Dict[str, str]) -> None:
    """An empty name (`--preset ""`) reads as not given, so the default would run instead: refused."""
    for dest, flag in options.items():
        value = getattr(args, dest)
        if value is not None and not value.strip():
            raise UsageError(f"{flag} {value!r}: an empty name; give {_NAMES[dest]}")


def refuse_out_file(out: str, what: str) -> None:
    """An --out that is a file, not a directory: a wrong argument, said before anything runs."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"--out {out}: a file, not a directory for {what}")


def terminal_width(fallback: int = 80) -> int:
    """The columns text may take: the terminal's (or $COLUMNS), ``fallback`` when the output is no terminal."""
    return shutil.get_terminal_size((fallback, 24)).columns


def warn_to_stderr(warnings: List[str]) -> None:
    """With --json on stdout, the report's warnings again on stderr (the JSON holds them; a person reads stderr)."""
    for w in warnings:
        print(f"raidsim: warning: {w}", file=sys.stderr)


def error(message: str, status: int) -> int:
    print(f"raidsim: error: {message}", file=sys.stderr)
    return status


def stdout_closed() -> int:
    # The recipe of Python's docs (signal module, "Note on SIGPIPE"): stdout goes to devnull so the
    # flush at exit cannot fail again. The reader left on purpose, so nothing is said.
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return EXIT_PIPE


class VersionAction(argparse.Action):
    """``--version``, as argparse's own, but the version is looked up only when asked for: the lookup
    (importlib.metadata) would cost every other command about 20 ms."""

    def __init__(self, option_strings: List[str], dest: str = argparse.SUPPRESS, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: Optional[str] = None) -> None:
        from .. import __version__

        try:
            print(f"raidsim {__version__}", flush=True)
        except BrokenPipeError:  # as every other command: the reader left early
            parser.exit(stdout_closed())
        parser.exit()
