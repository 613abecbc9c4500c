"""raidsim beside MQSim on the multi-flow experiments of MQSim's paper
(Tavakkol et al., FAST'18), as MQSim ships them in ``fast18/``.

Each experiment is an SSD config and three workload files: flow 1 alone,
flow 2 alone, and both together, each file a list of scenarios (flow 2's
queue depth grows from one scenario to the next). A flow's *slowdown* is its
mean response time shared over alone, and the *fairness* of a scenario the
smallest slowdown over the largest (the paper's §6.1). This script runs
MQSim on every file and raidsim on the same flows, and prints both.

    python bench/peers/mqsim_fast18.py --mqsim PATH [--experiments backend-contention,queue-fetch-size-16,...] [--json]

``PATH`` is a checkout of github:CMU-SAFARI/MQSim (built here with its own
``make`` in a temporary copy) or a built ``MQSim`` binary beside its
checkout (``--source DIR``). MQSim's
``workload-backend-contention-flow-1.xml`` carries an unresolved merge
conflict (``<<<<<<< HEAD``); the run takes the ``origin/master`` side, the
one that parses. About 5 minutes for the read experiments on a 2-core machine.
Never run in CI: ``raidsim reproduce mqsim-fast18`` holds the figures it
prints (``experiments/mqsim-fast18.toml``), with this command beside them.

The data-cache-contention experiment is run with two changes, as
``experiments/mqsim-fast18.toml`` says beside its figures: its drive's
``Caching_Mechanism`` SIMPLE becomes ADVANCED (MQSim's SIMPLE cache manager
exits at the first write: its WRITE_CACHE case falls through to its
"caching mode not supported" error), and scenarios 1, 3 and 6 of its six run
10 simulated seconds each (the files give 100 s from scenario 2 on, and
MQSim ages the drive for several minutes before each). About 60 minutes.
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
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mqsim  # noqa: E402  (the build helper beside this script)

#: experiment name -> (folder, ssd config file, the three workload files' stem)
EXPERIMENTS = {
    "backend-contention": ("backend-contention", "ssdconfig-backend-contention.xml", "workload-backend-contention"),
    "queue-fetch-size-16": ("queue-fetch-size", "ssdconfig-queue-fetch-size=16.xml", "workload-queue-fetch-size"),
    "queue-fetch-size-1024": ("queue-fetch-size", "ssdconfig-queue-fetch-size=1024.xml", "workload-queue-fetch-size"),
    "data-cache-contention": ("data-cache-contention", "ssdconfig-datacache-contention.xml", "workload-datacache-contention"),
}
#: experiment -> (MQSim's scenarios run, 1-based; Stop_Time of each, ns): where the files' own are too slow.
SUBSET = {"data-cache-contention": ([1, 3, 6], 10_000_000_000)}
SCENARIO = re.compile(r"\t<IO_Scenario>.*?</IO_Scenario>\n", re.S)


def rendered(name: str, config: str, workload: str, work: str) -> tuple:
    """The config and workload files MQSim runs for experiment ``name``: its own, or for the data-cache
    experiment the ADVANCED cache and the scenario subset (see the module doc)."""
    if name not in SUBSET:
        return config, workload
    picked, stop = SUBSET[name]
    os.makedirs(work, exist_ok=True)
    with open(config) as f:
        text = f.read().replace("<Caching_Mechanism>SIMPLE<", "<Caching_Mechanism>ADVANCED<")
    config = os.path.join(work, "ssd-advanced.xml")
    with open(config, "w") as f:
        f.write(text)
    with open(workload) as f:
        text = f.read()
    kept = "".join(SCENARIO.findall(text)[i - 1] for i in picked)
    kept = re.sub(r"<Stop_Time>\d+</Stop_Time>", f"<Stop_Time>{stop}</Stop_Time>", kept)
    workload = os.path.join(work, os.path.basename(workload))
    with open(workload, "w") as f:
        f.write(text[:text.index("\t<IO_Scenario>")] + kept + "</MQSim_IO_Scenarios>")
    return config, workload
CONFLICT = re.compile(r"<<<<<<< HEAD\n.*?=======\n(.*?)>>>>>>> origin/master\n", re.S)
#: ``workload-datacache-contention-flow-1.xml`` closes a tag as ``</<Generated_Aligned_Addresses>``, which
#: MQSim's parser takes and Python's does not.
BROKEN_CLOSE = "</<"


def scenarios(path: str) -> list:
    """Each scenario of a workload file: its flows' parameters, by tag."""
    with open(path) as f:
        text = CONFLICT.sub(r"\1", f.read()).replace(BROKEN_CLOSE, "</")
    root = ET.fromstring(text)
    return [[{c.tag: (c.text or "").strip() for c in flow} for flow in s] for s in root]


def run_mqsim(binary: str, work: str, config: str, workload: str) -> list:
    """MQSim's per-flow mean response (µs) and IOPS, per scenario of ``workload``."""
    os.makedirs(work, exist_ok=True)
    shutil.copy(config, os.path.join(work, "ssd.xml"))
    with open(workload) as f, open(os.path.join(work, "wl.xml"), "w") as out:
        out.write(CONFLICT.sub(r"\1", f.read()))
    subprocess.run([binary, "-i", "ssd.xml", "-w", "wl.xml"], cwd=work, check=True, stdout=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL)
    results = []
    for i in range(1, len(scenarios(workload)) + 1):
        root = ET.parse(os.path.join(work, f"wl_scenario_{i}.xml")).getroot()
        flows = [f for f in root.iter("Host.IO_Flow")]
        results.append([{"mean_us": float(f.findtext("Device_Response_Time")), "iops": float(f.findtext("IOPS"))}
                        for f in flows])
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mqsim", required=True, help="a checkout of github:CMU-SAFARI/MQSim, or its built binary")
    ap.add_argument("--source", help="the checkout holding fast18/, when --mqsim is a binary")
    ap.add_argument("--experiments", help=f"comma-separated (default: all): {', '.join(EXPERIMENTS)}")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    from raidsim.papers import mqsim_fast18 as rs

    names = a.experiments.split(",") if a.experiments else list(EXPERIMENTS)
    unknown = [n for n in names if n not in EXPERIMENTS]
    if unknown:
        raise SystemExit(f"unknown experiment(s) {unknown}; valid: {', '.join(EXPERIMENTS)}")
    source = a.source or (a.mqsim if os.path.isdir(a.mqsim) else os.path.dirname(os.path.abspath(a.mqsim)))
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        binary = mqsim.build_mqsim(a.mqsim, os.path.join(tmp, "mqsim"))
        for name in names:
            folder, config, stem = EXPERIMENTS[name]
            base = os.path.join(source, "fast18", folder)
            files = {part: rendered(name, os.path.join(base, config), os.path.join(base, f"{stem}-{part}.xml"),
                                    os.path.join(tmp, name, "files", part))
                     for part in ("flow-1", "flow-2", "flow-1-flow-2")}
            runs = {part: run_mqsim(binary, os.path.join(tmp, name, part), *files[part]) for part in files}
            shared = scenarios(files["flow-1-flow-2"][1])
            rows = []
            for i, flows in enumerate(shared):
                mq = {"alone_us": [runs["flow-1"][i][0]["mean_us"], runs["flow-2"][i][0]["mean_us"]],
                      "shared_us": [f["mean_us"] for f in runs["flow-1-flow-2"][i]]}
                depths = [int(f["Average_No_of_Reqs_in_Queue"]) for f in flows]
                ours = rs.scenario(name, rs.experiment(name)["scenarios"][i])
                if ours and rs.experiment(name)["scenarios"][i]["depths"] != depths:
                    raise SystemExit(f"{name}: scenario {i + 1} of the study file is not MQSim's ({depths})")
                rows.append({"depths": depths, "mqsim": mq, "raidsim": ours})
                if not a.json:
                    s_mq, s_rs = rs.slowdowns(mq), rs.slowdowns(ours)
                    print(f"{name:22} qd {depths[0]:>3}+{depths[1]:<3}"
                          f" alone {mq['alone_us'][0]:7.0f} {ours['alone_us'][0]:7.0f} | {mq['alone_us'][1]:7.0f} {ours['alone_us'][1]:7.0f}"
                          f"  shared {mq['shared_us'][0]:7.0f} {ours['shared_us'][0]:7.0f} | {mq['shared_us'][1]:7.0f} {ours['shared_us'][1]:7.0f} us"
                          f"  slowdown {s_mq[0]:5.2f} {s_rs[0]:5.2f} | {s_mq[1]:5.2f} {s_rs[1]:5.2f}"
                          f"  fairness {rs.fairness(s_mq):.3f} {rs.fairness(s_rs):.3f}", flush=True)
            out[name] = rows
    if a.json:
        print(json.dumps(out, indent=2))


if __name__ == "__main__":
    sys.exit(main())
