"""The command line's exit statuses, --version, and quiet exits on a closed pipe (issue #8)."""

import pathlib
import re
import subprocess

import pytest
import sys
import tomllib

import raidsim
from raidsim.cli import EXIT_CODES, main

REPO = pathlib.Path(__file__).resolve().parent.parent
TABLE = [0, 1, 2, 3, 130, 141]  # done, bad input, usage, sweep could not finish, interrupted, closed pipe


def run(*args):
    return subprocess.run([sys.executable, "-m", "raidsim.cli", *args], capture_output=True, text=True)


def one_line_error(stderr):
    return stderr.startswith("raidsim: error:") and stderr.strip().count("\n") == 0 and "Traceback" not in stderr


def test_version_prints_the_package_version():
    p = run("--version")
    assert p.returncode == 0, p.stderr
    assert p.stdout == f"raidsim {raidsim.__version__}\n"
    # One version: the Cargo workspace's, which the package metadata takes (pyproject declares it dynamic).
    cargo = tomllib.loads((REPO / "Cargo.toml").read_text())
    assert raidsim.__version__ == cargo["workspace"]["package"]["version"]
    # The extension's compiled-in version is the installed package's metadata too.
    from importlib import metadata

    assert metadata.version("raidsim") == raidsim.__version__
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]


def test_input_error_exits_1_and_usage_error_exits_2():
    p = run("run", "--set", "ssd.geometry.chanels=2")
    assert p.returncode == 1 and one_line_error(p.stderr) and "channels" in p.stderr
    p = run("run", "--no-such-option")
    assert p.returncode == 2 and "usage:" in p.stderr


def test_trace_stats_negative_device_is_a_one_line_error_exit_1(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("128166372000000000,hm,0,Write,0,4096,100\n")
    p = run("trace-stats", str(trace), "--device", "-1")
    assert p.returncode == 1, p.stderr
    assert one_line_error(p.stderr) and "device must be a non-negative integer" in p.stderr


def test_sweep_that_could_not_finish_exits_3_and_a_bad_spec_exits_1(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(f"""
name = "missing-trace"
metrics = ["host.requests"]
[base]
preset = "erasure-code-table6"
workload = {{ kind = "trace", path = "{tmp_path / 'absent.csv'}" }}
""")
    assert main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--workers", "1", "--no-progress"]) == 3
    assert "1 of 1 point failed" in capsys.readouterr().err
    spec.write_text(spec.read_text().replace('metrics = ["host.requests"]', 'metrics = "host.requests"'))
    assert main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--no-progress"]) == 1
    assert one_line_error(capsys.readouterr().err)


def test_exit_status_table_is_the_same_in_help_and_the_guide():
    guide = (REPO / "docs" / "getting-started.md").read_text()
    line = " ".join(guide[guide.index("Exit status:"):].split("\n\n")[0].split())
    for text in (EXIT_CODES, line):
        assert [int(n) for n in re.findall(r"(?:^|; )(\d+) ", text.split(":", 1)[1].strip())] == TABLE, text
        assert "1 a bad config, trace, study spec or other input; 2 a usage error" in text
        assert "3 a sweep could not finish (failed points" in text
    assert " ".join(EXIT_CODES.split()) in " ".join(run("--help").stdout.split())


@pytest.mark.parametrize("args", [["run", "--set", "workload.requests=200", "--json"], ["--version"], ["presets"]])
def test_output_into_a_closed_pipe_exits_quietly(args):
    # Deterministic: the reader is gone before raidsim writes a byte. (--version has its own action.)
    proc = subprocess.Popen([sys.executable, "-m", "raidsim.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait() == 141, stderr
    assert stderr == "", stderr
    if args[0] != "run":
        return
    # As documented: `| head -1` (whether the pipe breaks depends on timing; either way, quietly).
    cmd = f"{sys.executable} -m raidsim.cli run --set workload.requests=200 --json | head -1; exit ${{PIPESTATUS[0]}}"
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
    assert p.stdout == "{\n" and p.returncode in (0, 141) and p.stderr == "", p.stderr


def test_trace_stats_device_beyond_64_bits_is_a_one_line_error_exit_1(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("128166372000000000,hm,0,Write,0,4096,100\n")
    p = run("trace-stats", str(trace), "--device", str(2**64))
    assert p.returncode == 1, p.stderr
    assert one_line_error(p.stderr) and "device must be a non-negative integer below 2**64" in p.stderr
    p = run("trace-stats", str(trace), "--device", str(2**64 - 1))  # in range: reaches the core, which takes a u64
    assert "Traceback" not in p.stderr and "below 2**64" not in p.stderr


# --- issue #30: usage errors exit 2 naming the option; nothing given is silently ignored --------------

def usage_error(argv, capsys):
    """`main(argv)`'s exit status and stderr, whether argparse (SystemExit) or the CLI reports the error."""
    try:
        status = main(argv)
    except SystemExit as e:
        status = e.code
    return status, capsys.readouterr().err


@pytest.mark.parametrize("command", [["sweep", "spec.toml"], ["demo"], ["reproduce", "stripe-unit-study"],
                                     ["advise"]])
@pytest.mark.parametrize("workers", ["-2", "0"])
def test_workers_below_one_is_a_usage_error_naming_the_option(capsys, command, workers):
    status, err = usage_error([*command, "--workers", workers], capsys)
    assert status == 2 and err.startswith("usage: raidsim")
    assert f"error: argument --workers: {workers} is not a positive number of processes" in err


@pytest.mark.parametrize("command", [["run"], ["count"], ["advise"], ["endurance"],
                                     ["reproduce", "striping-coefficients"]])
@pytest.mark.parametrize("setting", ["workload.requests", "=5"])
def test_set_without_key_and_equals_is_a_usage_error_naming_the_option(capsys, command, setting):
    status, err = usage_error([*command, "--set", setting], capsys)
    assert status == 2 and err.startswith("usage: raidsim")
    assert f"error: argument --set: '{setting}' is not KEY=VALUE (e.g. array.level=raid5)" in err


@pytest.mark.parametrize("command", ["run", "count"])
@pytest.mark.parametrize("option", [["--device", "3"], ["--time-scale", "5"], ["--skip-malformed"],
                                    ["--format", "msr_csv"], ["--max-requests", "3"], ["--out-of-range", "error"]])
def test_a_trace_option_without_trace_is_refused_not_ignored(capsys, command, option):
    # They shape the replay --trace builds; the config's own workload (even a trace) takes --set workload.*.
    status, err = usage_error([command, "--set", "workload.requests=100", *option], capsys)
    assert status == 2, err
    assert err.startswith(f"raidsim: usage error: {option[0]} applies only with --trace") and "--set workload." in err


@pytest.mark.parametrize("argv, named", [
    (["run", "--preset", ""], "--preset '': an empty name"),
    (["count", "--config", ""], "--config '': an empty name"),
    (["run", "--trace", ""], "--trace '': an empty name"),
    (["advise", "--drive", ""], "--drive '': an empty name"),
    (["advise", ""], "TRACE '': an empty name"),
    (["endurance", "", "--pe-cycles", "10"], "REPORT '': an empty name"),
    (["endurance", "--preset", "", "--pe-cycles", "10"], "--preset '': an empty name"),
])
def test_an_empty_name_is_refused_not_read_as_the_default(capsys, argv, named):
    status, err = usage_error(argv, capsys)
    assert status == 2 and err.startswith(f"raidsim: usage error: {named}"), err


def test_sweep_workers_with_ray_and_an_out_that_is_a_file_are_usage_errors(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text('metrics = ["host.requests"]\n')
    status, err = usage_error(["sweep", str(spec), "--ray", "", "--workers", "2"], capsys)
    assert status == 2 and "--workers sets the local processes; with --ray" in err  # it would be ignored
    (tmp_path / "file").write_text("")
    status, err = usage_error(["sweep", str(spec), "--out", str(tmp_path / "file")], capsys)
    assert status == 2 and f"--out {tmp_path / 'file'}: a file, not a directory" in err


@pytest.mark.parametrize("command", [["run"], ["count"], ["sweep", "spec.toml"], ["demo"], ["advise"]])
def test_an_empty_out_is_a_usage_error(capsys, command):
    # run and count wrote nothing to '' and said nothing; sweep wrote to the default directory instead.
    status, err = usage_error([*command, "--out", ""], capsys)
    assert status == 2 and "argument --out: '': an empty directory name" in err, err
