"""Chen & Lee's Figures 2-3: §4's observations judged on hand-made runs, and the figures drawn (no sweep runs)."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest

from raidsim.papers import catalog, reproduce_all, striping
from raidsim.papers.striping_observations import observations, pairs

KB = 1024
SIZES = ["exp4KB", "exp16KB"]
CASE = "IBM Lightning, 17 disks"
# MB/s by (op, unit KB, concurrency, size), every run known to ±5 % unless E says otherwise. Built so that each
# kind of pair occurs once: a rise, a fall inside both runs' intervals, a fall beyond them.
MB = {
    ("read", 1, 1, "exp4KB"): 1.0, ("read", 1, 1, "exp16KB"): 2.0,
    ("read", 1, 4, "exp4KB"): 2.0, ("read", 1, 4, "exp16KB"): 4.0,
    ("read", 4, 1, "exp4KB"): 1.0, ("read", 4, 1, "exp16KB"): 2.0,
    ("read", 4, 4, "exp4KB"): 0.98, ("read", 4, 4, "exp16KB"): 4.0,     # 1.0 -> 0.98: inside the intervals
    ("write", 1, 1, "exp4KB"): 0.5, ("write", 1, 1, "exp16KB"): 2.05,  # above the read's 2.0, inside
    ("write", 1, 4, "exp4KB"): 0.4, ("write", 1, 4, "exp16KB"): 1.6,   # 0.5 -> 0.4 and 2.05 -> 1.6: beyond
    ("write", 4, 1, "exp4KB"): 0.5, ("write", 4, 1, "exp16KB"): 1.2,
    ("write", 4, 4, "exp4KB"): 0.6, ("write", 4, 4, "exp16KB"): 1.1,   # 1.2 -> 1.1: inside
}
E = 0.05


def _runs() -> pd.DataFrame:
    return pd.DataFrame([{"op": op, "unit_bytes": u * KB, "concurrency": c, "size": s, "mb_per_s": v,
                          "rel_half_width": E} for (op, u, c, s), v in MB.items()])


def test_pairs_compare_the_runs_that_differ_in_one_thing():
    p = pairs(_runs(), "concurrency", SIZES, "write")
    assert len(p) == 4 and set(p["from"]) == {1} and set(p["to"]) == {4}
    fall = p[(p["unit_bytes"] == KB) & (p["size"] == "exp4KB")].iloc[0]
    assert (fall["low"], fall["high"]) == (0.5, 0.4)
    assert fall["low_lo"] == pytest.approx(0.5 / 1.05) and fall["high_hi"] == pytest.approx(0.4 / 0.95)
    rw = pairs(_runs(), "read_over_write", SIZES)
    assert len(rw) == 8 and set(rw["from"]) == {"write"} and set(rw["to"]) == {"read"}
    with pytest.raises(ValueError, match="unknown claim"):
        pairs(_runs(), "rotation", SIZES)


def test_each_observation_is_the_share_of_pairs_not_contradicted_beyond_both_intervals():
    rows = observations(_runs(), striping.spec()["observations"], SIZES, CASE)
    got = {(r["figure"], r["case"], r["metric"]): (r["raidsim"], r["held"], r["rose"], r["falls_beyond"])
           for r in rows}
    # Counted by hand from MB above: 4 pairs per claim and op, 8 read/write points.
    assert got == {
        ("Figure 2", f"{CASE}, reads", "throughput rises with request size (% of pairs)"): (100.0, 4, 4, 0),
        ("Figure 2", f"{CASE}, reads", "throughput rises with concurrency (% of pairs)"): (100.0, 4, 3, 0),
        ("Figure 3", f"{CASE}, writes", "throughput rises with request size (% of pairs)"): (100.0, 4, 4, 0),
        ("Figure 3", f"{CASE}, writes", "throughput rises with concurrency (% of pairs)"): (50.0, 2, 1, 2),
        ("Figure 3", f"{CASE}, reads, writes", "write throughput below read (% of points)"): (100.0, 8, 7, 0),
    }
    assert all(r["published"] == 100 for r in rows)
    worst = next(r for r in rows if r["falls_beyond"])["note"]
    assert worst.startswith("2 of 4 contradict it") and "concurrency 1 2.05 → 4 1.60 MB/s (×0.78)" in worst
    assert "at exp16KB, 1 KB unit" in worst


def test_the_catalog_judges_the_rows_within_one_point_of_100_percent():
    e = catalog.entry("striping-coefficients")
    assert {"Figure 2", "Figure 3"} <= set(e.covers)
    assert "Figure 2" not in dict(e.paper.outside_catalog) and "Figure 3" not in dict(e.paper.outside_catalog)
    for figure, ours, verdict in (("Figure 2", 100.0, "pass"), ("Figure 3", 99.0, "pass"),
                                  ("Figure 3", 98.33, "gap"), ("Figure 3", 50.0, "gap")):
        rule = e.rule_for(figure, CASE, "throughput rises with concurrency (% of pairs)")
        assert (rule.name, catalog.judge(ours, 100, rule)) == ("absolute", verdict)


def test_reproduce_all_sets_the_observations_beside_100_percent(tmp_path, monkeypatch):
    obs = observations(_runs(), striping.spec()["observations"], SIZES, CASE)
    result = {"rows": [], "by_disks": [], "quick": True, "observations": obs}
    monkeypatch.setattr(striping, "striping_coefficients", lambda *a, **k: result)
    monkeypatch.setattr(striping, "plot_striping", lambda *a, **k: [])
    res = reproduce_all.run_entry(catalog.entry("striping-coefficients"),
                                  reproduce_all.RunContext(str(tmp_path), quick=True))
    assert res.status == "ok", res.trace
    rows = [(r["figure"], r["raidsim"], r["published"], r["unit"], r["verdict"]) for r in res.rows
            if r["figure"] in ("Figure 2", "Figure 3")]
    assert rows == [("Figure 2", 100.0, 100.0, "%", "pass"), ("Figure 2", 100.0, 100.0, "%", "pass"),
                    ("Figure 3", 100.0, 100.0, "%", "pass"), ("Figure 3", 50.0, 100.0, "%", "gap"),
                    ("Figure 3", 100.0, 100.0, "%", "pass")]
    text = "\n".join(striping.observations_text(obs))
    assert "throughput rises with concurrency (% of pairs)      50.00 / 100  gap (±1 point)" in text


def test_figures_2_to_5_are_drawn_from_the_runs(tmp_path):
    rows = []
    for op, size, u, c in itertools.product(("read", "write"), striping.spec()["sizes"], (1, 4, 16, 64), (1, 4, 12)):
        mb = (2.0 if op == "read" else 1.0) * c ** 0.5 * (1 + list(striping.spec()["sizes"]).index(size)) / (1 + u / 64)
        rows.append({"op": op, "size": size, "unit_bytes": u * KB, "concurrency": c, "mb_per_s": mb})
    t = pd.DataFrame(rows)
    t["pct_of_best"] = t["mb_per_s"] / t.groupby(["op", "size", "concurrency"])["mb_per_s"].transform("max")
    paths = striping.plot_striping({"runs": {"hdd-ibm-lightning": t}, "by_disks": []}, str(tmp_path))
    assert [p.rsplit("/", 1)[-1] for p in paths] == [f"figure{n}-hdd-ibm-lightning.png" for n in (2, 3, 4, 5)]
    assert all((tmp_path / p.rsplit("/", 1)[-1]).stat().st_size > 10_000 for p in paths)
