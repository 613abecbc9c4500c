"""A sweep's results on disk: the tables rebuilt from its journal, in point order.

After every run, also an interrupted one, the journal's rows become:

* ``results.csv`` and ``results.parquet``: wide, one row per point, a column
  per setting and metric (a list metric spread over ``name[0]``, ``name[1]``,
  ...), then ``status``, ``error`` and ``fingerprint``. Columns keep their
  values' types: integers stay integers (pandas' nullable ``Int64``) when a
  failed point leaves cells empty, strings stay strings;
* ``results_long.csv`` and ``results_long.parquet``: the same values one per
  row (:mod:`raidsim.study.long_results`);
* ``summary.csv`` of a study with replicates: mean, deviation and 95 %
  interval per point (:mod:`raidsim.study.replicates`).

Each file is replaced atomically (:mod:`raidsim._atomic`): a reader or a crash
never sees half of one.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Dict, Mapping, Sequence, Tuple

from .. import _atomic
from . import long_results, replicates
from .journal import Journal
from .spec import Point, Study

if TYPE_CHECKING:
    # Imported where the tables are written: reading a spec, and each worker process running points,
    # need no pandas.
    import pandas as pd


def write(out: str, study: Study, points: Sequence[Point],
          journal: Journal) -> Tuple[pd.DataFrame, long_results.LongTable]:
    """Rebuilds every results file of ``out`` from the journal; returns the wide table and the long one."""
    table = _write_tables(out, points, journal)
    long = _write_long_tables(out, study, points, journal)
    summary_path = os.path.join(out, "summary.csv")
    if study.replicates > 1:
        summary = replicates.summarize(table, study.metrics)
        _atomic.replace_atomically(summary_path, lambda tmp: summary.to_csv(tmp, index=False))
    elif os.path.exists(summary_path):
        os.remove(summary_path)  # a summary of replicates the study no longer asks for would be stale
    return table, long


def _write_tables(out: str, points: Sequence[Point], journal: Journal) -> pd.DataFrame:
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
    _atomic.replace_atomically(csv_path, lambda tmp: table.to_csv(tmp, index=False))
    # Only an empty cell is missing: a case named "NA" is a name.
    table = pd.read_csv(csv_path, dtype=dtypes, keep_default_na=False, na_values=[""])
    _atomic.replace_atomically(os.path.join(out, "results.parquet"), lambda tmp: table.to_parquet(tmp, index=False))
    return table


def _write_long_tables(out: str, study: Study, points: Sequence[Point], journal: Journal) -> long_results.LongTable:
    """Rebuilds results_long.csv and results_long.parquet from the journal."""
    entries = [(p.point_id, p.case, p.settings, journal.records[p.point_id]) for p in points
               if p.point_id in journal.records]
    long = long_results.build(entries, list(study.axes), study.metrics)
    df = long_results.frame(long, _column_dtypes)
    text = long_results.csv_frame(df, long)
    _atomic.replace_atomically(os.path.join(out, "results_long.csv"), lambda tmp: text.to_csv(tmp, index=False))
    _atomic.replace_atomically(os.path.join(out, "results_long.parquet"), lambda tmp: df.to_parquet(tmp, index=False))
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
