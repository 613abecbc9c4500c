"""Endurance: how many years until each member's flash reaches its rated P/E cycles.

A flash block survives a rated number of program/erase cycles ``C`` (a
datasheet's figure; the stripe-unit paper, §2.1, quotes up to 10,000 for MLC
and 100,000 for SLC). A run measures how fast the workload spends them.

The projection, for one member (an SSD, or a channel of one for CR5/CR5M):

* ``E`` blocks erased during the run (``devices[i].erases``: measured
  requests only, after any warm-up; preconditioning is not counted);
* ``B`` blocks of the member (the per-block erase counts of the report,
  ``devices[i].erase_count.histogram.counts``, sum to it);
* ``T`` seconds of simulated time (``host.duration_ns / 1e9``).

Erases per block per day::

    r = E / B / (T / 86,400)

Assume the workload repeats back to back, at the run's intensity, for the
drive's whole life, and that the FTL's wear levelling keeps blocks near
their mean: the member reaches its limit when its *mean* block has been
erased ``C`` times, i.e. after ``B * C`` erases in all::

    days to the limit  L = C / r = C * B * T / (E * 86,400)
    years              L / 365.25

from new (zero cycles): the erases of preconditioning set the simulated drive
up, they are no age of the drive. A block that wears faster than the mean
(the report's ``erase_count.max`` against ``mean``) reaches the limit sooner;
``E = 0`` makes ``L`` unbounded, which is said, never printed as a number.
The projection is for the drive as simulated: a drive scaled down to fewer
blocks wears faster under the same workload.

Uneven wear and correlated wear-out. An array that tolerates ``f`` member
failures (RAID-0 none, RAID-4/5 one, RAID-6 two, an n-way RAID-1 n - 1,
RAID-10 ``copies`` - 1) loses data through wear when its ``(f + 1)``-th
member reaches the limit, unless the worn ones were replaced and rebuilt
first. With the members' lives sorted ``L(1) <= L(2) <= ...``, the *window*
``W = L(f+1) - L(1)`` is the time the operator has. Balakrishnan et al.'s
Diff-RAID (cited by the stripe-unit paper, §3, and the RAIS paper, §2)
observes that RAID-5 spreads parity, so every member wears at the same rate
and ``W`` nearly vanishes: members fail together, and a second one can fail
while the first is rebuilt. RAID-4 concentrates parity on one member, which
ages faster (the stripe-unit paper's Figure 12: about twice the erases of a
data member at 128 KiB units), so the window opens. We call the wear-out
*correlated* when ``W`` is below :data:`CORRELATED_WITHIN` of ``L(1)``: a
threshold of ours, printed with the result, since wear-out is no sharp
instant (error rates rise as cycles accrue) and members differ in their
flash. When the report has a rebuild, its duration is set beside ``W``.
"""

from __future__ import annotations

import json
import math
import operator
import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .._native import ConfigError, InputError

SECONDS_PER_DAY = 86_400
DAYS_PER_YEAR = 365.25
#: Members whose lives differ by less than this fraction of the first one's wear out "together".
CORRELATED_WITHIN = 0.10

#: Rated P/E cycles of the presets whose sources say what flash they hold, and where the figure comes
#: from. Only these: a drive whose cell type no source states has no default (``--pe-cycles`` is
#: then required), never a guess.
PRESET_PE_CYCLES: Dict[str, Tuple[int, str]] = {
    "rais-ssd-a": (10_000, "preset rais-ssd-a is MLC (Samsung 51 nm, its source says); the stripe-unit paper, §2.1, "
                           "rates MLC blocks at up to 10,000 erases (5,000 at the low end: an upper bound then)"),
    "rais-ssd-b": (100_000, "preset rais-ssd-b is SLC (IMFT 50 nm, its source says); the stripe-unit paper, §2.1, "
                            "rates SLC blocks at up to 100,000 erases"),
    "rais-ssd-c": (10_000, "preset rais-ssd-c is MLC (its source says); the stripe-unit paper, §2.1, rates MLC blocks "
                           "at up to 10,000 erases (5,000 at the low end: an upper bound then)"),
}

NO_ERASES = "no erases in this run: run longer or fuller (see precondition.fill_fraction)"

ASSUMPTIONS = (
    "the workload repeats back to back, at the run's intensity, for the drive's whole life",
    "wear levelling keeps blocks near their mean: a member is worn out when its mean block reaches the rated cycles",
    "drives start new: preconditioning's erases set the simulation up and are not counted as age",
    "the drive as simulated: one scaled down to fewer blocks wears faster under the same workload",
)

# Member failures an array survives, by level (the core's RaidLevel::tolerates); RAID-1 and RAID-10 are
# computed from the members and copies.
_TOLERATES = {"single": 0, "raid0": 0, "raid4": 1, "raid5": 1, "raid6": 2, "cr5": 1, "cr5m": 1}


def pe_cycles_for(pe_cycles: Optional[int], preset: Optional[str], mixed_members: bool = False) -> Tuple[int, str]:
    """The rated P/E cycles to project with and where the figure comes from.

    ``pe_cycles`` (the user's) wins; else a preset's of :data:`PRESET_PE_CYCLES`. Anything else is an
    error: there is no silent default. ``mixed_members``: the array sets some members' drives apart
    (``array.member_ssd``), so a preset's figure need not hold for them all.
    """
    if pe_cycles is not None:
        if isinstance(pe_cycles, bool) or not isinstance(pe_cycles, int) or pe_cycles < 1:
            raise ConfigError(f"--pe-cycles must be a whole number of cycles, at least 1; got {pe_cycles!r}")
        return pe_cycles, "--pe-cycles"
    if preset in PRESET_PE_CYCLES and not mixed_members:
        return PRESET_PE_CYCLES[preset]
    where = (f"preset {preset} states no flash type" if preset and not mixed_members
             else "array.member_ssd sets members' drives apart" if mixed_members
             else "a report or config file does not say which flash the drive holds")
    known = ", ".join(f"{name} ({cycles:,})" for name, (cycles, _) in PRESET_PE_CYCLES.items())
    raise ConfigError(f"the drive's rated P/E cycles are unknown ({where}): pass --pe-cycles N from its datasheet "
                      f"(the stripe-unit paper, §2.1: MLC up to 10,000, SLC up to 100,000); presets with a "
                      f"known figure: {known}")


def load_report(path: str | os.PathLike) -> Dict[str, Any]:
    """A report as ``raidsim run --json`` prints it (or ``report.json`` of ``--out``)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except json.JSONDecodeError as e:
        raise InputError(f"{os.fspath(path)}: not a JSON report (line {e.lineno}: {e.msg}); "
                         "write one with `raidsim run ... --json > r.json`") from None
    if not isinstance(data, dict) or not {"host", "devices"} <= data.keys():
        raise InputError(f"{os.fspath(path)}: not a raidsim report (no `host` and `devices`); "
                         "write one with `raidsim run ... --json > r.json`")
    check_report(data, os.fspath(path))
    return data


def project(report: Mapping[str, Any], pe_cycles: int, pe_source: str = "given",
            copies: Optional[int] = None, *, origin: str = "the report") -> Dict[str, Any]:
    """Years to the P/E limit per member, and how near together the members reach it (see the module doc).

    ``copies``: RAID-10's copies, which a report does not hold; without it, the members' capacity over
    the array's (each byte is kept ``copies`` times), else 2 (md's and the core's default), said in the notes.
    ``origin`` names the report in errors (its file).
    """
    check_report(report, origin)
    try:
        return _project(report, pe_cycles, pe_source, copies)
    except (KeyError, TypeError) as e:  # check_report missed a value: still a message, not a traceback
        raise InputError(f"{origin} lacks a value the projection needs ({type(e).__name__}: {e}); "
                         "is it `raidsim run --json` output?") from None


# --- checking a report ---------------------------------------------------------------------------

_COUNT = "a count >= 0"
_NS = "a duration in ns >= 0"
_NUMBER = "a number >= 0"


def check_report(report: Any, origin: str) -> None:
    """Checks every value the projection reads, so that an impossible one (a negative count, NaN,
    Infinity, text, a missing key: a report edited by hand or cut short) is an :class:`InputError`
    naming ``origin``, the key's path, the value and what was expected, never a negative life."""
    c = _Check(origin)
    if not isinstance(report, Mapping):
        raise InputError(f"{origin}: not a raidsim report (a table with `host` and `devices`)")
    c.get(c.get(report, "host", "host", "a table", _is_table), "duration_ns", "host.duration_ns", _NS, _is_number)
    devices = c.get(report, "devices", "devices", "a list of device tables", _is_list)
    for i, device in enumerate(devices):
        _check_device(c, c.item(device, f"devices[{i}]", "a device table", _is_table), f"devices[{i}]")
    array = c.get(report, "array", "array", "a table, or null for a single drive", _is_table, optional=True)
    if array is not None:
        c.get(array, "level", "array.level", "a RAID level's name", _is_text, optional=True)
        c.get(array, "capacity_bytes", "array.capacity_bytes", _COUNT, _is_count, optional=True)
    rebuild = c.get(report, "rebuild", "rebuild", "a table, or null", _is_table, optional=True)
    if rebuild is not None:
        c.get(rebuild, "duration_ns", "rebuild.duration_ns", _NS, _is_number, optional=True)
        failures = c.get(rebuild, "failures", "rebuild.failures", "a list of failures", _is_list, optional=True)
        for j, f in enumerate(failures or []):
            where = f"rebuild.failures[{j}]"
            c.item(f, where, "a failure's table", _is_table)
            c.get(f, "member", f"{where}.member", "a member's number >= 0", _is_count)
            c.get(f, "at_ns", f"{where}.at_ns", _NS, _is_number)
            c.get(f, "spare", f"{where}.spare", "a device's number >= 0, or null", _is_count, optional=True)


def _check_device(c: "_Check", device: Mapping[str, Any], where: str) -> None:
    c.get(device, "name", f"{where}.name", "a device's name", _is_text)
    c.get(device, "capacity_bytes", f"{where}.capacity_bytes", _COUNT, _is_count, optional=True)
    spread = c.get(device, "erase_count", f"{where}.erase_count", "a table, or null for a disk", _is_table,
                   optional=True)
    if spread is None:
        return  # a disk: the projection refuses it by name (a spare's is left out)
    c.get(device, "erases", f"{where}.erases", _COUNT, _is_count)
    c.get(spread, "mean", f"{where}.erase_count.mean", _NUMBER, _is_number)
    c.get(spread, "max", f"{where}.erase_count.max", _NUMBER, _is_number)
    histogram = c.get(spread, "histogram", f"{where}.erase_count.histogram", "a table", _is_table)
    counts = c.get(histogram, "counts", f"{where}.erase_count.histogram.counts", "a list of counts", _is_list)
    for k, n in enumerate(counts):
        c.item(n, f"{where}.erase_count.histogram.counts[{k}]", _COUNT, _is_count)


class _Check:
    """Reads a value at a key path and checks it, raising an InputError that names the report and the path."""

    def __init__(self, origin: str):
        self.origin = origin

    def get(self, table: Mapping[str, Any], key: str, path: str, expected: str, ok: Any,
            optional: bool = False) -> Any:
        """``table[key]``, checked; an optional key may be absent or null (then None)."""
        if key not in table or (optional and table[key] is None):
            if optional:
                return None
            raise InputError(f"{self.origin}: {path} is missing: expected {expected}")
        return self.item(table[key], path, expected, ok)

    def item(self, value: Any, path: str, expected: str, ok: Any) -> Any:
        if not ok(value):
            if isinstance(value, (int, float)) and not isinstance(value, bool) and _LIMIT <= value < math.inf:
                expected += ", below 2**64"
            shown = json.dumps(value, default=repr)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise InputError(f"{self.origin}: {path} = {shown}: expected {expected}")
        return value


# The core's counters and durations are 64-bit: a value past them was not written by a run (and would
# overflow the projection's floats).
_LIMIT = 2**64


def _is_number(v: Any) -> bool:
    # JSON's NaN and Infinity parse as floats; a bool is no number here.
    if isinstance(v, float):
        return math.isfinite(v) and 0 <= v < _LIMIT
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < _LIMIT


def _is_count(v: Any) -> bool:
    return _is_number(v) and (isinstance(v, int) or v.is_integer())


def _is_table(v: Any) -> bool:
    return isinstance(v, Mapping)


def _is_list(v: Any) -> bool:
    return isinstance(v, list)


def _is_text(v: Any) -> bool:
    return isinstance(v, str)


def _project(report: Mapping[str, Any], pe_cycles: int, pe_source: str, copies: Optional[int]) -> Dict[str, Any]:
    seconds = _run_seconds(report)
    members = [_member(d, pe_cycles, seconds) for d in report["devices"] if not str(d["name"]).startswith("spare[")]
    if not members:
        raise InputError("the report has no member devices")
    level = str((report.get("array") or {}).get("level", "single"))
    # The run's own warnings (a folded trace, saturation) qualify every projection made from it.
    notes = [f"the run warned: {w}" for w in report.get("warnings", []) if isinstance(w, str)] + _failure_notes(report)
    if level == "raid10" and copies is None:
        copies = _raid10_copies(report)
        if copies is None:
            copies = 2
            notes.append("the report does not say how many copies RAID-10 keeps (its capacities do not tell): "
                         "assumed 2, md's default; project from the config (--preset/--config, --set) for its own")
    tolerated = _tolerated(level, len(members), copies)
    result: Dict[str, Any] = {
        "pe_cycles": pe_cycles, "pe_cycles_source": pe_source, "level": level, "run_seconds": seconds,
        "members": members, "spares_left_out": sum(str(d["name"]).startswith("spare[") for d in report["devices"]),
        "tolerated_failures": tolerated, "assumptions": list(ASSUMPTIONS), "correlated_within": CORRELATED_WITHIN,
        "no_erases": all(m["erases"] == 0 for m in members),
        "rebuild_seconds": _rebuild_seconds(report), "notes": notes,
    }
    result.update(_wear_out_window(members, tolerated))
    return result


def _run_seconds(report: Mapping[str, Any]) -> float:
    duration_ns = report["host"]["duration_ns"]
    if not duration_ns or duration_ns <= 0:
        raise InputError("the run simulated no time (no request completed): there is no erase rate to project")
    return duration_ns / 1e9


def _member(device: Mapping[str, Any], pe_cycles: int, seconds: float) -> Dict[str, Any]:
    name = device["name"]
    spread = device.get("erase_count")
    if spread is None:
        raise InputError(f"device {name} is a disk, not an SSD: it has no P/E limit")
    blocks = sum(spread["histogram"]["counts"])
    if blocks <= 0:
        raise InputError(f"device {name}: the report counts no blocks (erase_count.histogram is empty)")
    erases = int(device["erases"])
    rate = erases / blocks / (seconds / SECONDS_PER_DAY)
    years = None if erases == 0 else pe_cycles / rate / DAYS_PER_YEAR
    # The spread inside the member (preconditioning included): how far its worst block is ahead of its mean.
    worst_to_mean = spread["max"] / spread["mean"] if spread["mean"] > 0 else None
    return {"name": name, "erases": erases, "blocks": blocks, "erases_per_block_per_day": rate,
            "years_to_limit": years, "worst_block_to_mean": worst_to_mean}


def _raid10_copies(report: Mapping[str, Any]) -> Optional[int]:
    """RAID-10's copies from a saved report, which does not hold them: its members' capacity over the
    array's (each byte is stored ``copies`` times); None when that is no whole number of at least 2."""
    capacity = (report.get("array") or {}).get("capacity_bytes")
    sizes = [d.get("capacity_bytes") for d in report["devices"] if not str(d["name"]).startswith("spare[")]
    if not isinstance(capacity, (int, float)) or capacity <= 0 or not all(isinstance(b, (int, float)) for b in sizes):
        return None
    ratio = sum(sizes) / capacity
    copies = round(ratio)
    return copies if copies >= 2 and abs(ratio - copies) < 0.01 else None


def _tolerated(level: str, members: int, copies: Optional[int]) -> int:
    if level == "raid1":
        return members - 1
    if level == "raid10":
        return (copies or 2) - 1
    if level not in _TOLERATES:
        known = ", ".join([*_TOLERATES, "raid1", "raid10"])
        raise InputError(f"unknown array level {level!r} in the report; known: {known}")
    return _TOLERATES[level]


def _wear_out_window(members: List[Mapping[str, Any]], tolerated: int) -> Dict[str, Any]:
    """First member's years to the limit, the (f+1)-th's (data lost to wear), the window between them."""
    lives = sorted(math.inf if m["years_to_limit"] is None else m["years_to_limit"] for m in members)
    first = lives[0]
    # An array of fewer members than it tolerates failures (RAID-1 of one) never loses data to wear alone.
    loss = lives[tolerated] if tolerated < len(lives) else math.inf
    out: Dict[str, Any] = {"first_limit_years": _finite(first), "data_loss_years": _finite(loss),
                           "window_years": None, "window_fraction": None, "correlated": None}
    if tolerated == 0 or math.isinf(first):
        return out  # no redundancy: the first worn member loses data; or nothing wears at all
    if math.isinf(loss):
        return out  # the members past the first do not wear: no second wear-out to correlate with
    window = loss - first
    out.update(window_years=window, window_fraction=window / first, correlated=window < CORRELATED_WITHIN * first)
    return out


def _finite(years: float) -> Optional[float]:
    return None if math.isinf(years) else years


def _failure_notes(report: Mapping[str, Any]) -> List[str]:
    """A member that failed in the run stopped erasing then, and its spare started: both rates cover part
    of the run, so their lives are not those of a member that served it all."""
    names = [d["name"] for d in report["devices"]]
    notes = []
    for f in (report.get("rebuild") or {}).get("failures", []):
        member = f"member[{f['member']}]"
        spare = f.get("spare")
        took = (f" and {names[spare]} took its place" if spare is not None and 0 <= spare < len(names)
                and f.get("chip") is None else "")
        notes.append(f"{member} failed {f['at_ns'] / 1e9:,.3f} s into the run{took}: its erases cover part of the "
                     f"run, so {member}'s time to the limit is not comparable (project a run without failures)")
    return notes


def _rebuild_seconds(report: Mapping[str, Any]) -> Optional[float]:
    rebuild = report.get("rebuild") or {}
    ns = rebuild.get("duration_ns")
    return None if ns is None else ns / 1e9


# --- the reliability study's inputs ----------------------------------------------------------

#: The array levels a reliability study takes, by the report's name.
_RELIABILITY_LEVELS = {"raid0": "raid0", "raid1": "raid1", "raid4": "raid5", "raid5": "raid5", "raid6": "raid6",
                       "raid10": "raid10"}


def reliability_inputs(report: Mapping[str, Any], pe_cycles: int, duty_cycle: float = 1.0,
                       copies: Optional[int] = None, *, origin: str = "the report",
                       capacity_bytes: Optional[int] = None) -> Tuple[Dict[str, Any], List[str]]:
    """A reliability study's keys from a run, and notes on them: the level, the members and their capacity,
    each member slot's hours to its rated P/E cycles (``wear_out_hours``: the projection above, the workload
    running ``duty_cycle`` of the time; a slot whose member failed counts its spare's erases too), and, when
    the run rebuilt, each rebuild's mean hours from failure to redundancy restored. Refused: a run with no
    erases, a failed member without a spare (its slot's wear is not measured), RAID-10 whose copies neither
    the report nor ``copies`` tells.

    ``capacity_bytes``: the members' real capacity, the run's drives taken as scaled-down copies of them
    (the same channels and dies, fewer blocks). The hours to wear out and to rebuild then grow by its ratio to
    the run's member capacity: the same write rate and write amplification spread over more blocks, the same
    rebuild rate over more bytes."""
    if not 0 < duty_cycle <= 1:
        raise ConfigError(f"config error at `duty_cycle`: {duty_cycle} must lie in (0, 1]")
    if capacity_bytes is not None:
        capacity_bytes = _whole_bytes(capacity_bytes)
    check_report(report, origin)
    level_name = str((report.get("array") or {}).get("level", "single"))
    level = _RELIABILITY_LEVELS.get(level_name)
    if level is None:
        raise InputError(f"{origin}: a {level_name} run; a reliability study takes RAID-0, 1, 4, 5, 6 or 10 of "
                         "drives (one drive, or RAID inside one SSD, is not modelled)")
    devices = list(report["devices"])
    members = [d for d in devices if not str(d["name"]).startswith("spare[")]
    seconds = _run_seconds(report)
    erases = [int(d["erases"]) for d in members]
    for f in (report.get("rebuild") or {}).get("failures", []):
        if f.get("chip") is not None:
            continue
        spare = f.get("spare")
        if spare is None:
            raise InputError(f"{origin}: member[{f['member']}] failed and no spare took its place, so its slot's wear "
                             "is not measured; give a run without failures (and rebuild_hours from the failure run)")
        erases[f["member"]] += int(devices[spare]["erases"])  # the slot's wear: its member's, then its spare's
    if not any(erases):
        raise InputError(f"{origin}: {NO_ERASES}")
    hours = []
    for d, e in zip(members, erases):
        blocks = _member(d, pe_cycles, seconds)["blocks"]
        hours.append(0.0 if e == 0 else pe_cycles * blocks * seconds / e / 3600 / duty_cycle)
    capacities = [d.get("capacity_bytes") for d in members]
    if not all(isinstance(c, int) and c > 0 for c in capacities):
        raise InputError(f"{origin}: devices[].capacity_bytes: each member's capacity in bytes is needed")
    params: Dict[str, Any] = {"level": level, "members": len(members), "member_capacity_bytes": min(capacities),
                              "wear_out_hours": hours}
    if level == "raid10":
        copies = copies or _raid10_copies(report)
        if copies is None:
            raise InputError(f"{origin}: the report does not say how many copies RAID-10 keeps (its capacities do not "
                             "tell): give them with --set copies=N")
        params["copies"] = copies
    notes = [f"the run warned: {w}" for w in report.get("warnings", []) if isinstance(w, str)]
    rebuilt = whole_rebuild_hours(report)
    if rebuilt:
        params["rebuild_hours"] = sum(rebuilt) / len(rebuilt)
        notes.append(f"rebuild_hours {params['rebuild_hours']:.6g}: the mean of the run's {len(rebuilt)} rebuild(s), "
                     "each from its member's failure to its redundancy restored, on the drive as simulated")
    if capacity_bytes is not None:
        scale = capacity_bytes / params["member_capacity_bytes"]
        params["wear_out_hours"] = [h * scale for h in params["wear_out_hours"]]
        if "rebuild_hours" in params:
            params["rebuild_hours"] *= scale
        params["member_capacity_bytes"] = capacity_bytes
        notes.append(f"members of {capacity_bytes:,} bytes, the run's of {min(capacities):,} scaled up {scale:,.6g}×: "
                     "hours to wear out and to rebuild grow by as much (the same write rate, write amplification and "
                     "rebuild rate)")
    return params, notes


def whole_rebuild_hours(report: Mapping[str, Any]) -> List[float]:
    """Each whole rebuild of a run, hours from its member's (or chip's) failure to its redundancy restored. A
    rebuild that gave up stripes to a second failure ended early, and one the run did not finish has no end:
    both are left out."""
    return [(f["rebuild_end_ns"] - f["at_ns"]) / 3.6e12 for f in (report.get("rebuild") or {}).get("failures", [])
            if f.get("rebuild_end_ns") is not None and not f.get("stripes_given_up")]


def _whole_bytes(value: Any) -> int:
    """``value`` as a whole number of bytes > 0 (a numpy integer too; not a bool, not a float)."""
    try:
        n = operator.index(value) if not isinstance(value, bool) else None
    except TypeError:
        n = None
    if n is None or n <= 0:
        raise ConfigError(f"config error at `capacity_bytes`: {value!r} must be a whole number of bytes > 0")
    return n


#: Hours in a year of 365.25 days (the reliability study's year).
HOURS_PER_YEAR = DAYS_PER_YEAR * 24


# --- text --------------------------------------------------------------------------------------

def text(result: Mapping[str, Any]) -> str:
    """The projection as a person reads it: a table per member, then the window and the assumptions."""
    from .. import _text_table

    lines = [f"Rated P/E cycles {result['pe_cycles']:,} ({result['pe_cycles_source']}); "
             f"run of {result['run_seconds']:,.3f} s simulated", ""]
    if result["no_erases"]:
        return "\n".join(lines + [NO_ERASES])
    header = ["member", "erases", "blocks", "erases/block/day", "to the limit", "worst block/mean"]
    body = [[m["name"], f"{m['erases']:,}", f"{m['blocks']:,}", f"{m['erases_per_block_per_day']:,.6g}",
             "unbounded (no erases)" if m["years_to_limit"] is None else life_text(m["years_to_limit"]),
             "-" if m["worst_block_to_mean"] is None else f"{m['worst_block_to_mean']:.2f}"]
            for m in result["members"]]
    lines.append(_text_table.render(header, body))
    if result["spares_left_out"]:
        lines.append(f"({result['spares_left_out']} hot spare(s) left out: a spare holds no data until a rebuild)")
    lines += [f"Note: {n}" for n in result["notes"]]
    lines += ["", *_window_text(result), "", "Assumptions:", *(f"- {a}" for a in result["assumptions"])]
    return "\n".join(lines)


def life_text(years: float) -> str:
    """A time to the limit in the unit that reads best: years, else days, else hours."""
    days = years * DAYS_PER_YEAR
    if years >= 1:
        return f"{years:,.2f} years"
    if days >= 1:
        return f"{days:,.1f} days"
    return f"{days * 24:,.2f} hours"


def _window_text(r: Mapping[str, Any]) -> List[str]:
    life = lambda y: "never (it erased nothing)" if y is None else life_text(y)  # noqa: E731
    lives = [m["years_to_limit"] for m in r["members"] if m["years_to_limit"] is not None]
    f = r["tolerated_failures"]
    if r["level"] == "single":
        return [f"One drive: data is lost when it wears out, in {life(r['first_limit_years'])}"]
    out = [f"To the limit across members: {life_text(min(lives))} to {life_text(max(lives))}"
           + (f" (the last {max(lives) / min(lives):.2f} x the first)" if len(lives) > 1 else "")]
    if f == 0:
        return out + [f"{r['level'].upper()} keeps no redundancy: data is lost when the first member wears out, "
                      f"in {life(r['first_limit_years'])}"]
    out.append(f"{r['level'].upper()} survives {f} failed member{'s' if f > 1 else ''}: the first member reaches "
               f"its limit in {life(r['first_limit_years'])}, the {_ordinal(f + 1)} (data lost unless the worn "
               f"ones were replaced) in {life(r['data_loss_years'])}")
    if r["window_years"] is None:
        return out + [f"the {_ordinal(f + 1)} member erased nothing in this run: no correlated wear-out to weigh"]
    days = r["window_years"] * DAYS_PER_YEAR
    verdict = (f"CORRELATED wear-out: within {CORRELATED_WITHIN:.0%} of the first's life (Diff-RAID's warning for "
               "evenly worn arrays: members fail together, one may fail while another is rebuilt)"
               if r["correlated"] else
               f"staggered wear-out: more than {CORRELATED_WITHIN:.0%} of the first's life apart (the uneven, "
               "Diff-RAID-like case: one member is replaced well before the next wears out)")
    out.append(f"window between them: {life_text(r['window_years'])} ({r['window_fraction']:.1%} of the first's "
               f"life): {verdict}")
    if r["rebuild_seconds"] is not None:
        out.append(f"the run's rebuild took {r['rebuild_seconds']:,.3f} s of simulated time "
                   f"({'longer' if r['rebuild_seconds'] > days * SECONDS_PER_DAY else 'shorter'} than the window)")
    return out


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")
