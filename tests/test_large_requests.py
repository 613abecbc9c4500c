"""One very large request: served in time linear in its pages, and stopped by Ctrl-C mid-request.

Wall-clock speed is measured in bench/large_request.py, never asserted here;
what is asserted is that a signal sent while one request is being served
ends the run well before that request could have finished.
"""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import raidsim
from raidsim import Config, Workload

# A drive of 8x the Table-5 capacity (230 GB): one write over all of it takes
# ~15 s uninterrupted on this machine type, so a stop within seconds is the flag at work.
BIG_DRIVE = {"ssd.geometry.blocks_per_plane": 16384}
WHOLE_BIG_DRIVE_BYTES = 200_000_000_000 // 4096 * 4096  # most of it
SIGNAL_AFTER_S = 1.5
# Generous for a loaded 2-core machine; the mechanism polls every 20 ms.
STOPPED_WITHIN_S = 3.0


def _sigint_as_at_a_terminal():
    """For a child: SIGINT back to its default, so its Python turns it into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture(autouse=True)
def sigint_raises_keyboard_interrupt():
    """Ctrl-C as at a terminal, even when the suite was started with SIGINT ignored (a shell's background
    job `cmd &` ignores it, and Python then never raises KeyboardInterrupt): these tests are about it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _interrupt_after(seconds):
    sent = {}

    def send():
        sent["at"] = time.monotonic()
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(seconds, send)
    timer.start()
    return timer, sent


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread only")
def test_ctrl_c_stops_one_huge_write_in_the_middle():
    cfg = Config.preset("stripe-unit-table5").with_overrides(BIG_DRIVE)
    timer, sent = _interrupt_after(SIGNAL_AFTER_S)
    try:
        with pytest.raises(KeyboardInterrupt):
            raidsim.simulate(cfg, Workload.requests([(0, "W", 0, WHOLE_BIG_DRIVE_BYTES)]), progress=False)
        stopped = time.monotonic()
    finally:
        timer.cancel()
    assert "at" in sent, "the run ended before the signal was sent: the test no longer exercises a request in progress"
    assert stopped - sent["at"] < STOPPED_WITHIN_S


def test_ctrl_c_at_the_command_line_exits_130(tmp_path):
    trace = tmp_path / "one-write.trace"
    # MQSim ASCII: time_ns device lba(512 B) sectors type(0 = write)
    trace.write_text(f"0 0 0 {WHOLE_BIG_DRIVE_BYTES // 512} 0\n")
    args = [sys.executable, "-m", "raidsim.cli", "run", "--trace", str(trace), "--format", "mqsim_ascii",
            "--set", "ssd.geometry.blocks_per_plane=16384", "--json", "--no-progress"]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=_sigint_as_at_a_terminal)
    time.sleep(SIGNAL_AFTER_S + 1.0)  # the interpreter's start-up too
    assert p.poll() is None, "the run ended before the signal was sent"
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert time.monotonic() - sent < STOPPED_WITHIN_S
    assert "interrupted" in err and out == ""


def test_a_disk_of_billions_of_cylinders_resolves():
    # The seek curve's moments are a closed form past a million cylinders;
    # summed term by term this took ~10 s and did not answer Ctrl-C.
    cfg = Config.preset("hdd-seagate-elite3").set("hdd.cylinders", 4_000_000_000)
    report = raidsim.simulate(cfg, Workload.synthetic(requests=20), progress=False)
    assert report.to_dict()["host"]["requests"] == 20


def test_ctrl_c_stops_trace_stats_of_a_long_trace(traces_dir, tmp_path):
    # 60 copies of the DiskSim validation trace: 6 million lines, seconds to summarise.
    one = (traces_dir / "disksim-valid-ascii.trace").read_bytes()
    long = tmp_path / "long.trace"
    with open(long, "wb") as f:
        for _ in range(60):
            f.write(one)
    timer, sent = _interrupt_after(0.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            raidsim.trace_stats(long)
        stopped = time.monotonic()
    finally:
        timer.cancel()
    assert "at" in sent, "the summary ended before the signal was sent"
    assert stopped - sent["at"] < STOPPED_WITHIN_S


def test_ctrl_c_stops_preconditioning_in_the_middle_of_a_slice():
    # Little spare room and two random overwrites of the drive: collection makes each slice take seconds.
    cfg = Config.preset("stripe-unit-table5").with_overrides({"ssd.geometry.over_provisioning_fraction": 0.03,
                                                              "precondition.random_overwrite_factor": 2})
    timer, sent = _interrupt_after(2.0)
    try:
        with pytest.raises(KeyboardInterrupt):
            raidsim.simulate(cfg, Workload.synthetic(requests=100), progress=False)
        stopped = time.monotonic()
    finally:
        timer.cancel()
    assert "at" in sent, "preconditioning ended before the signal was sent"
    assert stopped - sent["at"] < STOPPED_WITHIN_S
