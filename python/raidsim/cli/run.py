"""``raidsim run`` and ``raidsim count``: one configuration, from a preset or a TOML file, on a trace or the
config's own workload; and the building of that configuration from the options, which ``endurance`` shares."""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
import tomllib

from .. import _atomic
from ..api import simulate
from ..config import Config
from ..counting import count
from ..report import Report
from ..workload import Workload
from ._common import (UsageError, add_command, add_device, add_format, add_json, add_no_progress, add_out, add_set,
                      add_skip_malformed, add_source, add_time_scale, add_trace, progress, refuse_empty,
                      terminal_width, warn_to_stderr)

# `run`'s options that apply to --trace's replay only (the dest and the option).
TRACE_OPTIONS = {"format": "--format", "device": "--device", "time_scale": "--time-scale",
                 "max_requests": "--max-requests", "out_of_range": "--out-of-range",
                 "skip_malformed": "--skip-malformed"}


_EXAMPLE = ("Example: raidsim {} --preset stripe-unit-table5 --set array.level=raid5 --set array.members=5 "
            "--set workload.requests=100000")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "run", _run, "simulate one configuration: response times, devices, write amplification", (
        "Simulates one configuration -- a preset or TOML config, on a trace (--trace) or the config's own "
        "workload -- and prints what ran, the host's response times, each device's counters, the write "
        "amplification and, with a failure, the rebuild (--json: the whole report). " + _EXAMPLE.format("run")))
    _add_run_options(p, "write report.json, config.toml and CSV tables to this directory")
    p = add_command(sub, "count", _count, "exact page counts per member and cause (no timing)", (
        "Counts the pages each member reads and writes for every request of the workload, by cause (the host's "
        "data, parity, pre-reads), without timing: exact and fast, for checking a layout or a paper's "
        "counts. " + _EXAMPLE.format("count")))
    _add_run_options(p, "write count.json and config.toml to this directory")


def _add_run_options(p: argparse.ArgumentParser, out: str) -> None:
    add_config_options(p)
    p.add_argument("--max-requests", type=int, help="stop the trace after this many requests")
    p.add_argument("--out-of-range", choices=["wrap", "error"], help="requests beyond the capacity (default wrap)")
    add_skip_malformed(p)
    add_out(p, out)
    add_json(p, "print the full report as JSON on stdout")
    add_no_progress(p)


def add_config_options(p: argparse.ArgumentParser) -> None:
    """What :func:`config` reads: --preset/--config, --trace and the replay's --format, --device,
    --time-scale, and --set."""
    add_source(p)
    add_trace(p)
    add_format(p)
    add_device(p)
    add_time_scale(p)
    add_set(p)


def check_sources(args: argparse.Namespace) -> None:
    """Refuses what `config` would silently ignore: an empty --preset, --config or --trace (read as not
    given), and a trace option without --trace (it applies only to the replay --trace builds)."""
    refuse_empty(args, {"preset": "--preset", "config": "--config", "trace": "--trace"})
    given = [flag for dest, flag in TRACE_OPTIONS.items() if getattr(args, dest, None) not in (None, False)]
    if given and not args.trace:
        one = len(given) == 1
        raise UsageError(f"{', '.join(given)} {'applies' if one else 'apply'} only with --trace (to the trace it "
                         f"replays); without --trace {'it' if one else 'they'} would be ignored. For a config's own "
                         "trace workload, use --set workload.KEY=VALUE (e.g. --set workload.time_scale=0.5; "
                         "`raidsim keys workload`)")


def config(args: argparse.Namespace) -> Config:
    check_sources(args)
    cfg = Config.preset(args.preset) if args.preset else Config.load(args.config)
    if args.trace:
        cfg = cfg.with_workload(Workload.trace(
            args.trace, args.format, device=args.device, time_scale=args.time_scale,
            max_requests=getattr(args, "max_requests", None), out_of_range=getattr(args, "out_of_range", None),
            skip_malformed=getattr(args, "skip_malformed", False) or None))
    # Last: `--set workload.time_scale=0.5` applies on top of --trace's [workload] (which replaces the
    # config's whole table), rather than being replaced with the rest of it.
    return cfg.with_overrides(args.overrides)


def source_text(args: argparse.Namespace) -> str:
    """Where the configuration came from, as typed: ``preset X``, ``config F`` or the defaults, and the --set."""
    where = (f"preset {args.preset}" if args.preset else f"config {args.config}" if args.config else
             "the default config")
    return where + (f" with --set {', '.join(args.overrides)}" if args.overrides else "")


def _count(args: argparse.Namespace) -> int:
    cfg = config(args)
    report = count(cfg)
    if args.out:
        # Each whole or not at all: a full disk leaves no empty count.json passing for a result.
        os.makedirs(args.out, exist_ok=True)
        _atomic.write_text(os.path.join(args.out, "count.json"), report.to_json())
        _atomic.write_text(os.path.join(args.out, "config.toml"), cfg.resolved_toml())
    if args.json:
        print(report.to_json())
        warn_to_stderr(report.warnings)
    else:
        print(report.to_text(width=terminal_width()))
    return 0


def _run(args: argparse.Namespace) -> int:
    cfg = config(args)
    report = simulate(cfg, progress=progress(args))
    if args.out:
        report.save(args.out)  # each file written whole or not at all
    if args.json:
        print(report.to_json())
        warn_to_stderr(report.warnings)
    else:
        width = terminal_width()
        print(header(report, source_text(args), width))
        print()
        print(report.to_text(width=width))
        if args.out:
            print(f"\nwrote {args.out}/report.json, config.toml and CSV tables")
    rows = report.request_log_rows()
    if rows is not None:  # on stderr, so that --json's stdout stays one document
        from ..timeline import log_path

        print(f"wrote the request log, {rows:,} rows, to {log_path(tomllib.loads(report.config_toml))}",
              file=sys.stderr)
    # sim.verify found bytes that did not survive: a simulator defect, not a result.
    verify = report.to_dict().get("verify") or {}
    if verify.get("mismatches"):
        print(f"raidsim: error: sim.verify found {verify['mismatches']} mismatched sectors (see the warnings); "
              "please report this run", file=sys.stderr)
        return 1
    return 0


def header(report: Report, source: str, width: int = 80) -> str:
    """What ran, first, so that two runs in one log are told apart: the drive (the preset or config, the
    member kind and size), the RAID level, members and stripe unit, the workload, and the simulated time."""
    import tomllib

    from ..study.page import describe_workload

    cfg = tomllib.loads(report.config_toml)
    data = report.to_dict()
    array, kind = cfg["array"], cfg["member"]["kind"]
    size = _capacity(cfg["derived"]["host_capacity_bytes"])
    each = _capacity(data["devices"][0]["capacity_bytes"])
    unit = f"stripe unit {_size(array['stripe_unit_bytes'])}"
    if array["level"] == "single":
        what = f"a single {kind}, {size}"
    elif array["level"] in ("cr5", "cr5m"):
        what = f"{array['level']} across the {array['members']} channels of one {kind}, {unit}, {size} usable"
    else:
        spares = f" + {array['spares']} spare{'s' if array['spares'] != 1 else ''}" if array["spares"] else ""
        what = f"{array['level']} of {array['members']} {kind} members of {each}{spares}, {unit}, {size} usable"
    host = data["host"]
    lines = [f"raidsim run: {source}", f"{'drive' if array['level'] == 'single' else 'array'}: {what}", f"workload: {describe_workload(cfg['workload'])}",
             f"simulated: {host['duration_ns'] / 1e9:,.4f} s, {host['requests']:,} requests completed"]
    return "\n".join(textwrap.fill(line, width, subsequent_indent="  ", break_on_hyphens=False) for line in lines)


def _size(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n:,} bytes"


def _capacity(n: int) -> str:
    """A capacity, to a tenth of its largest binary unit."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n:,} bytes"

