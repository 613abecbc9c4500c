import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED_TRACES = pathlib.Path(os.environ.get("RAIDSIM_SHARED_TRACES", REPO.parent / "shared" / "traces"))


@pytest.fixture
def traces_dir():
    if not SHARED_TRACES.is_dir():
        pytest.skip(f"{SHARED_TRACES} not found: the shared traces sit beside the project checkout")
    return SHARED_TRACES

SHARED_PAPERS = pathlib.Path(os.environ.get("RAIDSIM_SHARED_PAPERS", REPO.parent / "shared" / "papers"))


@pytest.fixture
def rais_paper_text():
    """The RAIS paper's text, or a skip saying where it was looked for."""
    path = SHARED_PAPERS / "rais-empirical-study.txt"
    if not path.is_file():
        pytest.skip(f"{path} not found: the papers sit in ../shared/papers beside the project checkout")
    return path.read_text()


def raidsim_cli(*args, cwd=None):
    """`raidsim ARGS` as a child process (its exit status, stdout and stderr)."""
    return subprocess.run([sys.executable, "-m", "raidsim.cli", *args], capture_output=True, text=True, cwd=cwd)


def write_msr_trace(path, requests=300, gap_100ns=10_000):
    """An MSR CSV trace: 64 KiB writes (every fourth a 16 KiB read), `gap_100ns` apart, scattered over 24 MiB."""
    lines = []
    for i in range(requests):
        op, size = ("Read", 16384) if i % 4 == 0 else ("Write", 65536)
        offset = (i * 2654435761) % (24 * 2**20 // 4096) * 4096
        lines.append(f"{128166372000000000 + i * gap_100ns},hm,0,{op},{offset},{size},100")
    path.write_text("\n".join(lines) + "\n")
    return path


def assert_fits_and_keeps(wrapped, whole, width):
    """``wrapped``, a command's text at ``width`` columns, fits them and keeps every cell of ``whole``, the same
    text with no width: each of its words at least as often (a wrapped table repeats its row labels), and no
    NaN where a value is missing."""
    from collections import Counter

    too_wide = [line for line in wrapped.splitlines() if len(line) > width]
    assert not too_wide, too_wide[:5]
    have, want = Counter(wrapped.split()), Counter(whole.split())
    lost = {word: n - have[word] for word, n in want.items() if have[word] < n}
    assert not lost, lost
    assert not {"nan", "NaN"} & set(have), [line for line in wrapped.splitlines() if "nan" in line.lower().split()][:5]


def peer_script(name):
    """The module of ``bench/peers/NAME.py`` (the scripts that run a peer
    simulator beside raidsim), for the tests that hold their figures."""
    import importlib.util

    path = pathlib.Path(__file__).resolve().parent.parent / "bench" / "peers" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"peer_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
