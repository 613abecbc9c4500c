"""What a command line is made of, without simulating: ``raidsim presets``, ``raidsim keys`` and
``raidsim trace-stats``."""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import List

from .. import _native
from ..api import presets, trace_stats
from ._common import add_command, add_device, add_format, add_json, add_skip_malformed, terminal_width

#: How many lines of its opening comment a preset shows in the list (the rest: `raidsim presets NAME`).
PRESET_LINES = 3


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "keys", _keys, "every config key with its type, unit, default and meaning", (
        "Lists every config key (what --set, TOML configs and study specs take) with its type, unit, default, "
        "choices and meaning, from the core's own declarations; a key that applies only to one kind of a table "
        "(e.g. workload.kind = \"trace\") says so."))
    p.add_argument("prefix", nargs="?", help="only the keys under this table or key (e.g. array, ssd.timing)")
    add_json(p, "print a list of {key, type, default, unit, doc, choices, when}")
    p = add_command(sub, "presets", _presets, "list packaged presets, or print one", (
        "Lists the packaged presets -- drives, arrays and the papers' configurations -- each with the opening of "
        "the comment that cites its source; with a NAME, prints that preset's TOML (a config to edit: "
        "raidsim presets NAME > my.toml)."))
    p.add_argument("name", nargs="?", help="print this preset's TOML")
    p = add_command(sub, "trace-stats", _trace_stats, "statistics of a trace file as the papers tabulate them", (
        "Reads a trace file (any format `raidsim run --trace` reads, detected unless --format says) and prints "
        "what the papers tabulate of it: requests, read/write shares, mean and largest sizes, inter-arrival "
        "times, duration and the address span."))
    p.add_argument("file", help="the trace file (/dev/stdin reads one from a pipe)")
    add_format(p)
    add_device(p)
    add_skip_malformed(p)
    add_json(p, "print the statistics as JSON")


def _presets(args: argparse.Namespace) -> int:
    table = presets()
    if args.name:
        if args.name not in table:
            raise _native.ConfigError(f"unknown preset `{args.name}`; valid: {', '.join(table)}")
        print(table[args.name], end="")
        return 0
    column = max(map(len, table)) + 2
    text_width = max(terminal_width() - column, 30)
    for name, text in table.items():
        lines = textwrap.wrap(opening(text), text_width, max_lines=PRESET_LINES, placeholder=" ...",
                              break_long_words=False, break_on_hyphens=False) or [""]
        print(f"{name:{column}s}{lines[0]}")
        for line in lines[1:]:
            print(" " * column + line)
    return 0


def opening(toml_text: str) -> str:
    """The first paragraph of a preset's opening comment, its lines joined (a preset cites its source there)."""
    paragraph: List[str] = []
    for line in toml_text.splitlines():
        if not line.startswith("#"):
            break
        words = line.lstrip("#").strip()
        if not words and paragraph:
            break
        if words:
            paragraph.append(words)
    return " ".join(paragraph)


def _keys(args: argparse.Namespace) -> int:
    from ..config_keys import keys, keys_text

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
    if s["trim"]["requests"]:
        rows[4:4] = [("trims", f"{s['trim']['requests']:,} ({s['trim']['percent']:.1f} %), "
                               f"mean {_fmt_bytes(s['trim']['mean_bytes'])}")]
    if s["malformed_skipped"]:
        rows.append(("malformed lines skipped", str(s["malformed_skipped"])))
    for k, v in rows:
        print(f"{k:26s} {v}")
    return 0
