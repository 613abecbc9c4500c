"""Sweeps on a Ray cluster: a local Ray head, the same results as local processes (the issue "Ray, tested").

The head runs on this machine (`ray start --head`, two CPUs, loopback only) for the whole module and is
stopped in teardown, whatever happened. Each sweep runs through the CLI in a process of its own, as a user
runs it; its working directory differs from the Ray workers', as on a real cluster.
"""

import importlib.util
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

from raidsim import Config
from raidsim.study import journal, local
from raidsim.study import ray as study_ray
from raidsim.study.ray import outcome, run_point_on_node, task_error_text
from raidsim.cli import main

pytestmark = pytest.mark.slow  # reproductions or a Ray head: minutes; `pytest -m 'not slow'` skips them

HAVE_RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAVE_RAY, reason="ray is not installed (pip install 'raidsim[ray]'): "
                                                    "no local Ray head to run sweeps on")

# Four points replaying a trace named relative to the sweep's working directory.
SPEC = """
name = "ray-tiny"
metrics = ["host.requests", "host.response.mean_ns", "array.parity_pages_written"]
[base]
preset = "erasure-code-table6"
workload = { kind = "trace", path = "TRACE" }
[[cases]]
name = "raid5"
set = { "array.level" = "raid5", "array.members" = 4 }
[axes]
"array.stripe_unit_bytes" = [4096, 16384]
"array.write_method" = ["auto", "rmw"]
"""


def write_trace(path, requests):
    """An MSR-Cambridge CSV trace of 4 KiB writes, 10 us apart."""
    lines = [f"{128166372000000000 + i * 100},hm,0,Write,{i * 4096},4096,100" for i in range(requests)]
    path.write_text("\n".join(lines) + "\n")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_env(tmp):
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update({
        "RAY_AUTH_MODE": "disabled",  # Ray 2.60 asks for a token by default; a private test head needs none
        # Ray's switch for one-machine clusters: every Ray process binds to and dials 127.0.0.1 only.
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_TMPDIR": str(tmp),  # a Ray instance a sweep starts itself keeps its files here
    })
    return env


def _stop_group(pgid):
    """Stops every process of the head's session (Ray's daemons), gently first."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 3  # raylet stops on SIGTERM; gcs_server may not
    while time.monotonic() < deadline:
        if not any(_in_group(pid, pgid) for pid in os.listdir("/proc") if pid.isdigit()):
            return
        time.sleep(0.2)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _in_group(pid, pgid):
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return False
    return fields[0] != "Z" and int(fields[2]) == pgid  # state, ppid, pgrp: a zombie is gone already


@pytest.fixture(scope="module")
def head():
    if not HAVE_RAY:
        pytest.skip("ray is not installed (pip install 'raidsim[ray]')")
    # Short: Ray's socket paths under it must fit in 107 bytes.
    home = pathlib.Path(tempfile.mkdtemp(prefix="raidsim-ray-"))
    port = _free_port()
    env = _ray_env(home)
    start = subprocess.Popen(
        [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", f"--port={port}", "--num-cpus=2",
         "--disable-usage-stats", "--include-dashboard=false", f"--temp-dir={home / 'ray'}"],
        cwd=home, env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        log, _ = start.communicate(timeout=120)
        if start.returncode != 0:
            pytest.fail(f"`ray start --head` failed:\n{log}")
        yield {"address": f"127.0.0.1:{port}", "env": env, "home": home}
    finally:
        start.kill()  # in case it hung; its daemons are in its process group
        _stop_group(start.pid)
        shutil.rmtree(home, ignore_errors=True)


def run_sweep(spec, out, *extra, cwd, env):
    return subprocess.run([sys.executable, "-m", "raidsim.cli", "sweep", str(spec), "--out", str(out),
                           "--no-progress", *extra], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def results(out):
    return (out / "results.csv").read_bytes()


@pytest.fixture
def closed_port():
    """A port where nothing listens (bound, so nothing can while the test runs): connecting is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


@needs_ray
def test_sweep_through_ray_equals_local_and_a_finished_rerun_never_connects(head, tmp_path, closed_port):
    write_trace(tmp_path / "trace.csv", 200)
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace("TRACE", "trace.csv"))  # relative: the Ray workers run in another directory
    assert head["home"] != tmp_path
    local = run_sweep(spec, tmp_path / "local", cwd=tmp_path, env=head["env"])
    assert local.returncode == 0, local.stderr
    ray = run_sweep(spec, tmp_path / "ray", "--ray", head["address"], cwd=tmp_path, env=head["env"])
    assert ray.returncode == 0, ray.stderr
    assert "Traceback" not in ray.stderr
    assert results(tmp_path / "ray") == results(tmp_path / "local")
    csv = results(tmp_path / "ray").decode().splitlines()
    assert len(csv) == 1 + 4 and all(",200," in row and ",ok,," in row for row in csv[1:])  # 200 requests each
    # Every point finished: the rerun needs no cluster, so one that cannot be reached is no matter.
    again = run_sweep(spec, tmp_path / "ray", "--ray", f"127.0.0.1:{closed_port}", cwd=tmp_path, env=head["env"])
    assert again.returncode == 0, again.stderr
    assert results(tmp_path / "ray") == results(tmp_path / "local")


@needs_ray
def test_failing_points_through_ray_are_recorded_as_failed_as_locally_naming_path_and_host(head, tmp_path):
    good, garbled, missing = tmp_path / "good.csv", tmp_path / "garbled.csv", tmp_path / "missing.csv"
    write_trace(good, 50)
    garbled.write_text("this is no trace\n")
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace("TRACE", str(good)).replace(
        '"array.write_method" = ["auto", "rmw"]', f'"workload.path" = ["{good}", "{garbled}", "{missing}"]'))
    local = run_sweep(spec, tmp_path / "local", cwd=tmp_path, env=head["env"])
    ray = run_sweep(spec, tmp_path / "ray", "--ray", head["address"], cwd=tmp_path, env=head["env"])
    assert local.returncode == ray.returncode == 3, ray.stderr  # a sweep that could not finish
    assert "4 of 6 points failed" in ray.stderr and "Traceback" not in ray.stderr
    import pandas as pd

    on_ray, at_home = pd.read_csv(tmp_path / "ray" / "results.csv"), pd.read_csv(tmp_path / "local" / "results.csv")
    assert list(on_ray["status"]) == ["ok", "failed", "failed"] * 2
    assert list(on_ray["host.requests"][[0, 3]]) == [50, 50]
    # The garbled trace failed on a worker, with the local run's very error.
    garbled_rows = on_ray["workload.path"] == str(garbled)
    assert on_ray["error"][garbled_rows].str.contains("cannot tell the trace format").all()
    missing_rows = on_ray["workload.path"] == str(missing)
    # A missing trace says where it is missing: on this machine, where the sweep runs.
    assert on_ray["error"][missing_rows].str.contains(f"trace {missing} does not exist on {socket.gethostname()}").all()
    # Everything else as locally.
    assert on_ray.drop(columns="error").equals(at_home.drop(columns="error"))
    assert on_ray["error"][~missing_rows].equals(at_home["error"][~missing_rows])


@needs_ray
def test_shared_trace_through_ray_equals_local(head, tmp_path, traces_dir):
    spec = tmp_path / "spec.toml"
    # The trace reaches past the 96 MB array: folded on purpose (the comparison is local against Ray).
    folded = f'path = "{traces_dir / "blkparse-small.txt"}", max_wrapped_fraction = 1.0 }}'
    spec.write_text(SPEC.replace('path = "TRACE" }', folded).replace(
        '"array.write_method" = ["auto", "rmw"]\n', ""))
    local = run_sweep(spec, tmp_path / "local", cwd=tmp_path, env=head["env"])
    ray = run_sweep(spec, tmp_path / "ray", "--ray", head["address"], cwd=tmp_path, env=head["env"])
    assert local.returncode == ray.returncode == 0, ray.stderr
    assert results(tmp_path / "ray") == results(tmp_path / "local")
    assert results(tmp_path / "ray").count(b",ok,,") == 2


@needs_ray
def test_unreachable_cluster_fails_in_seconds_naming_the_address(head, tmp_path, closed_port):
    write_trace(tmp_path / "trace.csv", 20)
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace("TRACE", "trace.csv"))
    started = time.monotonic()
    p = run_sweep(spec, tmp_path / "out", "--ray", f"127.0.0.1:{closed_port}", cwd=tmp_path, env=head["env"])
    assert time.monotonic() - started < 30  # Ray alone retries for minutes
    assert p.returncode == 3 and "Traceback" not in p.stderr
    assert f"no Ray cluster answers at 127.0.0.1:{closed_port}" in p.stderr and "ray start --head" in p.stderr


LOCAL_RAY = """
import os, sys, time
import ray
from raidsim.study import Study, run_study

addresses = []
init = ray.init
ray.init = lambda *a, **k: addresses.append(k.get("address")) or init(*a, **k)
run_study(Study.from_file(sys.argv[1]), sys.argv[2], ray_address="", progress=False)

def ray_daemons():  # gcs_server and raylet name the instance's directory on their command lines
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.environ["RAY_TMPDIR"].encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                found.append(pid)
        except OSError:
            pass
    return found

deadline = time.monotonic() + 20
while ray_daemons() and time.monotonic() < deadline:
    time.sleep(0.2)
print(addresses, ray.is_initialized(), len(ray_daemons()))
"""


@needs_ray
def test_ray_address_empty_starts_a_ray_of_its_own_and_stops_it(head, tmp_path):
    write_trace(tmp_path / "trace.csv", 20)
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace("TRACE", "trace.csv"))
    env = _ray_env(tempfile.mkdtemp(prefix="raidsim-ray-"))
    try:
        p = subprocess.run([sys.executable, "-c", LOCAL_RAY, str(spec), str(tmp_path / "out")], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        # A new instance (not the test's head), its connection closed and its daemons gone while the caller lives on.
        assert p.stdout.split("\n")[-2] == "['local'] False 0", p.stdout
        assert (tmp_path / "out" / "results.csv").read_text().count(",ok,,") == 4
    finally:
        shutil.rmtree(env["RAY_TMPDIR"], ignore_errors=True)


INTERRUPTED = """
import sys, time
import ray
from raidsim.study import journal, spec as study_spec, sweep

address, spec, out = sys.argv[1:]
ray.init(address=address, logging_level="ERROR")  # the caller's own connection: the sweep leaves it open

def free_cpus():
    return ray.available_resources().get("CPU", 0.0)

def interrupt(journal, record):
    # Ctrl-C as the first point is recorded, once the long points hold both CPUs.
    deadline = time.monotonic() + 60
    while free_cpus() > 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    raise KeyboardInterrupt

journal.Journal.append = interrupt
try:
    sweep.run_study(study_spec.Study.from_file(spec), out, ray_address=address, progress=False)
except KeyboardInterrupt as e:
    held = e  # as an interactive session holds the last error, and with it the sweep's frames
stopped = time.monotonic()
while free_cpus() < 2 and time.monotonic() - stopped < 120:
    time.sleep(0.1)
print(f"{time.monotonic() - stopped:.1f}", ray.is_initialized())
"""


@needs_ray
def test_interrupted_sweep_cancels_the_points_still_running_on_the_cluster(head, tmp_path):
    # Two points of 200 requests, then two of 4 million (about 20 s each): the interrupt comes while those run.
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace('workload = { kind = "trace", path = "TRACE" }',
                                 'workload = { kind = "synthetic", read_fraction = 0.0 }').replace(
        '"array.stripe_unit_bytes" = [4096, 16384]\n"array.write_method" = ["auto", "rmw"]',
        '"workload.requests" = [200, 4000000]\n"sim.seed" = [1, 2]'))
    p = subprocess.run([sys.executable, "-c", INTERRUPTED, head["address"], str(spec), str(tmp_path / "out")],
                       cwd=tmp_path, env=head["env"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    freed_after_s, connected = p.stdout.split("\n")[-2].split()
    assert float(freed_after_s) < 5, p.stdout  # not the 20 s a point that goes on would hold its CPU
    assert connected == "True"


# --- the worker's checks and the driver's reading of a task, without a cluster ------------------------

LAYERS = Config.preset("erasure-code-table6").set("array.level", "raid5").set("array.members", 4).layers


def trace_layers(path):
    return Config(LAYERS).set("workload", {"kind": "trace", "path": str(path)}).layers


def identity(path):
    st = path.stat()
    return {"path": str(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def test_a_node_runs_a_point_on_the_drivers_trace_as_a_local_process_would(tmp_path):
    trace = tmp_path / "t.csv"
    write_trace(trace, 30)
    row = run_point_on_node(trace_layers(trace), ["host.requests"], identity(trace), journal.build_identity())
    assert row == local.run_point(trace_layers(trace), ["host.requests"]) and row["host.requests"] == 30


def test_a_node_without_the_trace_fails_the_point_naming_path_and_host(tmp_path):
    trace = tmp_path / "t.csv"
    write_trace(trace, 30)
    seen = identity(trace)
    trace.unlink()
    row = run_point_on_node(trace_layers(trace), ["host.requests"], seen, journal.build_identity())
    assert row["_error"].startswith(f"InputError: trace {trace} does not exist on Ray node {socket.gethostname()};")
    assert "same path on every node" in row["_error"]


def test_a_node_whose_file_at_the_trace_path_is_another_fails_the_point(tmp_path):
    trace = tmp_path / "t.csv"
    write_trace(trace, 30)
    seen = identity(trace)
    write_trace(trace, 31)  # one request more, modified at the same time
    os.utime(trace, ns=(seen["mtime_ns"], seen["mtime_ns"]))
    longer = len(trace.read_bytes())
    row = run_point_on_node(trace_layers(trace), ["host.requests"], seen, journal.build_identity())
    assert f"trace {trace} is another file than where the sweep runs ({longer} bytes" in row["_error"]
    assert f"here; {seen['size']} bytes" in row["_error"] and socket.gethostname() in row["_error"]
    write_trace(trace, 30)  # the same bytes, modified a second later: not the file the fingerprint names
    os.utime(trace, ns=(seen["mtime_ns"] + 10**9, seen["mtime_ns"] + 10**9))
    row = run_point_on_node(trace_layers(trace), ["host.requests"], seen, journal.build_identity())
    assert f"trace {trace} is another file" in row["_error"]
    os.utime(trace, ns=(seen["mtime_ns"], seen["mtime_ns"]))  # and back: the driver's file again
    assert run_point_on_node(trace_layers(trace), ["host.requests"], seen, journal.build_identity())["host.requests"] == 30


def test_a_node_with_another_raidsim_build_refuses_the_point_naming_both():
    driver = {"version": "0.0.1", "native": "ab" * 32}
    row = run_point_on_node(LAYERS, ["host.requests"], None, driver)
    here = journal.build_identity()
    assert row["_error"].startswith(f"SweepError: raidsim on Ray node {socket.gethostname()} is another build")
    assert f"raidsim {here['version']}, core {here['native'][:12]} here" in row["_error"]
    assert "raidsim 0.0.1, core abababababab there" in row["_error"]


class FakeRay:
    """ray.get of a task that raised: raises what the task did."""

    def get(self, ref):
        raise ref


def test_a_task_that_raised_is_its_points_failure_and_an_interrupt_goes_through():
    assert outcome(FakeRay(), RuntimeError("The worker died unexpectedly")) == {
        "_error": "RuntimeError: The worker died unexpectedly"}
    with pytest.raises(KeyboardInterrupt):
        outcome(FakeRay(), KeyboardInterrupt())


class DroppingCancelRay:
    """A cluster whose worker took point "b" but had not started it: the first cancel of "b" is dropped."""

    def __init__(self):
        self.running = {"a", "b"}
        self.cancels = []

    def cancel(self, ref, force):
        self.cancels.append(ref)
        if ref == "a" or self.cancels.count("b") > 1:
            self.running.discard(ref)

    def wait(self, refs, num_returns, timeout):
        return [r for r in refs if r not in self.running], [r for r in refs if r in self.running]


def test_an_interrupt_cancels_again_a_point_whose_first_cancel_was_dropped():
    cluster = DroppingCancelRay()
    study_ray._cancel(cluster, ["a", "b"])
    assert cluster.running == set() and cluster.cancels == ["a", "b", "b"]


def test_a_remote_traceback_becomes_one_line_where_and_what():
    class RayTaskError(Exception):
        pass

    text = ("\x1b[36mray::run_point_on_node()\x1b[39m (pid=9681, ip=10.0.0.7)\n  File \"x.py\", line 3, in f\n"
            "    import raidsim\n\nModuleNotFoundError: No module named 'raidsim'\n")
    assert task_error_text(RayTaskError(text)) == (
        "RayTaskError: ModuleNotFoundError: No module named 'raidsim' "
        "(in ray::run_point_on_node() (pid=9681, ip=10.0.0.7))")


def test_without_ray_installed_ray_sweep_is_an_error_saying_how_to_install_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as where it is not installed
    write_trace(tmp_path / "trace.csv", 20)
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace("TRACE", str(tmp_path / "trace.csv")))
    assert main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--ray", "127.0.0.1:1", "--no-progress"]) == 3
    err = capsys.readouterr().err
    assert "pip install 'raidsim[ray]'" in err and "Traceback" not in err
