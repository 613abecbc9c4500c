"""Diff-RAID's uneven parity, `array.parity_distribution`: where parity goes, the writes it draws, a
rebuild under it, and bad shares refused by key."""

import pytest

import raidsim
from raidsim import Workload

UNIT = 4096


def one_write_per_unit(stripes, data_units=4):
    """A 4 KiB write to every data unit of the first `stripes` stripes, in order, 1 ms apart."""
    units = [(s, d) for s in range(stripes) for d in range(data_units)]
    return Workload.requests([(i * 1_000_000, "W", (s * data_units + d) * UNIT, UNIT) for i, (s, d) in enumerate(units)])


def raid5(shares, **array):
    return {"array": {"level": "raid5", "members": 5, "stripe_unit_bytes": UNIT, "parity_distribution": shares, **array}}


@pytest.mark.parametrize("mode", ["count", "simulate"])
def test_one_write_per_unit_of_a_cycle_by_hand(mode):
    # (70, 10, 10, 10, 0) repeats every 10 stripes: member 0 holds 7 parities, members 1-3 one each,
    # member 4 none. Each single-unit write programs its data unit and its stripe's parity, so a member
    # takes 4 writes per parity it holds and one per stripe in which it holds data:
    # member 0: 3 + 4 x 7 = 31; members 1-3: 9 + 4 = 13; member 4: 10.
    cfg, work = raid5([0.7, 0.1, 0.1, 0.1, 0.0]), one_write_per_unit(10)
    if mode == "count":
        written = raidsim.count(cfg, work).pages_written()
    else:
        written = [sum(d["pages_written"].values()) for d in raidsim.simulate(cfg, work).to_dict()["devices"]]
    assert list(written) == [31, 13, 13, 13, 10]


def test_the_even_split_is_a_right_rotation_and_all_on_one_member_is_raid4():
    work = Workload.synthetic(requests=3000, read_fraction=0.3)
    def members(cfg):
        return [(d["pages_written"], d["pages_read"]) for d in raidsim.simulate(cfg, work).to_dict()["devices"]]
    assert members(raid5([0.2] * 5, layout="right_asymmetric")) == members(raid5([], layout="right_asymmetric"))
    raid4 = {"array": {"level": "raid4", "members": 5, "stripe_unit_bytes": UNIT}}
    assert members(raid5([0.0, 0.0, 0.0, 0.0, 1.0], layout="left_asymmetric")) == members(raid4)


def test_random_small_writes_age_members_by_their_parity_share():
    # Each 4 KiB random write programs one data unit and its parity: member i takes a share
    # p_i + (1 - p_i) / (n - 1) of the 2 x 20,000 page writes (Diff-RAID's premise).
    shares = [0.7, 0.1, 0.1, 0.1, 0.0]
    work = Workload.synthetic(requests=20_000, read_fraction=0.0, size={"kind": "fixed", "mean_bytes": UNIT}, alignment_bytes=UNIT)
    d = raidsim.simulate(raid5(shares), work).to_dict()["devices"]
    written = [sum(m["pages_written"].values()) for m in d]
    for w, p in zip(written, shares):
        expected = 20_000 * (p + (1 - p) / 4)
        assert w == pytest.approx(expected, rel=0.03), (written, p)


def test_a_parity_heavy_member_is_rebuilt_true_to_the_byte():
    overrides = {
        "ssd.geometry.channels": 1, "ssd.geometry.planes_per_die": 1, "ssd.geometry.blocks_per_plane": 32,
        "ssd.geometry.pages_per_block": 64, "array.level": "raid5", "array.members": 5,
        "array.stripe_unit_bytes": 16384, "array.parity_distribution": [0.6, 0.1, 0.1, 0.2, 0.0],
        "array.spares": 1, "array.failures": [{"member": 0, "at_request": 1000}], "sim.verify": True,
        "workload.requests": 3000, "workload.read_fraction": 0.5, "workload.mean_interarrival_ns": 400000,
    }
    d = raidsim.simulate(None, overrides=overrides).to_dict()
    assert d["verify"]["mismatches"] == 0 and d["verify"]["sectors_checked_on_reads"] > 0 and d["verify"]["redundancy_checked_after_run"] > 0
    rb = d["rebuild"]
    assert rb["lost_bytes"] == d["array"]["capacity_bytes"] // 4 == rb["stripes_rebuilt"] * 16384


@pytest.mark.parametrize("shares, level, key, message", [
    ([0.5, 0.2, 0.2, 0.0, 0.0], "raid5", "array.parity_distribution", "sum to 0.9"),
    ([0.5, 0.5], "raid5", "array.parity_distribution", "2 shares for 5 members"),
    ([1.2, -0.2, 0.0, 0.0, 0.0], "raid5", r"array.parity_distribution\[1\]", ">= 0"),
    ([0.1234, 0.8766, 0.0, 0.0, 0.0], "raid5", r"array.parity_distribution\[0\]", "common denominator"),
    ([0.2] * 5, "raid6", "array.parity_distribution", "RAID-5"),
    ([0.2] * 5, "raid4", "array.parity_distribution", "RAID-5"),
])
def test_bad_shares_are_refused_by_key(shares, level, key, message):
    cfg = {"array": {"level": level, "members": 5, "parity_distribution": shares}}
    with pytest.raises(raidsim.ConfigError, match=f"{key}.*{message}"):
        raidsim.simulate(cfg, Workload.synthetic(requests=10))
