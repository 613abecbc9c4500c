"""Tables and labels a person reads: the CR5M reproduction's tables fit the terminal without NaN rows, and
sweep figures' axes say what they measure rather than the metric's path."""

import re

import pytest

from raidsim import units


def cr5m_result():
    """A result of the shape cr5m.run returns, small: two figures, averages, a case lacking measures."""
    rows = [
        {"figure": "Figure 8", "case": f"ssd1 {w}", "metric": m, "raidsim": v, "paper": p}
        for w, base in (("Fin2", 0.1), ("Build", 0.25)) for m, v, p in
        (("cr5_mean_response_ms", base, None), ("cr5m_mean_response_ms", base * 0.9, None),
         ("improvement_pct", 10.0 + base, 3.2 if w == "Fin2" else None))
    ] + [{"figure": "Figure 8", "case": "ssd1 average", "metric": "improvement_pct", "raidsim": 10.175, "paper": 15.8},
         {"figure": "Figure 10", "case": "fill 0.0", "metric": "cr5_mean_response_ms", "raidsim": 0.27, "paper": None},
         {"figure": "Figure 10", "case": "mw_limit 0.5", "metric": "mw_pages", "raidsim": 5220.0, "paper": None},
         {"figure": "Figure 10", "case": "fill 70-85 % average", "metric": "improvement_pct", "raidsim": None,
          "paper": 21.4}]
    rows += [{"figure": "Figure 9", "case": c, "metric": f"channel0_data_chip{i}_writes_with_a_long_name",
              "raidsim": 1000.0 + i, "paper": None} for c in ("Fin2", "Build") for i in range(8)]
    return {"rows": rows, "quick": True, "requests": 10_000, "missing_traces": [], "traces_dir": None}


def test_cr5m_text_has_no_nan_and_puts_averages_on_lines_of_their_own():
    from raidsim.papers import cr5m

    text = cr5m.text(cr5m_result(), width=80)
    assert not re.search(r"\bnan\b", text, re.I)
    lines = text.splitlines()
    assert "ssd1 average: improvement_pct 10.175" in lines
    table = lines[lines.index("Figure 8"):lines.index("published beside raidsim:")]
    assert not any(line.startswith("ssd1 average ") for line in table)  # no table row for it
    assert "fill 70-85 % average:" not in text  # an average with no value: no line (and no row of dashes)
    fig10 = lines[lines.index("Figure 10"):]
    assert not any(line.startswith("fill 70-85") for line in fig10[:fig10.index("published beside raidsim:")])
    row = next(line.split() for line in fig10 if line.startswith("mw_limit 0.5"))
    assert row[2:] == ["-", "5,220"]  # a measure the case lacks is a dash


def test_cr5m_text_fits_the_width_and_keeps_every_column():
    from raidsim.papers import cr5m

    result = cr5m_result()
    text = cr5m.text(result, width=80)
    assert max(map(len, text.splitlines())) <= 80
    wide = cr5m.text(result)  # no width: one block per figure
    assert max(map(len, wide.splitlines())) > 80
    fig9 = text[text.index("Figure 9"):]
    headers = [line.split()[1:] for line in fig9.splitlines() if line.startswith("case ")]
    assert len(headers) > 1 and sum(headers, []) == [f"channel0_data_chip{i}_writes_with_a_long_name" for i in range(8)]


@pytest.mark.parametrize("path, words", [
    ("host.response.mean_ns", "mean response time"), ("host.read_response.p99_ns", "99th-percentile read response time"),
    ("rebuild.response_during.mean_ns", "mean response time during the rebuild"),
    ("rebuild.response_during.count", "requests completed during the rebuild"),
    ("devices.pages_written.parity", "pages written: parity"), ("array.stripe_unit_bytes", "stripe unit"),
    ("host.throughput_eq5_mb_per_s", "throughput over busy time"), ("devices.disk.mean_seek_ns", "mean seek"),
])
def test_metrics_are_described_in_words(path, words):
    assert units.describe(path) == words


def test_an_axis_label_says_its_unit_once():
    assert units.axis_label(units.describe("host.response.mean_ns"), "ms") == "mean response time (ms)"
    assert units.axis_label("pages written: parity", "pages") == "pages written: parity"
    assert units.axis_label("erases", "blocks") == "erases (blocks)"
    assert units.axis_label("members", "") == "members"
