"""Chen & Lee's observations on their Figures 2 and 3 (§4), judged on the runs of :mod:`raidsim.papers.striping`.

Figures 2 and 3 draw read and write throughput (MB/s) against the striping
unit for 17 IBM Lightning disks, and print no number; the text says what
they show: at any fixed striping unit, throughput increases with larger
request sizes and with higher concurrency, and reads perform uniformly
better than writes (write throughput is uniformly lower). Each claim is a
comparison of two runs that differ in one thing — the next larger size, the
next higher concurrency, or the write beside the read of the same workload —
so each becomes a row: the share of those pairs where ours hold, which the
paper's "at any", "uniformly" puts at 100 %.

A pair is counted against a claim only when its fall lies beyond both runs'
own 95 % intervals (a run's throughput is the reciprocal of a mean response
time known to ±e, so it lies in [x / (1 + e), x / (1 - e)]). Where the
array saturates — large requests, whose every run already keeps all disks
busy — throughput is flat in concurrency, and point values then fall about
half the time by noise alone; the paper's own runs, to the same ±5 %
stopping rule, could not tell such curves apart either. The note of each row
also gives the share that rises at point values and the largest fall, so
that a flat curve is not taken for a rising one.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence

import pandas as pd

from ..study.errors import StudyError

#: claim -> (what varies between the two runs of a pair, the metric of its row).
CLAIMS = {
    "size": ("size", "throughput rises with request size (% of pairs)"),
    "concurrency": ("concurrency", "throughput rises with concurrency (% of pairs)"),
    "read_over_write": ("op", "write throughput below read (% of points)"),
}
KB = 1024


def pairs(runs: pd.DataFrame, claim: str, sizes: Sequence[str], op: str = "") -> pd.DataFrame:
    """The pairs of runs a claim compares, one a row: ``low`` and ``high`` (MB/s), where the claim says ``high``
    is larger, with each run's bounds (``low_lo``, ``high_hi``) and ``where`` the pair is.

    ``runs``: :func:`raidsim.papers.striping.share_of_best`'s table (op, size, unit_bytes, concurrency,
    mb_per_s, rel_half_width); ``sizes``: the size distributions, smallest mean first; ``op``: the reads or
    the writes (the size and concurrency claims), none for ``read_over_write``, which pairs the two.
    """
    if claim not in CLAIMS:
        raise StudyError(f"unknown claim `{claim}`; valid: {', '.join(CLAIMS)}")
    t = runs[runs["op"] == op] if op else runs
    order = {"size": list(sizes), "op": ["write", "read"]}
    axis = CLAIMS[claim][0]
    fixed = [k for k in ("op", "size", "unit_bytes", "concurrency") if k != axis]
    out = []
    for key, g in t.groupby(fixed, sort=True):
        g = (g.set_index(axis).loc[order[axis]] if axis in order else g.set_index(axis).sort_index())
        where = dict(zip(fixed, key))
        for a, b in zip(g.index[:-1], g.index[1:]):
            lo, hi = g.loc[a], g.loc[b]
            out.append({**where, "from": a, "to": b, "low": lo["mb_per_s"], "high": hi["mb_per_s"],
                        "low_lo": lo["mb_per_s"] / (1 + lo["rel_half_width"]),
                        "high_hi": hi["mb_per_s"] / (1 - hi["rel_half_width"])})
    if not out:
        raise StudyError(f"no pairs of runs for `{claim}`{' (' + op + 's)' if op else ''}: the sweep has one "
                         f"{axis} only")
    return pd.DataFrame(out)


def judge_pairs(p: pd.DataFrame) -> Dict[str, Any]:
    """How many of a claim's pairs hold (no fall beyond both intervals) and rise (at point values), and the
    pair that falls most, relative to the lower run."""
    held = ~(p["high_hi"] < p["low_lo"])
    drop = 1 - p["high"] / p["low"]
    worst = p.loc[drop.idxmax()]
    return {"pairs": len(p), "held": int(held.sum()), "rose": int((p["high"] > p["low"]).sum()),
            "falls_beyond": int((~held).sum()), "worst": worst.to_dict(), "worst_drop": float(drop.max())}


def observations(runs: pd.DataFrame, published: Sequence[Mapping[str, Any]], sizes: Sequence[str],
                 case: str) -> List[Dict[str, Any]]:
    """One row per published observation (the study file's ``[[observations]]``): figure, case, metric, ours
    (% of pairs that hold), published (%), and a note with the pairs that rise and the largest fall."""
    rows = []
    for o in published:
        op = "" if o["claim"] == "read_over_write" else o["op"]
        j = judge_pairs(pairs(runs, o["claim"], sizes, op))
        ops = f"{op}s" if op else "reads, writes"
        rows.append({"figure": o["figure"], "case": f"{case}, {ops}", "disk": case, "ops": ops,
                     "metric": CLAIMS[o["claim"]][1], "raidsim": round(100 * j["held"] / j["pairs"], 2),
                     "published": o["published_pct"], "note": _note(o["claim"], j), **j})
    return rows


def _note(claim: str, j: Mapping[str, Any]) -> str:
    w = j["worst"]
    frm, to = (w["from"], w["to"]) if claim != "concurrency" else (f"concurrency {w['from']}", f"{w['to']}")
    where = ", ".join(_label(k, w[k]) for k in ("size", "unit_bytes", "concurrency") if k in w)
    return (f"{j['falls_beyond']} of {j['pairs']} contradict it beyond both runs' 95 % intervals, "
            f"{j['rose']} bear it out at point values; worst: {frm} {w['low']:.2f} → {to} {w['high']:.2f} MB/s "
            f"(×{w['high'] / w['low']:.2f}) at {where}")


def _label(key: str, value: Any) -> str:
    if key == "unit_bytes":
        return f"{value / KB:g} KB unit"
    return f"concurrency {value}" if key == "concurrency" else str(value)
