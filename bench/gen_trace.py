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
import sys

import numpy as np

SPAN_BYTES = 3 << 30
REQUEST_BYTES = 4096
READ_FRACTION = 0.3
MEAN_INTERARRIVAL_MS = 0.1  # 10,000 IOPS
CHUNK = 1_000_000  # lines generated at a time: bounded memory at any length


def write_trace(out, requests: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    pages = SPAN_BYTES // REQUEST_BYTES
    blocks = REQUEST_BYTES // 512
    clock_ms = 0.0
    done = 0
    while done < requests:
        n = min(CHUNK, requests - done)
        arrivals = clock_ms + np.cumsum(rng.exponential(MEAN_INTERARRIVAL_MS, n))
        clock_ms = float(arrivals[-1])
        blkno = rng.integers(0, pages, n) * blocks
        reads = (rng.random(n) < READ_FRACTION).astype(np.int64)
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
    if a.out == "-":
        write_trace(sys.stdout, a.requests, a.seed)
    else:
        with open(a.out, "w") as f:
            write_trace(f, a.requests, a.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
