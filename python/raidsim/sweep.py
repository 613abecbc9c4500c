"""Studies: a base config, cases, sweep axes and the metrics to keep, as data.

A study spec is TOML::

    name = "my-study"           # names raidsim-out/<name>: letters, digits, - _ . (not starting with .)
    title = "..."               # optional, as is scaled_down (a note the demo prints)
    metrics = ["host.response.mean_ns", "array.erases"]   # report paths: the columns kept
    [base]                      # a config table; `preset = "..."` starts from a preset
    preset = "stripe-unit-table5"
    [[cases]]                   # optional named settings, crossed with the axes
    name = "raid5"              # (`axes = false`: the case runs once, without them)
    set = { "array.level" = "raid5", "array.members" = 5 }
    [axes]                      # cartesian product over dotted config keys
    "array.stripe_unit_bytes" = [4096, 65536]
    replicates = 5              # optional: each point runs with seeds sim.seed, sim.seed + 1, ...;
                                # summary.csv gives mean, deviation and 95 % interval per point
    description = "..."         # optional prose for the report page
    [[plots]]                   # optional figures: figures/<name>.png and .svg
    x = "array.stripe_unit_bytes"   # an axis
    y = "host.response.mean_ns"     # a metric (a list metric: series = "member", or `name[3]`)
    series = "case"             # or "member" or an axis; also facet, where, logx, logy, xunit, yunit, labels
    [[tables]]                  # optional tables: tables/<name>.csv
    columns = ["case", "array.stripe_unit_bytes", "host.response.mean_ns"]

Any other key, at the top or in a case, is an error naming it, as is a
metric of the same name as a setting (both would be one column), a case's
setting that an axis sets too (the axis would override it), and so is
a plot or table naming what the study does not have
(:mod:`raidsim.study_plots` has their keys). A metric a point's report lacks
(``array.*`` of a single SSD) is an empty cell.

A study that declares plots or tables gets a report (:mod:`raidsim.study_report`):
its figures, its tables and ``report.html`` with the workload, every
warning and each point's resolved config; ``raidsim sweep`` writes the page
for any study.

:func:`run_study` runs every point in parallel processes (default one per
core) or on a Ray cluster. Results are meant to be trusted after any
interruption:

* each finished point is appended to ``points.jsonl`` at once (one
  checksummed line, fsynced), so a kill loses at most the points running;
* a point is reused only if its *fingerprint* -- the resolved config, the
  trace file's identity, the metrics and the raidsim build -- is unchanged;
  failed, changed and damaged points run again;
* a failing point is recorded (``status`` = ``failed`` with its ``error``)
  and the others still run; :class:`PointsFailed` is raised at the end;
* ``results.csv`` (ordered as the points are) and ``results.parquet`` are
  rebuilt from the journal, each replaced atomically, as are their long
  forms ``results_long.csv`` and ``results_long.parquet`` (one row per point,
  metric and member: :mod:`raidsim.long_results`) and the report; each
  point's resolved config goes to ``configs/``;
* one sweep at a time may write an output directory (an exclusive lock),
  and a directory holds one study's points: another study's sweep into it
  is refused (:class:`AnotherStudysResults`) unless ``overwrite=True``;
* a file that cannot be written (a full disk) stops the sweep with
  :class:`SweepIOError` naming it, the journal kept for a rerun.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import difflib
import fcntl
import functools
import hashlib
import itertools
import json
import multiprocessing
import os
import stat
import re
import signal
import sys
import threading
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

from . import _native, _progress, replicates, study_plots
# Defined apart so that the CLI can catch them without importing this module; they are this module's.
from ._atomic import named, replace_atomically
from ._sweep_errors import (AnotherStudysResults, PointsFailed, StudyError, SweepError, SweepIOError,  # noqa: F401
                            SweepLocked, check_keys)
from .config import Config
from .workload import Workload

if TYPE_CHECKING:
    # Imported where the tables are written: reading a spec, and each worker process running points,
    # need no pandas (issue #14).
    import pandas as pd

JOURNAL = "points.jsonl"
LOCK = ".sweep.lock"

# Report causes as `Cause::name` spells them (crates/raidsim-core/src/device/mod.rs). Reports omit
# causes with no pages, so no small run can list them all; a test keeps this list in step.
CAUSES = ("user", "pre_read_rmw", "pre_read_rcw", "parity", "mirror", "gc_read", "gc_write", "erase",
          "degraded_read", "rebuild_read", "rebuild_write", "partial_page_read", "rebuild_copy_read")

# The keys a study spec may have, at its top level and in each [[cases]] table. `catalog`: a packaged
# reproduction's entry in the catalog (raidsim/catalog.py checks it; a sweep does not read it).
STUDY_KEYS = ("name", "title", "scaled_down", "base", "cases", "axes", "metrics", "replicates", "catalog",
              "description", "plots", "tables")
# The most replicates a study may ask for (each is a whole run of every point).
MAX_REPLICATES = 1000
CASE_KEYS = ("name", "set", "axes")
# Columns of results.csv besides the settings and the metrics.
RESERVED_COLUMNS = ("point_id", "case", "status", "error", "fingerprint")
# A study's name names its output directory (raidsim-out/<name>): one plain path component.
_NAME_RULE = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*\Z")
_NAME_RULE_TEXT = ("a single plain path component: letters, digits, '-', '_' and '.', not starting with a dot, "
                   "at most 255 characters")
# What a journal row's values mean; part of each point's fingerprint, so rows of an older meaning are
# recomputed. 2: a metric absent from a point's report is null (NaN), no longer 0. 3: a row holds the
# point's warnings (saturation, wrapped requests) for the report page. 4: response times of a class
# nothing measured (writes of a read-only run) are null, no longer 0.
_VALUES_FORMAT = 4

# Two requests: enough for a report with every section a config produces, in milliseconds.
_PROBE_WORKLOAD = Workload.requests([(0, "W", 0, 4096), (0, "R", 0, 4096)])


@dataclass
class Point:
    """One point of a study: a case name and dotted-key settings."""

    case: str
    settings: Dict[str, Any]

    @property
    def point_id(self) -> str:
        """Names the point (and its file in ``configs/``); whether its row is current is the fingerprint's job."""
        text = json.dumps({"case": self.case, "settings": self.settings}, sort_keys=True)
        return hashlib.sha1(text.encode()).hexdigest()[:12]

    @property
    def label(self) -> str:
        return f"{self.case} {self.settings}".strip()


@dataclass
class Study:
    """A study spec."""

    name: str
    base: Dict[str, Any]
    metrics: List[str]
    axes: Dict[str, List[Any]] = field(default_factory=dict)
    cases: List[Dict[str, Any]] = field(default_factory=list)
    title: str = ""
    spec: Dict[str, Any] = field(default_factory=dict)
    replicates: int = 1
    description: str = ""
    plots: List[study_plots.PlotSpec] = field(default_factory=list)
    tables: List[study_plots.TableSpec] = field(default_factory=list)
    origin: str = "<spec>"  # the spec's file (or packaged name), for messages

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any], origin: str = "<spec>") -> "Study":
        _check_spec(spec, origin)
        if "name" in spec:
            name = _check_name(spec["name"], origin, "`name`")
        else:
            derived = "study" if origin == "<spec>" else os.path.splitext(os.path.basename(origin))[0]
            name = _check_name(derived, origin, "the study's name (the file's, as the spec sets no `name`)",
                               "; or set `name = \"...\"` in the spec")
        return cls(name=name, base=dict(spec.get("base", {})),
                   metrics=list(spec["metrics"]), axes=dict(spec.get("axes", {})), cases=list(spec.get("cases", [])),
                   title=spec.get("title", ""), spec=dict(spec), replicates=spec.get("replicates", 1),
                   description=spec.get("description", ""), plots=study_plots.check_plots(spec, origin),
                   tables=study_plots.check_tables(spec, origin), origin=origin)

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "Study":
        with open(path, "rb") as f:
            try:
                spec = tomllib.load(f)
            except tomllib.TOMLDecodeError as e:
                raise StudyError(f"{os.fspath(path)}: not valid TOML: {e}") from None
        return cls.from_dict(spec, os.fspath(path))

    @classmethod
    def packaged(cls, name: str) -> "Study":
        return cls.from_dict(packaged_spec(name), name)

    def points(self) -> List[Point]:
        points = self._points_once()
        if self.replicates == 1:
            return points
        seed = self.config(points[0]).resolved()["sim"]["seed"] if points else 1
        return [Point(p.case, {**p.settings, "sim.seed": seed + r}) for p in points for r in range(self.replicates)]

    def _points_once(self) -> List[Point]:
        cases = self.cases or [{"name": "", "set": {}}]
        keys = list(self.axes)
        out = []
        for case in cases:
            if case.get("axes", True) is False:
                # A case that does not depend on the axes (a single drive among arrays) runs once.
                out.append(Point(case["name"], dict(case.get("set", {}))))
                continue
            for values in itertools.product(*(self.axes[k] for k in keys)):
                settings = dict(case.get("set", {}))
                settings.update(zip(keys, values))
                out.append(Point(case["name"], settings))
        return out

    def config(self, point: Point) -> Config:
        base = dict(self.base)
        preset = base.pop("preset", None)
        cfg = Config.preset(preset) if preset else Config()
        return Config(cfg.layers + Config.from_dict(base).layers).with_overrides(point.settings)


def _check_spec(spec: Mapping[str, Any], origin: str) -> None:
    """Checks the spec's shape, so a mistake is a message naming the key rather than a traceback later."""
    check_keys(spec, STUDY_KEYS, f"{origin}:", "study key")
    metrics = spec.get("metrics")
    if not isinstance(metrics, list) or not metrics or not all(isinstance(m, str) for m in metrics):
        raise StudyError(f"{origin}: a study needs `metrics`, a list of dotted report paths, e.g. [\"host.iops\"]")
    for key in ("title", "scaled_down", "description"):
        if not isinstance(spec.get(key, ""), str):
            raise StudyError(f"{origin}: `{key}` must be a string, got {spec[key]!r}")
    base = spec.get("base", {})
    if not isinstance(base, dict):
        raise StudyError(f"{origin}: `base` must be a table (a config), got {base!r}")
    if not isinstance(base.get("preset", ""), str):
        raise StudyError(f"{origin}: `base.preset` must be a preset's name (a string; see `raidsim presets`), "
                         f"got {base['preset']!r}")
    _check_toml_values(base, f"{origin}: `base`")
    _check_replicates(spec, origin)
    _check_axes(spec.get("axes", {}), origin)
    _check_cases(spec.get("cases", []), origin)
    _check_case_axes(spec.get("cases", []), spec.get("axes", {}), origin)
    _check_columns(metrics, spec.get("axes", {}), spec.get("cases", []), origin)


def _check_replicates(spec: Mapping[str, Any], origin: str) -> None:
    n = spec.get("replicates", 1)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_REPLICATES:
        raise StudyError(f"{origin}: `replicates` must be a whole number from 1 to {MAX_REPLICATES}, got {n!r}")
    seeded = "sim.seed" in spec.get("axes", {}) or any("sim.seed" in c.get("set", {}) for c in spec.get("cases", [])
                                                        if isinstance(c, dict) and isinstance(c.get("set", {}), dict))
    if n > 1 and seeded:
        raise StudyError(f"{origin}: `replicates` sets sim.seed itself (sim.seed, sim.seed + 1, ...): "
                         "set the first seed in [base.sim], not in an axis or a case")


def _check_name(name: Any, origin: str, what: str, hint: str = "") -> str:
    if not isinstance(name, str):
        raise StudyError(f"{origin}: {what} must be a string ({_NAME_RULE_TEXT}), got {name!r}")
    if not _NAME_RULE.match(name) or len(name) > 255:
        raise StudyError(f"{origin}: {what} {name!r} is not a study name: it names the output directory, "
                         f"so it must be {_NAME_RULE_TEXT}{hint}")
    return name


def _check_toml_values(value: Any, where: str) -> None:
    """Refuses values a config cannot hold (TOML dates and times), naming where they are."""
    try:
        json.dumps(value)
    except (TypeError, ValueError) as e:
        raise StudyError(f"{where} holds a value that is no config value ({e}); "
                         "config values are numbers, strings, booleans, arrays and tables") from None


def _check_columns(metrics: Sequence[str], axes: Mapping[str, Any], cases: Sequence[Mapping[str, Any]],
                   origin: str) -> None:
    """A metric column of the same name as a setting's (or a fixed column) would overwrite it in the rows."""
    settings = set(axes).union(*(case.get("set", {}) for case in cases))
    reserved = sorted(settings & set(RESERVED_COLUMNS))
    if reserved:
        raise StudyError(f"{origin}: setting `{reserved[0]}` has the name of a results column "
                         f"({', '.join(RESERVED_COLUMNS)})")
    for metric in metrics:
        if metric in settings or metric in RESERVED_COLUMNS:
            source = "a results column" if metric in RESERVED_COLUMNS else "an axis or a case's setting"
            raise StudyError(f"{origin}: metric `{metric}` has the name of {source}, and both would be the "
                             f"column `{metric}` of results.csv, one overwriting the other; drop one of them")


def _check_axes(axes: Any, origin: str) -> None:
    if not isinstance(axes, dict):
        raise StudyError(f"{origin}: `axes` must be a table of dotted keys to lists of values, got {axes!r}")
    for key, values in axes.items():
        if not isinstance(values, list) or not values:
            raise StudyError(f"{origin}: axis `axes.\"{key}\"` must be a non-empty list of values, "
                             f"e.g. [4096, 65536]; got {values!r}")
        _check_toml_values(values, f"{origin}: axis `axes.\"{key}\"`")
        if len({json.dumps(v, sort_keys=True) for v in values}) < len(values):  # two points of one name
            raise StudyError(f"{origin}: axis `axes.\"{key}\"` lists a value twice: {values!r}")


def _check_cases(cases: Any, origin: str) -> None:
    if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
        raise StudyError(f"{origin}: `cases` must be an array of tables ([[cases]]), got {cases!r}")
    seen: Set[str] = set()
    for i, case in enumerate(cases):
        where = f"{origin}: cases[{i}]"
        if not isinstance(case.get("name"), str):
            raise StudyError(f"{where} needs a name (a string)")
        where += f" (`{case['name']}`)"
        check_keys(case, CASE_KEYS, f"{where}:", "key")
        if case["name"] in seen:  # two cases of one name would share their points' rows
            raise StudyError(f"{where}: another case has this name")
        seen.add(case["name"])
        if not isinstance(case.get("set", {}), dict):
            raise StudyError(f"{where}: `set` must be a table of dotted keys to values, "
                             f"e.g. {{ \"array.level\" = \"raid5\" }}; got {case['set']!r}")
        _check_toml_values(case.get("set", {}), f"{where}: `set`")
        if not isinstance(case.get("axes", True), bool):
            raise StudyError(f"{where}: `axes` must be true or false, got {case['axes']!r}")


def _check_case_axes(cases: Sequence[Mapping[str, Any]], axes: Mapping[str, List[Any]], origin: str) -> None:
    """Refuses a case setting a key that an axis sets too: the axis, applied after, would override the
    case's value in each of its points, silently. A key clashes with a key under it, too
    (``workload`` = {...} and ``workload.requests``); a case with ``axes = false`` runs without the axes."""
    axis_keys = {leaf: axis for axis, values in axes.items() for v in values for leaf, _ in _leaves(axis, v)}
    for i, case in enumerate(cases):
        if case.get("axes", True) is False:
            continue
        for key, value in case.get("set", {}).items():
            for leaf, v in _leaves(key, value):
                axis = next((a for k, a in axis_keys.items() if _overlaps(leaf, k)), None)
                if axis is not None:
                    raise StudyError(
                        f"{origin}: cases[{i}] (`{case['name']}`): `set` gives `{leaf}` = {json.dumps(v)}, which "
                        f"the axis `axes.\"{axis}\"` = {json.dumps(axes[axis])} also sets, overriding the case's "
                        "value in each of its points; drop one of them (or give the case `axes = false` to run it "
                        "once, without the axes)")


def _leaves(key: str, value: Any) -> List[Tuple[str, Any]]:
    """The dotted keys a setting sets, with their values: a table sets each of its values."""
    if isinstance(value, dict) and value:
        return [leaf for k, v in value.items() for leaf in _leaves(f"{key}.{k}", v)]
    return [(key, value)]


def _overlaps(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def override_settings(overrides: Sequence[str]) -> Dict[str, Any]:
    """``["key=value", ...]`` as settings for a study's cases; values read as TOML, else as text.

    >>> override_settings(["hdd.interface_sector_transfer_ns=0", "array.layout=left_symmetric"])
    {'hdd.interface_sector_transfer_ns': 0, 'array.layout': 'left_symmetric'}
    """
    out: Dict[str, Any] = {}
    for text in overrides:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise StudyError(f"an override must look like `dotted.key=value`, got {text!r}")
        try:
            out[key.strip()] = tomllib.loads(f"v = {value.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            out[key.strip()] = value.strip()
    return out


def refuse_controlled(overrides: Sequence[str], controlled: Sequence[str], study: str) -> None:
    """Refuses an override of a key (or under a prefix ending in '.') that ``study`` sets itself.

    A reproduction's axes, widths, mixes and stopping rule are what its
    published numbers are compared against; overriding one would run
    something else under the same labels.
    """
    for key in override_settings(overrides):
        hit = [c for c in controlled if key == c or (c.endswith(".") and key.startswith(c))]
        if hit:
            raise StudyError(f"--set {key}: {study} sets {hit[0].rstrip('.')} itself (its published values depend "
                             f"on it); keys it controls: {', '.join(c.rstrip('.') for c in controlled)}")


def packaged_specs() -> List[str]:
    """Names of the studies shipped in ``raidsim/experiments``."""
    files = resources.files("raidsim.experiments")
    return sorted(p.name[:-5] for p in files.iterdir() if p.name.endswith(".toml"))


def packaged_spec(name: str) -> Dict[str, Any]:
    path = resources.files("raidsim.experiments") / f"{name}.toml"
    if not path.is_file():
        raise ValueError(f"no packaged study `{name}`; packaged: {', '.join(packaged_specs())}")
    return tomllib.loads(path.read_text())


# --- metrics -----------------------------------------------------------------------------------

def extract(report: Mapping[str, Any], path: str) -> Dict[str, Any]:
    """Value(s) at a dotted path of a report dict; lists expand to ``path[i]`` (``path[i][j]`` nested).

    ``devices.erases`` takes ``erases`` of every device. A cause missing from
    a count by cause is 0 (reports omit causes with no pages); any other
    missing value (``array.*`` of a single SSD, which has no array section) is
    ``None``, an empty cell: never a number that looks measured.
    """
    values = _flatten(path, _lookup(report, path.split(".")))
    tables = [k for k, v in values.items() if isinstance(v, Mapping)]
    if tables:
        # A section a probe's report lacked (`cost`, `rebuild`, `devices.disk`: null there) is a table here:
        # its text in a results cell would pass for a value.
        inside = sorted(report_paths(values[tables[0]], path))
        raise StudyError(f"metric `{path}` is a table in this point's report, not a value; pick from "
                         f"{', '.join(inside[:8])}")
    return values


def _lookup(node: Any, parts: List[str]) -> Any:
    """The value at ``parts``; a list on the way is walked item by item (a list of values)."""
    for i, part in enumerate(parts):
        if isinstance(node, list):
            return [_lookup(item, parts[i:]) for item in node]
        if not isinstance(node, Mapping):
            return None
        if part not in node:
            is_cause_count = i == len(parts) - 1 and part in CAUSES and set(node) <= set(CAUSES)
            return 0 if is_cause_count else None
        node = node[part]
    return node


def _flatten(name: str, value: Any) -> Dict[str, Any]:
    if not isinstance(value, list):
        return {name: value}
    out: Dict[str, Any] = {}
    for j, v in enumerate(value):
        out.update(_flatten(f"{name}[{j}]", v))
    return out


def report_paths(node: Any, prefix: str = "") -> Set[str]:
    """Dotted paths of a report's values, walking through lists as :func:`extract` does."""
    if isinstance(node, Mapping):
        if set(node) <= set(CAUSES):  # a count by cause: every cause is valid, not only those seen
            return {f"{prefix}.{c}" for c in CAUSES}
        return set().union(*(report_paths(v, f"{prefix}.{k}" if prefix else k) for k, v in node.items()))
    if isinstance(node, list) and any(isinstance(x, (Mapping, list)) for x in node):
        return set().union(*(report_paths(x, prefix) for x in node))
    return {prefix}


def check_metrics(study: Study, points: Sequence[Point]) -> None:
    """Raises :class:`StudyError` naming every metric that is no value of a report, before anything runs.

    Paths come from tiny runs (two requests, no preconditioning): first a RAID-6
    with dedicated parity, whose report has every optional section, then, only
    if a metric is still unknown, each case's first point.
    """
    missing, valid = list(study.metrics), set()
    # A metric null in a probe (a section it lacks: `cost` of an unpriced drive, `rebuild` without a
    # failure) may be a table in the points' reports: the case probes say, as for an unknown metric.
    null = set(study.metrics)
    for cfg in _probe_configs(study, points):
        report = _probe_report(cfg)
        # A config that cannot run fails as its points run, each recorded as failed.
        paths = set() if report is None else report_paths(report)
        for metric in null.copy() if report is not None else ():
            value = _lookup(report, metric.split("."))
            if _holds_table(value):
                raise StudyError(f"study {study.name}: {_unknown_metric(metric, paths)}")
            if not _all_null(value):
                null.discard(metric)
        valid |= paths
        missing = [m for m in missing if m not in valid]
        if not missing and not null:
            return
    if not missing or not valid:
        # Every metric is known (null in every probe: the points' runs say what it holds); or no probe
        # could run, so nothing to check against: the points will say what is wrong.
        return
    raise StudyError(f"study {study.name}: " + "; ".join(_unknown_metric(m, valid) for m in missing))


def _holds_table(value: Any) -> bool:
    if isinstance(value, list):
        return any(_holds_table(v) for v in value)
    return isinstance(value, Mapping)


def _all_null(value: Any) -> bool:
    if isinstance(value, list):
        return all(_all_null(v) for v in value)
    return value is None


def _probe_configs(study: Study, points: Sequence[Point]) -> Iterator[Config]:
    yield Config.preset("erasure-code-table6").with_overrides(
        {"array.level": "raid6", "array.members": 4, "array.code": "rdp", "array.parity_placement": "dedicated"})
    firsts: Dict[str, Point] = {}
    for p in points:
        firsts.setdefault(p.case, p)
    yield from (study.config(p) for p in firsts.values())


def _probe_report(cfg: Config) -> Optional[Dict[str, Any]]:
    from .api import simulate

    try:
        # The probe's two requests must be measured: no warm-up. No preconditioning either (it would take
        # as long as the point): overwrites need a fill, so they go too, or the probe would be refused.
        probe = cfg.with_overrides({"precondition.fill_fraction": 0.0, "precondition.random_overwrite_factor": 0.0,
                                    "precondition.sequential_overwrite_factor": 0.0, "sim.warmup_requests": 0})
        probe = probe.with_workload(_PROBE_WORKLOAD)
        return simulate(probe, progress=False).to_dict()
    except _native.RaidsimError:
        return None


def check_report_specs(study: Study) -> None:
    """Raises :class:`StudyError` for a plot or table that draws a list metric as one value, or one value
    per member, before anything runs: checked on a probe's report (every section), as the points will be."""
    if not (study.plots or study.tables):
        return
    report = _probe_report(next(_probe_configs(study, [])))
    if report is None:
        return  # nothing to check against; drawing checks again
    values: Dict[str, Any] = {}
    for metric in study.metrics:
        values.update(extract(report, metric))
    study_plots.check_shapes(study.plots, study.tables, values, study.origin)


def _unknown_metric(metric: str, valid: Set[str]) -> str:
    inside = sorted(p for p in valid if p.startswith(metric + "."))
    if inside:
        return f"metric `{metric}` is a table, not a value; pick from {', '.join(inside[:8])}"
    near = difflib.get_close_matches(metric, sorted(valid), n=3)
    hint = (f"nearest: {', '.join(near)}" if near
            else f"valid paths start with {', '.join(sorted({p.split('.')[0] + '.' for p in valid}))}")
    return f"metric `{metric}` is not a path in the report; {hint}"


# --- identity ----------------------------------------------------------------------------------

def fingerprint(config_toml: str, metrics: Sequence[str]) -> str:
    """Hash of everything that decides a point's row: resolved config, trace file, metrics, raidsim build."""
    identity = {"config": config_toml, "trace": _trace_identity(config_toml), "metrics": list(metrics),
                "raidsim": _build_identity(), "values": _VALUES_FORMAT}
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]


def _trace_identity(config_toml: str) -> Optional[Dict[str, Any]]:
    # Size and mtime, not a content hash: traces run to gigabytes, and rewriting one changes its mtime.
    workload = tomllib.loads(config_toml).get("workload", {})
    if workload.get("kind") != "trace" or not workload.get("path"):
        return None
    raw = workload["path"]
    # A path that is not UTF-8 is held in the config as the list of its bytes.
    path = os.path.abspath(os.fsdecode(bytes(raw)) if isinstance(raw, list) else raw)
    try:
        st = os.stat(path)
    except OSError:
        return {"path": path, "missing": True}
    if not stat.S_ISREG(st.st_mode):
        raise StudyError(f"workload.path = {path} is not a regular file (a pipe, a FIFO or a terminal?): a sweep "
                         "replays its trace once for every point, and a stream can be read only once; save it to a "
                         "file first")
    return {"path": path, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _build_identity() -> Dict[str, str]:
    # The version alone does not move while the model is developed; the compiled core's bytes do.
    import raidsim

    return {"version": raidsim.__version__, "native": _native_digest()}


@functools.lru_cache(maxsize=None)
def _native_digest() -> str:
    with open(_native.__file__, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


# --- the journal -------------------------------------------------------------------------------

class _Journal:
    """Finished points, one line each, appended and fsynced as each point finishes.

    A line is JSON, a tab and the JSON's SHA-256, the line's completion mark:
    a line cut short by a kill, or damaged later, fails the check and its point
    runs again.
    """

    def __init__(self, path: str):
        self.path = path
        self.records: Dict[str, Dict[str, Any]] = {}

    def load(self) -> int:
        """Reads every valid line (the last per point wins); returns how many lines were rejected."""
        if not os.path.exists(self.path):
            return 0
        rejected = 0
        with open(self.path, "rb") as f:
            for line in f:
                record = _parse_line(line)
                if record is None:
                    rejected += 1
                else:
                    self.records[record["point_id"]] = record
        return rejected

    def keep(self, point_ids: Set[str], rewrite: bool) -> None:
        """Keeps only these points' records; rewrites the file if asked or if that dropped any."""
        kept = {k: r for k, r in self.records.items() if k in point_ids}
        if rewrite or len(kept) < len(self.records):
            # Also removes a torn last line, so the next append starts a line of its own.
            text = "".join(_format_line(r) for r in kept.values())
            _replace_atomically(self.path, lambda tmp: _write_text(tmp, text))
        self.records = kept

    def append(self, record: Dict[str, Any]) -> None:
        try:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(_format_line(record))
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:  # a full disk's error names no file; a torn line is rejected when read
            raise named(e, self.path) from None
        self.records[record["point_id"]] = record


_RECORD_KEYS = {"point_id", "fingerprint", "status", "error", "values"}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _format_line(record: Mapping[str, Any]) -> str:
    # Keys in their order (columns come out in the metrics' order); tabs and newlines are escaped.
    body = json.dumps(record)
    return f"{body}\t{_digest(body)}\n"


def _parse_line(line: bytes) -> Optional[Dict[str, Any]]:
    try:
        text = line.decode()
        body, digest = text.rstrip("\n").rsplit("\t", 1)
        if not text.endswith("\n") or _digest(body) != digest:
            return None
        record = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        return None
    return record if isinstance(record, dict) and _RECORD_KEYS <= record.keys() else None


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# Through a temporary file and a rename, so no reader or crash ever sees half a file (raidsim._atomic).
_replace_atomically: Callable[[str, Callable[[str], None]], None] = replace_atomically


# --- running -----------------------------------------------------------------------------------

def run_study(
    study: Study,
    out_dir: str | os.PathLike,
    *,
    workers: Optional[int] = None,
    ray_address: Optional[str] = None,
    progress: Optional[bool] = None,
    report: Optional[bool] = None,
    overwrite: bool = False,
) -> pd.DataFrame:
    """Runs every point without a current row in ``out_dir``; returns all rows, in point order.

    ``report``: also draw the study's plots and tables and write ``report.html``
    (:mod:`raidsim.study_report`), reused points included; by default when the
    study declares plots or tables, or ``out_dir`` holds a page of an earlier
    run (kept in step with the results). What it wrote is the returned table's
    ``attrs["report"]`` (a :class:`raidsim.study_report.StudyReport`). A page
    of an earlier run is removed before any point runs, so an interrupted
    run leaves none that describes other results.

    ``overwrite``: ``out_dir`` may hold another study's points, which are
    then discarded; without it that is :class:`AnotherStudysResults`, before
    anything is written. (This study's own finished points are reused
    either way.)

    Raises :class:`PointsFailed` after every other point has finished if any
    point failed (the report is written first), :class:`SweepLocked` if
    another sweep holds ``out_dir``, :class:`SweepIOError` naming the file
    if one could not be read or written (a full disk): the journal keeps
    the finished points, and a rerun runs the rest.
    """
    out = os.fspath(out_dir)
    try:
        return _run_study(study, out, workers, ray_address, progress, report, overwrite)
    except OSError as e:
        # Not bad input: the sweep could not finish (the CLI's exit 3), and what finished is kept.
        raise SweepIOError(f"study {study.name} could not finish: {e}; every point that finished is kept in "
                           f"{os.path.join(out, JOURNAL)}: make room (or fix the permissions) and run the same "
                           "command for the rest") from e


def _run_study(study: Study, out: str, workers: Optional[int], ray_address: Optional[str],
               progress: Optional[bool], report: Optional[bool], overwrite: bool) -> pd.DataFrame:
    os.makedirs(os.path.join(out, "configs"), exist_ok=True)
    with _locked(out):
        points = study.points()
        prints = [fingerprint(toml, study.metrics) for toml in _resolve_all(study, points)]
        check_metrics(study, points)
        check_report_specs(study)
        journal = _Journal(os.path.join(out, JOURNAL))
        todo = _resume(journal, study, points, prints, out, overwrite)
        from . import study_report

        # A page already there is kept in step with the results, asked for or not; one that points about to
        # run would outdate goes now, so an interrupted or unreported run leaves none describing other results.
        render = report if report is not None else bool(study.plots or study.tables) or os.path.exists(
            os.path.join(out, study_report.PAGE))
        if todo:
            study_report.remove(out)
        try:
            _run_points(study, [(points[i], prints[i]) for i in todo], journal, out, workers, ray_address, progress)
        finally:
            # Also after Ctrl-C or a crash: the tables show every point that finished.
            table = _write_tables(out, points, journal)
            long = _write_long_tables(out, study, points, journal)
            summary_path = os.path.join(out, "summary.csv")
            if study.replicates > 1:
                summary = replicates.summarize(table, study.metrics)
                _replace_atomically(summary_path, lambda tmp: summary.to_csv(tmp, index=False))
            elif os.path.exists(summary_path):
                os.remove(summary_path)  # a summary of replicates the study no longer asks for would be stale
        # Not after Ctrl-C (the `finally` above re-raises it): a page of half the points would pass for the study.
        if render:
            table.attrs["report"] = study_report.render(study, out, points, journal.records, _replace_atomically,
                                                        long.left_out)
    _raise_if_failed(study, points, journal, table, out)
    return table


@contextlib.contextmanager
def _locked(out: str) -> Iterator[None]:
    # flock, not a pid file: the kernel drops the lock when its holder dies, even by kill -9.
    path = os.path.join(out, LOCK)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SweepLocked(f"{out} is in use by another sweep (it holds {path}); "
                              "wait for it to finish or choose another --out") from None
        yield
    finally:
        os.close(fd)


def _resolve_all(study: Study, points: Sequence[Point]) -> List[str]:
    """Every point's resolved config; validates them all before any runs."""
    out = []
    for p in points:
        try:
            out.append(study.config(p).resolved_toml())
        except _native.RaidsimError as e:
            raise type(e)(f"study {study.name}, point {p.label}: {e}") from None
    return out


def _resume(journal: _Journal, study: Study, points: Sequence[Point], prints: Sequence[str], out: str,
            overwrite: bool) -> List[int]:
    """Indices of the points to run: those without a current, successful row. Says why on stderr."""
    had_journal = os.path.exists(journal.path)
    rejected = journal.load()
    _claim(journal, study, points, out, overwrite)
    last = [journal.records.get(p.point_id) for p in points]
    todo = [i for i, r in enumerate(last) if not (r and r["fingerprint"] == prints[i] and r["status"] == "ok")]
    ids = {p.point_id for p in points}
    gone = sum(1 for k in journal.records if k not in ids)
    journal.keep({points[i].point_id for i in set(range(len(points))) - set(todo)}, rewrite=rejected > 0)
    # The study was edited (same name): its rows of points it no longer has go, said rather than silently.
    _say(gone, f"{_n(gone, 'finished point')} of the last run of study {study.name} in {out} "
               f"{'is' if gone == 1 else 'are'} no longer in the study: dropped from the results")
    changed = sum(1 for i in todo if last[i] and last[i]["fingerprint"] != prints[i])
    _say(rejected, f"{journal.path}: {_n(rejected, 'incomplete or corrupt row')} ignored; their points run again")
    _say(changed, f"{_n(changed, 'point')} changed since the last run: recomputing")
    failed = sum(1 for i in todo if last[i]) - changed
    _say(failed, f"{_n(failed, 'point')} failed in the last run: retrying")
    _say(not had_journal and os.path.exists(os.path.join(out, "results.csv")),
         f"{out}/results.csv has no {JOURNAL} to vouch for its rows: computing all {_n(len(points), 'point')} afresh")
    return todo


def _claim(journal: _Journal, study: Study, points: Sequence[Point], out: str, overwrite: bool) -> None:
    """Refuses a journal holding another study's points (running this study would discard them), or, with
    ``overwrite``, empties it and removes those points' configs."""
    found = _other_study(journal.records, study.name, {p.point_id for p in points})
    if found is None:
        return
    name, count = found
    if not overwrite:
        raise AnotherStudysResults(out, name, count, study.name, journal.path)
    _say(True, f"overwriting {out}: the {_n(count, 'finished point')} of study `{name or 'unnamed'}` there "
               f"are replaced by study {study.name}'s")
    dropped = list(journal.records)
    journal.keep(set(), rewrite=True)  # the journal first: no row may outlive its config
    for point_id in dropped:
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(out, "configs", f"{point_id}.toml"))


def _other_study(records: Mapping[str, Mapping[str, Any]], name: str,
                 point_ids: Set[str]) -> Optional[Tuple[Optional[str], int]]:
    """The study a journal's rows belong to, when not ``name`` (None: rows that do not say), and how many.

    Rows name their study; rows of an older raidsim do not, and are another study's only when none of
    them is a point of this one (an edited study keeps some of its points).
    """
    others = [r.get("study") for r in records.values() if r.get("study") != name]
    named_other = [s for s in others if s is not None]
    if named_other:
        return named_other[0], len(others)
    if others and not point_ids & set(records):
        return None, len(others)
    return None


def _say(when: Any, text: str) -> None:
    if when:
        print(f"raidsim: {text}", file=sys.stderr)


def _n(k: int, noun: str) -> str:
    return f"{k} {noun}" if k == 1 else f"{k} {noun}s"


def _run_points(study: Study, jobs: Sequence[Tuple[Point, str]], journal: _Journal, out: str,
                workers: Optional[int], ray_address: Optional[str], progress: Optional[bool]) -> None:
    """Runs the jobs, recording each point in the journal the moment it finishes."""
    bar = _progress_bar(study.name, len(jobs), progress)
    tasks = [(i, study.config(p).layers) for i, (p, _) in enumerate(jobs)]
    finished = _execute(tasks, study.metrics, workers, ray_address)
    try:
        for i, row in finished:
            p, fp = jobs[i]
            error = row.pop("_error", None)
            warnings = row.pop("_warnings", [])
            if error is None:
                config_toml = row.pop("_config_toml")
                path = os.path.join(out, "configs", f"{p.point_id}.toml")
                _replace_atomically(path, lambda tmp: _write_text(tmp, config_toml))
            # The journal line last: it is the mark that the point, and its config file, are done.
            # `study`: whose point this is, so that another study's sweep into this directory is refused.
            journal.append({"point_id": p.point_id, "study": study.name, "case": p.case, "settings": p.settings,
                            "fingerprint": fp, "status": "ok" if error is None else "failed", "error": error,
                            "values": row, "warnings": warnings})
            if bar is not None:
                bar.update(1)
    finally:
        # Now, not when the garbage is collected: an error here (the journal's disk full) stops the
        # workers and cancels the points still out on a cluster.
        finished.close()
        if bar is not None:
            bar.close()


def _progress_bar(name: str, total: int, progress: Optional[bool]):
    if not total or not (progress if progress is not None else _progress.interactive()):
        return None
    return _progress.bar(total=total, desc=name, unit="point")


def _write_tables(out: str, points: Sequence[Point], journal: _Journal) -> pd.DataFrame:
    """Rebuilds results.csv from the journal in point order, then results.parquet from the CSV.

    Columns keep their values' types: a column of integers stays integer (pandas' nullable
    ``Int64``) when some rows are empty, as a failed point's are, and strings stay strings.
    """
    import pandas as pd

    rows = [_csv_row(p, journal.records[p.point_id]) for p in points if p.point_id in journal.records]
    table = pd.DataFrame(rows) if rows else pd.DataFrame(columns=["point_id", "case"])
    tail = ["status", "error", "fingerprint"]
    columns = [c for c in table.columns if c not in tail]
    # A list metric absent from some report (array.* of a single SSD) leaves a bare, empty column beside its [i]s.
    columns = [c for c in columns if not (table[c].isna().all() and any(d.startswith(f"{c}[") for d in columns))]
    table = table.reindex(columns=columns + tail)
    dtypes = _column_dtypes(rows, table.columns)
    for c, dtype in dtypes.items():
        if dtype != "str":  # from the values themselves: through float, 2**53 + 1 would not survive
            table[c] = pd.array([r.get(c) for r in rows], dtype=dtype)
    csv_path = os.path.join(out, "results.csv")
    _replace_atomically(csv_path, lambda tmp: table.to_csv(tmp, index=False))
    # Only an empty cell is missing: a case named "NA" is a name.
    table = pd.read_csv(csv_path, dtype=dtypes, keep_default_na=False, na_values=[""])
    _replace_atomically(os.path.join(out, "results.parquet"), lambda tmp: table.to_parquet(tmp, index=False))
    return table


def _write_long_tables(out: str, study: Study, points: Sequence[Point], journal: _Journal):
    """Rebuilds results_long.csv and results_long.parquet from the journal (:mod:`raidsim.long_results`)."""
    from . import long_results

    entries = [(p.point_id, p.case, p.settings, journal.records[p.point_id]) for p in points
               if p.point_id in journal.records]
    long = long_results.build(entries, list(study.axes), study.metrics)
    df = long_results.frame(long, _column_dtypes)
    text = long_results.csv_frame(df, long)
    _replace_atomically(os.path.join(out, "results_long.csv"), lambda tmp: text.to_csv(tmp, index=False))
    _replace_atomically(os.path.join(out, "results_long.parquet"), lambda tmp: df.to_parquet(tmp, index=False))
    return long


def _column_dtypes(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> Dict[str, str]:
    """Types for the columns whose present values are all integers, or all strings."""
    dtypes = {}
    for c in columns:
        values = [r[c] for r in rows if r.get(c) is not None]
        if not values:
            continue
        if all(isinstance(v, str) for v in values):
            dtypes[c] = "str"
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            if all(-2**63 <= v < 2**63 for v in values):
                dtypes[c] = "Int64"
            elif all(0 <= v < 2**64 for v in values):
                dtypes[c] = "UInt64"
    return dtypes


def _csv_row(p: Point, record: Mapping[str, Any]) -> Dict[str, Any]:
    return {"point_id": p.point_id, "case": p.case, **p.settings, **record["values"],
            "status": record["status"], "error": record["error"], "fingerprint": record["fingerprint"]}


def _raise_if_failed(study: Study, points: Sequence[Point], journal: _Journal, table: pd.DataFrame, out: str) -> None:
    failed = [p for p in points if journal.records.get(p.point_id, {}).get("status") == "failed"]
    if failed:
        lines = [f"  {p.label}: {journal.records[p.point_id]['error']}" for p in failed]
        raise PointsFailed(f"study {study.name}: {len(failed)} of {_n(len(points), 'point')} failed "
                           f"(status=failed in {out}/results.csv; a rerun retries them):\n" + "\n".join(lines), table)


def _run_point(layers: List, metrics: List[str]) -> Dict[str, Any]:
    from .api import simulate
    from .study_report import point_warnings

    try:
        report = simulate(Config(layers), progress=False)
        data = report.to_dict()
        row: Dict[str, Any] = {}
        for m in metrics:
            row.update(extract(data, m))
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as e:  # noqa: BLE001 -- any failure is this point's, recorded as data; the others go on
        # BaseException: a panic in the core is pyo3's PanicException, which is not an Exception. Only its
        # text leaves: the exception object may not pickle back from a worker process.
        return {"_error": _error_text(e)}
    row["_config_toml"] = report.config_toml
    row["_warnings"] = point_warnings(data)  # saturation, wrapped requests: for the report page
    return row


def _error_text(e: BaseException) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _execute(jobs: Sequence, metrics: List[str], workers: Optional[int], ray_address: Optional[str]):
    """Yields ``(key, row)`` as points finish; jobs are ``(key, config layers)``."""
    if not jobs:
        return  # every point is done: no pool to start, no cluster to reach (a rerun works offline)
    if ray_address is not None:
        yield from _execute_ray(jobs, metrics, ray_address)
        return
    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(jobs) <= 1:
        for key, layers in jobs:
            yield key, _run_point(layers, metrics)
        return
    yield from _execute_pool(jobs, metrics, min(workers, len(jobs)))


def _execute_pool(jobs: Sequence, metrics: List[str], workers: int):
    # forkserver, not fork: a forked worker would inherit the output lock and hold it after the sweep died.
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init)
    try:
        futures = {pool.submit(_run_point, layers, metrics): key for key, layers in jobs}
        for fut in cf.as_completed(futures):
            yield futures[fut], _result(fut)
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown()


def _stop(pool: cf.ProcessPoolExecutor) -> None:
    # Interrupted: the running points are lost either way, so their workers stop now rather than
    # finish work nobody will record (shutdown alone waits for them). Python 3.14 has a method for it.
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        terminate()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _result(fut: cf.Future) -> Dict[str, Any]:
    try:
        return fut.result()
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as e:  # noqa: BLE001 -- e.g. a worker killed by the OOM killer: the point failed
        return {"_error": _error_text(e)}


def _worker_init() -> None:
    # Ctrl-C is the parent's to handle (it records what finished). A worker whose sweep was killed
    # would wait for work for ever (the fork server outlives the sweep while workers live): it leaves.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sweep = multiprocessing.parent_process()
    if sweep is not None:
        threading.Thread(target=_exit_after, args=(sweep,), daemon=True).start()


def _exit_after(sweep: Any) -> None:
    sweep.join()  # returns once the sweep process is gone, however it died
    os._exit(1)


def _execute_ray(jobs: Sequence, metrics: List[str], address: str):
    # A module of its own: what a cluster needs (its checks, its errors, cancelling) is a concept apart.
    from ._sweep_ray import execute

    yield from execute(jobs, metrics, address)
