"""Diff-RAID in `raidsim reliability` (parity shifted on replacement, error rates growing with wear) and
`raidsim reproduce diff-raid`, against derivations made here."""

import json
import math
import subprocess
import sys

import pytest

import raidsim
from raidsim.papers import diff_raid


def test_closed_form_ages_by_hand():
    # Rates 0.85, 0.2875 x 4 (the (80,5,5,5,5) write shares): rank k holds the rates from k on over their sum, 2.
    hours = [1 / 0.85, 1 / 0.2875, 1 / 0.2875, 1 / 0.2875, 1 / 0.2875]
    assert diff_raid.closed_form_ages(hours) == pytest.approx([1.0, 0.575, 0.43125, 0.2875, 0.14375])


def test_shifted_ages_approach_the_closed_form_and_kept_slots_do_not():
    # Without spread the ages at the 15th wear-out follow Diff-RAID's recursion toward its fixed point.
    hours = [10_000 / 0.85] + [10_000 / 0.2875] * 4
    common = dict(members=5, mttf_hours=1e15, rebuild="fixed", rebuild_hours=1e-6, wear_out_hours=hours,
                  wear_out_spread=0.0, uber=0.0, mission_years=20, lifetimes=2, progress=False)
    shifted = raidsim.reliability(replacement_wear="shift", **common).wear_at_wear_outs()
    kept = raidsim.reliability(replacement_wear="same_slot", **common).wear_at_wear_outs()
    fixed = [1.0, 0.575, 0.43125, 0.2875, 0.14375]
    last = shifted.loc[15, ["by_age_1", "by_age_2", "by_age_3", "by_age_4", "by_age_5"]].tolist()
    assert max(abs(a - b) for a, b in zip(last, fixed)) < 0.03, last
    # Slots that keep their rates: member 0 wears out while the others are at 0.338, each time.
    assert kept.loc[1, "by_age_2"] == pytest.approx(0.2875 / 0.85, abs=1e-6)
    assert list(kept["lifetimes"]) == [2] * len(kept)


def test_the_rebuild_read_error_grows_with_the_survivors_wear():
    # RAID-5 of 3, no spread: member 0 wears out every 1,000 h; members 1 and 2 (4,000 h) are then 1/4,
    # 2/4, 3/4 worn, so each rebuild reads 2 x 8e9 bits at UBER 1e-12 x (1e-8 / 1e-12)^(k/4). At 4,000 h
    # members 1 and 2 wear out together: the rebuild of the first reads worn survivors (UBER 1e-8, an error
    # for certain) and the second loses the array.
    r = raidsim.reliability(members=3, mttf_hours=1e15, rebuild="fixed", rebuild_hours=1e-6,
                            wear_out_hours=[1000, 4000, 4000], wear_out_spread=0.0, member_capacity_bytes=10**9,
                            uber=1e-12, uber_worn=1e-8, mission_years=1, lifetimes=40_000, progress=False)
    expected = sum(1 - math.exp(-2 * 8e9 * 1e-12 * 1e4 ** (k / 4)) for k in (1, 2, 3, 4))
    assert r.summary()["read_error_losses_per_lifetime"] == pytest.approx(expected, abs=0.01)
    assert r.summary()["p_array_loss"] == 1.0


def test_wear_keys_are_refused_without_wear_and_out_of_range():
    with pytest.raises(raidsim.ConfigError, match="uber_worn.*wear_out_hours"):
        raidsim.reliability(uber_worn=1e-14, lifetimes=10, progress=False)
    with pytest.raises(raidsim.ConfigError, match="replacement_wear.*wear_out_hours"):
        raidsim.reliability(replacement_wear="shift", lifetimes=10, progress=False)
    with pytest.raises(raidsim.ConfigError, match="uber_worn"):
        raidsim.reliability(members=2, wear_out_hours=[100, 200], uber=1e-14, uber_worn=1e-15, lifetimes=10,
                            progress=False)
    with pytest.raises(raidsim.ConfigError, match="replacement_wear"):
        raidsim.reliability(members=2, wear_out_hours=[100, 200], replacement_wear="rotate", lifetimes=10,
                            progress=False)


@pytest.fixture(scope="module")
def reproduction():
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "reproduce", "diff-raid", "--quick", "--json"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_the_reproduction_judges_the_abstracts_claims(reproduction):
    judged = [r for r in reproduction if r["published"] is not None]
    metrics = {r["metric"] for r in judged}
    assert metrics == {"reliability gain over RAID-5", "reliability gain over RAID-4",
                       "largest reliability gain over RAID-5", "throughput over RAID-5's"}
    gains = {r["case"]: r["raidsim"] for r in judged if r["metric"] == "reliability gain over RAID-5"}
    # The more skewed assignment is the more reliable at every growth, and both beat RAID-5.
    for growth in ("1e2", "1e4", "1e6"):
        mild = gains[f"Diff-RAID (40,15,15,15,15), error rate ×{growth} over life"]
        skewed = gains[f"Diff-RAID (80,5,5,5,5), error rate ×{growth} over life"]
        assert 1 < mild < skewed, (growth, mild, skewed)
    throughput = {r["case"]: r["raidsim"] for r in judged if r["metric"] == "throughput over RAID-5's"}
    assert throughput["Diff-RAID (80,5,5,5,5)"] < throughput["Diff-RAID (40,15,15,15,15)"] < 1


def test_the_simulated_wear_follows_the_parity_shares():
    # Member i of RAID-5 of 5 takes p_i + (1 - p_i) / 4 of the small writes: 0.85 against 0.2875 at (80,5,5,5,5),
    # and 1.0 against 0.25 for RAID-4; its erases follow, within 10 %.
    for shares, ratio in (([80, 5, 5, 5, 5], 0.85 / 0.2875), ([100, 0, 0, 0, 0], 4.0)):
        run = diff_raid.simulate_wear({"shares": shares})
        others = sum(run["erases"][1:]) / 4
        assert run["erases"][0] / others == pytest.approx(ratio, rel=0.10), run["erases"]
