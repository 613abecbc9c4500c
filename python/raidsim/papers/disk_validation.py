"""The disk presets against the real drives they model: DiskSim 4.0's validation traces.

A disk model is only as good as its agreement with a drive someone measured. DiskSim's validation suite
(Bucy et al., CMU-PDL-08-101, 2008; github.com/benh/disksim, ``valid/``) holds, for the Seagate Cheetah 9LP
and the Quantum Atlas III, a trace of 10,000 requests with the response time the real drive took for each
(``R|W buffer block blocks service_us idle_us``), and ``valid/runvalid`` states the demerit DiskSim's own
model of each drive reaches; the DIXtrac extraction of a Seagate Cheetah 15K.5 (Schindler, 2008;
``Seagate-Cheetah15k5.tar.gz`` of github.com/bootbool/disksim) holds the same for that drive, measured with
its cache off (``random.trace``, demerit 0.297 ms). The *demerit* (Ruemmler & Wilkes 1994) is the root-mean-square horizontal
distance between the measured and the simulated response-time distributions: two models with the same mean
can differ widely in it, for it sees every quantile.

:func:`run` replays each trace on raidsim's preset of the drive (``hdd-cheetah-9lp``, ``hdd-atlas-iii``, ``hdd-cheetah-15k5``) at
the simulated drive's pace, as DiskSim's validation mode does (closed loop: each request the measured idle
time after the previous one completes; the trace format ``disksim_validate``), with the cache as
it was when the drive was measured and the other way, and at ``phases`` starting angles of the platters (the demerit depends on it); :func:`row_args`
sets the mean read and write response beside the measured ones and the demerit beside DiskSim's. The
traces are DiskSim's and not shipped: they are given as the papers' traces are
(:mod:`raidsim.papers.paper_traces`: ``--traces DISKSIM/valid`` or ``--trace cheetah9LP=PATH``); without
them every row is ``not run``. The study file ``experiments/disk-validation.toml`` holds the measured means,
DiskSim's demerits and the traces' statistics.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import paper_traces
from .packaged import packaged_spec, study_file

NAME = "disk-validation"
#: Quantiles the demerit compares: every 0.01 % of the distributions.
QUANTILES = np.arange(1, 10001) / 10000
#: What a row says when the drive's trace was not given.
NOT_GIVEN = "DiskSim's validation trace not given (--traces DISKSIM/valid, or --trace {trace}=PATH)"


def spec() -> Dict[str, Any]:
    return packaged_spec(NAME)


def demerit_ms(real: np.ndarray, ours: np.ndarray) -> float:
    """The RMS horizontal distance between two empirical response-time distributions (same unit as theirs)."""
    return float(np.sqrt(np.mean((np.quantile(real, QUANTILES) - np.quantile(ours, QUANTILES)) ** 2)))


def measured(path: str) -> Tuple[np.ndarray, np.ndarray]:
    """Each request's operation ("R" or "W") and the real drive's response time in ms, in trace order."""
    ops, ms = [], []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields:
                continue
            try:
                if len(fields) != 6 or fields[0] not in ("R", "W"):
                    raise ValueError
                service_us = float(fields[4])
            except ValueError:
                raise paper_traces.TraceError(
                    f"{path}, line {number}: expected `R|W buffer block blocks service_us idle_us` (DiskSim's "
                    f"validation format), got {line.strip()!r}") from None
            ops.append(fields[0])
            ms.append(service_us / 1000)
    return np.array(ops), np.array(ms)


def replay(path: str, preset: str, overrides: Sequence[str] = ()) -> np.ndarray:
    """raidsim's response per request of the trace on one drive of ``preset``, ms, in trace order (closed loop:
    each request the trace's idle time after the previous one completes)."""
    import pyarrow.parquet as pq

    from ..api import simulate
    from ..workload import Workload

    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log.parquet")
        simulate(preset, Workload.trace(path, format="disksim_validate", replay="closed"),
                 overrides=[f"metrics.request_log={log}", "array.level=single", *overrides], progress=False)
        table = pq.read_table(log).to_pandas().sort_values("arrival_ns", kind="stable")
    return table["response_ns"].to_numpy() / 1e6


def run(*, given: Optional[Mapping[str, paper_traces.Given]] = None, phases: Optional[int] = None) -> Dict[str, Any]:
    """Replays each drive's trace that was given; returns per drive (by trace name) the measured and simulated
    responses, or None where its trace was not given, and the notes (warnings where a trace is not DiskSim's)."""
    sp, given = spec(), dict(given or {})
    phases = sp["phases"] if phases is None else phases
    drives: Dict[str, Optional[Dict[str, Any]]] = {}
    warnings: List[str] = []
    for d in sp["drives"]:
        g = given.get(d["trace"])
        if g is None:
            drives[d["trace"]] = None
            continue
        ops, real = measured(g.path)
        as_measured = [f"hdd.cache.enabled={'true' if d['cache'] else 'false'}"]
        ours = replay(g.path, d["preset"], as_measured)
        if len(ours) != len(real):
            raise RuntimeError(f"{g.path}: {len(real)} requests, raidsim served {len(ours)}")
        other = replay(g.path, d["preset"], [f"hdd.cache.enabled={'false' if d['cache'] else 'true'}"])
        spread = [demerit_ms(real, replay(g.path, d["preset"], [*as_measured, "hdd.synchronized_spindles=false",
                                                                   f"sim.seed={seed}"]))
                  for seed in range(1, phases + 1)]
        differs = _not_disksims(d, ops, real, sp["measured_tolerance"])
        drives[d["trace"]] = {"ops": ops, "real": real, "ours": ours, "other_cache": other, "phase_demerits": spread,
                              "demerit": demerit_ms(real, ours), "other_demerit": demerit_ms(real, other),
                              "not_disksims": differs}
        warnings += differs
    notes = [f"{n}: replayed from {g.path} ({g.stats['requests']:,} requests)" for n, g in given.items()]
    absent = [d["trace"] for d in sp["drives"] if d["trace"] not in given]
    if absent:
        notes.append(f"not given, their rows not run: {', '.join(absent)}")
    notes += [f"warning: {w}" for w in warnings + [w for g in given.values() for w in g.warnings]]
    return {"drives": drives, "given": given, "phases": phases, "notes": notes}


def _not_disksims(d: Mapping[str, Any], ops: np.ndarray, real: np.ndarray, tolerance: float) -> List[str]:
    """A warning for each measured mean of the given trace that is not the one the study file holds."""
    out = []
    for op, key in (("R", "measured_read_ms"), ("W", "measured_write_ms")):
        mean = float(real[ops == op].mean()) if (ops == op).any() else float("nan")
        if not abs(mean / d[key] - 1) <= tolerance:
            out.append(f"{d['trace']}: the trace's measured mean {'read' if op == 'R' else 'write'} response is "
                       f"{mean:.4f} ms where DiskSim's trace has {d[key]} ms ({study_file(NAME)}): not DiskSim's "
                       "validation trace, so its rows are not judged")
    return out


def _means(ops: np.ndarray, ms: np.ndarray) -> Dict[str, float]:
    return {op: float(ms[ops == op].mean()) if (ops == op).any() else float("nan") for op in ("R", "W")}


def row_args(result: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """Each row's arguments (:func:`raidsim.papers.rows.row`): per drive, the mean read and write response
    beside the measured ones, the demerit (at angle 0, and the highest over the platter phases) beside
    DiskSim's, and the figures with the cache the other way than measured beside nothing."""
    out = []
    for d in spec()["drives"]:
        r = result["drives"][d["trace"]]
        case = f"{d['label']} ({d['preset']})"
        missing = NOT_GIVEN.format(trace=d["trace"]) if r is None else ""
        # Another trace than DiskSim's has other measured times: nothing published to set ours beside.
        foreign = bool(r and r["not_disksims"])
        why = "; ".join(r["not_disksims"]) if foreign else ""
        ours = _means(r["ops"], r["ours"]) if r else {}
        other = _means(r["ops"], r["other_cache"]) if r else {}
        state = "on" if d["cache"] else "off"
        flipped = "caches off" if d["cache"] else "cache on"

        def add(metric: str, value: Any, published: Any, note: str = "") -> None:
            out.append(dict(figure=d["trace"], case=case, metric=metric, raidsim=value,
                            published=None if foreign else published, unit="ms", not_run=r is None,
                            note=missing or why or note))

        add("mean read response", ours.get("R"), d["measured_read_ms"], f"published: the real drive, measured (cache {state})")
        add("mean write response", ours.get("W"), d["measured_write_ms"], f"published: the real drive, measured (cache {state})")
        add("demerit", r["demerit"] if r else None, d["disksim_demerit_ms"],
            "platters start at angle 0; published: DiskSim's own model of the drive (valid/runvalid)")
        if result["phases"]:
            add(f"demerit, highest over {result['phases']} platter phases", max(r["phase_demerits"]) if r else None,
                d["disksim_demerit_ms"], "published: DiskSim's own model of the drive (valid/runvalid)")
        if r is not None:
            add(f"mean read response, {flipped}", other["R"], None, f"the real drive, cache {state}: {d['measured_read_ms']} ms")
            add(f"mean write response, {flipped}", other["W"], None,
                f"the real drive, cache {state}: {d['measured_write_ms']} ms")
            add(f"demerit, {flipped}", r["other_demerit"], None, "")
    return out


def text(result: Mapping[str, Any]) -> str:
    """The comparison as the terminal shows it (the run's notes are the caller's to print)."""
    import pandas as pd

    recs = []
    for d in spec()["drives"]:
        r = result["drives"][d["trace"]]
        if r is None:
            continue
        real, ours, other = (_means(r["ops"], r[k]) for k in ("real", "ours", "other_cache"))
        spread = r["phase_demerits"]
        recs.append({
            "drive": d["label"] + (" (not DiskSim's trace)" if r["not_disksims"] else ""),
            "cache": "on" if d["cache"] else "off", "read, real": round(real["R"], 3),
            "read, raidsim": round(ours["R"], 3), "read err": f"{(ours['R'] / real['R'] - 1) * 100:+.1f} %",
            "write, real": round(real["W"], 3), "write, raidsim": round(ours["W"], 3),
            "write err": f"{(ours['W'] / real['W'] - 1) * 100:+.1f} %",
            "demerit": round(r["demerit"], 3),
            **({"over phases": f"{min(spread):.3f}-{max(spread):.3f}"} if spread else {}),
            "DiskSim's demerit": d["disksim_demerit_ms"],
            "other cache: read / write": f"{other['R']:.2f} / {other['W']:.2f}",
        })
    lines = ["The disk presets replaying DiskSim's validation traces of the real drives (ms; closed loop: each "
             "request the measured idle time after the previous one completes, as DiskSim replays them; "
             "cache: as the drive was measured)", pd.DataFrame(recs).to_string(index=False), "",
             "demerit: RMS horizontal distance between the measured and the simulated response-time distributions"
             + (f"; 'over phases': its range over {result['phases']} starting angles of the platters." if result["phases"]
                else ".")]
    quantiles = _quantile_table(result)
    if quantiles:
        lines += ["", "Response-time quantiles, real drive / raidsim (ms):", quantiles]
    return "\n".join(lines)


def _quantile_table(result: Mapping[str, Any]) -> str:
    import pandas as pd

    recs = []
    for d in spec()["drives"]:
        r = result["drives"][d["trace"]]
        if r is not None:
            for p in (10, 50, 90, 99):
                recs.append({"drive": d["label"], "quantile": f"p{p}",
                             "real": round(float(np.percentile(r["real"], p)), 3),
                             "raidsim": round(float(np.percentile(r["ours"], p)), 3),
                             "other cache": round(float(np.percentile(r["other_cache"], p)), 3)})
    return pd.DataFrame(recs).to_string(index=False) if recs else ""


def plot(result: Mapping[str, Any], out_dir: str) -> List[str]:
    """One figure: each drive's response-time CDF, measured beside raidsim's (caches on and off)."""
    shown = [(d, result["drives"][d["trace"]]) for d in spec()["drives"] if result["drives"][d["trace"]] is not None]
    if not shown:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .._figures import save_figure

    fig, axes = plt.subplots(1, len(shown), figsize=(5 * len(shown), 4), squeeze=False)
    for ax, (d, r) in zip(axes[0], shown):
        state, flipped = ("on", "off") if d["cache"] else ("off", "on")
        for key, label, style in (("real", f"real drive, cache {state} (measured)", "k-"),
                                  ("ours", f"raidsim, cache {state}", "C0--"),
                                  ("other_cache", f"raidsim, cache {flipped}", "C3:")):
            x = np.sort(r[key])
            ax.plot(x, np.arange(1, len(x) + 1) / len(x), style, label=label)
        ax.set_xscale("log")
        ax.set_xlabel("response time (ms)")
        ax.set_ylabel("fraction of requests")
        ax.set_title(f"{d['label']}: demerit {r['demerit']:.3f} ms "
                     f"(DiskSim {d['disksim_demerit_ms']})", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    os.makedirs(out_dir, exist_ok=True)
    return [save_figure(fig, os.path.join(out_dir, "disk-validation-cdf.png"))]
