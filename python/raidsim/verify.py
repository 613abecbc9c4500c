"""``raidsim verify``: random small arrays run with real bytes (``sim.verify``).

Each case draws a level (RAID 0/1/10/4/5/6), a code (Reed-Solomon P+Q,
EVENODD, RDP), members, stripe unit, parity granularity and write method,
a workload of unaligned-to-units sector-sized requests, up to two member
failures within tolerance at random requests, spares and a rebuild policy
(DOR/SOR, buffer, rate limit), and runs it with every host read and, after
the run, every written sector checked against its last write. Case ``i`` of
seed ``S`` replays alone: its ``overrides`` are ``--set`` assignments.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

from . import _native, _progress


def run_cases(cases: int, seed: int = 1, *, progress: Optional[bool] = None, fault: bool = False) -> Dict[str, Any]:
    """Runs ``cases`` scenarios of ``seed``; returns ``{"cases", "mismatches",
    "data_loss_events", "sectors_checked", "first_failure"}`` where
    ``first_failure`` is the first case with a mismatch or a data loss (its
    overrides replay it), or ``None``. ``fault`` injects a broken parity
    update (read-modify-write writes no parity), to show the check catches it."""
    if isinstance(cases, bool) or not isinstance(cases, int) or cases < 1:
        raise _native.ConfigError(f"cases must be a positive integer, got {cases!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise _native.ConfigError(f"seed must be an integer in [0, 2**64), got {seed!r}")
    bar = None
    if progress or (progress is None and _progress.interactive()):
        bar = _progress.bar(total=cases, unit="case", desc="verifying")
    total = {"cases": 0, "mismatches": 0, "data_loss_events": 0, "sectors_checked": 0, "first_failure": None,
             "interrupted": False}
    try:
        for case in range(cases):
            out = json.loads(_native.verify_case(seed, case, fault))
            total["cases"] += 1
            total["mismatches"] += out["mismatches"]
            total["data_loss_events"] += out["data_loss_events"]
            total["sectors_checked"] += out["sectors_checked"]
            if total["first_failure"] is None and (out["mismatches"] or out["data_loss_events"]):
                total["first_failure"] = {"seed": seed, **out}
            if bar is not None:
                bar.update(1)
                bar.set_postfix(mismatches=total["mismatches"])
    except KeyboardInterrupt:
        # What ran is still evidence: report it, marked, instead of losing it.
        total["interrupted"] = True
    finally:
        if bar is not None:
            bar.close()
    return total


def format_result(result: Dict[str, Any]) -> str:
    """The text ``raidsim verify`` prints."""
    lines = [
        f"cases run:         {result['cases']}" + ("  (interrupted)" if result.get("interrupted") else ""),
        f"sectors checked:   {result['sectors_checked']}",
        f"mismatches:        {result['mismatches']}",
        f"data-loss events:  {result['data_loss_events']} (every scenario stays within tolerance: expected 0)",
    ]
    f = result["first_failure"]
    if f is None:
        lines.append("every byte read back as last written")
    else:
        sets = " ".join(f"--set '{o}'" for o in f["overrides"])
        lines.append(f"first failing case: {f['case']} of seed {f['seed']}: {'; '.join(f['first_mismatches'][:3])}")
        lines.append(f"replay: raidsim run {sets}")
    return "\n".join(lines)
