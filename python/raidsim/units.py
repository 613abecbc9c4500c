"""Units of report values and config keys, by a stated rule, and the display units a plot may ask for.

A report path names its unit the way the core's report does: a time ends in
``_ns``, a size in ``_bytes``, a rate in ``_mb_per_s``; a count is named for
what it counts (``requests``, ``erases``, ``pages_written.user``). The rule,
first match wins:

1. a path in :data:`EXACT` (rates and prices whose names carry no suffix:
   ``host.iops`` is requests/s);
2. the last component's suffix, in :data:`SUFFIXES` (``_ns`` → ns,
   ``_bytes_per_s`` → bytes/s, ``_bytes`` → bytes, ``_mb_per_s`` → MB/s, ...);
3. the last component's name, in :data:`COUNTS` (``requests``, ``erases``,
   ``gc_runs``, ...); a cause under ``pages_read``/``pages_written`` counts
   pages (a hard disk's pages are its sectors: the report counts them in the
   same fields);
4. anything else has no known unit: ``""``, an explicit empty cell, never a
   guess.

The same rule names a config key's unit (``array.stripe_unit_bytes`` is in
bytes), so a sweep axis is labelled like a metric. :func:`convert` scales a
value to a display unit of the same quantity (ns → ms, bytes → KiB); a unit
with no conversion listed has none (a count stays a count).
"""

from __future__ import annotations

from typing import Dict, List, Tuple

#: Paths whose unit their last component does not say.
EXACT: Dict[str, str] = {
    "host.iops": "requests/s",
    "host.bytes_read": "bytes",  # the bytes the host's completed reads asked for
    "host.bytes_written": "bytes",
    "host.mb_per_s": "MB/s",
    "time_series.iops": "requests/s",
    "time_series.mb_per_s": "MB/s",
    "time_series.steadiness.iops_mean": "requests/s",
    "time_series.steadiness.iops_std": "requests/s",
    "time_series.steadiness.mb_per_s_mean": "MB/s",
    "time_series.steadiness.mb_per_s_std": "MB/s",
    "time_series.steadiness.intervals": "intervals",
    "cost.iops_per_usd": "requests/s/USD",
    "cost.mb_per_s_per_usd": "MB/s/USD",
    "cost.gb_per_usd": "GB/USD",
    "stop.batches": "batches",
    "stop.confidence": "ratio",
    "devices.erase_count.min": "erases/block",
    "devices.erase_count.mean": "erases/block",
    "devices.erase_count.max": "erases/block",
    "devices.erase_count.std": "erases/block",
    "devices.erase_count.histogram.edges": "erases/block",  # bin edges of a member's per-block erase counts
    "devices.erase_count.histogram.counts": "blocks",  # blocks per bin: they sum to the member's blocks
}

#: Suffixes of a path's last component, longest first where one ends another.
SUFFIXES: Tuple[Tuple[str, str], ...] = (
    ("_bytes_per_s", "bytes/s"),
    ("_mb_per_s", "MB/s"),
    ("_ns", "ns"),
    ("_bytes", "bytes"),
    ("_usd", "USD"),
    ("_gb", "GB"),
    ("_ratio", "ratio"),
    ("_fraction", "ratio"),
)

#: Counts, by the last component's name.
COUNTS: Dict[str, str] = {
    "requests": "requests", "reads": "requests", "writes": "requests", "merged": "requests",
    "batch_requests": "requests", "failed_reads": "requests", "failed_writes": "requests",
    "count": "requests",  # a latency summary's count: the requests it summarises
    "extra_page_reads": "pages", "parity_pages_written": "pages", "data_pages_written": "pages",
    "chip_pages_written": "pages", "pages_written": "pages", "pages_read": "pages",
    "summary_pages_written": "pages", "pages_copied": "pages",
    "erases": "blocks",  # blocks erased, as the core's statistics say
    "gc_runs": "runs", "forced_runs": "runs", "runs": "runs",
    "write_amplification": "ratio",
    "stripes_rebuilt": "stripes", "stripes_consolidated": "stripes", "stripes_lost": "stripes",
    "stripes_given_up": "stripes", "strips_by_xor": "strips", "strips_by_copy": "strips",
    "wrapped_out_of_range": "requests", "zero_length_skipped": "requests", "out_of_order": "requests",
    "malformed_skipped": "lines",
}

#: Display units: (unit, display unit) -> factor to multiply a value by.
CONVERSIONS: Dict[Tuple[str, str], float] = {
    ("ns", "us"): 1e-3, ("ns", "ms"): 1e-6, ("ns", "s"): 1e-9,
    ("bytes", "KiB"): 1 / 1024, ("bytes", "MiB"): 1 / 1024**2, ("bytes", "GiB"): 1 / 1024**3,
    ("bytes", "KB"): 1e-3, ("bytes", "MB"): 1e-6, ("bytes", "GB"): 1e-9,
    ("bytes/s", "MB/s"): 1e-6, ("MB/s", "GB/s"): 1e-3, ("requests/s", "krequests/s"): 1e-3,
}


def unit_of(path: str) -> str:
    """The unit of a report path or config key by the module's rule; ``""`` when it is not known.

    >>> unit_of("host.response.mean_ns"), unit_of("devices.pages_written.user"), unit_of("host.iops")
    ('ns', 'pages', 'requests/s')
    >>> unit_of("array.parity_to_data_write_ratio"), unit_of("devices.erases"), unit_of("devices.name")
    ('ratio', 'blocks', '')
    """
    if path in EXACT:
        return EXACT[path]
    parts = path.split(".")
    _, unit = _suffix(parts[-1])
    if unit:
        return unit
    if len(parts) >= 2 and parts[-2] in ("pages_read", "pages_written"):
        return "pages"  # a count by cause
    return COUNTS.get(parts[-1], "")


def _suffix(name: str) -> Tuple[str, str]:
    """A path component without its unit suffix, and that suffix's unit (``""`` when it has none)."""
    for suffix, unit in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)], unit
    return name, ""


def display_units(unit: str) -> List[str]:
    """The display units ``unit`` converts to (itself first)."""
    return [unit] + [to for (frm, to) in CONVERSIONS if frm == unit]


def convert(unit: str, display: str) -> float:
    """The factor from ``unit`` to ``display``; raises ValueError naming the choices when there is none."""
    if display == unit:
        return 1.0
    factor = CONVERSIONS.get((unit, display))
    if factor is None:
        choices = ", ".join(display_units(unit)) if unit else "none (its unit is not known)"
        raise ValueError(f"no conversion from {unit or 'an unknown unit'} to {display}; choices: {choices}")
    return factor


# --- what a path measures, in words (a figure's default axis label) -----------------------------

#: Paths whose words the rules below would not find.
DESCRIPTIONS: Dict[str, str] = {
    "host.requests": "requests completed", "host.reads": "reads completed", "host.writes": "writes completed",
    "host.iops": "I/O rate", "host.mb_per_s": "throughput", "host.throughput_eq5_mb_per_s": "throughput over busy time",
    "host.bytes_read": "bytes read by the host", "host.bytes_written": "bytes written by the host",
    "host.duration_ns": "simulated time", "host.busy_ns": "busy time",
    "array.extra_page_reads": "extra page reads", "array.parity_pages_written": "parity pages written",
    "array.data_pages_written": "data pages written", "array.parity_to_data_write_ratio": "parity / data page writes",
    "array.erases": "erases", "array.capacity_bytes": "usable capacity",
    "devices.erases": "erases", "devices.gc_runs": "garbage collections",
    "devices.write_amplification": "write amplification", "devices.capacity_bytes": "capacity",
    "devices.chip_pages_written": "pages written per chip",
    "rebuild.duration_ns": "rebuild time", "rebuild.recovery_bytes_per_s": "recovery speed",
    "rebuild.lost_bytes": "bytes to rebuild", "rebuild.stripes_rebuilt": "stripes rebuilt",
    "cost.total_usd": "cost", "cost.iops_per_usd": "I/O rate per dollar", "cost.mb_per_s_per_usd": "throughput per dollar",
    "cost.gb_per_usd": "capacity per dollar",
    # The config keys a study sweeps most.
    "array.stripe_unit_bytes": "stripe unit", "array.members": "members", "ssd.queue_depth": "queue depth",
    "workload.size.mean_bytes": "mean request size", "workload.read_fraction": "share of reads",
    "workload.mean_interarrival_ns": "mean time between arrivals", "workload.processes": "processes (closed loop)",
    "precondition.fill_fraction": "fill before the run",
}

#: A response-time summary's statistics, and the summaries by what they cover (``host.read_response``).
_STATISTICS = {"mean_ns": "mean", "p50_ns": "median", "p90_ns": "90th-percentile", "p99_ns": "99th-percentile",
               "p999_ns": "99.9th-percentile", "max_ns": "largest", "min_ns": "smallest"}
_SUMMARIES = {"response": ("response time", "requests completed"), "read_response": ("read response time", "reads completed"),
              "write_response": ("write response time", "writes completed"),
              "response_before": ("response time before the failure", "requests completed before the failure"),
              "response_degraded": ("response time while degraded", "requests completed while degraded"),
              "response_during": ("response time during the rebuild", "requests completed during the rebuild"),
              "response_after": ("response time after the rebuild", "requests completed after the rebuild")}
#: Why pages were read or written: every cause a report counts by, as the core spells it (``Cause::name`` in
#: crates/raidsim-core/src/device/), in words. Reports omit causes with no pages, so no small run lists them
#: all; a test keeps these in step with the core.
CAUSES = {"user": "host data", "pre_read_rmw": "read-modify-write pre-reads",
          "pre_read_rcw": "reconstruct-write pre-reads", "parity": "parity", "mirror": "mirror copies",
          "gc_read": "garbage collection", "gc_write": "garbage collection", "erase": "erases",
          "degraded_read": "degraded reads", "rebuild_read": "rebuild", "rebuild_write": "rebuild",
          "partial_page_read": "partial-page writes", "rebuild_copy_read": "rebuild copies",
          "map_read": "mapping-cache misses", "map_write": "mapping-cache write-backs",
          "slc_fold_read": "SLC-cache folds", "slc_fold_write": "SLC-cache folds"}


def describe(path: str) -> str:
    """What a report path (or config key) measures, in words: the default label of a figure's axis, to
    which the plot appends its unit. Listed paths first (:data:`DESCRIPTIONS`), then a response-time
    statistic (``host.response.mean_ns``: "mean response time"), a count by cause ("pages written:
    parity"), else the last component without its unit suffix, underscores as spaces.

    >>> describe("host.response.mean_ns"), describe("rebuild.response_during.p99_ns")
    ('mean response time', '99th-percentile response time during the rebuild')
    >>> describe("devices.pages_written.parity"), describe("array.stripe_unit_bytes"), describe("devices.disk.mean_seek_ns")
    ('pages written: parity', 'stripe unit', 'mean seek')
    """
    if path in DESCRIPTIONS:
        return DESCRIPTIONS[path]
    parts = path.split(".")
    last = parts[-1]
    if len(parts) >= 2 and parts[-2] in _SUMMARIES:
        time, count = _SUMMARIES[parts[-2]]
        if last == "count":
            return count
        if last in _STATISTICS:
            return f"{_STATISTICS[last]} {time}"
    if len(parts) >= 2 and parts[-2] in ("pages_read", "pages_written"):
        return f"{parts[-2].replace('_', ' ')}: {CAUSES.get(last, last.replace('_', ' '))}"
    stem = _suffix(last)[0] or last
    return stem.replace("_", " ")


def axis_label(text: str, unit: str) -> str:
    """``text (unit)``; just ``text`` when there is no unit or the text begins with it ("pages written", not
    "pages written (pages)")."""
    if not unit or text.split(" ", 1)[0] == unit:
        return text
    return f"{text} ({unit})"
