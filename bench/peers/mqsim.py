"""raidsim beside MQSim (github:CMU-SAFARI/MQSim, FAST'18) on MQSim's own
default drive (``ssdconfig.xml``; raidsim's preset ``mqsim-default``) and
MQSim's synthetic closed-loop workloads.

Each case is a queue-depth generator of MQSim's (``QUEUE_DEPTH``: the host
keeps this many requests outstanding) beside raidsim's closed loop with as
many processes: random or sequential, reads or writes or a mix, of one size.
Both drives start preconditioned: MQSim's own way (its FTL places the valid
pages of ``Initial_Occupancy_Percentage`` of the space in the block fullness
of the steady state, Van Houdt's mean-field model, and keeps its free
blocks), raidsim's by a sequential fill of the same share. The workload's
span is that share (MQSim's ``Working_Set_Percentage``), so every address
read holds data. Neither collects before its free blocks are used up (some
450,000 random 4 KiB writes on the 256-block drive), so the default 20,000
requests compare the data path; ``--requests 2000000`` on
``random-write-4k-qd8`` reaches collection.

    python bench/peers/mqsim.py --mqsim PATH [--blocks-per-plane 256] [--requests 20000] [--cases NAME,...] [--json]

``--preset mqsim-fast18`` runs raidsim on the drive of MQSim's fast18
experiments; give MQSim that drive with ``--source DIR`` whose
``ssdconfig.xml`` is fast18's ``ssdconfig-backend-contention.xml``.

``--sata`` puts both drives behind a SATA host interface: MQSim's HBA (its
``SATA_Processing_Delay`` for each command and each completion, one at a
time) with a native command queue of 32 slots, raidsim's
``ssd.timing.sata_hba_processing_ns`` and ``ssd.queue_depth = 32``; MQSim's
figure is then its end-to-end delay, from the host's issue.

``PATH`` is a checkout of github:CMU-SAFARI/MQSim (built here with its own
``make`` in a temporary copy) or a built ``MQSim`` binary. MQSim's own
preconditioning of the full drive (2048 blocks a plane, 512 GiB) takes about
15 minutes and 7 GB per case on a 2-core machine; ``--blocks-per-plane``
shrinks both drives alike (256: 64 GiB, about 75 s a case) and changes
nothing else. Never run in CI: the figures it prints are recorded in
``tests/test_peer_mqsim.py`` with the command that made them.
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

OCCUPANCY = 0.75
SECTOR = 512
# A SATA drive's native command queue.
NCQ_SLOTS = 32


def case(read_pct: int, pattern: str, size_kib: int, depth: int) -> dict:
    return {"read_pct": read_pct, "pattern": pattern, "size_kib": size_kib, "depth": depth}


def all_cases() -> dict:
    cases = {}
    for pattern in ("random", "sequential"):
        for op, pct in (("read", 100), ("write", 0)):
            for size in (4, 64):
                for depth in (1, 8, 32):
                    cases[f"{pattern}-{op}-{size}k-qd{depth}"] = case(pct, pattern, size, depth)
    for depth in (1, 8, 32):
        cases[f"random-mix70-4k-qd{depth}"] = case(70, "random", 4, depth)
    for name in ("tpcc", "wsrch"):
        cases[f"trace-{name}"] = {"trace": f"mqsim-{name}-small.trace"}
    return cases


def ssd_config(mqsim_dir: str, blocks_per_plane: int, precondition: bool = True, sata: bool = False) -> str:
    """MQSim's shipped ssdconfig.xml with preconditioning on (or off) and the drive's size set; with ``sata``
    its host interface is SATA with a native command queue of 32."""
    with open(os.path.join(mqsim_dir, "ssdconfig.xml")) as f:
        xml = f.read()
    if precondition:
        xml = xml.replace("<Enabled_Preconditioning>false<", "<Enabled_Preconditioning>true<")
    if sata:
        xml = xml.replace("<HostInterface_Type>NVME<", "<HostInterface_Type>SATA<")
        xml = re.sub(r"<IO_Queue_Depth>\d+<", f"<IO_Queue_Depth>{NCQ_SLOTS}<", xml)
    return re.sub(r"<Block_No_Per_Plane>\d+<", f"<Block_No_Per_Plane>{blocks_per_plane}<", xml)


def sata_overrides(config: str) -> dict:
    """raidsim's settings for MQSim's SATA host interface: its HBA's processing time and the NCQ's slots."""
    return {"ssd.timing.sata_hba_processing_ns": int(flow_figure(config, "SATA_Processing_Delay")),
            "ssd.queue_depth": NCQ_SLOTS}


def trace_workload_xml(path: str) -> str:
    return f"""<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Trace_Based>
<Priority_Class>HIGH</Priority_Class>
<Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs><Chip_IDs>0,1,2,3</Chip_IDs><Die_IDs>0,1</Die_IDs><Plane_IDs>0,1</Plane_IDs>
<Initial_Occupancy_Percentage>{round(OCCUPANCY * 100)}</Initial_Occupancy_Percentage>
<File_Path>{path}</File_Path>
<Percentage_To_Be_Executed>100</Percentage_To_Be_Executed>
<Relay_Count>1</Relay_Count>
<Time_Unit>NANOSECOND</Time_Unit>
</IO_Flow_Parameter_Set_Trace_Based></IO_Scenario></MQSim_IO_Scenarios>
"""


def workload_xml(c: dict, requests: int, seed: int) -> str:
    sectors = c["size_kib"] * 1024 // SECTOR
    distribution = "RANDOM_UNIFORM" if c["pattern"] == "random" else "STREAMING"
    pct = round(OCCUPANCY * 100)
    return f"""<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Synthetic>
<Priority_Class>HIGH</Priority_Class>
<Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs><Chip_IDs>0,1,2,3</Chip_IDs><Die_IDs>0,1</Die_IDs><Plane_IDs>0,1</Plane_IDs>
<Initial_Occupancy_Percentage>{pct}</Initial_Occupancy_Percentage>
<Working_Set_Percentage>{pct}</Working_Set_Percentage>
<Synthetic_Generator_Type>QUEUE_DEPTH</Synthetic_Generator_Type>
<Read_Percentage>{c["read_pct"]}</Read_Percentage>
<Address_Distribution>{distribution}</Address_Distribution>
<Percentage_of_Hot_Region>0</Percentage_of_Hot_Region>
<Generated_Aligned_Addresses>true</Generated_Aligned_Addresses>
<Address_Alignment_Unit>{sectors}</Address_Alignment_Unit>
<Request_Size_Distribution>FIXED</Request_Size_Distribution>
<Average_Request_Size>{sectors}</Average_Request_Size>
<Variance_Request_Size>0</Variance_Request_Size>
<Seed>{seed}</Seed>
<Average_No_of_Reqs_in_Queue>{c["depth"]}</Average_No_of_Reqs_in_Queue>
<Intensity>32768</Intensity>
<Stop_Time>0</Stop_Time>
<Total_Requests_To_Generate>{requests}</Total_Requests_To_Generate>
</IO_Flow_Parameter_Set_Synthetic></IO_Scenario></MQSim_IO_Scenarios>
"""


# MQSim aborts ("free(): invalid pointer") once collection has run for a
# while on a write-heavy flow: an erase completes for a block its plane no
# longer lists as being erased, and GC_and_WL_Unit_Base erases the set's
# end() iterator. The one change to what MQSim does: erase only a block found.
CRASH = "pbke->Ongoing_erase_operations.erase(pbke->Ongoing_erase_operations.find(transaction->Address.BlockID));"
GUARD = ("{ auto ongoing = pbke->Ongoing_erase_operations.find(transaction->Address.BlockID); "
         "if (ongoing != pbke->Ongoing_erase_operations.end()) pbke->Ongoing_erase_operations.erase(ongoing); }")
# MQSim sums its flows' read and write response times apart but reports
# only their mean together; the build also writes the two means.
PER_OP_AT = '\t\tattr = "Min_Device_Response_Time";'
PER_OP = "".join(
    f'\t\tattr = "Device_Response_Time_{op.title()}"; val = std::to_string(STAT_serviced_{op}_request_count ? '
    f'STAT_sum_device_response_time_{op} / STAT_serviced_{op}_request_count / SIM_TIME_TO_MICROSECONDS_COEFF : 0); '
    f'xmlwriter.Write_attribute_string(attr, val);\n' for op in ("read", "write"))


def patch(path: str, anchor: str, replacement: str, what: str) -> None:
    with open(path) as f:
        text = f.read()
    if text.count(anchor) != 1:
        raise SystemExit(f"{path}: not the MQSim this script knows (7ec40e3); {what} does not apply")
    with open(path, "w") as f:
        f.write(text.replace(anchor, replacement))


def build_mqsim(source: str, into: str) -> str:
    if os.path.isfile(source) and os.access(source, os.X_OK):
        return source
    shutil.copytree(source, into, ignore=shutil.ignore_patterns(".git", "build", "MQSim"))
    patch(os.path.join(into, "src", "ssd", "GC_and_WL_Unit_Base.cpp"), CRASH, GUARD, "the erase guard")
    patch(os.path.join(into, "src", "host", "IO_Flow_Base.cpp"), PER_OP_AT, PER_OP + PER_OP_AT, "the read and write means")
    subprocess.run(["make", "-j2"], cwd=into, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(into, "MQSim")


def flow_figure(xml: str, name: str) -> float:
    m = re.search(rf"<{name}>([^<]+)</{name}>", xml)
    if not m:
        raise SystemExit(f"MQSim's report has no <{name}>")
    return float(m.group(1))


def ftl_figure(xml: str, name: str) -> float:
    m = re.search(rf'\b{name}="([^"]+)"', xml)
    if not m:
        raise SystemExit(f"MQSim's report has no {name}")
    return float(m.group(1))


def run_mqsim(binary: str, work: str, config: str, c: dict, requests: int, seed: int, traces: str,
              sata: bool = False) -> dict:
    with open(os.path.join(work, "ssd.xml"), "w") as f:
        f.write(config)
    with open(os.path.join(work, "wl.xml"), "w") as f:
        f.write(trace_workload_xml(os.path.join(traces, c["trace"])) if "trace" in c else workload_xml(c, requests, seed))
    started = time.monotonic()
    subprocess.run([binary, "-i", "ssd.xml", "-w", "wl.xml"], cwd=work, check=True, stdout=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL)
    with open(os.path.join(work, "wl_scenario_1.xml")) as f:
        xml = f.read()
    # A multi-plane or die-interleaved command erases a block on each of
    # its planes or dies (two of each on this drive).
    erases = sum(n * ftl_figure(xml, k) for k, n in (("Issued_Flash_Erase_CMD", 1), ("Issued_Flash_Interleaved_Erase_CMD", 2),
                                                   ("Issued_Flash_Multiplane_Erase_CMD", 2),
                                                   ("Issued_Flash_Interleaved_Multiplane_Erase_CMD", 4)))
    gc_runs = ftl_figure(xml, "Total_GC_Executions")
    moved = ftl_figure(xml, "Average_Page_Movement_For_GC") if gc_runs else 0.0
    queries = ftl_figure(xml, "Total_CMT_Queries")
    # On SATA MQSim starts a request's device time once its HBA has sent it; raidsim's response, as MQSim's
    # end-to-end delay, runs from the host's issue.
    mean_us = flow_figure(xml, "End_to_End_Request_Delay" if sata else "Device_Response_Time")
    # MQSim reports no rate when a flow stops at a request count; in a closed
    # loop with no think time, Little's law gives it from the mean.
    # For a trace MQSim divides by its own clock, which raidsim's duration does not match; the rate is left out.
    iops = float("nan") if "trace" in c else c["depth"] / (mean_us * 1e-6)
    # Only a build made by this script reports them (see PER_OP).
    per_op = {f"{op}_mean_us": (flow_figure(xml, f"Device_Response_Time_{op.title()}")
                                if f"<Device_Response_Time_{op.title()}>" in xml else float("nan")) for op in ("read", "write")}
    return {"mean_us": mean_us, "iops": iops, **per_op,
            "erases": erases, "pages_moved": gc_runs * moved,
            "cmt_hit_ratio": ftl_figure(xml, "CMT_Hits") / queries if queries else float("nan"),
            "map_reads": ftl_figure(xml, "Issued_Flash_Read_CMD_For_Mapping"),
            "multi_plane_programs": ftl_figure(xml, "Issued_Flash_Multiplane_Program_CMD")
            + ftl_figure(xml, "Issued_Flash_Interleaved_Multiplane_Program_CMD"),
            "wall_s": time.monotonic() - started}


def mqsim_fold_modulus(geometry: dict) -> int:
    """The modulus MQSim folds a trace's addresses by, in sectors, on the
    drive of raidsim's ``ssd.geometry`` table: its flow's last logical sector
    less its first (IO_Flow_Trace_Based), one short of the sectors it
    exposes, which it counts per plane, each rounded down
    (Logical_Address_Partitioning_Unit), for a flow on every plane."""
    g = geometry
    per_plane = int(g["blocks_per_plane"] * g["pages_per_block"] * (g["page_size_bytes"] // SECTOR)
                    * (1.0 - g["over_provisioning_fraction"]))
    return per_plane * g["channels"] * g["chips_per_channel"] * g["dies_per_chip"] * g["planes_per_die"] - 1


def fold_trace(source: str, into: str, modulus: int) -> str:
    """Writes ``source`` (MQSim's ASCII format) to ``into`` with each start
    sector folded as MQSim folds it: unchanged up to ``modulus``, else taken
    modulo it."""
    with open(source) as f, open(into, "w") as out:
        for line in f:
            fields = line.split()
            if len(fields) >= 3 and int(fields[2]) > modulus:
                fields[2] = str(int(fields[2]) % modulus)
            out.write(" ".join(fields) + "\n")
    return into


def run_raidsim_trace(c: dict, blocks_per_plane: int, traces: str, preset: str = "mqsim-default",
                      extra: dict | None = None) -> dict:
    import raidsim

    started = time.monotonic()
    # Fresh drives: MQSim cannot precondition for these traces (see ssd_config's caller), so
    # nothing warms its cached map either.
    overrides = {"ssd.geometry.blocks_per_plane": blocks_per_plane, "precondition.fill_fraction": 0.0,
                 "ssd.ftl.cmt_starts_warm": False, **(extra or {})}
    # MQSim folds addresses past its drive's end back onto it by a modulus of
    # its own, not raidsim's capacity (by which "wrap" folds): where a request
    # lands in its pages decides how many pages it writes. raidsim replays the
    # trace as MQSim folds it.
    geometry = raidsim.Config.load(preset).with_overrides(overrides).resolved()["ssd"]["geometry"]
    with tempfile.TemporaryDirectory() as tmp:
        folded = fold_trace(os.path.join(traces, c["trace"]), os.path.join(tmp, c["trace"]), mqsim_fold_modulus(geometry))
        stream = raidsim.Workload.trace(folded, format="mqsim_ascii")
        r = raidsim.simulate(preset, stream, overrides=overrides, progress=False).to_dict()
    return summary(r, started)


def summary(r: dict, started: float) -> dict:
    dev = r["devices"][0]
    stats = {s["path"]: s["value"] for s in r["stats"]}
    per_op = {f"{op}_mean_us": (r["host"][f"{op}_response"]["mean_ns"] or float("nan")) / 1e3 for op in ("read", "write")}
    return {"mean_us": r["host"]["response"]["mean_ns"] / 1e3, "iops": r["host"]["iops"], **per_op, "erases": dev["erases"],
            "pages_moved": dev["pages_written"].get("gc_write", 0),
            "cmt_hit_ratio": stats.get("ssd.ftl.cmt.hit_ratio", float("nan")),
            "map_reads": dev["pages_read"].get("map_read", 0),
            "multi_plane_programs": stats.get("ssd.flash.multi_plane_programs", 0.0), "wall_s": time.monotonic() - started}


def run_raidsim(c: dict, requests: int, blocks_per_plane: int, seed: int, traces: str = "",
                preset: str = "mqsim-default", extra: dict | None = None) -> dict:
    """raidsim on case ``c``; ``extra`` overrides settings of the preset."""
    import raidsim

    if "trace" in c:
        return run_raidsim_trace(c, blocks_per_plane, traces, preset, extra)
    size = c["size_kib"] * 1024
    started = time.monotonic()
    probe = raidsim.simulate(preset, None, overrides={"ssd.geometry.blocks_per_plane": blocks_per_plane,
                                                               "workload.kind": "synthetic", "workload.requests": 1,
                                                               "precondition.fill_fraction": 0.0,
                                                               "precondition.random_overwrite_factor": 0.0},
                             progress=False).to_dict()
    capacity = probe["devices"][0]["capacity_bytes"]
    span = int(capacity * OCCUPANCY) // size * size
    overrides = {
        "sim.seed": seed, "ssd.geometry.blocks_per_plane": blocks_per_plane,
        "precondition.fill_fraction": span / capacity, "precondition.random_overwrite_factor": 0.0,
        "workload.kind": "synthetic", "workload.requests": requests, "workload.processes": c["depth"],
        "workload.read_fraction": c["read_pct"] / 100, "workload.size.kind": "fixed", "workload.size.mean_bytes": size,
        "workload.alignment_bytes": size, "workload.span_bytes": span,
        "workload.address": "uniform" if c["pattern"] == "random" else "sequential",
        **(extra or {}),
    }
    r = raidsim.simulate(preset, None, overrides=overrides, progress=False).to_dict()
    return summary(r, started)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mqsim", required=True, help="a checkout of github:CMU-SAFARI/MQSim, or its built binary")
    ap.add_argument("--source", help="the checkout whose ssdconfig.xml to use, when --mqsim is a binary")
    ap.add_argument("--preset", default="mqsim-default",
                    help="raidsim's drive: mqsim-fast18 beside a --source directory whose ssdconfig.xml is "
                         "fast18/backend-contention/ssdconfig-backend-contention.xml")
    ap.add_argument("--blocks-per-plane", type=int, default=256)
    ap.add_argument("--requests", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=798)
    ap.add_argument("--traces", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                                     "shared", "traces"),
                    help="the directory holding mqsim-tpcc-small.trace and mqsim-wsrch-small.trace")
    ap.add_argument("--cases", help="comma-separated case names (default: all); --list shows them")
    ap.add_argument("--sata", action="store_true",
                    help="both drives behind a SATA host interface (MQSim's SATA_HBA; a native command queue of 32)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    cases = all_cases()
    if a.list:
        print("\n".join(cases))
        return
    names = a.cases.split(",") if a.cases else list(cases)
    unknown = [n for n in names if n not in cases]
    if unknown:
        raise SystemExit(f"unknown case(s) {unknown}; --list shows them")
    source = a.source or (a.mqsim if os.path.isdir(a.mqsim) else os.path.dirname(os.path.abspath(a.mqsim)))
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        binary = build_mqsim(a.mqsim, os.path.join(tmp, "mqsim"))
        for name in names:
            # MQSim stops preconditioning for both shipped traces ("Unhandled
            # address distribution type in FTL's preconditioning function"),
            # so they replay on fresh drives.
            config = ssd_config(source, a.blocks_per_plane, precondition="trace" not in cases[name], sata=a.sata)
            mq = run_mqsim(binary, tmp, config, cases[name], a.requests, a.seed, os.path.abspath(a.traces), a.sata)
            rs = run_raidsim(cases[name], a.requests, a.blocks_per_plane, a.seed, os.path.abspath(a.traces), a.preset,
                             sata_overrides(config) if a.sata else None)
            rows[name] = {"mqsim": mq, "raidsim": rs}
            if not a.json:
                print(f"{name:26} mean {mq['mean_us']:9.1f} {rs['mean_us']:9.1f} us ({rs['mean_us'] / mq['mean_us'] - 1:+6.1%})"
                      f"  reads {mq['read_mean_us']:9.1f} {rs['read_mean_us']:9.1f}  writes {mq['write_mean_us']:9.1f} {rs['write_mean_us']:9.1f}"
                      f"  iops {mq['iops']:9.0f} {rs['iops']:9.0f}  erases {mq['erases']:6.0f} {rs['erases']:6.0f}"
                      f"  moved {mq['pages_moved']:8.0f} {rs['pages_moved']:8.0f}"
                      f"  cmt {mq['cmt_hit_ratio']:.3f} {rs['cmt_hit_ratio']:.3f}"
                      f"  map reads {mq['map_reads']:8.0f} {rs['map_reads']:8.0f}"
                      f"  multi-plane programs {mq['multi_plane_programs']:6.0f} {rs['multi_plane_programs']:6.0f}"
                      f"  wall {mq['wall_s']:5.0f} {rs['wall_s']:5.0f} s", flush=True)
    if a.json:
        print(json.dumps({"requests": a.requests, "blocks_per_plane": a.blocks_per_plane, "seed": a.seed, "rows": rows},
                         indent=2))


if __name__ == "__main__":
    sys.exit(main())
