"""The cost of one very large request: one write of 1, 2 and 4 GiB, on one
SSD (the stripe-unit paper's Table-5 drive) and on a RAID-5 4+1 of it
(64 KiB stripe unit), timed in-process (``raidsim.simulate``: drive set-up,
the one request, report). A request's cost is linear in its pages when the
time per GiB stays flat from 1 to 4 GiB.

    python bench/large_request.py [--runs 5]

Medians of ``--runs`` runs (the machine is shared and noisy).
"""

from __future__ import annotations

import argparse
import statistics
import time

import raidsim
from raidsim import Config, Workload

GIB = 1 << 30
CASES = {
    "one SSD": {},
    "RAID-5 4+1": {"array.level": "raid5", "array.members": 5, "array.stripe_unit_bytes": 65536},
}


def seconds(overrides: dict, size_bytes: int) -> float:
    cfg = Config.preset("stripe-unit-table5").with_overrides(overrides)
    started = time.perf_counter()
    raidsim.simulate(cfg, Workload.requests([(0, "W", 0, size_bytes)]), progress=False)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print(f"{'case':12s} {'write':>6s} {'median s':>9s} {'s per GiB':>10s}   (medians of {args.runs})")
    for name, overrides in CASES.items():
        for gib in (1, 2, 4):
            median = statistics.median(seconds(overrides, gib * GIB) for _ in range(args.runs))
            print(f"{name:12s} {gib:4d} GiB {median:9.3f} {median / gib:10.3f}")


if __name__ == "__main__":
    main()
