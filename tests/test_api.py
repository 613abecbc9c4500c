"""simulate() through the public API (issue #2)."""

import pandas as pd
import pytest

import raidsim
from raidsim import Workload


def test_idle_read_latency_is_the_sum_of_its_parts():
    # Table-5 drive as DiskSim runs it: read 25 us + 8 sectors of 528 B at
    # 25 ns/B (105.6 us) + 4 KiB over SATA-II 300 MB/s.
    link_ns = -(-4096 * 10**9 // 300_000_000)
    r = raidsim.simulate("stripe-unit-table5", Workload.requests([(0, "read", 8192, 4096)]))
    assert r.to_dict()["host"]["response"]["mean_ns"] == 25_000 + 105_600 + link_ns


def test_same_config_same_bytes():
    cfg = raidsim.Config.preset("stripe-unit-table5").with_overrides({"workload.requests": 5000, "sim.seed": 9})
    assert raidsim.simulate(cfg).to_json() == raidsim.simulate(cfg).to_json()


def test_closed_loop_keeps_n_outstanding_littles_law():
    # With N processes and no think time, N requests are always in the system,
    # so throughput x mean response time = N (Little's law).
    n = 6
    w = Workload.synthetic(requests=20_000, processes=n, read_fraction=0.5, span_bytes=2**30)
    h = raidsim.simulate("cr5m-table1", w).to_dict()["host"]
    in_system = h["iops"] * h["response"]["mean_ns"] / 1e9
    assert in_system == pytest.approx(n, rel=0.01)


def test_report_tables():
    r = raidsim.simulate(None, Workload.synthetic(requests=3000, read_fraction=0.5))
    assert isinstance(r.summary(), pd.DataFrame) and r.summary()["requests"][0] == 3000
    lat = r.latency()
    assert lat.loc["read", "count"] + lat.loc["write", "count"] == 3000
    assert (lat["p50_ms"] <= lat["p99_ms"]).all() and (lat["p99_ms"] <= lat["max_ms"]).all()
    by_cause = r.pages_by_cause()
    user = by_cause[by_cause.cause == "user"].iloc[0]
    h = r.to_dict()["host"]
    assert user.pages_read == h["bytes_read"] // 4096 and user.pages_written == h["bytes_written"] // 4096
    assert r.stats().path.str.startswith(("host.", "ssd.")).all()
    assert abs(r.time_series().iops.sum() * (r.to_dict()["time_series"]["interval_ns"] / 1e9) - 3000) < 1e-6


def test_save_writes_report_and_resolved_config(tmp_path):
    r = raidsim.simulate(None, Workload.synthetic(requests=100))
    r.save(tmp_path)
    for name in ("report.json", "config.toml", "summary.csv", "latency.csv", "devices.csv", "time_series.csv", "stats.csv"):
        assert (tmp_path / name).stat().st_size > 0, name
    assert "[derived]" in (tmp_path / "config.toml").read_text()


def test_request_beyond_capacity_is_an_error_naming_it():
    cap = raidsim.Config.preset("erasure-code-table6").resolved()["derived"]["capacity_bytes"]
    # Refused when the config is resolved, before anything runs.
    with pytest.raises(raidsim.ConfigError, match=r"requests\[1\]"):
        raidsim.simulate("erasure-code-table6", Workload.requests([(0, "W", 0, 4096), (5, "W", cap, 4096)]))


def test_bad_request_tuple_is_a_value_error():
    with pytest.raises(ValueError, match="op 'X'"):
        Workload.requests([(0, "X", 0, 4096)])


def test_preconditioning_ages_the_drive():
    # Random overwrites after a full fill leave garbage collection running
    # from the first request: write amplification above 1.
    w = Workload.synthetic(requests=20_000, read_fraction=0.0)
    r = raidsim.simulate("erasure-code-table6", w, overrides={"precondition.fill_fraction": 1.0,
                                                             "precondition.random_overwrite_factor": 1.0})
    d = r.to_dict()["devices"][0]
    assert d["write_amplification"] > 1.0 and d["erases"] > 0
    assert d["erase_count"]["max"] >= d["erase_count"]["mean"] >= d["erase_count"]["min"]


def test_preconditioning_runs_in_slices_with_its_own_progress_bar(capsys):
    # The Table-5 preset starts full: about 7 million pages, more than one slice.
    raidsim.simulate("stripe-unit-table5", Workload.requests([(0, "R", 0, 4096)]), progress=True)
    err = capsys.readouterr().err
    assert "preconditioning" in err and "100%" in err, err[-500:]


def test_overrides_apply_on_top_of_a_workload_passed_with_them(tmp_path):
    # `workload` replaces the config's [workload]; `overrides` given with it apply after, not under it.
    trace = tmp_path / "t.csv"
    trace.write_text("".join(f"{128166372000000000 + i * 10_000_000},hm,0,Write,{i * 4096},4096,100\n"
                             for i in range(6)))
    r = raidsim.simulate("erasure-code-table6", Workload.trace(trace), overrides={"workload.max_requests": 2})
    assert r.to_dict()["host"]["requests"] == 2
    r = raidsim.simulate(None, Workload.synthetic(requests=300), overrides=["workload.requests=100"])
    assert r.to_dict()["host"]["requests"] == 100
    c = raidsim.count(None, Workload.requests([(0, "W", 0, 4096)]), overrides={"workload.requests": [[0, "W", 0, 8192]]})
    assert sum(c.pages_written()) == 2
    with pytest.raises(raidsim.ConfigError, match="workload.read_fraction"):
        raidsim.simulate(None, Workload.trace(trace), overrides={"workload.read_fraction": 0.5})


def test_long_request_lists_travel_packed_and_run_as_listed():
    reqs = [(i * 1000, "W" if i % 3 else "R", (i * 7919 % 5000) * 4096, 4096) for i in range(3000)]
    w = Workload.requests(reqs)
    assert "packed" in w.to_dict() and "requests" not in w.to_dict()
    assert "<3000 requests>" in repr(w)
    packed = raidsim.simulate(None, w, overrides={"ssd.geometry.blocks_per_plane": 64}).to_dict()
    # The same requests, listed: split so that no part is long enough to be packed.
    table = {"kind": "requests", "requests": [[t, op, o, n] for t, op, o, n in reqs]}
    listed = raidsim.simulate(None, table, overrides={"ssd.geometry.blocks_per_plane": 64}).to_dict()
    assert packed["host"] == listed["host"] and packed["devices"] == listed["devices"]


def test_the_text_report_shows_the_controllers_own_statistics():
    # Three sequential 4 KiB reads on RAID-0 of two drives, reading 8 KiB ahead: the first misses and
    # reads ahead, the next two are hits (the hand count of rais_controller.rs's closed form).
    reqs = [(0, "R", 0, 4096), (1_000_000, "R", 4096, 4096), (2_000_000, "R", 8192, 4096)]
    r = raidsim.simulate(None, Workload.requests(reqs), overrides={
        "array.level": "raid0", "array.members": 2, "array.stripe_unit_bytes": 4096,
        "array.controller.read_ahead": "always", "array.controller.read_ahead_bytes": 8192,
        "array.controller.cache_bytes": 1 << 20})
    lines = r.to_text().split("\n")
    at = lines.index("Controller")
    shown = {ln.split()[0]: ln.split()[1] for ln in lines[at + 1:at + 4]}
    assert shown == {"read_ahead.hits": "2", "read_ahead.reads": "2", "read_ahead.bytes": "16,384"}
    # Without a controller of its own, no such section.
    assert "Controller" not in raidsim.simulate(None, Workload.requests(reqs[:1])).to_text().split("\n")
