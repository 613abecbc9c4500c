"""Cost efficiency (issue #12, the RAIS paper's §5.4): prices as data, per-dollar metrics in reports and sweeps."""

import re

import pytest

from raidsim import Config
from raidsim.api import simulate
from raidsim.papers import rais
from raidsim.study import Study, run_study



def test_prices_and_table5_are_the_papers(rais_paper_text):
    text = rais_paper_text
    sp = rais.spec()
    assert "Price (\\$)\t415\t799\t13,990" in text
    assert [d["price_usd"] for d in sp["drives"]] == [415, 799, 13990]
    assert f"controller is \\${sp['controller_price_usd']}" in text
    # Table 5's rows come out of the PDF with split digits: compare digit strings.
    for label, values in sp["table5"]["iops"].items():
        line = next(l.replace("\t", "") for l in text.splitlines() if l.replace("\t", "").startswith(label))
        digits = re.sub(r"\D", "", line[len(label):])
        assert digits == "".join(str(v) for v in values), label


def test_table6_configurations_cost_what_the_paper_paid():
    # By hand: 6 x $415 + $579, 6 x $799 + $579, one $13,990 card.
    assert rais.configuration_costs() == {"RAIS-0(A)": 3069, "RAIS-0(B)": 5373, "SSD(C)": 13990}


def test_figure7_claims_hold_on_the_papers_own_table5():
    rows = {(r["configuration"], r["read_percent"]): r for r in rais.figure7_from_table5()}
    per = lambda c, reads: rows[(c, reads)]["iops_per_usd"]  # noqa: E731
    # "On write-dominant access patterns (e.g. 0-20% reads) SSD(C) outperforms RAIS-0(A) by 300% and
    # RAIS-0(B) by 30%": at 0 % reads C/B = 1.32 and C/A = 3.25 (so "300%" reads as about 3x, not 4x);
    # at 20 % the order holds, the margins shrink (1.25 and 1.76).
    for reads, c_over_b, c_over_a in ((0, 1.318, 3.255), (20, 1.252, 1.762)):
        assert per("SSD(C)", reads) > per("RAIS-0(B)", reads) > per("RAIS-0(A)", reads)
        assert per("SSD(C)", reads) / per("RAIS-0(B)", reads) == pytest.approx(c_over_b, abs=0.001)
        assert per("SSD(C)", reads) / per("RAIS-0(A)", reads) == pytest.approx(c_over_a, abs=0.001)
    # "SSD(C) is less efficient than RAIS-0(B) as reads in workload exceed 40%."
    assert all(per("RAIS-0(B)", r) > per("SSD(C)", r) for r in (60, 80, 100))
    # "On read-dominant access patterns, RAIS-0(A) has twice the efficiency of SSD(C)."
    assert per("RAIS-0(A)", 100) / per("SSD(C)", 100) > 2
    # Figure 7 is normalised to RAIS-0(B) at each read share: RAIS-0(A) at 100 % reads, by hand,
    # (28,416 / 3,069) / (32,256 / 5,373) = 1.542.
    assert rows[("RAIS-0(A)", 100)]["iops_per_usd_vs_rais0b"] == pytest.approx(1.542, abs=0.001)
    # 7(c): RAIS-0(A) gives the most GB per dollar.
    gb = {c: rows[(c, 0)]["gb_per_usd"] for c in ("RAIS-0(A)", "RAIS-0(B)", "SSD(C)")}
    assert max(gb, key=gb.get) == "RAIS-0(A)" and gb["RAIS-0(A)"] == pytest.approx(768 / 3069)


def test_two_claims_of_the_text_that_its_table5_does_not_bear_out():
    # Said in the guide (docs/reproductions/rais.md): "the efficiency of RAIS-0(A) increases as reads increase" is not monotone, and
    # "around 60% reads ... RAIS-0(A) is more economically efficient than SSD(C)" has SSD(C) ahead there.
    per = {(r["configuration"], r["read_percent"]): r["iops_per_usd"] for r in rais.figure7_from_table5()}
    a = [per[("RAIS-0(A)", reads)] for reads in (0, 20, 40, 60)]
    assert a[1] > a[2] > a[3]
    assert per[("SSD(C)", 60)] / per[("RAIS-0(A)", 60)] == pytest.approx(1.153, abs=0.001)


def test_a_priced_run_reports_per_dollar_figures_and_prints_them():
    cfg = Config.from_dict({"array": {"level": "raid0", "members": 6, "controller": {"price_usd": 579}},
                            "ssd": {"price_usd": 415, "geometry": {"blocks_per_plane": 64}},
                            "workload": {"requests": 500}})
    r = simulate(cfg, progress=False)
    c = r.to_dict()["cost"]
    host = r.to_dict()["host"]
    assert (c["total_usd"], c["drives_usd"], c["controller_usd"]) == (3069, 2490, 579)
    assert c["iops_per_usd"] == pytest.approx(host["iops"] / 3069, rel=1e-12)
    assert "Cost $3,069.00 (drives $2,490.00 + controller $579.00)" in r.to_text()
    unpriced = simulate(cfg.set("ssd.price_usd", 0).set("array.controller.price_usd", 0), progress=False)
    assert unpriced.to_dict()["cost"] is None and "Cost $" not in unpriced.to_text()


def test_cost_metrics_are_sweep_columns(tmp_path):
    study = Study.from_dict({
        "name": "priced", "base": {"ssd": {"price_usd": 415, "geometry": {"blocks_per_plane": 64}},
                                   "workload": {"requests": 300}},
        "metrics": ["host.iops", "cost.iops_per_usd", "cost.total_usd"],
        "cases": [{"name": "single", "axes": False, "set": {}},
                  {"name": "raid0", "set": {"array.level": "raid0", "array.controller.price_usd": 579}}],
        "axes": {"array.members": [2, 4]},
    })
    t = run_study(study, tmp_path, workers=1, progress=False)
    assert list(t["cost.total_usd"]) == [415, 2 * 415 + 579, 4 * 415 + 579]
    assert (t["cost.iops_per_usd"] - t["host.iops"] / t["cost.total_usd"]).abs().max() < 1e-9


def test_throughput_steadiness_is_a_sweep_column(tmp_path):
    # Tables 3-4 of the RAIS paper: mean and deviation of bandwidth per interval.
    study = Study.from_dict({
        "name": "steady", "base": {"workload": {"requests": 3000}, "metrics": {"interval_ns": 100_000_000},
                                   "ssd": {"geometry": {"blocks_per_plane": 64}}},
        "metrics": ["time_series.steadiness.mb_per_s_mean", "time_series.steadiness.mb_per_s_std",
                    "time_series.steadiness.intervals"],
        "axes": {"workload.read_fraction": [0.0, 1.0]},
    })
    t = run_study(study, tmp_path, workers=1, progress=False)
    assert (t["time_series.steadiness.intervals"] >= 2).all()
    assert (t["time_series.steadiness.mb_per_s_std"] > 0).all()
    r = simulate(study.config(study.points()[0]), progress=False).time_series()
    whole = r["mb_per_s"][:-1]
    assert t["time_series.steadiness.mb_per_s_mean"][0] == pytest.approx(whole.mean(), rel=1e-9)
    assert t["time_series.steadiness.mb_per_s_std"][0] == pytest.approx(whole.std(ddof=1), rel=1e-9)
