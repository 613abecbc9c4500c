"""The journal of a sweep: each finished point, one checksummed line, and the fingerprint that vouches for it.

A sweep appends each point to ``points.jsonl`` the moment it finishes: one
line of JSON, a tab and the JSON's SHA-256, written and fsynced at once, so
a kill loses at most the points running, and a line cut short (or damaged
later) fails its check and its point runs again. Every table of the results
is rebuilt from the journal.

A point's row is reused only while its *fingerprint* is unchanged: a hash
of the point's resolved config, its trace file's identity (path, size,
modification time), the metrics kept, the raidsim build (version and the
compiled core's bytes) and the meaning of the values (:data:`VALUES_FORMAT`).
Anything else that changed makes the point run again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
import tomllib
from typing import Any, Dict, Mapping, Optional, Sequence, Set

import raidsim  # its __version__, read at each call

from .. import _atomic, _native
from .errors import StudyError

JOURNAL = "points.jsonl"
# What a journal row's values mean; part of each point's fingerprint, so rows of an older meaning are
# recomputed. 2: a metric absent from a point's report is null (NaN), no longer 0. 3: a row holds the
# point's warnings (saturation, wrapped requests) for the report page. 4: response times of a class
# nothing measured (writes of a read-only run) are null, no longer 0.
VALUES_FORMAT = 4


def fingerprint(config_toml: str, metrics: Sequence[str]) -> str:
    """Hash of everything that decides a point's row: resolved config, trace file, metrics, raidsim build."""
    identity = {"config": config_toml, "trace": trace_identity(config_toml), "metrics": list(metrics),
                "raidsim": build_identity(), "values": VALUES_FORMAT}
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]


def trace_identity(config_toml: str) -> Optional[Dict[str, Any]]:
    # Size and mtime, not a content hash: traces run to gigabytes, and rewriting one changes its mtime.
    workload = tomllib.loads(config_toml).get("workload", {})
    if workload.get("kind") != "trace" or not workload.get("path"):
        return None
    raw = workload["path"]
    # A path that is not UTF-8 is held in the config as the list of its bytes.
    path = os.path.abspath(os.fsdecode(bytes(raw)) if isinstance(raw, list) else raw)
    try:
        st = os.stat(path)
    except OSError:
        return {"path": path, "missing": True}
    if not stat.S_ISREG(st.st_mode):
        raise StudyError(f"workload.path = {path} is not a regular file (a pipe, a FIFO or a terminal?): a sweep "
                         "replays its trace once for every point, and a stream can be read only once; save it to a "
                         "file first")
    return {"path": path, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def build_identity() -> Dict[str, str]:
    # The version alone does not move while the model is developed; the compiled core's bytes do.
    return {"version": raidsim.__version__, "native": _native_digest()}


@functools.lru_cache(maxsize=None)
def _native_digest() -> str:
    with open(_native.__file__, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()



class Journal:
    """Finished points, one line each, appended and fsynced as each point finishes.

    A line is JSON, a tab and the JSON's SHA-256, the line's completion mark:
    a line cut short by a kill, or damaged later, fails the check and its point
    runs again.
    """

    def __init__(self, path: str):
        self.path = path
        self.records: Dict[str, Dict[str, Any]] = {}

    def load(self) -> int:
        """Reads every valid line (the last per point wins); returns how many lines were rejected."""
        if not os.path.exists(self.path):
            return 0
        rejected = 0
        with open(self.path, "rb") as f:
            for line in f:
                record = _parse_line(line)
                if record is None:
                    rejected += 1
                else:
                    self.records[record["point_id"]] = record
        return rejected

    def keep(self, point_ids: Set[str], rewrite: bool) -> None:
        """Keeps only these points' records; rewrites the file if asked or if that dropped any."""
        kept = {k: r for k, r in self.records.items() if k in point_ids}
        if rewrite or len(kept) < len(self.records):
            # Also removes a torn last line, so the next append starts a line of its own.
            text = "".join(_format_line(r) for r in kept.values())
            _atomic.write_text(self.path, text)
        self.records = kept

    def append(self, record: Dict[str, Any]) -> None:
        try:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(_format_line(record))
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:  # a full disk's error names no file; a torn line is rejected when read
            raise _atomic.named(e, self.path) from None
        self.records[record["point_id"]] = record


_RECORD_KEYS = {"point_id", "fingerprint", "status", "error", "values"}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _format_line(record: Mapping[str, Any]) -> str:
    # Keys in their order (columns come out in the metrics' order); tabs and newlines are escaped.
    body = json.dumps(record)
    return f"{body}\t{_digest(body)}\n"


def _parse_line(line: bytes) -> Optional[Dict[str, Any]]:
    try:
        text = line.decode()
        body, digest = text.rstrip("\n").rsplit("\t", 1)
        if not text.endswith("\n") or _digest(body) != digest:
            return None
        record = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        return None
    return record if isinstance(record, dict) and _RECORD_KEYS <= record.keys() else None
