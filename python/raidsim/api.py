"""The Python API: simulate, presets, trace statistics."""

from __future__ import annotations

import json
import numbers
import os
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

from . import _native, _progress
from .config import Config
from .report import Report
from .workload import Workload

ConfigLike = Union[Config, str, os.PathLike, Mapping[str, Any], None]

#: Events processed per call into the core between progress updates.
_EVENTS_PER_STEP = 200_000
#: Pages preconditioned per call into the core (about a tenth of a second).
_PAGES_PER_PRECONDITION_STEP = 500_000
#: The largest device number the core takes (a u64).
_U64_MAX = 2**64 - 1
#: A progress bar appears once a run has taken this long.
_PROGRESS_AFTER_S = 1.0


def simulate(
    config: ConfigLike = None,
    workload: Optional[Union[Workload, Mapping[str, Any]]] = None,
    *,
    overrides: Optional[Union[Mapping[str, Any], List[str]]] = None,
    progress: Optional[bool] = None,
) -> Report:
    """Runs one simulation and returns its :class:`Report`.

    ``config`` is a :class:`Config`, a preset name, a TOML path, a dict or
    ``None`` (defaults). ``workload`` replaces the config's ``[workload]``.
    ``overrides`` maps dotted keys to values (or lists ``"key=value"``); they
    apply last, so ``workload.*`` overrides apply on top of ``workload``.
    ``progress``: ``True`` always shows a bar, ``False`` never, ``None`` shows
    one on a terminal once the run has taken a second.

    >>> r = simulate("stripe-unit-table5", Workload.requests([(0, "R", 0, 4096)]))
    >>> r.to_dict()["host"]["requests"]
    1
    """
    cfg = Config.load(config).with_workload(workload).with_overrides(overrides)
    sim = _native.Simulation(cfg.layers)
    started = time.monotonic()

    def precondition() -> Tuple[Optional[int], float, bool]:
        done = sim.precondition(_PAGES_PER_PRECONDITION_STEP)
        return None, done, done >= 1.0

    run_in_slices(precondition, "preconditioning", progress, started)
    run_in_slices(lambda: sim.step(_EVENTS_PER_STEP), "simulating", progress, started, rebuild=_rebuild_watch(sim))
    config_toml = sim.config_toml()
    columns = sim.request_log()
    if columns is None:
        return Report(json.loads(sim.report_json()), config_toml)
    import tomllib

    from .timeline import log_path, request_log_table, write_request_log

    path = log_path(tomllib.loads(config_toml))
    if path is None:
        raise _native.InternalError("the core kept a request log, and the resolved config names no file for it")
    table = request_log_table(columns)
    write_request_log(table, path)
    return Report(json.loads(sim.report_json()), config_toml, table)


#: What a progress bar shows: the share of the workload issued, then the requests completed.
_BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}{postfix}"  # tqdm puts ", " before a postfix
#: Once every request is issued and a rebuild goes on: no share of anything known, what has been done so far.
_REBUILD_FORMAT = "{desc} [{elapsed}]{postfix}"


def _rebuild_watch(sim: Any) -> Callable[[], Optional[Tuple[bool, int]]]:
    """``() -> (a rebuild is running, stripes rebuilt so far)``, or None for a run that configures no failure.

    The core's steps say how much of the workload is issued and how many requests completed, not what the
    run is doing; the report so far (``sim.report_json()``, a millisecond or so) has the rebuild's section,
    whose failures say whether a rebuild has started and not ended. Asked only while a bar shows."""
    state: Dict[str, Any] = {}

    def watch() -> Optional[Tuple[bool, int]]:
        if "failures" not in state:  # the resolved config, read once
            import tomllib

            state["failures"] = bool(tomllib.loads(sim.config_toml())["array"]["failures"])
        if not state["failures"]:
            return None
        rb = json.loads(sim.report_json()).get("rebuild") or {}
        running = any(f.get("rebuild_start_ns") is not None and f.get("rebuild_end_ns") is None
                      for f in rb.get("failures", []))
        return running, rb.get("stripes_rebuilt", 0)

    return watch


def run_in_slices(step: Callable[[], Tuple[Optional[int], float, bool]], desc: str, progress: Optional[bool],
                  started: float, rebuild: Optional[Callable[[], Optional[Tuple[bool, int]]]] = None) -> None:
    """Calls ``step()`` (``-> (requests so far or None, fraction done, finished)``, as the native
    steppers answer) until it finishes: native work in slices, so Ctrl-C is taken between them and a
    long job shows a bar. A finished bar reads 100 % and the final count of requests.

    ``rebuild`` (a run's, see :func:`_rebuild_watch`) adds the stripes rebuilt to the bar while a rebuild
    runs; once every request is issued and only the rebuild goes on, the bar says ``rebuilding`` and counts
    stripes rather than standing at 100 %."""
    bar = None
    try:
        while True:
            requests, fraction, finished = step()
            if finished:
                break
            if bar is None and _want_progress(progress, started):
                bar = _progress_bar(desc)
            if bar is not None:
                _show(bar, desc, requests, fraction, rebuild() if rebuild is not None else None)
        if bar is not None:
            watched = rebuild() if rebuild is not None else None
            _show(bar, desc, requests, 1.0, None if watched is None else (False, watched[1]))
    finally:
        if bar is not None:
            bar.close()


def _show(bar: Any, desc: str, requests: Optional[int], fraction: float,
          rebuild: Optional[Tuple[bool, int]]) -> None:
    """Draws the bar: the share done and the requests completed, the stripes rebuilt when a failure was
    configured, and the rebuild phase when a rebuild is all that goes on."""
    postfix = {} if requests is None else {"requests": f"{requests:,}"}
    if rebuild is not None:
        postfix["rebuilt"] = f"{rebuild[1]:,} stripes"
    rebuilding = rebuild is not None and rebuild[0] and fraction >= 1.0
    bar.bar_format = _REBUILD_FORMAT if rebuilding else _BAR_FORMAT
    bar.set_description_str("rebuilding" if rebuilding else desc, refresh=False)
    bar.n = round(fraction * 1000) / 10
    bar.set_postfix(postfix, refresh=False)
    bar.refresh()


def _want_progress(progress: Optional[bool], started: float) -> bool:
    if progress is not None:
        return progress
    return time.monotonic() - started >= _PROGRESS_AFTER_S and _progress.interactive()


def _progress_bar(desc: str = "simulating"):
    return _progress.bar(total=100, unit="%", desc=desc, bar_format=_BAR_FORMAT)


def presets() -> Dict[str, str]:
    """Packaged presets: name -> TOML text (each cites its source in its opening comment)."""
    return dict(_native.presets())


def trace_stats(
    path: Union[str, os.PathLike],
    format: Optional[str] = None,
    *,
    device: Optional[int] = None,
    skip_malformed: bool = False,
    blkparse_action: str = "D",
) -> Dict[str, Any]:
    """Statistics of a trace as the papers tabulate them (requests, read/write %, sizes, inter-arrivals, span)."""
    # Checked here: the core takes an unsigned number, and -1 would be an OverflowError on the way in.
    if device is not None and (isinstance(device, bool) or not isinstance(device, numbers.Integral)
                               or not 0 <= device <= _U64_MAX):
        raise _native.ConfigError(f"device must be a non-negative integer below 2**64 (a device, disk or LUN number "
                                  f"of the trace), got {device!r}")
    text = _native.trace_stats(os.fspath(path), format, device, skip_malformed, blkparse_action)
    return json.loads(text)
