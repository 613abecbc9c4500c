"""The command line: one declaration per option, the same names and help in every subcommand, descriptions
everywhere, output that fits a terminal (presets, the members' tables), and a run that says first what ran
and then its write amplification (the hand counts of the API's text: test_write_amplification.py)."""

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
from conftest import write_msr_trace
from test_write_amplification import SU, array_line, write_amplification

import raidsim
from raidsim import Workload, cli
from raidsim.cli import info

CLI_DIR = pathlib.Path(cli.__file__).parent


def run_cli(*args, columns=80, **kw):
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run([sys.executable, "-m", "raidsim.cli", *args], capture_output=True, text=True, env=env, **kw)


def subcommands():
    parser = cli.build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return parser, action.choices


# --- 1. the package: names, entry points, one declaration per option ------------------------------

def test_the_names_other_code_imports_from_raidsim_cli_are_there():
    for name in ("main", "build_parser", "UsageError", "EXIT_CODES", "EXIT_SWEEP", "EXIT_INTERRUPTED", "EXIT_USAGE",
                 "DEFAULT_OUT", "_REPRODUCE_OPTIONS"):
        assert hasattr(cli, name), name
    assert "all" in cli._REPRODUCE_OPTIONS and cli.EXIT_USAGE == 2


@pytest.mark.parametrize("launcher", ["module", "script"])
def test_the_console_script_and_python_m_raidsim_cli_both_run(launcher):
    if launcher == "script":
        script = shutil.which("raidsim", path=os.path.dirname(sys.executable)) or shutil.which("raidsim")
        if script is None:
            pytest.skip("no raidsim console script on PATH")
        cmd = [script]
    else:
        cmd = [sys.executable, "-m", "raidsim.cli"]
    p = subprocess.run([*cmd, "--version"], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout == f"raidsim {raidsim.__version__}\n", p.stderr


def test_each_option_is_declared_once_in_the_package():
    # Shared options come from one builder each: a second `add_argument("--no-progress", ...)` is a copy.
    declared = []
    for path in sorted(CLI_DIR.glob("*.py")):
        declared += re.findall(r"add_argument\(\s*\"(--[a-z-]+)\"", path.read_text())
    # `reproduce --trace NAME=PATH` names a paper's trace; `run --trace PATH` replays a file: one word, two
    # shapes of argument, each declared once.
    repeated = sorted({o for o in declared if declared.count(o) > (2 if o == "--trace" else 1)})
    assert not repeated, f"declared more than once: {repeated}"
    assert declared.count("--trace") == 2
    assert "--no-progress" in declared and "--preset" in declared  # the scan sees the builders


def test_shared_options_have_one_help_wherever_they_appear():
    _, commands = subcommands()
    helps = {}
    for name, p in commands.items():
        for a in p._actions:
            for option in a.option_strings:
                helps.setdefault(option, {})[name] = a.help
    for option in ("--no-progress", "--format", "--time-scale", "--device", "--workers", "--skip-malformed"):
        texts = set(helps[option].values())
        assert len(texts) == 1, (option, helps[option])
        assert texts.pop() not in (None, "", argparse.SUPPRESS), option
    assert len(helps["--no-progress"]) >= 8  # run, count, demo, sweep, reproduce, verify, advise, endurance


# --- 2. names, help and descriptions --------------------------------------------------------------

def test_every_subcommand_describes_itself_in_its_help():
    _, commands = subcommands()
    assert {"run", "count", "demo", "sweep", "reproduce", "verify", "keys", "presets", "trace-stats", "advise",
            "endurance"} <= set(commands)
    for name, p in commands.items():
        assert p.description and len(p.description) > 60, name
        help_text = " ".join(p.format_help().split())
        assert " ".join(p.description.split())[:60] in help_text, name


def test_no_progress_is_explained_everywhere():
    p = run_cli("demo", "--help")
    assert p.returncode == 0
    assert re.search(r"--no-progress\s+never show a progress bar", p.stdout), p.stdout


def test_the_top_help_covers_disks_codes_raid_inside_an_ssd_and_rebuilds():
    text = " ".join(run_cli("--help").stdout.split())
    assert "Simulate SSDs and SSD arrays." not in text
    for words in ("hard disks", "arrays of either", "Reed-Solomon", "inside one SSD", "rebuilds", "failures"):
        assert words in text, words


def test_help_never_splits_a_preset_name_at_its_hyphens():
    text = run_cli("advise", "--help", columns=60).stdout
    assert "stripe-unit-table5" in text and not re.search(r"stripe-\s*\n", text)


def test_advise_names_the_drive_preset_and_keeps_drive_as_a_hidden_alias():
    help_text = run_cli("advise", "--help").stdout
    assert "--preset PRESET" in help_text and "--drive" not in help_text
    for option in ("--preset", "--drive"):  # both reach the preset: the core's error names the valid ones
        p = run_cli("advise", option, "no-such-drive", "--levels", "raid5", "--members", "4", "--stripe-units", "64K")
        assert p.returncode == 1 and "no-such-drive" in p.stderr and "stripe-unit-table5" in p.stderr, p.stderr
        assert "Traceback" not in p.stderr
    p = run_cli("advise", "--preset", "stripe-unit-table5", "--drive", "stripe-unit-table5")
    assert p.returncode == 2 and "not allowed with" in p.stderr


@pytest.mark.parametrize("option", [["--time-scale", "0.5"], ["--format", "msr_csv"], ["--device", "0"]])
def test_advise_refuses_a_replay_option_without_a_trace(option):
    p = run_cli("advise", *option)
    assert p.returncode == 2 and p.stderr.startswith(f"raidsim: usage error: {option[0]} shapes the replay of TRACE")


def test_advise_replays_the_trace_with_format_and_time_scale_as_run_does(tmp_path):
    trace = write_msr_trace(tmp_path / "t.csv", 40)
    out = tmp_path / "out"
    p = run_cli("advise", str(trace), "--format", "msr_csv", "--time-scale", "0.5", "--levels", "raid5",
                "--members", "4", "--stripe-units", "64K", "--requests", "40", "--no-progress", "--workers", "1",
                "--set", "ssd.geometry.blocks_per_plane=32", "--set", "precondition.fill_fraction=0",
                "--set", "workload.max_wrapped_fraction=1", "--out", str(out), "--json")
    assert p.returncode == 0, p.stderr
    configs = [f.read_text() for f in (out / "configs").glob("*.toml")]
    assert configs and all('format = "msr_csv"' in c and "time_scale = 0.5" in c for c in configs)
    # The same trace run as `run` replays it: the same workload table.
    cfg = raidsim.Config.load(None).with_workload(Workload.trace(trace, "msr_csv", time_scale=0.5)).resolved()
    assert all(f"path = {json.dumps(cfg['workload']['path'])}" in c for c in configs)


# --- 3. presets and the members' table ------------------------------------------------------------

def test_presets_wrap_their_descriptions_at_word_boundaries_within_the_terminal():
    columns = 64
    p = run_cli("presets", columns=columns)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert max(map(len, lines)) <= columns
    table = raidsim.presets()
    column = max(map(len, table)) + 2
    entries, current = {}, None
    for line in lines:
        if line[:column].strip():
            current = line[:column].strip()
            entries[current] = []
        entries[current].append(line[column:])
    assert list(entries) == list(table)
    for name, shown in entries.items():
        words = " ".join(shown).split()
        source = info.opening(table[name]).split()
        if words[-1] == "...":  # cut after whole words, and said so
            words = words[:-1]
        assert words == source[:len(words)], name  # each printed word is a whole word of the source, in order
        assert len(shown) <= info.PRESET_LINES


def devices_header_blocks(text, title):
    """The header lines of the member table under ``title`` (one per block it is cut into)."""
    lines = text.split("\n")
    start = lines.index(title) + 1 if title else 0
    return [line for line in lines[start:] if line.startswith("device ")]


def test_run_and_count_lay_members_out_alike_a_column_each():
    sets = ["--set", "array.level=raid5", "--set", "array.members=5", "--set", "workload.requests=200"]
    ran = run_cli("run", *sets, "--no-progress", columns=200)
    counted = run_cli("count", *sets, columns=200)
    assert ran.returncode == 0 and counted.returncode == 0, ran.stderr + counted.stderr
    members = [f"member[{i}]" for i in range(5)]
    assert devices_header_blocks(ran.stdout, "Devices")[0].split() == ["device", *members]
    assert devices_header_blocks(counted.stdout, None)[0].split() == ["device", *members]
    # The counts are the JSON's, member by member.
    data = json.loads(run_cli("count", *sets, "--json").stdout)
    parity = next(line.split() for line in counted.stdout.splitlines() if line.startswith("written.parity"))
    assert parity[1:] == [f"{m['pages_written'].get('parity', 0):,}" for m in data["members"]]


def test_many_members_are_cut_into_blocks_that_fit_the_terminal():
    p = run_cli("count", "--set", "array.level=raid5", "--set", "array.members=24", "--set", "workload.requests=300",
                columns=80)
    assert p.returncode == 0, p.stderr
    assert max(map(len, p.stdout.splitlines())) <= 80
    headers = devices_header_blocks(p.stdout, None)
    assert len(headers) > 1
    shown = [name for h in headers for name in h.split()[1:]]
    assert shown == [f"member[{i}]" for i in range(24)]  # every member once, in order


# --- 4. the run's header and write amplification ---------------------------------------------------

def test_run_prints_what_ran_first_so_two_runs_in_a_log_differ():
    def header(*sets):
        p = run_cli("run", "--preset", "stripe-unit-table5", *sets, "--set", "workload.requests=300", "--no-progress",
                    columns=200)
        assert p.returncode == 0, p.stderr
        return p.stdout[:p.stdout.index("\nHost\n")]

    a = header("--set", "array.level=raid5", "--set", "array.members=4")
    b = header("--set", "array.level=raid6", "--set", "array.members=6", "--set", "array.stripe_unit_bytes=16384")
    assert a.startswith("raidsim run: preset stripe-unit-table5")
    assert "raid5 of 4 ssd members" in a and "stripe unit 64 KiB" in a
    assert "raid6 of 6 ssd members" in b and "stripe unit 16 KiB" in b
    assert "workload: Synthetic, 300 requests" in a
    r = raidsim.simulate("stripe-unit-table5", overrides={"array.level": "raid5", "array.members": 4,
                                                          "workload.requests": 300}, progress=False)
    assert f"simulated: {r.to_dict()['host']['duration_ns'] / 1e9:,.4f} s, 300 requests completed" in a


def test_a_trace_runs_header_names_the_trace(tmp_path):
    trace = write_msr_trace(tmp_path / "t.csv", 20)
    p = run_cli("run", "--trace", str(trace), "--no-progress", columns=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("raidsim run: the default config\ndrive: a single ssd, ")
    assert f"workload: Trace replay of {trace} (format detected)" in p.stdout
    assert "timestamps scaled by 1;" in p.stdout
    closed = run_cli("run", "--trace", str(trace), "--set", "workload.replay=closed", "--no-progress", columns=300)
    assert closed.returncode == 0, closed.stderr
    assert "closed loop, one request at a time, each the trace's idle time (scaled by 1)" in closed.stdout
    assert "timestamps scaled" not in closed.stdout


def test_full_stripe_writes_on_raid5_of_4_amplify_writes_4_to_3(tmp_path):
    # 20 writes of one whole stripe (3 data units of 64 KiB), aligned: each programs 48 data pages and
    # 16 parity pages, nothing else (no pre-reads, no GC): (n)/(n-1) = 4/3 over page-aligned data.
    trace = tmp_path / "full.csv"
    trace.write_text("".join(f"{128166372000000000 + i * 100_000},hm,0,Write,{i * 3 * SU},{3 * SU},100\n"
                             for i in range(20)))
    p = run_cli("run", "--preset", "stripe-unit-table5", "--set", "array.level=raid5", "--set", "array.members=4",
                "--set", "precondition.fill_fraction=0", "--trace", str(trace), "--no-progress", columns=120)
    assert p.returncode == 0, p.stderr
    assert write_amplification(p.stdout) == pytest.approx(4 / 3, abs=1e-4)
    assert array_line(p.stdout, "host bytes written") == f"{20 * 3 * SU:,}"
    assert array_line(p.stdout, "flash bytes programmed").startswith(f"{20 * 4 * SU:,} (1,280 pages: ")
    assert "user 960" in p.stdout and "parity 320" in p.stdout
    assert array_line(p.stdout, "parity / data page writes") == "0.3333"


@pytest.mark.parametrize("option", [["--time-scale", "2"], ["--format", "msr_csv"], ["--device", "1"]])
def test_endurance_takes_runs_trace_options_and_refuses_them_beside_a_report(tmp_path, option):
    # The options `run` builds a config from are endurance's too: ignored beside a finished report, refused.
    report = tmp_path / "r.json"
    report.write_text("{}")
    p = run_cli("endurance", str(report), *option)
    assert p.returncode == 2 and "REPORT, or a config to run" in p.stderr and "not both" in p.stderr, p.stderr
    p = run_cli("endurance", *option, "--pe-cycles", "10")
    assert p.returncode == 2 and p.stderr.startswith(f"raidsim: usage error: {option[0]} applies only with --trace")
