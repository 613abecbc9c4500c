"""`raidsim endurance`: years to the rated P/E cycles per member, and correlated wear-out (Diff-RAID)."""

import json
import re

import pytest
from conftest import SHARED_PAPERS, raidsim_cli, write_msr_trace

from raidsim import ConfigError, InputError
from raidsim.tools import endurance

DAY_NS = 86_400 * 10**9
YEAR_DAYS = 365.25


def device(name, erases, blocks=1000, kind="ssd", mean=1.0, max_=2):
    # The histogram's counts are the member's blocks, one per block: split unevenly on purpose.
    spread = {"min": 0, "mean": mean, "max": max_, "std": 0.5,
              "histogram": {"edges": [0, 1, 2], "counts": [blocks - blocks // 3, blocks // 3]}}
    return {"name": name, "kind": kind, "erases": erases, "erase_count": None if kind == "hdd" else spread}


def report(erases, level="raid5", duration_ns=DAY_NS, blocks=1000, spares=(), rebuild=None):
    devices = [device(f"member[{i}]", e, blocks) for i, e in enumerate(erases)]
    devices += [device(f"spare[{i}]", e, blocks) for i, e in enumerate(spares)]
    return {"host": {"duration_ns": duration_ns}, "devices": devices,
            "array": None if level == "single" else {"level": level}, "rebuild": rebuild}


def test_years_to_limit_is_the_hand_computation():
    # One simulated day, 1,000 blocks a member. Member 0: 100 erases = 0.1 erase per block per day, so
    # 36,525 rated cycles last 365,250 days = 1,000 years. Member 1: 125 -> 0.125/day -> 800 years.
    # Member 2: 105 -> 0.105/day -> 36,525 / 0.105 / 365.25 = 952.381 years.
    r = endurance.project(report([100, 125, 105]), 36_525)
    m = r["members"]
    assert [x["blocks"] for x in m] == [1000, 1000, 1000]
    assert [x["erases_per_block_per_day"] for x in m] == pytest.approx([0.1, 0.125, 0.105])
    assert [x["years_to_limit"] for x in m] == pytest.approx([1000.0, 800.0, 952.381], abs=1e-3)
    # RAID-5 survives one failure: data is lost when the second member wears out.
    assert r["tolerated_failures"] == 1
    assert r["first_limit_years"] == pytest.approx(800.0)
    assert r["data_loss_years"] == pytest.approx(952.381, abs=1e-3)
    assert r["window_years"] == pytest.approx(152.381, abs=1e-3)
    assert r["window_fraction"] == pytest.approx(152.381 / 800, abs=1e-5)
    assert r["correlated"] is False  # 19 % of the first's life apart


def test_simulated_time_scales_the_rate():
    # The same erases over half a day are twice the rate: half the life.
    r = endurance.project(report([100, 100, 100], duration_ns=DAY_NS // 2), 36_525)
    assert r["members"][0]["years_to_limit"] == pytest.approx(500.0)


def test_evenly_worn_raid5_is_correlated_and_raid4_like_parity_wear_is_not():
    # 100, 102, 104 erases: lives 1000, 980.39, 961.54 years; the second 18.85 years (1.96 %) after the first.
    even = endurance.project(report([100, 102, 104]), 36_525)
    assert even["window_years"] == pytest.approx(36_525 / 0.102 / YEAR_DAYS - 36_525 / 0.104 / YEAR_DAYS)
    assert even["window_fraction"] == pytest.approx(0.0196, abs=1e-4)
    assert even["correlated"] is True
    # RAID-4: the parity member erases twice as often (the stripe-unit paper's Figure 12): 500 years against
    # 1,000 for every data member, a window of half the first's life.
    parity = endurance.project(report([100, 100, 100, 200], level="raid4"), 36_525)
    assert parity["first_limit_years"] == pytest.approx(500.0)
    assert parity["window_fraction"] == pytest.approx(1.0)
    assert parity["correlated"] is False


def test_tolerated_failures_by_level():
    erases = [100, 110, 120, 130]
    lives = sorted(36_525 / (e / 1000) / YEAR_DAYS for e in erases)
    raid6 = endurance.project(report(erases, level="raid6"), 36_525)
    assert raid6["tolerated_failures"] == 2 and raid6["data_loss_years"] == pytest.approx(lives[2])
    raid1 = endurance.project(report(erases, level="raid1"), 36_525)  # a 4-way mirror survives 3
    assert raid1["tolerated_failures"] == 3 and raid1["data_loss_years"] == pytest.approx(lives[3])
    assert endurance.project(report(erases, level="raid10"), 36_525)["tolerated_failures"] == 1
    assert endurance.project(report(erases, level="raid10"), 36_525, copies=3)["tolerated_failures"] == 2
    raid0 = endurance.project(report(erases, level="raid0"), 36_525)
    assert raid0["tolerated_failures"] == 0 and raid0["window_years"] is None and raid0["correlated"] is None
    assert raid0["data_loss_years"] == pytest.approx(lives[0])
    assert "keeps no redundancy" in endurance.text(raid0)
    single = endurance.project(report([100], level="single"), 36_525)
    assert single["tolerated_failures"] == 0 and "One drive: data is lost when it wears out, in 1,000.00 years" \
        in endurance.text(single)
    with pytest.raises(InputError, match="raid7"):
        endurance.project(report(erases, level="raid7"), 36_525)


def test_a_saved_raid10_reports_copies_are_its_capacities_and_an_assumption_is_said():
    # A saved report holds no `copies`: six members of 100 bytes behind 200 usable keep every byte 3 times,
    # so the array survives 2 failures (the 3rd life), as the config would say; assuming 2 copies would
    # give the 2nd life: a window half as long, silently.
    erases = [100, 110, 120, 130, 140, 150]
    lives = sorted(36_525 / (e / 1000) / YEAR_DAYS for e in erases)
    saved = report(erases, level="raid10", spares=[0])
    for d in saved["devices"]:
        d["capacity_bytes"] = 100
    saved["array"]["capacity_bytes"] = 200
    r = endurance.project(saved, 36_525)
    assert r["tolerated_failures"] == 2 and r["data_loss_years"] == pytest.approx(lives[2]) and r["notes"] == []
    saved["array"]["capacity_bytes"] = 300
    assert endurance.project(saved, 36_525)["tolerated_failures"] == 1
    # Capacities that do not tell (missing, or no whole number of copies): 2, and the text says it assumed so.
    for capacity in (None, 250):
        saved["array"]["capacity_bytes"] = capacity
        r = endurance.project(saved, 36_525)
        assert r["tolerated_failures"] == 1 and "assumed 2, md's default" in endurance.text(r)
    assert endurance.project(saved, 36_525, copies=3)["tolerated_failures"] == 2


def test_spares_are_left_out_and_said_so():
    r = endurance.project(report([100, 100, 100], spares=[0]), 36_525)
    assert [m["name"] for m in r["members"]] == ["member[0]", "member[1]", "member[2]"]
    assert "1 hot spare(s) left out" in endurance.text(r)


def test_no_erases_is_unbounded_and_said_never_inf():
    r = endurance.project(report([0, 0, 0]), 3000)
    assert r["no_erases"] and r["first_limit_years"] is None and r["data_loss_years"] is None
    assert all(m["years_to_limit"] is None for m in r["members"])
    out = endurance.text(r)
    assert "no erases in this run: run longer or fuller (see precondition.fill_fraction)" in out
    assert "inf" not in out.lower().replace("infinity", "")
    json.dumps(r, allow_nan=False)  # no inf/nan in the JSON either


def test_a_member_without_erases_is_unbounded_and_the_window_too():
    r = endurance.project(report([100, 0, 0]), 36_525)
    assert r["members"][0]["years_to_limit"] == pytest.approx(1000.0)
    assert r["members"][1]["years_to_limit"] is None
    assert r["data_loss_years"] is None and r["window_years"] is None
    out = endurance.text(r)
    assert "unbounded (no erases)" in out and "the second member erased nothing" in out


def test_rebuild_time_is_set_beside_the_window():
    r = endurance.project(report([100, 102, 104], rebuild={"duration_ns": 7_200 * 10**9}), 36_525)
    assert r["rebuild_seconds"] == 7200.0
    assert "rebuild took 7,200.000 s" in endurance.text(r) and "shorter than the window" in endurance.text(r)


def test_a_member_that_failed_in_the_run_is_said_not_comparable():
    failure = {"member": 1, "at_ns": 20 * 10**9, "spare": 3, "chip": None}
    r = endurance.project(report([100, 50, 100], spares=[60], rebuild={"duration_ns": 10**9, "failures": [failure]}),
                          36_525)
    assert r["notes"] == ["member[1] failed 20.000 s into the run and spare[0] took its place: its erases cover part "
                          "of the run, so member[1]'s time to the limit is not comparable (project a run without "
                          "failures)"]
    assert "Note: member[1] failed" in endurance.text(r)
    assert endurance.project(report([100, 50, 100]), 36_525)["notes"] == []


def test_life_text_picks_a_readable_unit():
    assert endurance.life_text(2.5) == "2.50 years"
    assert endurance.life_text(10 / YEAR_DAYS) == "10.0 days"
    assert endurance.life_text(0.5 / YEAR_DAYS) == "12.00 hours"


def test_bad_reports_are_errors_naming_the_problem():
    with pytest.raises(InputError, match="simulated no time"):
        endurance.project(report([1, 1], duration_ns=0), 100)
    hdd = report([1, 1])
    hdd["devices"][1] = device("member[1]", 0, kind="hdd")
    with pytest.raises(InputError, match="member\\[1\\] is a disk, not an SSD"):
        endurance.project(hdd, 100)
    cut = report([1, 1])
    del cut["devices"][0]["erases"]
    with pytest.raises(InputError, match=r"the report: devices\[0\]\.erases is missing: expected a count >= 0"):
        endurance.project(cut, 100)


def test_rated_cycles_are_given_or_a_known_presets_never_guessed():
    assert endurance.pe_cycles_for(3000, "rais-ssd-b") == (3000, "--pe-cycles")  # the user's figure wins
    cycles, source = endurance.pe_cycles_for(None, "rais-ssd-b")
    assert cycles == 100_000 and "SLC" in source and "stripe-unit paper" in source
    assert endurance.pe_cycles_for(None, "rais-ssd-a")[0] == 10_000
    for preset in (None, "stripe-unit-table5"):
        with pytest.raises(ConfigError, match="--pe-cycles"):
            endurance.pe_cycles_for(None, preset)
    with pytest.raises(ConfigError, match="member_ssd"):  # the preset's figure need not hold for other drives
        endurance.pe_cycles_for(None, "rais-ssd-a", mixed_members=True)
    with pytest.raises(ConfigError, match="at least 1"):
        endurance.pe_cycles_for(0, None)


def test_the_paper_states_the_default_figures():
    # The defaults cite the stripe-unit paper, §2: "up to 10,000 and 100,000 for MLC and SLC flash".
    path = SHARED_PAPERS / "stripe-unit-size-ssd-raid.txt"
    if not path.is_file():
        pytest.skip(f"{path} not found: the papers sit in ../shared/papers beside the project checkout")
    assert "up to 10,000 and 100,000 for MLC and SLC flash" in path.read_text()


# --- the command ---------------------------------------------------------------------------------

SMALL = ["--set", "ssd.geometry.planes_per_die=1", "--set", "ssd.geometry.blocks_per_plane=16",
         "--set", "ssd.geometry.over_provisioning_fraction=0.25", "--set", "precondition.random_overwrite_factor=1",
         "--set", "array.stripe_unit_bytes=16384"]
BLOCKS = 8 * 1 * 1 * 1 * 16  # channels x chips x dies x planes x blocks of stripe-unit-table5 made small


cli = raidsim_cli


def write_trace(path, requests=300):
    return write_msr_trace(path, requests, gap_100ns=10_000)  # 1 ms apart


def test_endurance_of_a_saved_report_is_the_hand_formula(tmp_path):
    trace = write_trace(tmp_path / "t.csv")
    run = cli("run", "--preset", "stripe-unit-table5", "--set", "array.level=raid4", "--set", "array.members=4",
              *SMALL, "--trace", str(trace), "--json", "--no-progress")
    assert run.returncode == 0, run.stderr
    (tmp_path / "r.json").write_text(run.stdout)
    data = json.loads(run.stdout)
    p = cli("endurance", str(tmp_path / "r.json"), "--pe-cycles", "3000", "--json")
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout)
    days = data["host"]["duration_ns"] / DAY_NS
    members = [d for d in data["devices"] if d["name"].startswith("member[")]
    assert sum(d["erases"] for d in members) > 0  # the small, overwritten drives do erase
    for d, m in zip(members, result["members"]):
        assert m["blocks"] == BLOCKS  # the geometry's product, not the report's own count
        assert m["years_to_limit"] == pytest.approx(3000 * BLOCKS * days / d["erases"] / YEAR_DAYS)
    # RAID-4's parity member (the last) wears first, as in the stripe-unit paper's Figure 12.
    parity = result["members"][-1]["years_to_limit"]
    assert parity == min(m["years_to_limit"] for m in result["members"]) == result["first_limit_years"]
    text = cli("endurance", str(tmp_path / "r.json"), "--pe-cycles", "3000")
    assert text.returncode == 0 and "member[3]" in text.stdout and "Assumptions:" in text.stdout


def test_endurance_runs_a_config_as_run_does(tmp_path):
    # --trace and --set reach the run: the same config through `run --json` gives the same projection.
    trace = write_trace(tmp_path / "t.csv")
    config = ["--preset", "stripe-unit-table5", "--set", "array.level=raid5", "--set", "array.members=3", *SMALL,
              "--trace", str(trace)]
    run = cli("run", *config, "--json", "--no-progress")
    p = cli("endurance", *config, "--pe-cycles", "3000", "--json", "--no-progress")
    assert run.returncode == 0 and p.returncode == 0, p.stderr
    from_run = endurance.project(json.loads(run.stdout), 3000, "--pe-cycles", copies=2)
    assert json.loads(p.stdout) == json.loads(json.dumps(from_run))


def test_endurance_takes_a_known_presets_cycles_and_says_where_from():
    p = cli("endurance", "--preset", "rais-ssd-b", "--set", "array.level=raid5", "--set", "array.members=3",
            "--set", "workload.requests=200", "--no-progress")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("Rated P/E cycles 100,000 (preset rais-ssd-b is SLC")
    assert "no erases in this run: run longer or fuller (see precondition.fill_fraction)" in p.stdout


def test_endurance_without_a_known_figure_is_an_error_before_running(tmp_path):
    trace = write_trace(tmp_path / "t.csv")
    p = cli("endurance", "--preset", "stripe-unit-table5", "--trace", str(trace))
    assert p.returncode == 1 and "pass --pe-cycles N" in p.stderr and "Traceback" not in p.stderr
    (tmp_path / "r.json").write_text(json.dumps(report([1, 1])))
    p = cli("endurance", str(tmp_path / "r.json"))
    assert p.returncode == 1 and "pass --pe-cycles N" in p.stderr


@pytest.mark.parametrize("args, status, message", [
    (["r.json", "--preset", "stripe-unit-table5", "--pe-cycles", "10"], 2, "not both"),
    (["r.json", "--pe-cycles", "0"], 2, "--pe-cycles"),
    (["nonsense.json", "--pe-cycles", "10"], 1, "not a JSON report"),
    (["other.json", "--pe-cycles", "10"], 1, "not a raidsim report"),
    (["missing.json", "--pe-cycles", "10"], 1, "missing.json"),
])
def test_endurance_input_errors(tmp_path, args, status, message):
    (tmp_path / "r.json").write_text(json.dumps(report([1, 1])))
    (tmp_path / "nonsense.json").write_text("{not json")
    (tmp_path / "other.json").write_text(json.dumps({"rows": []}))
    p = cli("endurance", *args, cwd=tmp_path)
    assert p.returncode == status, p.stderr
    assert message in p.stderr and "Traceback" not in p.stderr


# --- issue #30: every value read from a report is checked, naming the file and the key path -------------

def mutate(path, value):
    """A report whose value at `path` (keys and list positions) is `value`; `...` deletes the key."""
    data = report([100, 120])
    data["devices"][0]["capacity_bytes"] = 100
    data["array"]["capacity_bytes"] = 200
    data["rebuild"] = {"duration_ns": 10**9, "failures": [{"member": 1, "at_ns": 10**9, "spare": None, "chip": None}]}
    *parents, last = path
    node = data
    for key in parents:
        node = node[key]
    if value is ...:
        del node[last]
    else:
        node[last] = value
    return data


@pytest.mark.parametrize("path, value, message", [
    (["devices", 0, "erases"], -5, "devices[0].erases = -5: expected a count >= 0"),
    (["devices", 0, "erases"], float("nan"), "devices[0].erases = NaN: expected a count >= 0"),
    (["devices", 0, "erases"], 2.5, "devices[0].erases = 2.5: expected a count >= 0"),
    (["devices", 0, "erases"], "100", 'devices[0].erases = "100": expected a count >= 0'),
    (["devices", 0, "erases"], True, "devices[0].erases = true: expected a count >= 0"),
    (["devices", 0, "erases"], 2**64, "devices[0].erases = 18446744073709551616: expected a count >= 0, below 2**64"),
    (["devices", 0, "erases"], ..., "devices[0].erases is missing: expected a count >= 0"),
    (["host", "duration_ns"], float("inf"), "host.duration_ns = Infinity: expected a duration in ns >= 0"),
    (["host", "duration_ns"], -1, "host.duration_ns = -1: expected a duration in ns >= 0"),
    (["host", "duration_ns"], ..., "host.duration_ns is missing: expected a duration in ns >= 0"),
    (["devices", 1, "erase_count", "mean"], -1.0, "devices[1].erase_count.mean = -1.0: expected a number >= 0"),
    (["devices", 1, "erase_count", "max"], None, "devices[1].erase_count.max = null: expected a number >= 0"),
    (["devices", 1, "erase_count", "histogram", "counts", 1], -3,
     "devices[1].erase_count.histogram.counts[1] = -3: expected a count >= 0"),
    (["devices", 1, "erase_count", "histogram", "counts"], "many",
     'devices[1].erase_count.histogram.counts = "many": expected a list of counts'),
    (["devices", 0, "capacity_bytes"], -100, "devices[0].capacity_bytes = -100: expected a count >= 0"),
    (["devices", 0, "name"], 7, "devices[0].name = 7: expected a device's name"),
    (["devices", 1], [], "devices[1] = []: expected a device table"),
    (["array", "capacity_bytes"], float("nan"), "array.capacity_bytes = NaN: expected a count >= 0"),
    (["array", "level"], 5, "array.level = 5: expected a RAID level's name"),
    (["rebuild", "duration_ns"], -7, "rebuild.duration_ns = -7: expected a duration in ns >= 0"),
    (["rebuild", "failures", 0, "member"], -1, "rebuild.failures[0].member = -1: expected a member's number >= 0"),
    (["rebuild", "failures", 0, "at_ns"], "soon", 'rebuild.failures[0].at_ns = "soon": expected a duration in ns >= 0'),
])
def test_an_impossible_value_in_a_saved_report_is_an_error_naming_the_file_and_key(tmp_path, path, value, message):
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(mutate(path, value)))
    with pytest.raises(InputError) as e:
        endurance.load_report(saved)
    assert str(e.value) == f"{saved}: {message}"
    with pytest.raises(InputError, match=re.escape(f"the report: {message}")):  # a report handed over in Python too
        endurance.project(mutate(path, value), 3000)


def test_endurance_of_a_report_with_negative_erases_exits_1_printing_no_life(tmp_path):
    (tmp_path / "report.json").write_text(json.dumps(mutate(["devices", 0, "erases"], -5)))
    p = cli("endurance", "report.json", "--pe-cycles", "3000", cwd=tmp_path)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr == "raidsim: error: report.json: devices[0].erases = -5: expected a count >= 0\n"
    assert endurance.project(mutate(["devices", 0, "erases"], 100), 3000)["members"][0]["erases"] == 100  # sound


def test_the_runs_warnings_qualify_the_projection(traces_dir):
    # hm_0 folded onto scaled-down drives: the life projected is of the folded workload, and says so.
    import raidsim
    from raidsim.tools.endurance import project

    cfg = raidsim.Config.preset("stripe-unit-table5").with_overrides(
        {"array.level": "raid5", "array.members": 5, "ssd.geometry.blocks_per_plane": 32,
         "precondition.random_overwrite_factor": 1, "workload.max_wrapped_fraction": 1.0})
    report = raidsim.simulate(cfg.with_workload(raidsim.Workload.trace(traces_dir / "msr-hm0-sample.csv"))
                              .set("workload.max_wrapped_fraction", 1.0), progress=False).to_dict()
    notes = project(report, pe_cycles=10_000)["notes"]
    assert any(n.startswith("the run warned: wrapped: 732 of 1000") for n in notes)
