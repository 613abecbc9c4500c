"""The RAIS paper (Kim et al., ORNL 2010): cost efficiency (§5.4).

Performance and capacity per dollar of drives and RAID controller: IOPS/$
for small random work, MB/s/$ for large sequential work, GB/$. A priced
simulation reports them itself (the report's ``cost`` section, from
``ssd.price_usd`` and ``array.controller_price_usd``); here the same
arithmetic runs on the paper's own Table 5, which is how its Figure 7 was
drawn, so that its claims can be checked against its numbers.
"""

from __future__ import annotations

from typing import Any, Dict, List

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
