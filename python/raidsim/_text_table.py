"""Fixed-width text tables in pure Python, laid out as pandas' ``DataFrame.to_string`` lays them out.

``raidsim run`` prints a report's tables; importing pandas only to print them would cost most of a
second and about 100 MB before the simulation even starts (issue #14). The layout is pandas' to the
character, so the text is what it was (the README quotes it).
"""

from __future__ import annotations

import math
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
           index_name: Optional[str] = None, width: Optional[int] = None) -> str:
    """The table of ``header`` over ``body`` (cells already text), columns one space apart, right-aligned.

    With ``index``, the first column labels the rows: it is left-aligned, and the other columns are one
    character wider than their widest cell, the gap pandas leaves between an index and its values.
    ``index_name`` is the index's name, on a line of its own under the header, as pandas prints it.

    ``width``: a table wider than this many characters is cut into blocks of whole columns, one under the
    other with a blank line between, each repeating the first column (the row labels) and fitting ``width``
    (a column wider than that on its own stands alone). None: one block, however wide.
    """
    widths = _widths(header, body, index, index_name)
    blocks = [list(range(len(header)))] if width is None else _blocks(widths, width, index)
    return "\n\n".join(_render_block(header, body, widths, columns, index, index_name) for columns in blocks)


def _widths(header: Sequence[str], body: Sequence[Sequence[str]], index: bool, index_name: Optional[str]) -> List[int]:
    pad = 1 if index else 0
    widths = [max([len(header[j])] + [len(row[j]) + (pad if j else 0) for row in body]) for j in range(len(header))]
    if index_name is not None:
        widths[0] = max(widths[0], len(index_name))
    return widths


def _blocks(widths: Sequence[int], width: int, index: bool) -> List[List[int]]:
    """The columns in runs whose lines, columns one space apart, fit ``width``; with ``index``, each run
    begins with column 0, the row labels."""
    first = [0] if index else []
    blocks: List[List[int]] = []
    for j in range(len(first), len(widths)):
        if blocks and sum(widths[k] for k in blocks[-1]) + len(blocks[-1]) + widths[j] <= width:
            blocks[-1].append(j)
        else:
            blocks.append([*first, j])
    return blocks or [first]


def _render_block(header: Sequence[str], body: Sequence[Sequence[str]], widths: Sequence[int],
                  columns: Sequence[int], index: bool, index_name: Optional[str]) -> str:
    lines = [_line([cells[j] for j in columns], [widths[j] for j in columns], index) for cells in [header, *body]]
    if index_name is not None:
        # pandas pads this line to the table's width.
        lines.insert(1, index_name.ljust(len(lines[0])))
    return "\n".join(lines)


def _line(cells: Sequence[str], widths: Sequence[int], index: bool) -> str:
    return " ".join(cell.ljust(w) if index and j == 0 else cell.rjust(w)
                    for j, (cell, w) in enumerate(zip(cells, widths)))


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
