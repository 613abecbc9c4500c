"""Two flows sharing one NVMe SSD: the multi-flow experiments of MQSim's paper, beside MQSim.

MQSim (Tavakkol et al., "MQSim: A Framework for Enabling Realistic Studies of Modern Multi-Queue SSD
Devices", FAST'18) ships the inputs of its paper's multi-flow experiments in ``fast18/``: one drive
(raidsim's preset ``mqsim-fast18``) and, per experiment, three workload files — flow 1 alone, flow 2
alone, both at once — whose scenarios raise flow 2's queue depth while flow 1's stays put. Both flows
read 4 KiB at random from half their part of the drive, for 10 simulated seconds each. A flow's
*slowdown* is its mean response time shared over alone; a scenario's *fairness* is the smallest slowdown
over the largest (the paper's §6.1, after Mutlu & Moscibroda).

- **backend contention** (``Queue_Fetch_Size`` 512): flow 1 at queue depth 2, flow 2 at 2 to 256. The
  deeper flow takes the dies and buses: both slow down alike, flow 1 far more than its own load explains.
- **queue fetch size** 16 and 1024: flow 1 at 8, flow 2 at 8 to 256. With 16, the device holds at most 16
  of a flow's commands, so flow 2's extra depth waits in its own submission queue and flow 1 is shielded;
  with 1024, flow 2 floods the device as in the first experiment.

:func:`run` renders each scenario as a flows workload (``workload.kind = "flows"``) on the preset, and the
study file ``experiments/mqsim-fast18.toml`` holds MQSim's figures, recorded by
``bench/peers/mqsim_fast18.py`` (the command is beside them). The flows use chips 0 and 1 of each
channel (MQSim's ``Chip_IDs``); raidsim has no per-flow chip sets, so the drive is rendered with two
chips per channel — for reads of a drive MQSim does not precondition in these experiments, the same
dies and buses (a read of a page never written goes to its static place in both simulators).
The paper's third experiment, data-cache contention, is not here: its flows sit on separate channels
and its drive's cache is MQSim's SIMPLE one.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, Sequence

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


def _flow(depth: int, s: Mapping[str, Any]) -> Dict[str, Any]:
    return {"requests": 0, "processes": depth, "read_fraction": 1.0, "address": "uniform",
            "size": {"kind": "fixed", "mean_bytes": s["request_bytes"]}, "alignment_bytes": s["request_bytes"],
            "span_bytes": 0}


def flows_workload(depths: Sequence[int], fetch: int, stop_time_ns: int) -> Dict[str, Any]:
    """The ``[workload]`` table of flows at ``depths`` (each on its part of the drive, as MQSim places them)."""
    s = spec()
    return {"kind": "flows", "flows": [_flow(d, s) for d in depths], "queue_fetch_size": fetch,
            "stop_time_ns": stop_time_ns}


def _means_us(depths: Sequence[int], fetch: int, stop_time_ns: int) -> List[float]:
    from ..api import simulate
    from ..workload import Workload

    s = spec()
    table = flows_workload(depths, fetch, stop_time_ns)
    overrides = dict(s["overrides"])
    # Half of each flow's part (MQSim's Working_Set_Percentage), from its start.
    part = _capacity_bytes(overrides) // len(depths)
    for f in table["flows"]:
        f["span_bytes"] = int(part * s["working_set_fraction"]) // s["request_bytes"] * s["request_bytes"]
    r = simulate(s["preset"], Workload(table), overrides=overrides, progress=False).to_dict()
    return [f["host"]["response"]["mean_ns"] / 1e3 for f in r["flows"]]


def _capacity_bytes(overrides: Mapping[str, Any]) -> int:
    from ..api import simulate
    from ..workload import Workload

    probe = simulate(spec()["preset"], Workload.synthetic(requests=1), overrides=dict(overrides), progress=False)
    return int(probe.to_dict()["devices"][0]["capacity_bytes"])


def scenario(name: str, depths: Sequence[int], stop_time_ns: int = 0) -> Dict[str, List[float]]:
    """raidsim's mean response (µs) of each flow alone and both shared, in experiment ``name``."""
    e = experiment(name)
    stop = stop_time_ns or spec()["stop_time_ns"]
    alone = [_means_us([d], e["queue_fetch_size"], stop)[0] for d in depths]
    return {"alone_us": alone, "shared_us": _means_us(depths, e["queue_fetch_size"], stop)}


def slowdowns(r: Mapping[str, Sequence[float]]) -> List[float]:
    """Each flow's mean response shared over alone."""
    return [s / a for s, a in zip(r["shared_us"], r["alone_us"])]


def fairness(slow: Sequence[float]) -> float:
    """The smallest slowdown over the largest: 1 when the flows suffer alike."""
    return min(slow) / max(slow)


def run(quick: bool = False) -> Dict[str, Any]:
    """Every scenario of every experiment (``quick``: the first, middle and last of each, at a tenth of the time)."""
    s = spec()
    stop = s["stop_time_ns"] // (10 if quick else 1)
    out: Dict[str, Any] = {"stop_time_ns": stop, "experiments": {}}
    for e in s["experiments"]:
        rows = e["scenarios"]
        chosen = [rows[0], rows[len(rows) // 2], rows[-1]] if quick else rows
        out["experiments"][e["name"]] = [
            {"depths": r["depths"], "mqsim": r, "raidsim": scenario(e["name"], r["depths"], stop)} for r in chosen]
    return out


def row_args(result: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """Rows: each flow's slowdown and the fairness, raidsim's beside MQSim's, per scenario."""
    args = []
    for name, scenarios in result["experiments"].items():
        for sc in scenarios:
            case = f"{name}, queue depths {sc['depths'][0]} + {sc['depths'][1]}"
            ours, theirs = slowdowns(sc["raidsim"]), slowdowns(sc["mqsim"])
            for i in (0, 1):
                args.append(dict(figure=name, case=case, metric=f"flow-{i + 1} slowdown", raidsim=round(ours[i], 3),
                                 published=round(theirs[i], 3), unit="x"))
            args.append(dict(figure=name, case=case, metric="fairness", raidsim=round(fairness(ours), 3),
                             published=round(fairness(theirs), 3), unit=""))
            for i in (0, 1):
                args.append(dict(figure=name, case=case, metric=f"flow-{i + 1} shared response",
                                 raidsim=round(sc["raidsim"]["shared_us"][i], 1),
                                 published=sc["mqsim"]["shared_us"][i], unit="us"))
    return args


def text(result: Mapping[str, Any], judged_rows: Sequence[Mapping[str, Any]]) -> str:
    """Per experiment, a line per scenario: each flow's response alone and shared and its slowdown, raidsim's
    beside MQSim's, the fairness, and the verdicts of the scenario's rows."""
    out = [f"Two flows sharing one SSD (preset {spec()['preset']}; {result['stop_time_ns'] / 1e9:g} s of simulated time "
           "a run): raidsim / MQSim. Response in µs; slowdown = shared / alone; fairness = smallest slowdown / largest."]
    for name, scenarios in result["experiments"].items():
        out += ["", f"{name} (queue fetch size {experiment(name)['queue_fetch_size']})",
                "  depths   flow-1 alone   flow-2 alone   flow-1 shared  flow-2 shared  slowdown 1    slowdown 2    "
                "fairness       verdicts"]
        for sc in scenarios:
            case = f"{name}, queue depths {sc['depths'][0]} + {sc['depths'][1]}"
            ours, theirs = sc["raidsim"], sc["mqsim"]
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
            slow = [slowdowns(r[key]) for r in rows]
            for i, color in ((0, "C0"), (1, "C3")):
                ax.plot(x, [s[i] for s in slow], style, color=color, label=f"{who}: flow-{i + 1}")
            ax.plot(x, [fairness(s) for s in slow], style, color="k", alpha=0.5, label=f"{who}: fairness")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_ylim(0.04, 30)  # one scale for every panel, so the fetch limit's effect reads off at a glance
        ax.set_xlabel("flow-2 queue depth")
        ax.set_ylabel("slowdown (shared / alone); fairness")
        ax.set_title(name, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    os.makedirs(out_dir, exist_ok=True)
    return [save_figure(fig, os.path.join(out_dir, "mqsim-fast18-slowdown.png"))]
