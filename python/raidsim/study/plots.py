"""A study's figures and tables, drawn from its points after it runs.

Each point is one observation at (its facet, its series, its x); replicates
of one point (``replicates = N``) are drawn as their mean. A point without
the x axis (a case with ``axes = false``, a single SSD among arrays) is
drawn as a dotted horizontal line across the panel (in every panel, and
kept by a ``where`` on the axis it lacks). A point without a value (a
failed point, ``array.*`` of a single SSD) is not drawn, never drawn as 0,
and the figure's notes say which, as they count the values a log axis
cannot show (≤ 0). Axes are labelled with what they measure and their
units (:mod:`raidsim.units`). A table shows a list metric's members joined
by ``/`` (``total = true``: their sum) and ``-`` for a value a point lacks.

What a spec may declare, and how it is checked, is
:mod:`raidsim.study.plot_specs`. Drawing imports matplotlib, when it draws.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .. import units
from .errors import StudyError
from .plot_specs import (CASE, MEMBER, MISSING, POSITION, Column, PlotSpec, TableSpec, Term, is_number, same_value,
                         value_text)

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
    return [r for r in rows if all(any(same_value(r.dim(d), v) for v in vs) for d, vs in chosen.items()
                                   if r.dim(d) is not _ABSENT)]


def _member_values(values: Mapping[str, Any], metric: str, where: str) -> Optional[Dict[int, Any]]:
    """A list metric's values by member; None when the point lacks the metric (its bare key is empty)."""
    found: Dict[int, Any] = {}
    prefix = metric + "["
    for key, v in values.items():
        if key.startswith(prefix):
            m = POSITION.match(key)
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
            ax.set_title(f"{plot.facet} = {plot.labels.get(value_text(facet), value_text(facet))}", fontsize=9)
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
                                    x * xfactor if is_number(x) else x, v * yfactor))
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
    numeric = all(is_number(x) for x in xs_all)
    position = (lambda x: x) if numeric else {x: k for k, x in enumerate(xs_all)}.__getitem__
    for s in dict.fromkeys(o.series for o in observations):
        k = order[s]
        style = {"color": f"C{k % 10}", "label": plot.labels.get(value_text(s), value_text(s))}
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
    return is_number(x) and x > 0 and float(x).is_integer() and (int(x) & (int(x) - 1)) == 0


def _tick_text(x: Any) -> str:
    return f"{x:g}" if is_number(x) else value_text(x)


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
        return _number_text(value, units.unit_of(c.key), c) if is_number(value) else value_text(value)
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
    if not is_number(value):
        return value_text(value)
    shown = value * units.convert(unit, c.unit) if c.unit != unit else value
    if isinstance(shown, int) or (isinstance(value, int) and float(shown).is_integer()):
        return str(int(shown))
    return f"{shown:.{c.digits}f}"
