"""The consumer drive presets held against their data sheets.

``bench/consumer_ssd_presets.py`` measures each figure as below (the command
``python bench/consumer_ssd_presets.py``); each preset's comments give the
data sheet's sources, which of its timings were calibrated to which figure,
and why the gaps are there.
"""
from __future__ import annotations

import importlib.util
import pathlib

import pytest

import raidsim


def _bench():
    path = pathlib.Path(__file__).resolve().parent.parent / "bench" / "consumer_ssd_presets.py"
    spec = importlib.util.spec_from_file_location("consumer_ssd_presets", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench()


@pytest.fixture(scope="module")
def figures():
    return {p: BENCH.measure(p) for p in BENCH.DATA_SHEET}


def _off(figures, preset, key):
    return figures[preset][key] / BENCH.DATA_SHEET[preset][key] - 1


@pytest.mark.parametrize("preset", ["samsung-970-evo-plus-1tb", "intel-660p-1tb"])
def test_writes_inside_the_slc_cache_run_at_the_data_sheets_rate(figures, preset):
    # Calibrated: the program in SLC mode was set to meet this figure.
    assert abs(_off(figures, preset, "write_in_cache_mb_per_s")) < 0.01


def test_the_tlc_drive_writes_past_its_cache_at_the_data_sheets_rate(figures):
    # Calibrated: the TLC program was set to meet the footnote's 1,700 MB/s.
    assert abs(_off(figures, "samsung-970-evo-plus-1tb", "write_past_cache_mb_per_s")) < 0.01


def test_the_qlc_drive_past_its_cache_writes_about_as_slowly_as_quoted(figures):
    # Not calibrated: the chip's 12 MB/s (ISSCC 2018) and the folds give 91 MB/s; quoted "about 100".
    off = _off(figures, "intel-660p-1tb", "write_past_cache_mb_per_s")
    assert -0.15 < off < 0.0, off


def test_the_tlc_drives_queue_depth_one_reads_follow_from_its_50_us_read(figures):
    # Not calibrated: the press release's 50 us read, the channel and the link give 18,485 IOPS.
    assert abs(_off(figures, "samsung-970-evo-plus-1tb", "random_read_qd1_iops")) < 0.05


def test_sequential_reads_meet_the_data_sheet(figures):
    # The TLC drive's link caps them; the QLC drive's channel rate was calibrated to them.
    for preset in ("samsung-970-evo-plus-1tb", "intel-660p-1tb"):
        assert abs(_off(figures, preset, "sequential_read_mb_per_s")) < 0.01, preset


def test_the_gaps_stay_as_the_presets_state_them(figures):
    # A 4 KiB write programs a whole 16 KiB page here: the stated gaps. A
    # change that closes them must restate them in the presets and docs.
    assert -0.30 < _off(figures, "samsung-970-evo-plus-1tb", "random_read_qd32_iops") < -0.20
    assert -0.70 < _off(figures, "samsung-970-evo-plus-1tb", "random_write_qd32_iops") < -0.60


def test_the_tlc_drives_random_writes_beside_the_measured_drive(figures):
    # Not calibrated: the DRAM buffer acknowledges them, the flash drains it at its rate. The
    # data sheet's 60,000 IOPS at queue depth 1 is far below what the drive was measured at.
    measured = BENCH.MEASURED["samsung-970-evo-plus-1tb"]
    qd1 = figures["samsung-970-evo-plus-1tb"]["random_write_qd1_iops"] / measured["random_write_qd1_iops"] - 1
    assert 0.0 < qd1 < 0.25, qd1
    qd32 = figures["samsung-970-evo-plus-1tb"]["random_write_qd32_iops"] / measured["random_write_qd32_iops"] - 1
    assert -0.55 < qd32 < -0.40, qd32


def test_the_caches_hold_what_the_presets_say():
    for preset, cache_bytes in (("samsung-970-evo-plus-1tb", 6e9), ("intel-660p-1tb", 12e9)):
        held = BENCH.DATA_SHEET[preset]["cache_bytes"]
        assert abs(held / cache_bytes - 1) < 0.02, preset
        # Blocks per plane x planes x pages a block in SLC mode x page size.
        ssd = raidsim.Config.preset(preset).resolved()["ssd"]
        g = ssd["geometry"]
        planes = g["channels"] * g["chips_per_channel"] * g["dies_per_chip"] * g["planes_per_die"]
        bits = {"tlc": 3, "qlc": 4}[g["cell_type"]]
        assert ssd["slc_cache"]["blocks_per_plane"] * planes * (g["pages_per_block"] // bits) * g["page_size_bytes"] == held
