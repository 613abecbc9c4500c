"""Text tables cut to the terminal's width (raidsim/_text_table.py): the reproductions' wide tables print as
blocks of whole columns, each repeating the row labels, and lose no cell; a missing value is blank, never NaN.
The expected cells are written out here by hand, not by the module's formatter."""

import math
import re

import pandas as pd
import pytest

from raidsim._text_table import fill, format_column, frame, render


def wide_table():
    """Two label levels and ten measures: whole numbers past a thousand, three-decimal floats, a gap."""
    index = pd.MultiIndex.from_tuples([(w, c) for w in ("Iozone2", "msr-hm0 (trace)") for c in ("rs", "evenodd", "rdp")],
                                      names=["workload", "code"])
    columns = {f"measure_{j}": [(i + 1) * 1000 * (j + 1) + 7 if j % 2 else (i + 1) * 1.125 + j / 1000
                                for i in range(6)] for j in range(10)}
    table = pd.DataFrame(columns, index=index)
    table.iloc[4, 3] = math.nan  # a ratio over nothing: a blank cell
    return table


def by_hand(value):
    if isinstance(value, float) and math.isnan(value):
        return None
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.3f}"


@pytest.mark.parametrize("width", [40, 60, 80, 100])
def test_a_wide_table_is_cut_into_blocks_that_fit_repeat_the_labels_and_lose_no_cell(width):
    table = wide_table()
    text = frame(table, width=width)
    blocks = [b.splitlines() for b in text.split("\n\n")]
    assert len(blocks) > 1  # it is wider than each width
    assert all(len(line) <= width for b in blocks for line in b), text
    labels = list(table.index)
    # The label columns, left-aligned: as wide as their widest label or name, one space apart.
    wide_w, wide_c = (max(map(len, [name, *table.index.get_level_values(name)])) for name in ("workload", "code"))
    prefix = wide_w + 1 + wide_c
    for block in blocks:  # every block repeats the label columns, a row's labels on its line
        assert block[0][:prefix].split() == ["workload", "code"]
        assert [line[:prefix] for line in block[1:]] == [f"{w:{wide_w}} {c:{wide_c}}" for w, c in labels]
    # Each measure once, in one block, under its own name, and each row's cells on its own line.
    assert [h for b in blocks for h in b[0][prefix:].split()] == list(table.columns)
    for i, _ in enumerate(labels):
        cells = [cell for b in blocks for cell in b[1 + i][prefix:].split()]
        assert cells == [by_hand(v) for v in table.iloc[i] if by_hand(v) is not None], labels[i]
    assert "nan" not in text.lower()


def test_without_a_width_one_block_holds_every_column():
    table = wide_table()
    text = frame(table)
    assert "\n\n" not in text and text.splitlines()[0].split() == ["workload", "code", *table.columns]


def test_a_column_is_formatted_to_the_decimals_its_values_need():
    assert format_column([2.0, 2.6, 2.562]) == ["2.000", "2.600", "2.562"]
    assert format_column([5107.0, 205399.0]) == ["5,107", "205,399"]
    assert format_column([1.5, math.nan, None]) == ["1.5", "", ""]
    assert format_column([0.404857, 140544], digits=2) == ["0.4", "140,544.0"]  # 0.40: one decimal is enough
    assert format_column(["rs", None, 7]) == ["rs", "", "7"]
    assert format_column([True, False]) == ["True", "False"]  # a flag, not a number


def test_labels_are_left_aligned_and_a_table_with_none_keeps_pandas_layout():
    text = render(["case", "metric", "raidsim"], [["a", "x", "1"], ["bbb", "yy", "22"]], labels=2)
    assert text.splitlines() == ["case metric raidsim", "a    x            1", "bbb  yy          22"]
    assert render(["a", "b"], [["1", "22"]]).splitlines() == ["a  b", "1 22"]  # no labels: right-aligned


def test_prose_wraps_at_spaces_and_keeps_a_path_whole():
    path = "/a/very/long/path/to/raidsim-out/erasure-code-study-quick"
    text = fill(f"figures in {path}: figure6-7.png, figure15-17.png", 30)
    assert path in text.splitlines()[1] and "figure6-7.png," in text.split() and "figure15-17.png" in text.split()
    assert all(line.startswith("  ") for line in text.splitlines()[1:])
    assert fill("one long line", None) == "one long line"
    assert re.fullmatch(r"[^\n]+", fill("short", 80))
