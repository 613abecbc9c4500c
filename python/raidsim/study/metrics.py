"""A study's metrics: the values a sweep keeps of each point's report, by their dotted paths.

A metric is a dotted path into a report's JSON (``host.response.mean_ns``,
``devices.pages_written.parity``). :func:`extract` takes its value(s) from a
point's report; a list on the way expands into one column per item
(``devices.erases[3]``, ``path[i][j]`` nested), and a value the report lacks
is ``None``, an empty cell, except a count of a cause the run never met,
which is 0 (reports omit causes with no pages; :data:`raidsim.units.CAUSES`
names them all).

Before any point runs, :func:`check_metrics` reads the paths of tiny probe
runs (two requests, no preconditioning) and names every metric that is no
value of a report, with the nearest valid paths; :func:`check_report_specs`
checks on a probe's report that the study's plots and tables use each list
metric as one.
"""

from __future__ import annotations

import difflib
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Set

from .. import _native, api
from ..config import Config
from ..units import CAUSES
from ..workload import Workload
from . import plots
from .errors import StudyError
from .spec import Point, Study

# Two requests: enough for a report with every section a config produces, in milliseconds.
_PROBE_WORKLOAD = Workload.requests([(0, "W", 0, 4096), (0, "R", 0, 4096)])


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


def _probe_workload(cfg: Config) -> Workload:
    """The probe's requests: two listed ones, or, for flows, one request a flow (so the report has a row for each)."""
    w = cfg.resolved()["workload"]
    if w["kind"] != "flows":
        return _PROBE_WORKLOAD
    one = Workload.synthetic(requests=1, processes=1, size={"kind": "fixed", "mean_bytes": 4096})
    return Workload.flows(*[one] * len(w["flows"]), address_space=w["address_space"])


def _probe_report(cfg: Config) -> Optional[Dict[str, Any]]:
    try:
        # The probe's two requests must be measured: no warm-up. No preconditioning either (it would take
        # as long as the point): overwrites need a fill, so they go too, or the probe would be refused.
        probe = cfg.with_overrides({"precondition.fill_fraction": 0.0, "precondition.random_overwrite_factor": 0.0,
                                    "precondition.sequential_overwrite_factor": 0.0, "sim.warmup_requests": 0})
        probe = probe.with_workload(_probe_workload(probe))
        return api.simulate(probe, progress=False).to_dict()
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
    plots.check_shapes(study.plots, study.tables, values, study.origin)


def _unknown_metric(metric: str, valid: Set[str]) -> str:
    inside = sorted(p for p in valid if p.startswith(metric + "."))
    if inside:
        return f"metric `{metric}` is a table, not a value; pick from {', '.join(inside[:8])}"
    near = difflib.get_close_matches(metric, sorted(valid), n=3)
    hint = (f"nearest: {', '.join(near)}" if near
            else f"valid paths start with {', '.join(sorted({p.split('.')[0] + '.' for p in valid}))}")
    return f"metric `{metric}` is not a path in the report; {hint}"
