"""Every shared trace parses and replays through the public API (issue #2)."""

import pytest

import raidsim
from raidsim import Workload

# (file, format, requests, write %) from ../shared/traces/README.md; the
# blkparse YCSB count is blkparse's own summary (9,039 + 848 dispatches),
# one more than the README's 9,886 (see crates/raidsim-core/tests/shared_traces.rs).
TABLE = [
    ("msr-hm0-sample.csv", "msr_csv", 1_000, 49),
    ("umass-sample.spc", "spc", 460, 0),
    ("disksim-valid-ascii.trace", "disksim_ascii", 100_000, 20),
    ("mqsim-wsrch-small.trace", "mqsim_ascii", 24_783, 0),
    ("mqsim-tpcc-small.trace", "mqsim_ascii", 6_999, 37),
    ("ssdsim-example.ascii", "mqsim_ascii", 10_000, 59),
    ("blkparse-ycsb-ext4.txt", "blkparse", 9_887, 9),
    ("blkparse-small.txt", "blkparse", 673, 76),
    ("systor17-sample.csv.gz", "systor_csv", 999, 17),
    ("fiu-mail-head.txt", "fiu", 9_998, 11),
]


@pytest.mark.parametrize("name,fmt,requests,write_pct", TABLE)
def test_trace_stats_match_the_readme(traces_dir, name, fmt, requests, write_pct):
    s = raidsim.trace_stats(traces_dir / name, skip_malformed=(name == "umass-sample.spc"))
    assert s["format"] == fmt
    assert s["requests"] == requests
    assert round(s["write"]["percent"]) == write_pct


@pytest.mark.parametrize("name,fmt,requests,write_pct", TABLE)
def test_trace_replays_on_the_cr5m_drive(traces_dir, name, fmt, requests, write_pct):
    # Parsing and replay, not fitting: the traces reach far past this drive, folded on purpose.
    w = Workload.trace(traces_dir / name, skip_malformed=True, max_requests=20_000, max_wrapped_fraction=1.0)
    r = raidsim.simulate("cr5m-table1", w).to_dict()
    assert r["host"]["requests"] == min(requests, 20_000)
    assert r["workload"]["requests"] == r["host"]["requests"]


def test_malformed_line_names_file_line_and_layout(traces_dir):
    with pytest.raises(raidsim.TraceError) as e:
        raidsim.simulate("cr5m-table1", Workload.trace(traces_dir / "umass-sample.spc"))
    msg = str(e.value)
    assert "umass-sample.spc:33" in msg and "ASU,LBA,Size,Opcode,Timestamp" in msg


def test_out_of_range_policy(traces_dir):
    # MSR hm_0 addresses up to ~16 GB; the 32 MB erasure-code drive wraps them when allowed, or refuses.
    path = traces_dir / "msr-hm0-sample.csv"
    r = raidsim.simulate("erasure-code-table6", Workload.trace(path, max_wrapped_fraction=1.0)).to_dict()
    assert r["workload"]["wrapped_out_of_range"] > 0
    with pytest.raises(raidsim.ConfigError, match="max_wrapped_fraction"):
        raidsim.simulate("erasure-code-table6", Workload.trace(path))
    with pytest.raises(raidsim.TraceError, match="msr-hm0-sample.csv:1: request"):
        raidsim.simulate("erasure-code-table6", Workload.trace(path, out_of_range="error"))


def test_time_scale_stretches_the_run(traces_dir):
    # The TPC-C sample spans 938.513 ms .. 1075.002 ms; slowed 100x and 200x the
    # drive keeps up, so the run lasts about the scaled span.
    path = traces_dir / "mqsim-tpcc-small.trace"
    span_ns = 1_075_002_000 - 938_513_000
    for scale in (100.0, 200.0):
        w = Workload.trace(path, time_scale=scale, max_wrapped_fraction=1.0)  # its 16 devices reach past the drive
        d = raidsim.simulate("cr5m-table1", w).to_dict()["host"]["duration_ns"]
        assert d == pytest.approx(scale * span_ns, rel=0.001)
