"""The figures and tables a study declares, checked when its spec is read.

A study spec may end with ``[[plots]]`` and ``[[tables]]``::

    [[plots]]
    name = "response"                 # file name: figures/response.png and .svg (default plot<i>)
    title = "Mean response time"      # optional
    x = "array.stripe_unit_bytes"     # an axis of the study
    y = "host.response.mean_ns"       # one of its metrics
    series = "case"                   # one line per: "case" (default), "member", or an axis
    facet = "array.write_method"      # optional: one panel per "case", "member" or an axis
    where = { case = ["raid4", "raid5"] }   # optional: only these cases / axis values
    logx = true                       # optional, as is logy
    xunit = "KiB"                     # optional display units: ns -> us, ms, s; bytes -> KiB, MiB, KB, MB ...
    yunit = "ms"
    xlabel = "stripe unit"            # optional; the unit is appended: "stripe unit (KiB)"
    ylabel = "mean response time"     # (without them: what the key or metric measures, raidsim.units.describe)
    labels = { raid4 = "RAID4", "4" = "P" }  # optional: names shown for cases, axis values, members

    [[tables]]
    name = "summary"                  # tables/summary.csv (default table<i>)
    title = "..."
    columns = ["case", "array.stripe_unit_bytes",
               { key = "host.response.mean_ns", unit = "ms", digits = 3, label = "mean response" },
               { key = "array.extra_page_reads", total = true }]
    where = { case = "raid4" }

**Members.** A metric that is a list per member (``devices.erases``,
``array.extra_page_reads``) is drawn one line per member with
``series = "member"`` (or one panel per member with ``facet``), or one member
is picked as ``y = "devices.erases[3]"``; drawn any other way it is an error.
``member`` is the position in the report's list (``devices`` lists the
members, then the spares). In a table such a metric shows its members
joined by ``/`` (``total = true``: their sum).

**Sums.** ``y = ["array.data_pages_written", "array.parity_pages_written"]``
draws the sum of metrics of one unit (pages written per member: data plus
parity); a point lacking any term has no sum.

Points that differ only in a dimension a plot does not show (another axis,
or the case) would fall on one line, so such a plot is refused unless that
dimension is its series, its facet or pinned by ``where``.

Checking needs no pandas or matplotlib (a spec is read by every sweep).
Names, axes, metrics and units are checked here, when the spec is read;
whether a metric is a list is checked on a probe's report before any point
runs (:func:`raidsim.study.plots.check_shapes`), and again as it is drawn
(:mod:`raidsim.study.plots`).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from .. import units
from .errors import StudyError, check_keys

CASE = "case"
MEMBER = "member"
PLOT_KEYS = ("name", "title", "x", "y", "series", "facet", "where", "logx", "logy", "xlabel", "ylabel",
             "xunit", "yunit", "labels")
TABLE_KEYS = ("name", "title", "columns", "where")
COLUMN_KEYS = ("key", "label", "unit", "digits", "total")
#: How a table shows a value the point does not have.
MISSING = "-"
# A figure's or table's name names its files: one plain path component.
_FILE_RULE = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}\Z")
POSITION = re.compile(r"(.+)\[(\d+)\]\Z")


@dataclass(frozen=True)
class Term:
    """A metric, and the position picked from it when it is a list (``devices.erases[3]``)."""

    metric: str
    position: Optional[int] = None

    @property
    def text(self) -> str:
        return self.metric if self.position is None else f"{self.metric}[{self.position}]"


@dataclass
class PlotSpec:
    index: int
    name: str
    x: str
    y: List[Term]
    series: str = CASE
    facet: Optional[str] = None
    where: Dict[str, List[Any]] = field(default_factory=dict)
    logx: bool = False
    logy: bool = False
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    xunit: str = ""
    yunit: str = ""
    labels: Dict[str, str] = field(default_factory=dict)

    @property
    def y_text(self) -> str:
        return " + ".join(t.text for t in self.y)

    @property
    def y_words(self) -> str:
        """What y measures, in words (:func:`raidsim.units.describe`): the default axis label."""
        return " + ".join(units.describe(t.metric) + ("" if t.position is None else f" [{t.position}]")
                          for t in self.y)


@dataclass
class Column:
    key: str
    term: Optional[Term]  # None: the case or a setting
    label: str = ""
    unit: str = ""  # display unit
    digits: int = 3
    total: bool = False


@dataclass
class TableSpec:
    index: int
    name: str
    columns: List[Column]
    where: Dict[str, List[Any]] = field(default_factory=dict)
    title: str = ""


# --- checking a spec --------------------------------------------------------------------------

@dataclass
class _Dims:
    """What a plot or table may refer to: the study's cases, axes, settings and metrics."""

    cases: List[str]
    axes: Dict[str, List[Any]]
    settings: List[str]
    metrics: List[str]
    without_axes: List[str]  # cases with `axes = false`: drawn as lines named for their case

    @classmethod
    def of(cls, spec: Mapping[str, Any]) -> "_Dims":
        cases = [c["name"] for c in spec.get("cases", [])] or [""]
        sets = [k for c in spec.get("cases", []) for k in c.get("set", {})]
        axes = dict(spec.get("axes", {}))
        without = [c["name"] for c in spec.get("cases", []) if c.get("axes", True) is False]
        # Replicates differ in their seed: a table may show it, or its rows would look like repeats.
        seeds = ["sim.seed"] if spec.get("replicates", 1) > 1 else []
        return cls(cases, axes, list(dict.fromkeys([*axes, *sets, *seeds])), list(spec["metrics"]), without)

    def values(self, dim: str) -> List[Any]:
        return self.cases if dim == CASE else self.axes[dim]


def check_plots(spec: Mapping[str, Any], origin: str) -> List[PlotSpec]:
    """The spec's ``[[plots]]``, checked; a mistake is a :class:`StudyError` naming the file, the plot and the choices."""
    return _check_each(spec, origin, "plots", _check_plot)


def check_tables(spec: Mapping[str, Any], origin: str) -> List[TableSpec]:
    """The spec's ``[[tables]]``, checked likewise."""
    return _check_each(spec, origin, "tables", _check_table)


def _check_each(spec: Mapping[str, Any], origin: str, key: str, check: Callable[..., Any]) -> List[Any]:
    dims = _Dims.of(spec)
    out = [check(table, i, dims, f"{origin}: {key}[{i}]") for i, table in enumerate(_tables_of(spec, key, origin))]
    _unique_names(out, origin, key)
    return out


def _tables_of(spec: Mapping[str, Any], key: str, origin: str) -> List[Dict[str, Any]]:
    tables = spec.get(key, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise StudyError(f"{origin}: `{key}` must be an array of tables ([[{key}]]), got {tables!r}")
    return tables


def _unique_names(items: Sequence[Any], origin: str, key: str) -> None:
    seen: Dict[str, int] = {}
    for item in items:
        if item.name in seen:
            raise StudyError(f"{origin}: {key}[{item.index}] has the name `{item.name}` of {key}[{seen[item.name]}]; "
                             "each names its files, so names must differ")
        seen[item.name] = item.index


def _check_plot(table: Mapping[str, Any], i: int, dims: _Dims, where: str) -> PlotSpec:
    check_keys(table, PLOT_KEYS, f"{where}:", "plot key")
    name = _file_name(table, f"plot{i}", where)
    where = f"{where} (`{name}`)" if "name" in table else where
    for key in ("title", "xlabel", "ylabel"):
        _string(table, key, where)
    for key in ("logx", "logy"):
        if not isinstance(table.get(key, False), bool):
            raise StudyError(f"{where}: `{key}` must be true or false, got {table[key]!r}")
    x = _x_axis(table, dims, where)
    y = _y_terms(table, dims, where)
    dims_choices = [CASE, MEMBER, *dims.axes]
    series = _dimension(table, "series", CASE, dims_choices, where)
    facet = _dimension(table, "facet", None, dims_choices, where)
    if series == x or facet == x or (facet is not None and facet == series):
        raise StudyError(f"{where}: x, series and facet must differ; got x = {x!r}, series = {series!r}, "
                         f"facet = {facet!r}")
    if MEMBER in (series, facet) and any(t.position is not None for t in y):
        raise StudyError(f"{where}: `{MEMBER}` as series or facet draws each member of a list metric, but `y` "
                         f"picks one member ({y[0].text}); drop the [i] or the `{MEMBER}`")
    selected = _where(table, dims, where)
    _check_overlap(x, series, facet, selected, dims, where)
    plot = PlotSpec(index=i, name=name, x=x, y=y, series=series, facet=facet, where=selected,
                    logx=table.get("logx", False), logy=table.get("logy", False), title=table.get("title", ""),
                    xlabel=table.get("xlabel", ""), ylabel=table.get("ylabel", ""),
                    xunit=_display_unit(table, "xunit", units.unit_of(x), where),
                    yunit=_display_unit(table, "yunit", units.unit_of(y[0].metric), where),
                    labels=_labels(table, [series, facet], dims, where))
    if plot.logx:
        _check_log_axis(dims.axes[x], x, where)
    return plot


def _file_name(table: Mapping[str, Any], default: str, where: str) -> str:
    name = table.get("name", default)
    if not isinstance(name, str) or not _FILE_RULE.match(name):
        raise StudyError(f"{where}: `name` {name!r} names its files, so it must be a plain file name: letters, "
                         "digits, '-', '_' and '.', not starting with a dot, at most 100 characters")
    return name


def _string(table: Mapping[str, Any], key: str, where: str) -> None:
    if not isinstance(table.get(key, ""), str):
        raise StudyError(f"{where}: `{key}` must be a string, got {table[key]!r}")


def _x_axis(table: Mapping[str, Any], dims: _Dims, where: str) -> str:
    if "x" not in table:
        raise StudyError(f"{where}: a plot needs `x`, an axis of the study; "
                         + (f"valid: {', '.join(dims.axes)}" if dims.axes else "the study has no [axes]"))
    x = table["x"]
    if not isinstance(x, str) or x not in dims.axes:
        choices = f"valid: {', '.join(dims.axes)}" if dims.axes else "the study has no [axes], so nothing to plot against"
        raise StudyError(f"{where}: `x` = {x!r} is not an axis of the study; {choices}")
    return x


def _term(text: Any, dims: _Dims, where: str, key: str) -> Term:
    if not isinstance(text, str):
        raise StudyError(f"{where}: `{key}` must be a metric (a string), got {text!r}")
    m = POSITION.match(text)
    term = Term(m.group(1), int(m.group(2))) if m else Term(text)
    if term.metric not in dims.metrics:
        near = difflib.get_close_matches(term.metric, dims.metrics, n=1)
        raise StudyError(f"{where}: `{key}` = {text!r} is not among the study's metrics"
                         + (f" (did you mean `{near[0]}`?)" if near else "")
                         + f"; valid: {', '.join(dims.metrics)} (a list metric may pick a member: `name[3]`)")
    return term


def _y_terms(table: Mapping[str, Any], dims: _Dims, where: str) -> List[Term]:
    if "y" not in table:
        raise StudyError(f"{where}: a plot needs `y`, one of the study's metrics; valid: {', '.join(dims.metrics)}")
    y = table["y"]
    texts = y if isinstance(y, list) else [y]
    if not texts:
        raise StudyError(f"{where}: `y` must be a metric or a non-empty list of metrics (drawn as their sum)")
    terms = [_term(t, dims, where, "y") for t in texts]
    found = {t.text: units.unit_of(t.metric) for t in terms}
    if len(set(found.values())) > 1:
        raise StudyError(f"{where}: `y` sums metrics of different units: "
                         + ", ".join(f"{k} ({u or 'unit unknown'})" for k, u in found.items()))
    return terms


def _dimension(table: Mapping[str, Any], key: str, default: Optional[str], choices: Sequence[str],
               where: str) -> Optional[str]:
    value = table.get(key, default)
    if value is not None and value not in choices:
        raise StudyError(f"{where}: `{key}` = {value!r} is neither \"case\", \"member\" nor an axis; "
                         f"valid: {', '.join(choices)}")
    return value


def _where(table: Mapping[str, Any], dims: _Dims, where: str) -> Dict[str, List[Any]]:
    chosen = table.get("where", {})
    if not isinstance(chosen, dict):
        raise StudyError(f"{where}: `where` must be a table such as {{ case = \"raid4\" }}, got {chosen!r}")
    choices = [CASE, *dims.axes]
    check_keys(chosen, choices, f"{where}: `where`:", "key")
    out = {}
    for dim, wanted in chosen.items():
        values = wanted if isinstance(wanted, list) else [wanted]
        valid = dims.values(dim)
        bad = [v for v in values if not any(same_value(v, w) for w in valid)]
        if bad or not values:
            raise StudyError(f"{where}: `where.{_quote(dim)}` = {wanted!r}: "
                             f"{'no value' if not values else repr(bad[0]) + ' is not one'} of the study's; "
                             f"valid: {', '.join(map(value_text, valid))}")
        out[dim] = values
    return out


def _quote(dim: str) -> str:
    return dim if re.fullmatch(r"[A-Za-z0-9_-]+", dim) else json.dumps(dim)


def same_value(a: Any, b: Any) -> bool:
    """Equal as TOML values: 1 is not true, and 4096 is 4096.0 only as numbers are."""
    return type(a) is type(b) and a == b or (is_number(a) and is_number(b) and a == b)


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_overlap(x: str, series: str, facet: Optional[str], selected: Mapping[str, List[Any]], dims: _Dims,
                   where: str) -> None:
    """Refuses a plot on which points differing in a dimension it does not show would share a line."""
    shown = {x, series, facet}
    for dim in [CASE, *dims.axes]:
        n = len(selected.get(dim, dims.values(dim)))
        if dim not in shown and n > 1:
            raise StudyError(f"{where}: the points differ in `{dim}` ({n} values) but the plot shows it neither as "
                             f"x, series nor facet, so they would be drawn on one line; make it the series or the "
                             f"facet, or pick one value with `where = {{ {_quote(dim)} = ... }}`")


def _display_unit(table: Mapping[str, Any], key: str, unit: str, where: str) -> str:
    shown = table.get(key, unit)
    if not isinstance(shown, str) or shown not in units.display_units(unit):
        choices = ", ".join(u for u in units.display_units(unit) if u) or "none (the unit is not known)"
        raise StudyError(f"{where}: `{key}` = {shown!r} is no unit of {unit or 'a value of unknown unit'}; "
                         f"valid: {choices}")
    return shown


def _labels(table: Mapping[str, Any], dimensions: Sequence[Optional[str]], dims: _Dims, where: str) -> Dict[str, str]:
    labels = table.get("labels", {})
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        raise StudyError(f"{where}: `labels` must be a table of names to strings, e.g. {{ raid4 = \"RAID4\" }}; "
                         f"got {labels!r}")
    valid: List[str] = []
    members = MEMBER in dimensions
    for dim in dimensions:
        if dim is not None and dim != MEMBER:
            valid += [value_text(v) for v in dims.values(dim)]
    valid += [c for c in dims.without_axes if c not in valid]
    bad = [k for k in labels if k not in valid and not (members and k.isdigit())]
    if bad:
        what = ", ".join(valid) + (", or a member's number" if members else "")
        raise StudyError(f"{where}: `labels` names {bad[0]!r}, which the plot does not draw; valid: "
                         f"{what or 'none (the plot draws one line)'}")
    return dict(labels)


def _check_log_axis(values: Sequence[Any], x: str, where: str) -> None:
    if not all(is_number(v) and v > 0 for v in values):
        raise StudyError(f"{where}: `logx` needs positive numbers on the axis, but `{x}` holds {values!r}")


def value_text(v: Any) -> str:
    """A case name or axis value as labels and legends name it: 4096, 0.5, true, raid4."""
    return v if isinstance(v, str) else json.dumps(v)


def _check_table(table: Mapping[str, Any], i: int, dims: _Dims, where: str) -> TableSpec:
    check_keys(table, TABLE_KEYS, f"{where}:", "table key")
    name = _file_name(table, f"table{i}", where)
    where = f"{where} (`{name}`)" if "name" in table else where
    _string(table, "title", where)
    columns = table.get("columns")
    if not isinstance(columns, list) or not columns:
        raise StudyError(f"{where}: a table needs `columns`, a list of \"case\", settings and metrics, "
                         f"e.g. [\"case\", \"{dims.metrics[0]}\"]")
    return TableSpec(index=i, name=name, title=table.get("title", ""), where=_where(table, dims, where),
                     columns=[_column(c, j, dims, f"{where}: columns[{j}]") for j, c in enumerate(columns)])


def _column(entry: Any, j: int, dims: _Dims, where: str) -> Column:
    table = entry if isinstance(entry, dict) else {"key": entry}
    check_keys(table, COLUMN_KEYS, f"{where}:", "column key")
    key = table.get("key")
    choices = [CASE, *dims.settings, *dims.metrics]
    if not isinstance(key, str):
        raise StudyError(f"{where}: a column needs `key`, one of: {', '.join(choices)}")
    term = None if key == CASE or key in dims.settings else _term(key, dims, where, "key")
    _string(table, "label", where)
    digits = table.get("digits", 3)
    if isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= 12:
        raise StudyError(f"{where}: `digits` must be a whole number from 0 to 12, got {digits!r}")
    total = table.get("total", False)
    if not isinstance(total, bool):
        raise StudyError(f"{where}: `total` must be true or false, got {total!r}")
    if total and (term is None or term.position is not None):
        raise StudyError(f"{where}: `total = true` sums the members of a list metric; `{key}` is not one")
    unit = "" if key == CASE else units.unit_of(term.metric if term else key)
    return Column(key=key, term=term, label=table.get("label", ""), digits=digits, total=total,
                  unit=_display_unit(table, "unit", unit, where))
