"""Writes the issue-#14 comparison trace in DiskSim 4.0's ASCII format.

The stream DiskSim and raidsim were timed on: random 4 KiB requests, 30 %
reads, uniform (4 KiB-aligned) over the first 3 GiB, Poisson arrivals at
10,000 IOPS. One line per request: ``arrival_ms devno blkno blocks flags``
with 512-byte blocks and flags 1 = read, 0 = write (DiskSim's ``ascii``
trace format). Deterministic for a given seed.

    python bench/gen_trace.py OUT [--requests N] [--seed S]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

SPAN_BYTES = 3 << 30
REQUEST_BYTES = 4096
READ_FRACTION = 0.3
MEAN_INTERARRIVAL_MS = 0.1  # 10,000 IOPS
CHUNK = 1_000_000  # lines generated at a time: bounded memory at any length


def write_trace(out, requests: int, seed: int) -> None:
    # One stream per field, each drawn in order: the first N lines are the
    # same whatever --requests is (a shorter trace is a prefix of a longer one).
    gaps, addresses, kinds = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3))
    pages = SPAN_BYTES // REQUEST_BYTES
    blocks = REQUEST_BYTES // 512
    clock_ms = 0.0
    done = 0
    while done < requests:
        n = min(CHUNK, requests - done)
        arrivals = clock_ms + np.cumsum(gaps.exponential(MEAN_INTERARRIVAL_MS, n))
        clock_ms = float(arrivals[-1])
        blkno = addresses.integers(0, pages, n) * blocks
        reads = (kinds.random(n) < READ_FRACTION).astype(np.int64)
        lines = [f"{t:.6f}\t0\t{b}\t{blocks}\t{r}\n" for t, b, r in zip(arrivals.tolist(), blkno.tolist(), reads.tolist())]
        out.write("".join(lines))
        done += n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", help="the trace file to write ('-' for stdout)")
    p.add_argument("--requests", type=int, default=1_000_000, help="lines (default 1,000,000)")
    p.add_argument("--seed", type=int, default=14, help="random seed (default 14)")
    a = p.parse_args(argv)
    if a.requests < 1:
        p.error("--requests must be at least 1")
    if a.seed < 0:
        p.error("--seed must be a non-negative integer")
    try:
        if a.out == "-":
            write_trace(sys.stdout, a.requests, a.seed)
            sys.stdout.flush()
        else:
            # Written beside, then renamed: an interrupted run leaves no half trace under the name.
            with open(a.out + ".part", "w") as f:
                write_trace(f, a.requests, a.seed)
            os.replace(a.out + ".part", a.out)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as e:
        p.exit(1, f"gen_trace: error: {e}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
