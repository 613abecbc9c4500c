"""The raidsim command line (issue #2)."""

import json
import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "raidsim.cli", *args], capture_output=True, text=True)


def test_presets_lists_each_with_its_source():
    p = run("presets")
    assert p.returncode == 0
    assert "stripe-unit-table5" in p.stdout and "Rajaei Salmasi" in p.stdout


def test_run_json_and_out(tmp_path):
    p = run("run", "--preset", "erasure-code-table6", "--set", "workload.requests=500", "--json", "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["host"]["requests"] == 500
    assert (tmp_path / "config.toml").exists()


def test_run_prints_human_tables():
    p = run("run", "--set", "workload.requests=200")
    assert p.returncode == 0, p.stderr
    assert "Response time" in p.stdout and "Devices" in p.stdout


def test_bad_key_is_a_clear_error_not_a_traceback():
    p = run("run", "--set", "ssd.geometry.chanels=2")
    assert p.returncode == 1  # a bad input; 2 is argparse's usage error
    assert "raidsim: error:" in p.stderr and "channels" in p.stderr
    assert "Traceback" not in p.stderr


def test_trace_stats(traces_dir):
    p = run("trace-stats", str(traces_dir / "mqsim-tpcc-small.trace"))
    assert p.returncode == 0, p.stderr
    assert "6,999" in p.stdout and "mqsim_ascii" in p.stdout
