"""The figures and tables a study declares: checked when its spec is read, drawn after it runs.

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

**What is drawn.** Each point is one observation at (its facet, its series,
its x). Points that differ only in a dimension the plot does not show
(another axis, or the case) would fall on one line, so the spec is refused
unless that dimension is the series, the facet or pinned by ``where``;
replicates of one point (``replicates = N``) are drawn as their mean. A
point without the x axis (a case with ``axes = false``, a single SSD among
arrays) is drawn as a dotted horizontal line across the panel (in every
panel, and kept by a ``where`` on the axis it lacks). A point
without a value (a failed point, ``array.*`` of a single SSD) is not drawn,
never drawn as 0, and the page's warnings say which, as they count the
values a log axis cannot show (≤ 0). Axes are labelled with their units
(:mod:`raidsim.units`).

Checking needs no pandas or matplotlib (a spec is read by every sweep);
drawing imports them. Names, axes, metrics and units are checked when the
spec is read; whether a metric is a list is checked on a probe's report
before any point runs (:func:`check_shapes`), and again as it is drawn.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from . import units
from ._sweep_errors import StudyError, check_keys

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
_POSITION = re.compile(r"(.+)\[(\d+)\]\Z")


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
    m = _POSITION.match(text)
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
        bad = [v for v in values if not any(_same(v, w) for w in valid)]
        if bad or not values:
            raise StudyError(f"{where}: `where.{_quote(dim)}` = {wanted!r}: "
                             f"{'no value' if not values else repr(bad[0]) + ' is not one'} of the study's; "
                             f"valid: {', '.join(map(_value_text, valid))}")
        out[dim] = values
    return out


def _quote(dim: str) -> str:
    return dim if re.fullmatch(r"[A-Za-z0-9_-]+", dim) else json.dumps(dim)


def _same(a: Any, b: Any) -> bool:
    """Equal as TOML values: 1 is not true, and 4096 is 4096.0 only as numbers are."""
    return type(a) is type(b) and a == b or (_is_number(a) and _is_number(b) and a == b)


def _is_number(v: Any) -> bool:
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
            valid += [_value_text(v) for v in dims.values(dim)]
    valid += [c for c in dims.without_axes if c not in valid]
    bad = [k for k in labels if k not in valid and not (members and k.isdigit())]
    if bad:
        what = ", ".join(valid) + (", or a member's number" if members else "")
        raise StudyError(f"{where}: `labels` names {bad[0]!r}, which the plot does not draw; valid: "
                         f"{what or 'none (the plot draws one line)'}")
    return dict(labels)


def _check_log_axis(values: Sequence[Any], x: str, where: str) -> None:
    if not all(_is_number(v) and v > 0 for v in values):
        raise StudyError(f"{where}: `logx` needs positive numbers on the axis, but `{x}` holds {values!r}")


def _value_text(v: Any) -> str:
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


# --- the points, as the journal holds them ------------------------------------------------------

@dataclass
class PointRow:
    """One point as drawn: its case, settings, status and flattened values (``name[i]`` keys)."""

    case: str
    settings: Dict[str, Any]
    status: str
    values: Dict[str, Any]
    label: str = ""

    def dim(self, dim: str) -> Any:
        return self.case if dim == CASE else self.settings.get(dim, _ABSENT)


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


#: A setting a point does not have (the axis of a case with ``axes = false``).
_ABSENT = _Absent()


def _selected(rows: Sequence[PointRow], chosen: Mapping[str, List[Any]]) -> List[PointRow]:
    return [r for r in rows if all(any(_same(r.dim(d), v) for v in vs) for d, vs in chosen.items()
                                   if r.dim(d) is not _ABSENT)]


def _member_values(values: Mapping[str, Any], metric: str, where: str) -> Optional[Dict[int, Any]]:
    """A list metric's values by member; None when the point lacks the metric (its bare key is empty)."""
    found: Dict[int, Any] = {}
    prefix = metric + "["
    for key, v in values.items():
        if key.startswith(prefix):
            m = _POSITION.match(key)
            if m is None or m.group(1) != metric:
                raise StudyError(f"{where}: `{metric}` is a list of lists ({key}): pick one list, e.g. `{metric}[0]`"
                                 f", or keep it out of plots and tables")
            found[int(m.group(2))] = v
    if found:
        return found
    if values.get(metric) is not None:
        raise StudyError(f"{where}: `{metric}` is one value per point, not a list per member: "
                         f"`{MEMBER}` and `[i]` do not apply to it")
    return None


def _scalar_value(values: Mapping[str, Any], term: Term, where: str) -> Any:
    if term.position is not None:
        members = _member_values(values, term.metric, where)
        return None if members is None else members.get(term.position)
    if any(k.startswith(term.metric + "[") for k in values):
        raise StudyError(f"{where}: `{term.metric}` is a list per member: draw it with series = \"{MEMBER}\" or "
                         f"facet = \"{MEMBER}\", pick one member as `{term.metric}[0]`, or sum it in a table "
                         f"(total = true)")
    return values.get(term.metric)


def check_shapes(plots: Sequence[PlotSpec], tables: Sequence[TableSpec], values: Mapping[str, Any],
                 origin: str) -> None:
    """Raises :class:`StudyError` where a plot or table uses a list metric as one value or a value as a list,
    on one point's flattened ``values`` (a probe's: a metric it lacks is not checked)."""
    row = PointRow("", {}, "ok", dict(values))
    for plot in plots:
        _y_of(plot, row, f"{origin}: plots[{plot.index}] (`{plot.name}`)")
    for table in tables:
        for c in table.columns:
            _cell(c, row, f"{origin}: tables[{table.index}] (`{table.name}`)")


# --- figures -----------------------------------------------------------------------------------

@dataclass
class Figure:
    name: str
    title: str
    png: str
    svg: str
    notes: List[str]
    caption: str = ""


def draw(plot: PlotSpec, rows: Sequence[PointRow], out_dir: str, where: str,
         save: Callable[[Any, str, str], None]) -> Figure:
    """Draws one plot to ``out_dir``/NAME.png and .svg with ``save(fig, path, format)``; returns it with its notes
    (what it could not draw, and why)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    selected = _selected(rows, plot.where)
    observations, notes = _observations(plot, selected, where)
    # A panel per value of the points, even if none of them has a value to draw (members: those drawn).
    values = (o.facet for o in observations) if plot.facet in (None, MEMBER) else (r.dim(plot.facet) for r in selected)
    facets = list(dict.fromkeys(v for v in values if v is not _ABSENT)) or [None]
    ncols = min(3, len(facets))
    nrows = math.ceil(len(facets) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(7.2 if ncols == 1 else 4.8 * ncols, 4.4 if nrows == 1 else 3.6 * nrows),
                             sharex=True, sharey=True, squeeze=False, layout="constrained")
    try:
        return _fill(fig, axes, plot, observations, facets, notes, out_dir, save)
    finally:
        plt.close(fig)


def _fill(fig: Any, axes: Any, plot: PlotSpec, observations: Sequence["_Observation"], facets: List[Any],
          notes: List[str], out_dir: str, save: Callable[[Any, str, str], None]) -> Figure:
    """Draws the panels, labels and legend, and saves the figure."""
    ncols, nrows = len(axes[0]), len(axes)
    # A series keeps its colour and marker in every panel, so one legend serves them all; every panel
    # marks every x.
    order = {s: k for k, s in enumerate(dict.fromkeys(o.series for o in observations))}
    xs = list(dict.fromkeys(o.x for o in observations if o.x is not _ABSENT))
    if plot.logy and any(o.y <= 0 for o in observations):
        notes.append(f"plot `{plot.name}`: {sum(o.y <= 0 for o in observations)} values ≤ 0 cannot be drawn "
                     "on its log y axis and are left out")
        observations = [o for o in observations if o.y > 0]
    for k, facet in enumerate(facets):
        ax = axes[k // ncols][k % ncols]
        _draw_panel(ax, plot, [o for o in observations if o.facet == facet or o.facet is _ABSENT], order, xs)
        if plot.facet is not None and facet is not None:
            ax.set_title(f"{plot.facet} = {plot.labels.get(_value_text(facet), _value_text(facet))}", fontsize=9)
    for k in range(len(facets), nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    _legend([axes[k // ncols][k % ncols] for k in range(len(facets))], plot)
    _label_figure(fig, axes, plot, nrows, ncols, len(facets))
    png, svg = os.path.join(out_dir, plot.name + ".png"), os.path.join(out_dir, plot.name + ".svg")
    save(fig, png, "png")
    save(fig, svg, "svg")
    return Figure(plot.name, _title(plot), png, svg, notes)


def _title(plot: PlotSpec) -> str:
    return plot.title or f"{plot.ylabel or plot.y_words} vs {plot.xlabel or units.describe(plot.x)}"


def _axis_label(text: str, unit: str) -> str:
    return f"{text} ({unit})" if unit else text


def _label_figure(fig: Any, axes: Any, plot: PlotSpec, nrows: int, ncols: int, panels: int) -> None:
    # Unless the spec names them, axes say what they measure (from the metric's or key's name), not its path.
    xlabel = units.axis_label(plot.xlabel or units.describe(plot.x), plot.xunit)
    ylabel = units.axis_label(plot.ylabel or plot.y_words, plot.yunit)
    for k in range(panels):
        ax = axes[k // ncols][k % ncols]
        if k // ncols == nrows - 1 or k + ncols >= panels:  # no panel below: its ticks are labelled too
            ax.set_xlabel(xlabel)
            ax.xaxis.set_tick_params(labelbottom=True)
        if k % ncols == 0:
            ax.set_ylabel(ylabel)
    fig.suptitle(_title(plot), fontsize=11)


@dataclass
class _Observation:
    facet: Any
    series: Any
    x: Any  # _ABSENT: a point without the x axis, drawn as a horizontal line
    y: float


def _observations(plot: PlotSpec, rows: Sequence[PointRow], where: str) -> Tuple[List[_Observation], List[str]]:
    """Every value the plot draws, and a note naming each point it cannot draw."""
    out, lacking = [], []
    xfactor = units.convert(units.unit_of(plot.x), plot.xunit)
    yfactor = units.convert(units.unit_of(plot.y[0].metric), plot.yunit)
    for row in rows:
        ys = _y_of(plot, row, where)
        if not ys or any(v is None for v in ys.values()):
            lacking.append(_why_missing(plot, row, ys))
        x = row.dim(plot.x)
        for member, v in ys.items():
            if v is None:
                continue
            shown = {MEMBER: member}
            # A point without an axis the plot uses (a case with `axes = false`) is its case's line,
            # in every panel.
            series = shown.get(plot.series, row.dim(plot.series))
            facet = None if plot.facet is None else shown.get(plot.facet, row.dim(plot.facet))
            # Only a number has a unit to convert: a text or true/false axis is drawn as categories.
            out.append(_Observation(facet, row.case if series is _ABSENT else series,
                                    x * xfactor if _is_number(x) else x, v * yfactor))
    notes = []
    if lacking:
        notes.append(f"plot `{plot.name}`: {len(lacking)} of {len(rows)} points have no value of {plot.y_text} "
                     f"and are not drawn: " + "; ".join(lacking))
    return out, notes


def _y_of(plot: PlotSpec, row: PointRow, where: str) -> Dict[Any, Optional[float]]:
    """The point's y by member (key None for one value); a sum lacking any term is None."""
    if row.status != "ok":
        return {}
    if MEMBER in (plot.series, plot.facet):
        parts = [_member_values(row.values, t.metric, where) for t in plot.y]
        if any(p is None for p in parts):
            return {}
        members = sorted(set().union(*parts))
        return {m: _sum([p.get(m) for p in parts]) for m in members}
    return {None: _sum([_scalar_value(row.values, t, where) for t in plot.y])}


def _sum(values: Sequence[Any]) -> Optional[float]:
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values):
        return None
    return sum(values)


def _why_missing(plot: PlotSpec, row: PointRow, ys: Mapping[Any, Optional[float]]) -> str:
    if row.status != "ok":
        return f"{row.label} (failed)"
    gone = [m for m, v in ys.items() if v is None]
    if not ys or gone == [None]:
        return f"{row.label} (its report has no {plot.y_text})"
    return f"{row.label} (no value for member {', '.join(map(str, gone))})"


_MARKERS = "os^vDPX*<>"


def _draw_panel(ax: Any, plot: PlotSpec, observations: Sequence[_Observation], order: Mapping[Any, int],
                xs_all: Sequence[Any]) -> None:
    import matplotlib.ticker as ticker

    lines = [o for o in observations if o.x is not _ABSENT]
    numeric = all(_is_number(x) for x in xs_all)
    position = (lambda x: x) if numeric else {x: k for k, x in enumerate(xs_all)}.__getitem__
    for s in dict.fromkeys(o.series for o in observations):
        k = order[s]
        style = {"color": f"C{k % 10}", "label": plot.labels.get(_value_text(s), _value_text(s))}
        line = _means([(o.x, o.y) for o in lines if o.series == s])
        if line:
            xs = sorted(line, key=position)
            ax.plot([position(x) for x in xs], [line[x] for x in xs], marker=_MARKERS[k % len(_MARKERS)],
                    linewidth=1.6, markersize=5, **style)
        ref = [o.y for o in observations if o.x is _ABSENT and o.series == s]
        if ref:  # a point without the x axis: one value across the panel
            ax.axhline(sum(ref) / len(ref), linestyle=":", linewidth=1.8, **style)
    if plot.logx:
        ax.set_xscale("log", base=2 if all(_is_power_of_two(x) for x in xs_all) else 10)
    if plot.logy:
        ax.set_yscale("log")
    if xs_all and (not numeric or len(xs_all) <= 12):
        ax.set_xticks([position(x) for x in xs_all], [_tick_text(x) for x in xs_all], fontsize=8)
        ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.grid(True, which="major", alpha=0.3)


def _legend(axes: Sequence[Any], plot: PlotSpec) -> None:
    """One legend, on the first panel, of every series in any panel (panels share their colours)."""
    shown: Dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            shown.setdefault(label, handle)
    if len(shown) > 1 or (shown and "" not in shown):
        axes[0].legend(list(shown.values()), list(shown), fontsize=8, title_fontsize=8,
                       title=None if plot.series == CASE else plot.series)


def _means(pairs: Sequence[Tuple[Any, float]]) -> Dict[Any, float]:
    """y by x; replicates of one point (several ys at one x) as their mean."""
    sums: Dict[Any, List[float]] = {}
    for x, y in pairs:
        sums.setdefault(x, []).append(y)
    return {x: sum(ys) / len(ys) for x, ys in sums.items()}


def _is_power_of_two(x: Any) -> bool:
    return _is_number(x) and x > 0 and float(x).is_integer() and (int(x) & (int(x) - 1)) == 0


def _tick_text(x: Any) -> str:
    return f"{x:g}" if _is_number(x) else _value_text(x)


# --- tables ------------------------------------------------------------------------------------

@dataclass
class Table:
    name: str
    title: str
    header: List[str]
    rows: List[List[str]]


def tabulate(spec: TableSpec, rows: Sequence[PointRow], where: str) -> Table:
    """The table's cells as text: one row per selected point, in point order; a value it lacks is ``-``."""
    header = [_header(c) for c in spec.columns]
    body = [[_cell(c, r, where) for c in spec.columns] for r in _selected(rows, spec.where)]
    return Table(spec.name, spec.title, header, body)


def _header(c: Column) -> str:
    text = c.label or (f"{c.key} (total)" if c.total else c.key)
    return _axis_label(text, c.unit)


def _cell(c: Column, row: PointRow, where: str) -> str:
    if c.term is None:
        value = row.dim(c.key)
        if value is _ABSENT:
            return MISSING
        return _number_text(value, units.unit_of(c.key), c) if _is_number(value) else _value_text(value)
    if row.status != "ok":
        return MISSING
    unit = units.unit_of(c.term.metric)
    if c.term.position is None and (c.total or any(k.startswith(c.term.metric + "[") for k in row.values)):
        members = _member_values(row.values, c.term.metric, where)
        if members is None:
            return MISSING
        ordered = [members[m] for m in sorted(members)]
        if c.total:
            total = _sum(ordered)
            return MISSING if total is None else _number_text(total, unit, c)
        return "/".join(MISSING if v is None else _number_text(v, unit, c) for v in ordered)
    value = _scalar_value(row.values, c.term, where)
    return MISSING if value is None else _number_text(value, unit, c)


def _number_text(value: Any, unit: str, c: Column) -> str:
    if isinstance(value, float) and math.isnan(value):
        return MISSING
    if not _is_number(value):
        return _value_text(value)
    shown = value * units.convert(unit, c.unit) if c.unit != unit else value
    if isinstance(shown, int) or (isinstance(value, int) and float(shown).is_integer()):
        return str(int(shown))
    return f"{shown:.{c.digits}f}"
