"""Studies: a base config, cases, sweep axes and the metrics to keep, as data.

A study spec is TOML::

    name = "my-study"
    [base]                      # a config table; `preset = "..."` starts from a preset
    preset = "stripe-unit-table5"
    [[cases]]                   # optional named settings, crossed with the axes
    name = "raid5"              # (`axes = false`: the case runs once, without them)
    set = { "array.level" = "raid5", "array.members" = 5 }
    [axes]                      # cartesian product over dotted config keys
    "array.stripe_unit_bytes" = [4096, 65536]
    metrics = ["host.response.mean_ns", "array.erases"]

:func:`run_study` runs every point in parallel processes (default one per
core) or on a Ray cluster, one row per point into ``results.csv`` and
``results.parquet``, each point's resolved config into ``configs/``, and
skips points already in the results when rerun.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import itertools
import json
import os
import sys
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Dict, List, Mapping, Optional, Sequence

import pandas as pd

from .config import Config


@dataclass
class Point:
    """One point of a study: a case name and dotted-key settings."""

    case: str
    settings: Dict[str, Any]

    @property
    def point_id(self) -> str:
        text = json.dumps({"case": self.case, "settings": self.settings}, sort_keys=True)
        return hashlib.sha1(text.encode()).hexdigest()[:12]


@dataclass
class Study:
    """A study spec."""

    name: str
    base: Dict[str, Any]
    metrics: List[str]
    axes: Dict[str, List[Any]] = field(default_factory=dict)
    cases: List[Dict[str, Any]] = field(default_factory=list)
    title: str = ""
    spec: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any], origin: str = "<spec>") -> "Study":
        unknown = set(spec) - {"name", "title", "base", "axes", "cases", "metrics", "scaled_down", "rows",
                               "request_bytes", "page_size_bytes", "data_disks"}
        if unknown:
            raise ValueError(f"{origin}: unknown study keys {sorted(unknown)}; valid: name, title, base, cases, axes, metrics")
        if "metrics" not in spec or not spec["metrics"]:
            raise ValueError(f"{origin}: a study needs `metrics`, a list of dotted report paths")
        for i, c in enumerate(spec.get("cases", [])):
            if "name" not in c:
                raise ValueError(f"{origin}: cases[{i}] needs a name")
        return cls(name=spec.get("name", os.path.splitext(os.path.basename(origin))[0]), base=dict(spec.get("base", {})),
                   metrics=list(spec["metrics"]), axes=dict(spec.get("axes", {})), cases=list(spec.get("cases", [])),
                   title=spec.get("title", ""), spec=dict(spec))

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "Study":
        with open(path, "rb") as f:
            return cls.from_dict(tomllib.load(f), os.fspath(path))

    @classmethod
    def packaged(cls, name: str) -> "Study":
        return cls.from_dict(packaged_spec(name), name)

    def points(self) -> List[Point]:
        cases = self.cases or [{"name": "", "set": {}}]
        keys = list(self.axes)
        out = []
        for case in cases:
            if case.get("axes", True) is False:
                # A case that does not depend on the axes (a single drive among arrays) runs once.
                out.append(Point(case["name"], dict(case.get("set", {}))))
                continue
            for values in itertools.product(*(self.axes[k] for k in keys)):
                settings = dict(case.get("set", {}))
                settings.update(zip(keys, values))
                out.append(Point(case["name"], settings))
        return out

    def config(self, point: Point) -> Config:
        base = dict(self.base)
        preset = base.pop("preset", None)
        cfg = Config.preset(preset) if preset else Config()
        return Config(cfg.layers + Config.from_dict(base).layers).with_overrides(point.settings)


def packaged_specs() -> List[str]:
    """Names of the studies shipped in ``raidsim/experiments``."""
    files = resources.files("raidsim.experiments")
    return sorted(p.name[:-5] for p in files.iterdir() if p.name.endswith(".toml"))


def packaged_spec(name: str) -> Dict[str, Any]:
    path = resources.files("raidsim.experiments") / f"{name}.toml"
    if not path.is_file():
        raise ValueError(f"no packaged study `{name}`; packaged: {', '.join(packaged_specs())}")
    return tomllib.loads(path.read_text())


def extract(report: Mapping[str, Any], path: str) -> Dict[str, Any]:
    """Value(s) at a dotted path of a report dict; lists expand to ``path[i]``.

    ``devices.erases`` takes ``erases`` of every device; a missing key is 0
    (causes with no pages are omitted from reports).
    """
    parts = path.split(".")
    node: Any = report
    for i, part in enumerate(parts):
        if isinstance(node, list):
            rest = ".".join(parts[i:])
            values = [extract(item, rest).get(rest, 0) for item in node]
            return {f"{path}[{j}]": v for j, v in enumerate(values)}
        node = node.get(part, 0) if isinstance(node, Mapping) else 0
    if isinstance(node, list):
        return {f"{path}[{j}]": v for j, v in enumerate(node)}
    return {path: node}


def _run_point(layers: List, metrics: List[str]) -> Dict[str, Any]:
    from . import _native
    from .api import simulate

    try:
        report = simulate(Config(layers), progress=False)
    except _native.RaidsimError as e:
        # Sent back as data: the parent re-raises it naming the point.
        return {"_error": str(e), "_error_type": type(e).__name__}
    row: Dict[str, Any] = {}
    for m in metrics:
        row.update(extract(report.to_dict(), m))
    row["_config_toml"] = report.config_toml
    return row


def run_study(
    study: Study,
    out_dir: str | os.PathLike,
    *,
    workers: Optional[int] = None,
    ray_address: Optional[str] = None,
    progress: Optional[bool] = None,
) -> pd.DataFrame:
    """Runs every point not yet in ``out_dir/results.csv``; returns all rows."""
    out = os.fspath(out_dir)
    os.makedirs(os.path.join(out, "configs"), exist_ok=True)
    csv_path = os.path.join(out, "results.csv")
    done = pd.read_csv(csv_path) if os.path.exists(csv_path) else pd.DataFrame()
    done_ids = set(done["point_id"]) if "point_id" in done else set()
    todo = [p for p in study.points() if p.point_id not in done_ids]
    # Validate every point before spending time on any.
    jobs = [(p, study.config(p)) for p in todo]
    for p, cfg in jobs:
        cfg.resolved_toml()
    rows = []
    show = progress if progress is not None else sys.stderr.isatty()
    bar = None
    if show and jobs:
        from tqdm import tqdm

        bar = tqdm(total=len(jobs), desc=study.name, unit="point")
    for p, row in _execute(jobs, study.metrics, workers, ray_address):
        if "_error" in row:
            from . import _native

            kind = getattr(_native, row["_error_type"], _native.RaidsimError)
            raise kind(f"study {study.name}, point {p.case or ''} {p.settings}: {row['_error']}")
        with open(os.path.join(out, "configs", f"{p.point_id}.toml"), "w") as f:
            f.write(row.pop("_config_toml"))
        rows.append({"point_id": p.point_id, "case": p.case, **p.settings, **row})
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    table = pd.concat([done, pd.DataFrame(rows)], ignore_index=True) if rows else done
    order = {p.point_id: i for i, p in enumerate(study.points())}
    if len(table):
        table = table.sort_values("point_id", key=lambda s: s.map(order)).reset_index(drop=True)
    table.to_csv(csv_path, index=False)
    table.to_parquet(os.path.join(out, "results.parquet"), index=False)
    return table


def _execute(jobs: Sequence, metrics: List[str], workers: Optional[int], ray_address: Optional[str]):
    if ray_address is not None:
        yield from _execute_ray(jobs, metrics, ray_address)
        return
    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(jobs) <= 1:
        for p, cfg in jobs:
            yield p, _run_point(cfg.layers, metrics)
        return
    with cf.ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(_run_point, cfg.layers, metrics): p for p, cfg in jobs}
        for fut in cf.as_completed(futures):
            yield futures[fut], fut.result()


def _execute_ray(jobs: Sequence, metrics: List[str], address: str):
    try:
        import ray
    except ImportError as e:  # Ray is optional: a cluster user installs it.
        raise RuntimeError("--ray needs the `ray` package (pip install ray) on this machine and the cluster") from e
    ray.init(address=address or None, ignore_reinit_error=True)
    remote = ray.remote(_run_point)
    refs = {remote.remote(cfg.layers, metrics): p for p, cfg in jobs}
    pending = list(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for r in ready:
            yield refs[r], ray.get(r)
