"""The text `raidsim run` prints (Report.to_text), rendered without pandas (issue #14): its cells must say
what to_dict() says, in the report's number format, so that a formatting slip fails here."""

import math

import pytest

import raidsim
from raidsim._text_table import format_cell, render
from test_rebuild import SMALL

# test_rebuild's RAID5 4+1 of small one-die SSDs with no spare: member 3 fails half-way, so the array runs
# degraded to the end and the phase table has empty phases. Thousands of requests, so counts need separators.
DEGRADED = {**SMALL, "array.spares": 0}


@pytest.fixture(scope="module")
def report():
    return raidsim.simulate(None, overrides=DEGRADED)


def number(x, nan="nan"):
    """The report's number format, written out again here: whole numbers with separators, else 4 decimals."""
    if math.isnan(x):
        return nan
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.4f}"


def table(text, title):
    """The table under ``title``: {row label: {column: cell}}, and its lines."""
    lines = text.split("\n")
    start = lines.index(title) + 1
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    block = lines[start:end]
    header = block[0].split()
    if not block[0].startswith(" "):  # a word in the corner names the columns (devices): not a column
        header = header[1:]
    rows = [r for r in (ln.split() for ln in block[1:]) if len(r) > 1]  # not the line naming the index
    return {r[0]: dict(zip(header, r[1:])) for r in rows}, block


def test_response_time_cells_are_the_reports_numbers(report):
    cells, lines = table(report.to_text(), "Response time")
    h = report.to_dict()["host"]
    for name, key in (("all", "response"), ("read", "read_response"), ("write", "write_response")):
        s = h[key]
        assert cells[name]["count"] == f"{s['count']:,}"
        assert cells[name]["mean_ms"] == number(s["mean_ns"] / 1e6)
        assert cells[name]["p99.9_ms"] == number(s["p999_ns"] / 1e6)
        assert cells[name]["max_ms"] == number(s["max_ns"] / 1e6)
    assert "," in cells["all"]["count"]  # 4,000: the separator is exercised
    assert len({len(ln) for ln in lines}) == 1, lines  # every column right-aligned to one width


def test_host_cells_are_the_reports_numbers(report):
    text = report.to_text()
    lines = text.split("\n")
    at = lines.index("Host")
    header, values = lines[at + 1].split(), lines[at + 2].split()
    cells = dict(zip(header, values))
    h = report.to_dict()["host"]
    assert cells["requests"] == f"{h['requests']:,}"
    assert cells["duration_s"] == number(h["duration_ns"] / 1e9)
    assert cells["iops"] == number(h["iops"])
    assert cells["mean_ms"] == number(h["response"]["mean_ns"] / 1e6)
    assert cells["p99_ms"] == number(h["response"]["p99_ns"] / 1e6)
    assert len(header) == len(values) and "warnings" not in header and "rebuild_s" not in header


def test_device_cells_are_the_reports_counters_one_column_per_device(report):
    cells, lines = table(report.to_text(), "Devices")
    devices = report.to_dict()["devices"]
    assert lines[0].split() == ["device", *(d["name"] for d in devices)]
    for d in devices:
        column = {counter: row[d["name"]] for counter, row in cells.items()}
        for cause, n in d["pages_read"].items():
            assert column[f"read.{cause}"] == f"{n:,}"
        assert column["erases"] == f"{d['erases']:,}"
        assert column["write_amplification"] == number(d["write_amplification"])
    # member[3] failed and read nothing degraded: a counter it lacks is 0, as in devices().
    assert "degraded_read" not in devices[3]["pages_read"] and cells["read.degraded_read"]["member[3]"] == "0"
    assert len({len(ln) for ln in lines}) == 1, lines


def test_phase_cells_are_the_reports_numbers_and_empty_phases_a_dash(report):
    cells, _ = table(report.to_text(), "Response time by phase")
    rb = report.to_dict()["rebuild"]
    assert cells["before"]["count"] == f"{rb['response_before']['count']:,}"
    assert cells["degraded"]["mean_ms"] == number(rb["response_degraded"]["mean_ns"] / 1e6)
    assert cells["during"] == {"count": "0", "mean_ms": "-", "p50_ms": "-", "p90_ms": "-", "p99_ms": "-",
                               "p99.9_ms": "-", "max_ms": "-"}


def test_the_text_and_the_dataframes_agree(report):
    # One row-building for both: the text's cells are the DataFrames' values, formatted.
    cells, _ = table(report.to_text(), "Response time")
    for name, row in report.latency().iterrows():
        assert cells[name] == {k: number(v) for k, v in row.items()}
    dev, _ = table(report.to_text(), "Devices")
    frame = report.devices()
    assert list(dev) == list(frame.columns)
    for counter in frame.columns:
        assert [dev[counter][name] for name in frame.index] == [number(v) for v in frame[counter]]


def test_format_cell():
    assert format_cell(1234567) == "1,234,567"
    assert format_cell(2.0) == "2"
    assert format_cell(1234.56789) == "1,234.5679"
    assert format_cell(float("nan")) == "nan" and format_cell(float("nan"), nan="-") == "-"
    assert format_cell(True) == "1" and format_cell("member[0]") == "member[0]"


def test_render_lays_out_as_pandas_to_string():
    assert render(["a", "bb"], [["1", "22,222"], ["333", "4"]]) == "  a     bb\n  1 22,222\n333      4"
    # With an index: left-aligned labels, its name on a line of its own, and a column's values one space
    # clear of the one before.
    assert render(["", "count", "mean_ms"], [["all", "200", "0.2704"], ["write", "138", "0.3213"]],
                  index=True, index_name="class") == ("      count mean_ms\n"
                                                      "class              \n"
                                                      "all     200  0.2704\n"
                                                      "write   138  0.3213")
    assert render(["device", "ssd"], [["erases", "1,200"]], index=True) == "device    ssd\nerases  1,200"
