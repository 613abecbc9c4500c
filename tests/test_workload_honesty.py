"""What changes the user's question is said or refused: a trace folded onto
a scaled-down drive, a widened time-series interval, requests at odd byte
offsets, a value without a TOML form deep in a dict, a path that is not UTF-8."""

import json
import os
import subprocess
import sys

import pytest

import raidsim
from raidsim import Config, Workload
from raidsim._native import ConfigError

# The case: hm_0 reaches byte 13,575,029,248; RAID-5 of 6 drives of
# 32 blocks per plane holds 2,312,110,080 bytes, so 727 of its 1,000 requests wrap.
SMALL_RAID5 = {"array.level": "raid5", "array.members": 6, "array.stripe_unit_bytes": 65536,
               "ssd.geometry.blocks_per_plane": 32}


def hm0(traces_dir, **options):
    return Workload.trace(traces_dir / "msr-hm0-sample.csv", **options)


def test_a_trace_folded_onto_a_small_drive_is_refused_naming_the_capacity_it_needs(traces_dir):
    cfg = Config.preset("stripe-unit-table5").with_overrides(SMALL_RAID5)
    with pytest.raises(ConfigError) as e:
        raidsim.simulate(cfg, hm0(traces_dir), progress=False)
    message = str(e.value)
    assert "workload.max_wrapped_fraction" in message
    assert "727 of 1000 trace requests (72.7 %)" in message
    assert "13575029248" in message and "2312110080" in message


def test_allowed_wrapping_is_a_warning_with_the_fractions(traces_dir):
    cfg = Config.preset("stripe-unit-table5").with_overrides({**SMALL_RAID5, "workload.max_wrapped_fraction": 1.0})
    report = raidsim.simulate(cfg.with_workload(hm0(traces_dir)).set("workload.max_wrapped_fraction", 1.0), progress=False)
    w = report.to_dict()["workload"]
    assert (w["wrapped_out_of_range"], w["requests"], w["highest_end_bytes"]) == (727, 1000, 13575029248)
    # Bytes of the wrapped requests, counted independently from the file.
    capacity = report.to_dict()["devices"][0]["capacity_bytes"] * 5  # five data members of six
    rows = [line.split(",") for line in (traces_dir / "msr-hm0-sample.csv").read_text().splitlines()]
    beyond = [int(r[5]) for r in rows if int(r[4]) + int(r[5]) > capacity]
    assert (len(beyond), sum(beyond)) == (727, w["wrapped_bytes"])
    assert w["request_bytes"] == sum(int(r[5]) for r in rows)
    wrapped = [m for m in report.warnings if m.startswith("wrapped:")]
    assert len(wrapped) == 1 and "727 of 1000 trace requests (72.7 %)" in wrapped[0]


def test_a_trace_that_fits_has_no_wrap_warning(traces_dir):
    report = raidsim.simulate("stripe-unit-table5", hm0(traces_dir), progress=False)
    assert report.to_dict()["workload"]["wrapped_out_of_range"] == 0
    assert not [m for m in report.warnings if "wrapped" in m]


def test_the_threshold_is_a_fraction_of_requests(traces_dir):
    # 72.7 % wrapped: refused at 0.72, run at 0.73.
    cfg = Config.preset("stripe-unit-table5").with_overrides(SMALL_RAID5).with_workload(hm0(traces_dir))
    with pytest.raises(ConfigError):
        raidsim.simulate(cfg.set("workload.max_wrapped_fraction", 0.72), progress=False)
    raidsim.simulate(cfg.set("workload.max_wrapped_fraction", 0.73), progress=False)
    with pytest.raises(ConfigError, match="workload.max_wrapped_fraction"):
        raidsim.simulate(cfg.set("workload.max_wrapped_fraction", 1.5), progress=False)


def test_counting_refuses_a_folded_trace_too(traces_dir):
    cfg = Config.preset("stripe-unit-table5").with_overrides(SMALL_RAID5).with_workload(hm0(traces_dir))
    with pytest.raises(ConfigError, match="max_wrapped_fraction"):
        raidsim.count(cfg)


def test_a_widened_interval_is_a_warning():
    cfg = Config.preset("stripe-unit-table5").set("metrics.interval_ns", 1)
    report = raidsim.simulate(cfg, Workload.synthetic(requests=1000), progress=False)
    series = report.to_dict()["time_series"]
    assert series["interval_ns"] > 1
    assert len(series["iops"]) <= 1 << 18
    widened = [w for w in report.warnings if w.startswith("metrics.interval_ns = 1 was widened")]
    assert widened and f"to {series['interval_ns']} ns" in widened[0]


def test_an_interval_kept_as_asked_has_no_warning():
    cfg = Config.preset("stripe-unit-table5").set("metrics.interval_ns", 10_000_000)
    report = raidsim.simulate(cfg, Workload.synthetic(requests=1000), progress=False)
    assert report.to_dict()["time_series"]["interval_ns"] == 10_000_000
    assert not [w for w in report.warnings if "interval_ns" in w]


def test_the_memory_estimate_counts_a_fixed_interval_time_series():
    # 2^18 buckets at 512 B: 128 MiB more than the same run with an automatic interval.
    base = Config.preset("stripe-unit-table5").set("ssd.geometry.blocks_per_plane", 64)
    workload = Workload.synthetic(requests=10)
    limit = None
    for limit in range(64 << 20, 1 << 31, 8 << 20):
        try:
            raidsim.simulate(base.set("sim.memory_limit_bytes", limit), workload, progress=False)
            break
        except ConfigError:
            continue
    with pytest.raises(ConfigError, match="time series"):
        raidsim.simulate(base.set("sim.memory_limit_bytes", limit + (100 << 20)).set("metrics.interval_ns", 1000), workload,
                         progress=False)
    raidsim.simulate(base.set("sim.memory_limit_bytes", limit + (128 << 20)).set("metrics.interval_ns", 1000), workload,
                     progress=False)


@pytest.mark.parametrize("key,value", [("workload.alignment_bytes", 3), ("workload.alignment_bytes", 1000),
                                       ("workload.start_bytes", 100)])
def test_requests_at_odd_byte_offsets_are_refused(key, value):
    with pytest.raises(ConfigError, match=f"{key}.*512-byte sector"):
        cfg = Config.preset("stripe-unit-table5").with_workload(Workload.synthetic(requests=10)).set(key, value)
        raidsim.simulate(cfg, progress=False)


def test_a_bad_value_deep_in_a_dict_is_named_by_its_whole_key():
    with pytest.raises(ConfigError, match=r"`ssd\.timing\.t_read_ns`: nan"):
        Config.preset("stripe-unit-table5").with_overrides({"ssd": {"timing": {"t_read_ns": float("nan")}}})
    with pytest.raises(ConfigError, match=r"`sim\.seed`: 18446744073709551617 does not fit"):
        Config.preset("stripe-unit-table5").with_overrides({"sim": {"seed": 2**64 + 1}})


def test_listed_requests_beyond_the_capacity_offer_no_wrap():
    with pytest.raises(raidsim.RaidsimError) as e:
        raidsim.simulate("stripe-unit-table5", Workload.requests([(0, "W", 10**13, 4096)]), progress=False)
    assert "beyond the simulated capacity" in str(e.value) and "out_of_range" not in str(e.value)


@pytest.fixture
def non_utf8_trace(traces_dir, tmp_path):
    path = os.path.join(os.fsencode(tmp_path), b"bad\xff.csv")
    with open(path, "wb") as f:
        f.write((traces_dir / "msr-hm0-sample.csv").read_bytes())
    return os.fsdecode(path)  # as argv gives it: surrogate-escaped


@pytest.mark.parametrize("command", ["run", "count", "trace-stats"])
def test_a_trace_at_a_non_utf8_path_is_read(non_utf8_trace, command, tmp_path):
    args = [command, non_utf8_trace, "--json"] if command == "trace-stats" else [
        command, "--trace", non_utf8_trace, "--json", "--out", str(tmp_path / "out")]
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", *args], capture_output=True)
    assert p.returncode == 0, p.stderr.decode()
    data = json.loads(p.stdout)
    assert data["requests"] if command != "run" else data["host"]["requests"] == 1000
    if command != "trace-stats":
        # The resolved config keeps the path as its bytes (TOML text is UTF-8).
        assert str(list(os.fsencode(non_utf8_trace))) in (tmp_path / "out" / "config.toml").read_text().replace("\n", "")


def write_folded_trace(path, requests, wrapped, size=4096, wrapped_size=None):
    """MSR CSV: `requests` writes of `size` bytes, the first `wrapped` of them (of `wrapped_size`) at 1 TiB."""
    lines = []
    for i in range(requests):
        far = i < wrapped
        offset = 2**40 + i * 2**20 if far else i * 8192
        n = (wrapped_size or size) if far else size
        lines.append(f"{128166372000000000 + i * 10_000},hm,0,Write,{offset},{n},100")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_boundary_is_exact(tmp_path):
    # 29 of 100 wrapped is exactly 0.29: allowed there, refused at 0.28.
    w = Workload.trace(write_folded_trace(tmp_path / "t.csv", 100, 29))
    cfg = Config.preset("stripe-unit-table5").with_workload(w)
    assert raidsim.simulate(cfg.set("workload.max_wrapped_fraction", 0.29), progress=False).to_dict()[
        "workload"]["wrapped_out_of_range"] == 29
    with pytest.raises(ConfigError, match="29 of 100 trace requests"):
        raidsim.simulate(cfg.set("workload.max_wrapped_fraction", 0.28), progress=False)


def test_a_run_stopped_early_is_held_to_the_limit_too(tmp_path):
    # The first 50 of 100 requests wrap: a run of 50 (sim.max_requests) is all wrapped.
    cfg = Config.preset("stripe-unit-table5").with_workload(Workload.trace(write_folded_trace(tmp_path / "t.csv", 100, 50)))
    with pytest.raises(ConfigError, match="50 of 50 trace requests"):
        raidsim.simulate(cfg.set("sim.max_requests", 50), progress=False)
    with pytest.raises(ConfigError, match="max_wrapped_fraction"):
        raidsim.count(cfg.set("sim.max_requests", 50))


def test_wrapped_bytes_are_held_to_the_limit_too(tmp_path):
    # 1 request of 200 wraps (0.5 %, within 1 %), but it carries 8 MiB of the 9 MiB.
    trace = write_folded_trace(tmp_path / "t.csv", 200, 1, size=4096, wrapped_size=8 << 20)
    cfg = Config.preset("stripe-unit-table5").with_workload(Workload.trace(trace))
    with pytest.raises(ConfigError, match=r"1 of 200 trace requests \(0.5 %\)"):
        raidsim.simulate(cfg, progress=False)
    raidsim.simulate(cfg.set("workload.max_wrapped_fraction", 0.95), progress=False)


def test_a_sweep_refuses_a_trace_it_cannot_read_once_per_point(tmp_path):
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    spec = tmp_path / "s.toml"
    spec.write_text(f'name = "piped"\nmetrics = ["host.requests"]\n[base]\npreset = "stripe-unit-table5"\n'
                    f'workload = {{ kind = "trace", path = "{fifo}", format = "msr_csv" }}\n'
                    '[axes]\n"array.stripe_unit_bytes" = [4096, 8192]\n')
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "sweep", str(spec), "--out", str(tmp_path / "o"),
                        "--no-progress"], capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "not a regular file" in p.stderr, p.stderr
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "advise", str(fifo), "--out", str(tmp_path / "a")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "not a regular file" in p.stderr, p.stderr


def test_a_sweep_over_a_non_utf8_trace_path_runs(non_utf8_trace, tmp_path):
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "advise", non_utf8_trace, "--levels", "raid5",
                        "--members", "4", "--stripe-units", "16K", "--out", str(tmp_path / "a"), "--no-progress"],
                       capture_output=True)
    assert p.returncode == 0, p.stderr.decode()


def test_a_nested_workload_value_is_named_by_its_whole_key():
    with pytest.raises(ConfigError, match=r"`workload\.size\.mean_bytes`: nan"):
        raidsim.simulate(None, Workload.synthetic(size={"mean_bytes": float("nan")}))


def test_counting_warns_of_wrapped_requests_below_the_limit(tmp_path):
    cfg = Config.preset("stripe-unit-table5").with_workload(Workload.trace(write_folded_trace(tmp_path / "t.csv", 100, 1)))
    counted = raidsim.count(cfg)
    assert [w for w in counted.warnings if w.startswith("wrapped: 1 of 100 trace requests (1.0 %)")]
    assert "warning: wrapped: 1 of 100" in str(counted)
