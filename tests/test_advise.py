"""`raidsim advise`: a sweep of levels x members x stripe units on one workload, ranked, Pareto marked."""

import csv
import json

import pytest
from conftest import raidsim_cli, write_msr_trace

from raidsim.tools import advise

# Small drives that erase within a few hundred requests: 8 channels x 1 plane x 16 blocks of 64 pages,
# a quarter spare, overwritten once before the run so garbage collection runs from the start.
# Drives small enough to wear within 300 requests; the trace's 24 MiB are folded onto the smallest arrays, on purpose.
SMALL = ["--set", "ssd.geometry.planes_per_die=1", "--set", "ssd.geometry.blocks_per_plane=16",
         "--set", "ssd.geometry.over_provisioning_fraction=0.25", "--set", "precondition.random_overwrite_factor=1",
         "--set", "workload.max_wrapped_fraction=1"]
PRICES = ["--set", "ssd.price_usd=100", "--set", "array.controller.price_usd=50"]
RANGES = ["--levels", "raid4,raid5,raid6", "--members", "2-4", "--stripe-units", "4K-8K"]


cli = raidsim_cli


def write_trace(path, requests=300):
    return write_msr_trace(path, requests, gap_100ns=20_000)  # 2 ms apart


# --- the options ---------------------------------------------------------------------------------

def test_ranges_parse_inclusively():
    assert advise.parse_members("4-8") == [4, 5, 6, 7, 8]
    assert advise.parse_members("5") == [5]
    assert advise.parse_stripe_units("4K-1M") == [4096 * 2**i for i in range(9)]
    assert advise.parse_stripe_units("64K") == [65536]
    assert advise.parse_stripe_units("512-2k") == [512, 1024, 2048]
    assert advise.parse_stripe_units("1G") == [2**30]
    assert advise.parse_levels("raid5, RAID6") == ["raid5", "raid6"]
    assert advise.size_text(65536) == "64K" and advise.size_text(2**20) == "1M" and advise.size_text(512) == "512"


@pytest.mark.parametrize("parse, text, expected", [
    (advise.parse_members, "8-4", "A <= B"),
    (advise.parse_members, "x", "A <= B"),
    (advise.parse_members, "0-3", "1 <= A"),
    (advise.parse_members, "4-", "e.g. 4-8"),
    (advise.parse_members, "4-6-8", "e.g. 4-8"),
    (advise.parse_members, "1-1000000000", "1,000,000,000 member counts; at most 500"),
    (advise.parse_stripe_units, "3K", "powers of two"),
    (advise.parse_stripe_units, "1M-4K", "smaller first"),
    (advise.parse_stripe_units, "4KB", "K, M or G"),
    (advise.parse_stripe_units, "0", "powers of two"),
    (advise.parse_levels, "raid7", "unknown level 'raid7'"),
    (advise.parse_levels, "raid5,raid5", "twice"),
    (advise.parse_levels, "raid5,", "comma-separated"),
    (advise.parse_levels, "cr5m", "inside one SSD"),
])
def test_bad_ranges_name_the_expected_form(parse, text, expected):
    with pytest.raises(advise.RangeError, match=expected) as e:
        parse(text)
    assert str(e.value).startswith(("--members", "--stripe-units", "--levels"))


@pytest.mark.parametrize("option, value, expected", [
    ("--members", "8-4", "--members '8-4': expected N or A-B"),
    ("--stripe-units", "3K", "--stripe-units '3K': expected SIZE or SIZE-SIZE"),
    ("--levels", "raid7", "--levels: unknown level 'raid7'"),
    ("--requests", "0", "--requests"),
    ("--workers", "0", "argument --workers: 0 is not a positive number of processes"),
    ("--rank-by", "speed", "--rank-by 'speed': expected one of mean_ms"),
    ("--rank-by", "cost_usd", "not priced"),
])
def test_bad_options_are_usage_errors(tmp_path, option, value, expected):
    trace = write_trace(tmp_path / "t.csv", 10)
    p = cli("advise", str(trace), "--members", "3", "--stripe-units", "4K", "--levels", "raid5", option, value,
            "--out", str(tmp_path / "out"))
    assert p.returncode == 2, p.stderr
    assert expected in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "out" / "results.csv").exists()  # refused before anything ran


@pytest.mark.parametrize("args, expected", [
    (["--set", "array.level=raid0"], "--set array.level: advise sets it from --levels"),
    (["--set", "workload.max_requests=5"], "from --requests"),
    (["--drive", "no-such-drive"], "stripe-unit-table5"),  # the core's error lists the presets
    (["--members", "1-200", "--stripe-units", "4K-1M"], "at most 500"),
    (["--levels", "raid6", "--members", "2"], "refuses every configuration in the ranges: config error at "
                                              "`array.members`"),
])
def test_requests_advise_cannot_carry_out_are_errors(tmp_path, args, expected):
    trace = write_trace(tmp_path / "t.csv", 10)
    p = cli("advise", str(trace), "--levels", "raid5", "--members", "3", "--stripe-units", "4K", *args,
            "--out", str(tmp_path / "out"))
    assert p.returncode == 1, p.stderr
    assert expected in p.stderr and "Traceback" not in p.stderr


def test_a_missing_trace_is_an_error(tmp_path):
    p = cli("advise", str(tmp_path / "nope.csv"))
    assert p.returncode == 1 and "nope.csv: no such file" in p.stderr


# --- Pareto and ranking on hand-made rows ----------------------------------------------------------

def row(name, mean, p99, erases, gib, level="raid5", members=4, su=4096):
    return {"configuration": name, "mean_ms": mean, "p99_ms": p99, "max_erases": erases, "usable_gib": gib,
            "level": level, "members": members, "stripe_unit_bytes": su}


CRITERIA = [("mean_ms", "min"), ("p99_ms", "min"), ("max_erases", "min"), ("usable_gib", "max")]


def test_pareto_marks_on_hand_made_rows():
    rows = [
        row("fast", 1.0, 5.0, 100, 10.0),      # best mean
        row("slower", 2.0, 5.0, 100, 10.0),    # dominated by fast: worse mean, equal elsewhere
        row("roomy", 3.0, 9.0, 100, 40.0),     # most capacity: optimal
        row("worn", 0.5, 9.0, 900, 10.0),      # best mean of all but wears most: optimal
        row("twin-a", 4.0, 2.0, 50, 5.0),      # best p99 and erases, with an identical twin:
        row("twin-b", 4.0, 2.0, 50, 5.0),      # neither is better on one, so neither dominates
        row("poor", 5.0, 10.0, 1000, 4.0),     # dominated by every other
    ]
    marks = dict(zip([r["configuration"] for r in rows], advise.pareto_optimal(rows, CRITERIA)))
    assert marks == {"fast": True, "slower": False, "roomy": True, "worn": True, "twin-a": True, "twin-b": True,
                     "poor": False}


def test_capacity_is_better_higher():
    # Equal on everything but capacity: the larger one dominates (a "min" reading would pick the other).
    small, large = row("small", 1, 1, 1, 1.0), row("large", 1, 1, 1, 2.0)
    assert advise.pareto_optimal([small, large], CRITERIA) == [False, True]


def test_a_missing_value_is_an_error_not_a_pass():
    with pytest.raises(advise.AdviseError, match="no value of p99_ms"):
        advise.pareto_optimal([row("a", 1, None, 1, 1), row("b", 1, 1, 1, 1)], CRITERIA)


def test_ranking_puts_pareto_rows_first_each_group_by_the_key():
    rows = [dict(row("a", 3.0, 1.0, 5, 1.0), pareto=True), dict(row("b", 1.0, 9.0, 5, 1.0), pareto=False),
            dict(row("c", 2.0, 2.0, 5, 1.0), pareto=True), dict(row("d", 0.5, 8.0, 5, 1.0), pareto=False)]
    by_mean = advise.rank(rows, "mean_ms", CRITERIA)
    assert [r["configuration"] for r in by_mean] == ["c", "a", "d", "b"]
    assert [r["rank"] for r in by_mean] == [1, 2, 3, 4]
    assert [r["configuration"] for r in advise.rank(rows, "p99_ms", CRITERIA)] == ["a", "c", "d", "b"]
    # Higher capacity ranks first when ranking by it.
    roomy = [dict(row("x", 1, 1, 1, 1.0), pareto=True), dict(row("y", 1, 1, 1, 3.0), pareto=True)]
    assert [r["configuration"] for r in advise.rank(roomy, "usable_gib", CRITERIA)] == ["y", "x"]


# --- end to end, checked against the sweep's own results.csv ------------------------------------

@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """One priced advise run (JSON) of 300 requests of a trace, whose rows later runs reuse."""
    tmp = tmp_path_factory.mktemp("advise")
    trace = write_trace(tmp / "t.csv")
    out = tmp / "out"
    args = [str(trace), *RANGES, *SMALL, *PRICES, "--requests", "200", "--out", str(out), "--no-progress",
            "--workers", "2"]
    p = cli("advise", *args, "--json", "--drive", "stripe-unit-table5")
    assert p.returncode == 0, p.stderr
    return {"args": args, "result": json.loads(p.stdout), "out": out, "stderr": p.stderr, "tmp": tmp}


def results_csv(out):
    """The sweep's rows, read as text and computed here: ms, GiB, erases of the members the row has."""
    rows = {}
    for r in csv.DictReader(open(out / "results.csv")):
        assert r["status"] == "ok"
        members = int(r["array.members"])
        erases = [int(r[f"array.erases[{i}]"]) for i in range(members)]
        assert all(r.get(f"array.erases[{i}]", "") == "" for i in range(members, 8))  # no member it lacks
        gib = int(r["array.capacity_bytes"]) / 2**30
        cost = members * 100 + 50  # by hand: the drives and the controller priced in PRICES
        rows[(r["array.level"], members, int(r["array.stripe_unit_bytes"]))] = {
            "requests": int(r["host.requests"]), "mean_ms": float(r["host.response.mean_ns"]) / 1e6,
            "p99_ms": int(r["host.response.p99_ns"]) / 1e6, "max_erases": max(erases),
            "mean_erases": sum(erases) / members, "usable_gib": gib, "cost_usd": cost, "usd_per_gib": cost / gib}
    return rows


def brute_force_pareto(rows):
    keys = {"mean_ms": 1, "p99_ms": 1, "max_erases": 1, "cost_usd": 1, "usable_gib": -1}  # -1: higher is better

    def dominates(a, b):
        return all(a[k] * s <= b[k] * s for k, s in keys.items()) and any(a[k] * s < b[k] * s for k, s in keys.items())

    return {k for k, r in rows.items() if not any(dominates(o, r) for o in rows.values())}


def test_rows_are_the_sweeps_results(swept):
    result, expected = swept["result"], results_csv(swept["out"])
    got = {(r["level"], r["members"], r["stripe_unit_bytes"]): r for r in swept["result"]["rows"]}
    # raid6 of 2 members is refused by the core and skipped, with its reason; the other 16 ran.
    assert set(got) == set(expected) and len(got) == 3 * 3 * 2 - 2
    assert [(s["level"], s["members"]) for s in result["skipped"]] == [("raid6", 2), ("raid6", 2)]
    assert all("Raid6 needs at least 3 members, got 2" in s["reason"] for s in result["skipped"])
    for key, want in expected.items():
        for column, value in want.items():
            assert got[key][column] == pytest.approx(value), (key, column)
    assert {r["requests"] for r in got.values()} == {200}  # --requests: the first 200 of the trace's 300
    assert result["requests"] == 200 and "up to the first 200 requests" in result["workload"]
    assert max(r["max_erases"] for r in got.values()) > 0  # the small drives erased: the criterion says something


def test_uneven_wear_shows_raid4s_parity_member(swept):
    # RAID-4's parity member takes every parity write (the stripe-unit paper's Figure 12): its erases lead.
    for r in swept["result"]["rows"]:
        if r["level"] == "raid4" and r["members"] >= 3:
            assert r["erases"][-1] == r["max_erases"] > r["mean_erases"], r


def test_pareto_marks_and_ranking_match_an_independent_computation(swept):
    expected = results_csv(swept["out"])
    optimal = brute_force_pareto(expected)
    rows = swept["result"]["rows"]
    assert {(r["level"], r["members"], r["stripe_unit_bytes"]) for r in rows if r["pareto"]} == optimal
    assert 0 < len(optimal) < len(rows)
    # The stated rule: Pareto-optimal first, each group by mean response time.
    order = sorted(expected, key=lambda k: (k not in optimal, expected[k]["mean_ms"]))
    assert [(r["level"], r["members"], r["stripe_unit_bytes"]) for r in rows] == order
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    assert swept["result"]["criteria"] == ["mean_ms", "p99_ms", "max_erases", "usable_gib", "cost_usd"]


def test_text_run_reuses_the_points_and_marks_the_same_rows(swept):
    # Same configurations through --preset (the alias of --drive): nothing reruns, the table shows the rows.
    journal = (swept["out"] / "points.jsonl").read_bytes()
    p = cli("advise", *swept["args"], "--preset", "stripe-unit-table5")
    assert p.returncode == 0, p.stderr
    assert (swept["out"] / "points.jsonl").read_bytes() == journal
    lines = p.stdout.splitlines()
    assert "up to the first 200 requests" in lines[0] and "each run completed 200" in lines[0]
    table = lines[lines.index("") + 1:]
    marked = [line for line in table[1:] if line.split()[1:2] in (["*"], ["*!"])]
    assert len(marked) == sum(r["pareto"] for r in swept["result"]["rows"])
    assert "Skipped 2 configurations the core refuses" in p.stdout
    assert "raidsim: advise: 16 configurations" in p.stderr


def test_rank_by_orders_each_group_by_that_criterion(swept):
    p = cli("advise", *swept["args"], "--json", "--rank-by", "usd_per_gib")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)["rows"]
    for group in (True, False):
        values = [r["usd_per_gib"] for r in rows if r["pareto"] is group]
        assert values == sorted(values)
    assert [r["pareto"] for r in rows] == sorted((r["pareto"] for r in rows), reverse=True)


def test_unpriced_drives_have_no_cost_criterion_and_default_out(tmp_path):
    trace = write_trace(tmp_path / "t.csv", 40)
    p = cli("advise", str(trace), "--levels", "raid0,raid10", "--members", "4", "--stripe-units", "16K",
            "--requests", "30", "--json", "--no-progress", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout)
    assert (tmp_path / "raidsim-out" / "advise-t" / "results.csv").is_file()  # the default --out
    assert result["criteria"] == ["mean_ms", "p99_ms", "max_erases", "usable_gib"]
    assert all(r["cost_usd"] is None and r["usd_per_gib"] is None for r in result["rows"])
    # RAID-0 of 4 has twice the usable capacity of RAID-10 of 4 (two copies).
    gib = {r["level"]: r["usable_gib"] for r in result["rows"]}
    assert gib["raid0"] == pytest.approx(2 * gib["raid10"], rel=1e-3)
    # 30 requests of full-size drives erase nothing: max/mean is empty, not a number.
    assert all(r["max_erases"] == 0 and r["max_to_mean_erases"] is None for r in result["rows"])


def test_config_file_with_its_synthetic_workload(tmp_path):
    (tmp_path / "drive.toml").write_text(
        '[ssd.geometry]\nblocks_per_plane = 64\n[workload]\nkind = "synthetic"\nread_fraction = 0.5\n')
    p = cli("advise", "--config", str(tmp_path / "drive.toml"), "--levels", "raid5", "--members", "3-4",
            "--stripe-units", "8K", "--requests", "50", "--json", "--out", str(tmp_path / "out"), "--no-progress")
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout)
    assert result["workload"] == "50 requests of the config's synthetic workload"
    assert result["drive"] == "config drive.toml"
    assert [r["requests"] for r in result["rows"]] == [50, 50]
    # The config's drive, not the default preset's: the core's default geometry (8 channels x 8 planes) with
    # 64 blocks a plane, floor(15 %) = 9 of them reserved: 64 x 55 blocks x 64 pages x 4 KiB per member,
    # of which RAID-5 of n keeps n - 1.
    member_gib = 64 * 55 * 64 * 4096 / 2**30
    assert sorted(r["usable_gib"] for r in result["rows"]) == pytest.approx([2 * member_gib, 3 * member_gib], rel=1e-9)


def test_explicit_requests_all_run_and_refuse_a_length(tmp_path):
    (tmp_path / "listed.toml").write_text(
        '[ssd.geometry]\nblocks_per_plane = 64\n[workload]\nkind = "requests"\n'
        'requests = [[0, "W", 0, 65536], [1000, "R", 0, 4096], [2000, "W", 65536, 4096]]\n')
    args = ["advise", "--config", str(tmp_path / "listed.toml"), "--levels", "raid5", "--members", "3",
            "--stripe-units", "16K", "--out", str(tmp_path / "out"), "--no-progress"]
    p = cli(*args, "--requests", "2")
    assert p.returncode == 1 and "lists its requests explicitly" in p.stderr
    p = cli(*args, "--json")
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout)
    assert result["workload"] == "the config's explicit requests, all of them" and result["requests"] is None
    assert [r["requests"] for r in result["rows"]] == [3]
