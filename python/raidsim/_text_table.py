"""Fixed-width text tables in pure Python, laid out as pandas' ``DataFrame.to_string`` lays them out.

``raidsim run`` prints a report's tables; importing pandas only to print them would cost most of a
second and about 100 MB before the simulation even starts (issue #14). The layout is pandas' to the
character, so the text is what it was (the README quotes it).

A table wider than the terminal is cut into blocks of whole columns, each repeating the columns that
label the rows (:func:`render`'s ``width`` and ``labels``); :func:`frame` lays out a DataFrame so (the
reproductions' tables), without importing pandas, its missing values blank rather than ``NaN``.
"""

from __future__ import annotations

import math
import numbers
import textwrap
from typing import Any, List, Mapping, Optional, Sequence


def format_cell(value: Any, nan: str = "nan") -> str:
    """Whole numbers with thousands separators, other numbers to four decimals, NaN as ``nan``; the rest
    as ``str`` does (a bool is a whole number, as it always printed)."""
    if isinstance(value, (int, float)) and float(value).is_integer():
        return f"{int(value):,}"
    if isinstance(value, float):
        return nan if math.isnan(value) else f"{value:,.4f}"
    return str(value)


def render(header: Sequence[str], body: Sequence[Sequence[str]], *, index: bool = False,
           index_name: Optional[str] = None, width: Optional[int] = None, labels: Optional[int] = None) -> str:
    """The table of ``header`` over ``body`` (cells already text), columns one space apart, right-aligned.

    With ``index``, the first column labels the rows: it is left-aligned, and the other columns are one
    character wider than their widest cell, the gap pandas leaves between an index and its values.
    ``index_name`` is the index's name, on a line of its own under the header, as pandas prints it.

    ``width``: a table wider than this many characters is cut into blocks of whole columns, one under the
    other with a blank line between, each repeating the columns that label the rows and fitting ``width``
    (a column too wide for that stands alone beside them). None: one block, however wide.

    ``labels``: how many columns, from the first, label the rows: left-aligned, and repeated in every block.
    By default the first with ``index``, none without.
    """
    labels = (1 if index else 0) if labels is None else max(labels, 1 if index else 0)
    widths = _widths(header, body, index, index_name)
    blocks = [list(range(len(header)))] if width is None else _blocks(widths, width, labels)
    return "\n\n".join(_render_block(header, body, widths, columns, labels, index_name) for columns in blocks)


def _widths(header: Sequence[str], body: Sequence[Sequence[str]], index: bool, index_name: Optional[str]) -> List[int]:
    pad = 1 if index else 0
    widths = [max([len(header[j])] + [len(row[j]) + (pad if j else 0) for row in body]) for j in range(len(header))]
    if index_name is not None:
        widths[0] = max(widths[0], len(index_name))
    return widths


def _blocks(widths: Sequence[int], width: int, labels: int) -> List[List[int]]:
    """The columns in runs whose lines, columns one space apart, fit ``width``; each run begins with the
    ``labels`` first columns, the row labels."""
    first = list(range(labels))
    blocks: List[List[int]] = []
    for j in range(len(first), len(widths)):
        if blocks and sum(widths[k] for k in blocks[-1]) + len(blocks[-1]) + widths[j] <= width:
            blocks[-1].append(j)
        else:
            blocks.append([*first, j])
    return blocks or [first]


def _render_block(header: Sequence[str], body: Sequence[Sequence[str]], widths: Sequence[int],
                  columns: Sequence[int], labels: int, index_name: Optional[str]) -> str:
    lines = [_line([cells[j] for j in columns], [widths[j] for j in columns], labels) for cells in [header, *body]]
    if index_name is not None:
        # pandas pads this line to the table's width.
        lines.insert(1, index_name.ljust(len(lines[0])))
    return "\n".join(lines)


def _line(cells: Sequence[str], widths: Sequence[int], labels: int) -> str:
    # A block's first columns are the labels' (each block begins with them): left-aligned.
    return " ".join(cell.ljust(w) if j < labels else cell.rjust(w) for j, (cell, w) in enumerate(zip(cells, widths)))


def transposed(rows: Sequence[Mapping[str, Any]], index: str, *, width: Optional[int] = None) -> str:
    """Rows of the same keys as a table turned on its side: a line per key, a column per row headed by its
    ``index`` value, and ``index`` in the corner (where pandas names a transposed table's columns).

    The layout of a few devices and many counters (``raidsim run``'s devices, ``raidsim count``'s members):
    the counters' long names label the lines once, and each member is a narrow column of numbers, so four
    to two dozen members read across a line (cut into blocks of members at ``width``). A key a row lacks
    (a cause a member never saw) is 0 there."""
    header = [index, *(str(row[index]) for row in rows)]
    keys = dict.fromkeys(k for row in rows for k in row if k != index)  # in the order they first appear
    body = [[key, *(format_cell(row.get(key, 0)) for row in rows)] for key in keys]
    return render(header, body, index=True, width=width)


def fill(line: str, width: Optional[int]) -> str:
    """A line of prose wrapped at ``width``, its continuations indented two spaces, never broken inside a
    word (a path stays whole, to be copied) or at its hyphens; None: as it is."""
    return line if width is None else textwrap.fill(line, width, subsequent_indent="  ", break_on_hyphens=False,
                                                    break_long_words=False)


def format_column(values: Sequence[Any], digits: int = 3, missing: str = "") -> List[str]:
    """A column's cells: numbers to the decimals its values need, up to ``digits``, the same for all so that
    they align (whole numbers without, all with thousands separators); ``missing`` for a missing value
    (None, NaN), never the word; a column holding anything but numbers, as ``str`` has it."""
    present = [v for v in values if not _missing(v)]
    if not all(_is_number(v) for v in present):
        return [missing if _missing(v) else str(v) for v in values]
    decimals = max((_decimals(v, digits) for v in present), default=0)
    return [missing if _missing(v) else f"{v:,.{decimals}f}" for v in values]


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _decimals(v: Any, digits: int) -> int:
    """The decimals ``v`` shows to ``digits`` places, its trailing zeros dropped (2.600 has one)."""
    if not math.isfinite(v):
        return 0
    text = f"{v:.{digits}f}"
    return len(text.rstrip("0").split(".")[1]) if "." in text else 0


def frame(table: Any, *, width: Optional[int] = None, digits: int = 3, missing: str = "") -> str:
    """A pandas DataFrame as text, without importing pandas: its index levels, named in the header, label
    the rows (left-aligned, and repeated in every block when the table is cut at ``width``), then a column
    each, cells as :func:`format_column` writes them. Index the table by the columns that say what a row
    is (a workload, a code) before printing it; an index with no name (a RangeIndex) labels nothing and is
    left out."""
    keys = list(table.index)
    named = any(n is not None for n in table.index.names)
    levels = [[*k] if isinstance(k, tuple) else [k] for k in keys] if named else [[] for _ in keys]
    names = [("" if n is None else str(n)) for n in table.index.names] if named else []
    labels = [format_column([row[i] for row in levels], digits, missing) for i in range(len(names))]
    cells = [format_column(table[c].tolist(), digits, missing) for c in table.columns]
    header = [*names, *(str(c) for c in table.columns)]
    body = [[*(col[i] for col in labels), *(col[i] for col in cells)] for i in range(len(keys))]
    # A blank last cell (a missing value) leaves no trailing spaces.
    text = render(header, body, width=width, labels=len(names))
    return "\n".join(line.rstrip() for line in text.split("\n"))
