"""A sweep's points on this machine: each one simulation, in a pool of worker processes.

Points are independent, so :func:`execute` runs them in parallel processes
(one per core unless told otherwise; one point, or one worker, runs in this
process) and yields each row the moment it finishes, for the sweep to record.
A point's row is the values of the study's metrics in its report
(:func:`raidsim.study.metrics.extract`), its resolved config and its
warnings; a point that fails is a row too, holding the error's text, and
the others go on.

The workers are started by a fork server, not forked from the sweep: a
forked worker would inherit the output directory's lock and hold it after
the sweep died. Ctrl-C is the sweep's to handle (it records what finished
and stops the workers); a worker whose sweep was killed leaves on its own.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
import threading
from typing import Any, Dict, List, Optional, Sequence

from .. import api
from ..config import Config
from .metrics import extract
from .page import point_warnings


def execute(jobs: Sequence, metrics: List[str], workers: Optional[int]):
    """Yields ``(key, row)`` as points finish; jobs are ``(key, config layers)``."""
    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(jobs) <= 1:
        for key, layers in jobs:
            yield key, run_point(layers, metrics)
        return
    yield from _execute_pool(jobs, metrics, min(workers, len(jobs)))


def run_point(layers: List, metrics: List[str]) -> Dict[str, Any]:
    """One point's row: its metrics' values, resolved config and warnings; or ``{"_error": text}``."""
    try:
        report = api.simulate(Config(layers), progress=False)
        data = report.to_dict()
        row: Dict[str, Any] = {}
        for m in metrics:
            row.update(extract(data, m))
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as e:  # noqa: BLE001 -- any failure is this point's, recorded as data; the others go on
        # BaseException: a panic in the core is pyo3's PanicException, which is not an Exception. Only its
        # text leaves: the exception object may not pickle back from a worker process.
        return {"_error": error_text(e)}
    row["_config_toml"] = report.config_toml
    row["_warnings"] = point_warnings(data)  # saturation, wrapped requests: for the report page
    return row


def error_text(e: BaseException) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _execute_pool(jobs: Sequence, metrics: List[str], workers: int):
    # forkserver, not fork: a forked worker would inherit the output lock and hold it after the sweep died.
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init)
    try:
        futures = {pool.submit(run_point, layers, metrics): key for key, layers in jobs}
        for fut in cf.as_completed(futures):
            yield futures[fut], _result(fut)
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown()


def _stop(pool: cf.ProcessPoolExecutor) -> None:
    # Interrupted: the running points are lost either way, so their workers stop now rather than
    # finish work nobody will record (shutdown alone waits for them). Python 3.14 has a method for it.
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        terminate()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _result(fut: cf.Future) -> Dict[str, Any]:
    try:
        return fut.result()
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as e:  # noqa: BLE001 -- e.g. a worker killed by the OOM killer: the point failed
        return {"_error": error_text(e)}


def _worker_init() -> None:
    # Ctrl-C is the parent's to handle (it records what finished). A worker whose sweep was killed
    # would wait for work for ever (the fork server outlives the sweep while workers live): it leaves.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sweep = multiprocessing.parent_process()
    if sweep is not None:
        threading.Thread(target=_exit_after, args=(sweep,), daemon=True).start()


def _exit_after(sweep: Any) -> None:
    sweep.join()  # returns once the sweep process is gone, however it died
    os._exit(1)
