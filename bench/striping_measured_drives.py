"""Chen & Lee's Table 2 on drives measured from real ones, with their caches on and off.

Chen & Lee (SIGMETRICS 1995) read striping coefficients off sweeps of a
17-disk RAID5: the concurrency slopes S_r, S_w and the zero-knowledge units
Z_r, Z_w, Z_rw, the latter as multiples of the disk performance product
(positioning time x transfer rate, over the first 300 MB). Their three disks
had no cache (raidSim modelled none). This runs the same sweeps
(`raidsim reproduce striping-coefficients`, the same grid, workloads and
stopping rule, the first 300 MB of each disk) on the presets extracted from
real drives, hdd-cheetah-9lp, hdd-atlas-iii and hdd-cheetah-15k5, once with
their on-board caches and once without, and prints the coefficients beside
Chen & Lee's:

    python bench/striping_measured_drives.py [--quick] [--out DIR] [--drives hdd-cheetah-9lp,...]

The full grid takes about 25 minutes on the 2-core development machine;
--quick (fewer points, a 10 % stopping rule) about 5.
"""

from __future__ import annotations

import argparse
import json

import pandas as pd

from raidsim import _native
from raidsim.config import Config
from raidsim.papers import striping

#: Chen & Lee's region of each disk: the first 300 MB (their Table 1).
FIRST_300_MB = 300 * 2**20
DRIVES = ["hdd-cheetah-9lp", "hdd-atlas-iii", "hdd-cheetah-15k5"]


def performance_product(preset: str, overrides: list[str]) -> float:
    cfg = Config.preset(preset).with_overrides(overrides)
    return json.loads(_native.disk_parameters(cfg.layers))["effective_performance_product_bytes"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the quick grid of `reproduce striping-coefficients --quick`")
    ap.add_argument("--out", default="raidsim-out/striping-measured-drives", help="where the sweeps are kept (resumed)")
    ap.add_argument("--drives", default=",".join(DRIVES), help="comma-separated presets")
    args = ap.parse_args()
    rows = []
    for preset in args.drives.split(","):
        for cache in (True, False):
            overrides = [f"hdd.capacity_limit_bytes={FIRST_300_MB}", f"hdd.cache.enabled={str(cache).lower()}"]
            grid = striping._grid(args.quick) | {"overrides": overrides, "quick": args.quick}
            runs = striping._sweep(preset, striping.spec()["disks"], grid, f"{args.out}/cache-{'on' if cache else 'off'}",
                                   None, None)
            dpp = performance_product(preset, overrides)
            c = striping.coefficients(runs, dpp)
            rows.append({"disk": preset, "cache": "on" if cache else "off", "DPP KB": round(dpp / 1024, 1),
                         **{k: None if c[k] is None else round(c[k], 3) for k in striping.COEFFICIENTS},
                         **{f"{k} band KB": "-".join(f"{u / 1024:g}" for u in (min(c[f"{k}_band"]["units"]),
                                                                                max(c[f"{k}_band"]["units"])))
                            for k in ("Z_r", "Z_w")},
                         "runs": len(runs), "unconverged": int((~runs["stop.converged"].astype(bool)).sum())})
    for pub in striping.spec()["disks_published"]:
        rows.append({"disk": f"{pub['disk']} (Chen & Lee)", "cache": "none", "DPP KB": pub["performance_product_kb"],
                     **{k: pub[k] for k in striping.COEFFICIENTS}})
    print("Table 2's coefficients (S in KB per unit of concurrency; Z as a multiple of the disk performance product,")
    print("DPP; a Z band: the units whose worst share cannot be told from the best's within the runs' 95 % intervals)")
    print(pd.DataFrame(rows).to_string(index=False, na_rep="n/a"))


if __name__ == "__main__":
    main()
