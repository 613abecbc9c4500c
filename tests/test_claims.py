"""The text's numbers about a study's points ([[catalog.claims]]) and why a gap is a gap ([[catalog.gap_reasons]])."""

from __future__ import annotations

import dataclasses

import pytest

from raidsim.papers import catalog, claims
from raidsim.papers.reproduce_all import EntryResult, judged
from raidsim.papers.verdict_pages import paper_summary, paper_summary_text

SU = "array.stripe_unit_bytes"


def _long(points):
    """results_long.csv rows from {point: (case, stripe unit, {metric: value or [per member]})}."""
    out = []
    for point, (case, su, metrics) in points.items():
        for metric, v in metrics.items():
            values = v if isinstance(v, list) else [v]
            for i, x in enumerate(values):
                out.append({"point": point, "case": case, SU: "" if su is None else str(su), "metric": metric,
                            "member": str(i) if isinstance(v, list) else "", "index": "",
                            "value": "" if x is None else repr(float(x)), "unit": ""})
    return out


# A RAID4 4+1 and a RAID5 4+1 where every write lands on one data unit: parity pages = data pages. RAID4's
# data disks hold D/4 each, RAID5's disks (D + P)/5 = 2D/5: the data disk's writes are 1 - 5/8 = 37.5 % lower.
D = 4000.0
POINTS = {
    "p4k": ("raid4", 4096, {"tput": 300.0, "resp": 5.0, "data": [D / 4] * 4 + [0.0], "parity": [0.0] * 4 + [D / 4]}),
    "p128": ("raid4", 131072, {"tput": 100.0, "resp": 20.0, "data": [D / 4] * 4 + [0.0], "parity": [0.0] * 4 + [D]}),
    "r4big1": ("raid4", 524288, {"data": [D / 4] * 4 + [0.0], "parity": [0.0] * 4 + [D]}),
    "r4big2": ("raid4", 1048576, {"data": [D / 4] * 4 + [0.0], "parity": [0.0] * 4 + [D]}),
    "r5big1": ("raid5", 524288, {"data": [D / 5] * 5, "parity": [D / 5] * 5}),
    "r5big2": ("raid5", 1048576, {"data": [D / 5] * 5, "parity": [D / 5] * 5}),
    "single": ("single", None, {"tput": 80.0, "resp": 25.0}),
    "hole": ("raid0", 4096, {"tput": None}),
}


def _claim(**over):
    base = {"figure": "Abstract", "case": "c", "metric": "m", "text": "t", "published": 1.0, "unit": "%",
            "of": "tput", "form": "change_pct", "a": {"case": "raid4", SU: 4096}, "b": {"case": "raid4", SU: 131072}}
    return {**base, **over}


def _value(**over):
    return claims.evaluate(_claim(**over), _long(POINTS), "test")


def test_each_form_is_its_arithmetic_on_the_chosen_points():
    assert _value() == pytest.approx((300 / 100 - 1) * 100)
    assert _value(of="resp", form="reduction_pct") == pytest.approx((1 - 5 / 20) * 100)
    assert _value(form="ratio", b={"case": "single"}) == pytest.approx(300 / 80)
    claim = _claim(form="value")
    del claim["b"]
    assert claims.evaluate(claim, _long(POINTS), "test") == 300.0


def test_members_a_sum_of_metrics_and_a_list_of_points():
    # Figure 8's claim, hand-counted above: 37.5 %.
    fig8 = _value(of=["data", "parity"], form="reduction_pct",
                  a={"case": "raid4", SU: [524288, 1048576], "members": [0, 1, 2, 3], "over_members": "mean"},
                  b={"case": "raid5", SU: [524288, 1048576], "over_members": "mean"})
    assert fig8 == pytest.approx(37.5)
    # The parity disk over a data disk at 128 KB: D / (D/4) = 4; summed over all members by default.
    assert _value(of=["data", "parity"], form="ratio", a={"case": "raid4", SU: 131072, "members": [4]},
                  b={"case": "raid4", SU: 131072, "members": [0, 1, 2, 3], "over_members": "mean"}) == pytest.approx(4)


def test_a_side_over_another_selection_sets_a_ratio_beside_a_ratio():
    # RAID4's response grows 4x from 4 KB to 128 KB (5 -> 20 ms); `over` changes only the stripe unit.
    grow = {"case": "raid4", SU: 131072, "over": {SU: 4096}}
    claim = _claim(of="resp", form="value", a=grow)
    del claim["b"]
    assert claims.evaluate(claim, _long(POINTS), "test") == pytest.approx(4)
    # That growth over the single drive's response relative to RAID4's at 4 KB (25 / 5 = 5): 4 / 5.
    assert _value(of="resp", form="ratio", a=grow, b={"case": "single", "over": {"case": "raid4", SU: 4096}}) \
        == pytest.approx(4 / 5)
    # A hole at either end of a side's ratio is None, never a number.
    assert _value(a={"case": "raid0", SU: 4096, "over": {"case": "raid4"}}) is None
    assert _value(a={"case": "raid4", SU: 4096, "over": {"case": "raid0"}}) is None


def test_a_missing_value_is_none_never_a_number():
    assert _value(a={"case": "raid0", SU: 4096}) is None
    # Listing both cases names both points (one per combination of values): their mean has no number either.
    assert _value(a={"case": ["raid4", "raid0"], SU: 4096}) is None


@pytest.mark.parametrize("over, message", [
    ({"a": {"case": "raid9"}}, "matches no point"),
    ({"of": "nothing"}, "keeps no metric `nothing`"),
    ({"of": "tput", "members": [0]}, "not a per-member metric"),
    ({"of": "data", "members": [7]}, "the point has 5 members"),
    # RAID0's 4 KB point has the same stripe unit: without its case the selector would average the two.
    ({"a": {SU: 4096}}, "matches 2 points, not the 1 its values name"),
])
def test_a_claim_that_names_what_the_study_lacks_is_an_error(over, message):
    with pytest.raises(catalog.CatalogError, match=message):
        _value(**over)


@pytest.mark.parametrize("over, message", [
    ({"colour": 1}, "unknown key `colour`"),
    ({"form": "growth"}, "`form` must be one of"),
    ({"form": "value"}, "takes no `b`"),
    ({"published": "67.6"}, "`published` must be a number"),
    ({"members": [-1]}, "`members` must be a list"),
    ({"over_members": "max"}, "`over_members` must be one of"),
    ({"a": {}}, "must be a table of the point's case"),
    ({"a": {"case": "raid4", "over": {}}}, "`a` `over`: must be a table"),
    ({"a": {"case": "raid4", "over": {SU: 4096, "over": {SU: 8192}}}}, "`over` inside `over`"),
])
def test_a_malformed_claim_is_an_error_naming_it(over, message):
    e = dataclasses.replace(catalog.entry("stripe-unit-study"), claims=(_claim(**over),))
    with pytest.raises(catalog.CatalogError, match=message):
        claims.check_claims(e)


def test_the_packaged_claims_are_well_formed():
    for e in catalog.entries():
        claims.check_claims(e)
    assert len(catalog.entry("stripe-unit-study").claims) >= 10


def _entry_with(reasons, verdicts=()):
    e = catalog.entry("stripe-unit-study")
    return dataclasses.replace(e, gap_reasons=tuple(reasons), verdicts=tuple(verdicts) or e.verdicts)


def _row(metric, ours, published):
    return {"figure": "Abstract", "case": "c", "metric": metric, "raidsim": ours, "published": published,
            "unit": "%", "rule": catalog.Rule("absolute", {"tolerance": 1}, "t"), "not_run": False, "note": "",
            "expect": None, "mapping": ""}


def test_a_gap_carries_the_class_of_the_first_reason_that_matches_it_and_a_pass_none():
    e = _entry_with([catalog.GapReason("b", "ambiguous", metric="endurance*"), catalog.GapReason("a", "stand-in")])
    rows = judged(e, [_row("endurance: x", 10, 20), _row("throughput", 10, 20), _row("response", 20, 20)])
    assert [(r["verdict"], r["gap_class"], r["gap_why"]) for r in rows] == [
        ("gap", "b", "ambiguous"), ("gap", "a", "stand-in"), ("pass", None, None)]
    unexplained = judged(_entry_with([catalog.GapReason("c", "model", metric="nothing")]), [_row("x", 1, 5)])
    assert unexplained[0]["gap_class"] is None


def test_a_wrong_gap_reason_is_an_error_naming_the_key(tmp_path):
    spec = (tmp_path / "x.toml")
    spec.write_text('[catalog]\npaper = "stripe-unit"\ncovers = ["Figure 5"]\nkind = "trend"\nquick_seconds = 1\n'
                    'full_seconds = 1\nsummary = "s"\n[[catalog.gap_reasons]]\nclass = "d"\nwhy = "w"\n')
    with pytest.raises(catalog.CatalogError, match="`class` must be one of a, b, c"):
        catalog.load_entries(str(tmp_path))
    spec.write_text(spec.read_text().replace('class = "d"', 'class = "a"\nfigur = "F"'))
    with pytest.raises(catalog.CatalogError, match="unknown key `figur`"):
        catalog.load_entries(str(tmp_path))


def test_the_summary_counts_by_paper_kind_and_gap_class():
    su = catalog.entry("stripe-unit-study")
    tables = catalog.entry("stripe-unit-tables")
    e = _entry_with([catalog.GapReason("a", "stand-in", metric="t*")])
    trend = judged(e, [_row("t1", 1, 5), _row("t2", 1, 5), _row("u", 1, 5), _row("ok", 5, 5)])
    exact = judged(tables, [{**_row("x", 3, 3), "rule": None}, {**_row("y", 3, 4), "rule": None}])
    results = [EntryResult(su, "ok", 1.0, trend), EntryResult(tables, "ok", 1.0, exact)]
    (s,) = paper_summary(results)
    assert (s["exact_pass"], s["exact_judged"], s["trend_pass"], s["trend_judged"]) == (1, 2, 1, 4)
    assert (s["gap_a"], s["gap_b"], s["gap_c"], s["gap_unexplained"]) == (2, 0, 0, 2)  # the exact gap is unexplained
    assert "Table 10" in s["not_covered"] and "Figure 8" not in s["not_covered"]
    text = paper_summary_text([s])[0]
    assert "exact 1/2 rows match, trend 1/4 pass; gaps: 2 (a), 2 unexplained" in text
