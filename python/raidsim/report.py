"""Reports: what a run measured, as a dict, JSON, pandas tables and files."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional

import pandas as pd


class Report:
    """The outcome of one simulation run.

    ``to_dict()`` is the full report as the core wrote it; the table methods
    give pandas DataFrames; ``save(dir)`` writes everything beside the
    resolved configuration.
    """

    def __init__(self, data: Dict[str, Any], config_toml: str):
        self._data = data
        self.config_toml = config_toml

    def to_dict(self) -> Dict[str, Any]:
        """The full report."""
        return self._data

    def to_json(self, indent: Optional[int] = 2) -> str:
        """The report as JSON text."""
        return json.dumps(self._data, indent=indent, sort_keys=True)

    @property
    def warnings(self) -> list:
        """What a reader of these figures must know (saturation, a corrupt
        timestamp, requests out of order); empty when nothing is amiss."""
        return list(self._data["warnings"])

    def summary(self) -> pd.DataFrame:
        """One row: requests, IOPS, MB/s, Eq. 5 throughput, response times in ms,
        and the report's warnings joined (empty when there are none)."""
        h = self._data["host"]
        row = {
            "requests": h["requests"],
            "reads": h["reads"],
            "writes": h["writes"],
            "duration_s": h["duration_ns"] / 1e9,
            "iops": h["iops"],
            "mb_per_s": h["mb_per_s"],
            "throughput_eq5_mb_per_s": h["throughput_eq5_mb_per_s"],
            "mean_ms": h["response"]["mean_ns"] / 1e6,
            "p99_ms": h["response"]["p99_ns"] / 1e6,
            "warnings": "; ".join(self._data["warnings"]),
        }
        return pd.DataFrame([row])

    def latency(self) -> pd.DataFrame:
        """Response-time summary (ms) for all requests, reads and writes."""
        h = self._data["host"]
        rows = []
        for name, key in (("all", "response"), ("read", "read_response"), ("write", "write_response")):
            s = h[key]
            rows.append({
                "class": name,
                "count": s["count"],
                "mean_ms": s["mean_ns"] / 1e6,
                "p50_ms": s["p50_ns"] / 1e6,
                "p90_ms": s["p90_ns"] / 1e6,
                "p99_ms": s["p99_ns"] / 1e6,
                "p99.9_ms": s["p999_ns"] / 1e6,
                "max_ms": s["max_ns"] / 1e6,
            })
        return pd.DataFrame(rows).set_index("class")

    def devices(self) -> pd.DataFrame:
        """Device counters: one row per device, pages read/written by cause, erases, WA."""
        rows = []
        for d in self._data["devices"]:
            row: Dict[str, Any] = {"device": d["name"]}
            row.update({f"read.{c}": n for c, n in d["pages_read"].items()})
            row.update({f"written.{c}": n for c, n in d["pages_written"].items()})
            row.update({
                "erases": d["erases"],
                "gc_runs": d["gc_runs"],
                "write_amplification": d["write_amplification"],
            })
            if d["erase_count"] is not None:
                row.update({f"erase_count_{k}": d["erase_count"][k] for k in ("min", "mean", "max", "std")})
            if d["disk"] is not None:
                row.update({f"disk.{k}": v for k, v in d["disk"].items()})
            rows.append(row)
        return pd.DataFrame(rows).set_index("device").fillna(0)

    def pages_by_cause(self) -> pd.DataFrame:
        """Long form: device, cause, pages_read, pages_written (a group-by away from every paper figure)."""
        rows = []
        for d in self._data["devices"]:
            causes = sorted(set(d["pages_read"]) | set(d["pages_written"]))
            for c in causes:
                rows.append({"device": d["name"], "cause": c,
                             "pages_read": d["pages_read"].get(c, 0), "pages_written": d["pages_written"].get(c, 0)})
        return pd.DataFrame(rows, columns=["device", "cause", "pages_read", "pages_written"])

    def time_series(self) -> pd.DataFrame:
        """Per-interval IOPS, MB/s and mean latency (ms); garbage-collection stalls show here."""
        ts = self._data["time_series"]
        return pd.DataFrame({
            "start_s": [t / 1e9 for t in ts["start_ns"]],
            "iops": ts["iops"],
            "mb_per_s": ts["mb_per_s"],
            "mean_latency_ms": [x / 1e6 for x in ts["mean_latency_ns"]],
        })

    def stats(self) -> pd.DataFrame:
        """Every statistic by dotted component path, with unit and description."""
        return pd.DataFrame(self._data["stats"], columns=["path", "value", "unit", "description"])

    def save(self, directory: str | os.PathLike) -> str:
        """Writes report.json, config.toml (resolved, sorted) and the tables as CSV; returns the directory."""
        out = os.fspath(directory)
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "report.json"), "w") as f:
            f.write(self.to_json())
        with open(os.path.join(out, "config.toml"), "w") as f:
            f.write(self.config_toml)
        self.summary().to_csv(os.path.join(out, "summary.csv"), index=False)
        self.latency().to_csv(os.path.join(out, "latency.csv"))
        self.devices().to_csv(os.path.join(out, "devices.csv"))
        self.time_series().to_csv(os.path.join(out, "time_series.csv"), index=False)
        self.stats().to_csv(os.path.join(out, "stats.csv"), index=False)
        return out

    def to_text(self) -> str:
        """Human-readable tables."""
        w = self._data["workload"]
        notes = []
        if w.get("wrapped_out_of_range"):
            notes.append(f"{w['wrapped_out_of_range']} requests beyond the capacity were wrapped")
        if w.get("malformed_skipped"):
            notes.append(f"{w['malformed_skipped']} malformed trace lines skipped (first: {w['first_malformed']})")
        summary = self.summary().drop(columns=["warnings"])
        with pd.option_context("display.width", 120, "display.max_columns", 30):
            parts = [
                "Host", _pretty(summary).to_string(index=False), "",
                "Response time", _pretty(self.latency()).to_string(), "",
                "Devices", _pretty(self.devices().T).to_string(),
            ]
        if self.warnings:
            parts += ["", "Warnings"] + [f"- {n}" for n in self.warnings]
        if notes:
            parts += ["", "Notes"] + [f"- {n}" for n in notes]
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        h = self._data["host"]
        return f"<Report {h['requests']} requests, mean {h['response']['mean_ns'] / 1e6:.4f} ms>"


def _pretty(df: pd.DataFrame) -> pd.DataFrame:
    """Whole numbers with thousands separators, others to four decimals."""
    def fmt(x: Any) -> str:
        if isinstance(x, (int, float)) and float(x).is_integer():
            return f"{int(x):,}"
        if isinstance(x, float):
            return f"{x:,.4f}"
        return str(x)
    return df.map(fmt)
