"""The RAIS paper (Kim et al., ORNL 2010): cost efficiency (§5.4).

Performance and capacity per dollar of drives and RAID controller: IOPS/$
for small random work, MB/s/$ for large sequential work, GB/$. A priced
simulation reports them itself (the report's ``cost`` section, from
``ssd.price_usd`` and ``array.controller.price_usd``); here the same
arithmetic runs on the paper's own Table 5, which is how its Figure 7 was
drawn, so that its claims can be checked against its numbers.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from .sweep import packaged_spec


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


def peak_workload(read: bool) -> Dict[str, Any]:
    """Figure 1's benchmark at its largest request and queue depth: a closed
    loop of sequential requests (each starts where the last ended)."""
    f = spec()["figure1_peak"]
    return {"kind": "synthetic", "requests": f["requests"], "processes": f["queue_depth"],
            "read_fraction": 1.0 if read else 0.0, "address": "sequential",
            "size": {"kind": "fixed", "mean_bytes": f["request_bytes"]}}


def figure1_peaks(labels: Optional[List[str]] = None) -> List[Dict[str, Any]]:
    """Each drive preset's peak sequential read and write bandwidth beside
    the paper's (§5.1.1), as rows {figure, case, metric, raidsim, paper}.

    The drives start fresh (no preconditioning): a sequential run of this
    length never collects garbage, and neither does a drive warmed with
    the same sequential pattern, whose overwrites free whole blocks."""
    from .api import simulate
    from .config import Config

    rows = []
    for d in spec()["drives"]:
        if labels is not None and d["label"] not in labels:
            continue
        for read in (True, False):
            cfg = Config.preset(d["preset"]).with_workload(peak_workload(read))
            report = simulate(cfg, progress=False)
            key = "seq_read_mb_per_s" if read else "seq_write_mb_per_s"
            rows.append({"figure": "Figure 1", "case": f"{d['label']} sequential {'read' if read else 'write'}",
                         "metric": "mb_per_s", "raidsim": report.to_dict()["host"]["mb_per_s"], "paper": float(d[key])})
    return rows
