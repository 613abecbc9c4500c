"""The reliability study of docs/reliability.md (RAID-5 of 8 SSDs on SSDsim's example trace, wear and rebuild
simulated, scaled to 4 TB members) against its closed form: at this load no member wears out within the
mission, so RAID-5 loses data when a rebuild meets an unrecoverable error."""

import math

import pytest

import raidsim
from raidsim import Workload
from raidsim.tools.endurance import reliability_inputs

DRIVES = {"array.level": "raid5", "array.members": 8, "array.stripe_unit_bytes": 65536, "ssd.geometry.channels": 2,
          "ssd.geometry.blocks_per_plane": 64, "precondition.fill_fraction": 0.9,
          "precondition.random_overwrite_factor": 1.0}


def test_raid5_of_8_loses_data_as_often_as_its_rebuilds_meet_a_read_error(traces_dir):
    trace = Workload.trace(traces_dir / "ssdsim-example.ascii", time_scale=0.1)
    wear = raidsim.simulate(None, trace, overrides=DRIVES, progress=False).to_dict()
    failed = raidsim.simulate(None, trace, overrides={**DRIVES, "array.spares": 1,
                                                      "array.failures": [{"member": 3, "at_request": 5000}]},
                              progress=False).to_dict()
    tb4 = 4_000_000_000_000
    keys, _ = reliability_inputs(wear, pe_cycles=3000, capacity_bytes=tb4)
    rebuild = reliability_inputs(failed, 3000, capacity_bytes=tb4)[0]["rebuild_hours"]
    # The rebuild under load, scaled: the run's rebuild of its small member, times the capacity ratio.
    f = failed["rebuild"]["failures"][0]
    assert rebuild == pytest.approx((f["rebuild_end_ns"] - f["at_ns"]) / 3.6e12 * tb4 / failed["devices"][0]["capacity_bytes"])
    assert min(keys["wear_out_hours"]) > 3 * 5 * 8766, "no wear-out within the mission at this load"
    s = raidsim.reliability({**keys, "rebuild_hours": rebuild}, uber=1e-15, rebuild="fixed", lifetimes=1_000_000,
                            progress=False).summary()
    # Failures: Poisson with mean 8 x 5 years / 1.5e6 h; each rebuild reads 7 x 4 TB at UBER 1e-15.
    failures = 8 * 5 * 8766 / 1.5e6
    p_error = 1 - math.exp(-7 * tb4 * 8 * 1e-15)
    expected = 1 - math.exp(-failures * p_error)
    assert s["p_loss_low"] - 0.0005 <= expected <= s["p_loss_high"] + 0.0005, (s["p_loss"], expected)
