"""Chen & Lee's Figures 8-10 (raidsim.papers.striping_traces): the shares of the best read off a hand-made table.

The table's mean response times are chosen so that every share is a round number worked out here by hand,
not by the module: a share is the best (smallest) mean response at a trace and concurrency over the run's own.
"""

import pandas as pd
import pytest

from raidsim.papers import catalog, paper_traces
from raidsim.papers import striping_traces as st
from raidsim.papers.reproduce_all import judged

KB = 1024
UNITS = [1 * KB, 16 * KB, 21 * KB, 1024 * KB]
# trace -> concurrency -> mean response (ms) at each of UNITS. Shares by hand: best / own.
MEANS = {
    "venus":       {1: [10, 12.5, 20, 50], 2: [10, 10, 12.5, 20]},        # 21 KB: 50 %, 80 % -> guarantee 50
    "ccm":         {1: [20, 40, 50, 25], 2: [40, 25, 20, 20]},            # 21 KB: 40 %, 100 % -> 40 at c1
    "ccm-grouped": {1: [10, 10, 10, 10], 2: [16, 10, 12.5, 8]},           # 21 KB: 100 %, 64 %
    "composite":   {1: [10, 12.5, 12.5, 20], 2: [20, 25, 10, 12.5], 4: [9, 9, 10, 18]},  # c2: 100, c4: 90
}
SHARE_21 = {"venus": {1: 50, 2: 80}, "ccm": {1: 40, 2: 100}, "ccm-grouped": {1: 100, 2: 64},
            "composite": {1: 80, 2: 100, 4: 90}}
BEST_KB = {"venus": {1: 1, 2: 1}, "ccm": {1: 1, 2: 21}, "composite": {1: 1, 2: 21, 4: 1}}


def table():
    rows = []
    for trace, by_c in MEANS.items():
        for c, means in by_c.items():
            for unit, ms in zip(UNITS, means):
                rows.append({"case": f"{trace}-c{c}", "array.stripe_unit_bytes": unit, "status": "ok",
                             "stop.mean_ns": ms * 1e6, "stop.half_width_ns": ms * 1e4, "host.mb_per_s": 1.0,
                             "stop.converged": True})
    return pd.DataFrame(rows)


def by_key(rows):
    return {(r["figure"], r["case"], r["metric"]): r for r in rows}


def test_each_share_is_the_best_mean_response_over_the_runs_own():
    t = st.shares(table())
    for trace, by_c in SHARE_21.items():
        for c, pct in by_c.items():
            got = t[(t["trace"] == trace) & (t["concurrency"] == c) & (t["unit_bytes"] == 21 * KB)]["pct_of_best"]
            assert 100 * got.item() == pytest.approx(pct), (trace, c)


def test_the_rows_hold_the_hand_made_shares_guarantees_and_best_units():
    rows = by_key(st.rows(st.shares(table())))
    figure = {v: k for k, v in st.FIGURES.items()}
    for trace, by_c in SHARE_21.items():
        for c, pct in by_c.items():
            r = rows[(figure[trace], f"{trace}, concurrency {c}", "21 KB unit, % of the best")]
            assert r["raidsim"] == pytest.approx(pct) and r["published"] is None
    for trace, by_c in BEST_KB.items():
        for c, kb in by_c.items():
            assert rows[(figure[trace], f"{trace}, concurrency {c}", "best unit (KB)")]["raidsim"] == kb
    g = "21 KB unit's guarantee (smallest % of the best)"
    assert rows[("Figure 8", "venus, every concurrency", g)]["raidsim"] == pytest.approx(50)
    assert rows[("Figure 9a", "ccm, every concurrency", g)]["raidsim"] == pytest.approx(40)
    assert rows[("Figure 9b", "ccm-grouped, every concurrency", g)]["raidsim"] == pytest.approx(64)
    # Figure 10's guarantee leaves concurrency one out: 90 (c4), not 80 (c1).
    assert rows[("Figure 10", "composite, concurrencies 2 and up", g)]["raidsim"] == pytest.approx(90)
    assert rows[("Figure 9a", "ccm, every concurrency", "concurrency of the 21 KB unit's smallest share")]["raidsim"] == 1
    # Guarantees by unit over the concurrencies, ccm: 1 KB 50, 16 KB 62.5, 21 KB 40, 1 MB 80 -> 1 MB.
    assert rows[("Figure 9a", "ccm, every concurrency", "unit guaranteeing the most (KB)")]["raidsim"] == 1024
    # composite: 1 KB min(100, 50, 100) = 50, 16 KB min(80, 40, 100) = 40, 21 KB min(80, 100, 90) = 80, 1 MB 50.
    assert rows[("Figure 10", "composite, every concurrency", "unit guaranteeing the most (KB)")]["raidsim"] == 21


def test_the_rows_are_judged_by_the_study_files_rules():
    e = catalog.entry(st.NAME)
    rows = by_key(judged(e, st.rows(st.shares(table()))))
    g = "21 KB unit's guarantee (smallest % of the best)"
    assert rows[("Figure 8", "venus, every concurrency", g)]["verdict"] == "gap"        # 50 against 66 ± 10
    assert rows[("Figure 9a", "ccm, every concurrency", g)]["verdict"] == "pass"        # 40 against 30 ± 10
    assert rows[("Figure 10", "composite, concurrencies 2 and up", g)]["verdict"] == "pass"   # 90 >= 85
    assert rows[("Figure 10", "composite, every concurrency", "unit guaranteeing the most (KB)")]["verdict"] == "pass"
    assert rows[("Figure 9a", "ccm, every concurrency", "unit guaranteeing the most (KB)")]["verdict"] == "gap"
    assert rows[("Figure 8", "venus, concurrency 2", "best unit (KB)")]["verdict"] == "pass"
    assert rows[("Figure 9b", "ccm-grouped, concurrency 1", "best unit (KB)")]["published"] is None


def test_the_traces_are_named_and_each_replaces_its_concurrency_one_stand_in():
    facts = paper_traces.known(st.NAME)
    assert set(facts) == {"venus", "ccm", "composite"} and facts["venus"].stats == {"mean_kb": 400}
    assert {t["name"]: t["case"] for t in catalog.entry(st.NAME).traces} == {
        "venus": "venus-c1", "ccm": "ccm-c1", "composite": "composite-c1"}
