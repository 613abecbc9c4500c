"""`raidsim.reliability` and `raidsim reliability` against Markov chains built here, independently of the
core's: RAID-6's (three failures lose it) and RAID-10's, solved with numpy for the MTTDL and with the matrix
exponential for the probability of loss within the mission; and the read-error closed form."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.linalg import expm

import raidsim

HOURS_PER_YEAR = 8766


def generator_raid6(n, lam, mu):
    """States 0, 1, 2 members failed, 3 = lost (absorbing); each failed member rebuilt on its own."""
    q = np.zeros((4, 4))
    for k in range(3):
        q[k, k + 1] = (n - k) * lam
        if k:
            q[k, k - 1] = k * mu
    np.fill_diagonal(q, -q.sum(axis=1))
    return q


def generator_raid10(groups, lam, mu):
    """Mirrored pairs: state = pairs with one member failed (0..groups), plus lost; a pair's survivor failing
    loses the array."""
    size = groups + 2
    q = np.zeros((size, size))
    lost = groups + 1
    for d in range(groups + 1):
        if d < groups:
            q[d, d + 1] = 2 * (groups - d) * lam
        q[d, lost] = d * lam
        if d:
            q[d, d - 1] = d * mu
    np.fill_diagonal(q, -q.sum(axis=1))
    return q


def mttdl(q):
    transient = q[:-1, :-1]
    return float(np.linalg.solve(-transient, np.ones(len(transient)))[0])


def p_lost_by(q, hours):
    return float(expm(q * hours)[0, -1])


@pytest.mark.parametrize("members, mttf, rebuild", [(6, 1e4, 100.0), (8, 1e5, 24.0), (12, 5e5, 48.0)])
def test_raid6_mttdl_is_the_chains(members, mttf, rebuild):
    r = raidsim.reliability(level="raid6", members=members, mttf_hours=mttf, rebuild_hours=rebuild, lifetimes=1,
                            uber=0, progress=False)
    assert r.summary()["markov_mttdl_hours"] == pytest.approx(mttdl(generator_raid6(members, 1 / mttf, 1 / rebuild)),
                                                             rel=1e-9)


@pytest.mark.parametrize("mttf, params", [(2e4, {"lifetimes": 400_000}),
                                          (4e5, {"lifetimes": 40_000, "failure_biasing": 0.5})])
def test_raid6_loss_within_the_mission_is_the_chains(mttf, params):
    members, rebuild = 8, 200.0
    q = generator_raid6(members, 1 / mttf, 1 / rebuild)
    if True:
        r = raidsim.reliability(level="raid6", members=members, mttf_hours=mttf, rebuild_hours=rebuild, uber=0,
                                progress=False, **params)
        years = r.by_year()
        for year in (1, 5):
            exact = p_lost_by(q, year * HOURS_PER_YEAR)
            row = years.loc[year]
            assert row["array_loss_low"] <= exact <= row["array_loss_high"], (params, year, exact, dict(row))


def test_a_rare_loss_gets_a_tight_interval_by_importance_sampling():
    members, mttf, rebuild = 8, 1e6, 24.0
    exact = p_lost_by(generator_raid6(members, 1 / mttf, 1 / rebuild), 5 * HOURS_PER_YEAR)
    assert exact < 1e-8
    r = raidsim.reliability(level="raid6", members=members, mttf_hours=mttf, rebuild_hours=rebuild, uber=0,
                            lifetimes=50_000, failure_biasing=0.5, progress=False)
    row = r.by_year().loc[5]
    assert row["array_loss_low"] <= exact <= row["array_loss_high"]
    assert (row["array_loss_high"] - row["array_loss_low"]) / exact < 0.1


def test_raid10_mttdl_is_the_chains():
    r = raidsim.reliability(level="raid10", members=12, copies=2, mttf_hours=1e5, rebuild_hours=24, lifetimes=1,
                            uber=0, progress=False)
    assert r.summary()["markov_mttdl_hours"] == pytest.approx(mttdl(generator_raid10(6, 1e-5, 1 / 24)), rel=1e-9)


def test_one_rebuild_in_five_meets_a_read_error_at_uber_1e_15_on_eight_4_tb_drives():
    r = raidsim.reliability(members=8, member_capacity_bytes=4 * 10**12, uber=1e-15, lifetimes=1, progress=False)
    bits = 7 * 4e12 * 8
    assert r.summary()["rebuild_read_error_probability"] == pytest.approx(-math.expm1(-1e-15 * bits), rel=1e-12)
    assert 0.19 < r.summary()["rebuild_read_error_probability"] < 0.21


def test_the_same_seed_gives_the_same_report_and_another_seed_another():
    a = raidsim.reliability(mttf_hours=1e5, lifetimes=20_000, seed=3, progress=False).to_dict()
    b = raidsim.reliability(mttf_hours=1e5, lifetimes=20_000, seed=3, progress=False).to_dict()
    c = raidsim.reliability(mttf_hours=1e5, lifetimes=20_000, seed=4, progress=False).to_dict()
    assert a == b and a != c


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "raidsim.cli", "reliability", *args], capture_output=True, text=True)


def test_cli_prints_the_study_and_its_figure(tmp_path):
    p = run_cli("--set", "level=raid6", "--set", "lifetimes=2000", "--set", "failure_biasing=0.5", "--no-progress",
                "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert "RAID6 of 8 members" in p.stdout and "year  5" in p.stdout
    assert (tmp_path / "reliability.png").is_file()
    p = run_cli("--set", "lifetimes=1000", "--json", "--no-progress")
    assert json.loads(p.stdout)["lifetimes"] == 1000


@pytest.mark.parametrize("settings, key", [(["mttf_hours=0"], "mttf_hours"), (["uber=1.5"], "uber"),
                                           (["uber=-1e-15"], "uber"),
                                           (["life=weibull", "weibull_shape=0"], "weibull_shape"),
                                           (["weibull_shape=2"], "weibull_shape"), (["colour=red"], "colour"),
                                           (["level=raid6", "members=2"], "members")])
def test_cli_refuses_bad_input_by_key(settings, key):
    p = run_cli(*[a for s in settings for a in ("--set", s)], "--no-progress")
    assert p.returncode == 1
    assert f"`{key}`" in p.stderr, p.stderr


def test_cli_lists_the_keys():
    p = run_cli("--keys")
    assert p.returncode == 0
    assert "mttf_hours (number) = 1500000.0" in p.stdout and "one of: raid0, raid1, raid5, raid6, raid10" in p.stdout


def test_cli_reads_a_study_file_and_sets_over_it(tmp_path):
    study = tmp_path / "study.toml"
    study.write_text('level = "raid10"\nmembers = 6\ncopies = 3\nlifetimes = 500\n')
    p = run_cli(str(study), "--set", "lifetimes=700", "--json", "--no-progress")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["lifetimes"] == 700
    p = run_cli(str(tmp_path / "missing.toml"), "--no-progress")
    assert p.returncode == 2 and "missing.toml" in p.stderr


def test_wear_out_hours_come_from_a_runs_erases(tmp_path):
    # A small RAID-4 that collects: the parity member erases most, so it wears out first.
    one_die = {f"ssd.geometry.{k}": 1 for k in ("channels", "chips_per_channel", "dies_per_chip", "planes_per_die")}
    report = raidsim.simulate("stripe-unit-table5", raidsim.Workload.synthetic(requests=20000, read_fraction=0.0,
                                                                               size={"kind": "fixed", "mean_bytes": 4096}),
                              overrides={"array.level": "raid4", "array.members": 4, "ssd.geometry.blocks_per_plane": 64,
                                         "precondition.fill_fraction": 0.9, **one_die}, progress=False).to_dict()
    (tmp_path / "r.json").write_text(json.dumps(report))
    p = run_cli("--from-run", str(tmp_path / "r.json"), "--pe-cycles", "3000", "--duty-cycle", "0.5",
                "--set", "lifetimes=200", "--json", "--no-progress")
    assert p.returncode == 0, p.stderr
    seconds = report["host"]["duration_ns"] / 1e9
    expected = []
    for d in report["devices"]:
        blocks = sum(d["erase_count"]["histogram"]["counts"])
        # pe cycles x blocks / erases per second, in hours, over the duty cycle.
        expected.append(3000 * blocks * seconds / d["erases"] / 3600 / 0.5)
    from raidsim.tools.endurance import reliability_inputs

    inputs, notes = reliability_inputs(report, 3000, 0.5)
    assert inputs["wear_out_hours"] == pytest.approx(expected, rel=1e-12)
    assert (inputs["level"], inputs["members"]) == ("raid5", 4)
    assert inputs["member_capacity_bytes"] == report["devices"][0]["capacity_bytes"]
    assert min(expected) == expected[3] and expected[3] < 0.7 * expected[0], "the parity member wears first"
    out = json.loads(p.stdout)
    assert out["lifetimes"] == 200 and "wear_outs_per_lifetime" in out
    p = run_cli("--from-run", str(tmp_path / "r.json"), "--no-progress")
    assert p.returncode == 2 and "--pe-cycles" in p.stderr
    p = run_cli("--capacity", "4000000000000", "--no-progress")
    assert p.returncode == 2 and "--capacity" in p.stderr
    p = run_cli("--from-run", str(tmp_path / "r.json"), "--pe-cycles", "3000", "--capacity", "0", "--no-progress")
    assert p.returncode == 2 and "--capacity" in p.stderr, p.stderr
    p = run_cli("--from-run", str(tmp_path / "r.json"), "--pe-cycles", "3000", "--capacity", "4000000000000",
                "--set", "lifetimes=200", "--json", "--no-progress")
    assert p.returncode == 0 and "scaled up" in p.stderr, p.stderr


def test_python_values_are_checked_by_key(tmp_path):
    import numpy

    r = raidsim.reliability(members=numpy.int64(6), mttf_hours=numpy.float64(1e5), lifetimes=100, progress=False)
    assert r.params["members"] == 6
    with pytest.raises(raidsim.ConfigError, match="`mttf_hours`.*finite"):
        raidsim.reliability(mttf_hours=float("nan"), progress=False)
    with pytest.raises(raidsim.ConfigError, match=r"`wear_out_hours\[1\]`.*finite"):
        raidsim.reliability(members=2, level="raid1", wear_out_hours=[1.0, float("inf")], progress=False)
    bad = tmp_path / "bad.toml"
    bad.write_text("members = \n")
    with pytest.raises(raidsim.ConfigError, match="bad.toml: not TOML"):
        raidsim.reliability(file=bad, progress=False)


SMALL_RAID = {"ssd.geometry.channels": 1, "ssd.geometry.chips_per_channel": 1, "ssd.geometry.dies_per_chip": 1,
              "ssd.geometry.planes_per_die": 1, "ssd.geometry.blocks_per_plane": 64, "precondition.fill_fraction": 0.9}


def small_run(**overrides):
    return raidsim.simulate("stripe-unit-table5", raidsim.Workload.synthetic(requests=20000, read_fraction=0.0,
                                                                             size={"kind": "fixed", "mean_bytes": 4096}),
                            overrides={"array.members": 4, **SMALL_RAID, **overrides}, progress=False).to_dict()


def test_a_failed_slot_counts_its_spares_wear_and_the_rebuild_hours_are_per_rebuild():
    from raidsim.tools.endurance import reliability_inputs

    report = small_run(**{"array.level": "raid5", "array.spares": 1,
                          "array.failures": [{"member": 3, "at_ns": 2_000_000_000}]})
    f = report["rebuild"]["failures"][0]
    inputs, notes = reliability_inputs(report, 1000)
    seconds = report["host"]["duration_ns"] / 1e9
    slot = report["devices"][3]["erases"] + report["devices"][f["spare"]]["erases"]
    blocks = sum(report["devices"][3]["erase_count"]["histogram"]["counts"])
    assert inputs["wear_out_hours"][3] == pytest.approx(1000 * blocks * seconds / slot / 3600, rel=1e-12)
    assert inputs["rebuild_hours"] == pytest.approx((f["rebuild_end_ns"] - f["at_ns"]) / 3.6e12, rel=1e-12)
    assert any("rebuild_hours" in n for n in notes)
    # The run's drives as scaled-down copies of 4 TB ones: wear-out and rebuild hours grow by the capacity ratio.
    scale = 4e12 / inputs["member_capacity_bytes"]
    scaled, notes = reliability_inputs(report, 1000, capacity_bytes=4_000_000_000_000)
    assert scaled["member_capacity_bytes"] == 4_000_000_000_000
    assert scaled["wear_out_hours"] == pytest.approx([h * scale for h in inputs["wear_out_hours"]], rel=1e-12)
    assert scaled["rebuild_hours"] == pytest.approx(inputs["rebuild_hours"] * scale, rel=1e-12)
    assert any("scaled up" in n for n in notes)
    import numpy

    assert reliability_inputs(report, 1000, capacity_bytes=numpy.int64(4 * 10**12))[0]["member_capacity_bytes"] == 4 * 10**12
    for bad in (0, -5, True, 4e12, "4TB"):
        with pytest.raises(raidsim.ConfigError, match="capacity_bytes"):
            reliability_inputs(report, 1000, capacity_bytes=bad)
    # Without a spare the slot's wear after the failure is unmeasured: refused.
    lone = small_run(**{"array.level": "raid5", "array.failures": [{"member": 3, "at_ns": 2_000_000_000}]})
    with pytest.raises(raidsim.InputError, match="no spare took its place"):
        reliability_inputs(lone, 1000)


def test_from_run_refuses_what_it_cannot_read(tmp_path):
    from raidsim.tools.endurance import reliability_inputs

    idle = raidsim.simulate("stripe-unit-table5", raidsim.Workload.synthetic(requests=50),
                            overrides={"array.level": "raid4", "array.members": 4}, progress=False).to_dict()
    with pytest.raises(raidsim.InputError, match="no erases"):
        reliability_inputs(idle, 1000)
    with pytest.raises(raidsim.ConfigError, match="duty_cycle"):
        reliability_inputs(idle, 1000, 0.0)
    (tmp_path / "r.json").write_text(json.dumps(small_run(**{"array.level": "raid4"})))
    p = run_cli("--from-run", str(tmp_path / "r.json"), "--pe-cycles", "100", "--duty-cycle=0", "--no-progress")
    assert p.returncode == 1 and "duty_cycle" in p.stderr


def test_all_zero_wear_out_is_no_wear_out_and_a_spread_alone_is_refused():
    none = raidsim.reliability(level="raid1", members=2, mttf_hours=1e6, wear_out_hours=[0, 0], lifetimes=100,
                               failure_biasing=0.5, progress=False)
    assert none.summary()["markov_mttdl_hours"] is not None
    with pytest.raises(raidsim.ConfigError, match="`wear_out_spread`"):
        raidsim.reliability(wear_out_spread=0.3, progress=False)


def test_raid10_copies_the_report_does_not_tell_must_be_given():
    from raidsim.tools.endurance import reliability_inputs

    report = small_run(**{"array.level": "raid10", "array.members": 6, "array.copies": 3,
                          "array.stripe_unit_bytes": 1048576})
    if report["array"]["capacity_bytes"] * 3 == sum(d["capacity_bytes"] for d in report["devices"]):
        pytest.skip("this drive's capacities tell the copies")
    with pytest.raises(raidsim.InputError, match="--set copies=N"):
        reliability_inputs(report, 1000)
    assert reliability_inputs(report, 1000, copies=3)[0]["copies"] == 3


def test_weekly_scrubs_leave_a_rebuild_half_a_weeks_latent_errors():
    # Failures far apart from scrubs' instants meet each survivor's latent errors of U ~ uniform(0, 168) hours:
    # per rebuild P = E[1 - exp(-7 x 1e-4 x U)] = 1 - (1 - exp(-x)) / x, x = 7e-4 x 168, and a lifetime
    # rebuilds once per failure.
    r = raidsim.reliability(members=8, uber=0, latent_errors_per_hour=1e-4, scrub_interval_hours=168,
                            lifetimes=400_000, progress=False)
    s = r.summary()
    x = 7e-4 * 168
    expected = s["failures_per_lifetime"] * (1 - (1 - math.exp(-x)) / x)
    assert s["latent_error_losses_per_lifetime"] == pytest.approx(expected, rel=0.05)
    assert "met a latent sector error" in r.to_text()
    with pytest.raises(raidsim.ConfigError, match="scrub_interval_hours.*latent_errors_per_hour"):
        raidsim.reliability(scrub_interval_hours=168, lifetimes=10, progress=False)


def test_common_cause_events_enter_raid6s_chain_as_an_exit_from_every_state():
    # Each group event fails all 8 members: every transient state of the chain gains an exit at its rate.
    members, mttf, rebuild, common = 8, 2e4, 200.0, 1e-5
    q = generator_raid6(members, 1 / mttf, 1 / rebuild)
    q[:3, 3] += common
    q[:3, :3] -= np.diag([common] * 3)
    r = raidsim.reliability(level="raid6", members=members, mttf_hours=mttf, rebuild_hours=rebuild, uber=0,
                            group_failures_per_hour=common, lifetimes=200_000, progress=False)
    assert r.summary()["markov_mttdl_hours"] == pytest.approx(mttdl(q), rel=1e-9)
    years = r.by_year()
    for year in (1, 5):
        # Within 3 standard errors (seed 1 lands 2.2 out at year 5; 20 other seeds average +1.2 standard errors of
        # their mean: no bias).
        exact, p = p_lost_by(q, year * HOURS_PER_YEAR), years.loc[year, "array_loss"]
        assert abs(p - exact) < 3 * math.sqrt(exact * (1 - exact) / 200_000), (year, p, exact)
    share = r.summary()["array_loss_by_common_cause"] / r.summary()["p_array_loss"]
    assert 0.5 < share < 1, share   # most losses here are the group events (0.35 of 0.47 by year 5)
    assert "common-cause" in r.to_text()


def test_a_rebuild_is_simulated_once_per_configuration_and_scaled(tmp_path, monkeypatch):
    from raidsim.tools import rebuild_time

    cfg = {**SMALL_RAID, "array.level": "raid5", "array.members": 4, "array.spares": 1,
           "array.failures": [{"member": 1, "at_ns": 1_000_000_000}], "workload.requests": 20000,
           "workload.read_fraction": 0.0, "workload.size.kind": "fixed", "workload.size.mean_bytes": 4096}
    config = raidsim.Config.preset("stripe-unit-table5").with_overrides(cfg)
    hours, notes = rebuild_time.simulated_rebuild_hours(config, cache_dir=tmp_path)
    report = raidsim.simulate(config, progress=False).to_dict()
    f = report["rebuild"]["failures"][0]
    assert hours == pytest.approx((f["rebuild_end_ns"] - f["at_ns"]) / 3.6e12, rel=1e-12)
    assert len(list(tmp_path.glob("rebuild-*.json"))) == 1
    # The second time the answer comes from the cache: nothing is simulated.
    monkeypatch.setattr("raidsim.api.simulate", lambda *a, **k: pytest.fail("simulated again"))
    again, notes = rebuild_time.simulated_rebuild_hours(config, cache_dir=tmp_path,
                                                        capacity_bytes=4 * report["devices"][0]["capacity_bytes"])
    assert again == pytest.approx(4 * hours, rel=1e-12) and any("cache" in n for n in notes)
    with pytest.raises(raidsim.ConfigError, match="array.failures"):
        rebuild_time.simulated_rebuild_hours({"array": {"level": "raid5", "members": 4}}, cache_dir=tmp_path)


def test_cli_takes_rebuild_hours_from_a_simulated_rebuild(tmp_path):
    cfg = tmp_path / "a.toml"
    cfg.write_text('[array]\nlevel = "raid5"\nmembers = 4\nspares = 1\nfailures = [{member = 1, at_ns = 100000000}]\n'
                   '[ssd.geometry]\nchannels = 1\nblocks_per_plane = 64\n[workload]\nrequests = 5000\n')
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "reliability", "--rebuild-from", str(cfg), "--set",
                        "lifetimes=100", "--json", "--no-progress"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "rebuild_hours" in p.stderr and (tmp_path / "raidsim-out" / "cache").is_dir()


def test_rebuild_from_refuses_what_is_no_whole_rebuild_and_ignores_a_bad_cache(tmp_path):
    from raidsim.tools import rebuild_time

    base = {**SMALL_RAID, "array.level": "raid5", "array.members": 4, "workload.requests": 20000,
            "workload.read_fraction": 0.0, "workload.size.kind": "fixed", "workload.size.mean_bytes": 4096}
    preset = raidsim.Config.preset("stripe-unit-table5")
    with pytest.raises(raidsim.ConfigError, match="array.spares"):
        rebuild_time.simulated_rebuild_hours(preset.with_overrides({**base, "array.failures": [{"member": 1, "at_ns": 10**9}]}),
                                             cache_dir=tmp_path)
    # Two members failing 0.1 s apart: the first rebuild gives up the stripes the second failure took.
    two = preset.with_overrides({**base, "array.spares": 2, "array.failures": [{"member": 1, "at_ns": 10**9},
                                                                                {"member": 2, "at_ns": 11 * 10**8}]})
    report = raidsim.simulate(two, progress=False).to_dict()
    whole = [f for f in report["rebuild"]["failures"] if not f.get("stripes_given_up")]
    # --from-run reads the same rebuild hours off the run: the whole rebuilds only.
    from raidsim.tools.endurance import reliability_inputs

    read = reliability_inputs(report, 1000)[0] if any(d["erases"] for d in report["devices"]) else None
    if read is not None:
        assert read.get("rebuild_hours") == (pytest.approx(sum((f["rebuild_end_ns"] - f["at_ns"]) / 3.6e12 for f in whole)
                                                           / len(whole)) if whole else None)
    if whole:
        hours, _ = rebuild_time.simulated_rebuild_hours(two, cache_dir=tmp_path)
        assert hours == pytest.approx(sum((f["rebuild_end_ns"] - f["at_ns"]) / 3.6e12 for f in whole) / len(whole))
    else:
        with pytest.raises(raidsim.InputError, match="gave up stripes"):
            rebuild_time.simulated_rebuild_hours(two, cache_dir=tmp_path)
    # A cache entry whose values are not sound is simulated again, not used.
    one = preset.with_overrides({**base, "array.spares": 1, "array.failures": [{"member": 1, "at_ns": 10**9}]})
    hours, _ = rebuild_time.simulated_rebuild_hours(one, cache_dir=tmp_path / "c")
    (entry,) = (tmp_path / "c").glob("rebuild-*.json")
    for bad in ('{"rebuild_hours": "x", "rebuilds": 1, "member_capacity_bytes": 1, "warnings": []}',
                '{"rebuild_hours": 1.0, "rebuilds": 1, "member_capacity_bytes": 0, "warnings": []}', "null"):
        entry.write_text(bad)
        again, notes = rebuild_time.simulated_rebuild_hours(one, cache_dir=tmp_path / "c")
        assert again == hours and not any("cache" in n for n in notes)


def test_cli_rebuild_from_sets_the_capacity_it_scaled_to_and_refuses_a_second_rebuild_time(tmp_path):
    cfg = tmp_path / "a.toml"
    cfg.write_text('[array]\nlevel = "raid5"\nmembers = 4\nspares = 1\nfailures = [{member = 1, at_ns = 100000000}]\n'
                   '[ssd.geometry]\nchannels = 1\nblocks_per_plane = 64\n[workload]\nrequests = 5000\n')
    args = [sys.executable, "-m", "raidsim.cli", "reliability", "--rebuild-from", str(cfg), "--no-progress"]
    p = subprocess.run(args + ["--capacity", "2000000000000", "--set", "lifetimes=100", "--set", "uber=1e-15", "--json"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["rebuild_read_error_probability"] == pytest.approx(1 - math.exp(-7 * 2e12 * 8 * 1e-15))  # the study's RAID-5 of 8
    p = subprocess.run(args + ["--set", "rebuild_hours=7"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 2 and "not both" in p.stderr
