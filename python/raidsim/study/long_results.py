"""A sweep's results in long (tidy) form: one row per point, metric and member.

``results.csv`` is wide: one row per point, one column per metric, a list
metric spread over ``name[0]``, ``name[1]``, ... ``results_long.csv`` (and
``results_long.parquet``) holds the same values one per row, so that pandas,
seaborn or plotnine group and plot them without parsing column names::

    point, case, <axes...>, <other settings...>, metric, member, index, value, unit

* ``point`` is the point's id (its file in ``configs/``); ``case`` and the
  settings are the point's, the axes first in the spec's order, then the
  cases' other settings (and ``sim.seed`` of replicates) as first met.
* ``member`` is the position in a list of per-member values: the report's
  ``devices`` list (members, then spares) and the ``array.*`` lists; empty
  for any other value. ``index`` is the position in any other list
  (``time_series.*``, ``devices.erase_count.histogram.counts`` within a
  member); empty for a value that is not in one.
* ``value`` is the number; ``unit`` comes from :func:`raidsim.units.unit_of`
  (empty when the rule does not know it, never a guess).
* A metric a point lacks (a failed point, ``array.*`` of a single SSD) is one
  row with ``member``, ``index`` and ``value`` empty: never a 0, never a
  silently missing row. So a study of P points has exactly
  ``P x (scalar metrics) + (the list lengths, point by point)`` rows.
* Integers stay integers: ``value`` is an integer column when every value is
  one; with fractions beside them it is a float column, and the CSV still
  writes each integer as one. A metric of text or true/false values (``devices.name``)
  is left out, and the report page says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .. import units

if TYPE_CHECKING:
    import pandas as pd

TAIL = ("metric", "member", "index", "value", "unit")
# Lists whose first position is a member (a device of the report's `devices`, or an array member).
MEMBER_PREFIXES = ("devices.", "array.")
# Beyond this an integer would not survive a float column exactly.
_EXACT_IN_FLOAT = 2**53
_POSITIONS = re.compile(r"(?:\[\d+\])+\Z")


@dataclass
class LongTable:
    columns: List[str]
    rows: List[Dict[str, Any]]
    left_out: List[str] = field(default_factory=list)  # metrics of text or true/false values


def build(entries: Sequence[Tuple[str, str, Mapping[str, Any], Mapping[str, Any]]], axes: Sequence[str],
          metrics: Sequence[str]) -> LongTable:
    """The long rows of ``(point id, case, settings, journal record)`` entries, in their order."""
    settings = list(dict.fromkeys([*axes, *(k for _, _, s, _ in entries for k in s)]))
    rows, text_metrics = [], set()
    for point, case, point_settings, record in entries:
        head = {"point": point, "case": case, **{k: point_settings.get(k) for k in settings}}
        values = record["values"] if record["status"] == "ok" else {}
        for metric in metrics:
            for member, index, value in _metric_values(metric, values):
                if isinstance(value, (str, bool)):
                    text_metrics.add(metric)
                rows.append({**head, "metric": metric, "member": member, "index": index, "value": value,
                             "unit": units.unit_of(metric)})
    left_out = [m for m in metrics if m in text_metrics]
    rows = [r for r in rows if r["metric"] not in text_metrics]
    return LongTable(["point", "case", *settings, *TAIL], rows, left_out)


def _metric_values(metric: str, values: Mapping[str, Any]) -> List[Tuple[Optional[int], Optional[int], Any]]:
    """``(member, index, value)`` of each value of ``metric`` in a point's flattened values; one empty
    row when the point has none."""
    out = []
    for key, value in values.items():
        if key == metric:
            out.append((None, None, value))
        elif key.startswith(metric + "[") and _POSITIONS.match(key, len(metric)):
            out.append((*_member_and_index(metric, key), value))
    return out or [(None, None, None)]


def _member_and_index(metric: str, key: str) -> Tuple[Optional[int], Optional[int]]:
    positions = [int(p) for p in re.findall(r"\[(\d+)\]", key[len(metric):])]
    member = positions.pop(0) if metric.startswith(MEMBER_PREFIXES) else None
    if len(positions) > 1:
        # The report has no list of lists but per member: `index` holds one position.
        raise ValueError(f"results_long: `{key}` is nested deeper than a member and one position")
    return member, positions[0] if positions else None


def frame(table: LongTable, column_dtypes) -> "pd.DataFrame":
    """The rows as a DataFrame: settings typed as in results.csv (``column_dtypes``), ``member`` and
    ``index`` as nullable integers, ``value`` integer when every value is."""
    import pandas as pd

    df = pd.DataFrame(table.rows, columns=table.columns)
    for c, dtype in column_dtypes(table.rows, table.columns[:-len(TAIL)]).items():
        if dtype != "str":  # from the values themselves: through float, 2**53 + 1 would not survive
            df[c] = pd.array([r.get(c) for r in table.rows], dtype=dtype)
    for c in ("member", "index"):
        df[c] = pd.array([r[c] for r in table.rows], dtype="Int64")
    dtype = _value_dtype(table.rows)
    if dtype == "float64":  # NaN for a missing value, as results.csv's float columns have it
        df["value"] = pd.Series([float("nan") if r["value"] is None else r["value"] for r in table.rows],
                                dtype=dtype, index=df.index)
    else:
        df["value"] = pd.array([r["value"] for r in table.rows], dtype=dtype)
    return df


def _value_dtype(rows: Sequence[Mapping[str, Any]]) -> str:
    present = [r["value"] for r in rows if r["value"] is not None]
    if all(isinstance(v, int) for v in present):
        if all(-2**63 <= v < 2**63 for v in present):
            return "Int64"
        if all(0 <= v < 2**64 for v in present):
            return "UInt64"
    big = next((r for r in rows if isinstance(r["value"], int) and abs(r["value"]) > _EXACT_IN_FLOAT), None)
    if big is not None:  # a float column would round it: say so rather than store another number
        raise ValueError(f"results_long: {big['metric']} = {big['value']} (point {big['point']}) is an integer "
                         "beyond 2**53 among fractions, which one float column cannot hold exactly; "
                         "results.csv holds it exactly")
    return "float64"


def csv_frame(df: "pd.DataFrame", table: LongTable) -> "pd.DataFrame":
    """``df`` with ``value`` as the values themselves, so the CSV writes an integer as one beside fractions."""
    import pandas as pd

    out = df.copy()
    out["value"] = pd.Series([r["value"] for r in table.rows], dtype="object", index=df.index)
    return out
