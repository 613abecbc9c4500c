"""Counting mode and the stripe-unit paper's tables through the public API (issue #3)."""

import json
import subprocess
import sys

import pytest

import raidsim
from raidsim import Workload, _native
from raidsim.papers.reproduce import stripe_unit_tables


@pytest.mark.parametrize("granularity", ["page", "whole_unit", "disksim"])
def test_tables_3_and_4_all_32_rows(granularity):
    rows = stripe_unit_tables(granularity)
    assert len(rows) == 16
    for r in rows:
        assert r["reads"] == r["published_reads"], r
        assert r["writes"] == r["published_writes"], r


@pytest.mark.parametrize("data_disks", [2, 3, 4, 5, 8])
def test_equations_agree_with_exact_counts_for_whole_unit_requests(data_disks):
    # The paper's Eqs. 1-3 assume whole stripe units; there they give the exact count.
    for sus in (4096, 65536):
        for sdi in range(data_disks):
            for units in range(1, 3 * data_disks + 2):
                req = units * sus
                c = raidsim.count({"array": {"level": "raid4", "members": data_disks + 1, "stripe_unit_bytes": sus}},
                                  Workload.requests([(0, "W", sdi * sus, req)]))
                nepr, nepw = _native.stripe_unit_equations(data_disks, sus, 4096, req, sdi)
                assert nepr == sum(c.extra_page_reads())
                assert nepw == c.pages_written()[data_disks]


def test_reproduce_json_shape():
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "reproduce", "stripe-unit-tables", "--json"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert len(rows) == 16
    keys = {"stripe_unit_bytes", "start_disk", "reads", "writes", "published_reads", "published_writes"}
    assert keys <= set(rows[0])
    assert all(len(r[k]) == 5 for r in rows for k in ("reads", "writes", "published_reads", "published_writes"))


def test_count_cli_lists_members_in_order():
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "count", "--set", "array.level=raid5", "--set", "array.members=5",
                        "--set", "workload.requests=1000", "--json"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert [m["member"] for m in d["members"]] == [0, 1, 2, 3, 4]
    assert d["requests"] == 1000


def test_raid1_mirrors_every_write_and_reads_one_copy():
    c = raidsim.count({"array": {"level": "raid1", "members": 3}},
                      Workload.requests([(0, "W", 0, 8192), (1, "R", 0, 8192)]))
    pages = c.pages()
    assert list(pages["written.user"]) == [2, 0, 0] and list(pages["written.mirror"]) == [0, 2, 2]
    assert list(pages["read.user"]) == [2, 0, 0]


def test_degraded_write_keeps_parity_consistent():
    # RAID5 3+1, member holding data unit 0 of stripe 0 failed: a write to that
    # unit cannot pre-read it, so reconstruct-write reads the other two data units.
    cfg = {"array": {"level": "raid5", "members": 4, "stripe_unit_bytes": 4096, "layout": "left_symmetric",
                     "failures": [{"member": 0, "at_ns": 0}]}}
    c = raidsim.count(cfg, Workload.requests([(0, "W", 0, 4096)]))
    d = c.to_dict()["members"]
    assert d[0]["pages_written"] == {} and d[0]["pages_read"] == {}
    assert d[1]["pages_read"] == {"pre_read_rcw": 1} and d[2]["pages_read"] == {"pre_read_rcw": 1}
    assert d[3]["pages_written"] == {"parity": 1}


def test_too_many_failures_is_a_config_error():
    cfg = {"array": {"level": "raid6", "members": 5, "failures": [{"member": i, "at_ns": 0} for i in range(3)]}}
    with pytest.raises(raidsim.ConfigError, match="tolerates 2"):
        raidsim.count(cfg, Workload.requests([(0, "W", 0, 4096)]))


def test_heterogeneous_members_and_stripe_order():
    # Member 4 (the RAID4 parity member) has a slower page program: the array
    # still runs, the member's own config is kept, and serving stripes in
    # order is never faster than in parallel for multi-stripe writes.
    base = {"array": {"level": "raid4", "members": 5, "stripe_unit_bytes": 4096,
                      "member_ssd": [{}, {}, {}, {}, {"timing": {"t_program_ns": 400_000}}]},
            "ssd": {"geometry": {"blocks_per_plane": 64}}}
    w = Workload.synthetic(requests=300, read_fraction=0.0, size={"kind": "fixed", "mean_bytes": 65536}, processes=2)
    par = raidsim.simulate(base, w, overrides={"array.stripe_order": "parallel"}).to_dict()["host"]["response"]["mean_ns"]
    seq = raidsim.simulate(base, w, overrides={"array.stripe_order": "sequential"}).to_dict()["host"]["response"]["mean_ns"]
    assert seq > par
    text = raidsim.Config.from_dict(base).resolved_toml()
    assert "t_program_ns = 400000" in text


def test_member_ssd_errors_name_the_member():
    cfg = {"array": {"level": "raid0", "members": 2, "member_ssd": [{}, {"geometry": {"chanels": 2}}]}}
    with pytest.raises(raidsim.ConfigError, match=r"array.member_ssd\[1\]"):
        raidsim.Config.from_dict(cfg).resolved()


def test_erasure_code_updates_match_table_3_and_json_shape():
    from raidsim.papers.reproduce import erasure_code_updates

    rows = erasure_code_updates()
    published = [r for r in rows if r["published"] is not None]
    assert len(published) == 22
    for r in published:
        assert r["parity_writes"] == r["published"], r
    keys = {"code", "data_disks", "request_bytes", "start_row", "start_disk", "parity_writes", "published"}
    assert all(keys <= set(r) for r in rows)
    # Every start row of a codeword and every data disk, for every size: RS 1x4, EVENODD 4x5, RDP 4x4 starts.
    assert len(rows) == 4 * (4 + 20 + 16)


def test_dedicated_raid6_reports_now_nor_noc_per_parity_member():
    cfg = {"array": {"level": "raid6", "members": 7, "stripe_unit_bytes": 4096, "code": "evenodd",
                     "parity_placement": "dedicated"},
           "ssd": {"geometry": {"blocks_per_plane": 64}}, "precondition": {"fill_fraction": 0.9}}
    w = Workload.synthetic(requests=4000, read_fraction=0.0, processes=4, span_bytes=64 << 20)
    a = raidsim.simulate(cfg, w).to_dict()["array"]
    rp, sp = a["row_parity"], a["second_parity"]
    assert (rp["member"], sp["member"]) == (5, 6)
    assert rp["pages_written"] == a["parity_pages_written"][5] and sp["pages_written"] == a["parity_pages_written"][6]
    # EVENODD's adjuster makes the diagonal-parity disk write more than the row-parity disk.
    assert sp["pages_written"] > rp["pages_written"] > 0
    assert sp["erases"] >= rp["erases"]


def test_counting_one_drive_addresses_all_of_it_as_a_run_does():
    # The Table-6 drive's capacity is not a whole number of 64 KiB units: counting refused requests in
    # its last partial unit that the timed run serves. Both now see the same requests and pages.
    cfg = raidsim.Config.preset("erasure-code-table6").set("workload.requests", 2000)
    counted = raidsim.count(cfg).to_dict()
    ran = raidsim.simulate(cfg, progress=False).to_dict()
    assert counted["requests"] == ran["host"]["requests"] == 2000
    assert sum(m["pages_written"].get("user", 0) for m in counted["members"]) == ran["devices"][0]["pages_written"]["user"]
