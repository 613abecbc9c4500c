"""Numbers a paper's text states about a study's points, judged: ``[[catalog.claims]]``.

A reproduction that runs as an ordinary study (its study file sweeps, no module of its own) can still set
the text's numbers beside its own: "a 4 KB stripe unit improves the throughput of RAID4 up to 67.6 %
against 128 KB" is a relation between two points of the sweep. Each claim says which points, which metric
and which arithmetic::

    [[catalog.claims]]
    figure = "Abstract"                     # where the paper states it
    case = "RAID4, 4 KB against 128 KB"     # the row's case
    metric = "throughput gain"              # the row's metric
    text = "improves the throughput ... up to 67.6 %"   # the paper's words, shown beside the row
    published = 67.6
    unit = "%"
    of = "host.throughput_eq5_mb_per_s"     # a metric the study keeps; a list: their sum
    form = "change_pct"                     # change_pct (a/b - 1) x 100, reduction_pct (1 - a/b) x 100,
                                            #   ratio a/b, or value (a alone: no b)
    a = { case = "raid4", "array.stripe_unit_bytes" = 4096 }
    b = { case = "raid4", "array.stripe_unit_bytes" = 131072 }
    members = [4]                           # optional: of a per-member metric, these members (default all) ...
    over_members = "sum"                    # ... summed (default) or their "mean"
    mapping = "reading: ..."                # optional: the reading of an ambiguous statement this row judges

A selector (``a``, ``b``) names a case and any column of the study's ``results_long.csv`` (an axis, a
case's setting); a list of values selects every point with one of them, and the value is then the mean
over those points. ``members`` and ``over_members`` may also stand inside a selector, for a claim that
sets some members of one array beside others (RAID4's data disks against RAID5's disks). A selector
may also hold ``over``, a table of settings that replace some of its own: the side's value is then the
selection's over that second selection's, a ratio within the side, so that ``form = "ratio"`` sets one
ratio beside another ("the response time grows more from 4 KB to 1 MB with one chip than with eight")::

    a = { case = "iozone", "ssd.geometry.channels" = 1, "array.stripe_unit_bytes" = 1048576,
          over = { "array.stripe_unit_bytes" = 4096 } }   # 1 chip: response at 1 MB / at 4 KB
    b = { case = "iozone", "ssd.geometry.channels" = 8, "array.stripe_unit_bytes" = 1048576,
          over = { "array.stripe_unit_bytes" = 4096 } }   # the same with 8 chips

A selector that matches no point, a metric the study does not keep or an unknown key is an error naming
the claim.
"""

from __future__ import annotations

import csv
import math
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .catalog import CatalogError, Entry, MAPPING_KEY

KEYS = ("figure", "case", "metric", "text", "published", "unit", "of", "form", "a", "b", "members",
        "over_members", MAPPING_KEY)
REQUIRED = ("figure", "case", "metric", "text", "published", "unit", "of", "form", "a")
FORMS = {
    "change_pct": "(a / b - 1) x 100",
    "reduction_pct": "(1 - a / b) x 100",
    "ratio": "a / b",
    "value": "a",
}
AGGREGATES = ("sum", "mean")
_SELECTOR_OWN = ("members", "over_members", "over")


def read_long(path: str) -> List[Dict[str, str]]:
    """A study's ``results_long.csv``: one row per point, metric and member."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def claim_rows(e: Entry, long_rows: Sequence[Mapping[str, str]]) -> List[Dict[str, Any]]:
    """Each of the entry's claims as a row (figure, case, metric, raidsim, published, unit, note, mapping),
    not yet judged: :func:`raidsim.papers.reproduce_all.judged` gives each its verdict."""
    out = []
    for i, claim in enumerate(e.claims):
        where = f"{e.file}: [[catalog.claims]][{i}] ({claim.get('metric', '?')})"
        _check(claim, where)
        value = evaluate(claim, long_rows, where)
        out.append({"figure": claim["figure"], "case": claim["case"], "metric": claim["metric"], "raidsim": value,
                    "published": claim["published"], "unit": claim["unit"], "rule": None, "not_run": False,
                    "note": f"{FORMS[claim['form']]} of {_of_text(claim)}; the paper: {claim['text']}",
                    "expect": None, "mapping": claim.get(MAPPING_KEY, "")})
    return out


def cases_of(claim: Mapping[str, Any]) -> List[str]:
    """The cases a claim's points belong to (its selectors' and their ``over``'s ``case``), in order."""
    found: List[str] = []
    for side in ("a", "b"):
        selector = claim.get(side) or {}
        for part in (selector, selector.get("over") or {}):
            for c in _listed(part.get("case", [])):
                if str(c) not in found:
                    found.append(str(c))
    return found


def _listed(value: Any) -> List[Any]:
    """A selector's value as the list of values it selects."""
    return value if isinstance(value, list) else [value]


def check_claims(e: Entry) -> None:
    """The entry's claims are well formed (without running the study): for the catalog's tests."""
    for i, claim in enumerate(e.claims):
        _check(claim, f"{e.file}: [[catalog.claims]][{i}] ({claim.get('metric', '?')})")


def evaluate(claim: Mapping[str, Any], long_rows: Sequence[Mapping[str, str]], where: str) -> Optional[float]:
    """The claim's value on the study's points; None where a point has no value (NaN, a metric not measured)."""
    a = _side(claim, "a", long_rows, where)
    if claim["form"] == "value":
        return a
    b = _side(claim, "b", long_rows, where)
    if a is None or b is None or b == 0:
        return None
    ratio = a / b
    return {"change_pct": (ratio - 1) * 100, "reduction_pct": (1 - ratio) * 100, "ratio": ratio}[claim["form"]]


def _side(claim: Mapping[str, Any], side: str, long_rows: Sequence[Mapping[str, str]], where: str) -> Optional[float]:
    selector = claim[side]
    if "over" not in selector:
        return _selection(claim, side, selector, long_rows, where)
    own = {k: v for k, v in selector.items() if k != "over"}
    top = _selection(claim, side, own, long_rows, where)
    bottom = _selection(claim, f"{side}.over", {**own, **selector["over"]}, long_rows, where)
    return None if top is None or bottom is None or bottom == 0 else top / bottom


def _selection(claim: Mapping[str, Any], side: str, selector: Mapping[str, Any], long_rows: Sequence[Mapping[str, str]],
               where: str) -> Optional[float]:
    members = selector.get("members", claim.get("members"))
    how = selector.get("over_members", claim.get("over_members", "sum"))
    wanted = {k: _listed(v) for k, v in selector.items() if k not in _SELECTOR_OWN}
    points: Dict[str, List[Mapping[str, str]]] = {}
    for r in long_rows:
        if all(k in r and any(_same(r[k], v) for v in values) for k, values in wanted.items()):
            points.setdefault(r["point"], []).append(r)
    if not points:
        raise CatalogError(f"{where}: `{side}` = {dict(selector)} matches no point of the study")
    # One point per combination of the listed values: a selector that leaves out a setting would average
    # points the claim does not name (RAID0's with RAID4's) into a plausible, wrong number.
    combinations = math.prod(len(values) for values in wanted.values())
    if len(points) != combinations:
        raise CatalogError(f"{where}: `{side}` = {dict(selector)} matches {len(points)} points, not the "
                           f"{combinations} its values name: name the case and every setting that tells them apart")
    values = [_point_value(rows, _metrics(claim), members, how, f"{where} `{side}`") for rows in points.values()]
    if any(v is None for v in values):
        return None
    return sum(values) / len(values)  # type: ignore[arg-type]


def _point_value(rows: Sequence[Mapping[str, str]], metrics: Sequence[str], members: Optional[Sequence[int]],
                 how: str, where: str) -> Optional[float]:
    total = 0.0
    for metric in metrics:
        mine = [r for r in rows if r["metric"] == metric]
        if not mine:
            raise CatalogError(f"{where}: the study keeps no metric `{metric}` (its `metrics` list names those kept)")
        if members is not None and any(r["member"] == "" for r in mine):
            raise CatalogError(f"{where}: `members` given, but `{metric}` is not a per-member metric")
        if members is not None:
            mine = [r for r in mine if int(r["member"]) in members]
            if len(mine) != len(set(members)):
                raise CatalogError(f"{where}: members {list(members)} of `{metric}`: the point has "
                                   f"{len([r for r in rows if r['metric'] == metric])} members")
        values = [float(r["value"]) if r["value"] != "" else math.nan for r in mine]
        if any(math.isnan(v) for v in values):
            return None
        total += sum(values) / len(values) if how == "mean" else sum(values)
    return total


def _same(cell: str, wanted: Any) -> bool:
    """A results_long.csv cell (text) against a study file's value (a number or a string)."""
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool):
        try:
            return float(cell) == float(wanted)
        except ValueError:
            return False
    return cell == str(wanted)


def _metrics(claim: Mapping[str, Any]) -> List[str]:
    return claim["of"] if isinstance(claim["of"], list) else [claim["of"]]


def _of_text(claim: Mapping[str, Any]) -> str:
    text = " + ".join(_metrics(claim))
    if "members" in claim:
        text += f" (members {', '.join(map(str, claim['members']))}, {claim.get('over_members', 'sum')})"
    overs = [f"{side} over {claim[side]['over']}" for side in ("a", "b") if "over" in claim.get(side, {})]
    return text + (f"; {', '.join(overs)}" if overs else "")


def _check(claim: Any, where: str) -> None:
    if not isinstance(claim, dict):
        raise CatalogError(f"{where}: must be a table, got {claim!r}")
    unknown = [k for k in claim if k not in KEYS]
    missing = [k for k in REQUIRED if k not in claim]
    if unknown or missing:
        raise CatalogError(f"{where}: " + (f"unknown key `{unknown[0]}`; valid: {', '.join(KEYS)}" if unknown else
                                           f"missing `{missing[0]}` (required: {', '.join(REQUIRED)})"))
    if claim["form"] not in FORMS:
        raise CatalogError(f"{where}: `form` must be one of {', '.join(FORMS)}, got {claim['form']!r}")
    if (claim["form"] == "value") != ("b" not in claim):
        raise CatalogError(f"{where}: form `{claim['form']}` " + ("takes no `b`" if claim["form"] == "value" else
                                                                  "needs `b`, the point a is set against"))
    if not isinstance(claim["published"], (int, float)) or isinstance(claim["published"], bool):
        raise CatalogError(f"{where}: `published` must be a number, got {claim['published']!r}")
    metrics = _metrics(claim)
    if not metrics or not all(isinstance(m, str) and m for m in metrics):
        raise CatalogError(f"{where}: `of` must be a metric or a list of them, got {claim['of']!r}")
    for side in ("a", "b"):
        if side in claim:
            _check_selector(claim[side], f"{where} `{side}`")
    _check_members(claim, where)


def _check_selector(selector: Any, where: str, nested: bool = False) -> None:
    if not isinstance(selector, dict) or not selector:
        raise CatalogError(f"{where}: must be a table of the point's case and settings, got {selector!r}")
    if "over" in selector:
        if nested:
            raise CatalogError(f"{where}: `over` inside `over`: a side is at most one ratio")
        _check_selector(selector["over"], f"{where} `over`", nested=True)
    _check_members(selector, where)


def _check_members(table: Mapping[str, Any], where: str) -> None:
    members = table.get("members")
    if members is not None and not (isinstance(members, list) and members
                                    and all(isinstance(m, int) and not isinstance(m, bool) and m >= 0 for m in members)):
        raise CatalogError(f"{where}: `members` must be a list of member indices (0 first), got {members!r}")
    if table.get("over_members", "sum") not in AGGREGATES:
        raise CatalogError(f"{where}: `over_members` must be one of {', '.join(AGGREGATES)}, "
                           f"got {table['over_members']!r}")
