"""The stripe-unit paper's hard-disk comparison (Rajaei Salmasi et al. 2013, §5.3, Tables 7-9).

A hard disk spends most of a small request positioning its head (seek plus
rotational wait), so the extra reads and writes a larger stripe unit costs a
parity array barely move its response time; an SSD has no positioning to
hide them behind. The paper shows this with RAID4 4+1 arrays of three disks
(its Table 10: Seagate Cheetah 15K.5, Cheetah 9LP, Quantum Atlas III),
stripe units 4-128 KB and synthetic workloads of mean request size 8, 400
and 1600 KB, reporting per table the mean response time, the mean
positioning and transfer time per disk access and the positioning share.

:func:`hdd_stripe_unit_tables` runs the same grid (one sweep, all cores) and
sets the published values beside ours. Positioning and transfer time are
means over the accesses the five disks served, a chain of merged adjacent
requests counting as one access (DiskSim issues a request's contiguous
piece on a disk as one access). The published values
and the workload we run are data: ``experiments/hdd-stripe-unit-tables.toml``
(the paper leaves the read/write mix and address pattern unsaid; the spec
states ours).
"""

from __future__ import annotations

import copy
import itertools
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence

import pandas as pd

from .._figures import save_figure
from ..study.spec import Study, override_settings, refuse_controlled
from ..study.sweep import run_study
from .packaged import packaged_spec

KB = 1024
#: Settings the study sets itself (RAID4 4+1, its axes); ``--set`` may not override them.
CONTROLLED_KEYS = ("array.stripe_unit_bytes", "workload.size.mean_bytes", "workload.read_fraction", "array.members",
                   "array.level", "preset")
#: Report paths kept for each point: host response and the disks' time split.
METRICS = ["host.response.mean_ns", "host.requests", "stop.converged", "devices.disk.requests", "devices.disk.merged",
           "devices.disk.positioning_ns", "devices.disk.transfer_ns"]


def spec() -> Dict[str, Any]:
    """The packaged study: published Tables 7-9 and the workload we run."""
    return packaged_spec("hdd-stripe-unit-tables")


def study(table: Mapping[str, Any], overrides: Sequence[str] = ()) -> Study:
    """The sweep of one drive (one of the spec's ``tables``): mix x stripe unit x mean request size.

    ``overrides`` (``"key=value"``) apply to every run, after the spec's
    settings; one of :data:`CONTROLLED_KEYS` is refused.
    """
    refuse_controlled(overrides, CONTROLLED_KEYS, "hdd-stripe-unit-tables")
    sp = spec()
    base = copy.deepcopy(sp["base"])
    base["preset"] = table["drive"]
    return Study.from_dict({
        "name": f"{sp['name']}-{table['drive']}",
        "title": f"{sp['title']}: {table['name']}",
        "base": base,
        "metrics": METRICS,
        "cases": [{"name": table["drive"], "set": override_settings(overrides)}],
        "axes": {"workload.read_fraction": sp["read_fractions"],
                 "array.stripe_unit_bytes": [u * KB for u in sp["stripe_units_kb"]],
                 "workload.size.mean_bytes": [m * KB for m in sp["mean_request_kb"]]},
    })


def per_access(table: pd.DataFrame, members: int) -> pd.DataFrame:
    """Response (ms), and positioning and transfer per disk access (ms), of each run in a sweep table."""
    def total(stat: str) -> pd.Series:
        columns = [f"devices.disk.{stat}[{i}]" for i in range(members)]
        missing = [c for c in columns if c not in table]
        if missing or table[columns].isna().any().any() or f"devices.disk.{stat}[{members}]" in table:
            raise ValueError(f"the sweep table does not hold devices.disk.{stat} of exactly {members} disks")
        return table[columns].sum(axis=1)

    # A merged chain is one access, as one large request (Chen & Lee §3.3; DiskSim issues one per disk).
    accesses = total("requests") - total("merged")
    if (accesses <= 0).any():
        raise ValueError("a run's disks served no access: no positioning or transfer time to report")
    out = pd.DataFrame({
        "drive": table["case"],
        "read_fraction": table["workload.read_fraction"],
        "stripe_unit_bytes": table["array.stripe_unit_bytes"],
        "mean_request_bytes": table["workload.size.mean_bytes"],
        "response_ms": table["host.response.mean_ns"] / 1e6,
        "positioning_ms": total("positioning_ns") / accesses / 1e6,
        "transfer_ms": total("transfer_ns") / accesses / 1e6,
        "converged": table["stop.converged"].astype(bool),
        "requests": table["host.requests"],
    })
    out["positioning_share_pct"] = 100 * out["positioning_ms"] / out["response_ms"]
    return out


def hdd_stripe_unit_tables(out_dir: str, *, workers: Optional[int] = None, progress: Optional[bool] = None,
                           overrides: Sequence[str] = ()) -> List[Dict[str, Any]]:
    """Runs (or resumes) the sweep into ``out_dir``; one row per drive, stripe unit and mean size.

    Each row carries ``drive``, ``stripe_unit_bytes``, ``mean_request_bytes``,
    ``response_ms``, ``positioning_ms``, ``transfer_ms``,
    ``positioning_share_pct``, each with its ``*_published`` twin, and
    ``table`` (7, 8 or 9).
    """
    sp = spec()
    members = override_settings(overrides).get("array.members", sp["base"]["array"]["members"])
    rows = []
    for t in sp["tables"]:
        ours = per_access(run_study(study(t, overrides), os.path.join(out_dir, t["drive"]), workers=workers,
                                    progress=progress), members)
        for mix, (i, unit_kb), (j, mean_kb) in itertools.product(sp["read_fractions"], enumerate(sp["stripe_units_kb"]),
                                                                 enumerate(sp["mean_request_kb"])):
            hit = ours[(ours["read_fraction"] == mix) & (ours["stripe_unit_bytes"] == unit_kb * KB)
                       & (ours["mean_request_bytes"] == mean_kb * KB)]
            if len(hit) != 1:
                raise ValueError(f"expected one run of {t['drive']} at {unit_kb} KB / {mean_kb} KB / {mix} reads, "
                                 f"found {len(hit)}")
            r = hit.iloc[0]
            row: Dict[str, Any] = {"table": t["table"], "drive": t["drive"], "drive_name": t["name"],
                                   "read_fraction": mix, "stripe_unit_bytes": unit_kb * KB,
                                   "mean_request_bytes": mean_kb * KB, "converged": bool(r["converged"]),
                                   "requests": int(r["requests"])}
            for key in ("response_ms", "positioning_ms", "transfer_ms", "positioning_share_pct"):
                row[key] = round(float(r[key]), 3)
                row[f"{key}_published"] = t[key][i][j]
            rows.append(row)
    return rows


def findings(rows: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The paper's three observations, checked on ``rows`` per drive.

    - ``response_spread_8kb``: (max - min) / mean of the response time over
      stripe units at 8 KB; the paper: 3.00-3.22, 5.07-5.20, 7.08-7.31 ms,
      all within ±10 % ("does not exhibit significant variation").
    - ``min_share_8kb_pct``: the smallest positioning share at 8 KB (paper:
      above 75 % for every drive).
    - ``max_share_1600kb_pct``: the largest at 1600 KB (paper: below 10 %
      for the 9LP and the Atlas III).
    """
    out = []
    for drive, mix in dict.fromkeys((r["drive"], r["read_fraction"]) for r in rows):
        mine = [r for r in rows if r["drive"] == drive and r["read_fraction"] == mix]
        small = [r for r in mine if r["mean_request_bytes"] == min(x["mean_request_bytes"] for x in mine)]
        large = [r for r in mine if r["mean_request_bytes"] == max(x["mean_request_bytes"] for x in mine)]
        found: Dict[str, Any] = {"drive": drive, "read_fraction": mix}
        for suffix in ("", "_published"):
            found.update({k + suffix: v for k, v in _observations(small, large, suffix).items()})
        out.append(found)
    return out


def _observations(small: Sequence[Dict[str, Any]], large: Sequence[Dict[str, Any]], suffix: str) -> Dict[str, float]:
    response = [r["response_ms" + suffix] for r in small]
    mean = sum(response) / len(response)
    return {
        "response_spread_8kb": round((max(response) - min(response)) / mean, 4),
        "min_share_8kb_pct": round(min(r["positioning_share_pct" + suffix] for r in small), 2),
        "max_share_1600kb_pct": round(max(r["positioning_share_pct" + suffix] for r in large), 2),
    }


def hdd_stripe_unit_tables_text(rows: Sequence[Dict[str, Any]]) -> str:
    out = ["Rajaei Salmasi et al. 2013, Tables 7-9: RAID4 4+1 of hard disks, ours / published",
           "(per disk access: positioning = seek + rotational wait; share = positioning / response)"]
    keys = [("response_ms", "response ms"), ("positioning_ms", "positioning ms"), ("transfer_ms", "transfer ms"),
            ("positioning_share_pct", "positioning %")]
    for drive, mix in dict.fromkeys((r["drive"], r["read_fraction"]) for r in rows):
        mine = [r for r in rows if r["drive"] == drive and r["read_fraction"] == mix]
        out.append(f"\nTable {mine[0]['table']}: {mine[0]['drive_name']} ({drive}), {100 * mix:.0f} % reads")
        sizes = sorted({r["mean_request_bytes"] for r in mine})
        head = f"{'unit KB':>8}"
        for _, label in keys:
            head += "".join(f"{label + ' ' + str(s // KB) + 'K':>22}" for s in sizes)
        out.append(head)
        for unit in sorted({r["stripe_unit_bytes"] for r in mine}):
            line = f"{unit // KB:>8}"
            for key, _ in keys:
                for s in sizes:
                    r = next(x for x in mine if x["stripe_unit_bytes"] == unit and x["mean_request_bytes"] == s)
                    line += f"{r[key]:>10.2f} / {r[key + '_published']:<9.2f}"
            out.append(line)
        unconverged = sum(not r["converged"] for r in mine)
        if unconverged:
            out.append(f"({unconverged} runs hit the request cap before the stopping rule)")
    out.append("\nThe paper's observations, ours / published:")
    for f in findings(rows):
        out.append(f"{f['drive']}, {100 * f['read_fraction']:.0f} % reads: response at 8 KB spreads {100 * f['response_spread_8kb']:.1f} % / "
                   f"{100 * f['response_spread_8kb_published']:.1f} % across stripe units; positioning share at 8 KB "
                   f">= {f['min_share_8kb_pct']:.1f} % / {f['min_share_8kb_pct_published']:.1f} %; at 1600 KB "
                   f"<= {f['max_share_1600kb_pct']:.1f} % / {f['max_share_1600kb_pct_published']:.1f} %")
    return "\n".join(out)


def plot_hdd_tables(rows: Sequence[Dict[str, Any]], out_dir: str) -> List[str]:
    """One figure per drive (the spec's first mix): response time and positioning share by stripe unit, ours and published."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    paths = []
    mix = spec()["read_fractions"][0]
    for drive in dict.fromkeys(r["drive"] for r in rows):
        mine = [r for r in rows if r["drive"] == drive and r["read_fraction"] == mix]
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8))
        for s in sorted({r["mean_request_bytes"] for r in mine}):
            pts = sorted((r for r in mine if r["mean_request_bytes"] == s), key=lambda r: r["stripe_unit_bytes"])
            x = [r["stripe_unit_bytes"] / KB for r in pts]
            for ax, key in ((a, "response_ms"), (b, "positioning_share_pct")):
                line, = ax.plot(x, [r[key] for r in pts], "o-", label=f"{s // KB} KB, raidsim")
                ax.plot(x, [r[key + "_published"] for r in pts], "x--", color=line.get_color(),
                        label=f"{s // KB} KB, paper")
        for ax, label in ((a, "mean response time (ms)"), (b, "positioning share of response (%)")):
            ax.set_xscale("log", base=2)
            ax.set_xlabel("stripe unit (KB)")
            ax.set_ylabel(label)
        a.set_yscale("log")
        b.set_ylim(0, 105)
        b.legend(fontsize=7, ncol=2)
        fig.suptitle(f"Stripe-unit paper Table {mine[0]['table']}: RAID4 4+1 of {mine[0]['drive_name']}, "
                     f"{100 * mix:.0f} % reads")
        paths.append(save_figure(fig, os.path.join(out_dir, f"table{mine[0]['table']}-{drive}.png")))
    return paths
