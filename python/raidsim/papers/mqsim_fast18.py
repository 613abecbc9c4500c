"""Two flows sharing one NVMe SSD: the multi-flow experiments of MQSim's paper, beside MQSim.

MQSim (Tavakkol et al., "MQSim: A Framework for Enabling Realistic Studies of Modern Multi-Queue SSD
Devices", FAST'18) ships the inputs of its paper's multi-flow experiments in ``fast18/``: one drive
(raidsim's preset ``mqsim-fast18``) and, per experiment, three workload files — flow 1 alone, flow 2
alone, both at once — whose scenarios raise flow 2's queue depth while flow 1's stays put, 10 simulated
seconds each. A flow's *slowdown* is its mean response time shared over alone; a scenario's *fairness* is
the smallest slowdown over the largest (the paper's §6.1, after Mutlu & Moscibroda).

- **backend contention** (``Queue_Fetch_Size`` 512): both flows read 4 KiB at random from half their
  part, on chips 0 and 1 of every channel; flow 1 at queue depth 2, flow 2 at 2 to 256. The deeper flow
  takes the dies and buses: both slow down alike, flow 1 far more than its own load explains.
- **queue fetch size** 16 and 1024: the same reads, flow 1 at 8, flow 2 at 8 to 256. With 16, the device
  holds at most 16 of a flow's commands, so flow 2's extra depth waits in its own submission queue and
  flow 1 is shielded; with 1024, flow 2 floods the device as in the first experiment.
- **data-cache contention**: each flow writes 4 KiB on its own four channels, so the flows share only the
  controller, its 256 MiB write cache and its write-back buffer; flow 1 rewrites a small hot set the
  cache absorbs, flow 2 writes a small hot set too, then at random over its whole part, deeper and deeper.

:func:`run` renders each scenario as a flows workload (``workload.kind = "flows"``, each flow's
``channels``, ``chips`` and ``fill_fraction`` as MQSim's ``Channel_IDs``, ``Chip_IDs`` and
``Initial_Occupancy_Percentage``) on the preset, and the study file ``experiments/mqsim-fast18.toml``
holds MQSim's figures, recorded by ``bench/peers/mqsim_fast18.py`` (the command and what differs from
MQSim's own files are beside them).
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .packaged import packaged_spec

NAME = "mqsim-fast18"


def spec() -> Dict[str, Any]:
    return packaged_spec(NAME)


def experiment(name: str) -> Dict[str, Any]:
    """The study file's table of experiment ``name``."""
    for e in spec()["experiments"]:
        if e["name"] == name:
            return e
    raise KeyError(f"no experiment `{name}` in {NAME}; valid: {', '.join(e['name'] for e in spec()['experiments'])}")


def _flows(e: Mapping[str, Any], sc: Mapping[str, Any], which: Sequence[int], capacity: int) -> List[Dict[str, Any]]:
    """The ``[[workload.flows]]`` tables of flows ``which`` (indices into the scenario) of experiment ``e``,
    each on its own part of a drive of ``capacity`` bytes as MQSim sizes parts (a chip's capacity divided
    among the flows on it), its working set from the part's start."""
    s = spec()
    size = s["request_bytes"]
    channels = e.get("channels") or [list(range(CHANNELS))] * len(sc["depths"])
    flows = []
    for i in which:
        chips = e.get("chips") or list(range(CHIPS_PER_CHANNEL))
        on_same = sum(1 for j in which if channels[j] == channels[i])  # flows share their chips whole or not at all
        part = capacity * len(channels[i]) * len(chips) // (CHANNELS * CHIPS_PER_CHANNEL * on_same)
        working_set = sc["working_set"][i] if "working_set" in sc else s["working_set_fraction"]
        f = {"requests": 0, "processes": sc["depths"][i], "read_fraction": 0.0 if e.get("writes") else 1.0,
             "address": "uniform", "size": {"kind": "fixed", "mean_bytes": size},
             "alignment_bytes": e.get("alignment_bytes", size),
             "span_bytes": 0 if working_set >= 1 else int(part * working_set) // PAGE_BYTES * PAGE_BYTES,
             "chips": chips, "channels": channels[i]}
        if "hot" in sc:
            # MQSim's RANDOM_HOTCOLD: the first `hot` of the working set takes 1 - `hot` of the requests.
            f.update(address="hot_cold", hot_fraction=sc["hot"][i], hot_access_fraction=1 - sc["hot"][i])
        if "fill" in sc:
            f["fill_fraction"] = sc["fill"][i]
        flows.append(f)
    return flows


#: The mqsim-fast18 drive's channels, chips per channel and page size: parts are sized from them.
CHANNELS, CHIPS_PER_CHANNEL, PAGE_BYTES = 8, 4, 8192


def _means_us(e: Mapping[str, Any], sc: Mapping[str, Any], which: Sequence[int], stop_time_ns: int,
              runs: Dict[str, List[float]]) -> List[float]:
    from ..api import simulate
    from ..workload import Workload

    s = spec()
    overrides = {**s["overrides"], **e.get("overrides", {})}
    table = {"kind": "flows", "flows": _flows(e, sc, which, _capacity_bytes(overrides)),
             "queue_fetch_size": e["queue_fetch_size"], "stop_time_ns": stop_time_ns}
    key = json.dumps(table, sort_keys=True)
    if key not in runs:  # flow 1 alone is the same run in every scenario of an experiment
        r = simulate(s["preset"], Workload(table), overrides=overrides, progress=False).to_dict()
        runs[key] = [f["host"]["response"]["mean_ns"] / 1e3 for f in r["flows"]]
    return runs[key]


def _capacity_bytes(overrides: Mapping[str, Any]) -> int:
    from ..api import simulate
    from ..workload import Workload

    # Preconditioning changes no size: left out, the probe builds in no time.
    sizes = {k: v for k, v in overrides.items() if not k.startswith("precondition.")}
    probe = simulate(spec()["preset"], Workload.synthetic(requests=1), overrides=sizes, progress=False)
    return int(probe.to_dict()["devices"][0]["capacity_bytes"])


def scenario(name: str, sc: Mapping[str, Any], stop_time_ns: int = 0,
             runs: Optional[Dict[str, List[float]]] = None) -> Dict[str, List[float]]:
    """raidsim's mean response (µs) of each flow of scenario ``sc`` (a row of experiment ``name``: its
    ``depths`` and, for writes, each flow's ``fill``, ``working_set`` and ``hot``) alone and both shared.
    ``runs`` keeps the runs made, by workload, for the next scenario to reuse."""
    e = experiment(name)
    stop = stop_time_ns or spec()["stop_time_ns"]
    runs = {} if runs is None else runs
    alone = [_means_us(e, sc, [i], stop, runs)[0] for i in range(len(sc["depths"]))]
    return {"alone_us": alone, "shared_us": _means_us(e, sc, range(len(sc["depths"])), stop, runs)}


def slowdowns(r: Mapping[str, Sequence[float]]) -> List[float]:
    """Each flow's mean response shared over alone."""
    return [s / a for s, a in zip(r["shared_us"], r["alone_us"])]


def fairness(slow: Sequence[float]) -> float:
    """The smallest slowdown over the largest: 1 when the flows suffer alike."""
    return min(slow) / max(slow)


def run(quick: bool = False) -> Dict[str, Any]:
    """Every scenario of every experiment (``quick``: the first, middle and last of each, at a tenth of the
    time; an experiment whose drive is aged to steady state first, about 15 s a run, is not run then)."""
    s = spec()
    stop = s["stop_time_ns"] // (10 if quick else 1)
    out: Dict[str, Any] = {"stop_time_ns": stop, "experiments": {}, "not_run": []}
    runs: Dict[str, List[float]] = {}
    for e in s["experiments"]:
        rows = e["scenarios"]
        chosen = [rows[0], rows[len(rows) // 2], rows[-1]] if quick else rows
        skip = quick and e.get("aged", False)
        if skip:
            out["not_run"].append(e["name"])
        out["experiments"][e["name"]] = [
            {"depths": r["depths"], "mqsim": r, "raidsim": None if skip else scenario(e["name"], r, stop, runs)}
            for r in chosen]
    return out


def row_args(result: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """Rows: each flow's slowdown and the fairness, raidsim's beside MQSim's, per scenario."""
    args = []
    for name, scenarios in result["experiments"].items():
        for sc in scenarios:
            case = f"{name}, queue depths {sc['depths'][0]} + {sc['depths'][1]}"
            theirs, ran = slowdowns(sc["mqsim"]), sc["raidsim"] is not None
            ours = slowdowns(sc["raidsim"]) if ran else [None, None]
            extra = {} if ran else {"not_run": True, "note": "not in --quick: each run first ages the drive to steady state"}
            for i in (0, 1):
                args.append(dict(figure=name, case=case, metric=f"flow-{i + 1} slowdown", raidsim=_round(ours[i], 3),
                                 published=round(theirs[i], 3), unit="x", **extra))
            args.append(dict(figure=name, case=case, metric="fairness", raidsim=_round(fairness(ours) if ran else None, 3),
                             published=round(fairness(theirs), 3), unit="", **extra))
            for i in (0, 1):
                args.append(dict(figure=name, case=case, metric=f"flow-{i + 1} shared response",
                                 raidsim=_round(sc["raidsim"]["shared_us"][i] if ran else None, 1),
                                 published=sc["mqsim"]["shared_us"][i], unit="us", **extra))
    return args


def _round(x: Optional[float], digits: int) -> Optional[float]:
    return None if x is None else round(x, digits)


def text(result: Mapping[str, Any], judged_rows: Sequence[Mapping[str, Any]]) -> str:
    """Per experiment, a line per scenario: each flow's response alone and shared and its slowdown, raidsim's
    beside MQSim's, the fairness, and the verdicts of the scenario's rows."""
    mqsim_s = spec()["stop_time_ns"] / 1e9
    out = [f"Two flows sharing one SSD (preset {spec()['preset']}; {result['stop_time_ns'] / 1e9:g} s of simulated time "
           f"a run, MQSim's {mqsim_s:g} s): raidsim / MQSim. Response in µs; slowdown = shared / alone; "
           "fairness = smallest slowdown / largest."]
    for name, scenarios in result["experiments"].items():
        out += ["", f"{name} (queue fetch size {experiment(name)['queue_fetch_size']})",
                "  depths   flow-1 alone   flow-2 alone   flow-1 shared  flow-2 shared  slowdown 1    slowdown 2    "
                "fairness       verdicts"]
        for sc in scenarios:
            case = f"{name}, queue depths {sc['depths'][0]} + {sc['depths'][1]}"
            ours, theirs = sc["raidsim"], sc["mqsim"]
            if ours is None:
                out.append(f"  {sc['depths'][0]:>3}+{sc['depths'][1]:<4}not run (--quick)")
                continue
            so, st = slowdowns(ours), slowdowns(theirs)
            cells = [f"{ours[k][i]:5.0f} / {theirs[k][i]:<5g}" for k in ("alone_us", "shared_us") for i in (0, 1)]
            cells = [cells[0], cells[1], cells[2], cells[3]]
            verdicts = [r["verdict"] for r in judged_rows if r["case"] == case]
            tally = ", ".join(f"{verdicts.count(v)} {v}" for v in sorted(set(verdicts)))
            out.append(f"  {sc['depths'][0]:>3}+{sc['depths'][1]:<4}" + "".join(f"{c:15}" for c in cells)
                       + f"{so[0]:5.2f} / {st[0]:<5.2f} {so[1]:5.2f} / {st[1]:<5.2f} "
                       + f"{fairness(so):.3f} / {fairness(st):.3f}  {tally}")
    gaps = [r for r in judged_rows if r["verdict"] == "gap"]
    if gaps:
        out += ["", "Gaps:"] + [f"  {r['case']}: {r['metric']} {r['raidsim']:g} against {r['published']:g}"
                                + (f" (class {r['gap_class']}: {r['gap_why']})" if r["gap_class"] else " (unexplained)")
                                for r in gaps]
    return "\n".join(out)


def plot(result: Mapping[str, Any], out_dir: str) -> List[str]:
    """Per experiment: each flow's slowdown over flow 2's queue depth, raidsim beside MQSim, and the fairness."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .._figures import save_figure

    names = list(result["experiments"])
    fig, axes = plt.subplots(1, len(names), figsize=(5 * len(names), 4), squeeze=False)
    for ax, name in zip(axes[0], names):
        rows = result["experiments"][name]
        x = [r["depths"][1] for r in rows]
        for key, style, who in (("mqsim", "-o", "MQSim"), ("raidsim", "--x", "raidsim")):
            if any(r[key] is None for r in rows):
                continue  # not run (--quick)
            slow = [slowdowns(r[key]) for r in rows]
            for i, color in ((0, "C0"), (1, "C3")):
                ax.plot(x, [s[i] for s in slow], style, color=color, label=f"{who}: flow-{i + 1}")
            ax.plot(x, [fairness(s) for s in slow], style, color="k", alpha=0.5, label=f"{who}: fairness")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        if not experiment(name).get("writes"):
            ax.set_ylim(0.04, 30)  # one scale for the read panels, so the fetch limit's effect reads off at a glance
        ax.set_xlabel("flow-2 queue depth")
        ax.set_ylabel("slowdown (shared / alone); fairness")
        ax.set_title(name, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    os.makedirs(out_dir, exist_ok=True)
    return [save_figure(fig, os.path.join(out_dir, "mqsim-fast18-slowdown.png"))]
