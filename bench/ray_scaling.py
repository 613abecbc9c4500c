"""How a sweep scales on Ray: points per second with a head of 1 worker CPU, then of 2.

For each CPU count this starts a Ray head of its own on this machine
(``ray start --head --num-cpus N``, loopback only, stopped afterwards),
connects once, warms the workers up (each imports raidsim once), then times
``--runs`` sweeps of ``--points`` points of identical cost -- one config,
seeds 1, 2, ... -- each into a fresh output directory, so every point runs.
A sweep's time is :func:`raidsim.study.sweep.run_study` from call to return: the
driver's resolving, journal and tables included, the connection not.
Points/s is points over that time; the speedup is the median points/s over
the first CPU count's. Medians, since the machine is shared and noisy.

    python bench/ray_scaling.py [--cpus 1 2] [--points 8] [--requests 400000] [--runs 3] [--local]

``--local`` also times local processes (``--workers N``) of the same
sweep: the difference is Ray's cost per point. A point of 400,000 requests
runs about 2 s here, so the driver's fixed cost per sweep (well under a
second) is small beside the work.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib

# Before Ray is imported (it reads them then): a private head needs no token, and stays on 127.0.0.1.
os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.pop("RAY_ADDRESS", None)

SPEC = """
name = "ray-scaling"
metrics = ["host.requests", "host.response.mean_ns"]
[base]
preset = "erasure-code-table6"
array = {{ level = "raid5", members = 4 }}
workload = {{ kind = "synthetic", requests = {requests}, read_fraction = 0.3 }}
[axes]
"sim.seed" = {seeds}
"""


def study(points: int, requests: int):
    from raidsim.study import Study

    return Study.from_dict(tomllib.loads(SPEC.format(requests=requests, seeds=list(range(1, points + 1)))))


def start_head(cpus: int, home: pathlib.Path) -> tuple[str, int]:
    """Starts a head of ``cpus`` CPUs; returns its address and process group."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # A session of its own: the daemons `ray start` leaves behind stay in its process group.
    start = subprocess.Popen(
        [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", f"--port={port}", f"--num-cpus={cpus}",
         "--disable-usage-stats", "--include-dashboard=false", f"--temp-dir={home / 'ray'}"],
        cwd=home, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        log, _ = start.communicate(timeout=120)
    except BaseException:
        start.kill()
        stop_head(start.pid)
        raise
    if start.returncode != 0:
        stop_head(start.pid)
        raise SystemExit(f"`ray start --head` failed:\n{log}")
    return f"127.0.0.1:{port}", start.pid


def stop_head(group: int) -> None:
    """Stops the head's processes, gently first (raylet stops on SIGTERM; gcs_server may not)."""
    for sig, grace in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(group, sig)
        except ProcessLookupError:
            return
        time.sleep(grace)


def time_sweeps(points: int, requests: int, runs: int, **where) -> list[float]:
    from raidsim.study import run_study

    times = []
    for _ in range(runs):
        out = tempfile.mkdtemp(prefix="raidsim-scaling-")
        try:
            started = time.perf_counter()
            table = run_study(study(points, requests), out, progress=False, **where)
            times.append(time.perf_counter() - started)
            assert (table["status"] == "ok").all() and (table["host.requests"] == requests).all()
        finally:
            shutil.rmtree(out, ignore_errors=True)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cpus", type=int, nargs="+", default=[1, 2], help="worker CPUs of each head (default 1 2)")
    ap.add_argument("--points", type=int, default=8, help="points per sweep (default 8)")
    ap.add_argument("--requests", type=int, default=400_000, help="requests per point (default 400,000: ~2 s)")
    ap.add_argument("--runs", type=int, default=3, help="timed sweeps per CPU count (default 3)")
    ap.add_argument("--local", action="store_true", help="also time local processes of as many workers")
    args = ap.parse_args()
    import ray

    rows = []
    for cpus in args.cpus:
        home = pathlib.Path(tempfile.mkdtemp(prefix="raidsim-ray-"))  # short: Ray's socket paths must fit
        address, group = start_head(cpus, home)
        try:
            ray.init(address=address, logging_level="ERROR")  # once: the sweeps reuse the connection
            time_sweeps(cpus, 1000, 1, ray_address=address)  # warm-up: every worker starts and imports raidsim
            rows.append((f"ray, {cpus} CPU", cpus, time_sweeps(args.points, args.requests, args.runs,
                                                                ray_address=address)))
        finally:
            ray.shutdown()
            stop_head(group)
            shutil.rmtree(home, ignore_errors=True)
        if args.local:
            rows.append((f"local, {cpus} workers", cpus, time_sweeps(args.points, args.requests, args.runs,
                                                                   workers=cpus)))
    base = args.points / statistics.median(rows[0][2])
    print(f"{args.points} points of {args.requests:,} requests, medians of {args.runs} sweeps")
    print(f"{'where':<18} {'median s':>9} {'points/s':>9} {'speedup':>8}   sweeps (s)")
    for name, _, times in rows:
        rate = args.points / statistics.median(times)
        print(f"{name:<18} {statistics.median(times):>9.2f} {rate:>9.3f} {rate / base:>7.2f}x   "
              + " ".join(f"{t:.2f}" for t in times))


if __name__ == "__main__":
    main()
