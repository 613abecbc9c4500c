"""The disk presets against the real drives DiskSim was validated on.

DiskSim 4.0's validation suite (github.com/benh/disksim, `valid/`) holds, for
the Seagate Cheetah 9LP and the Quantum Atlas III, a trace of requests with
the response time the real drive took for each (`cheetah9LP.trace`,
`atlas_III.trace`: `R|W buffer block blocks service_us next_us`). This
replays each trace on raidsim's preset of the same drive at the drive's own
issue instants, and prints the mean read and write response of the real
drive and of raidsim, and the demerit figure (the root-mean-square
horizontal distance between the two response-time distributions, DiskSim's
`rms`, here over the exact empirical quantiles at every 0.01 %), beside
DiskSim's own demerit as its `valid/runvalid` states it:

    python bench/disk_validation.py DISKSIM/valid [--cache off] [--phases 8]

The presets' spindles start at angle 0; `--phases N` also replays each trace
with N platter phases drawn from seeds 1..N and prints the demerit's range,
as the starting angle is one draw. The replay is open loop at the measured
issue instants; DiskSim's validation mode issues each request a measured
idle time after the simulated completion of the one before (closed loop),
which gives read-ahead and destage slightly different idle time.

DISKSIM/valid is a checkout's `valid/` folder (fetch github:benh/disksim);
the traces are not ours to ship.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

import raidsim

#: (trace stem, preset, DiskSim's own demerit in ms from valid/runvalid).
DRIVES = [("cheetah9LP", "hdd-cheetah-9lp", 0.107), ("atlas_III", "hdd-atlas-iii", 0.378)]


def demerit_ms(real: np.ndarray, ours: np.ndarray) -> float:
    """RMS horizontal distance between two empirical CDFs, ms."""
    p = np.arange(1, 10001) / 10000
    return float(np.sqrt(np.mean((np.quantile(real, p) - np.quantile(ours, p)) ** 2)))


def replay(trace: Path, preset: str, overrides: list[str]) -> np.ndarray:
    """raidsim's response per request of `trace`, ms, in trace order."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log.parquet"
        raidsim.simulate(
            preset,
            raidsim.Workload.trace(str(trace)),
            overrides=[f"metrics.request_log={log}", "array.level=single", *overrides],
            progress=False,
        )
        table = pq.read_table(log).to_pandas().sort_values("arrival_ns", kind="stable")
    return table["response_ns"].to_numpy() / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("valid", type=Path, help="DiskSim's valid/ folder")
    ap.add_argument("--cache", choices=["on", "off"], default="on", help="the drives' on-board cache")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE on top of the preset")
    ap.add_argument("--phases", type=int, default=0, help="also replay at N platter phases (seeds 1..N)")
    args = ap.parse_args()
    overrides = [*args.set, *(["hdd.cache.enabled=false"] if args.cache == "off" else [])]
    print(f"{'drive':<16}{'read real':>10}{'ours':>8}{'err':>8}{'write real':>12}{'ours':>8}{'err':>8}{'demerit':>9}{'DiskSim':>9}")
    for stem, preset, disksim in DRIVES:
        trace = args.valid / f"{stem}.trace"
        rows = [line.split() for line in trace.read_text().splitlines() if line.strip()]
        real = np.array([float(r[4]) / 1000 for r in rows])
        ops = np.array([r[0] for r in rows])
        ours = replay(trace, preset, overrides)
        if len(ours) != len(real):
            raise SystemExit(f"{trace}: {len(real)} requests, raidsim served {len(ours)}")
        cells = []
        for op in ("R", "W"):
            r, o = real[ops == op].mean(), ours[ops == op].mean()
            cells += [f"{r:10.3f}" if op == "R" else f"{r:12.3f}", f"{o:8.3f}", f"{(o / r - 1) * 100:+7.1f}%"]
        print(f"{preset:<16}{''.join(cells)}{demerit_ms(real, ours):9.3f}{disksim:9.3f}")
        if args.phases:
            spread = [
                demerit_ms(real, replay(trace, preset, [*overrides, "hdd.synchronized_spindles=false", f"sim.seed={seed}"]))
                for seed in range(1, args.phases + 1)
            ]
            print(f"{'':<16}demerit over {args.phases} platter phases: {min(spread):.3f}-{max(spread):.3f} ms")


if __name__ == "__main__":
    main()
