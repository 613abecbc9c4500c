"""A sweep's points on a Ray cluster: ``raidsim sweep SPEC --ray ADDRESS``.

Points are independent simulations, so a sweep spreads over a cluster as
Ray tasks of one CPU each. The *driver* -- the process running the sweep --
resolves every point, submits them all, and records each in the journal as
it returns, exactly as it does for local processes (:mod:`raidsim.study.local`):
a resumed sweep, its fingerprints and its tables do not depend on where the
points ran. A sweep with nothing left to run never connects.

What travels with a task is small: the point's config layers (a preset's
name and a few short JSON tables), the metric names, and its trace's
*identity* (path, size, modification time) -- never the trace's bytes. A
worker reads the trace where it is, so on a cluster of several machines the
trace must be at the same path on every node and on the driver: a shared
file system (NFS and the like). Before a point runs, its worker checks what
a cluster can get wrong, and each failure is that point's error, naming the
node:

* the worker's raidsim is the driver's build (the fingerprint that vouches
  for a row names the driver's);
* the trace exists on the node and is the driver's file (same size and
  modification time), so no point runs on another file of the same name.

A relative trace path is made absolute against the driver's working
directory, as a local run reads it: a Ray worker runs in a directory of its
own. A point whose trace the driver cannot see fails without being sent.

Addresses: ``host:port`` of a running cluster's head (``ray start --head``
prints it), checked with a TCP connection first so that a wrong address
fails in seconds rather than after Ray's minutes of retries; ``auto`` for
the cluster started on this machine; ``""`` for a Ray instance of this sweep
alone, started and stopped with it. A connection opened here is closed at
the end; one the caller had opened stays open. Interrupted (Ctrl-C), the
sweep cancels every point still queued or running.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import time
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from ..config import Config
from .errors import SweepError
from .journal import build_identity, trace_identity
from .local import error_text, run_point

# Long enough for a head across a WAN; a refused connection fails at once anyway.
CONNECT_TIMEOUT_S = 10.0
_SHARED_PATH_RULE = ("on a Ray cluster a trace must be at the same path on every node and where the sweep runs, "
                     "e.g. on NFS (the user guide, docs/studies.md: \"Running sweeps on a Ray cluster\")")

_ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*m")

TraceIdentity = Dict[str, Any]


def execute(jobs: Sequence[Tuple[Any, List]], metrics: List[str], address: str) -> Iterator[Tuple[Any, Dict[str, Any]]]:
    """Yields ``(key, row)`` as points finish on the cluster; jobs are ``(key, config layers)``."""
    ray = _import_ray()
    owned = not ray.is_initialized()
    if owned:
        _connect(ray, address)
    pending: List[Any] = []
    try:
        task = ray.remote(run_point_on_node)
        build = build_identity()
        keys = {}
        for key, layers in jobs:
            layers, trace = anchored(layers)
            if trace is not None and trace.get("missing"):
                yield key, {"_error": f"InputError: trace {trace['path']} does not exist on {socket.gethostname()}, "
                                      f"where the sweep runs; {_SHARED_PATH_RULE}"}
                continue
            ref = task.remote(layers, metrics, trace, build)
            keys[ref] = key
            pending.append(ref)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            if pending:  # and whatever else has finished: one wait per point over 10^5 refs would be quadratic
                more, pending = ray.wait(pending, num_returns=len(pending), timeout=0)
                ready += more
            for ref in ready:
                yield keys[ref], outcome(ray, ref)
    finally:
        # Interrupted (Ctrl-C, or the journal failed): the points still out are nobody's now.
        _cancel(ray, pending)
        if owned:
            ray.shutdown()  # also stops the instance that address "" started


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise SweepError("--ray needs the `ray` package here and on every node of the cluster: "
                         f"pip install 'raidsim[ray]' ({e})") from None
    return ray


def _connect(ray: Any, address: str) -> None:
    if address:
        check_reachable(address)
    try:
        # "local": a new instance of this sweep's own, even where RAY_ADDRESS or another cluster is about.
        ray.init(address=address or "local", logging_level="WARNING")
    except Exception as e:  # noqa: BLE001 -- Ray raises ConnectionError, RuntimeError, ValueError... each a reason
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise SweepError(f"could not connect to {where}: {error_text(e)}") from None


def check_reachable(address: str) -> None:
    """Fails in seconds when nothing listens at ``[scheme://]host:port`` (Ray itself retries for minutes)."""
    host, sep, port = address.split("://", 1)[-1].rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto", or a form Ray parses (and refuses) itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as e:
        raise SweepError(f"no Ray cluster answers at {address} ({e.strerror or e}): start one with "
                         "`ray start --head` and give the address it prints (host:port, port 6379 unless --port "
                         "says otherwise), or --ray '' for a Ray instance on this machine") from None


def anchored(layers: List) -> Tuple[List, Optional[TraceIdentity]]:
    """The layers with the trace's path made absolute as the driver reads it, and the trace's identity."""
    config = Config(layers)
    trace = trace_identity(config.resolved_toml())
    if trace is None:
        return list(layers), None
    return config.set("workload.path", trace["path"]).layers, trace


def run_point_on_node(layers: List, metrics: List[str], trace: Optional[TraceIdentity],
                      build: Dict[str, str]) -> Dict[str, Any]:
    """A Ray task: :func:`raidsim.study.local.run_point`, once this node is known to compute what the driver would."""
    here = build_identity()
    if here != build:
        return {"_error": f"SweepError: raidsim on Ray node {socket.gethostname()} is another build than where the "
                          f"sweep runs ({_build_text(here)} here, {_build_text(build)} there); install the same "
                          "raidsim on every node"}
    problem = trace_problem(trace) if trace is not None else None
    if problem:
        return {"_error": f"InputError: trace {trace['path']} {problem} on Ray node {socket.gethostname()}; "
                          f"{_SHARED_PATH_RULE}"}
    return run_point(layers, metrics)


def _build_text(build: Dict[str, str]) -> str:
    return f"raidsim {build['version']}, core {build['native'][:12]}"


def trace_problem(trace: TraceIdentity) -> Optional[str]:
    """Why this node's file at the trace's path is not the driver's trace, or None."""
    try:
        st = os.stat(trace["path"])
    except FileNotFoundError:
        return "does not exist"
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    if (st.st_size, st.st_mtime_ns) != (trace["size"], trace["mtime_ns"]):
        return (f"is another file than where the sweep runs ({st.st_size} bytes, modified {_when(st.st_mtime_ns)} "
                f"here; {trace['size']} bytes, modified {_when(trace['mtime_ns'])} there)")
    return None


def _when(mtime_ns: int) -> str:
    seconds, ns = divmod(mtime_ns, 10**9)
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds)) + f".{ns:09d} UTC"


def outcome(ray: Any, ref: Any) -> Dict[str, Any]:
    """A finished task's row; a task that raised (its worker died, say) is its point's failure, as locally."""
    try:
        return ray.get(ref)
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except Exception as e:  # noqa: BLE001 -- e.g. WorkerCrashedError, OutOfMemoryError: the point failed
        return {"_error": task_error_text(e)}


def task_error_text(e: Exception) -> str:
    """One line for a task's failure: Ray's text is a coloured remote traceback."""
    lines = [line.strip() for line in _ANSI_COLOUR.sub("", str(e)).splitlines() if line.strip()]
    if len(lines) <= 1:
        return error_text(e)
    # Its first line says where the task ran (pid, node), its last what went wrong.
    return f"{type(e).__name__}: {lines[-1]} (in {lines[0]})"


# How long an interrupted sweep goes on cancelling the points a worker had taken but not yet started.
_CANCEL_GRACE_S = 10.0


def _cancel(ray: Any, refs: Sequence[Any]) -> None:
    """Cancels the points still out, and makes sure they stop.

    A cancel that reaches a worker between taking a point and starting it is
    dropped (Ray only stops a point its worker is running), and the point then
    runs to its end holding a CPU: about one interrupt in six did so on a
    2-CPU head. So each point not yet finished is cancelled again until its
    reference resolves.
    """
    left = list(refs)
    deadline = time.monotonic() + _CANCEL_GRACE_S
    while left:
        for ref in left:
            # force: a running point's worker stops now instead of finishing work nobody will record.
            with contextlib.suppress(Exception):  # it finished meanwhile, or its worker is already gone
                ray.cancel(ref, force=True)
        if time.monotonic() >= deadline:
            return
        try:
            _, left = ray.wait(left, num_returns=len(left), timeout=0.2)
        except Exception:  # noqa: BLE001 -- the cluster is gone: nothing is left to stop
            return
