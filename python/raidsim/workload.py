"""Workloads: a trace file, the synthetic generator, or explicit requests.

A :class:`Workload` is the ``[workload]`` table of a config; its defaults
(and every check) live in the Rust core. Only the parameters you pass are
written, so the core's defaults apply to the rest.
"""

from __future__ import annotations

import base64
import numbers
import os
import struct
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ._native import WorkloadError

Request = Tuple[int, str, int, int]

_OPS = {"R": "R", "r": "R", "read": "R", "W": "W", "w": "W", "write": "W", "T": "T", "t": "T", "trim": "T"}
#: Longer lists travel packed (about 34 bytes a request instead of hundreds);
#: shorter ones stay readable in the resolved config.
_PACK_OVER = 1000
#: One packed request: time_ns, offset_bytes, len_bytes (little-endian u64), then R, W or T.
_PACKED = struct.Struct("<QQQc")
_U64_MAX = 2**64 - 1


class RequestError(WorkloadError, ValueError):
    """A malformed explicit request (a :class:`raidsim.WorkloadError`, and a ValueError as it always was)."""


def _request_row(i: int, request: Sequence[Any]) -> list:
    if isinstance(request, (str, bytes)) or not hasattr(request, "__len__") or len(request) != 4:
        raise RequestError(f"request {i}: expected (time_ns, op, offset_bytes, length_bytes), got {request!r}")
    t, op, offset, length = request
    if not isinstance(op, str) or op not in _OPS:
        raise RequestError(f"request {i}: op {op!r} is not one of R, W, T, read, write, trim")
    return [_whole(i, "time_ns", t), _OPS[op], _whole(i, "offset_bytes", offset), _whole(i, "length_bytes", length)]


def _pack(buf: bytearray, rows: list) -> None:
    for i, (t, op, offset, length) in enumerate(rows):
        if max(t, offset, length) > _U64_MAX:
            raise RequestError(f"request: a field of {(t, op, offset, length)} does not fit in 64 bits")
        buf += _PACKED.pack(t, offset, length, op.encode())


def _whole(i: int, field: str, value: Any) -> int:
    # int() would truncate 4096.5 to 4096 and turn True into 1: a request that was not asked for.
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise RequestError(f"request {i}: {field} must be an integer, got {value!r} ({type(value).__name__})")
    if value < 0:
        raise RequestError(f"request {i}: {field} must not be negative, got {value}")
    return int(value)


class Workload:
    """The I/O a simulated host issues."""

    def __init__(self, table: Mapping[str, Any]):
        self._table = dict(table)

    @classmethod
    def trace(
        cls,
        path: Union[str, os.PathLike],
        format: Optional[str] = None,
        *,
        device: Optional[int] = None,
        time_scale: Optional[float] = None,
        max_requests: Optional[int] = None,
        out_of_range: Optional[str] = None,
        max_wrapped_fraction: Optional[float] = None,
        skip_malformed: Optional[bool] = None,
        blkparse_action: Optional[str] = None,
        replay: Optional[str] = None,
        trims: Optional[str] = None,
    ) -> "Workload":
        """Replay a trace file (format detected unless named; see ``raidsim._native.trace_formats()``).

        ``out_of_range`` is ``"wrap"`` (default: offsets modulo the capacity,
        a warning in the report) or ``"error"``. More wrapped requests than
        ``max_wrapped_fraction`` (default 0.01) stop the run naming the
        capacity the trace needs; 1 replays a trace folded on purpose.
        ``replay`` is ``"open"`` (default: each request at its timestamp) or
        ``"closed"`` (one at a time, each the trace's idle time after the
        previous one completes, as DiskSim replays its validation traces).
        ``trims`` is ``"apply"`` (default: a blkparse trace's discards trim
        the drives) or ``"skip"`` (left out, counted in the report).
        """
        table = {"kind": "trace", "path": _config_path(path)}
        options = dict(format=format, device=device, time_scale=time_scale, max_requests=max_requests,
                       out_of_range=out_of_range, max_wrapped_fraction=max_wrapped_fraction,
                       skip_malformed=skip_malformed, blkparse_action=blkparse_action, replay=replay, trims=trims)
        table.update({k: v for k, v in options.items() if v is not None})
        return cls(table)

    @classmethod
    def synthetic(cls, **params: Any) -> "Workload":
        """The synthetic generator; parameters as in the config's ``[workload]`` table.

        For example ``Workload.synthetic(requests=10_000, read_fraction=0.7,
        size={"kind": "exponential", "mean_bytes": 16384}, processes=8)``.
        Open loop unless ``processes > 0`` (closed loop, N outstanding).
        """
        return cls({"kind": "synthetic", **params})

    @classmethod
    def flows(cls, *flows: "Workload", queue_fetch_size: Optional[int] = None, stop_time_ns: Optional[int] = None,
              address_space: Optional[str] = None, channels: Optional[Sequence[Sequence[int]]] = None,
              chips: Optional[Sequence[Sequence[int]]] = None,
              fill_fractions: Optional[Sequence[Optional[float]]] = None) -> "Workload":
        """Several synthetic flows at once, each with its own submission queue and report row
        (``Report.flows()``), as MQSim's multi-queue host runs them.

        Each flow is a :meth:`synthetic` workload. ``address_space`` is ``"partitioned"`` (default: flow
        i of n addresses the i-th n-th of the device, and its ``start_bytes``/``span_bytes`` lie within
        that part) or ``"shared"``. ``queue_fetch_size``: how many of one flow's commands the device
        holds at once (NVMe; default 0, no limit); the rest wait in the flow's queue, and the wait counts
        in their response time. ``stop_time_ns``: no flow issues after it (a flow's ``requests=0`` then
        means "until the stop time"). For example ``Workload.flows(Workload.synthetic(processes=2,
        read_fraction=1), Workload.synthetic(processes=64, read_fraction=1), queue_fetch_size=16)``.

        On a single drive, flows can keep apart in its back end, as MQSim's per-flow ``Channel_IDs``,
        ``Chip_IDs`` and ``Initial_Occupancy_Percentage`` do: ``channels`` and ``chips`` give each flow
        its set (one list of ids per flow; every flow names one, and every chip of a flow is shared by as
        many flows), its part then sized as MQSim sizes it (a chip's capacity divided among the flows on
        it); ``fill_fractions`` gives the share of each flow's part written before the run (``None`` for a
        flow: ``precondition.fill_fraction``).
        """
        tables = []
        for i, f in enumerate(flows):
            t = f.to_dict() if isinstance(f, Workload) else None
            if t is None or t.get("kind") != "synthetic":
                raise TypeError(f"flow {i}: expected Workload.synthetic(...), got {f!r}")
            tables.append({k: v for k, v in t.items() if k != "kind"})
        for key, per_flow in (("channels", channels), ("chips", chips), ("fill_fraction", fill_fractions)):
            if per_flow is None:
                continue
            per_flow = list(per_flow)
            if len(per_flow) != len(tables):
                raise ValueError(f"{key}: {len(per_flow)} entries for {len(tables)} flows; give one per flow")
            for i, (t, v) in enumerate(zip(tables, per_flow)):
                if v is not None:
                    t[key] = _flow_ids(key, i, v) if key != "fill_fraction" else float(v)
        table: Dict[str, Any] = {"kind": "flows", "flows": tables}
        options = dict(queue_fetch_size=queue_fetch_size, stop_time_ns=stop_time_ns, address_space=address_space)
        table.update({k: v for k, v in options.items() if v is not None})
        return cls(table)

    @classmethod
    def requests(cls, requests: Iterable[Sequence[Any]]) -> "Workload":
        """Explicit ``(time_ns, op, offset_bytes, length_bytes)`` requests; op is R/W/T or read/write/trim.

        A trim (``T``) tells the drives the range's data is no longer needed: it moves no data, takes
        no time, and is counted under ``host.trim.*`` rather than in the response figures.

        Times, offsets and lengths are non-negative integers; anything else (a float, a bool) is a
        :class:`RequestError` naming the request and the field.
        """
        rows = (_request_row(i, r) for i, r in enumerate(requests))
        buf, listed = bytearray(), []
        for row in rows:
            listed.append(row)
            if len(listed) > _PACK_OVER:
                _pack(buf, listed)
                listed = []
        if buf:
            _pack(buf, listed)
            return cls({"kind": "requests", "packed": base64.b64encode(bytes(buf)).decode("ascii")})
        return cls({"kind": "requests", "requests": listed})

    def to_dict(self) -> dict:
        """The ``[workload]`` table."""
        return dict(self._table)

    def __repr__(self) -> str:
        shown = {k: v for k, v in self._table.items() if k != "requests" or not isinstance(v, list)}
        if isinstance(self._table.get("requests"), list):
            shown["requests"] = f"<{len(self._table['requests'])} requests>"
        if "packed" in self._table:
            shown["packed"] = f"<{len(self._table['packed']) * 3 // 4 // _PACKED.size} requests>"
        return f"Workload({shown})"


def _config_path(path: Union[str, bytes, os.PathLike]) -> Union[str, List[int]]:
    """An absolute path as a config holds it: text, or the list of its bytes
    when it is not UTF-8 (a Linux file name is bytes; TOML text is UTF-8)."""
    raw = os.fsencode(os.path.abspath(os.fspath(path)))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return list(raw)


def _flow_ids(key: str, i: int, ids: Any) -> List[int]:
    """Flow ``i``'s ``channels`` or ``chips``: a list of whole numbers, each a Python int."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise TypeError(f"{key}[{i}]: expected a list of ids for flow {i + 1}, got {ids!r}")
    out = []
    for x in ids:
        if isinstance(x, bool) or not isinstance(x, numbers.Integral):
            raise TypeError(f"{key}[{i}]: ids are whole numbers, got {x!r}")
        out.append(int(x))
    return out
