"""Replicates of a study point and their confidence intervals.

A study with ``replicates = N`` runs each point N times with seeds
``sim.seed``, ``sim.seed + 1``, ... (every random stream of a run --
workload, preconditioning, failure times -- is seeded from it), as the RAIS
paper repeats every experiment five times and draws 95 % confidence
intervals as error bars (its Figures 1-4). For each point and metric,
:func:`summarize` gives the mean, the sample standard deviation and the
half-width of the two-sided Student-t interval,
``t(1 - (1 - confidence) / 2, N - 1) × s / sqrt(N)``, with t from SciPy
(exact at any N; the normal quantile 1.96 would understate a five-run
interval by a third: t(0.975, 4) = 2.776).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, List, Sequence

if TYPE_CHECKING:
    # pandas and SciPy are imported where used: a sweep imports this module, and a top-level import would
    # slow every sweep that has no replicates, and the commands that only read a spec.
    import pandas as pd

SEED = "sim.seed"


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile: ``t_quantile(0.975, 4)`` = 2.776."""
    from scipy import stats

    return float(stats.t.ppf(p, df))


def interval(values: Sequence[float], confidence: float = 0.95) -> Dict[str, Any]:
    """``{n, mean, std, ci_half_width}`` of ``values``; the deviation and the
    interval are None below two values (never zero)."""
    import pandas as pd

    xs = [float(v) for v in values if not pd.isna(v)]  # None, NaN and pandas' NA are failed runs, not zeros
    n = len(xs)
    if n == 0:
        return {"n": 0, "mean": None, "std": None, "ci_half_width": None}
    mean = sum(xs) / n
    if n < 2:
        return {"n": n, "mean": mean, "std": None, "ci_half_width": None}
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = t_quantile(1 - (1 - confidence) / 2, n - 1) * std / math.sqrt(n)
    return {"n": n, "mean": mean, "std": std, "ci_half_width": half}


def summarize(table: pd.DataFrame, metrics: Sequence[str], confidence: float = 0.95) -> pd.DataFrame:
    """One row per point (case and settings but the seed) and metric:
    ``case``, the settings, ``metric``, ``n``, ``mean``, ``std``,
    ``ci_half_width``. Failed replicates (empty cells) are left out, and ``n``
    says how many remained."""
    import pandas as pd

    ok = table[table["status"] == "ok"] if "status" in table else table
    reserved = {"point_id", "status", "error", "fingerprint", SEED}
    present = [m for m in metrics if m in ok.columns]
    keys = [c for c in ok.columns if c not in reserved and c not in present and not _is_metric_column(c, present)]
    rows: List[Dict[str, Any]] = []
    for group_key, group in ok.groupby(keys, dropna=False, sort=False):
        group_key = group_key if isinstance(group_key, tuple) else (group_key,)
        for m in present:
            row = dict(zip(keys, group_key))
            row["metric"] = m
            row.update(interval(group[m].tolist(), confidence))
            rows.append(row)
    return pd.DataFrame(rows)


def _is_metric_column(column: str, metrics: Sequence[str]) -> bool:
    # A list metric is stored as columns `name[i]`.
    return any(column.startswith(f"{m}[") for m in metrics)
