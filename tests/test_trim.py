"""Trims through the API and the command line: explicit requests (listed and packed), a blkparse trace's
discards, what the text report and trace-stats show, and the refusals a user meets."""

import json
import subprocess
import sys

import pytest

import raidsim
from raidsim import Workload
from raidsim.workload import RequestError

PAGE = 4096
FULL = {"precondition.fill_fraction": 1.0}


def stats(report):
    return {s["path"]: s["value"] for s in report.to_dict()["stats"]}


@pytest.mark.parametrize("op", ["T", "t", "trim"])
def test_every_spelling_of_a_trim_drops_the_pages_it_covers(op):
    r = raidsim.simulate("disksim-ssd-validation", Workload.requests([(0, op, PAGE, 10 * PAGE)]), overrides=FULL,
                         progress=False)
    s = stats(r)
    assert (s["ssd.trim.pages_dropped"], s["host.trim.requests"], s["host.trim.bytes"]) == (10, 1, 10 * PAGE)
    assert r.to_dict()["host"]["requests"] == 0  # trims are not in the response figures


def test_a_packed_list_carries_its_trims():
    # Past 1,000 requests the list travels packed: the op byte T must survive the packing.
    writes = [(i * 1000, "W", i * PAGE, PAGE) for i in range(1200)]
    trims = [(2_000_000 + i, "T", i * 2 * PAGE, PAGE) for i in range(300)]
    w = Workload.requests(writes + trims)
    assert "packed" in w.to_dict()
    s = stats(raidsim.simulate("disksim-ssd-validation", w, overrides={"precondition.fill_fraction": 0.0}, progress=False))
    # Trims of pages 0, 2, ..., 598 after the writes of pages 0-1199: each drops one written page.
    assert (s["host.trim.requests"], s["ssd.trim.pages_dropped"], s.get("ssd.trim.pages_unmapped")) == (300, 300, 0)


def test_an_unknown_op_names_the_three_it_takes():
    with pytest.raises(RequestError, match="R, W, T"):
        Workload.requests([(0, "D", 0, PAGE)])


def test_the_text_report_shows_what_an_array_trimmed_and_what_parity_kept():
    # RAID-5 of 4 with 64 KiB units: 192 KiB stripes. [4 KiB, +1 MiB) holds stripes 1-4 whole (768 KiB), and
    # 256 KiB in parts of stripes 0 and 5, kept; the members trim 4 stripes x 4 members x 64 KiB.
    r = raidsim.simulate("stripe-unit-table5", Workload.requests([(0, "T", PAGE, 1 << 20), (1, "W", 0, PAGE)]),
                         overrides={**FULL, "array.level": "raid5", "array.members": 4}, progress=False)
    line = next(x for x in r.to_text().splitlines() if x.startswith("host bytes trimmed"))
    assert line.split(None, 3)[3] == "1,048,576 (1 trim; 1,048,576 bytes on the members, 262,144 kept in parts of " \
                                     "stripes under parity)"
    assert stats(r)["host.trim.kept_bytes"] == 256 * 1024


def test_a_run_without_trims_reports_none():
    r = raidsim.simulate("disksim-ssd-validation", Workload.requests([(0, "W", 0, PAGE)]), progress=False)
    assert not any("trim" in path for path in stats(r))
    assert "trimmed" not in r.to_text()
    assert "trims_skipped" not in r.to_dict()["workload"]
    assert r.to_dict()["trim"] == {"requests": 0, "bytes": 0, "kept_bytes": 0, "member_bytes": 0}


BLKPARSE = "".join(f"8,0 0 {i} 0.{i:09d} 1 D {rwbs} {sector} + {n} [x]\n" for i, (rwbs, sector, n) in enumerate(
    [("W", 0, 8), ("D", 0, 64), ("R", 0, 8), ("DS", 64, 64), ("W", 8, 8)], start=1))


def test_a_blkparse_traces_discards_are_trims_in_trace_stats_and_in_a_run(tmp_path):
    trace = tmp_path / "discards.txt"
    trace.write_text(BLKPARSE)
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "trace-stats", str(trace), "--json"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert (s["requests"], s["trim"]["requests"], s["trim"]["percent"]) == (5, 2, 40.0)
    assert s["trim"]["mean_bytes"] == 64 * 512
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "trace-stats", str(trace)], capture_output=True, text=True)
    assert "trims                      2 (40.0 %), mean 32.0 KiB" in p.stdout, p.stdout
    r = raidsim.simulate("disksim-ssd-validation", Workload.trace(str(trace)), overrides=FULL, progress=False)
    assert stats(r)["ssd.trim.pages_dropped"] == 16
    skipped = raidsim.simulate("disksim-ssd-validation", Workload.trace(str(trace), trims="skip"), overrides=FULL,
                               progress=False)
    assert skipped.to_dict()["workload"]["trims_skipped"] == 2
    assert '2 trims in the trace left out (workload.trims = "skip")' in skipped.to_text()


def test_a_disk_refuses_trims_saying_how_to_leave_them_out(tmp_path):
    trace = tmp_path / "discards.txt"
    trace.write_text(BLKPARSE)
    with pytest.raises(raidsim.ConfigError, match='member.kind.*hard disk has no trim.*workload.trims = "skip"'):
        raidsim.simulate("hdd-cheetah-9lp", Workload.trace(str(trace)), progress=False)
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "run", "--preset", "hdd-cheetah-9lp", "--trace", str(trace)],
                       capture_output=True, text=True)
    assert p.returncode == 1 and "hard disk has no trim" in p.stderr and "Traceback" not in p.stderr
    r = raidsim.simulate("hdd-cheetah-9lp", Workload.trace(str(trace), trims="skip"), progress=False)
    assert r.to_dict()["host"]["requests"] == 3


def test_a_block_map_refuses_listed_trims_before_the_run():
    with pytest.raises(raidsim.ConfigError, match='ssd.ftl.scheme.*drop the requests whose op is "T"'):
        (raidsim.Config().with_overrides({"ssd.ftl.scheme": "block_map"})
         .with_workload(Workload.requests([(0, "T", 0, PAGE)])).resolved())


def test_mqsim_default_with_its_cached_map_takes_trims():
    r = raidsim.simulate("mqsim-default", Workload.requests([(0, "W", 0, 8 * 8192), (10**6, "T", 0, 8 * 8192)]),
                         overrides={"ssd.geometry.blocks_per_plane": 64, "precondition.fill_fraction": 0.0},
                         progress=False)
    assert stats(r)["ssd.trim.pages_dropped"] == 8


def test_a_synthetic_workload_draws_its_share_of_trims():
    r = raidsim.simulate("disksim-ssd-validation", Workload.synthetic(requests=4000, read_fraction=0.5, trim_fraction=0.25),
                         overrides=FULL, progress=False)
    trims = stats(r)["host.trim.requests"]
    # Binomial(4000, 0.25): mean 1000, standard deviation 27.4.
    assert abs(trims - 1000) < 4 * 27.4
    assert r.to_dict()["host"]["requests"] + trims == 4000
    with pytest.raises(raidsim.ConfigError, match="workload.trim_fraction"):
        raidsim.Config().with_workload(Workload.synthetic(read_fraction=0.9, trim_fraction=0.2)).resolved()
