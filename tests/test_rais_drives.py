"""The RAIS paper's drives as presets (issue #12): the peaks its text gives
(Figure 1), the shapes it describes (Figure 2), and Table 2's data."""

import pytest

from raidsim import Config
from raidsim.api import simulate
from raidsim.papers import rais


def _drives():
    return {d["label"]: d for d in rais.spec()["drives"]}


def test_every_sequential_peak_is_within_15_percent_of_the_paper():
    rows = rais.figure1_peaks()
    assert len(rows) == 6
    for r in rows:
        assert abs(r["raidsim"] / r["paper"] - 1) <= 0.15, r


@pytest.mark.parametrize("label", ["SSD(A)", "SSD(B)", "SSD(C)"])
def test_presets_carry_table2s_price_and_capacity(label):
    d = _drives()[label]
    resolved = Config.preset(d["preset"]).resolved()
    assert resolved["ssd"]["price_usd"] == d["price_usd"]
    # Table 2's capacity in decimal GB, to the gigabyte.
    assert round(resolved["derived"]["capacity_bytes"] / 1e9) == d["capacity_gb"]


def _random_iops(preset: str, read: bool, queue_depth: int) -> float:
    # Figure 2's benchmark: 4 KiB requests, random in a 1 GiB space.
    workload = {"kind": "synthetic", "requests": 4000, "processes": queue_depth, "read_fraction": 1.0 if read else 0.0,
                "address": "uniform", "span_bytes": 1 << 30, "size": {"kind": "fixed", "mean_bytes": 4096}}
    return simulate(Config.preset(preset).with_workload(workload), progress=False).to_dict()["host"]["iops"]


QUEUE_DEPTHS = [1, 4, 16, 64]


def test_ssd_a_random_writes_stay_flat_with_queue_depth_and_below_its_reads():
    writes = [_random_iops("rais-ssd-a", False, q) for q in QUEUE_DEPTHS]
    reads = [_random_iops("rais-ssd-a", True, q) for q in QUEUE_DEPTHS]
    assert max(writes) / min(writes) < 1.05, writes
    assert all(w < r for w, r in zip(writes, reads)), (writes, reads)
    assert reads[-1] > 2 * reads[0], f"reads scale with queue depth: {reads}"
    # Table 5: six of them wrote 9,472 IOPS, 1,579 each; the model's ceiling is 1 / 630 us.
    assert writes[-1] == pytest.approx(9472 / 6, rel=0.05)


@pytest.mark.parametrize("preset, depths", [("rais-ssd-b", QUEUE_DEPTHS), ("rais-ssd-c", [1, 4, 16])])
def test_ssd_b_and_c_random_writes_beat_their_reads(preset, depths):
    # SSD(C) only to depth 16: Table 5's write IOPS and Fusion-io's read IOPS put reads ahead beyond (see the preset).
    for q in depths:
        w, r = _random_iops(preset, False, q), _random_iops(preset, True, q)
        assert w > r, f"queue depth {q}: writes {w:.0f} vs reads {r:.0f}"


def test_ssd_b_outperforms_ssd_a_at_random_reads_and_writes():
    for q in QUEUE_DEPTHS:
        for read in (True, False):
            assert _random_iops("rais-ssd-b", read, q) > _random_iops("rais-ssd-a", read, q), (q, read)
