"""A reproduction's rows: each of raidsim's numbers beside the one the paper publishes for it, and no
published number left without a row.

The reproductions that run studies (:mod:`raidsim.papers.cr5m`, :mod:`raidsim.papers.rais`,
:mod:`raidsim.papers.erasure_code_study`) turn their results into rows of one shape: what the row is
(``figure``, ``case``, ``metric``, or the fields a module names it by), ``raidsim``'s value and the
``paper``'s, or None where the paper gives none. The published numbers are data in the study file;
:class:`PublishedRows` is handed all of them, by the fields that name a row, and sets each beside the
row of that name.

A published number that no row takes is not dropped. It happens when the run did not reach its case
(a ``--quick`` grid) or when a module names a row otherwise than its study file does; either way a
reader must see it. :meth:`PublishedRows.rows` ends with a row for each, raidsim's value None and
``missing`` saying why, so that a module's own text shows the number without ours beside it, and
``raidsim reproduce all`` judges it as the catalog does (:mod:`raidsim.papers.catalog`): ``not run``
on a quick grid, a failure of the entry on a full one, which must reach every published case.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

#: Why a published number has no row of ours: the text of a missing row's ``missing``.
NO_ROW = "no row of this run reaches it (its case did not run, or the module names it otherwise)"
# `paper` left out of :meth:`PublishedRows.add`: the published number of the row's name, if any.
_PUBLISHED = object()


class PublishedRows:
    """Collects a reproduction's rows and sets the published number beside each (see the module doc).

    ``fields``: what a row is, in order, before ``raidsim`` and ``paper``; ``key``: those of them that name
    a published number (all of them unless given). ``published``: every number the paper publishes for
    these rows, by the values of ``key``.
    """

    def __init__(self, published: Iterable[Tuple[Tuple[Any, ...], Any]] | Mapping[Tuple[Any, ...], Any] = (),
                 fields: Tuple[str, ...] = ("figure", "case", "metric"), key: Optional[Tuple[str, ...]] = None):
        self.fields = fields
        self.key = fields if key is None else key
        items = published.items() if isinstance(published, Mapping) else published
        self.published: Dict[Tuple[Any, ...], Any] = {}
        for name, value in items:
            if name in self.published:
                raise ValueError(f"the study file publishes {' / '.join(map(str, name))} twice")
            self.published[name] = value
        self._taken: set = set()
        self._rows: List[Dict[str, Any]] = []

    def add(self, *values: Any, paper: Any = _PUBLISHED) -> None:
        """A row: the values of ``fields`` in order, then raidsim's value. ``paper``: the published number
        when it is not among ``published`` (a reference the module derives); by default the one of the
        row's name, or None."""
        *named, value = values
        if len(named) != len(self.fields):
            raise TypeError(f"a row is {', '.join(self.fields)} and a value; got {len(values)} values")
        row = dict(zip(self.fields, named))
        name = tuple(row[k] for k in self.key)
        if name in self.published:
            self._taken.add(name)
            if paper is not _PUBLISHED and paper != self.published[name]:
                raise ValueError(f"{' / '.join(map(str, name))}: the module sets {paper!r} beside it, the study "
                                 f"file publishes {self.published[name]!r}")
            paper = self.published[name]
        elif paper is _PUBLISHED:
            paper = None
        row.update(raidsim=measured(value), paper=None if paper is None else float(paper))
        self._rows.append(row)

    def rows(self) -> List[Dict[str, Any]]:
        """Every row added, then one per published number no row took: raidsim None, ``missing`` why."""
        out = list(self._rows)
        for name, value in self.published.items():
            if name not in self._taken:
                row: Dict[str, Any] = {k: None for k in self.fields}
                row.update(zip(self.key, name))
                row.update(raidsim=None, paper=float(value), missing=NO_ROW)
                out.append(row)
        return out


def measured(value: Any) -> Optional[float]:
    """A value as a row holds it: to four decimals; None for a value not measured (None or NaN), never a
    number that looks measured."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value != value:
        return None
    return round(float(value), 4)


def row(figure: str, case: str, metric: str, raidsim: Any, published: Any, unit: str, *,
        rule: Optional[Any] = None, not_run: bool = False, note: str = "", expect: Optional[bool] = None,
        mapping: str = "", source: str = "") -> Dict[str, Any]:
    """One row as a runner makes it. ``rule``: the row's own, from data beside its published number (it
    overrides the entry's); ``expect``: the module's own judgement, checked against the verdict; ``mapping``:
    the study file's note on the interpretation the published number is read under (a pass is then mapped);
    ``source``: what the row was computed on where a paper's trace has a stand-in (trace, stand-in, mixed)."""
    return {"figure": figure, "case": case, "metric": metric, "raidsim": raidsim, "published": published, "unit": unit,
            "rule": rule, "not_run": not_run, "note": note, "expect": expect, "mapping": mapping, "source": source}
