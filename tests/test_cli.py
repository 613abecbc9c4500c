"""The raidsim command line (issue #2)."""

import json
import os
import subprocess
import sys

import pytest

from raidsim.cli import main


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


def write_msr_trace(path, requests):
    lines = [f"{128166372000000000 + i * 10_000_000},hm,0,Write,{i * 4096},4096,100" for i in range(requests)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_set_workload_keys_apply_on_top_of_the_trace_not_under_it(tmp_path):
    # --trace replaces the config's whole [workload]; --set workload.* must apply after it, not be lost.
    trace = write_msr_trace(tmp_path / "t.csv", 6)
    base = ["--preset", "erasure-code-table6", "--trace", str(trace), "--json", "--no-progress"]
    plain = json.loads(run("run", *base).stdout)["host"]
    p = run("run", *base, "--set", "workload.max_requests=2")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["host"]["requests"] == 2 and plain["requests"] == 6
    p = run("run", *base, "--set", "workload.time_scale=0.5")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["host"]["duration_ns"] < 0.6 * plain["duration_ns"]
    # An override of the trace options wins over the option itself, as the later setting.
    p = run("run", *base, "--max-requests", "5", "--set", "workload.max_requests=3")
    assert json.loads(p.stdout)["host"]["requests"] == 3
    cap = 32 * 2**20  # beyond the preset's 32 MB: wrapped when allowed, an error when the override says so
    (tmp_path / "far.csv").write_text(f"128166372000000000,hm,0,Write,{cap * 4},4096,100\n")
    far = ["--preset", "erasure-code-table6", "--trace", str(tmp_path / "far.csv"), "--json", "--no-progress"]
    assert run("run", *far, "--set", "workload.max_wrapped_fraction=1").returncode == 0
    p = run("run", *far)  # one request of one, wrapped: past the default 1 %
    assert p.returncode == 1 and "workload.max_wrapped_fraction" in p.stderr
    p = run("run", *far, "--set", "workload.out_of_range=error")
    assert p.returncode == 1 and "raidsim: error:" in p.stderr and "Traceback" not in p.stderr
    # An override that cannot apply to a trace workload is an error naming it, not silently dropped.
    p = run("run", *base, "--set", "workload.requests=7")
    assert p.returncode == 1 and "workload.requests" in p.stderr and "Traceback" not in p.stderr
    # count, too; its config.toml records what ran.
    out = tmp_path / "count"
    p = run("count", "--preset", "erasure-code-table6", "--trace", str(trace), "--set", "workload.max_requests=2",
            "--json", "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert sum(sum(m["pages_written"].values()) for m in json.loads(p.stdout)["members"]) == 2
    assert "max_requests = 2" in (out / "config.toml").read_text()


# --- issue #30: a full disk leaves no half-written file, and the error names it -----------------------

def disk_full_for(name, monkeypatch):
    """Every write to a file called `name` (or a temporary twin of it) fails as a full disk does: no file named."""
    import builtins

    real = builtins.open

    def fake(path, mode="r", *args, **kwargs):
        f = real(path, mode, *args, **kwargs)
        if os.path.basename(str(path)).startswith(name) and ("w" in mode or "a" in mode):
            def full(text):
                raise OSError(28, "No space left on device")
            f.write = full
        return f
    monkeypatch.setattr(builtins, "open", fake)


@pytest.mark.parametrize("command, name", [("run", "report.json"), ("count", "count.json")])
def test_out_on_a_full_disk_leaves_no_empty_file_and_names_it(tmp_path, capsys, monkeypatch, command, name):
    out = tmp_path / "out"
    argv = [command, "--set", "workload.requests=200", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    before = (out / name).read_bytes()
    capsys.readouterr()
    disk_full_for(name, monkeypatch)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err == f"raidsim: error: [Errno 28] No space left on device: '{out / name}'\n"
    monkeypatch.undo()
    # The last run's file as it was (no empty or half one), and no temporary file or directory left beside it.
    assert (out / name).read_bytes() == before and not [p for p in out.iterdir() if p.name.startswith(".")]
    assert not list(out.glob("*.tmp"))


def test_python_dash_m_raidsim_is_the_command():
    p = subprocess.run([sys.executable, "-m", "raidsim", "--version"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.startswith("raidsim "), (p.stdout, p.stderr)
