"""Chen & Lee, "Striping in a RAID Level 5 Disk Array" (SIGMETRICS 1995).

Two reproductions:

- :func:`disk_parameters` — their Table 1's derived rows (capacity,
  sustained transfer rate, effective average seek and positioning time over
  the first 300 MB, disk performance product) computed from the presets.
- :func:`striping_coefficients` — 17-disk RAID5 (left-symmetric), closed
  loop of 1-20 processes, five size distributions, reads and writes, over
  striping units from 1 KB to 1 MB, each run until the mean response time is
  within 5 % at 95 % confidence (``sim.stop``); throughput as a percentage of
  each workload's best (their Figures 4 and 5) and the coefficients S_r, Z_r,
  S_w, Z_w, Z_rw of Table 2. The same runs in MB/s are their Figures 2
  and 3, and §4's observations on those are judged by
  :mod:`raidsim.papers.striping_observations`.

How a coefficient is read off the runs (their §4): for each concurrency,
the striping units that give at least 95 % (reads) or 90 % (writes; Figure
6b) of the best throughput for every size form a range; S is the smallest
slope of a line through (concurrency 1, one sector) that stays inside every
range, divided by the disk performance product. Z is the striping unit that
maximises the smallest percentage over all sizes and concurrencies, divided
by the disk performance product; Z_rw does the same over reads and writes
together. Units are those of the paper: KB = 1024 bytes, MB/s = 10^6 B/s.

Each run's throughput is known only to the stopping rule's precision (±5 %
at 95 % confidence), and the smallest share over the workloads is flat near
its peak, so the unit that maximises it is uncertain by a step or two of
the grid. Each Z therefore comes with its *band*: the units whose smallest
share cannot be told from the best one's at the runs' precision (see
:func:`coefficients`). A published Z inside the band agrees with our runs
however far the two point values are apart.
Figure 7 repeats the Z coefficients for arrays of other widths.

The published values, workloads and grid are data: the packaged study
``experiments/striping-coefficients.toml``.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence

import pandas as pd

from .. import _native
from .._figures import save_figure
from ..config import Config
from ..study.errors import StudyError
from ..study.spec import Study, override_settings, refuse_controlled
from ..study.sweep import run_study
from . import catalog
from .packaged import packaged_spec
from .striping_observations import observations

KB = 1024
SECTOR = 512
#: The keys of Table 1 that :func:`disk_parameters` sets beside the published ones.
TABLE_1_KEYS = ("capacity_mb", "sustained_mb_per_s", "effective_average_seek_ms", "effective_positioning_ms",
                "performance_product_kb")
COEFFICIENTS = ("S_r", "Z_r", "S_w", "Z_w", "Z_rw")
#: The disk of Figures 2-3 and of §4's observations on them.
FIGURES_2_3_PRESET = "hdd-ibm-lightning"
#: Settings the study sets itself; ``--set`` may not override them.
CONTROLLED_KEYS = ("array.stripe_unit_bytes", "workload.processes", "array.members", "workload.read_fraction",
                   "workload.size.", "sim.stop.", "sim.stop", "preset")


def spec() -> Dict[str, Any]:
    """The packaged study: published Tables 1-2, workloads, grid and stopping rule."""
    return packaged_spec("striping-coefficients")


def published(preset: str) -> Dict[str, Any]:
    """Table 1's derived rows and Table 2's coefficients of one disk preset."""
    for row in spec()["disks_published"]:
        if row["preset"] == preset:
            return row
    known = ", ".join(r["preset"] for r in spec()["disks_published"])
    raise StudyError(f"Chen & Lee publish no row for preset `{preset}`; they have: {known}")


def performance_product_bytes(preset: str) -> float:
    """The effective disk performance product of a preset, bytes (Table 1's last row)."""
    return json.loads(_native.disk_parameters(Config.preset(preset).layers))["effective_performance_product_bytes"]


def disk_parameters() -> List[Dict[str, Any]]:
    """Table 1's derived rows from each Chen & Lee preset, beside the published ones."""
    rows = []
    for pub in spec()["disks_published"]:
        p = json.loads(_native.disk_parameters(Config.preset(pub["preset"]).layers))
        ours = {
            "capacity_mb": p["disk_capacity_bytes"] / 2**20,
            "sustained_mb_per_s": p["sustained_bytes_per_s"] / 1e6,
            "effective_average_seek_ms": p["effective_average_seek_ns"] / 1e6,
            "effective_positioning_ms": p["effective_positioning_ns"] / 1e6,
            "performance_product_kb": p["effective_performance_product_bytes"] / KB,
        }
        row: Dict[str, Any] = {"preset": pub["preset"], "disk": pub["disk"]}
        for key, value in ours.items():
            row[key] = round(value, 3)
            row[f"{key}_published"] = pub[key]
            row[f"{key}_error_pct"] = round(100 * (value / pub[key] - 1), 2)
        rows.append(row)
    return rows


def disk_parameters_text(rows: Sequence[Dict[str, Any]]) -> str:
    out = ["Chen & Lee 1995, Table 1 (derived rows): ours / published (difference)"]
    out.append(f"{'':<26}" + "".join(f"{r['disk']:>26}" for r in rows))
    for k in TABLE_1_KEYS:
        cells = "".join(f"{r[k]:>10.2f} / {r[k + '_published']:<6} ({r[k + '_error_pct']:+.1f}%)".rjust(26) for r in rows)
        out.append(f"{k:<26}{cells}")
    return "\n".join(out)


def study(preset: str, units_kb: Sequence[float], concurrencies: Sequence[int], disks: int,
          stop: Mapping[str, Any], overrides: Sequence[str] = ()) -> Study:
    """The sweep for one disk type and array width: (read, write) x five sizes x units x concurrencies.

    ``overrides`` (``"key=value"``) apply to every run, after the spec's
    settings; one of :data:`CONTROLLED_KEYS` is refused.
    """
    refuse_controlled(overrides, CONTROLLED_KEYS, "striping-coefficients")
    sp = spec()
    cases = []
    for op, read_fraction in (("read", 1.0), ("write", 0.0)):
        for size_name, size in sp["sizes"].items():
            settings = {"workload.read_fraction": read_fraction}
            settings.update({f"workload.size.{k}": v for k, v in size.items()})
            settings.update(override_settings(overrides))
            cases.append({"name": f"{op}-{size_name}", "set": settings})
    base = copy.deepcopy(sp["base"])
    base["preset"] = preset
    base["array"]["members"] = disks
    base["sim"] = {"stop": dict(stop)}
    return Study.from_dict({
        "name": f"striping-{preset}-{disks}",
        "title": f"Chen & Lee 1995: RAID5 of {disks} {preset}",
        "base": base,
        "metrics": ["host.mb_per_s", "host.requests", "stop.converged", "stop.half_width_ns", "stop.mean_ns"],
        "axes": {"array.stripe_unit_bytes": [int(u * KB) for u in units_kb], "workload.processes": list(concurrencies)},
        "cases": cases,
    })


def share_of_best(table: pd.DataFrame) -> pd.DataFrame:
    """A sweep's table with op, size, unit, concurrency and each run's share of its workload's best throughput.

    Throughput is read by Little's law from the mean response time the
    stopping rule measured (Chen & Lee's footnote: throughput = size x
    concurrency / response), so that a share and its precision describe the
    same quantity; a workload's size and concurrency cancel in the share.
    ``share_lo`` and ``share_hi`` bound each share with every run's 95 %
    half-width (see :func:`share_bounds`).
    """
    if "status" in table and (table["status"] != "ok").any():
        bad = table[table["status"] != "ok"]
        raise StudyError(f"{len(bad)} runs did not finish (first: {bad.iloc[0].get('error')}); no coefficient is "
                         f"read off a partial sweep")
    missing = [c for c in ("stop.half_width_ns", "stop.mean_ns", "host.mb_per_s") if c not in table]
    if missing:
        raise StudyError(f"the sweep's table lacks {missing}: a share is read from a run's mean response time and "
                         f"its precision")
    t = table.rename(columns={"array.stripe_unit_bytes": "unit_bytes", "workload.processes": "concurrency",
                              "host.mb_per_s": "mb_per_s"}).copy()
    t[["op", "size"]] = t["case"].str.split("-", n=1, expand=True)
    mean, half = t["stop.mean_ns"], t["stop.half_width_ns"]
    bad = ~((mean > 0) & (half > 0) & (half < mean) & (t["mb_per_s"] > 0))  # NaN compares False: refused too
    if bad.any():
        r = t[bad].iloc[0]
        raise StudyError(f"{int(bad.sum())} runs have no usable mean response time, half-width or throughput "
                         f"(first: {r['case']}, unit {r['unit_bytes']} B, concurrency {r['concurrency']}: mean "
                         f"{r['stop.mean_ns']} ns, half-width {r['stop.half_width_ns']} ns, {r['mb_per_s']} MB/s); "
                         f"a share needs a positive mean known to better than itself")
    t["rel_half_width"] = half / mean
    return share_bounds(t, 1.0 / mean)


def share_bounds(t: pd.DataFrame, rate: pd.Series) -> pd.DataFrame:
    """``t`` with ``pct_of_best``, ``share_lo`` and ``share_hi`` from each run's ``rate`` (any unit).

    A run's rate is known to [rate / (1 + e), rate / (1 - e)] (e its
    ``rel_half_width``: the rate is the reciprocal of a mean response time
    known to ±e). The workload's best rate lies between the largest lower
    and the largest upper bound over its runs, so a share lies in
    [lo / best_hi, min(1, hi / best_lo)].
    """
    t = t.copy()
    e = t["rel_half_width"]
    key = [t["op"], t["size"], t["concurrency"]]
    t["rate"], t["rate_lo"], t["rate_hi"] = rate, rate / (1 + e), rate / (1 - e)
    t["pct_of_best"] = t["rate"] / t.groupby(key)["rate"].transform("max")
    t["share_lo"] = t["rate_lo"] / t.groupby(key)["rate_hi"].transform("max")
    t["share_hi"] = (t["rate_hi"] / t.groupby(key)["rate_lo"].transform("max")).clip(upper=1.0)
    return t


def coefficients(runs: pd.DataFrame, dpp_bytes: float) -> Dict[str, Any]:
    """S_r, Z_r, S_w, Z_w, Z_rw from the runs of one disk type (see the module doc).

    ``runs`` has columns op ("read"/"write"), size, unit_bytes, concurrency
    and pct_of_best (a fraction). Each Z comes with the share of the best it
    guarantees to every workload (``Z_r_guarantee``, ...); each S with the
    ranges it was read from (``S_r_ranges``: concurrency -> (lo, hi) bytes,
    ``None`` where no unit reaches the threshold). An S is ``None`` when no
    line through (1, one sector) fits every range.

    With the columns ``share_lo`` and ``share_hi`` (:func:`share_bounds`),
    each Z also has a band ``Z_r_band`` = (lo, hi) and ``Z_r_band_units``: a
    unit's smallest share over the workloads lies between the smallest lower
    and the smallest upper bound of its shares; the band holds the units
    whose upper bound reaches the largest lower bound of any unit. The
    bounds are each run's own 95 % interval, not a simultaneous confidence
    level over the hundreds of runs compared: a unit outside the band is
    unlikely to be the best, not excluded at 95 %. Without those columns
    the bands are ``None``.
    """
    out: Dict[str, Any] = {}
    threshold = spec()["range_threshold"]
    for op, tag in (("read", "r"), ("write", "w")):
        t = runs[runs["op"] == op]
        if t.empty:
            raise StudyError(f"no {op} runs: Z_{tag} and S_{tag} need them")
        worst = t.groupby("unit_bytes")["pct_of_best"].min()
        out[f"Z_{tag}"] = float(worst.idxmax()) / dpp_bytes
        out[f"Z_{tag}_guarantee"] = float(worst.max())
        out[f"Z_{tag}_band"] = _band(t, dpp_bytes)
        out[f"S_{tag}"], out[f"S_{tag}_ranges"] = _slope(t, threshold[op], dpp_bytes)
    worst = runs.groupby("unit_bytes")["pct_of_best"].min()
    out["Z_rw"] = float(worst.idxmax()) / dpp_bytes
    out["Z_rw_guarantee"] = float(worst.max())
    out["Z_rw_band"] = _band(runs, dpp_bytes)
    return out


def _band(t: pd.DataFrame, dpp: float) -> Optional[Dict[str, Any]]:
    """The units whose smallest share is indistinguishable from the best's (see :func:`coefficients`), as Z."""
    if "share_lo" not in t or "share_hi" not in t:
        return None
    worst = t.groupby("unit_bytes")[["share_lo", "share_hi"]].min()
    bar = worst["share_lo"].max()
    inside = worst.index[worst["share_hi"] >= bar]
    return {"lo": float(inside.min()) / dpp, "hi": float(inside.max()) / dpp,
            "units": [int(u) for u in inside], "bar": float(bar), "upper": worst["share_hi"].to_dict()}


def guarantees_at_published(runs: pd.DataFrame, pub: Mapping[str, Any], dpp_bytes: float) -> Dict[str, Any]:
    """What each published Z's unit (the grid's nearest) guarantees in our runs: a flat optimum shows as a
    small gap between this and our own Z's guarantee, however far apart the two Z are."""
    out: Dict[str, Any] = {}
    for key, ops in (("Z_r", ["read"]), ("Z_w", ["write"]), ("Z_rw", ["read", "write"])):
        worst = runs[runs["op"].isin(ops)].groupby("unit_bytes")["pct_of_best"].min()
        unit = min(worst.index, key=lambda u: abs(u - pub[key] * dpp_bytes))
        out[f"{key}_published_unit_bytes"] = int(unit)
        out[f"{key}_published_unit_guarantee"] = round(float(worst[unit]), 3)
    return out


def _slope(t: pd.DataFrame, threshold: float, dpp: float):
    """Smallest slope of a line through (1, one sector) inside every concurrency's range, over DPP.

    A concurrency's range is the run of consecutive units around its best
    one (the unit whose worst share over the sizes is largest) that give
    every size at least ``threshold`` of its best; where no unit does, the
    best unit alone (Chen & Lee's Figure 6a for writes: "the striping unit
    choice that yields the best performance"). ``None`` when no line fits.
    """
    worst = t.groupby(["concurrency", "unit_bytes"])["pct_of_best"].min().reset_index()
    ranges = {}
    for c, g in worst.groupby("concurrency"):
        g = g.sort_values("unit_bytes").reset_index(drop=True)
        best = int(g["pct_of_best"].idxmax())
        lo = hi = best
        while lo > 0 and g["pct_of_best"][lo - 1] >= threshold - 1e-12:
            lo -= 1
        while hi < len(g) - 1 and g["pct_of_best"][hi + 1] >= threshold - 1e-12:
            hi += 1
        ranges[int(c)] = (float(g["unit_bytes"][lo]), float(g["unit_bytes"][hi]))
    steps = [(c, r) for c, r in ranges.items() if c > 1]
    if not steps:
        return None, ranges
    low = max((lo - SECTOR) / (c - 1) for c, (lo, _) in steps)
    high = min((hi - SECTOR) / (c - 1) for c, (_, hi) in steps)
    return (low / dpp if low <= high else None), ranges


def _grid(quick: bool) -> Dict[str, Any]:
    sp = spec()
    g = {k: sp[k] for k in ("units_kb", "concurrencies", "stop", "figure7_disks")}
    g["presets"] = [r["preset"] for r in sp["disks_published"]]
    if quick:
        g.update(sp["quick"])
    return g


def _sweep(preset: str, disks: int, grid: Mapping[str, Any], out_dir: str, workers: Optional[int],
           progress: Optional[bool]) -> pd.DataFrame:
    s = study(preset, grid["units_kb"], grid["concurrencies"], disks, grid["stop"], grid["overrides"])
    name = f"{preset}-{disks}disks" + ("-quick" if grid.get("quick") else "")
    return share_of_best(run_study(s, os.path.join(out_dir, name), workers=workers, progress=progress))


def striping_coefficients(out_dir: str, *, quick: bool = False, presets: Optional[Sequence[str]] = None,
                          workers: Optional[int] = None, progress: Optional[bool] = None,
                          overrides: Sequence[str] = ()) -> Dict[str, Any]:
    """Runs (or resumes) the sweeps into ``out_dir`` and reads off Table 2's coefficients per disk.

    Also Figure 7's Z against the number of disks (IBM Lightning, the
    spec's ``figure7_disks``; none with ``quick``).
    """
    grid = _grid(quick) | {"overrides": list(overrides), "quick": quick}
    disks = spec()["disks"]
    rows, runs_by_disk = [], {}
    for preset in list(presets or grid["presets"]):
        pub = published(preset)
        dpp = performance_product_bytes(preset)
        t = _sweep(preset, disks, grid, out_dir, workers, progress)
        runs_by_disk[preset] = t
        c = coefficients(t, dpp)
        row = {"disk": pub["disk"], "preset": preset, "disks": disks, "performance_product_kb": round(dpp / KB, 3)}
        for k in COEFFICIENTS:
            row[k] = None if c[k] is None else round(c[k], 3)
            row[f"{k}_published"] = pub[k]
        row.update({k: round(c[k], 3) for k in ("Z_r_guarantee", "Z_w_guarantee", "Z_rw_guarantee")})
        row.update(_band_fields(c))
        row.update(guarantees_at_published(t, pub, dpp))
        for k in ("Z_r", "Z_w", "Z_rw"):
            band, unit = c[f"{k}_band"], row[f"{k}_published_unit_bytes"]
            row[f"{k}_published_in_band"] = unit in band["units"]
            # How far the published unit's upper bound is above (+) or below (-) the bar, in points of share.
            row[f"{k}_published_margin"] = round(float(band["upper"][unit] - band["bar"]), 4)
        row["ranges_read"] = {str(k): v for k, v in c["S_r_ranges"].items()}
        row["ranges_write"] = {str(k): v for k, v in c["S_w_ranges"].items()}
        row["unconverged_runs"] = int((~t["stop.converged"].astype(bool)).sum())
        row["runs"] = len(t)
        rows.append(row)
    by_disks = _figure7(grid, out_dir, workers, progress, runs_by_disk)
    return {"rows": rows, "runs": runs_by_disk, "by_disks": by_disks, "quick": quick, "overrides": list(overrides),
            "observations": figure_2_3_observations(runs_by_disk)}


def figure_2_3_observations(runs_by_disk: Mapping[str, pd.DataFrame]) -> List[Dict[str, Any]]:
    """§4's observations on Figures 2-3, one row per the study file's ``[[observations]]``, on the runs of
    the disk those figures draw (17 IBM Lightning); none when the runs leave that disk out."""
    t = runs_by_disk.get(FIGURES_2_3_PRESET)
    if t is None:
        return []
    sp = spec()
    return observations(t, sp["observations"], list(sp["sizes"]), f"{published(FIGURES_2_3_PRESET)['disk']}, "
                        f"{sp['disks']} disks")


def _band_fields(c: Mapping[str, Any]) -> Dict[str, Any]:
    """A row's band columns: ``Z_r_band`` = [lo, hi] as Z and ``Z_r_band_units_kb``, the units inside."""
    out: Dict[str, Any] = {}
    for k in ("Z_r", "Z_w", "Z_rw"):
        band = c[f"{k}_band"]
        out[f"{k}_band"] = [round(band["lo"], 3), round(band["hi"], 3)]
        out[f"{k}_band_units_kb"] = [u / KB for u in band["units"]]
    return out


def _figure7(grid: Mapping[str, Any], out_dir: str, workers: Optional[int], progress: Optional[bool],
             done: Mapping[str, pd.DataFrame]) -> List[Dict[str, Any]]:
    """Z_r, Z_w, Z_rw of IBM Lightning arrays of each width in ``figure7_disks``."""
    preset = "hdd-ibm-lightning"
    dpp = performance_product_bytes(preset)
    out = []
    for n in grid["figure7_disks"]:
        t = done[preset] if n == spec()["disks"] and preset in done else _sweep(preset, n, grid, out_dir, workers,
                                                                                 progress)
        c = coefficients(t, dpp)
        out.append({"disks": n, **{k: round(c[k], 3) for k in ("Z_r", "Z_w", "Z_rw", "Z_r_guarantee",
                                                              "Z_w_guarantee", "Z_rw_guarantee")},
                    **_band_fields(c)})
    return out


def striping_coefficients_text(result: Dict[str, Any]) -> str:
    out = ["Chen & Lee 1995, Table 2: concurrency-slope (S) and zero-knowledge (Z) coefficients, ours / published"]
    if result["quick"]:
        out.append("(--quick: IBM Lightning only, fewer units and concurrencies, ±10 % stopping rule: a smoke run, "
                   "not the reproduction)")
    out.append(f"{'disk':<16}" + "".join(f"{k:>16}" for k in COEFFICIENTS))
    for r in result["rows"]:
        cells = "".join((f"{'n/a' if r[k] is None else format(r[k], '.3f')} / {r[k + '_published']}").rjust(16)
                        for k in COEFFICIENTS)
        out.append(f"{r['disk']:<16}{cells}")
    out.append("Z bands: the units whose guarantee cannot be told from the best one's within each run's 95 % "
               "interval (not a simultaneous level), as Z; 'in' where the published Z's unit is one of them, "
               "(margin) its upper bound over the bar in points")
    for r in result["rows"]:
        cells = "".join(f"{k} {r[k + '_band'][0]:.3f}-{r[k + '_band'][1]:.3f} "
                        f"{'in' if r[k + '_published_in_band'] else 'out'} ({100 * r[k + '_published_margin']:+.1f})"
                        .rjust(32) for k in ("Z_r", "Z_w", "Z_rw"))
        out.append(f"{r['disk']:<16}{cells}")
    for r in result["rows"]:
        zr, zw = r["Z_r"], r["Z_w"]
        ratio = "n/a" if not zw else f"{zr / zw:.1f}"
        out.append(f"{r['disk']}: Z_r / Z_w = {ratio} (paper: about 4); Z_rw = {r['Z_rw']} (paper: about 0.5); "
                   f"Z_r, Z_w, Z_rw guarantee {100 * r['Z_r_guarantee']:.0f} / {100 * r['Z_w_guarantee']:.0f} / "
                   f"{100 * r['Z_rw_guarantee']:.0f} % of the best to every workload (paper, Lightning: 70 / 73 / 60); "
                   f"at the published Z's units ({r['Z_r_published_unit_bytes'] // KB} / "
                   f"{r['Z_w_published_unit_bytes'] // KB} / {r['Z_rw_published_unit_bytes'] // KB} KB) ours guarantee "
                   f"{100 * r['Z_r_published_unit_guarantee']:.0f} / {100 * r['Z_w_published_unit_guarantee']:.0f} / "
                   f"{100 * r['Z_rw_published_unit_guarantee']:.0f} %; "
                   f"{r['unconverged_runs']} of {r['runs']} runs hit the request cap before the stopping rule")
    out.extend(observations_text(result["observations"]))
    if result["by_disks"]:
        out.append("Figure 7 (IBM Lightning): Z against the number of disks")
        out.append(f"{'disks':>6}" + "".join(f"{k + ' [band]':>22}" for k in ("Z_r", "Z_w", "Z_rw")))
        out.extend(f"{r['disks']:>6}" + "".join(f"{r[k]:.3f} [{r[k + '_band'][0]:.3f}-{r[k + '_band'][1]:.3f}]".rjust(22)
                                               for k in ("Z_r", "Z_w", "Z_rw")) for r in result["by_disks"])
    return "\n".join(out)


def observations_text(rows: Sequence[Mapping[str, Any]]) -> List[str]:
    """§4's observations on Figures 2-3 as lines, each judged by the catalog's rule for it."""
    if not rows:
        return []
    e = catalog.entry("striping-coefficients")
    out = [f"Figures 2-3 ({rows[0]['disk']}): §4's observations, as the % of pairs of runs that do "
           f"not contradict them beyond both runs' 95 % intervals, ours / published"]
    for r in rows:
        rule = e.rule_for(r["figure"], r["case"], r["metric"])
        verdict = catalog.judge(r["raidsim"], r["published"], rule)
        out.append(f"  {r['figure']}, {r['ops']:<13} {r['metric']:<50} {r['raidsim']:6.2f} / {r['published']:g}  "
                   f"{verdict} ({rule.describe('%')})")
        out.append(f"      {r['note']}")
    return out


def plot_striping(result: Dict[str, Any], out_dir: str) -> List[str]:
    """Figures 2 and 3 (throughput, MB/s), 4 and 5 (percentage of the best throughput) against the striping
    unit, a panel per concurrency and a curve per size, for each disk run; and Figure 7."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for preset, t_all in result["runs"].items():
        title = f"RAID5 of {spec()['disks']} {published(preset)['disk']}"
        # Reads and writes on one scale, so that Figure 3's curves sit below Figure 2's as the paper says.
        low, high = t_all["mb_per_s"].min(), t_all["mb_per_s"].max()
        for op, fig_no in (("read", 2), ("write", 3)):
            fig, panels = _by_concurrency(plt, t_all[t_all["op"] == op], "mb_per_s", "throughput (MB/s)")
            for ax, _ in panels:
                ax.set_yscale("log")
                ax.yaxis.set_major_formatter(_plain)
                ax.set_ylim(low / 1.3, high * 1.3)
            fig.suptitle(f"Chen & Lee Figure {fig_no}: {op} throughput, {title}")
            paths.append(save_figure(fig, os.path.join(out_dir, f"figure{fig_no}-{preset}.png")))
        for op, fig_no in (("read", 4), ("write", 5)):
            t = t_all[t_all["op"] == op]
            fig, panels = _by_concurrency(plt, t, "pct_of_best", "% of maximum throughput", scale=100)
            for ax, c in panels:
                worst = t[t["concurrency"] == c].groupby("unit_bytes")["pct_of_best"].min()
                ax.plot(worst.idxmax() / KB, 100 * worst.max(), "ko", mfc="none", ms=10)
                ax.set_ylim(0, 105)
            fig.suptitle(f"Chen & Lee Figure {fig_no}: {op}s, {title} "
                         f"(circle: the unit that guarantees most to every size)")
            paths.append(save_figure(fig, os.path.join(out_dir, f"figure{fig_no}-{preset}.png")))
    if result["by_disks"]:
        fig, ax = plt.subplots(figsize=(5, 3.5))
        n = [r["disks"] for r in result["by_disks"]]
        for k, m in (("Z_r", "+-"), ("Z_w", "o-"), ("Z_rw", "s-")):
            ax.plot(n, [r[k] for r in result["by_disks"]], m, label=k)
        ax.set_xscale("log", base=2)
        ax.set_xticks(n, [str(x) for x in n])
        ax.set_xlabel("number of disks")
        ax.set_ylabel("zero-knowledge coefficient Z")
        ax.set_title("Chen & Lee Figure 7: Z against the number of disks\n(IBM Lightning)", fontsize=10)
        ax.legend()
        paths.append(save_figure(fig, os.path.join(out_dir, "figure7.png")))
    return paths


def _by_concurrency(plt: Any, t: pd.DataFrame, column: str, ylabel: str, scale: float = 1.0):
    """A figure of one panel per concurrency, a curve of ``column`` (times ``scale``) per size against the
    striping unit; returns it and its (axes, concurrency) pairs."""
    concs = sorted(t["concurrency"].unique())
    # At most four panels a row: the full grid's seven in one row are too narrow to read.
    cols = min(4, len(concs))
    rows = -(-len(concs) // cols)
    units = t["unit_bytes"] / KB
    ticks = [4 ** k for k in range(6) if units.min() <= 4 ** k <= units.max()]  # 1, 4, ... 1024 KB
    fig, axes = plt.subplots(rows, cols, figsize=(3.0 * cols + 1.2, 3.0 * rows), sharey=True, squeeze=False)
    flat = list(axes.flat)
    for i, (ax, c) in enumerate(zip(flat, concs)):
        for size in spec()["sizes"]:
            s = t[(t["concurrency"] == c) & (t["size"] == size)].sort_values("unit_bytes")
            ax.plot(s["unit_bytes"] / KB, scale * s[column], marker="o", ms=3, label=size)
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks)
        ax.xaxis.set_major_formatter(_plain)
        ax.set_title(f"concurrency {c}")
        ax.set_xlabel("striping unit (KB)")
        if i % cols == 0:
            ax.set_ylabel(ylabel)
    # Beside the panels, in a spare slot if there is one: inside one, it hides its curves.
    handles, labels = flat[0].get_legend_handles_labels()
    for ax in flat[len(concs):]:
        ax.axis("off")
    spare = flat[len(concs)] if len(flat) > len(concs) else None
    (spare or flat[cols - 1]).legend(handles, labels, fontsize=9, title="request size", title_fontsize=9,
                                     **({"loc": "center"} if spare else {"loc": "upper left",
                                                                         "bbox_to_anchor": (1.02, 1.0)}))
    return fig, list(zip(flat, concs))


def _plain(value: float, _pos: Any) -> str:
    """A tick as a reader writes it (16, 0.1), not as a power (2^4, 10^-1)."""
    return f"{value:g}"
