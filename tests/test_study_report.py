"""Any sweep becomes a report: `[[plots]]` and `[[tables]]` in a study, tidy long results, the page."""

import datetime
import pathlib
import re
import tomllib

import pandas as pd
import pytest

import raidsim
from raidsim import _atomic, units
from raidsim.cli import main
from raidsim.study import journal, local, long_results, page, plots
from raidsim.study.errors import PointsFailed, StudyError
from raidsim.study.spec import Point, Study
from raidsim.study.sweep import run_study

# Two axes, two cases (one a single SSD without the axes): 2 x 2 RAID-5 points and 1 single point.
SPEC = """
name = "tiny-report"
title = "A user's study <with> \\"markup\\" & plots"
description = "Two axes, a single SSD for reference."
metrics = ["host.requests", "host.response.mean_ns", "devices.erases", "array.parity_pages_written",
           "array.data_pages_written"]
[base]
preset = "erasure-code-table6"
workload = { kind = "synthetic", requests = 300, read_fraction = 0.0 }
[[cases]]
name = "single"
axes = false
set = { "array.level" = "single", "array.members" = 1 }
[[cases]]
name = "raid5"
set = { "array.level" = "raid5", "array.members" = 4 }
[axes]
"array.stripe_unit_bytes" = [4096, 16384]
"array.write_method" = ["auto", "rmw"]

[[plots]]
name = "response"
title = "Mean response"
x = "array.stripe_unit_bytes"
y = "host.response.mean_ns"
facet = "array.write_method"
xunit = "KiB"
yunit = "ms"
logx = true

[[plots]]
name = "parity_per_member"
x = "array.stripe_unit_bytes"
y = "array.parity_pages_written"
series = "member"
where = { case = "raid5", "array.write_method" = "rmw" }
labels = { "3" = "last" }

[[plots]]
name = "writes_per_member"
x = "array.stripe_unit_bytes"
y = ["array.data_pages_written", "array.parity_pages_written"]
series = "member"
facet = "array.write_method"
where = { case = "raid5" }

[[tables]]
name = "summary"
title = "Summary"
columns = ["case", { key = "array.stripe_unit_bytes", unit = "KiB" }, "array.write_method",
           { key = "array.parity_pages_written", total = true, label = "parity pages" },
           "devices.erases", { key = "host.response.mean_ns", unit = "ms", digits = 4 }]
"""
RAID5_MEMBERS = 4
POINTS = 1 + 2 * 2
SCALARS = ["host.requests", "host.response.mean_ns"]
LISTS = ["devices.erases", "array.parity_pages_written", "array.data_pages_written"]


def spec_file(tmp_path, text, name="spec.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def study_run(tmp_path_factory):
    """The study run once for the module's tests: (spec, out, wide table)."""
    tmp = tmp_path_factory.mktemp("study")
    spec = spec_file(tmp, SPEC)
    out = tmp / "out"
    table = run_study(Study.from_file(spec), out, workers=2, progress=False)
    return spec, out, table


# --- the spec is checked before anything runs -----------------------------------------------------

GOOD_PLOT = 'x = "array.stripe_unit_bytes"\ny = "host.requests"\nfacet = "array.write_method"\n'


@pytest.mark.parametrize("bad, named", [
    ("colour = 1", r"plots\[0\]: unknown plot key `colour`; valid: name, title, x, y, series, facet, where"),
    ("logy = 1", r"plots\[0\]: `logy` must be true or false"),
    ('x = "array.stripe_unitbytes"', r"plots\[0\]: `x` = 'array.stripe_unitbytes' is not an axis of the study; "
                                     r"valid: array.stripe_unit_bytes, array.write_method"),
    ('y = "host.request"', r"plots\[0\]: `y` = 'host.request' is not among the study's metrics \(did you mean "
                           r"`host.requests`\?\); valid: host.requests, host.response.mean_ns, devices.erases"),
    ('series = "level"', r"plots\[0\]: `series` = 'level' is neither \"case\", \"member\" nor an axis; "
                         r"valid: case, member, array.stripe_unit_bytes, array.write_method"),
    ('facet = "bogus"', r"plots\[0\]: `facet` = 'bogus' is neither .* valid: case, member, array.stripe_unit_bytes"),
    ('facet = "array.stripe_unit_bytes"', r"plots\[0\]: x, series and facet must differ"),
    ('yunit = "ms"', r"plots\[0\]: `yunit` = 'ms' is no unit of requests; valid: requests"),
    ('xunit = "parsecs"', r"plots\[0\]: `xunit` = 'parsecs' is no unit of bytes; valid: bytes, KiB, MiB"),
    ('where = { level = "raid5" }', r"plots\[0\]: `where`: unknown key `level`; valid: case, array.stripe_unit_bytes"),
    ('where = { case = "raid6" }', r"plots\[0\]: `where.case` = 'raid6': 'raid6' is not one of the study's; "
                                   r"valid: single, raid5"),
    ('labels = { raid6 = "R6" }', r"plots\[0\]: `labels` names 'raid6', which the plot does not draw; "
                                  r"valid: single, raid5, auto, rmw"),
    ('name = "../x"', r"plots\[0\]: `name` '../x' names its files, so it must be a plain file name"),
    ('y = ["host.requests", "host.response.mean_ns"]', r"plots\[0\]: `y` sums metrics of different units: "
                                                       r"host.requests \(requests\), host.response.mean_ns \(ns\)"),
    ('series = "member"\ny = "devices.erases[2]"', r"plots\[0\]: `member` as series or facet draws each member"),
])
def test_a_wrong_plot_is_an_error_naming_the_file_the_plot_and_the_choices(tmp_path, bad, named):
    body = "\n".join(line for line in GOOD_PLOT.splitlines() if line.split(" =")[0] not in
                     {b.split(" =")[0] for b in bad.splitlines()})
    spec = spec_file(tmp_path, SPEC.split("[[plots]]")[0] + f"[[plots]]\n{body}\n{bad}\n")
    with pytest.raises(StudyError, match=re.escape(str(spec)) + ": " + named):
        Study.from_file(spec)


def test_points_that_a_plot_would_draw_on_one_line_are_refused(tmp_path):
    # write_method has two values but is neither x, series, facet nor pinned: two points per x on one line.
    spec = spec_file(tmp_path, SPEC.split("[[plots]]")[0] + '[[plots]]\nx = "array.stripe_unit_bytes"\n'
                                                           'y = "host.requests"\n')
    with pytest.raises(StudyError, match=r"plots\[0\]: the points differ in `array.write_method` \(2 values\) but "
                                         r"the plot shows it neither as x, series nor facet"):
        Study.from_file(spec)


def test_plots_missing_x_or_y_and_duplicate_names_are_refused(tmp_path):
    head = SPEC.split("[[plots]]")[0]
    for body, named in [('y = "host.requests"', r"plots\[0\]: a plot needs `x`, an axis of the study; valid: "),
                        ('x = "array.stripe_unit_bytes"\nfacet = "array.write_method"',
                         r"plots\[0\]: a plot needs `y`, one of the study's metrics"),
                        (f'name = "a"\n{GOOD_PLOT}\n[[plots]]\nname = "a"\n{GOOD_PLOT}',
                         r"plots\[1\] has the name `a` of plots\[0\]")]:
        with pytest.raises(StudyError, match=named):
            Study.from_file(spec_file(tmp_path, f"{head}[[plots]]\n{body}\n"))


@pytest.mark.parametrize("bad, named", [
    ('columns = ["case"]\nrows = 3', r"tables\[0\]: unknown table key `rows`; valid: name, title, columns, where"),
    ("columns = []", r"tables\[0\]: a table needs `columns`"),
    ('columns = ["case", "host.requestz"]', r"tables\[0\]: columns\[1\]: `key` = 'host.requestz' is not among the "
                                            r"study's metrics \(did you mean `host.requests`\?\)"),
    ('columns = [{ key = "host.requests", sum = true }]', r"tables\[0\]: columns\[0\]: unknown column key `sum`; "
                                                          r"valid: key, label, unit, digits, total"),
    ('columns = [{ key = "host.response.mean_ns", digits = -1 }]', r"tables\[0\]: columns\[0\]: `digits` must be a whole number"),
    ('columns = [{ key = "host.response.mean_ns", unit = "KiB" }]', r"tables\[0\]: columns\[0\]: `unit` = 'KiB' is no unit of ns"),
    ('columns = [{ key = "devices.erases[1]", total = true }]', r"tables\[0\]: columns\[0\]: `total = true` sums the members"),
])
def test_a_wrong_table_is_an_error_naming_the_file_the_table_and_the_choices(tmp_path, bad, named):
    spec = spec_file(tmp_path, SPEC.split("[[plots]]")[0] + f"[[tables]]\n{bad}\n")
    with pytest.raises(StudyError, match=re.escape(str(spec)) + ": " + named):
        Study.from_file(spec)


def test_new_study_keys_are_listed_among_the_valid_ones(tmp_path):
    with pytest.raises(StudyError, match=r"unknown study key `plot` \(did you mean `plots`\?\); valid: .*description, "
                                         r"plots, tables"):
        Study.from_file(spec_file(tmp_path, "plot = []\n" + SPEC))


@pytest.mark.parametrize("plot, named", [
    ('y = "devices.erases"\nfacet = "array.write_method"',
     r"plots\[0\] \(`plot0`\): `devices.erases` is a list per member: draw it with series = \"member\""),
    ('y = "host.requests"\nseries = "member"\nwhere = { case = "raid5" }\nfacet = "array.write_method"',
     r"plots\[0\] \(`plot0`\): `host.requests` is one value per point, not a list per member"),
])
def test_a_plot_that_misreads_a_list_metric_is_refused_before_any_point_runs(tmp_path, capsys, plot, named):
    spec = spec_file(tmp_path, SPEC.split("[[plots]]")[0] + f'[[plots]]\nx = "array.stripe_unit_bytes"\n{plot}\n')
    out = tmp_path / "out"
    with pytest.raises(StudyError, match=named):
        run_study(Study.from_file(spec), out, workers=1, progress=False)
    assert not (out / journal.JOURNAL).exists()
    assert main(["sweep", str(spec), "--out", str(out), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("raidsim: error:") and err.strip().count("\n") == 0 and "Traceback" not in err


def test_a_table_total_of_a_value_that_is_no_list_is_refused_before_any_point_runs(tmp_path):
    spec = spec_file(tmp_path, SPEC.split("[[plots]]")[0] + '[[tables]]\ncolumns = [{ key = "host.requests", '
                                                           'total = true }]\n')
    with pytest.raises(StudyError, match=r"tables\[0\] \(`table0`\): `host.requests` is one value per point"):
        run_study(Study.from_file(spec), tmp_path / "out", workers=1, progress=False)


# --- the long table -----------------------------------------------------------------------------

def test_long_table_has_a_row_per_point_metric_and_member_with_the_wide_values(study_run):
    _, out, wide = study_run
    long = pd.read_parquet(out / "results_long.parquet")
    # By hand: every point has one row per scalar; a RAID-5 point one per member of each list; the single
    # SSD one device (devices.erases) and one empty row for each array.* list it lacks.
    raid5, single = 2 * 2, 1
    assert len(long) == POINTS * len(SCALARS) + raid5 * RAID5_MEMBERS * len(LISTS) + single * len(LISTS)
    assert list(long.columns) == ["point", "case", "array.stripe_unit_bytes", "array.write_method", "array.level",
                                  "array.members", "metric", "member", "index", "value", "unit"]
    wide = wide.set_index("point_id")
    for r in long.itertuples(index=False):
        column = r.metric if pd.isna(r.member) else f"{r.metric}[{r.member}]"
        if pd.isna(r.value):
            assert r.case == "single" and r.metric.startswith("array.") and pd.isna(r.member)
            assert wide.loc[r.point, f"{r.metric}[0]"] is pd.NA or pd.isna(wide.loc[r.point, f"{r.metric}[0]"])
        else:
            assert r.value == wide.loc[r.point, column], (r.point, column)
    assert set(long.loc[long.metric == "devices.erases", "unit"]) == {"blocks"}
    assert set(long.loc[long.metric == "host.response.mean_ns", "unit"]) == {"ns"}
    assert set(long.loc[long.metric == "array.parity_pages_written", "unit"]) == {"pages"}


def test_long_table_keeps_integers_and_leaves_missing_values_empty(study_run):
    _, out, _ = study_run
    long = pd.read_parquet(out / "results_long.parquet")
    # Settings and positions stay integer; the single SSD has no stripe unit (its case runs without the axes).
    for column in ("array.stripe_unit_bytes", "member", "array.members"):
        assert pd.api.types.is_integer_dtype(long[column]), column
    single = long[long.case == "single"]
    assert single["array.stripe_unit_bytes"].isna().all() and single["value"].isna().sum() == 2
    assert (long.loc[long.metric == "host.requests", "value"] == 300).all()
    # Fractions beside integers make `value` a float column, but the CSV writes an integer as one.
    text = (out / "results_long.csv").read_text().splitlines()
    requests = [line for line in text if ",host.requests," in line]
    assert len(requests) == POINTS and all(line.endswith(",300,requests") for line in requests)
    assert all(",4096," in line or ",16384," in line or ",single," in line for line in requests)


def test_long_value_column_is_integer_when_every_metric_is_and_a_failed_point_is_empty(tmp_path):
    good, missing = tmp_path / "good.csv", tmp_path / "absent.csv"
    good.write_text("".join(f"{128166372000000000 + i * 10000},hm,0,Write,{i * 4096},4096,100\n" for i in range(40)))
    spec = spec_file(tmp_path, f"""
metrics = ["host.requests", "devices.erases"]
[base]
preset = "erasure-code-table6"
workload = {{ kind = "trace" }}
[[cases]]
name = "raid5"
set = {{ "array.level" = "raid5", "array.members" = 4 }}
[axes]
"workload.path" = ["{good}", "{missing}"]
""")
    out = tmp_path / "out"
    with pytest.raises(PointsFailed) as failed:
        run_study(Study.from_file(spec), out, workers=1, progress=False, report=True)
    # A study without plots gets its page when asked; the failed point's workload differs, and it says so.
    page = (out / "report.html").read_text()
    assert failed.value.table.attrs["report"].page == str(out / "report.html")
    assert f"Trace replay of {good}" in page and "Varies between points: workload.path" in page
    assert "absent.csv: No such file or directory" in page.split('id="warnings"')[1]
    long = pd.read_parquet(out / "results_long.parquet")
    assert pd.api.types.is_integer_dtype(long["value"])
    ok, failed = long[long["workload.path"] == str(good)], long[long["workload.path"] == str(missing)]
    assert len(ok) == 1 + 4 and (ok.loc[ok.metric == "host.requests", "value"] == 40).all()
    # A failed point: one row per metric, every value empty, never 0.
    assert len(failed) == 2 and failed["value"].isna().all() and failed["member"].isna().all()
    assert ",host.requests,,,,requests" in (out / "results_long.csv").read_text()


def test_long_rows_put_members_and_other_list_positions_in_their_own_columns():
    record = {"status": "ok", "values": {
        "devices.erases[0]": 1, "devices.erases[1]": 2,
        "devices.erase_count.histogram.counts[1][2]": 7,
        "time_series.iops[0]": 5.5, "time_series.iops[1]": 6.5,
        "array.erases": None, "devices.name[0]": "member[0]"}}
    table = long_results.build([("p1", "c", {"array.stripe_unit_bytes": 4096}, record)], ["array.stripe_unit_bytes"],
                               ["devices.erases", "devices.erase_count.histogram.counts", "time_series.iops",
                                "array.erases", "devices.name"])
    rows = [(r["metric"], r["member"], r["index"], r["value"]) for r in table.rows]
    assert rows == [("devices.erases", 0, None, 1), ("devices.erases", 1, None, 2),
                    ("devices.erase_count.histogram.counts", 1, 2, 7),
                    ("time_series.iops", None, 0, 5.5), ("time_series.iops", None, 1, 6.5),
                    ("array.erases", None, None, None)]
    assert table.left_out == ["devices.name"]  # text: no number to hold, and the page says so


def test_units_come_from_the_stated_rule_and_unknown_is_empty():
    expected = {"host.response.mean_ns": "ns", "host.iops": "requests/s", "host.mb_per_s": "MB/s",
                "host.throughput_eq5_mb_per_s": "MB/s", "array.stripe_unit_bytes": "bytes",
                "devices.pages_read.gc_read": "pages", "array.extra_page_reads": "pages", "devices.erases": "blocks",
                "rebuild.recovery_bytes_per_s": "bytes/s", "array.parity_to_data_write_ratio": "ratio",
                "host.requests": "requests", "cost.total_usd": "USD", "devices.name": "", "array.level": ""}
    assert {p: units.unit_of(p) for p in expected} == expected
    assert units.convert("ns", "ms") == 1e-6 and units.convert("bytes", "KiB") == 1 / 1024
    with pytest.raises(ValueError, match="no conversion from pages to ms; choices: pages"):
        units.convert("pages", "ms")


# --- the figures, tables and page ----------------------------------------------------------------

def test_a_user_study_gets_png_svg_csv_tables_and_an_html_page(study_run):
    _, out, _ = study_run
    for name in ("response", "parity_per_member", "writes_per_member"):
        assert (out / "figures" / f"{name}.png").read_bytes().startswith(b"\x89PNG"), name
        assert "<svg" in (out / "figures" / f"{name}.svg").read_text(), name
    assert (out / "tables" / "summary.csv").is_file()
    page = (out / "report.html").read_text()
    assert "&lt;with&gt; &quot;markup&quot; &amp; plots" in page and "<with>" not in page  # escaped
    assert "tiny-report" in page and f"raidsim {raidsim.__version__}" in page
    assert datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d") in page
    assert "Synthetic, 300 requests" in page and "Two axes, a single SSD for reference." in page
    assert page.count("data:image/png;base64,") == 3 and 'href="figures/response.svg"' in page
    assert page.count("<details><summary><code>") == POINTS and "stripe_unit_bytes = 16384" in page


def test_the_figure_draws_the_results_values_in_the_asked_units_and_the_single_ssd_as_a_line(study_run):
    spec, out, wide = study_run
    study = Study.from_file(spec)
    figures = {}
    rows = journal_rows(spec, out)
    plots.draw(study.plots[0], rows, str(out), "here", lambda fig, path, fmt: figures.setdefault(path, fig))
    fig = figures[str(out / "response.png")]
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["array.write_method = auto", "array.write_method = rmw"]
    for ax, method in zip(panels, ("auto", "rmw")):
        # Labelled with what the key and metric measure, not their paths (raidsim.units.describe).
        assert ax.get_xscale() == "log" and ax.get_xlabel() in ("stripe unit (KiB)", "")
        raid5 = wide[(wide.case == "raid5") & (wide["array.write_method"] == method)]
        line = next(line for line in ax.get_lines() if line.get_label() == "raid5")
        assert list(line.get_xdata()) == [4.0, 16.0]  # bytes shown as KiB
        assert list(line.get_ydata()) == pytest.approx(list(raid5.sort_values("array.stripe_unit_bytes")
                                                            ["host.response.mean_ns"] / 1e6))  # ns as ms
        single = next(line for line in ax.get_lines() if line.get_label() == "single")
        assert single.get_ydata()[0] == pytest.approx(wide.loc[wide.case == "single", "host.response.mean_ns"].iloc[0] / 1e6)
    assert panels[0].get_ylabel() == "mean response time (ms)"


def test_a_member_series_draws_each_member_and_a_sum_adds_the_terms(study_run):
    spec, out, wide = study_run
    study = Study.from_file(spec)
    rows = journal_rows(spec, out)
    figures = {}
    for plot in study.plots[1:]:
        plots.draw(plot, rows, str(out), "here", lambda fig, path, fmt: figures.setdefault(path, fig))
    ax = figures[str(out / "parity_per_member.png")].axes[0]
    assert [line.get_label() for line in ax.get_lines()] == ["0", "1", "2", "last"]
    rmw = wide[(wide.case == "raid5") & (wide["array.write_method"] == "rmw")].sort_values("array.stripe_unit_bytes")
    for i, line in enumerate(ax.get_lines()):
        assert list(line.get_ydata()) == list(rmw[f"array.parity_pages_written[{i}]"])
    auto = figures[str(out / "writes_per_member.png")].axes[0]
    wauto = wide[(wide.case == "raid5") & (wide["array.write_method"] == "auto")].sort_values("array.stripe_unit_bytes")
    for i, line in enumerate(auto.get_lines()):
        assert list(line.get_ydata()) == list(wauto[f"array.data_pages_written[{i}]"]
                                               + wauto[f"array.parity_pages_written[{i}]"])


def journal_rows(spec, out):
    """The study's points as the journal holds them: what the report draws."""
    points = journal.Journal(str(out / journal.JOURNAL))
    points.load()
    return [plots.PointRow(p.case, p.settings, points.records[p.point_id]["status"],
                           points.records[p.point_id]["values"], p.label) for p in Study.from_file(spec).points()]


def test_a_point_without_a_value_is_not_drawn_as_zero_and_the_page_says_so(tmp_path):
    # The single SSD has no array section: the parity plot over every case lacks it; a failed point lacks all.
    spec = spec_file(tmp_path, SPEC.split("[[plots]]")[0] + """
[[plots]]
name = "parity"
x = "array.stripe_unit_bytes"
y = "array.parity_pages_written[0]"
facet = "array.write_method"
""")
    study = Study.from_file(spec)
    rows = [plots.PointRow(p.case, p.settings, "ok" if p.case == "single" or
                                 p.settings["array.stripe_unit_bytes"] == 4096 else "failed",
                                 {"array.parity_pages_written": None} if p.case == "single" else
                                 {f"array.parity_pages_written[{i}]": 10 + i for i in range(4)}, p.label)
            for p in study.points()]
    figures = {}
    figure = plots.draw(study.plots[0], rows, str(tmp_path), "here",
                              lambda fig, path, fmt: figures.setdefault(path, fig))
    for ax in figures[str(tmp_path / "parity.png")].axes:
        assert [(list(line.get_xdata()), list(line.get_ydata())) for line in ax.get_lines()] == [([4096], [10])]
    assert len(figure.notes) == 1
    note = figure.notes[0]
    assert note.startswith("plot `parity`: 3 of 5 points have no value of array.parity_pages_written[0]")
    assert "single {'array.level': 'single', 'array.members': 1} (its report has no array.parity_pages_written[0])" in note
    assert note.count("(failed)") == 2


def test_table_shows_members_sums_units_and_a_dash_for_what_a_point_lacks(study_run):
    _, out, wide = study_run
    table = pd.read_csv(out / "tables" / "summary.csv", dtype=str, keep_default_na=False)
    assert list(table.columns) == ["case", "array.stripe_unit_bytes (KiB)", "array.write_method",
                                   "parity pages (pages)", "devices.erases (blocks)", "host.response.mean_ns (ms)"]
    single = table.iloc[0]
    assert list(single) == ["single", "-", "-", "-", str(int(wide.loc[wide.case == "single", "devices.erases[0]"].iloc[0])),
                            f"{wide.loc[wide.case == 'single', 'host.response.mean_ns'].iloc[0] / 1e6:.4f}"]
    r = wide[wide.case == "raid5"].iloc[0]
    first = table.iloc[1]
    assert first["array.stripe_unit_bytes (KiB)"] == "4" and first["array.write_method"] == "auto"
    assert first["parity pages (pages)"] == str(sum(int(r[f"array.parity_pages_written[{i}]"]) for i in range(4)))
    assert first["devices.erases (blocks)"] == "/".join(str(int(r[f"devices.erases[{i}]"])) for i in range(4))
    assert "nan" not in (out / "tables" / "summary.csv").read_text().lower()


def test_a_rerun_that_reuses_every_point_rebuilds_the_figures_tables_and_page(study_run, tmp_path, monkeypatch):
    spec, out, _ = study_run
    (out / "report.html").unlink()
    (out / "figures" / "response.png").unlink()
    (out / "tables" / "summary.csv").unlink()
    retitled = spec_file(tmp_path, spec.read_text().replace('title = "Mean response"', 'title = "Retitled"')
                         .replace('name = "parity_per_member"', 'name = "renamed"'))
    runs = []
    monkeypatch.setattr(local, "run_point", lambda *a: runs.append(a))
    run_study(Study.from_file(retitled), out, workers=1, progress=False)
    assert runs == []  # every point reused
    assert (out / "figures" / "response.png").is_file() and (out / "tables" / "summary.csv").is_file()
    assert (out / "figures" / "renamed.svg").is_file() and not (out / "figures" / "parity_per_member.png").exists()
    assert "Retitled" in (out / "report.html").read_text()


def test_page_lists_each_points_warnings_saturation_and_wrapped_requests(tmp_path):
    trace = tmp_path / "far.csv"
    # 256 KiB writes 1 us apart (far faster than four 32 MB drives write), at 1 TiB and beyond: past the
    # array's capacity, so wrapped.
    trace.write_text("".join(f"{128166372000000000 + i * 10},hm,0,Write,{2**40 + i * 262144},262144,100\n"
                             for i in range(300)))
    spec = spec_file(tmp_path, f"""
name = "warned"
metrics = ["host.requests"]
[base]
preset = "erasure-code-table6"
workload = {{ kind = "trace", path = "{trace}", max_wrapped_fraction = 1.0 }}
[[cases]]
name = "far-and-fast"
set = {{ "array.level" = "raid5", "array.members" = 4 }}
""")
    out = tmp_path / "out"
    assert main(["sweep", str(spec), "--out", str(out), "--workers", "1", "--no-progress"]) == 0
    warnings = (out / "report.html").read_text().split('id="warnings"')[1]
    assert re.search(r"far-and-fast \{.*\}: wrapped: 300 of 300 trace requests \(100.0 %\)", warnings)
    assert re.search(r"far-and-fast \{.*\}: saturated: requests arrived at", warnings)


def test_sweep_command_prints_where_the_report_is_and_its_tables(tmp_path, capsys, study_run):
    spec, _, _ = study_run
    out = tmp_path / "cli"
    assert main(["sweep", str(spec), "--out", str(out), "--workers", "2", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert text.startswith('A user\'s study <with> "markup" & plots\n')
    assert "Summary" in text and "host.response.mean_ns (ms)" in text and f"report:  {out}/report.html" in text
    assert f"figures: {out}/figures/response.png" in text and "results_long.csv" in text


def test_the_guides_plot_and_table_example_is_a_valid_spec():
    guide = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "studies.md").read_text()
    example = re.search(r"```toml\n(\[\[plots\]\].*?)```", guide, re.S).group(1)
    head = SPEC.split("[[plots]]")[0].replace('name = "single"', 'name = "raid4"')
    spec = tomllib.loads(head.replace('"host.requests",', '"host.requests", "array.extra_page_reads",') + example)
    study = Study.from_dict(spec, "docs/studies.md")
    assert [p.name for p in study.plots] == ["response"] and [t.name for t in study.tables] == ["summary"]
    assert study.plots[0].yunit == "ms" and study.tables[0].columns[2].total


def test_replicates_are_drawn_as_their_mean_and_the_caption_says_so(tmp_path):
    spec = spec_file(tmp_path, """
name = "replicated"
metrics = ["host.response.mean_ns"]
replicates = 2
[base]
preset = "erasure-code-table6"
workload = { kind = "synthetic", requests = 200, read_fraction = 0.5 }
array = { level = "raid5", members = 4 }
[axes]
"array.stripe_unit_bytes" = [4096, 16384]
[[plots]]
name = "mean"
x = "array.stripe_unit_bytes"
y = "host.response.mean_ns"
""")
    out = tmp_path / "out"
    wide = run_study(Study.from_file(spec), out, workers=1, progress=False)
    figures = {}
    plots.draw(Study.from_file(spec).plots[0], journal_rows(spec, out), str(out), "here",
                     lambda fig, path, fmt: figures.setdefault(path, fig))
    (line,) = figures[str(out / "mean.png")].axes[0].get_lines()
    by_unit = wide.groupby("array.stripe_unit_bytes")["host.response.mean_ns"]
    assert by_unit.nunique().min() == 2  # the seeds differ, so a mean is not one of them
    assert list(line.get_ydata()) == pytest.approx([by_unit.mean()[4096], by_unit.mean()[16384]])
    assert "each marker is the mean of a point&#x27;s 2 replicates" in (out / "report.html").read_text()


def synthetic_rows(study, values_of):
    """The study's points with made-up values (``values_of(point)``; None: the point failed)."""
    rows = []
    for p in study.points():
        values = values_of(p)
        rows.append(plots.PointRow(p.case, p.settings, "failed" if values is None else "ok", values or {},
                                         p.label))
    return rows


def test_a_series_keeps_its_colour_in_every_panel_and_one_legend_names_every_series(tmp_path):
    import matplotlib.colors as colors

    study = Study.from_file(spec_file(tmp_path, SPEC))
    # raid5's `auto` points failed: the first panel has only the single SSD's line.
    rows = synthetic_rows(study, lambda p: None if p.settings.get("array.write_method") == "auto" else
                          {"host.response.mean_ns": 1e6 * (1 + p.settings.get("array.stripe_unit_bytes", 0) / 4096)})
    figures = {}
    plots.draw(study.plots[0], rows, str(tmp_path), "here", lambda fig, path, fmt: figures.setdefault(path, fig))
    auto, rmw = figures[str(tmp_path / "response.png")].axes
    colour = {line.get_label(): colors.to_hex(line.get_color()) for ax in (auto, rmw) for line in ax.get_lines()}
    assert [line.get_label() for line in auto.get_lines()] == ["single"]
    assert colour == {"single": colors.to_hex("C0"), "raid5": colors.to_hex("C1")}
    assert [t.get_text() for t in auto.get_legend().get_texts()] == ["single", "raid5"] and rmw.get_legend() is None


def test_values_a_log_axis_cannot_show_are_left_out_and_counted_once(tmp_path):
    study = Study.from_file(spec_file(tmp_path, SPEC.replace('logx = true', 'logx = true\nlogy = true')))
    # Three RAID-5 points of mean 0 (two panels), one of 2 ms, the single SSD 1 ms.
    rows = synthetic_rows(study, lambda p: {"host.response.mean_ns": 2e6 if p.settings.get("array.stripe_unit_bytes")
                                            == 16384 and p.settings["array.write_method"] == "rmw" else
                                            0.0 if p.case == "raid5" else 1e6})
    figures = {}
    figure = plots.draw(study.plots[0], rows, str(tmp_path), "here",
                              lambda fig, path, fmt: figures.setdefault(path, fig))
    assert figure.notes == ["plot `response`: 3 values ≤ 0 cannot be drawn on its log y axis and are left out"]
    auto, rmw = figures[str(tmp_path / "response.png")].axes
    assert [list(line.get_ydata()) for line in rmw.get_lines() if line.get_label() == "raid5"] == [[2.0]]
    assert [line.get_label() for line in auto.get_lines()] == ["single"]
    assert [t.get_text() for t in auto.get_xticklabels()] == ["4", "16"]  # every x is still marked


# --- found in review: sections as metrics, stale pages, text axes, replicates' seeds, units -----------

PRICED = """
name = "priced"
metrics = ["host.requests", "cost"]
[base]
preset = "erasure-code-table6"
ssd.price_usd = 100.0
workload = { kind = "synthetic", requests = 50 }
array = { level = "raid5", members = 4 }
"""


def test_a_metric_naming_a_section_a_probe_lacks_is_refused_before_any_point_runs(tmp_path):
    # `cost` is null in an unpriced probe's report but a table in a priced point's: its text in a results
    # cell would pass for a value (and the long table could not hold it).
    out = tmp_path / "out"
    with pytest.raises(StudyError, match=r"study priced: metric `cost` is a table, not a value; pick from "
                                         r"cost.capacity_gb, cost.controller_usd, cost.drives_usd"):
        run_study(Study.from_dict(tomllib.loads(PRICED)), out, workers=1, progress=False)
    assert not (out / journal.JOURNAL).exists()


def test_a_point_whose_report_holds_a_table_where_a_metric_was_expected_fails_naming_it():
    # A section only some points have (a failure's rebuild, a price on an axis) passes the probes; the
    # point that has it fails with what to pick instead, never a table's text in a cell.
    layers = Study.from_dict(tomllib.loads(PRICED)).config(Point("", {})).layers
    row = local.run_point(layers, ["host.requests", "cost"])
    assert row == {"_error": "StudyError: metric `cost` is a table in this point's report, not a value; pick from "
                             "cost.capacity_gb, cost.controller_usd, cost.drives_usd, cost.gb_per_usd, "
                             "cost.iops_per_usd, cost.mb_per_s_per_usd, cost.total_usd"}
    assert local.run_point(layers, ["host.requests", "cost.total_usd"])["cost.total_usd"] == 400.0


def test_an_earlier_page_never_outlives_the_results_it_described(tmp_path, monkeypatch):
    spec = SPEC.split("[[plots]]")[0] + '[[plots]]\nname = "old"\nx = "array.stripe_unit_bytes"\n' \
                                        'y = "host.requests"\nfacet = "array.write_method"\n'
    out = tmp_path / "out"
    run_study(Study.from_dict(tomllib.loads(spec), "spec.toml"), out, workers=2, progress=False)
    assert "Synthetic, 300 requests" in (out / "report.html").read_text()
    # Through the API a study without plots renders no page by default: the old page, describing 300
    # requests and their figure, would stay beside results of 200. It is rebuilt instead.
    changed = SPEC.split("[[plots]]")[0].replace("requests = 300", "requests = 200")
    table = run_study(Study.from_dict(tomllib.loads(changed), "spec.toml"), out, workers=2, progress=False)
    page = (out / "report.html").read_text()
    assert "Synthetic, 200 requests" in page and "300 requests" not in page and "report" in table.attrs
    assert list((out / "figures").iterdir()) == []
    # A run interrupted after its points changed leaves no page of the earlier results.
    def interrupted(*args):
        raise KeyboardInterrupt
    monkeypatch.setattr(local, "run_point", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_study(Study.from_dict(tomllib.loads(changed.replace("requests = 200", "requests = 100")), "spec.toml"),
                  out, workers=1, progress=False)
    assert not (out / "report.html").exists() and (out / "results.csv").exists()


def test_a_text_or_boolean_axis_is_drawn_as_categories(tmp_path):
    study = Study.from_file(spec_file(tmp_path, SPEC.split("[[plots]]")[0] + """
[[plots]]
name = "by_method"
x = "array.write_method"
y = "host.response.mean_ns"
series = "array.stripe_unit_bytes"
where = { case = "raid5" }
"""))
    rows = synthetic_rows(study, lambda p: {"host.response.mean_ns": 1e6 if p.settings.get("array.write_method")
                                            == "auto" else 2e6})
    figures = {}
    plots.draw(study.plots[0], rows, str(tmp_path), "here", lambda fig, path, fmt: figures.setdefault(path, fig))
    ax = figures[str(tmp_path / "by_method.png")].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["auto", "rmw"]
    assert [list(line.get_ydata()) for line in ax.get_lines()] == [[1e6, 2e6], [1e6, 2e6]]


def test_a_table_of_replicates_may_show_each_rows_seed(tmp_path):
    spec = SPEC.split("[[plots]]")[0].replace('description = ', 'replicates = 2\ndescription = ') + \
        '[[tables]]\ncolumns = ["case", "sim.seed", "array.stripe_unit_bytes", "host.requests"]\nwhere = { case = "single" }\n'
    study = Study.from_dict(tomllib.loads(spec), "spec.toml")
    table = plots.tabulate(study.tables[0], synthetic_rows(study, lambda p: {"host.requests": 300}), "here")
    assert table.header[1] == "sim.seed" and [row[1] for row in table.rows] == ["1", "2"]
    # Without replicates there is no seed per point to show.
    with pytest.raises(StudyError, match=r"columns\[1\]: `key` = 'sim.seed' is not among the study's metrics"):
        Study.from_dict(tomllib.loads(spec.replace("replicates = 2\n", "")), "spec.toml")


def test_host_byte_counts_are_in_bytes():
    # 85 reads of 4 KiB are host.bytes_read = 348,160: bytes, not a count of unknown unit.
    assert units.unit_of("host.bytes_read") == units.unit_of("host.bytes_written") == "bytes"
    assert units.unit_of("devices.erase_count.histogram.counts") == "blocks"


def test_a_figure_that_cannot_be_drawn_leaves_no_page_of_the_last_run(tmp_path):
    # Shapes only the points show (a per-failure list drawn as one value) fail as the figure is drawn, after
    # the points ran: the page and figures of the run before must not stay to pass for this one's.
    study = Study.from_file(spec_file(tmp_path, SPEC))
    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    (out / "report.html").write_text("the last run's page")
    (out / "figures" / "response.png").write_bytes(b"the last run's figure")
    records = {p.point_id: {"status": "ok", "warnings": [], "values": {"host.response.mean_ns[0]": 1.0}}
               for p in study.points()}
    with pytest.raises(StudyError, match=r"`host.response.mean_ns` is a list per member"):
        page.render(study, str(out), study.points(), records, _atomic.replace_atomically)
    assert not (out / "report.html").exists() and list((out / "figures").iterdir()) == []


def test_the_workload_sentence_reads_the_resolved_table_and_refuses_a_partial_one():
    import raidsim
    from raidsim.study.page import describe_workload

    resolved = raidsim.Config.from_dict({"workload": {"requests": 7, "read_fraction": 0.25, "processes": 3}}).resolved()
    text = describe_workload(resolved["workload"])
    assert text.startswith("Synthetic, 7 requests, closed loop: 3 processes") and "25 % reads" in text
    partial = {k: v for k, v in resolved["workload"].items() if k != "read_fraction"}
    with pytest.raises(KeyError):  # never "0 % reads" for a key that is not there
        describe_workload(partial)
