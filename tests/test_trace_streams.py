"""A trace read from a pipe, a FIFO or /dev/stdin, plain or compressed,
yields exactly the requests of the file: it is read once, its compression
told from its first bytes and its format from its first lines of the same
stream (reading the head and then opening again lost the first 64 KiB)."""

import bz2
import gzip
import os
import subprocess
import sys
import threading

import pytest

import raidsim
from tests.test_traces import TABLE

FORMATS = {fmt for _, fmt, _, _ in TABLE}
# One shared trace of each of the seven formats (the first listed), with its request count.
ONE_PER_FORMAT = [next(row for row in TABLE if row[1] == fmt) for fmt in sorted(FORMATS)]
COMPRESSIONS = {"plain": lambda b: b, "gzip": gzip.compress, "bzip2": bz2.compress}


def plain_bytes(path):
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def stats_from_stdin(data, *args):
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "trace-stats", "/dev/stdin", "--json", "--skip-malformed", *args],
                       input=data, capture_output=True)
    assert p.returncode == 0, p.stderr.decode()
    import json

    return json.loads(p.stdout)


def test_the_seven_formats_are_all_covered():
    assert len(ONE_PER_FORMAT) == 7


@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("name,fmt,requests,_", ONE_PER_FORMAT)
def test_a_piped_trace_yields_the_files_requests(traces_dir, name, fmt, requests, _, compression):
    data = COMPRESSIONS[compression](plain_bytes(traces_dir / name))
    s = stats_from_stdin(data)
    assert (s["format"], s["requests"]) == (fmt, requests)


@pytest.mark.parametrize("name,fmt,requests,_", ONE_PER_FORMAT)
def test_a_fifo_yields_the_files_requests(traces_dir, tmp_path, name, fmt, requests, _):
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    data = plain_bytes(traces_dir / name)
    writer = threading.Thread(target=lambda: fifo.write_bytes(data))
    writer.start()
    try:
        s = raidsim.trace_stats(fifo, skip_malformed=True)
    finally:
        writer.join(timeout=30)
    assert (s["format"], s["requests"]) == (fmt, requests)


def test_a_fifo_of_short_lines_is_read_whole(tmp_path):
    # 5,000 32-byte lines: detection used to swallow the first 64 KiB (2,048 lines).
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    lines = "".join(f"{i * 1000:>12d} 0 {i * 8:>12d} 8 0\n" for i in range(5000))
    assert len(lines) == 5000 * 32
    writer = threading.Thread(target=lambda: fifo.write_text(lines))
    writer.start()
    try:
        report = raidsim.simulate(None, raidsim.Workload.trace(fifo), progress=False)
    finally:
        writer.join(timeout=30)
    assert report.to_dict()["host"]["requests"] == 5000


def test_a_run_reads_the_disksim_trace_whole_from_stdin(traces_dir):
    path = traces_dir / "disksim-valid-ascii.trace"
    p = subprocess.run([sys.executable, "-m", "raidsim.cli", "run", "--trace", "/dev/stdin", "--json", "--no-progress"],
                       input=path.read_bytes(), capture_output=True)
    assert p.returncode == 0, p.stderr.decode()
    import json

    assert json.loads(p.stdout)["host"]["requests"] == 100_000


def test_compression_is_told_by_its_bytes_not_the_name(traces_dir, tmp_path):
    data = plain_bytes(traces_dir / "msr-hm0-sample.csv")
    for name, pack in [("no-extension", bz2.compress), ("misnamed.csv", gzip.compress)]:
        (tmp_path / name).write_bytes(pack(data))
        assert raidsim.trace_stats(tmp_path / name)["requests"] == 1000
