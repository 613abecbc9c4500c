"""The disk presets against real drives' measured responses (DiskSim's validation traces).

The traces are DiskSim's (`valid/cheetah9LP.trace`, `valid/atlas_III.trace` of
github.com/benh/disksim), not ours to ship: set RAIDSIM_DISKSIM_VALID to a
checkout's `valid/` folder to run these; without it they skip, saying so.
Recorded with the caches on (`python bench/disk_validation.py DISKSIM/valid`):
Cheetah 9LP read 5.685 ms against 5.804 measured, write 1.304 against 1.308,
demerit 0.139 ms (DiskSim 0.107); Atlas III read 8.777 against 9.044, write
1.087 against 1.104, demerit 0.328 (DiskSim 0.378).
"""

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

VALID = Path(os.environ.get("RAIDSIM_DISKSIM_VALID", "/nonexistent"))
pytestmark = pytest.mark.skipif(
    not (VALID / "cheetah9LP.trace").is_file(),
    reason="DiskSim's validation traces are not here: set RAIDSIM_DISKSIM_VALID to a benh/disksim checkout's valid/",
)


def _bench():
    path = Path(__file__).parents[1] / "bench" / "disk_validation.py"
    spec = importlib.util.spec_from_file_location("disk_validation", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("stem, preset, disksim_demerit", _bench().DRIVES if (VALID / "cheetah9LP.trace").is_file() else [])
def test_preset_matches_the_measured_drive(stem, preset, disksim_demerit):
    bench = _bench()
    trace = VALID / f"{stem}.trace"
    rows = [line.split() for line in trace.read_text().splitlines() if line.strip()]
    real = np.array([float(r[4]) / 1000 for r in rows])
    ops = np.array([r[0] for r in rows])
    ours = bench.replay(trace, preset, [])
    for op in ("R", "W"):
        assert abs(ours[ops == op].mean() / real[ops == op].mean() - 1) < 0.10, op
    assert bench.demerit_ms(real, ours) <= 2 * disksim_demerit
    # Without its cache the drive's writes are several times slower than measured.
    off = bench.replay(trace, preset, ["hdd.cache.enabled=false"])
    assert off[ops == "W"].mean() > 4 * real[ops == "W"].mean()


def test_demerit_is_zero_for_one_distribution_and_the_shift_for_a_shifted_one():
    bench = _bench()
    x = np.random.default_rng(1).exponential(5.0, 10_000)
    assert bench.demerit_ms(x, x) == 0.0
    assert bench.demerit_ms(x, x + 0.25) == pytest.approx(0.25)
