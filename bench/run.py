"""raidsim beside DiskSim 4.0 on issue #14's trace: requests per second
whole-process and in-core, and peak memory.

The trace (bench/gen_trace.py): 1,000,000 random 4 KiB requests, 30 % reads,
uniform over 3 GiB, Poisson at 10,000 IOPS, DiskSim ASCII. Cases: the
DiskSim validation drive (preset ``disksim-ssd-validation``) as is (cleaning
never runs), with 1024 blocks per plane (cleaning runs from about 50 s on),
and a RAID-5 4+1 of it (64 KiB stripe unit).

What each figure measures:

* **whole-process**: ``raidsim run --preset P --trace T --json`` as a child
  process, from exec to exit (Python start, imports, configuration, drive
  set-up, trace parsing, simulation, report), timed by this script; requests
  divided by that wall time. Peak RSS is the child's ``ru_maxrss``.
* **in-core**: inside one (child) process, the core's drive set-up plus simulation
  (``Simulation.precondition`` and ``step`` to the end: trace parsing on its
  thread included), without Python start, imports or report.

DiskSim's figures (issue #14, measured by its author on the same trace and
drive, DiskSim 4.0 built -O2, whole process): about 158,000 requests/s and
about 105 MB peak.

    python bench/run.py [--runs 5] [--requests 1000000] [--ten-million] [--dir DIR]

Medians of ``--runs`` runs (the machine is shared and noisy).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

DISKSIM_REQ_PER_S = 158_000
DISKSIM_PEAK_MB = 105
CASES = [
    ("one drive, no cleaning", []),
    ("one drive, 1024 blocks/plane, cleaning", ["ssd.geometry.blocks_per_plane=1024"]),
    ("RAID-5 4+1, 64 KiB units", ["array.level=raid5", "array.members=5", "array.stripe_unit_bytes=65536"]),
]
PRESET = "disksim-ssd-validation"


def whole_process(trace: str, overrides: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one ``raidsim run`` child."""
    cmd = [sys.executable, "-m", "raidsim.cli", "run", "--preset", PRESET, "--trace", trace, "--json", "--no-progress"]
    for o in overrides:
        cmd += ["--set", o]
    started = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    err = child.stderr.read().decode() if child.stderr else ""
    if child.returncode != 0:
        raise SystemExit(f"raidsim run failed ({child.returncode}): {err}")
    return wall, usage.ru_maxrss / 1024


def in_core(trace: str, overrides: list[str]) -> tuple[float, int, int]:
    """Seconds of drive set-up plus simulation inside a child process, requests served, blocks erased.
    (Children, and no heavy import here: a child's peak RSS starts from its parent's.)"""
    out = subprocess.run([sys.executable, __file__, "--in-core-once", trace, *overrides], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), int(out[1]), int(out[2])


def generate(path: str, requests: int) -> None:
    """Writes the trace in a child (numpy stays out of this process)."""
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_trace.py"), path, "--requests", str(requests)], check=True)


def in_core_once(trace: str, overrides: list[str]) -> None:
    import json

    from raidsim import _native
    from raidsim.config import Config
    from raidsim.workload import Workload

    cfg = Config.load(PRESET).with_workload(Workload.trace(trace)).with_overrides(overrides)
    sim = _native.Simulation(cfg.layers)
    started = time.perf_counter()
    while sim.precondition(1 << 62) < 1.0:
        pass
    while not sim.step(1 << 62)[2]:
        pass
    seconds = time.perf_counter() - started
    report = json.loads(sim.report_json())
    print(seconds, report["host"]["requests"], sum(d["erases"] for d in report["devices"]))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--in-core-once"]:
        in_core_once(argv[1], argv[2:])
        return 0
    p = argparse.ArgumentParser(description="raidsim beside DiskSim 4.0: requests/s whole-process and in-core, peak RSS")
    p.add_argument("--runs", type=int, default=5, help="runs per figure; medians are printed (default 5)")
    p.add_argument("--requests", type=int, default=1_000_000, help="trace length (default 1,000,000, DiskSim's figure's)")
    p.add_argument("--ten-million", action="store_true", help="also stream a 10M-line trace once (peak RSS must stay flat)")
    p.add_argument("--dir", help="where to write the traces (default: a temporary directory, removed after)")
    a = p.parse_args(argv)
    if a.runs < 1 or a.requests < 1:
        p.error("--runs and --requests must be at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        out = a.dir or tmp
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as e:
            p.error(f"--dir {out}: {e.strerror}")
        # The name carries the generator's parameters; gen_trace.py renames a trace into place
        # only once written whole, so a trace found here is complete.
        trace = os.path.join(out, f"issue14-{a.requests}.trace")
        generate(trace, a.requests)
        print(f"trace: {a.requests:,} requests ({os.path.getsize(trace) / 1e6:.1f} MB), preset {PRESET}; "
              f"medians of {a.runs} runs\n")
        # DiskSim's figure is for 1M requests: a fixed start-up spread over fewer is not comparable.
        comparable = a.requests == 1_000_000
        print("| case | whole-process req/s | x DiskSim | peak RSS MB | in-core req/s | erases |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, overrides in CASES:
            runs = [whole_process(trace, overrides) for _ in range(a.runs)]
            wall = statistics.median(w for w, _ in runs)
            rss = statistics.median(m for _, m in runs)
            cores = [in_core(trace, overrides) for _ in range(a.runs)]
            requests, erases = cores[0][1], cores[0][2]
            core = statistics.median(c[0] for c in cores)
            ratio = f"{requests / wall / DISKSIM_REQ_PER_S:.1f}" if comparable else "-"
            print(f"| {name} | {requests / wall:,.0f} | {ratio} | {rss:.0f} | {requests / core:,.0f} | {erases:,} |")
            if any("blocks_per_plane" in o for o in overrides) and erases == 0:
                print("|  (no block was erased: cleaning starts at about 50 s of simulated time, 500,000 requests) | | | | | |")
        print(f"| DiskSim 4.0 (issue #14) | {DISKSIM_REQ_PER_S:,} | 1.0 | {DISKSIM_PEAK_MB} | - | - |")
        if a.ten_million:
            big = os.path.join(out, "issue14-10000000.trace")
            generate(big, 10_000_000)
            wall, rss = whole_process(big, [])
            print(f"\n10,000,000-line trace ({os.path.getsize(big) / 1e6:.0f} MB), one drive, one run: "
                  f"{10_000_000 / wall:,.0f} req/s whole-process, peak RSS {rss:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
