"""Fixed-width text tables in pure Python, laid out as pandas' ``DataFrame.to_string`` lays them out.

``raidsim run`` prints a report's tables; importing pandas only to print them would cost most of a
second and about 100 MB before the simulation even starts (issue #14). The layout is pandas' to the
character, so the text is what it was (the README quotes it).
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence


def format_cell(value: Any, nan: str = "nan") -> str:
    """Whole numbers with thousands separators, other numbers to four decimals, NaN as ``nan``; the rest
    as ``str`` does (a bool is a whole number, as it always printed)."""
    if isinstance(value, (int, float)) and float(value).is_integer():
        return f"{int(value):,}"
    if isinstance(value, float):
        return nan if math.isnan(value) else f"{value:,.4f}"
    return str(value)


def render(header: Sequence[str], body: Sequence[Sequence[str]], *, index: bool = False,
           index_name: Optional[str] = None) -> str:
    """The table of ``header`` over ``body`` (cells already text), columns one space apart, right-aligned.

    With ``index``, the first column labels the rows: it is left-aligned, and the other columns are one
    character wider than their widest cell, the gap pandas leaves between an index and its values.
    ``index_name`` is the index's name, on a line of its own under the header, as pandas prints it.
    """
    pad = 1 if index else 0
    widths = [max([len(header[j])] + [len(row[j]) + (pad if j else 0) for row in body]) for j in range(len(header))]
    if index_name is not None:
        widths[0] = max(widths[0], len(index_name))
    lines = [_line(cells, widths, index) for cells in [header, *body]]
    if index_name is not None:
        # pandas pads this line to the table's width.
        lines.insert(1, index_name.ljust(len(lines[0])))
    return "\n".join(lines)


def _line(cells: Sequence[str], widths: List[int], index: bool) -> str:
    return " ".join(cell.ljust(w) if index and j == 0 else cell.rjust(w)
                    for j, (cell, w) in enumerate(zip(cells, widths)))
