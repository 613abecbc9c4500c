"""Every example in README.md runs as documented (issue #8): each ```python block, and each `raidsim ...`
line of the ```sh blocks (pip and cargo lines are the set-up's, covered by CI itself)."""

import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
README = REPO / "README.md"
# As in conftest.py: the shared traces sit beside the checkout unless the variable says otherwise.
SHARED_TRACES = pathlib.Path(os.environ.get("RAIDSIM_SHARED_TRACES", REPO.parent / "shared" / "traces"))
NEEDS_TRACES = "../shared/traces"
SKIPPED = {"raidsim demo": "tests/test_sweep.py::test_demo_writes_table_figures_and_html runs it",
           "raidsim reproduce rais --quick": "tests/test_rais_reproduction.py runs it (three minutes)"}


def blocks(lang):
    """(first line number, text) of each ```lang block of the README."""
    found, start, body = [], None, []
    for n, line in enumerate(README.read_text().splitlines(), 1):
        if start is None and line.strip() == f"```{lang}":
            start, body = n, []
        elif start is not None and line.strip() == "```":
            found.append((start, "\n".join(body)))
            start = None
        elif start is not None:
            body.append(line)
    return found


PYTHON_BLOCKS = blocks("python")
# (block line, line number, command) of every line that starts with `raidsim`.
COMMANDS = [(b, b + i, line.strip()) for b, text in blocks("sh") for i, line in enumerate(text.splitlines(), 1)
            if line.strip().startswith("raidsim")]
assert PYTHON_BLOCKS and COMMANDS, "README.md has no examples to run: has its layout changed?"


@pytest.fixture
def checkout(tmp_path):
    """A stand-in for the repository root, from which the README's examples are run.

    Its relative paths resolve as they do in the checkout (``python/`` and ``../shared/traces``, the
    latter wherever RAIDSIM_SHARED_TRACES says), while what the examples write (``out/``,
    ``results/``, ``my.toml``, ``raidsim-out/``) lands here rather than in the working tree.
    """
    root = tmp_path / "main"
    root.mkdir()
    (root / "python").symlink_to(REPO / "python")
    if SHARED_TRACES.is_dir():
        (tmp_path / "shared").mkdir()
        (tmp_path / "shared" / "traces").symlink_to(SHARED_TRACES)
    return root


def skip_without_traces(text):
    if NEEDS_TRACES in text and not SHARED_TRACES.is_dir():
        pytest.skip(f"{SHARED_TRACES} not found: this example reads {NEEDS_TRACES}")


@pytest.mark.parametrize("start, source", PYTHON_BLOCKS, ids=[f"README.md:{n}" for n, _ in PYTHON_BLOCKS])
def test_readme_python_block_runs(checkout, monkeypatch, start, source):
    skip_without_traces(source)
    monkeypatch.chdir(checkout)
    # Padded so that a traceback names the README's own line numbers.
    exec(compile("\n" * start + source, str(README), "exec"), {"__name__": "__readme__"})


def setup_lines(index):
    """Earlier lines of the same block that write a file this command reads (``... > my.toml``)."""
    block, _, command = COMMANDS[index]
    words = shlex.split(command, comments=True)
    return [line for b, _, line in COMMANDS[:index]
            if b == block and (m := re.search(r">\s*(\S+)", line)) and m.group(1) in words]


@pytest.mark.parametrize("index", range(len(COMMANDS)), ids=[f"README.md:{n}: {c.split('#')[0].strip()}"
                                                             for _, n, c in COMMANDS])
def test_readme_command_runs(checkout, index):
    _, _, command = COMMANDS[index]
    name = command.split("#")[0].strip()
    if name in SKIPPED:
        pytest.skip(SKIPPED[name])
    skip_without_traces(command)
    # `raidsim` is this interpreter's raidsim (the package under test), whatever is on PATH.
    script = "\n".join([f'raidsim() {{ {shlex.quote(sys.executable)} -m raidsim.cli "$@"; }}', "set -e",
                        *setup_lines(index), command])
    p = subprocess.run(["bash", "-c", script], cwd=checkout, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"{command}\nstdout:\n{p.stdout[-2000:]}\nstderr:\n{p.stderr[-2000:]}"
    assert "Traceback" not in p.stderr, p.stderr
