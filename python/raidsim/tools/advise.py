"""Advice: which RAID level, member count and stripe unit suit a workload, and what each choice costs.

``raidsim advise TRACE`` replays a trace (or the config's synthetic workload)
on every combination of ``--levels`` x ``--members`` x ``--stripe-units``
of one drive, as one study (:func:`raidsim.study.sweep.run_study`: points run in
parallel, each recorded as it finishes, a rerun of the same command reuses
them), and sets the configurations side by side on five criteria:

* mean and 99th-percentile response time (lower is better);
* erases of the most-erased member (lower is better: the member that wears
  out first bounds the array's life; the mean beside it, and max/mean, say
  how unevenly the members wear -- RAID-4's parity member against RAID-5's
  even spread, the stripe-unit paper's Figure 12);
* usable capacity, GiB (higher is better);
* what the drives and controller cost, US dollars (lower is better), when
  the config prices them (``ssd.price_usd``, ``array.controller.price_usd``).

A configuration is *Pareto-optimal* when no other is at least as good on
every criterion and better on one: the only ones worth choosing whatever
the weights. The ranking puts them first, each group ordered by one
criterion (``--rank-by``, mean response time unless said), ties broken by
the others in the order above. $/GiB is shown, not a criterion of its own:
cost and capacity already are.

Combinations the core refuses (RAID-6 of two members, a stripe unit that
is not a whole number of flash pages) are skipped, each with the core's
reason; if none is left, that is an error.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .. import _native
from ..config import Config
from ..workload import Workload

#: The levels advise compares: arrays of whole drives. (``single`` is one drive; ``cr5``/``cr5m`` put
#: RAID inside one SSD, whose "members" are its channels.)
LEVELS = ("raid0", "raid1", "raid10", "raid4", "raid5", "raid6")
DEFAULT_LEVELS = "raid10,raid5,raid6"
DEFAULT_MEMBERS = "4-8"
DEFAULT_STRIPE_UNITS = "16K-256K"
DEFAULT_DRIVE = "stripe-unit-table5"
#: Requests each configuration replays unless --requests says otherwise: a bound on a long trace, so that
#: a sweep of dozens of points takes seconds to minutes. A full-size drive may erase nothing in so few
#: (the table then says so: erases compare nothing).
DEFAULT_REQUESTS = 10_000
#: More configurations than this is an error: a range typed wrong (4-400) would run for hours.
MAX_CONFIGURATIONS = 500

#: The criteria, in tie-breaking order: (key, "min" or "max", what it is).
CRITERIA = (("mean_ms", "min", "mean response time"), ("p99_ms", "min", "99th-percentile response time"),
            ("max_erases", "min", "erases of the most-erased member"), ("usable_gib", "max", "usable capacity"),
            ("cost_usd", "min", "cost of drives and controller"))
RANK_KEYS = tuple(key for key, _, _ in CRITERIA) + ("usd_per_gib",)
_DIRECTION = {**{key: d for key, d, _ in CRITERIA}, "usd_per_gib": "min"}
_PRICED_ONLY = ("cost_usd", "usd_per_gib")

# Keys the sweep sets itself: a --set of one would be overwritten, or overwrite the axis.
_AXIS_KEYS = {"array.level": "--levels", "array.members": "--members", "array.stripe_unit_bytes": "--stripe-units",
              "workload.requests": "--requests", "workload.max_requests": "--requests"}

_SIZE = re.compile(r"([0-9]+)([KMG]?)\Z", re.IGNORECASE)
_SUFFIX = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}
_MEMBERS_FORM = "N or A-B, whole numbers with 1 <= A <= B, e.g. 4-8"
_STRIPE_FORM = ("SIZE or SIZE-SIZE, powers of two in bytes with an optional binary suffix K, M or G "
                "(4K = 4096), smaller first, e.g. 4K-1M")
_LEVELS_FORM = f"a comma-separated list of {', '.join(LEVELS)}, e.g. raid5,raid6"


class AdviseError(_native.RaidsimError, ValueError):
    """A request advise cannot carry out as asked (the CLI: exit 1, one line)."""


class RangeError(_native.RaidsimError, ValueError):
    """An option's range or list is malformed; the message names the option and the expected form."""


# --- the options -------------------------------------------------------------------------------

def parse_levels(text: str) -> List[str]:
    """``"raid5,raid6"`` -> ``["raid5", "raid6"]``; an unknown or repeated level is an error."""
    levels = [part.strip().lower() for part in text.split(",")]
    if not text.strip() or any(not level for level in levels):
        raise RangeError(f"--levels {text!r}: expected {_LEVELS_FORM}")
    for level in levels:
        if level in ("single", "cr5", "cr5m"):
            raise RangeError(f"--levels: {level} is not an array of drives (single is one drive; cr5 and cr5m are "
                             f"RAID inside one SSD); advise compares {', '.join(LEVELS)}")
        if level not in LEVELS:
            raise RangeError(f"--levels: unknown level {level!r}; expected {_LEVELS_FORM}")
    if len(set(levels)) < len(levels):
        raise RangeError(f"--levels {text!r} lists a level twice")
    return levels


def parse_members(text: str) -> List[int]:
    """``"4-8"`` -> ``[4, 5, 6, 7, 8]``; ``"5"`` -> ``[5]``."""
    low, high = _bounds(text, "--members", _MEMBERS_FORM, _whole)
    if low < 1 or low > high:
        raise RangeError(f"--members {text!r}: expected {_MEMBERS_FORM}")
    if high - low >= MAX_CONFIGURATIONS:  # before listing them: 1-10**9 would fill memory
        raise RangeError(f"--members {text!r}: {high - low + 1:,} member counts; at most {MAX_CONFIGURATIONS} "
                         "configurations in all")
    return list(range(low, high + 1))


def parse_stripe_units(text: str) -> List[int]:
    """``"4K-1M"`` -> every power of two from 4096 to 1048576 bytes, both included."""
    low, high = _bounds(text, "--stripe-units", _STRIPE_FORM, parse_size)
    if low > high or not _power_of_two(low) or not _power_of_two(high):
        raise RangeError(f"--stripe-units {text!r}: expected {_STRIPE_FORM}")
    return [low << i for i in range((high // low).bit_length())]


def parse_size(text: str) -> int:
    """``"4K"`` -> 4096, ``"1M"`` -> 1048576, ``"512"`` -> 512 (binary suffixes); else :class:`RangeError`
    (a ``ValueError``)."""
    m = _SIZE.match(text.strip())
    if not m:
        raise RangeError(f"{text!r} is not a size: bytes, or a number with K, M or G (K = 1024)")
    return int(m.group(1)) * _SUFFIX[m.group(2).upper()]


def size_text(n: int) -> str:
    """Bytes in the largest binary unit that divides them: 65536 -> ``"64K"``."""
    for suffix in ("G", "M", "K"):
        if n % _SUFFIX[suffix] == 0:
            return f"{n // _SUFFIX[suffix]}{suffix}"
    return str(n)


def _bounds(text: str, option: str, form: str, parse) -> Tuple[int, int]:
    parts = text.split("-")
    if len(parts) not in (1, 2):
        raise RangeError(f"{option} {text!r}: expected {form}")
    try:
        values = [parse(p) for p in parts]
    except ValueError:
        raise RangeError(f"{option} {text!r}: expected {form}") from None
    return values[0], values[-1]


def _whole(text: str) -> int:
    if not text.strip().isdigit():
        raise ValueError(text)
    return int(text)


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


# --- the study ---------------------------------------------------------------------------------

@dataclass
class Configuration:
    """One combination of the ranges."""

    level: str
    members: int
    stripe_unit_bytes: int

    @property
    def name(self) -> str:
        return f"{self.level} x{self.members} {size_text(self.stripe_unit_bytes)}"

    def settings(self) -> Dict[str, Any]:
        return {"array.level": self.level, "array.members": self.members,
                "array.stripe_unit_bytes": self.stripe_unit_bytes}


@dataclass
class Plan:
    """What advise will run: the study, its configurations, those skipped and why, the workload."""

    study: Any  # raidsim.study.spec.Study
    configurations: List[Configuration]
    skipped: List[Tuple[Configuration, str]]
    workload: str
    requests: Optional[int]
    costs: Optional[Dict[str, float]]  # configuration name -> USD; None: nothing priced
    drive: str  # the preset's or the config file's name

    @property
    def priced(self) -> bool:
        return self.costs is not None


def plan(trace: Optional[str], *, drive: Optional[str] = None, config: Optional[str] = None,
         overrides: Sequence[str] = (), levels: Sequence[str], members: Sequence[int],
         stripe_units: Sequence[int], requests: Optional[int] = None, trace_format: Optional[str] = None,
         device: Optional[int] = None, time_scale: Optional[float] = None) -> Plan:
    """The study of every combination the core accepts. ``requests`` None: :data:`DEFAULT_REQUESTS`,
    except for a workload of explicit requests (all run). ``trace_format``, ``device`` and ``time_scale``
    shape the replay of ``trace`` as :meth:`raidsim.Workload.trace`'s ``format``, ``device`` and ``time_scale``."""
    from ..study.spec import Study, override_settings

    combos = [Configuration(lv, n, su) for lv in levels for n in members for su in stripe_units]
    if len(combos) > MAX_CONFIGURATIONS:
        raise AdviseError(f"{len(combos)} configurations ({len(levels)} levels x {len(members)} member counts x "
                          f"{len(stripe_units)} stripe units): at most {MAX_CONFIGURATIONS}; narrow the ranges")
    if requests is not None and requests < 1:
        raise AdviseError(f"--requests must be at least 1, got {requests}")
    settings = override_settings(overrides)
    for key in settings:
        if key in _AXIS_KEYS:
            raise AdviseError(f"--set {key}: advise sets it from {_AXIS_KEYS[key]}; use that option")
    replay = {"format": trace_format, "device": device, "time_scale": time_scale}
    if trace is None and any(v is not None for v in replay.values()):
        raise AdviseError(f"{', '.join(k for k, v in replay.items() if v is not None)}: options of a trace's replay, "
                          "and no trace is given (a config's own trace workload takes overrides workload.KEY=VALUE)")
    base, drive_text, drive_name = _base(trace, drive, config, replay)
    label = os.path.basename(trace) if trace is not None else drive_name
    name = _study_name(label)
    study = Study.from_dict({"name": name, "title": f"raidsim advise: {label}",
                             "base": base, "metrics": ["host.requests"], "cases": []})
    workload, request_key, requests = _workload(study, trace, requests)
    if request_key is not None:
        settings = {request_key: requests, **settings}
    accepted, skipped = _check_combinations(study, combos, settings)
    costs = _costs(study, accepted, settings)
    metrics = ["host.requests", "host.response.mean_ns", "host.response.p99_ns", "array.erases",
               "array.capacity_bytes", "warnings"]
    cases = [{"name": c.name, "set": {**c.settings(), **settings}} for c in accepted]
    study = Study.from_dict({"name": name, "title": study.title, "base": base, "metrics": metrics, "cases": cases})
    return Plan(study, accepted, skipped, workload, requests, costs, drive_text)


def _base(trace: Optional[str], drive: Optional[str], config: Optional[str],
          replay: Mapping[str, Any]) -> Tuple[Dict[str, Any], str, str]:
    """The study's base config, the drive's description and its name (a preset's or a config file's);
    ``replay``: the options of ``trace``'s replay (format, device, time_scale; None where not given)."""
    if config is not None:
        try:
            with open(config, "rb") as f:
                base = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise AdviseError(f"--config {config}: not valid TOML: {e}") from None
        name = os.path.basename(config)
        source = f"config {name}"
    else:
        base = {"preset": drive or DEFAULT_DRIVE}
        Config.preset(base["preset"]).resolved_toml()  # an unknown preset: the core's error, naming the valid ones
        name = base["preset"]
        source = f"preset {name}"
    if trace is not None:
        if not os.path.exists(trace):
            raise AdviseError(f"TRACE {trace}: no such file (a trace in any format `raidsim run --trace` reads)")
        if not os.path.isfile(trace):
            raise AdviseError(f"TRACE {trace}: not a regular file (a pipe, a FIFO or a terminal?): advise replays the "
                              "trace once for every configuration, and a stream can be read only once; save it to a "
                              "file first")
        base.pop("workload", None)  # the trace replaces the config's whole [workload], as `run --trace` does
        base["workload"] = Workload.trace(trace, replay.get("format"), device=replay.get("device"),
                                          time_scale=replay.get("time_scale")).to_dict()
    return base, source, name


def _workload(study: Any, trace: Optional[str], requests: Optional[int]) -> Tuple[str, Optional[str], Optional[int]]:
    """(how the workload is described, the key that bounds its length or None, the bound)."""
    from ..study.spec import Point

    workload = study.config(Point("", {})).resolved()["workload"]
    n = requests if requests is not None else DEFAULT_REQUESTS
    kind = workload["kind"]
    if kind == "trace":
        path = trace or workload["path"]
        return f"up to the first {n:,} requests of {path}", "workload.max_requests", n
    if kind == "synthetic":
        return f"{n:,} requests of the config's synthetic workload", "workload.requests", n
    if kind == "flows":
        return f"the first {n:,} requests of the config's {len(workload['flows'])} flows", "sim.max_requests", n
    if requests is not None:
        raise AdviseError("--requests: the config lists its requests explicitly ([workload] kind = \"requests\"); "
                          "all of them run")
    return "the config's explicit requests, all of them", None, None


def _study_name(source: str) -> str:
    """``advise-`` and the trace's or the drive's name, made a plain directory name."""
    stem = source[:-3] if source.endswith(".gz") else source  # a gzipped trace's name is its trace's
    stem = os.path.splitext(stem)[0] or stem
    return "advise-" + (re.sub(r"[^A-Za-z0-9_.-]", "-", stem)[:200] or "workload")


def _check_combinations(study: Any, combos: Sequence[Configuration], settings: Mapping[str, Any]
                        ) -> Tuple[List[Configuration], List[Tuple[Configuration, str]]]:
    """The combinations whose config the core resolves, and the others with its reason."""
    from ..study.spec import Point

    accepted, skipped = [], []
    for c in combos:
        try:
            study.config(Point(c.name, {**c.settings(), **settings})).resolved_toml()
            accepted.append(c)
        except _native.ConfigError as e:
            skipped.append((c, " ".join(line.strip() for line in str(e).splitlines() if line.strip())))
    if not accepted:
        reasons = list(dict.fromkeys(why for _, why in skipped))  # one reason often refuses them all
        if len(reasons) == 1:
            raise AdviseError(f"the core refuses every configuration in the ranges: {reasons[0]}")
        listed = "; ".join(f"{c.name}: {why}" for c, why in skipped[:3])
        raise AdviseError(f"the core refuses every configuration in the ranges ({listed}"
                          f"{'; ...' if len(skipped) > 3 else ''})")
    return accepted, skipped


def _costs(study: Any, configurations: Sequence[Configuration], settings: Mapping[str, Any]
           ) -> Optional[Dict[str, float]]:
    """Each configuration's cost (drives and controller, USD) from the core's report, or None when the
    config prices nothing.

    The price is the config's, not the run's, so a two-request probe of an unfilled drive gives it in
    milliseconds. (Not a sweep metric: the sweep's metric check probes a case unfilled but keeps its
    precondition overwrites, which the core refuses, and would then call ``cost.total_usd`` unknown.)
    """
    first = _cost(study, configurations[0], settings)
    if first is None:
        return None
    costs = {c.name: _cost(study, c, settings) if i else first for i, c in enumerate(configurations)}
    unpriced = [name for name, usd in costs.items() if usd is None]
    if unpriced:  # one drive and controller for all: priced for one, priced for all
        raise AdviseError(f"{configurations[0].name} is priced but {unpriced[0]} is not")
    return costs  # type: ignore[return-value]


def _cost(study: Any, c: Configuration, settings: Mapping[str, Any]) -> Optional[float]:
    from ..api import simulate
    from ..study.spec import Point

    unfilled = {"precondition.fill_fraction": 0.0, "precondition.random_overwrite_factor": 0.0,
                "precondition.sequential_overwrite_factor": 0.0, "sim.warmup_requests": 0}
    probe = (study.config(Point(c.name, {**c.settings(), **settings})).with_overrides(unfilled)
             .with_workload(Workload.requests([(0, "W", 0, 4096), (0, "R", 0, 4096)])))
    cost = simulate(probe, progress=False).to_dict().get("cost")
    return None if cost is None else cost["total_usd"]


# --- running and ranking -----------------------------------------------------------------------

def run(p: Plan, out_dir: str, *, rank_by: str = "mean_ms", workers: Optional[int] = None,
        progress: Optional[bool] = None) -> Dict[str, Any]:
    """Runs (or resumes) the plan's study into ``out_dir``; returns the ranked rows and what was skipped."""
    from ..study.sweep import run_study

    check_rank_by(rank_by, p.priced)
    table = run_study(p.study, out_dir, workers=workers, progress=progress)
    by_case = {row["case"]: row for row in table.to_dict("records")}
    rows = [_row(c, by_case[c.name], None if p.costs is None else p.costs[c.name]) for c in p.configurations]
    criteria = criteria_for(p.priced)
    for row, optimal in zip(rows, pareto_optimal(rows, criteria)):
        row["pareto"] = optimal
    ranked = rank(rows, rank_by, criteria)
    return {"drive": p.drive, "workload": p.workload, "requests": p.requests, "out": out_dir,
            "rank_by": rank_by, "criteria": [key for key, _ in criteria], "priced": p.priced,
            "ranking_rule": ranking_rule(rank_by, criteria), "rows": ranked,
            "skipped": [{"configuration": c.name, "level": c.level, "members": c.members,
                         "stripe_unit_bytes": c.stripe_unit_bytes, "reason": why} for c, why in p.skipped]}


def check_rank_by(rank_by: str, priced: bool) -> None:
    if rank_by not in RANK_KEYS:
        raise AdviseError(f"--rank-by {rank_by!r}: expected one of {', '.join(RANK_KEYS)}")
    if rank_by in _PRICED_ONLY and not priced:
        raise AdviseError(f"--rank-by {rank_by}: the drive is not priced; set ssd.price_usd "
                          "(and array.controller.price_usd) to rank by cost")


def criteria_for(priced: bool) -> List[Tuple[str, str]]:
    """The Pareto criteria: cost only when the configurations are priced."""
    return [(key, d) for key, d, _ in CRITERIA if priced or key != "cost_usd"]


def _row(c: Configuration, record: Mapping[str, Any], cost: Optional[float]) -> Dict[str, Any]:
    requests = _present(record, "host.requests", c)
    if requests < 1:
        raise AdviseError(f"{c.name}: no request completed, so there is no response time to compare")
    erases = [int(_present(record, f"array.erases[{i}]", c)) for i in range(c.members)]
    gib = _present(record, "array.capacity_bytes", c) / 2**30
    mean_erases = sum(erases) / len(erases)
    warnings = [record[k] for k in sorted(record, key=_warning_index) if k.startswith("warnings[")
                and isinstance(record[k], str) and record[k]]
    return {"configuration": c.name, "level": c.level, "members": c.members, "stripe_unit_bytes": c.stripe_unit_bytes,
            "requests": int(requests), "mean_ms": _present(record, "host.response.mean_ns", c) / 1e6,
            "p99_ms": _present(record, "host.response.p99_ns", c) / 1e6, "erases": erases,
            "max_erases": max(erases), "mean_erases": mean_erases,
            "max_to_mean_erases": max(erases) / mean_erases if mean_erases > 0 else None,
            "usable_gib": gib, "cost_usd": cost, "usd_per_gib": None if cost is None else cost / gib,
            "warnings": warnings}


def _warning_index(key: str) -> int:
    m = re.match(r"warnings\[(\d+)\]\Z", key)
    return int(m.group(1)) if m else -1


def _present(record: Mapping[str, Any], column: str, c: Configuration) -> float:
    value = record.get(column)
    if value is None or (isinstance(value, float) and math.isnan(value)) or str(value) == "<NA>":
        # The study asked for the metric and the point finished: an empty cell is a defect, not a zero.
        raise AdviseError(f"{c.name}: results.csv has no value of {column}")
    return value


def pareto_optimal(rows: Sequence[Mapping[str, Any]], criteria: Sequence[Tuple[str, str]]) -> List[bool]:
    """For each row, whether no other row is at least as good on every criterion and better on one."""
    for row in rows:
        for key, _ in criteria:
            if row.get(key) is None:
                raise AdviseError(f"{row.get('configuration', row)}: no value of {key} to compare")

    def dominates(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
        better = [_better(a[k], b[k], d) for k, d in criteria]
        worse = [_better(b[k], a[k], d) for k, d in criteria]
        return not any(worse) and any(better)

    return [not any(dominates(other, row) for other in rows if other is not row) for row in rows]


def _better(a: float, b: float, direction: str) -> bool:
    if direction == "min":
        return a < b
    if direction == "max":
        return a > b
    raise ValueError(f"criterion direction {direction!r}: expected min or max")


def rank(rows: Sequence[Dict[str, Any]], rank_by: str, criteria: Sequence[Tuple[str, str]]) -> List[Dict[str, Any]]:
    """Pareto-optimal rows first; in each group by ``rank_by``, then the criteria in order; numbered from 1."""
    keys = [rank_by] + [k for k, _ in criteria if k != rank_by]

    def sort_key(row: Mapping[str, Any]) -> tuple:
        signed = tuple(row[k] if _DIRECTION[k] == "min" else -row[k] for k in keys)
        return (not row["pareto"], *signed, LEVELS.index(row["level"]), row["members"], row["stripe_unit_bytes"])

    ranked = sorted(rows, key=sort_key)
    return [{"rank": i, **row} for i, row in enumerate(ranked, 1)]


def ranking_rule(rank_by: str, criteria: Sequence[Tuple[str, str]]) -> str:
    names = {key: what for key, _, what in CRITERIA}
    names["usd_per_gib"] = "cost per usable GiB"
    listed = ", ".join(f"{names[k]} ({'lower' if d == 'min' else 'higher'} is better)" for k, d in criteria)
    return (f"Pareto-optimal configurations first (*: no other is at least as good on every criterion and better on "
            f"one; criteria: {listed}), each group by {names[rank_by]}, ties by the other criteria in that order")


# --- text --------------------------------------------------------------------------------------

def text(result: Mapping[str, Any]) -> str:
    """The ranking as a table, the rule above it, skipped configurations and warnings below."""
    from .. import _text_table

    rows = result["rows"]
    completed = sorted({r["requests"] for r in rows})
    ran = (f"; each run completed {completed[0]:,}" if len(completed) == 1
           else f"; runs completed {completed[0]:,} to {completed[-1]:,}")
    lines = [f"Workload: {result['workload']}" + ran,
             f"Drive: {result['drive']}; {len(rows)} configurations in {result['out']}",
             f"Ranked: {result['ranking_rule']}.", ""]
    header = ["rank", "", "level", "members", "stripe unit", "mean ms", "p99 ms", "erases max", "erases mean",
              "max/mean", "usable GiB", "cost USD", "$/GiB"]
    body = [[str(r["rank"]), ("*" if r["pareto"] else "") + ("!" if r["warnings"] else ""), r["level"],
             str(r["members"]), size_text(r["stripe_unit_bytes"]), f"{r['mean_ms']:,.4f}", f"{r['p99_ms']:,.4f}",
             f"{r['max_erases']:,}", f"{r['mean_erases']:,.1f}",
             "-" if r["max_to_mean_erases"] is None else f"{r['max_to_mean_erases']:.2f}",
             f"{r['usable_gib']:,.3f}", "-" if r["cost_usd"] is None else f"{r['cost_usd']:,.2f}",
             "-" if r["usd_per_gib"] is None else f"{r['usd_per_gib']:,.2f}"] for r in rows]
    lines.append(_text_table.render(header, body))
    lines.append("")
    lines.append("* Pareto-optimal; max/mean: how unevenly the members wear (1 = evenly; '-': no erases)"
                 + ("" if result["priced"] else "; cost '-': the drive is not priced (ssd.price_usd)"))
    if rows and all(r["max_erases"] == 0 for r in rows):
        lines.append("No configuration erased a block: erases say nothing here; run longer or fuller (--requests, "
                     "precondition.fill_fraction), or a smaller drive (ssd.geometry.blocks_per_plane)")
    warned = [r for r in rows if r["warnings"]]
    if warned:
        lines += ["", "! Warnings (what the row's figures do not say: a queue, a folded trace, ...):"]
        lines += [f"  {r['rank']} {r['configuration']}: {w}" for r in warned for w in r["warnings"]]
    if result["skipped"]:
        lines += ["", f"Skipped {len(result['skipped'])} configurations the core refuses:"]
        lines += [f"  {s['configuration']}: {s['reason']}" for s in result["skipped"]]
    return "\n".join(lines)
