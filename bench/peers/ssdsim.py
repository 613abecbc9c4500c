"""raidsim beside SSDsim (github:huaicheng/ssdsim, its Linux port) on one
drive and one write-only stream that keeps garbage collection busy.

The drive: 2 channels x 2 chips x 2 dies x 2 planes, 128 blocks of 64
4 KiB pages per plane (512 MiB), 10 % over-provisioning; read 20 us,
program 200 us, erase 1.5 ms, bus cycle 25 ns (40 MB/s, commands of 7
cycles); static allocation in channel-chip-die-plane order; collection
below 10 % free pages of a plane, greedy. No DRAM buffer and no advanced
commands (so no copy-back): SSDsim's page-level FTL as it stands.

The stream: 4 KiB writes, aligned, uniform over 60 % of the drive's pages,
Poisson arrivals (``--iops``), on a fresh drive: about 4 rewrites of the span,
so collection runs for most of the run.

SSDsim's uninterruptible collection (``uninterrupt_gc`` in ``pagemap.c``)
holds the victim's channel while it copies, then the chip while it erases;
raidsim's matching option is ``ssd.ftl.gc_holds = "channel"`` with
``gc_copy_back = false``. The script runs raidsim both ways (that and its
default, collection on the chip alone) beside SSDsim.

    python bench/peers/ssdsim.py --ssdsim PATH/TO/ssdsim [--requests 400000] [--iops 1500] [--json]

``PATH/TO/ssdsim`` is a checkout of github:huaicheng/ssdsim; the script
copies it to a temporary directory and builds it there (``make``, with
``-fcommon`` since its headers define globals, which GCC 10 and later refuse
to link otherwise). Never run in CI: the figures it prints are recorded in
``tests/test_peer_ssdsim.py`` with the command that made them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

CHANNELS, CHIPS_PER_CHANNEL, DIES, PLANES = 2, 2, 2, 2
BLOCKS_PER_PLANE, PAGES_PER_BLOCK, PAGE_BYTES = 128, 64, 4096
OVER_PROVISIONING, GC_THRESHOLD = 0.10, 0.10
T_READ_NS, T_PROGRAM_NS, T_ERASE_NS, T_BUS_CYCLE_NS = 20_000, 200_000, 1_500_000, 25
SPAN_FRACTION = 0.60

PHYSICAL_PAGES = CHANNELS * CHIPS_PER_CHANNEL * DIES * PLANES * BLOCKS_PER_PLANE * PAGES_PER_BLOCK


def ssdsim_parameters() -> str:
    """SSDsim's ``page.parameters`` for the drive (its own file, values changed)."""
    chips = "".join(f"chip number[{i}] = {CHIPS_PER_CHANNEL if i < CHANNELS else 0};\n" for i in range(19))
    timing = {"t_PROG": T_PROGRAM_NS, "t_DBSY": 50, "t_BERS": T_ERASE_NS, "t_R": T_READ_NS, "t_WC": T_BUS_CYCLE_NS,
              "t_RC": T_BUS_CYCLE_NS}
    rest = ["t_CLS = 12;", "t_CLH = 5;", "t_CS = 20;", "t_CH = 5;", "t_WP = 12;", "t_ALS = 12;", "t_ALH = 5;", "t_DS = 12;",
            "t_DH = 5;", "t_WH = 10;", "t_ADL = 70;", "t_AR = 10;", "t_CLR = 10;", "t_RR = 20;", "t_RP = 12;", "t_WB = 100;",
            "t_REA = 30;", "t_CEA = 45;", "t_RHZ = 100;", "t_CHZ = 30;", "t_RHOH = 15;", "t_RLOH = 5;", "t_COH = 15;",
            "t_REH = 10;", "t_IR = 0;", "t_RHW = 100;", "t_WHR = 60;", "t_RST = 5000;"]
    return (
        "dram capacity = 0;\n" + chips
        + f"channel number = {CHANNELS};\nchip number = {CHANNELS * CHIPS_PER_CHANNEL};\ndie number = {DIES};\n"
        + f"plane number = {PLANES};\nblock number = {BLOCKS_PER_PLANE};\npage number = {PAGES_PER_BLOCK};\n"
        + f"subpage page = {PAGE_BYTES // 512};\npage capacity = {PAGE_BYTES};\nsubpage capacity = 512;\n"
        + "".join(f"{k} = {v};\n" for k, v in timing.items()) + "\n".join(rest) + "\n"
        + "erase limit=100000;\nflash operating current=25000.0;\nflash supply voltage=3.3;\n"
        + "dram active current=125000;\ndram standby current=50000;\ndram refresh current=5000;\ndram voltage=3.3;\n"
        + "address mapping=1;\nwear leveling=1;\ngc=1;\n"
        + f"overprovide={OVER_PROVISIONING:.2f};\ngc threshold={GC_THRESHOLD:.2f};\nbuffer management=0;\n"
        + f"scheduling algorithm=1;\ngc hard threshold={GC_THRESHOLD:.2f};\nallocation=1;\nstatic_allocation=1;\n"
        + "dynamic_allocation=0;\nadvanced command=0;\nadvanced command priority=0;\ngreed CB command=0;\n"
        + "greed MPW command=0;\naged=0;\naged ratio=0.7;\n"
    )


def raidsim_overrides(gc_holds: str) -> dict:
    """The same drive as raidsim settings (on the defaults, not a preset)."""
    return {
        "ssd.geometry.channels": CHANNELS, "ssd.geometry.chips_per_channel": CHIPS_PER_CHANNEL,
        "ssd.geometry.dies_per_chip": DIES, "ssd.geometry.planes_per_die": PLANES,
        "ssd.geometry.blocks_per_plane": BLOCKS_PER_PLANE, "ssd.geometry.pages_per_block": PAGES_PER_BLOCK,
        "ssd.geometry.page_size_bytes": PAGE_BYTES, "ssd.geometry.over_provisioning_fraction": OVER_PROVISIONING,
        "ssd.geometry.spare_bytes_per_sector": 0,
        "ssd.timing.t_read_ns": T_READ_NS, "ssd.timing.t_program_ns": T_PROGRAM_NS, "ssd.timing.t_erase_ns": T_ERASE_NS,
        "ssd.timing.t_command_ns": 7 * T_BUS_CYCLE_NS,
        "ssd.timing.channel_bandwidth_bytes_per_s": 1_000_000_000 // T_BUS_CYCLE_NS,
        "ssd.timing.host_link_bandwidth_bytes_per_s": 0, "ssd.timing.controller_overhead_ns": 0,
        "ssd.write_ack": "transfer", "ssd.parallel_unit": "chip",
        "ssd.ftl.allocation": "static", "ssd.ftl.static_order": "CWDP",
        "ssd.ftl.gc_threshold_fraction": GC_THRESHOLD, "ssd.ftl.gc_victim": "greedy",
        "ssd.ftl.gc_holds": gc_holds, "ssd.ftl.gc_copy_back": gc_holds != "channel",
        "precondition.fill_fraction": 0.0,
    }


def write_trace(path: str, requests: int, iops: float, seed: int) -> None:
    """SSDsim's ASCII trace: time (ns), device, sector, sectors, 0 = write, 1 = read."""
    # numpy's RandomState: its streams are frozen, so the recorded figures
    # stay tied to the same requests whatever the Python or numpy version.
    rng = np.random.RandomState(seed)
    span_pages = int(PHYSICAL_PAGES * SPAN_FRACTION)
    instants = np.cumsum(rng.exponential(1e9 / iops, requests)).astype(np.int64)
    pages = rng.randint(0, span_pages, requests)
    t = int(instants[-1])
    with open(path, "w") as f:
        lines = [f"{int(at)} 0 {int(p) * (PAGE_BYTES // 512)} {PAGE_BYTES // 512} 0" for at, p in zip(instants, pages)]
        # SSDsim divides by its read count when it reports: one read, of the
        # first page the stream writes, first (one read last never completes
        # there). SSDsim maps the pages a trace reads before it starts.
        lines.insert(0, f"0 0 {lines[0].split()[2]} {PAGE_BYTES // 512} 1")
        # SSDsim reads its last line and stops at the end of the file
        # before it simulates it, yet needs that line's later instant to
        # finish the requests before: a last line that is never simulated,
        # one second after the stream (raidsim is told to stop before it).
        lines.append(f"{int(t) + 1_000_000_000} 0 0 {PAGE_BYTES // 512} 0")
        f.write("\n".join(lines))


def build_ssdsim(source: str, into: str) -> str:
    shutil.copytree(source, into, ignore=shutil.ignore_patterns(".git", "*.o", "ssd"))
    # Its Makefile spells out each command and takes no CFLAGS: add -fcommon to them.
    makefile = os.path.join(into, "Makefile")
    with open(makefile) as f:
        rules = f.read().replace("gcc -c -g", "gcc -fcommon -c -g").replace("cc -g -o", "cc -fcommon -g -o")
    with open(makefile, "w") as f:
        f.write(rules)
    subprocess.run(["make", "ssd"], cwd=into, check=True, capture_output=True)
    if not os.path.exists(os.path.join(into, "ssd")):
        raise SystemExit("SSDsim did not build")
    return into


def run_ssdsim(workdir: str, trace: str) -> dict:
    with open(os.path.join(workdir, "page.parameters"), "w") as f:
        f.write(ssdsim_parameters())
    started = time.monotonic()
    # SSDsim exits with status 1 when it succeeds: its figures are checked instead.
    subprocess.run(["./ssd"], cwd=workdir, input=trace + "\n", text=True, capture_output=True, timeout=3600)
    wall = time.monotonic() - started
    with open(os.path.join(workdir, "statistic10.dat")) as f:
        text = f.read()

    def figure(label: str) -> float:
        m = re.search(rf"^{re.escape(label)}:\s*([0-9.]+)", text, re.M)
        if not m:
            raise SystemExit(f"SSDsim's statistic10.dat has no '{label}'")
        return float(m.group(1))

    writes = int(figure("write request count"))
    # Every program is a host page (one per 4 KiB write) or a copy.
    return {"write_mean_ms": figure("write request average response time") / 1e6, "erases": int(figure("erase count")),
            "pages_moved": int(figure("program count")) - writes, "writes": writes, "wall_s": wall}


def run_raidsim(trace: str, requests: int, gc_holds: str) -> dict:
    import raidsim

    started = time.monotonic()
    stream = raidsim.Workload.trace(trace, format="mqsim_ascii", max_requests=requests + 1)  # not the last line
    r = raidsim.simulate(None, stream, overrides=raidsim_overrides(gc_holds),
                         progress=False).to_dict()
    dev = r["devices"][0]
    return {"write_mean_ms": r["host"]["write_response"]["mean_ns"] / 1e6, "erases": dev["erases"],
            "pages_moved": dev["pages_written"].get("gc_write", 0), "writes": r["host"]["writes"],
            "wall_s": time.monotonic() - started}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ssdsim", required=True, help="a checkout of github:huaicheng/ssdsim")
    ap.add_argument("--requests", type=int, default=400_000)
    ap.add_argument("--iops", type=float, default=1500.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = build_ssdsim(a.ssdsim, os.path.join(tmp, "ssdsim"))
        trace = os.path.join(work, "stream.ascii")
        write_trace(trace, a.requests, a.iops, a.seed)
        rows = {"SSDsim": run_ssdsim(work, "stream.ascii"),
                "raidsim, gc_holds = channel": run_raidsim(trace, a.requests, "channel"),
                "raidsim, gc_holds = unit": run_raidsim(trace, a.requests, "unit")}
    if a.json:
        print(json.dumps({"requests": a.requests, "iops": a.iops, "seed": a.seed, "rows": rows}, indent=2))
        return
    print(f"{a.requests} writes of 4 KiB at {a.iops:g} IOPS, uniform over {SPAN_FRACTION:.0%} of the pages (seed {a.seed})")
    print(f"{'':32} {'write, ms':>10} {'erases':>8} {'pages moved':>12} {'wall, s':>8}")
    for name, r in rows.items():
        print(f"{name:32} {r['write_mean_ms']:10.4f} {r['erases']:8d} {r['pages_moved']:12d} {r['wall_s']:8.2f}")


if __name__ == "__main__":
    sys.exit(main())
