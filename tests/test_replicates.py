"""Replicates and 95 % confidence intervals in studies (issue #12: the RAIS
paper repeats every experiment five times and draws 95 % intervals)."""

import math

import pandas as pd
import pytest

from raidsim.study import Study, StudyError, replicates, run_study


def test_t_quantiles_match_the_published_table():
    # Two-sided 95 % critical values of Student's t (any statistics table).
    for df, t in [(1, 12.706), (4, 2.776), (9, 2.262), (30, 2.042)]:
        assert replicates.t_quantile(0.975, df) == pytest.approx(t, abs=5e-4)


def test_interval_of_one_to_five_by_hand():
    got = replicates.interval([1, 2, 3, 4, 5])
    # s^2 = (4 + 1 + 0 + 1 + 4) / 4 = 2.5; half = 2.776 x sqrt(2.5) / sqrt(5) = 1.963.
    assert got["n"] == 5 and got["mean"] == 3.0
    assert got["std"] == pytest.approx(math.sqrt(2.5))
    assert got["ci_half_width"] == pytest.approx(1.9632, abs=1e-3)
    assert replicates.interval([7.0]) == {"n": 1, "mean": 7.0, "std": None, "ci_half_width": None}
    assert replicates.interval([float("nan"), 2.0, 4.0])["n"] == 2
    assert replicates.interval([pd.NA, None, 2, 4]) == replicates.interval([2.0, 4.0])


SPEC = {
    "name": "rep",
    "metrics": ["host.iops", "host.response.mean_ns"],
    "base": {"sim": {"seed": 40}, "ssd": {"geometry": {"blocks_per_plane": 64}},
             "workload": {"kind": "synthetic", "requests": 300, "read_fraction": 0.5, "processes": 4}},
    "axes": {"workload.size.mean_bytes": [4096, 16384]},
}


def test_a_study_of_three_replicates_runs_three_seeds_per_point_and_summarizes_them(tmp_path):
    study = Study.from_dict({**SPEC, "replicates": 3})
    points = study.points()
    assert len(points) == 6
    assert [p.settings["sim.seed"] for p in points] == [40, 41, 42, 40, 41, 42]
    table = run_study(study, tmp_path, workers=1, progress=False)
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert len(summary) == 4  # 2 points x 2 metrics
    for size in (4096, 16384):
        runs = table[table["workload.size.mean_bytes"] == size]["host.iops"].tolist()
        assert len(set(runs)) == 3, f"three seeds gave {runs}: replicates must differ"
        row = summary[(summary["workload.size.mean_bytes"] == size) & (summary["metric"] == "host.iops")].iloc[0]
        mean = sum(runs) / 3
        s = math.sqrt(sum((x - mean) ** 2 for x in runs) / 2)
        assert row["n"] == 3
        assert row["mean"] == pytest.approx(mean)
        assert row["ci_half_width"] == pytest.approx(4.303 * s / math.sqrt(3), rel=1e-3)  # t(0.975, 2) = 4.303
    # Asked once again without replicates, the old summary goes: it would describe runs no longer asked for.
    run_study(Study.from_dict(SPEC), tmp_path, workers=1, progress=False)
    assert not (tmp_path / "summary.csv").exists()


@pytest.mark.parametrize("bad, says", [
    ({"replicates": 0}, "whole number from 1"),
    ({"replicates": 2.5}, "whole number from 1"),
    ({"replicates": True}, "whole number from 1"),
    ({"replicates": 2, "axes": {"sim.seed": [1, 2]}}, "set the first seed in [base.sim]"),
])
def test_bad_replicates_are_refused_naming_the_key(bad, says):
    with pytest.raises(StudyError, match="replicates") as e:
        Study.from_dict({**SPEC, **bad})
    assert says in str(e.value)
