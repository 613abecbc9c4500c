"""How long a rebuild takes, simulated: a short raidsim run of a configuration in which a member fails and a
spare takes its place, cached by the configuration, for a reliability study's ``rebuild_hours``.

A rebuild's duration is what its policy (``[rebuild]``: DOR, SOR, MCR, rate limits), the array and the
host's load make it, not a figure to guess: :func:`simulated_rebuild_hours` runs the configuration as
``raidsim run`` would, takes the mean over its rebuilds from each member's failure to its redundancy
restored, and keeps the answer under ``cache_dir`` keyed by the resolved configuration (and, for a trace,
the trace file's size and modification time), so that a study of many lifetimes, or many studies of one
array, simulate it once. With ``capacity_bytes`` the run's drives are taken as scaled-down copies of
real ones, and the hours grow by the capacity ratio (the same rebuild rate over more bytes).

>>> hours, notes = simulated_rebuild_hours("my-array.toml", capacity_bytes=4_000_000_000_000)  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from typing import Any, Dict, List, Optional, Tuple, Union

from .._atomic import replace_atomically
from .._native import ConfigError, InputError, __version__

#: Where the answers are kept unless told otherwise.
DEFAULT_CACHE_DIR = os.path.join("raidsim-out", "cache")


def simulated_rebuild_hours(config: Any, *, capacity_bytes: Optional[int] = None,
                            cache_dir: Union[str, os.PathLike] = DEFAULT_CACHE_DIR,
                            progress: Optional[bool] = None) -> Tuple[float, List[str]]:
    """The mean rebuild hours of ``config`` (a config file, a :class:`raidsim.Config` or a dict) as simulated,
    scaled to ``capacity_bytes`` members when given, and notes on them. Refused: a configuration in which no
    member fails or no spare takes its place (nothing would be rebuilt), and a run that ends before its
    rebuild does."""
    from ..config import Config
    from .endurance import _whole_bytes

    cfg = Config.load(config)
    resolved = cfg.resolved()
    array = resolved.get("array", {})
    inside = array.get("level") in ("cr5", "cr5m")
    if not array.get("failures"):
        raise ConfigError("config error at `array.failures`: a simulated rebuild needs a member (for cr5/cr5m a chip) "
                          "that fails")
    if not array.get("spare_chips_per_channel" if inside else "spares"):
        key = "array.spare_chips_per_channel" if inside else "array.spares"
        raise ConfigError(f"config error at `{key}`: a simulated rebuild needs a spare to rebuild onto")
    path = os.path.join(os.fspath(cache_dir), f"rebuild-{_key(cfg.resolved_toml(), resolved)}.json")
    notes: List[str] = []
    measured = _cached(path)
    if measured is None:
        measured = _simulate(cfg, progress)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        replace_atomically(path, lambda tmp: _write(tmp, measured))
    else:
        notes.append(f"rebuild_hours from the cache, {path}: simulated before on this configuration")
    hours = measured["rebuild_hours"]
    notes.append(f"rebuild_hours {hours:.6g}: the mean of the run's {measured['rebuilds']} rebuild(s), each from its "
                 "member's failure to its redundancy restored, on the drive as simulated")
    notes += [f"the rebuild run warned: {w}" for w in measured["warnings"]]
    if capacity_bytes is not None:
        scale = _whole_bytes(capacity_bytes) / measured["member_capacity_bytes"]
        hours *= scale
        notes.append(f"members of {capacity_bytes:,} bytes, the run's of {measured['member_capacity_bytes']:,} scaled up "
                     f"{scale:,.6g}×: the rebuild takes as much longer (the same rate)")
    return hours, notes


def _key(resolved_toml: str, resolved: Dict[str, Any]) -> str:
    """The cache key: the resolved configuration, raidsim's version and, for a trace, the file's size and time."""
    parts = [resolved_toml, __version__]
    workload = resolved.get("workload", {})
    if workload.get("kind") == "trace" and isinstance(workload.get("path"), str):
        try:
            st = os.stat(workload["path"])
            parts.append(f"{st.st_size}:{st.st_mtime_ns}")
        except OSError as e:
            raise InputError(f"{workload['path']}: {e.strerror}") from None
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]


def _cached(path: str) -> Optional[Dict[str, Any]]:
    try:
        with open(path) as f:
            data = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None  # unreadable: simulate again, and the new answer replaces it
    if not isinstance(data, dict):
        return None
    hours, rebuilds, capacity, warnings = (data.get(k) for k in ("rebuild_hours", "rebuilds", "member_capacity_bytes",
                                                                  "warnings"))
    sound = (isinstance(hours, float) and math.isfinite(hours) and hours > 0
             and isinstance(rebuilds, int) and not isinstance(rebuilds, bool) and rebuilds > 0
             and isinstance(capacity, int) and not isinstance(capacity, bool) and capacity > 0
             and isinstance(warnings, list) and all(isinstance(w, str) for w in warnings))
    return data if sound else None  # anything else: simulate again, and the new answer replaces it


def _simulate(cfg: Any, progress: Optional[bool]) -> Dict[str, Any]:
    from ..api import simulate
    from .endurance import whole_rebuild_hours

    report = simulate(cfg, progress=progress).to_dict()
    done = whole_rebuild_hours(report)
    if not done:
        given_up = any(f.get("stripes_given_up") for f in (report.get("rebuild") or {}).get("failures", []))
        raise InputError("no rebuild of the run was whole: " + (
            "each gave up stripes to a second failure (fail one member, or space the failures out)" if given_up else
            "the run ended before any rebuild did: give the workload more requests (or a longer trace) after the failure"))
    members = [d for d in report["devices"] if not str(d["name"]).startswith("spare[")]
    return {"rebuild_hours": float(sum(done) / len(done)), "rebuilds": len(done),
            "member_capacity_bytes": min(int(d["capacity_bytes"]) for d in members),
            "warnings": [w for w in report.get("warnings", []) if isinstance(w, str) and "rebuild" in w]}


def _write(path: str, data: Dict[str, Any]) -> None:
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
