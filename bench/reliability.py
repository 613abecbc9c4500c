"""Speed of `raidsim reliability`: array lifetimes a minute, the median of several runs.

    python bench/reliability.py [--runs 5] [--lifetimes 1000000]

Two cases: RAID-5 of 8 with the defaults (plain lifetimes, exponential lives and rebuilds, read errors),
and RAID-6 of 8 with importance sampling (failure_biasing 0.5). Never asserted in a test: the machine is
shared, so the figures are stated where they are quoted, with the command."""

from __future__ import annotations

import argparse
import statistics
import time

import raidsim

CASES = {
    "raid5-of-8": {},
    "raid6-of-8-biased": {"level": "raid6", "failure_biasing": 0.5},
    "raid5-of-8-weibull": {"life": "weibull", "weibull_shape": 1.5, "weibull_scale_hours": 1.5e6},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--lifetimes", type=int, default=1_000_000)
    a = ap.parse_args()
    for name, params in CASES.items():
        seconds = []
        for seed in range(1, a.runs + 1):
            started = time.perf_counter()
            raidsim.reliability(lifetimes=a.lifetimes, seed=seed, progress=False, **params)
            seconds.append(time.perf_counter() - started)
        median = statistics.median(seconds)
        print(f"{name:22} {a.lifetimes / median * 60:14,.0f} lifetimes a minute (median of {a.runs}: {median:.3f} s "
              f"for {a.lifetimes:,})")


if __name__ == "__main__":
    main()
