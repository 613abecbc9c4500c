"""A study spec: a base config, cases, sweep axes and the metrics to keep, as data; and its points.

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

The spec's *points* are its cases crossed with its axes (each replicate a
point of its own, by seed); a point is a case name and dotted-key settings
over the base config. Any other key, at the top or in a case, is an error
naming it, as is a metric of the same name as a setting (both would be one
column), a case's setting that an axis sets too (the axis would override
it), and a plot or table naming what the study does not have
(:mod:`raidsim.study.plot_specs` has their keys). All of this is checked
when the spec is read, before anything runs; whether each metric is a value
of a report is checked on a probe's report (:mod:`raidsim.study.metrics`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Sequence, Set, Tuple

from ..config import Config
from . import plot_specs
from .errors import StudyError, check_keys

# The keys a study spec may have, at its top level and in each [[cases]] table. `catalog`: a packaged
# reproduction's entry in the catalog (raidsim.papers.catalog checks it; a sweep does not read it).
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
    plots: List[plot_specs.PlotSpec] = field(default_factory=list)
    tables: List[plot_specs.TableSpec] = field(default_factory=list)
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
                   description=spec.get("description", ""), plots=plot_specs.check_plots(spec, origin),
                   tables=plot_specs.check_tables(spec, origin), origin=origin)

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "Study":
        with open(path, "rb") as f:
            try:
                spec = tomllib.load(f)
            except tomllib.TOMLDecodeError as e:
                raise StudyError(f"{os.fspath(path)}: not valid TOML: {e}") from None
        return cls.from_dict(spec, os.fspath(path))

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
