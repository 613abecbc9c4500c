"""The catalog of reproductions: which packaged study file reproduces which tables and figures of which paper.

raidsim reproduces numbers from five papers (``papers.toml``; their texts are in ``../shared/papers``), and
holds its disk presets against a sixth reference, the measured drives of DiskSim 4.0's validation suite.
Each reproduction is a packaged study file ``experiments/NAME.toml`` that holds, as data, the published
numbers it compares against, and a ``[catalog]`` table that says what it is::

    [catalog]
    paper = "stripe-unit"             # a key of papers.toml
    covers = ["Table 3", "Table 4"]   # the paper's tables and figures it sets raidsim's numbers beside
    kind = "exact"                    # "exact" or "trend" (see Verdicts)
    quick_seconds = 2                 # wall time on the 2-core development machine with --quick ...
    full_seconds = 2                  # ... and without it (the same when the entry has no quick mode)
    summary = "..."                   # one line: what it runs
    gaps = ["..."]                    # known differences from the paper, one line each
    published_in = "other-study"      # optional: the packaged study file that holds its published numbers
    [[catalog.verdicts]]              # trend entries: how a row with a published value is judged
    figure = "Figure 6"               # optional fnmatch patterns on a row's figure, case and metric;
    metric = "*_pct"                  #   the first verdict whose patterns all match judges the row
    rule = "factor"                   # one of RULES, with its parameters
    factor = 2.0
    why = "..."                       # why this rule and tolerance: printed beside the rows it judges
    [[catalog.gap_reasons]]           # why the gap rows it matches (the same patterns) are gaps:
    metric = "improvement_pct"        #   class "a": the stand-in cannot carry it (the paper's trace would);
    class = "a"                       #   "b": the paper is ambiguous (each reading judged); "c": the model
    why = "..."                       #   differs from the paper's set-up; printed beside those rows
    [[catalog.claims]]                # an ordinary study's: a number the text states about its points
                                      #   (raidsim.papers.claims says how one is written)
    [[catalog.traces]]                # an ordinary study's: a paper's trace its workload stands in for,
    name = "Iozone"                   #   replayed instead when the user gives it (--trace Iozone=PATH):
    case = "iozone"                   #   the case whose workload it replaces (none: the base's),
    set = { ... }                     #   with these settings (the full-size drive a trace needs), and
    why = "..."                       #   why (raidsim.papers.paper_traces)

A key the table does not know is an error naming the valid ones, as is a missing one; a study file
without ``[catalog]`` is a study, not a reproduction. Each entry is one name of ``raidsim reproduce
NAME`` (a new study file with a ``[catalog]`` is a new name); ``raidsim reproduce --list`` prints the
catalog, ``raidsim reproduce all`` runs it (:mod:`raidsim.papers.reproduce_all`), and README.md's table of what
raidsim reproduces is rendered from it: ``python -m raidsim.papers.catalog --readme`` rewrites that block.

Verdicts. A reproduction's results are rows of one shape: (table or figure, case, metric, raidsim's
value, the published value or None, unit), each with a verdict:

- ``pass`` or ``gap``, by the row's rule;
- ``pass (mapped)``: a pass that rests on a *mapping*, an interpretation of the paper the study file chose
  (which array, start row or start positions a printed number stands for) where the paper does not say or
  says otherwise. The study file states it beside the number, or beside a group of them, as
  ``mapping = "why"``; the note is shown beside the row, and such passes are counted apart from plain ones.
  A row with a mapping that does not match is a ``gap``, as any other;
- ``—`` where the paper gives no number for the row: no verdict, never a pass;
- ``not run`` where the paper gives one that this run did not reach (a ``--quick`` grid).

A gap row is explained by the first ``[[catalog.gap_reasons]]`` that matches it; its class and reason
stand beside it in the report, and ``reproduce all`` counts the gaps by class (a gap no reason matches is
counted as unexplained).

A row of an *exact* entry passes only when raidsim's value equals the published one, unless the study
file states a tolerance beside that published number (the row then carries it). A row of a *trend*
entry is judged by the first of the entry's ``[[catalog.verdicts]]`` that matches it; a row with a
published value that none matches is an error, never a silent pass. A value raidsim could not measure
(``None``) beside a published one is a gap.
"""

from __future__ import annotations

import argparse
import fnmatch
import functools
import math
import os
import re
import sys
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .._native import RaidsimError
from .packaged import FOLDER, study_file

PASS, GAP, NO_VERDICT, NOT_RUN = "pass", "gap", "—", "not run"
PASS_MAPPED = "pass (mapped)"  # a pass under an interpretation of the paper its study file states (`mapping`)
#: Each verdict's key in an entry's counts (entries.json), in the order the report shows them.
COUNT_KEYS = {PASS: "pass", PASS_MAPPED: "pass_mapped", GAP: "gap", NOT_RUN: "not_run",
              NO_VERDICT: "no_published_value"}
#: The key, beside a published number (or a group of them) in a study file, of the mapping it passes under.
MAPPING_KEY = "mapping"
KINDS = ("exact", "trend")
BEGIN, END = "<!-- catalog:begin -->", "<!-- catalog:end -->"
#: The papers, as the repository holds their file.
PAPERS_FILE = "python/raidsim/papers/papers.toml"
README_COMMAND = "python -m raidsim.papers.catalog --readme"

# The keys of a [catalog] table: required, then optional.
REQUIRED_KEYS = ("paper", "covers", "kind", "quick_seconds", "full_seconds", "summary")
OPTIONAL_KEYS = ("gaps", "published_in", "verdicts", "gap_reasons", "claims", "traces")
#: An ordinary study's ``[[catalog.traces]]``: a paper's trace its workload (or a case's) stands in for
#: (raidsim.papers.paper_traces); ``case`` and ``set`` are optional.
TRACE_KEYS = ("name", "case", "set", "why")
VERDICT_KEYS = ("figure", "case", "metric", "rule", "why")
PATTERN_KEYS = ("figure", "case", "metric")
#: Why a row is a gap (``[[catalog.gap_reasons]]``'s ``class``), in the order the summary shows them.
GAP_CLASSES = {
    "a": "the stand-in cannot carry it (the paper's trace would)",
    "b": "the paper is ambiguous (each reading judged)",
    "c": "the model differs from the paper's set-up (stated why it stays)",
}
PAPER_KEYS = ("order", "file", "short", "cite", "outside_catalog")
#: A reference that is not one of the five papers (a simulator's validation suite of measured drives) has no
#: text in ../shared/papers, so no ``file``.
PAPER_REQUIRED = ("order", "short", "cite", "outside_catalog")


class CatalogError(RaidsimError, ValueError):
    """A catalog table, a papers.toml entry or a verdict rule that is wrong: names the file and the key."""


# --- verdict rules ---------------------------------------------------------------------------------

#: rule -> (required parameters, optional parameters). ``band``'s come from a run (striping's Z), so a
#: study file's [[catalog.verdicts]] cannot use it.
RULES: Dict[str, Tuple[Tuple[str, ...], Tuple[str, ...]]] = {
    "equal": ((), ()),
    "absolute": (("tolerance",), ()),
    "relative": (("tolerance",), ()),
    "factor": (("factor",), ("floor",)),
    "same_sign": ((), ()),
    "at_least": ((), ()),
    "at_most": ((), ("factor",)),
    "band": (("lo", "hi", "published_in_band"), ()),
}
RULE_MEANINGS = {
    "equal": "raidsim's value equals the published one",
    "absolute": "|raidsim - published| <= tolerance, in the row's unit (percentage points for a row in %)",
    "relative": "|raidsim / published - 1| <= tolerance",
    "factor": "raidsim / published within [1/factor, factor] (so the same sign), or |raidsim - published| <= floor",
    "same_sign": "raidsim's value has the published one's sign (a change in the paper's direction)",
    "at_least": "raidsim's value is at least the published bound",
    "at_most": "raidsim's value is at most the published bound (times factor, when given)",
    "band": "the published value's unit lies in raidsim's band of units that cannot be told from the best",
}


@dataclass(frozen=True)
class Rule:
    """How one row with a published value is judged: a rule of :data:`RULES`, its parameters and why."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    why: str = ""

    def __post_init__(self) -> None:
        if self.name not in RULES:
            raise CatalogError(f"unknown verdict rule `{self.name}`; valid: {', '.join(RULES)}")
        required, optional = RULES[self.name]
        missing = [k for k in required if k not in self.params]
        extra = [k for k in self.params if k not in required + optional]
        if missing or extra:
            raise CatalogError(f"rule `{self.name}` takes {', '.join(required + optional) or 'no parameters'}"
                               + (f"; missing {', '.join(missing)}" if missing else "")
                               + (f"; unknown {', '.join(extra)}" if extra else ""))
        for k in ("tolerance", "factor", "floor", "lo", "hi"):
            if k in self.params and not _is_number(self.params[k]):
                raise CatalogError(f"rule `{self.name}`: `{k}` must be a number, got {self.params[k]!r}")
            # An infinite tolerance passes every row; a negative one none: neither is a tolerance.
            if k in self.params and (not math.isfinite(self.params[k]) or k in ("tolerance", "floor") and self.params[k] < 0):
                raise CatalogError(f"rule `{self.name}`: `{k}` must be a finite number"
                                   + (" of at least 0" if k in ("tolerance", "floor") else "") + f", got {self.params[k]!r}")
        if self.name == "factor" and not self.params["factor"] > 1:
            raise CatalogError(f"rule `factor`: `factor` must be above 1, got {self.params['factor']}")
        if self.name == "at_most" and "factor" in self.params and not self.params["factor"] > 0:
            raise CatalogError(f"rule `at_most`: `factor` must be above 0, got {self.params['factor']}")

    def describe(self, unit: str = "") -> str:
        """The rule as a reader sees it beside a row: ``equal``, ``±1 %`` (relative), ``±1 point`` (absolute, on a
        row in %), ``×2 or ±5 points``, ..."""
        p = self.params

        def amount(x: float) -> str:  # in the row's unit; a difference of percentages is in points, not %
            if unit == "%":
                return f"±{x:g} point{'' if x == 1 else 's'}"
            return f"±{x:g}" + (f" {unit}" if unit else "")

        if self.name == "absolute":
            return amount(p["tolerance"])
        if self.name == "relative":
            return f"±{100 * p['tolerance']:g} %"
        if self.name == "factor":
            return f"×{p['factor']:g}" + (f" or {amount(p['floor'])}" if "floor" in p else "")
        if self.name == "band":
            return f"band {p['lo']:.3f}-{p['hi']:.3f}"
        if self.name == "at_most" and "factor" in p:
            return f"≤ {p['factor']:g}× bound"
        return {"equal": "equal", "same_sign": "same sign", "at_least": "≥ bound", "at_most": "≤ bound"}[self.name]


def judge(raidsim: Any, published: Any, rule: Optional[Rule], *, not_run: bool = False, mapping: str = "") -> str:
    """The verdict of one row (see the module doc): pass, pass (mapped), gap, no verdict or not run.
    ``mapping``: the study file's note on the interpretation the published number is read under, if any."""
    if published is None:
        return NO_VERDICT
    if not_run:
        return NOT_RUN
    if rule is None:
        raise CatalogError(f"a row with a published value ({published!r}) needs a verdict rule")
    if raidsim is None or (isinstance(raidsim, float) and not math.isfinite(raidsim)):
        return GAP  # nothing measured (None, NaN) or no finite value: never a pass, whatever the rule
    if not _holds(rule, raidsim, published):
        return GAP
    return PASS_MAPPED if mapping else PASS


def _holds(rule: Rule, ours: Any, theirs: Any) -> bool:
    p = rule.params
    if rule.name == "equal":
        return bool(ours == theirs)
    if rule.name == "band":
        return p["published_in_band"] is True
    if not (_is_number(ours) and _is_number(theirs)):
        raise CatalogError(f"rule `{rule.name}` compares numbers, got raidsim {ours!r} and published {theirs!r}")
    if rule.name == "absolute":
        return abs(ours - theirs) <= p["tolerance"]
    if rule.name == "relative":
        if theirs == 0:
            raise CatalogError("rule `relative` cannot judge a published 0 (no relative difference): use `absolute`")
        return abs(ours / theirs - 1) <= p["tolerance"]
    if rule.name == "factor":
        if "floor" in p and abs(ours - theirs) <= p["floor"]:
            return True
        return theirs != 0 and ours * theirs > 0 and 1 / p["factor"] <= ours / theirs <= p["factor"]
    if rule.name == "same_sign":
        if theirs == 0:
            raise CatalogError("rule `same_sign` cannot judge a published 0, which has no sign: use `absolute`")
        return ours * theirs > 0
    if rule.name == "at_least":
        return ours >= theirs
    if rule.name == "at_most":
        return ours <= p.get("factor", 1) * theirs
    raise AssertionError(f"rule `{rule.name}` is in RULES but not judged")  # can't happen: Rule checks the name


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x == x


# --- the catalog -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    """One ``[[catalog.verdicts]]`` table: the rows it matches (fnmatch patterns) and their rule."""

    rule: Rule
    figure: str = "*"
    case: str = "*"
    metric: str = "*"

    def matches(self, figure: str, case: str, metric: str) -> bool:
        return all(fnmatch.fnmatchcase(value, pattern)
                   for value, pattern in ((figure, self.figure), (case, self.case), (metric, self.metric)))


@dataclass(frozen=True)
class GapReason:
    """One ``[[catalog.gap_reasons]]`` table: the gap rows it explains (fnmatch patterns), its class and why."""

    klass: str  # a key of GAP_CLASSES
    why: str
    figure: str = "*"
    case: str = "*"
    metric: str = "*"

    def matches(self, figure: str, case: str, metric: str) -> bool:
        return Verdict.matches(self, figure, case, metric)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Paper:
    key: str
    order: int
    file: Optional[str]  # its text in ../shared/papers; None for a reference that is no paper
    short: str
    cite: str
    outside_catalog: Tuple[Tuple[str, str], ...]  # (table or figure, why no entry reproduces it)


@dataclass(frozen=True)
class Entry:
    """One reproduction: a packaged study file's ``[catalog]`` table."""

    name: str
    path: str  # the study file
    paper: Paper
    covers: Tuple[str, ...]
    kind: str
    quick_seconds: float
    full_seconds: float
    summary: str
    gaps: Tuple[str, ...] = ()
    verdicts: Tuple[Verdict, ...] = ()
    published_in: Optional[str] = None
    gap_reasons: Tuple[GapReason, ...] = ()
    #: ``[[catalog.claims]]``: numbers the text states about an ordinary study's points (raidsim.papers.claims).
    claims: Tuple[Mapping[str, Any], ...] = ()
    #: ``[[catalog.traces]]``: the papers' traces an ordinary study's workloads stand in for.
    traces: Tuple[Mapping[str, Any], ...] = ()

    @property
    def file(self) -> str:
        return study_file(self.name)

    def rule_for(self, figure: str, case: str, metric: str) -> Rule:
        """The rule that judges a row with a published value (see the module doc)."""
        if self.kind == "exact":
            return Rule("equal", why="an exact reproduction: equal, or a gap")
        for v in self.verdicts:
            if v.matches(figure, case, metric):
                return v.rule
        raise CatalogError(f"{self.file}: no [[catalog.verdicts]] matches the row {figure} / {case} / {metric}, "
                           f"which has a published value; add one (with its `why`)")

    def gap_reason_for(self, figure: str, case: str, metric: str) -> Optional[GapReason]:
        """The first ``[[catalog.gap_reasons]]`` that explains a gap row, or None (an unexplained gap)."""
        return next((g for g in self.gap_reasons if g.matches(figure, case, metric)), None)

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "paper": self.paper.key, "paper_short": self.paper.short,
                "paper_cite": self.paper.cite, "covers": list(self.covers), "kind": self.kind,
                "quick_seconds": self.quick_seconds, "full_seconds": self.full_seconds, "summary": self.summary,
                "gaps": list(self.gaps), "file": self.file,
                "published_in": None if self.published_in is None else
                study_file(self.published_in)}


@functools.lru_cache(maxsize=None)
def papers() -> Dict[str, Paper]:
    """The papers of ``papers.toml`` by key, in their order."""
    data = tomllib.loads((resources.files(__package__) / "papers.toml").read_text())
    where = PAPERS_FILE
    out = {}
    for key, table in data.items():
        _check_keys(table, PAPER_KEYS, PAPER_REQUIRED, f"{where}: [{key}]")
        gone = []
        for i, item in enumerate(table["outside_catalog"]):
            _check_keys(item, ("what", "why"), ("what", "why"), f"{where}: [{key}] outside_catalog[{i}]")
            gone.append((_text(item["what"], f"{where}: [{key}] outside_catalog[{i}].what"),
                         _text(item["why"], f"{where}: [{key}] outside_catalog[{i}].why")))
        out[key] = Paper(key, int(table["order"]), table.get("file"), table["short"], table["cite"], tuple(gone))
    return dict(sorted(out.items(), key=lambda kv: kv[1].order))


@functools.lru_cache(maxsize=None)
def entries() -> Tuple[Entry, ...]:
    """Every reproduction: by paper (papers.toml's order), then by the first table or figure it covers."""
    return load_entries(str(resources.files(f"{__package__}.experiments")))


def load_entries(folder: str) -> Tuple[Entry, ...]:
    """The entries of the study files in ``folder`` that have a ``[catalog]`` table, checked and in order."""
    found = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".toml"):
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                try:
                    spec = tomllib.load(f)
                except tomllib.TOMLDecodeError as e:
                    raise CatalogError(f"{path}: not valid TOML: {e}") from None
            if "catalog" in spec:
                found.append(_entry(name[:-len(".toml")], spec["catalog"], path))
    return tuple(sorted(found, key=_position))


def _position(e: Entry) -> Tuple[int, int, int, str]:
    """Where an entry stands: by paper, then its first table (tables first), else its first figure."""
    numbers = {kind: [int(m.group(2)) for c in e.covers if (m := re.fullmatch(r"(Table|Figure) (\d+)", c))
                      and m.group(1) == kind] for kind in ("Table", "Figure")}
    kind = 0 if numbers["Table"] else 1
    first = min(numbers["Table"] or numbers["Figure"] or [0])
    return e.paper.order, kind, first, e.name


def names() -> List[str]:
    """The names ``raidsim reproduce`` accepts, besides ``all``."""
    return [e.name for e in entries()]


def entry(name: str) -> Entry:
    for e in entries():
        if e.name == name:
            return e
    raise CatalogError(f"no reproduction `{name}`; the catalog has: {', '.join(names())}")


def _entry(name: str, table: Any, path: str) -> Entry:
    where = f"{path}: [catalog]"
    _check_keys(table, REQUIRED_KEYS + OPTIONAL_KEYS, REQUIRED_KEYS, where)
    paper = papers().get(table["paper"])
    if paper is None:
        raise CatalogError(f"{where}: `paper` = {table['paper']!r} is not a paper of papers.toml; valid: "
                           f"{', '.join(papers())}")
    covers = table["covers"]
    if not (isinstance(covers, list) and covers and all(isinstance(c, str) and c.strip() for c in covers)):
        raise CatalogError(f"{where}: `covers` must be a non-empty list of the paper's tables and figures, "
                           f"e.g. [\"Table 3\", \"Figure 8\"]; got {covers!r}")
    if table["kind"] not in KINDS:
        raise CatalogError(f"{where}: `kind` must be one of {', '.join(KINDS)}, got {table['kind']!r}")
    seconds = {}
    for key in ("quick_seconds", "full_seconds"):
        if not (_is_number(table[key]) and table[key] > 0):
            raise CatalogError(f"{where}: `{key}` must be a positive number of seconds, got {table[key]!r}")
        seconds[key] = float(table[key])
    gaps = table.get("gaps", [])
    if not (isinstance(gaps, list) and all(isinstance(g, str) and g.strip() for g in gaps)):
        raise CatalogError(f"{where}: `gaps` must be a list of lines, got {gaps!r}")
    published_in = table.get("published_in")
    if published_in is not None and not os.path.isfile(os.path.join(os.path.dirname(path), f"{published_in}.toml")):
        raise CatalogError(f"{where}: `published_in` = {published_in!r} is not a study file beside it")
    verdicts = tuple(_verdict(v, f"{where} verdicts[{i}]") for i, v in enumerate(table.get("verdicts", [])))
    if verdicts and table["kind"] == "exact":
        raise CatalogError(f"{where}: an exact entry's rows pass only when equal, so it takes no [[catalog.verdicts]]; "
                           "a tolerance of one published number belongs beside that number")
    reasons = tuple(_gap_reason(g, f"{where} gap_reasons[{i}]") for i, g in enumerate(table.get("gap_reasons", [])))
    claims = table.get("claims", [])
    if not (isinstance(claims, list) and all(isinstance(c, dict) for c in claims)):
        raise CatalogError(f"{where}: `claims` must be a list of tables ([[catalog.claims]]), got {claims!r}")
    traces = table.get("traces", [])
    if not isinstance(traces, list):
        raise CatalogError(f"{where}: `traces` must be a list of tables ([[catalog.traces]]), got {traces!r}")
    for i, t in enumerate(traces):
        at = f"{where} traces[{i}]"
        _check_keys(t, TRACE_KEYS, ("name", "why"), at)
        for k in ("name", "why") + (("case",) if "case" in t else ()):
            _text(t[k], f"{at}.{k}")
        if not isinstance(t.get("set", {}), dict):
            raise CatalogError(f"{at}.set: must be a table of settings, got {t['set']!r}")
    return Entry(name=name, path=path, paper=paper, covers=tuple(covers), kind=table["kind"],
                 summary=_text(table["summary"], f"{where} summary"), gaps=tuple(gaps), verdicts=verdicts,
                 published_in=published_in, gap_reasons=reasons, claims=tuple(claims), traces=tuple(traces),
                 **seconds)


def _verdict(table: Any, where: str) -> Verdict:
    if not isinstance(table, dict):
        raise CatalogError(f"{where}: must be a table, got {table!r}")
    rule_name = table.get("rule")
    if rule_name not in RULES or rule_name == "band":
        raise CatalogError(f"{where}: `rule` must be one of {', '.join(r for r in RULES if r != 'band')}, "
                           f"got {rule_name!r}")
    params = RULES[rule_name][0] + RULES[rule_name][1]
    _check_keys(table, VERDICT_KEYS + params, ("rule", "why") + RULES[rule_name][0], where)
    try:
        rule = Rule(rule_name, {k: table[k] for k in params if k in table}, _text(table["why"], f"{where} why"))
    except CatalogError as e:
        raise CatalogError(f"{where}: {e}") from None
    return Verdict(rule, **_patterns(table, where))


def _gap_reason(table: Any, where: str) -> GapReason:
    _check_keys(table, PATTERN_KEYS + ("class", "why"), ("class", "why"), where)
    if table["class"] not in GAP_CLASSES:
        raise CatalogError(f"{where}: `class` must be one of {', '.join(GAP_CLASSES)} "
                           f"({'; '.join(f'{k}: {v}' for k, v in GAP_CLASSES.items())}), got {table['class']!r}")
    return GapReason(table["class"], _text(table["why"], f"{where} why"), **_patterns(table, where))


def _patterns(table: Mapping[str, Any], where: str) -> Dict[str, str]:
    patterns = {k: table[k] for k in PATTERN_KEYS if k in table}
    for k, v in patterns.items():
        if not isinstance(v, str) or not v:
            raise CatalogError(f"{where}: `{k}` must be a pattern (a string, * and ? as in file names), got {v!r}")
    return patterns


def _check_keys(table: Any, valid: Sequence[str], required: Sequence[str], where: str) -> None:
    if not isinstance(table, dict):
        raise CatalogError(f"{where}: must be a table, got {table!r}")
    unknown = [k for k in table if k not in valid]
    if unknown:
        raise CatalogError(f"{where}: unknown key `{unknown[0]}`; valid: {', '.join(valid)}")
    missing = [k for k in required if k not in table]
    if missing:
        raise CatalogError(f"{where}: missing `{missing[0]}` (required: {', '.join(required)})")


def check_published(table: Any, valid: Sequence[str], required: Sequence[str], where: str) -> None:
    """A study file's record of published numbers: an unknown key (a misspelt ``mapping`` too) or a missing
    one is an error naming ``where`` (the file and the record), and a ``mapping`` must be a non-empty line."""
    _check_keys(table, valid, required, where)
    if MAPPING_KEY in table:
        _text(table[MAPPING_KEY], f"{where} {MAPPING_KEY}")


def mapping_of(*tables: Mapping[str, Any]) -> str:
    """The mapping notes of a published number and the groups it belongs to, joined; "" when none has one."""
    return "; ".join(dict.fromkeys(t[MAPPING_KEY] for t in tables if t.get(MAPPING_KEY)))


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CatalogError(f"{where}: must be a non-empty string, got {value!r}")
    return value


# --- how the catalog reads -------------------------------------------------------------------------

def covers_text(covers: Sequence[str]) -> str:
    """``["Table 3", "Table 4", "Figure 8", "Eq. 1"]`` -> ``"Tables 3-4, Figure 8, Eq. 1"``."""
    numbered: Dict[str, List[int]] = {}
    other = []
    for c in covers:
        m = re.fullmatch(r"(Table|Figure) (\d+)", c)
        if m:
            numbered.setdefault(m.group(1), []).append(int(m.group(2)))
        else:
            other.append(c)
    parts = []
    for what, numbers in numbered.items():
        runs: List[List[int]] = []
        for n in sorted(set(numbers)):
            if runs and n == runs[-1][-1] + 1:
                runs[-1].append(n)
            else:
                runs.append([n])
        text = ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
        parts.append(f"{what}{'s' if len(numbers) > 1 else ''} {text}")
    return ", ".join(parts + other)


def duration_text(seconds: float) -> str:
    # Halves round up (2.5 min is "3 min"): format's round-half-even would print 150 s as "2 min".
    if seconds < 90:
        return f"{max(1, int(seconds + 0.5))} s"
    if seconds < 90 * 60:
        return f"{int(seconds / 60 + 0.5)} min"
    return f"{int(seconds / 360 + 0.5) / 10:.1f} h"


def runtime_text(e: Entry) -> str:
    if e.quick_seconds == e.full_seconds:
        return f"~{duration_text(e.full_seconds)}"
    return f"~{duration_text(e.quick_seconds)} quick, ~{duration_text(e.full_seconds)} full"


def list_lines() -> List[str]:
    """``raidsim reproduce --list``: one line per reproduction, starting with its name."""
    cells = [(e.name, e.paper.short, covers_text(e.covers), runtime_text(e), e.kind) for e in entries()]
    widths = [max(len(c[i]) for c in cells) for i in range(4)]
    return ["  ".join(c[i].ljust(widths[i]) if i < 4 else c[i] for i in range(5)) for c in cells]


def list_json() -> List[Dict[str, Any]]:
    return [e.to_dict() for e in entries()]


def readme_block() -> str:
    """The README's generated block, markers included: what raidsim reproduces, and what it does not."""
    out = [BEGIN,
           f"<!-- generated from the [catalog] tables of {FOLDER}/*.toml and "
           f"{PAPERS_FILE} by `{README_COMMAND}`: edit those, then run it -->",
           "| reproduction | paper | tables and figures | kind | runtime here (2 cores) | what it runs |",
           "|---|---|---|---|---|---|"]
    for e in entries():
        out.append(f"| `{e.name}` | {e.paper.short} | {covers_text(e.covers)} | {e.kind} | {runtime_text(e)} | "
                   f"{_cell(e.summary)} |")
    out += ["", "Tables and figures with numbers that no reproduction sets raidsim's numbers beside:", "",
            "| paper | table or figure | why |", "|---|---|---|"]
    for p in papers().values():
        for what, why in p.outside_catalog:
            out.append(f"| {p.short} | {what} | {_cell(why)} |")
    out.append(END)
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def replace_block(readme: str, block: str) -> str:
    """``readme`` with the text between (and including) the markers replaced by ``block``."""
    if readme.count(BEGIN) != 1 or readme.count(END) != 1 or readme.index(BEGIN) > readme.index(END):
        raise CatalogError(f"README.md must hold the markers {BEGIN} and {END} once each, in that order, "
                           "around the catalog's table")
    return readme[:readme.index(BEGIN)] + block + readme[readme.index(END) + len(END):]


def current_block(readme: str) -> str:
    """The block between (and including) the markers, as the README has it."""
    replace_block(readme, "")  # checks the markers
    return readme[readme.index(BEGIN):readme.index(END) + len(END)]


def default_readme() -> str:
    """The checkout's README.md: this module is python/raidsim/papers/catalog.py in it."""
    root = os.path.abspath(__file__)
    for _ in range(4):
        root = os.path.dirname(root)
    return os.path.join(root, "README.md")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m raidsim.papers.catalog", description="The catalog of reproductions.")
    parser.add_argument("--readme", nargs="?", const=default_readme(), metavar="PATH",
                        help="rewrite the catalog's block of README.md (default: the checkout's)")
    parser.add_argument("--check", action="store_true",
                        help="only say whether the README's block is current (exit 1 if not); with --readme PATH, that file's")
    args = parser.parse_args(argv)
    if args.check and not args.readme:  # `--check` alone checks the checkout's README, never passes unread
        args.readme = default_readme()
    if not args.readme:
        print("\n".join(list_lines()))
        return 0
    try:
        with open(args.readme) as f:
            text = f.read()
        block = readme_block()
        if args.check:
            same = current_block(text) == block
            print(f"{args.readme}: the catalog's block is {'current' if same else 'out of date: run ' + README_COMMAND}")
            return 0 if same else 1
        updated = replace_block(text, block)
    except (OSError, CatalogError) as e:
        print(f"python -m raidsim.papers.catalog: error: {e}", file=sys.stderr)
        return 1
    if updated != text:
        with open(args.readme, "w") as f:
            f.write(updated)
    print(f"{args.readme}: the catalog's block {'rewritten' if updated != text else 'was current'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
