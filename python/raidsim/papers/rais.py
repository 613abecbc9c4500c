"""The RAIS paper (Kim et al., ORNL 2010): cost efficiency (§5.4).

Performance and capacity per dollar of drives and RAID controller: IOPS/$
for small random work, MB/s/$ for large sequential work, GB/$. A priced
simulation reports them itself (the report's ``cost`` section, from
``ssd.price_usd`` and ``array.controller.price_usd``); here the same
arithmetic runs on the paper's own Table 5, which is how its Figure 7 was
drawn, so that its claims can be checked against its numbers.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

from .. import _text_table
from ..study import replicates
from ..study.spec import Study
from ..study.sweep import run_study
from .packaged import packaged_spec
from .rows import PublishedRows


def spec() -> Dict[str, Any]:
    """The packaged data file ``experiments/rais.toml``."""
    return packaged_spec("rais")


def configuration_costs() -> Dict[str, float]:
    """Table 6's configurations priced by Table 2 and the controller: US dollars each."""
    sp = spec()
    price = {d["label"]: d["price_usd"] for d in sp["drives"]}
    return {c["name"]: c["drives"] * price[c["drive"]] + c["controllers"] * sp["controller_price_usd"]
            for c in sp["configurations"]}


def figure7_from_table5() -> List[Dict[str, Any]]:
    """Figure 7(a) and 7(c) from Table 5 and Table 6: per configuration and read share,
    IOPS/$ and GB/$, and each normalised to RAIS-0(B) as the figure is."""
    sp = spec()
    cost = configuration_costs()
    capacity = {c["name"]: c["capacity_gb"] for c in sp["configurations"]}
    t5 = sp["table5"]
    rows = []
    for i, reads in enumerate(t5["read_percent"]):
        base = t5["iops"]["RAIS-0(B)"][i] / cost["RAIS-0(B)"]
        for name, iops in t5["iops"].items():
            per_usd = iops[i] / cost[name]
            rows.append({"configuration": name, "read_percent": reads, "iops_per_usd": per_usd,
                         "iops_per_usd_vs_rais0b": per_usd / base, "gb_per_usd": capacity[name] / cost[name]})
    return rows


def published() -> Dict[Tuple[str, str, str], float]:
    """Every number of the paper that :func:`run` sets beside its own, by (figure, case, metric) as its rows
    name them (the normalising RAIS-0(B) of Figure 7 left out): what a full run must hold."""
    sp = spec()
    out: Dict[Tuple[str, str, str], float] = {}
    for d in sp["drives"]:
        for op in ("read", "write"):
            out[("Figure 1", f"{d['label']} sequential {op}", "peak_mb_per_s")] = d[f"seq_{op}_mb_per_s"]
    for p in sp["published"]:
        out[(p["figure"], p["case"], p["metric"])] = p["value"]
    t3, t4, t5 = sp["table3"], sp["table4"], sp["table5"]
    for label in ("SSD(A)", "SSD(B)"):
        for i, w in enumerate(t3["write_percent"]):
            for stat in ("avg", "stdev"):
                out[("Table 3", f"{label}, {w} % writes", f"{stat}_mb_per_s")] = t3[label][stat][i]
        for i, level in enumerate(t4["levels"]):
            for stat in ("avg", "stdev"):
                out[("Table 4", f"{level}({label[-2]})", f"{stat}_mb_per_s")] = t4[f"RAIS({label[-2]})"][stat][i]
    costs = configuration_costs()
    for c in sp["configurations"]:
        for i, reads in enumerate(t5["read_percent"]):
            out[("Table 5", f"{c['name']}, {reads} % reads", "iops")] = t5["iops"][c["name"]][i]
        out[("Table 6", c["name"], "capacity_gb")] = c["capacity_gb"]
        out[("Table 6", c["name"], "total_usd")] = costs[c["name"]]
    for r in figure7_from_table5():
        if r["configuration"] != "RAIS-0(B)":
            out[("Figure 7", f"{r['configuration']}, {r['read_percent']} % reads", "iops_per_usd_vs_rais0b")] = \
                r["iops_per_usd_vs_rais0b"]
    gb = {c["name"]: c["capacity_gb"] / costs[c["name"]] for c in sp["configurations"]}
    for name in gb:
        if name != "RAIS-0(B)":
            out[("Figure 7", name, "gb_per_usd_vs_rais0b")] = gb[name] / gb["RAIS-0(B)"]
    return out


def figure1_peaks(labels: Optional[List[str]] = None) -> List[Dict[str, Any]]:
    """Each drive preset's peak sequential read and write bandwidth beside
    the paper's (§5.1.1), as rows {figure, case, metric, raidsim, paper}:
    the reproduction's benchmark (warm-up included) at Figure 1's largest
    request and queue depth (``[figure1_peak]``).

    The drives start fresh (no preconditioning): a sequential run of this
    length never collects garbage, and neither does a drive warmed with
    the same sequential pattern, whose overwrites free whole blocks."""
    from ..api import simulate
    from ..config import Config

    f = spec()["figure1_peak"]
    rows = []
    for d in spec()["drives"]:
        if labels is not None and d["label"] not in labels:
            continue
        for read in (True, False):
            workload = _workload(grid(False), read_percent=100 if read else 0, queue_depth=f["queue_depth"],
                                 size=f["request_bytes"], sequential=True, requests=f["requests"])
            report = simulate(Config.preset(d["preset"]).with_overrides(workload), progress=False)
            rows.append({"figure": "Figure 1", "case": f"{d['label']} sequential {_op(read)}", "metric": "mb_per_s",
                         "raidsim": report.to_dict()["host"]["mb_per_s"], "paper": float(d[f"seq_{_op(read)}_mb_per_s"])})
    return rows


# --- `raidsim reproduce rais`: Figures 1-7 and Tables 3-6 by simulation -------------------------------

MIB = 1 << 20
HARMONIA = "Harmonia (beyond the paper)"
READ_AHEAD = "Read-ahead (beyond the paper)"
DRIVES = {"SSD(A)": "rais-ssd-a", "SSD(B)": "rais-ssd-b", "SSD(C)": "rais-ssd-c"}
# §5.2: four data drives in each scheme; §5.3: six drives in each.
LEVELS_4 = {"RAIS-0": ("raid0", 4), "RAIS-5": ("raid5", 5), "RAIS-6": ("raid6", 6)}
LEVELS_6 = {"RAIS-0": ("raid0", 6), "RAIS-5": ("raid5", 6), "RAIS-6": ("raid6", 6)}
RUN_METRICS = ["host.requests", "host.iops", "host.mb_per_s", "host.response.mean_ns"]
SERIES_METRICS = ["host.mb_per_s", "time_series.steadiness.intervals", "time_series.steadiness.mb_per_s_mean",
                  "time_series.steadiness.mb_per_s_std", "time_series.mb_per_s", "devices.gc_runs"]
COST_METRICS = RUN_METRICS + ["cost.total_usd", "cost.capacity_gb", "cost.iops_per_usd", "cost.mb_per_s_per_usd",
                              "cost.gb_per_usd"]


def grid(quick: bool) -> Dict[str, Any]:
    """What is swept: ``[reproduce]`` of ``experiments/rais.toml``, or with its ``[quick]`` table over it."""
    r = dict(spec()["reproduce"])
    quick_table = r.pop("quick")
    if quick:
        r.update(quick_table)
    return r


def _workload(g: Mapping[str, Any], *, read_percent: float, queue_depth: int, size: int, sequential: bool,
              requests: Optional[int] = None) -> Dict[str, Any]:
    """The paper's libaio benchmark as dotted settings: a closed loop at ``queue_depth``, warmed up with
    the same pattern (the warm-up requests come first and are not measured)."""
    if requests is None:
        # Sequential points move about `sequential_bytes`, and at least eight requests per outstanding one.
        requests = g["random_requests"] if not sequential else max(200, 8 * queue_depth, min(20000, g["sequential_bytes"] // size))
    warmup = int(requests * g["warmup_fraction"])
    out = {"workload.kind": "synthetic", "workload.requests": requests + warmup, "sim.warmup_requests": warmup,
           "workload.processes": queue_depth, "workload.read_fraction": read_percent / 100.0,
           "workload.size.kind": "fixed", "workload.size.mean_bytes": size,
           "workload.address": "sequential" if sequential else "uniform"}
    if not sequential:
        out["workload.span_bytes"] = g["random_span_bytes"]
    return out


def _array(level: str, members: int) -> Dict[str, Any]:
    return {"array.level": level, "array.members": members, "array.controller.price_usd": spec()["controller_price_usd"],
            **spec()["controller"]}


def _op(read: bool) -> str:
    return "read" if read else "write"


def _study(name: str, preset: str, cases: List[Dict[str, Any]], metrics: Sequence[str], replicates: int = 1,
           base: Optional[Dict[str, Any]] = None) -> Study:
    return Study.from_dict({"name": name, "title": f"Kim et al. 2010 (RAIS): {name}", "base": {"preset": preset, **(base or {})},
                            "metrics": list(metrics), "cases": cases, "replicates": replicates})


def _single_drive_studies(g: Mapping[str, Any]) -> Dict[str, Study]:
    out = {}
    for label, preset in DRIVES.items():
        seq = [{"name": f"{label}|{_op(read)}|{size}|{q}",
                "set": _workload(g, read_percent=100 if read else 0, queue_depth=q, size=size, sequential=True)}
               for read in (True, False) for size in g["request_bytes"] for q in g["queue_depths"]]
        out[f"fig1 {label}"] = _study(f"rais-fig1-{preset}", preset, seq, RUN_METRICS)
        rnd = [{"name": f"{label}|{_op(read)}|4096|{q}",
                "set": _workload(g, read_percent=100 if read else 0, queue_depth=q, size=4096, sequential=False)}
               for read in (True, False) for q in g["queue_depths"]]
        out[f"fig2 {label}"] = _study(f"rais-fig2-{preset}", preset, rnd, RUN_METRICS, g["replicates"])
    return out


def _array_studies(g: Mapping[str, Any]) -> Dict[str, Study]:
    out = {}
    for label in ("SSD(A)", "SSD(B)"):
        preset, tag = DRIVES[label], label[-2]
        seq = [{"name": f"{scheme}({tag})|{_op(read)}|{MIB}|{q}",
                "set": {**_array(*LEVELS_4[scheme]), **_workload(g, read_percent=100 if read else 0, queue_depth=q,
                                                                size=MIB, sequential=True)}}
               for scheme in LEVELS_4 for read in (True, False) for q in g["queue_depths"]]
        out[f"fig3 {label}"] = _study(f"rais-fig3-{preset}", preset, seq, RUN_METRICS)
        rnd = [{"name": f"{scheme}({tag})|{_op(read)}|4096|{q}",
                "set": {**_array(*LEVELS_4[scheme]), **_workload(g, read_percent=100 if read else 0, queue_depth=q,
                                                                size=4096, sequential=False)}}
               for scheme in LEVELS_4 for read in (True, False) for q in g["queue_depths"]]
        out[f"fig4 {label}"] = _study(f"rais-fig4-{preset}", preset, rnd, RUN_METRICS, g["replicates"])
    return out


def _series(g: Mapping[str, Any], write_percent: float, drives: int = 1) -> Dict[str, Any]:
    """Figures 5-6: large sequential work, 1 s intervals, on drives in the steady state of that work: filled,
    then rewritten once in order, so the spare area is used up and garbage collection runs from the first
    measured write (a fill alone leaves 13-26 % of the flash free, more than a run writes)."""
    return {**_workload(g, read_percent=100 - write_percent, queue_depth=g["time_series_queue_depth"], size=MIB,
                        sequential=True, requests=g["time_series_requests"] * drives),
            "precondition.fill_fraction": 1.0, "precondition.sequential_overwrite_factor": 1.0,
            "metrics.interval_ns": 1_000_000_000}


def _pathology_studies(g: Mapping[str, Any]) -> Dict[str, Study]:
    out = {}
    for label in ("SSD(A)", "SSD(B)"):
        preset, tag = DRIVES[label], label[-2]
        single = [{"name": f"{label}|write {w}", "set": _series(g, w)} for w in g["figure5_write_percents"]]
        out[f"fig5 {label}"] = _study(f"rais-fig5-{preset}", preset, single, SERIES_METRICS)
        # Six drives move about six times the bytes per second: six times the requests keep the intervals.
        arrays = [{"name": f"{scheme}({tag})|write {g['figure6_write_percent']}",
                   "set": {**_array(*LEVELS_6[scheme]), **_series(g, g["figure6_write_percent"], drives=6)}}
                  for scheme in LEVELS_6]
        out[f"fig6 {label}"] = _study(f"rais-fig6-{preset}", preset, arrays, SERIES_METRICS)
        out[f"harmonia {label}"] = _study(f"rais-harmonia-{preset}", preset, _harmonia_cases(g, tag), SERIES_METRICS)
    return out


def _harmonia_cases(g: Mapping[str, Any], tag: str) -> List[Dict[str, Any]]:
    """Figure 6's arrays on aged drives, local and global (Harmonia) collection (``[reproduce.harmonia]``)."""
    h = g["harmonia"]
    aged = {"ssd.geometry.blocks_per_plane": h["blocks_per_plane"],
            "precondition.random_overwrite_factor": h["random_overwrite_factor"],
            "precondition.sequential_overwrite_factor": 0.0,  # a sequential pass would undo the random aging
            "array.gc_forced_free_fraction": h["forced_free_fraction"]}
    return [{"name": f"{scheme}({tag})|{coordination}",
             "set": {**_array(*LEVELS_6[scheme]), **_series(g, g["figure6_write_percent"], drives=6), **aged,
                     "array.gc_coordination": coordination}}
            for scheme in LEVELS_6 for coordination in ("local", "global")]


def _read_ahead_study(g: Mapping[str, Any]) -> Dict[str, Study]:
    """The controller reading ahead (``[reproduce.read_ahead]``): SSD(A)'s arrays, sequential and random reads."""
    ra = g["read_ahead"]
    cases = []
    for scheme in ra["levels"]:
        level, drives = LEVELS_4[scheme]
        data_drives = drives - {"raid0": 0, "raid5": 1, "raid6": 2}[level]
        array = _array(level, drives)
        points = [("sequential", size, q) for size in ra["sequential_bytes"] for q in ra["queue_depths"]]
        points.append(("random", 4096, ra["queue_depths"][-1]))
        for pattern, size, q in points:
            for policy in ra["policies"]:
                on = {} if policy == "off" else {
                    "array.controller.read_ahead": policy, "array.controller.cache_bytes": ra["cache_bytes"],
                    "array.controller.read_ahead_bytes": data_drives * array["array.stripe_unit_bytes"]}
                cases.append({"name": f"{scheme}(A)|{pattern}|{size}|{q}|{policy}",
                              "set": {**array, **_workload(g, read_percent=100, queue_depth=q, size=size,
                                                           sequential=pattern == "sequential"), **on}})
    return {"read-ahead": _study("rais-read-ahead-rais-ssd-a", DRIVES["SSD(A)"], cases, RUN_METRICS)}


def _cost_studies(g: Mapping[str, Any]) -> Dict[str, Study]:
    """Table 5 / Figure 7: Table 6's configurations, 4 KiB random (IOPS) and 1 MiB sequential (MB/s) by read share."""
    out = {}
    q = g["table5_queue_depth"]
    for c in spec()["configurations"]:
        preset = DRIVES[c["drive"]]
        array = _array("raid0", c["drives"]) if c["drives"] > 1 else {}
        rnd = [{"name": f"{c['name']}|{r}", "set": {**array, **_workload(g, read_percent=r, queue_depth=q, size=4096,
                                                                         sequential=False)}}
               for r in g["table5_read_percents"]]
        out[f"table5 {c['name']}"] = _study(f"rais-table5-{preset}", preset, rnd, COST_METRICS, g["replicates"])
        seq = [{"name": f"{c['name']}|{r}", "set": {**array, **_workload(g, read_percent=r, queue_depth=q, size=MIB,
                                                                         sequential=True)}}
               for r in g["table5_read_percents"]]
        out[f"table5mb {c['name']}"] = _study(f"rais-table5mb-{preset}", preset, seq, COST_METRICS)
    return out


def studies(g: Mapping[str, Any]) -> Dict[str, Study]:
    """Every study the reproduction runs, by key."""
    return {**_single_drive_studies(g), **_array_studies(g), **_pathology_studies(g), **_cost_studies(g),
            **_read_ahead_study(g)}


def run(out_dir: str, *, quick: bool = False, workers: Optional[int] = None, progress: Optional[bool] = None) -> Dict[str, Any]:
    """Runs (or resumes) every study into ``out_dir``; returns the rows and the tables."""
    g = grid(quick)
    tables = {}
    for key, study in studies(g).items():
        t = run_study(study, os.path.join(out_dir, study.name), workers=workers, progress=progress)
        tables[key] = t.join(t["case"].str.split("|", expand=True).rename(columns=lambda i: f"k{i}"))
    return {"rows": rows(tables, g), "tables": tables, "quick": quick, "grid": g}


# --- rows --------------------------------------------------------------------------------------------

def _size_label(size: int) -> str:
    return f"{size // MIB} MiB" if size >= MIB else f"{size // 1024} KiB"


def _mean(t: pd.DataFrame, keys: Sequence[str], metric: str) -> pd.DataFrame:
    """Mean, deviation and 95 % half-width of ``metric`` over replicates, per ``keys``."""
    out = []
    for k, part in t[t["status"] == "ok"].groupby(list(keys), sort=False):
        out.append({**dict(zip(keys, k if isinstance(k, tuple) else (k,))), **replicates.interval(part[metric].tolist())})
    return pd.DataFrame(out)


def _figure1(out: PublishedRows, tables: Mapping[str, pd.DataFrame]) -> None:
    for d in spec()["drives"]:
        t = tables[f"fig1 {d['label']}"]
        for _, r in t.iterrows():
            out.add("Figure 1", f"{d['label']} sequential {r.k1}, {_size_label(int(r.k2))}, QD {r.k3}", "mb_per_s",
                    r["host.mb_per_s"])
        for op in ("read", "write"):
            out.add("Figure 1", f"{d['label']} sequential {op}", "peak_mb_per_s", t[t.k1 == op]["host.mb_per_s"].max())


def _random_rows(out: PublishedRows, figure: str, t: pd.DataFrame) -> None:
    """IOPS (mean of the replicates, with its 95 % half-width) by operation and queue depth, and how
    far each scales from the shallowest queue to the deepest."""
    m = _mean(t, ["k0", "k1", "k3"], "host.iops")
    m["q"] = m["k3"].astype(int)
    for _, r in m.iterrows():
        case = f"{r.k0} random {r.k1}, QD {r.q}"
        out.add(figure, case, "iops", r["mean"])
        out.add(figure, case, "iops_ci95_half_width", r["ci_half_width"])
    for (name, op), part in m.groupby(["k0", "k1"], sort=False):
        part = part.sort_values("q")
        out.add(figure, f"{name} random {op}", f"iops_qd{part.q.iloc[-1]}_over_qd{part.q.iloc[0]}",
                part["mean"].iloc[-1] / part["mean"].iloc[0])


def _figure2_4(out: PublishedRows, tables: Mapping[str, pd.DataFrame]) -> None:
    for label in DRIVES:
        _random_rows(out, "Figure 2", tables[f"fig2 {label}"])
    for label in ("SSD(A)", "SSD(B)"):
        _random_rows(out, "Figure 4", tables[f"fig4 {label}"])


def _figure3(out: PublishedRows, tables: Mapping[str, pd.DataFrame]) -> None:
    for label in ("SSD(A)", "SSD(B)"):
        t = tables[f"fig3 {label}"]
        for _, r in t.iterrows():
            out.add("Figure 3", f"{r.k0} sequential {r.k1}, 1 MiB, QD {r.k3}", "mb_per_s", r["host.mb_per_s"])
        for (name, op), part in t.groupby(["k0", "k1"], sort=False):
            case = f"{name} sequential {op}"
            out.add("Figure 3", case, "peak_mb_per_s", part["host.mb_per_s"].max())


def _interval_range(out: PublishedRows, figure: str, case: str, r: pd.Series, columns: Sequence[str]) -> None:
    """The lowest and highest whole 1 s interval of a run's bandwidth (the last, partial one left out)."""
    series = [r[c] for c in columns if r[c] == r[c]][:-1]
    for metric, value in (("min_interval_mb_per_s", min(series, default=None)), ("max_interval_mb_per_s", max(series, default=None))):
        out.add(figure, case, metric, value)


def _tables3_4(out: PublishedRows, tables: Mapping[str, pd.DataFrame]) -> None:
    for label in ("SSD(A)", "SSD(B)"):
        t = tables[f"fig5 {label}"]
        for _, r in t.iterrows():
            case = f"{label}, {int(r.k1.split()[1])} % writes"
            out.add("Table 3", case, "avg_mb_per_s", r["time_series.steadiness.mb_per_s_mean"])
            out.add("Table 3", case, "stdev_mb_per_s", r["time_series.steadiness.mb_per_s_std"])
            out.add("Table 3", case, "intervals", r["time_series.steadiness.intervals"])
            out.add("Table 3", case, "gc_runs", r["devices.gc_runs[0]"])
            _interval_range(out, "Figure 5", case, r, [c for c in t.columns if c.startswith("time_series.mb_per_s[")])
        t = tables[f"fig6 {label}"]
        for _, r in t.iterrows():
            out.add("Table 4", r.k0, "avg_mb_per_s", r["time_series.steadiness.mb_per_s_mean"])
            out.add("Table 4", r.k0, "stdev_mb_per_s", r["time_series.steadiness.mb_per_s_std"])
            out.add("Table 4", r.k0, "intervals", r["time_series.steadiness.intervals"])
            _interval_range(out, "Figure 6", r.k0, r, [c for c in t.columns if c.startswith("time_series.mb_per_s[")])


def _harmonia_rows(out: PublishedRows, tables: Mapping[str, pd.DataFrame]) -> None:
    """Mean and deviation of the 1 s bandwidth with each SSD collecting on its own or all together."""
    for label in ("SSD(A)", "SSD(B)"):
        for _, r in tables[f"harmonia {label}"].iterrows():
            mean, std = r["time_series.steadiness.mb_per_s_mean"], r["time_series.steadiness.mb_per_s_std"]
            case = f"{r.k0} aged, {r.k1} collection"
            out.add(HARMONIA, case, "avg_mb_per_s", mean)
            out.add(HARMONIA, case, "stdev_mb_per_s", std)
            out.add(HARMONIA, case, "stdev_over_avg", std / mean if mean and std == std else None)


def _read_ahead_rows(out: PublishedRows, tables: Mapping[str, pd.DataFrame]) -> None:
    """Read bandwidth by read-ahead policy."""
    for _, r in tables["read-ahead"].iterrows():
        case = f"{r.k0} {r.k1} {_size_label(int(r.k2))} reads, depth {r.k3}, read-ahead {r.k4}"
        out.add(READ_AHEAD, case, "mb_per_s", r["host.mb_per_s"])


def _cost_rows(out: PublishedRows, tables: Mapping[str, pd.DataFrame]) -> None:
    sp = spec()
    paper7 = {(r["configuration"], r["read_percent"]): r for r in figure7_from_table5()}
    costs = configuration_costs()
    iops, mbps, total, capacity = {}, {}, {}, {}
    for c in sp["configurations"]:
        name = c["name"]
        m = _mean(tables[f"table5 {name}"], ["k1"], "host.iops")
        s = tables[f"table5mb {name}"].set_index("k1")
        total[name] = float(tables[f"table5 {name}"]["cost.total_usd"].iloc[0])
        capacity[name] = float(tables[f"table5 {name}"]["cost.capacity_gb"].iloc[0])
        for _, r in m.iterrows():
            reads = int(r.k1)
            out.add("Table 5", f"{name}, {reads} % reads", "iops", r["mean"])
            out.add("Table 5", f"{name}, {reads} % reads", "iops_ci95_half_width", r["ci_half_width"])
            iops[(name, reads)] = r["mean"]
            mbps[(name, reads)] = float(s.loc[r.k1, "host.mb_per_s"])
            out.add("Table 5", f"{name}, {reads} % reads", "mb_per_s", mbps[(name, reads)])
        out.add("Table 6", name, "capacity_gb", capacity[name])
        out.add("Table 6", name, "total_usd", total[name])
    for (name, reads), v in iops.items():
        base = ("RAIS-0(B)", reads)
        case = f"{name}, {reads} % reads"
        p = paper7.get((name, reads))  # RAIS-0(B)'s own 1 too: the reference of the normalisation
        out.add("Figure 7", case, "iops_per_usd_vs_rais0b", (v / total[name]) / (iops[base] / total["RAIS-0(B)"]),
                paper=p["iops_per_usd_vs_rais0b"] if p else None)
        out.add("Figure 7", case, "mb_per_s_per_usd_vs_rais0b",
                (mbps[(name, reads)] / total[name]) / (mbps[base] / total["RAIS-0(B)"]))
    paper_gb = {c["name"]: c["capacity_gb"] / costs[c["name"]] for c in sp["configurations"]}
    for name in total:
        out.add("Figure 7", name, "gb_per_usd_vs_rais0b",
                (capacity[name] / total[name]) / (capacity["RAIS-0(B)"] / total["RAIS-0(B)"]),
                paper=paper_gb[name] / paper_gb["RAIS-0(B)"])


def rows(tables: Mapping[str, pd.DataFrame], g: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """The rows of every figure and table: {figure, case, metric, raidsim, paper}."""
    out = PublishedRows(published())
    _figure1(out, tables)
    _figure2_4(out, tables)
    _figure3(out, tables)
    _tables3_4(out, tables)
    _harmonia_rows(out, tables)
    _read_ahead_rows(out, tables)
    _cost_rows(out, tables)
    order = ["Figure 1", "Figure 2", "Figure 3", "Figure 4", "Figure 5", "Table 3", "Figure 6", "Table 4", HARMONIA, READ_AHEAD,
             "Table 5", "Table 6", "Figure 7"]
    return sorted(out.rows(), key=lambda r: order.index(r["figure"]))


# --- text and figures --------------------------------------------------------------------------------

def text(result: Mapping[str, Any], width: Optional[int] = None) -> str:
    """Rows with a published number beside ours, then each figure's own rows as tables: a line per case, a
    column per measure, the cases that share a measure in one table. ``width``: a table wider than this many
    characters is cut into blocks of columns, each repeating the row labels (the CLI passes the terminal's);
    None, one block however wide."""
    df = pd.DataFrame(result["rows"])
    g = result["grid"]
    out = [_text_table.fill(
        f"Kim et al. 2010 (RAIS), Figures 1-7 and Tables 3-6 by simulation{' (quick grid)' if result['quick'] else ''}: "
        f"queue depths {g['queue_depths']}, {g['replicates']} replicate(s) of each random point, Table 5 at queue "
        f"depth {g['table5_queue_depth']} (not given by the paper: our reading); paper = the number the text gives.",
        width)]
    pub = [r for r in result["rows"] if r["paper"] is not None]
    beside = pd.DataFrame({
        "figure": [r["figure"] for r in pub], "case": [r["case"] for r in pub], "metric": [r["metric"] for r in pub],
        "raidsim": ["not run" if r.get("missing") else _number(r["raidsim"]) for r in pub],
        "paper": [_number(r["paper"]) for r in pub],
        "vs paper": ["" if r["raidsim"] is None or not r["paper"] else f"{100 * (r['raidsim'] / r['paper'] - 1):+.1f} %"
                     for r in pub]}).set_index(["figure", "case", "metric"])
    out += ["", _text_table.fill("Beside the published numbers (not run: a case the quick grid leaves out):", width),
            _text_table.frame(beside, width=width)]
    for fig, part in df[df["paper"].isna()].groupby("figure", sort=False):
        groups = _by_shared_measures(part)
        for cases, _ in groups:
            wide = part[part["case"].isin(cases)].pivot_table(index="case", columns="metric", values="raidsim", sort=False)
            title = f"{fig} (no published number)" + (f": {', '.join(wide.columns)}" if len(groups) > 1 else "")
            out += ["", _text_table.fill(title, width), _text_table.frame(wide, width=width, digits=2)]
    return "\n".join(out)


def _by_shared_measures(part: pd.DataFrame) -> List[Tuple[List[str], List[str]]]:
    """A figure's cases in groups, in the order they first appear: cases that share a measure are in one
    group (a table, a blank where a case lacks a measure of it), cases with none in common in two (a
    figure's points and its summaries, such as a ratio of two depths: no column of blanks)."""
    groups: List[Tuple[List[str], List[str]]] = []
    for case, measures in part.groupby("case", sort=False)["metric"]:
        mine = list(dict.fromkeys(measures))
        hits = [i for i, (_, theirs) in enumerate(groups) if set(theirs) & set(mine)]
        if not hits:
            groups.append(([case], mine))
            continue
        groups[hits[0]] = ([c for i in hits for c in groups[i][0]] + [case],
                           list(dict.fromkeys([m for i in hits for m in groups[i][1]] + mine)))
        for i in reversed(hits[1:]):
            del groups[i]
    return groups


def _number(value: Any) -> str:
    """A published or measured number as the table prints it: whole numbers with separators and no
    decimals, others to three; blank for none."""
    if value is None or value != value:
        return ""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.3f}"


def plot(result: Mapping[str, Any], out_dir: str) -> List[str]:
    """Figures 1-7 as PNGs: bandwidth and IOPS against queue depth (95 % intervals on the replicated
    points), the 1-second bandwidth series, and efficiency per dollar beside Table 5's."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .._figures import save_figure

    tables, paths = result["tables"], []
    for fig_no, title, keys, metric in (
            (1, "sequential bandwidth (MB/s)", [f"fig1 {d}" for d in DRIVES], "host.mb_per_s"),
            (2, "4 KiB random IOPS", [f"fig2 {d}" for d in DRIVES], "host.iops"),
            (3, "RAIS sequential bandwidth, 1 MiB (MB/s)", ["fig3 SSD(A)", "fig3 SSD(B)"], "host.mb_per_s"),
            (4, "RAIS 4 KiB random IOPS", ["fig4 SSD(A)", "fig4 SSD(B)"], "host.iops")):
        fig, axes = plt.subplots(2, len(keys), figsize=(4.4 * len(keys), 6.4), squeeze=False)
        for col, key in enumerate(keys):
            for row, op in enumerate(("read", "write")):
                _curves(axes[row][col], tables[key], op, metric, by_size=fig_no == 1)
                axes[row][col].set_title(f"{key.split()[1]} {op}", fontsize=9)
        fig.suptitle(f"Kim et al. 2010, Figure {fig_no}: {title} against queue depth (raidsim)", fontsize=10)
        paths.append(save_figure(fig, os.path.join(out_dir, f"figure{fig_no}.png")))
    paths.append(_plot_series(plt, tables, out_dir, save_figure))
    paths.append(_plot_harmonia(plt, tables, out_dir, save_figure))
    paths.append(_plot_read_ahead(plt, tables, out_dir, save_figure))
    paths.append(_plot_efficiency(plt, result["rows"], out_dir, save_figure))
    return paths


def _curves(ax: Any, t: pd.DataFrame, op: str, metric: str, by_size: bool) -> None:
    part = t[t["k1"] == op]
    group = "k2" if by_size else "k0"
    for name, lines in part.groupby(group, sort=False):
        m = _mean(lines, ["k3"], metric)
        m["q"] = m["k3"].astype(int)
        m = m.sort_values("q")
        label = _size_label(int(name)) if by_size else name
        ax.errorbar(m["q"], m["mean"], yerr=m["ci_half_width"].fillna(0), marker="o", ms=3, capsize=2, label=label)
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, ax.get_ylim()[1] * 1.05)  # from zero: a flat curve (SSD(A)'s writes) must not look like it scales
    ax.set_xlabel("queue depth", fontsize=8)
    ax.legend(fontsize=7)


def _plot_series(plt: Any, tables: Mapping[str, pd.DataFrame], out_dir: str, save: Any) -> str:
    fig, axes = plt.subplots(2, 2, figsize=(10, 6.4))
    for col, label in enumerate(("SSD(A)", "SSD(B)")):
        for row, key in enumerate((f"fig5 {label}", f"fig6 {label}")):
            ax = axes[row][col]
            for _, r in tables[key].iterrows():
                series = [r[c] for c in tables[key].columns if c.startswith("time_series.mb_per_s[")]
                series = [v for v in series if v == v][:-1]  # the last interval is partial
                ax.plot(range(1, len(series) + 1), series, label=r["k0"] if row else r["k1"])
            ax.set_title(("Figure 5: " if row == 0 else "Figure 6: ") + label, fontsize=9)
            ax.set_xlabel("second", fontsize=8)
            ax.set_ylabel("MB/s", fontsize=8)
            ax.legend(fontsize=7)
    fig.suptitle("Kim et al. 2010, Figures 5-6: bandwidth per 1 s interval, 1 MiB sequential (raidsim)", fontsize=10)
    return save(fig, os.path.join(out_dir, "figure5-6.png"))


def _plot_harmonia(plt: Any, tables: Mapping[str, pd.DataFrame], out_dir: str, save: Any) -> str:
    fig, axes = plt.subplots(2, 3, figsize=(13, 6.4), squeeze=False)
    for row, label in enumerate(("SSD(A)", "SSD(B)")):
        t = tables[f"harmonia {label}"]
        columns = [c for c in t.columns if c.startswith("time_series.mb_per_s[")]
        for col, scheme in enumerate(LEVELS_6):
            ax = axes[row][col]
            for _, r in t[t["k0"].str.startswith(scheme)].iterrows():
                series = [r[c] for c in columns if r[c] == r[c]][:-1]
                ax.plot(range(1, len(series) + 1), series, label=f"{r.k1} collection", lw=0.8)
            ax.set_title(f"{scheme}({label[-2]}), aged drives", fontsize=9)
            ax.set_xlabel("second", fontsize=8)
            ax.set_ylabel("MB/s", fontsize=8)
            ax.legend(fontsize=7)
    fig.suptitle("Beyond the paper: Figure 6's arrays on aged drives, each SSD collecting on its own (local) "
                 "or all together (global, Harmonia); raidsim", fontsize=10)
    return save(fig, os.path.join(out_dir, "harmonia.png"))


def _plot_read_ahead(plt: Any, tables: Mapping[str, pd.DataFrame], out_dir: str, save: Any) -> str:
    t = tables["read-ahead"]
    policies = list(dict.fromkeys(t["k4"]))
    levels = list(dict.fromkeys(t["k0"]))
    fig, axes = plt.subplots(1, len(levels), figsize=(6 * len(levels), 3.8), squeeze=False)
    for ax, level in zip(axes[0], levels):
        part = t[t["k0"] == level]
        points = list(dict.fromkeys(zip(part["k1"], part["k2"], part["k3"])))
        width = 0.8 / len(policies)
        for i, policy in enumerate(policies):
            values = [float(part[(part["k1"] == a) & (part["k2"] == b) & (part["k3"] == c) & (part["k4"] == policy)]
                            ["host.mb_per_s"].iloc[0]) for a, b, c in points]
            ax.bar([x + i * width for x in range(len(points))], values, width, label=f"read-ahead {policy}")
        ax.set_xticks([x + width * (len(policies) - 1) / 2 for x in range(len(points))])
        ax.set_xticklabels([f"{a}\n{_size_label(int(b))}, depth {c}" for a, b, c in points], fontsize=7)
        ax.set_ylabel("read MB/s", fontsize=8)
        ax.set_title(level, fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle("Beyond the paper: the controller's read-ahead (Table 1: off) on SSD(A)'s arrays; raidsim", fontsize=10)
    return save(fig, os.path.join(out_dir, "read-ahead.png"))


def _plot_efficiency(plt: Any, rows_: Sequence[Mapping[str, Any]], out_dir: str, save: Any) -> str:
    df = pd.DataFrame(rows_)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for ax, metric, title in ((axes[0], "iops_per_usd_vs_rais0b", "(a) IOPS per $"),
                              (axes[1], "mb_per_s_per_usd_vs_rais0b", "(b) MB/s per $")):
        part = df[(df["figure"] == "Figure 7") & (df["metric"] == metric)].copy()
        part[["configuration", "reads"]] = part["case"].str.extract(r"(.*), (\d+) % reads")
        for name, lines in part.groupby("configuration", sort=False):
            line = ax.plot(lines["reads"].astype(int), lines["raidsim"], marker="o", label=f"{name} raidsim")
            if lines["paper"].notna().any():
                ax.plot(lines["reads"].astype(int), lines["paper"], ls="--", marker="x", color=line[0].get_color(),
                        label=f"{name} Table 5")
        ax.set_title(title + ", normalised to RAIS-0(B)", fontsize=9)
        ax.set_xlabel("reads (%)", fontsize=8)
        ax.legend(fontsize=6)
    fig.suptitle("Kim et al. 2010, Figure 7 (raidsim beside the paper's Table 5)", fontsize=10)
    return save(fig, os.path.join(out_dir, "figure7.png"))
