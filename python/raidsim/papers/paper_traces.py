"""The papers' own traces, when a user has them: by the name the paper's table gives, in place of a stand-in.

raidsim does not ship the traces the papers replayed (they are not ours to ship), so each reproduction
that needs one runs a *stand-in*: a synthetic workload with what the paper's table says of the trace
(write share, mean size, rate). A user who holds the trace gives it by that name::

    raidsim reproduce stripe-unit-traces --trace Iozone=iozone.trace --trace Postmark=pm.trace
    raidsim reproduce all --traces ~/traces            # found by file name, see below
    raidsim reproduce all --trace cr5m:Exchange=exch.csv   # PAPER:NAME (or ENTRY:NAME) where two papers
                                                           # use one name for different traces

and the run replays it (format detected, as ``raidsim run --trace``) where it ran the stand-in. Each
reproduction's study file lists the traces it stands in for, with the paper's statistics of each
(:func:`known`); a given trace is checked against them (:func:`compare`: requests, write share, mean
sizes, largest write, rate) and every difference beyond a tolerance is a warning printed with the
results, for a file that is not the paper's trace answers another question. Rows computed on a given
trace are marked ``trace`` in the report, rows on a stand-in ``stand-in``, rows mixing both ``mixed``.

Names in a directory (``--traces DIR``): a trace is found as a file whose name, without its extensions
(``.csv``, ``.trace``, ``.gz`` ...), is one of the names the study file lists for it (``files``; by
default the trace's own name), ignoring case: ``Iozone.trace``, ``financial1.spc.gz``,
``CAMRESIRA01-lvm1.csv``, or ``PAPER-NAME`` (``cr5m-Exchange.csv``), found first. Two files that both
match, or a file two papers would read as different traces, are an error, never a silent choice
(:func:`check_names`).
"""

from __future__ import annotations

import copy
import functools
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .._native import RaidsimError
from .packaged import packaged_spec, study_file

#: Where each reproduction that takes the papers' traces finds them: (study file, its list's key, the names it
#: replays). None: the names of its ``[[catalog.traces]]`` (an ordinary study), else every one the list holds.
FACTS_IN: Dict[str, Tuple[str, str, Optional[Tuple[str, ...]]]] = {
    "stripe-unit-traces": ("stripe-unit-traces", "paper_traces", ("Iozone", "Postmark", "Vdbench")),
    "stripe-unit-study": ("stripe-unit-traces", "paper_traces", None),
    "stripe-unit-chips": ("stripe-unit-traces", "paper_traces", None),
    "stripe-unit-md-raid5": ("stripe-unit-traces", "paper_traces", None),
    "cr5m": ("cr5m", "traces", None),
    "cr5m-chips": ("cr5m", "traces", None),
    "erasure-code-study": ("erasure-code-study", "workloads", None),
    "striping-traces": ("striping-coefficients", "paper_traces", None),
    "disk-validation": ("disk-validation", "traces", None),
}
#: How far a given trace may stray from the paper's statistics before a warning: (absolute, relative).
TOLERANCE = {"requests": (0, 0.02), "write_percent": (2.0, 0), "mean_kb": (0, 0.10), "mean_write_kb": (0, 0.10),
             "mean_read_kb": (0, 0.10), "max_write_kb": (0, 0.0), "requests_per_s": (0, 0.10),
             "write_interarrival_ms": (0, 0.10), "read_interarrival_ms": (0, 0.10)}
STAT_TEXT = {"requests": "requests", "write_percent": "write share (%)", "mean_kb": "mean request (KB)",
             "mean_write_kb": "mean write (KB)", "mean_read_kb": "mean read (KB)",
             "max_write_kb": "largest write (KB)", "requests_per_s": "requests per second",
             "write_interarrival_ms": "time between writes (ms)", "read_interarrival_ms": "time between reads (ms)"}
STAND_IN, TRACE, MIXED = "stand-in", "trace", "mixed"


class TraceError(RaidsimError, ValueError):
    """A ``--trace`` or ``--traces`` that cannot be used: names the option, the name and the valid ones."""


@dataclass(frozen=True)
class Facts:
    """What a paper's table says of one of its traces (None: the table does not say)."""

    name: str
    table: str
    files: Tuple[str, ...]
    stats: Mapping[str, float]
    paper: str = ""  # the paper's key (papers.toml): a qualifier a user may write, PAPER:NAME
    same_as: str = ""  # "PAPER:NAME" of another paper's trace this one is (the stripe-unit and erasure-code Postmark)

    @property
    def identity(self) -> str:
        """Which trace this is, across papers: two names that are one trace share it."""
        return self.same_as or f"{self.paper}:{self.name}"


@dataclass
class Given:
    """A trace the user gave for one of a reproduction's stand-ins, with its statistics and the warnings."""

    name: str
    path: str
    stats: Dict[str, Any]
    warnings: List[str] = field(default_factory=list)


def known(entry: str) -> Dict[str, Facts]:
    """The traces reproduction ``entry`` replays, by name, with their paper's statistics; {} if it takes none."""
    if entry not in FACTS_IN:
        return {}
    from .catalog import entry as catalog_entry

    file, key, wanted = FACTS_IN[entry]
    wanted = wanted or tuple(t["name"] for t in catalog_entry(entry).traces) or None
    spec = packaged_spec(file)
    out = {}
    for i, t in enumerate(spec.get(key, [])):
        where = f"{study_file(file)}: [[{key}]][{i}]"
        name = t.get("name")
        if not isinstance(name, str) or not name:
            raise TraceError(f"{where}: `name` must be the trace's name as the paper gives it")
        files = t.get("files", [name])
        stats = {k: float(t[k]) for k in STAT_TEXT if k in t}
        out[name] = Facts(name, t.get("table", spec.get("facts_table", "")), tuple(files), stats,
                          paper_of(entry), t.get("same_as", ""))
    if wanted is None:
        return out
    missing = [n for n in wanted if n not in out]
    if missing:
        raise TraceError(f"{entry} replays {', '.join(missing)}, which {study_file(file)} does not list in [[{key}]]")
    return {n: out[n] for n in wanted}


def paper_of(entry: str) -> str:
    """The key (papers.toml) of the paper a reproduction reproduces."""
    from .catalog import entry as catalog_entry

    return catalog_entry(entry).paper.key


def parse(pairs: Iterable[str]) -> Dict[Tuple[Optional[str], str], str]:
    """``--trace`` values, ``NAME=PATH``, ``PAPER:NAME=PATH`` or ``ENTRY:NAME=PATH``, by (qualifier or None,
    name); a repeated name is an error (which file would be meant?)."""
    out: Dict[Tuple[Optional[str], str], str] = {}
    for text in pairs:
        name, sep, path = text.partition("=")
        if not sep or not name or not path:
            raise TraceError(f"--trace {text!r}: expected NAME=PATH (or PAPER:NAME=PATH), e.g. Iozone=iozone.trace")
        qualifier, colon, rest = name.partition(":")
        key = (qualifier, rest) if colon else (None, name)
        if key in out:
            raise TraceError(f"--trace {name} is given twice: {out[key]} and {path}")
        out[key] = path
    return out


def for_entry(entry: str, given: Mapping[Tuple[Optional[str], str], str], traces_dir: Optional[str]) -> Dict[str, Given]:
    """The traces the user gave for ``entry`` (by ``--trace`` as ENTRY:NAME, PAPER:NAME or NAME, then found in
    ``traces_dir``), checked: each by its name, with its statistics and the warnings where they differ from the
    paper's."""
    facts = known(entry)
    paths = {}
    for name, f in facts.items():
        path = next((given[(q, name)] for q in (entry, f.paper, None) if (q, name) in given), None)
        if path is None and traces_dir:
            path = find(traces_dir, f)
        if path is not None:
            paths[name] = path
    return {name: check(facts[name], path) for name, path in paths.items()}


def check_names(given: Mapping[Tuple[Optional[str], str], str], entries: Sequence[str],
                traces_dir: Optional[str] = None) -> List[str]:
    """What is wrong with the ``--trace`` names (and the ``--traces DIR`` files) for a run of ``entries``: a name no
    reproduction of the run replays, a qualifier that is neither a reproduction of the run nor its paper, and a
    bare name (or a file) that would be two papers' different traces. Each an error the caller raises."""
    facts = {e: known(e) for e in entries}
    papers = {paper_of(e) for e in entries}
    valid = sorted({n for fs in facts.values() for n in fs})
    out = []
    for q, name in given:
        if q is not None and q not in entries and q not in papers:
            out.append(f"{q}:{name} (`{q}` is neither a reproduction of this run nor its paper: "
                       f"{', '.join(sorted(set(entries) | papers))})")
            continue
        matching = [fs[name] for e, fs in facts.items() if name in fs and q in (None, e, fs[name].paper)]
        if not matching:
            listed = ", ".join(valid) or "none: these reproductions replay no paper trace"
            out.append(f"{(q + ':') if q else ''}{name} (valid: {listed})")
        elif q is None and len({f.identity for f in matching}) > 1:
            out.append(_ambiguous(name, matching, f"write PAPER:{name}"))
    if traces_dir:
        by_file: Dict[str, List[Facts]] = {}
        for fs in facts.values():
            for f in fs.values():
                if not any((q, f.name) in given for q in (None, f.paper)):
                    path = find(traces_dir, f)
                    if path is not None:
                        by_file.setdefault(path, []).append(f)
        for path, fs in by_file.items():
            if len({f.identity for f in fs}) > 1:
                out.append(_ambiguous(os.path.basename(path), fs, "name the file PAPER-NAME (e.g. "
                                      f"{fs[0].paper}-{os.path.basename(path)})"))
    return out


def _ambiguous(what: str, facts: Sequence[Facts], fix: str) -> str:
    papers = sorted({f"{f.paper} ({f.table})" for f in facts})
    return f"{what} would be a different trace in each of {', '.join(papers)}: {fix}"


def find(folder: str, f: Facts) -> Optional[str]:
    """The file in ``folder`` named as ``f`` says (its stem, case ignored; ``PAPER-NAME`` before ``NAME``; a name
    with an extension, ``cheetah9LP.trace``, only that file or it compressed, where a folder holds others of the
    stem), or None;
    two candidates of one kind are an error."""
    own = {s.lower() for s in f.files}
    qualified = {f"{f.paper}-{s}".lower() for s in f.files}
    names = [p for p in os.listdir(folder) if os.path.isfile(os.path.join(folder, p))]
    for stems in (qualified, own):
        hits = sorted(p for p in names if p.split(".")[0].lower() in stems or _named(p.lower(), stems))
        if len(hits) > 1:
            raise TraceError(f"--traces {folder}: {len(hits)} files could be the paper's {f.name}: "
                             f"{', '.join(hits)}; give one with --trace {f.paper}:{f.name}=PATH")
        if hits:
            return os.path.join(folder, hits[0])
    return None


def _named(file: str, names: Iterable[str]) -> bool:
    """``file`` is one of the listed names that carry an extension, or that name compressed (``.gz``...)."""
    return any("." in n and (file == n or file.startswith(n + ".")) for n in names)


def check(f: Facts, path: str) -> Given:
    """Reads the trace once for its statistics (raidsim.trace_stats) and compares them with the paper's."""
    if os.path.isdir(path):
        raise TraceError(f"--trace {f.name}={path}: a directory, not a trace file")
    if not os.path.isfile(path):
        raise TraceError(f"--trace {f.name}={path}: no such file")
    try:
        st = os.stat(path)
        stats = _stats(os.path.abspath(path), st.st_mtime_ns, st.st_size)
    except RaidsimError as e:
        raise TraceError(f"--trace {f.name}={path}: not a trace raidsim reads (its format is detected from its first "
                         f"lines: {', '.join(_formats())}): {e}") from None
    return Given(f.name, os.path.abspath(path), stats, compare(f, stats))


@functools.lru_cache(maxsize=64)
def _stats(path: str, mtime_ns: int, size: int) -> Dict[str, Any]:
    """A trace's statistics, read once per version of the file (a run checks each given trace up front, then
    again for each reproduction that replays it)."""
    from ..api import trace_stats

    return trace_stats(path)


def _formats() -> List[str]:
    from .. import _native

    return list(_native.trace_formats())


def measured(stats: Mapping[str, Any]) -> Dict[str, float]:
    """A trace's statistics in the units of the papers' tables (KB = 1024 bytes)."""
    seconds = stats["duration_ns"] / 1e9
    out = {"requests": stats["requests"], "write_percent": stats["write"]["percent"],
           "mean_kb": stats["mean_bytes"] / 1024}
    if stats["write"]["requests"]:
        out.update(mean_write_kb=stats["write"]["mean_bytes"] / 1024, max_write_kb=stats["write"]["max_bytes"] / 1024)
        if stats["write"]["requests"] > 1:
            out["write_interarrival_ms"] = stats["write"]["mean_interarrival_ns"] / 1e6
    if stats["read"]["requests"]:
        out["mean_read_kb"] = stats["read"]["mean_bytes"] / 1024
        if stats["read"]["requests"] > 1:
            out["read_interarrival_ms"] = stats["read"]["mean_interarrival_ns"] / 1e6
    if seconds > 0:
        out["requests_per_s"] = stats["requests"] / seconds
    return out


def compare(f: Facts, stats: Mapping[str, Any]) -> List[str]:
    """A warning for each statistic the paper gives that the trace misses by more than :data:`TOLERANCE`."""
    ours = measured(stats)
    out = []
    for key, theirs in f.stats.items():
        if key not in ours:
            out.append(f"{f.name}: the paper's {f.table} gives a {STAT_TEXT[key]} of {theirs:g}; the trace has none")
            continue
        absolute, relative = TOLERANCE[key]
        if abs(ours[key] - theirs) > max(absolute, relative * abs(theirs)):
            out.append(f"{f.name}: {STAT_TEXT[key]} {_number(ours[key])} where the paper's {f.table} gives "
                       f"{_number(theirs)}")
    return out


def _number(x: float) -> str:
    """A statistic as a reader reads it: a whole number with its digits (10,000, not 1e+04), else 4 figures."""
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.4g}"


def source_of(names: Iterable[str], given: Mapping[str, Any]) -> str:
    """A row's source from the workloads it rests on: trace, stand-in or mixed ("" for none)."""
    return _one_source({TRACE if n in given else STAND_IN for n in names})


def _one_source(kinds: Iterable[str]) -> str:
    """The sources of a row's parts as one: the one they share, mixed, or "" where none is known."""
    found = set(kinds) - {""}
    return found.pop() if len(found) == 1 else MIXED if found else ""


def trace_settings(g: Given, *, max_requests: Optional[int] = None) -> Dict[str, Any]:
    """The workload settings that replay a given trace (folded onto the drive where it reaches past it: the
    paper's drives are the ones its authors replayed it on, and each point's warnings give the fraction)."""
    s: Dict[str, Any] = {"workload.kind": "trace", "workload.path": g.path, "workload.out_of_range": "wrap",
                         "workload.max_wrapped_fraction": 1.0}
    if max_requests is not None and max_requests < g.stats["requests"]:
        s["workload.max_requests"] = max_requests
    return s


def notes(given: Mapping[str, Given], facts: Mapping[str, Facts]) -> List[str]:
    """What the report says of the workloads: which ran as the paper's trace (and how it differs), which as
    a stand-in."""
    out = [f"{n}: replayed from {g.path} ({g.stats['requests']:,} requests), given as the paper's trace"
           for n, g in given.items()]
    for g in given.values():
        out += [f"warning: {w}" for w in g.warnings]
    stand = [n for n in facts if n not in given]
    if stand:
        out.append(f"stand-ins (the paper's traces not given; --trace NAME=PATH): {', '.join(stand)}")
    return out


def study_spec_with(spec: Mapping[str, Any], traces: Sequence[Mapping[str, Any]],
                    given: Mapping[str, Given]) -> Tuple[Dict[str, Any], Dict[str, str]]:
    """An ordinary study's spec replaying each given trace where its stand-in was: the base's workload (a
    ``[[catalog.traces]]`` without ``case``) or a case's, with the trace's ``set`` applied there. Returns the
    spec and the source of each case's rows (``""``: the base's, for every case that names none)."""
    out = copy.deepcopy(dict(spec))
    base = out.setdefault("base", {})
    sources = {t.get("case", ""): TRACE if t["name"] in given else STAND_IN for t in traces}
    by_case = [t for t in traces if "case" in t and t["name"] in given]
    if by_case:  # a case's trace replaces that case's whole workload: the base's moves into every case
        shared = dotted(base.pop("workload", {}), "workload.")
        cases = {c["name"]: c for c in out.get("cases", [])}
        for c in cases.values():
            c["set"] = {**shared, **c.get("set", {})}
        for t in by_case:
            if t["case"] not in cases:
                raise TraceError(f"[[catalog.traces]] {t['name']}: the study has no case `{t['case']}`")
            case = cases[t["case"]]
            kept = {k: v for k, v in case["set"].items() if not k.startswith("workload.")}
            case["set"] = {**kept, **trace_settings(given[t["name"]]), **t.get("set", {})}
    for t in traces:
        if "case" not in t and t["name"] in given:
            base["workload"] = {k.split(".", 1)[1]: v for k, v in trace_settings(given[t["name"]]).items()}
            for key, value in t.get("set", {}).items():
                _set_dotted(base, key, value)
    replayed = [f"{t['name']} from {given[t['name']].path} ({t['why']})" for t in traces if t["name"] in given]
    if replayed:
        out.pop("scaled_down", None)  # the stand-ins' scale; a trace runs on the drive its `set` gives
        out["description"] = (f"{out.get('description', '')} Replays the paper's own traces in place of their "
                              f"stand-ins: {'; '.join(replayed)}.").strip()
    return out, sources


def dotted(table: Mapping[str, Any], prefix: str = "") -> Dict[str, Any]:
    """A nested table's leaves by dotted key (a dotted key stays as it is)."""
    out: Dict[str, Any] = {}
    for k, v in table.items():
        if isinstance(v, dict):
            out.update(dotted(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _set_dotted(table: Dict[str, Any], key: str, value: Any) -> None:
    *parents, leaf = key.split(".")
    for part in parents:
        table = table.setdefault(part, {})
    table[leaf] = value


def study_for(e: Any, given: Mapping[str, Given]) -> Tuple[Any, Dict[str, str], List[str]]:
    """An ordinary study as it runs (a catalog entry, :class:`~raidsim.papers.catalog.Entry`): its study file,
    replaying the given traces where its ``[[catalog.traces]]`` say their stand-ins are; with each case's rows'
    source (``""``: every case not named) and the notes."""
    from ..study.spec import Study

    if not e.traces:
        return Study.from_file(e.path), {}, []
    spec, sources = study_spec_with(Study.from_file(e.path).spec, e.traces, given)
    return Study.from_dict(spec, e.path), sources, notes(given, known(e.name))


def source_of_cases(cases: Sequence[str], sources: Mapping[str, str]) -> str:
    """What rows over these cases rest on: trace, stand-in or mixed ("" where no case stands for a trace)."""
    return _one_source(sources.get(c, sources.get("", "")) for c in cases or [""])
