"""A reproduction's rows leave no published number out: one that no row of the run takes is a row of its
own, without our value and saying why, which `reproduce all` judges `not run` on a quick grid and a
failure on a full one."""

import math

import pytest

from raidsim.papers import cr5m, erasure_code_study, rais, reproduce_all
from raidsim.papers.catalog import NOT_RUN, entry
from raidsim.papers.rows import PublishedRows

PUBLISHED = {("Figure 8", "Fin2", "improvement_pct"): 25, ("Figure 12", "average", "recovery_gain_pct"): 40.5}


def test_a_published_number_no_row_takes_is_a_row_of_its_own_saying_why():
    out = PublishedRows(PUBLISHED)
    out.add("Figure 8", "Fin2", "improvement_pct", 24.123456)
    out.add("Figure 8", "Build", "improvement_pct", 12.0)  # the paper quotes nothing for it
    rows = out.rows()
    assert rows[:2] == [
        {"figure": "Figure 8", "case": "Fin2", "metric": "improvement_pct", "raidsim": 24.1235, "paper": 25.0},
        {"figure": "Figure 8", "case": "Build", "metric": "improvement_pct", "raidsim": 12.0, "paper": None}]
    (missing,) = rows[2:]
    assert (missing["figure"], missing["case"], missing["metric"]) == ("Figure 12", "average", "recovery_gain_pct")
    assert missing["raidsim"] is None and missing["paper"] == 40.5 and missing["missing"]


def test_every_published_number_is_in_the_rows_whatever_the_run_reached():
    for published in (cr5m.published(), rais.published()):
        out = PublishedRows(published)
        rows = out.rows()  # a run that reached nothing
        assert {(r["figure"], r["case"], r["metric"]) for r in rows} == set(published)
        assert all(r["raidsim"] is None and r["missing"] for r in rows)
    sp = erasure_code_study
    rows = PublishedRows(sp.published(), fields=sp.ROW_FIELDS, key=sp.PUBLISHED_KEY).rows()
    assert len(rows) == len(sp.published()) and all(r["nod"] is None and r["missing"] for r in rows)


def test_a_value_not_measured_is_none_never_nan():
    out = PublishedRows()
    out.add("Figure 8", "x", "m", math.nan)
    out.add("Figure 8", "y", "m", None)
    assert [r["raidsim"] for r in out.rows()] == [None, None]


def test_a_module_that_sets_another_number_beside_a_published_one_is_an_error():
    out = PublishedRows(PUBLISHED)
    with pytest.raises(ValueError, match="the study file publishes 25"):
        out.add("Figure 8", "Fin2", "improvement_pct", 24.0, paper=30)
    out.add("Figure 7", "RAIS-0(B)", "ratio", 1.0, paper=1.0)  # a reference the module derives: its own
    assert out.rows()[0]["paper"] == 1.0


def test_a_number_published_twice_is_an_error():
    with pytest.raises(ValueError, match="publishes Figure 8 / Fin2 / improvement_pct twice"):
        PublishedRows([(("Figure 8", "Fin2", "improvement_pct"), 25), (("Figure 8", "Fin2", "improvement_pct"), 26)])


@pytest.mark.parametrize("quick", [True, False])
def test_reproduce_all_judges_a_number_without_a_row_not_run_on_a_quick_grid_and_fails_a_full_one(
        tmp_path, monkeypatch, quick):
    published = cr5m.published()
    out = PublishedRows(published)
    reached = list(published)[1:]
    for key in reached:
        out.add(*key, published[key])
    result = {"rows": out.rows(), "missing_traces": [], "traces_dir": None}
    monkeypatch.setattr(cr5m, "run", lambda *a, **k: result)
    monkeypatch.setattr(cr5m, "plot", lambda *a, **k: [])
    res = reproduce_all.run_entry(entry("cr5m"), reproduce_all.RunContext(str(tmp_path), quick=quick))
    first = list(published)[0]
    if not quick:  # the full grid reaches every published case: a number left out is a failure, named
        assert res.status == "failed" and f"no row for the published {' / '.join(first)}" in res.error
        return
    assert res.status == "ok", res.trace
    by = {(r["figure"], r["case"], r["metric"]): r for r in res.rows}
    assert by[first]["verdict"] == NOT_RUN and by[first]["raidsim"] is None
    assert res.counts()["not_run"] == 1 and len(res.rows) == len(published)
