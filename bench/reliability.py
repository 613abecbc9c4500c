"""Speed of `raidsim reliability`: array lifetimes a minute, the median of several runs.

    python bench/reliability.py [--runs 5] [--lifetimes 1000000]

Four cases: RAID-5 of 8 with the defaults (plain lifetimes, exponential lives and rebuilds, read errors),
RAID-6 of 8 with importance sampling (failure_biasing 0.5), RAID-5 of 8 with Weibull lives, and Diff-RAID
(wear-outs, rates shifted on replacement, error rates growing with wear, scrubbed latent errors). Never asserted in a test: the machine is
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
    # Diff-RAID: members wearing out by their parity share, rates shifted on each replacement, error rates
    # growing with wear, latent errors found by weekly scrubs.
    "diff-raid-of-8-shifted": {"wear_out_hours": [20_000] + [60_000] * 7, "replacement_wear": "shift",
                               "uber": 1e-18, "uber_worn": 1e-14, "latent_errors_per_hour": 1e-5,
                               "scrub_interval_hours": 168},
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
