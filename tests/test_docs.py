"""The user guide builds, and every example in it and in README.md runs as written.

- ``mkdocs build --strict`` succeeds (a broken link, anchor or page is an error), and its generated pages
  hold every config key, every preset and every paper of the catalog;
- each ```` ```python ```` block runs; each ```` ```sh ````/```` ```bash ```` block of ``raidsim`` commands
  and each ```` ```console ```` block's ``$ raidsim`` lines run, in order, from a scratch directory laid
  out like the repository root (``python/`` and ``../shared`` resolve there, what the examples write lands
  there);
- a block that does not run is preceded by ``<!-- not run: why -->``, and says why.

A failure names the file and the line of the block.
"""

import os
import pathlib
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from typing import List

import pytest

from conftest import SHARED_TRACES

REPO = pathlib.Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
PAGES = [REPO / "README.md"] + sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts)
SHELLS = ("sh", "bash", "shell", "console")
RUNNABLE = ("python",) + SHELLS
NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->", re.S)
FENCE = re.compile(r"^(\s*)(`{3,})\s*([\w+-]*)")


@dataclass
class Block:
    path: pathlib.Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    not_run: str  # the reason given, or "" for a block that runs
    marker_line: int = 0

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"

    def commands(self) -> List[tuple]:
        """(line, command) of each command of a shell block: console's `$ ` lines, or every line that is not
        blank or a comment (a trailing backslash continues a command on the next line)."""
        out, pending, start = [], "", 0
        for i, raw in enumerate(self.text.splitlines(), self.line + 1):
            line = raw.rstrip()
            if self.lang == "console":
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if not pending:
                start = i
            pending += line[:-1] + " " if line.endswith("\\") else line
            if not line.endswith("\\"):
                out.append((start, pending.strip()))
                pending = ""
        return out


def blocks_of(path: pathlib.Path) -> List[Block]:
    lines = path.read_text().splitlines()
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, lang = m.groups()
        end = next((j for j in range(i + 1, len(lines))
                    if lines[j].strip().startswith(ticks) and lines[j].strip().strip("`") == ""), None)
        assert end is not None, f"{path.relative_to(REPO)}:{i + 1}: a code block that is never closed"
        body = "\n".join(line[len(indent):] if line.startswith(indent) else line for line in lines[i + 1:end])
        before = i - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        marker = NOT_RUN.fullmatch(lines[before].strip()) if before >= 0 else None
        found.append(Block(path, i + 1, lang, body, marker.group(1) if marker else "",
                           before + 1 if marker else 0))
        i = end + 1
    return found


BLOCKS = [b for page in PAGES for b in blocks_of(page)]
TO_RUN = [b for b in BLOCKS if b.lang in RUNNABLE and not b.not_run]
NOT_RUN_BLOCKS = [b for b in BLOCKS if b.not_run]
assert any(b.lang == "python" for b in TO_RUN) and any(b.lang in SHELLS for b in TO_RUN), \
    "no examples found in README.md and docs/: has their layout changed?"


@pytest.fixture
def checkout(tmp_path):
    """A stand-in for the repository root: ``python/`` and ``../shared/traces`` resolve as in the checkout
    (the traces wherever RAIDSIM_SHARED_TRACES says), and what the examples write lands here."""
    root = tmp_path / "main"
    root.mkdir()
    (root / "python").symlink_to(REPO / "python")
    if SHARED_TRACES.is_dir():
        (tmp_path / "shared").mkdir()
        (tmp_path / "shared" / "traces").symlink_to(SHARED_TRACES)
    return root


def skip_without_traces(block: Block) -> None:
    if "../shared/traces" in block.text and not SHARED_TRACES.is_dir():
        pytest.skip(f"{SHARED_TRACES} not found: the example at {block.where} reads ../shared/traces")


# --- the guide builds --------------------------------------------------------------------------------

def test_the_guide_builds_strictly_with_its_generated_pages(tmp_path):
    import raidsim
    from raidsim.papers import catalog

    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site),
                        "--config-file", str(REPO / "mkdocs.yml")],
                       cwd=REPO, capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, f"mkdocs build --strict failed:\n{p.stdout[-3000:]}\n{p.stderr[-5000:]}"
    keys = (site / "reference" / "config-keys" / "index.html").read_text()
    missing = [k.key for k in raidsim.keys() if f'id="{k.key}"' not in keys]
    assert not missing, f"the config keys page lacks {missing}"
    presets = (site / "reference" / "presets" / "index.html").read_text()
    assert all(f'id="{name}"' in presets for name in raidsim.presets())
    for key, paper in catalog.papers().items():
        page = (site / "reproductions" / key / "index.html").read_text()
        mine = [e for e in catalog.entries() if e.paper.key == key]
        for e in mine:
            assert f'id="reproduce-{e.name}"' in page, f"reproductions/{key}.md lacks {e.name}"
        # Every gap, and every table or figure no reproduction covers, with its reason.
        assert page.count("Known gaps, each with its reason") == sum(1 for e in mine if e.gaps)
        assert page.count("<li>") >= sum(len(e.gaps) for e in mine)
        assert all(f"<td>{what}</td>" in page for what, _ in paper.outside_catalog)
    architecture = (site / "architecture" / "index.html").read_text()
    assert "raidsim:code-map" not in architecture and "crates/raidsim-core" in architecture
    # Development history (issue numbers) belongs to CHANGELOG.md, not to the guide or the README.
    for page in [REPO / "README.md", *site.rglob("*.html")]:
        found = re.search(r"[Ii]ssue #\d+", page.read_text())
        assert not found, f"{page}: `{found.group(0)}`: history belongs to CHANGELOG.md"


def test_the_readme_is_short_and_its_links_lead_somewhere():
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) <= 250, "README.md is the front door: the guide in docs/ holds the rest"
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme):
        if "://" not in target:
            assert (REPO / target).exists(), f"README.md links to {target}, which does not exist"


def test_the_files_the_pages_name_exist():
    # The tree moves (modules split into folders, tests into one binary): a path a page names in `code`
    # must still be there. Placeholders (NAME, *, ...) and what examples write are not paths of the tree.
    for page in PAGES:
        for n, line in enumerate(page.read_text().splitlines(), 1):
            for path in re.findall(r"`((?:crates|python|tests|bench|examples|docs|\.ci|\.github)/[^`\s]*)`", line):
                if not re.search(r"NAME|\*|\.\.\.|…|<|\[", path):
                    assert (REPO / path).exists(), f"{page.relative_to(REPO)}:{n}: `{path}` does not exist"


# --- every block runs, or says why not ---------------------------------------------------------------

def test_every_block_that_does_not_run_says_why():
    for b in NOT_RUN_BLOCKS:
        assert len(b.not_run) >= 10, f"{b.where}: `<!-- not run: ... -->` needs a reason, got {b.not_run!r}"
    # A shell block that runs holds raidsim commands only: anything else (pip, cargo, ray, a benchmark)
    # is marked, with its reason.
    for b in TO_RUN:
        if b.lang in SHELLS:
            others = [(n, c) for n, c in b.commands() if not c.startswith("raidsim ") and c != "raidsim"]
            assert not others, (f"{b.where}: a {b.lang} block runs only `raidsim` commands; line {others[0][0]} "
                                f"is `{others[0][1]}`: mark the block <!-- not run: why --> if it must not run")
    # Every marker stands before a block (a stale one would hide nothing, or the wrong block).
    for page in PAGES:
        marked = {b.marker_line for b in NOT_RUN_BLOCKS if b.path == page}
        for line, text in enumerate(page.read_text().splitlines(), 1):
            if NOT_RUN.fullmatch(text.strip()):
                assert line in marked, f"{page.relative_to(REPO)}:{line}: a `not run` comment with no code block after it"


@pytest.mark.parametrize("block", [b for b in TO_RUN if b.lang == "python"], ids=lambda b: b.where)
def test_python_example_runs(block, checkout, monkeypatch):
    skip_without_traces(block)
    monkeypatch.chdir(checkout)
    # Padded so that a traceback names the page's own line numbers.
    code = compile("\n" * block.line + block.text, str(block.path.relative_to(REPO)), "exec")
    try:
        exec(code, {"__name__": "__docs__"})
    except Exception as e:
        raise AssertionError(f"{block.where}: the python example failed: {type(e).__name__}: {e}") from e


@pytest.mark.parametrize("block", [b for b in TO_RUN if b.lang in SHELLS], ids=lambda b: b.where)
def test_shell_example_runs(block, checkout):
    skip_without_traces(block)
    # `raidsim` is this interpreter's raidsim (the package under test), whatever is on PATH.
    define = f'raidsim() {{ {shlex.quote(sys.executable)} -m raidsim.cli "$@"; }}'
    for line, command in block.commands():
        p = subprocess.run(["bash", "-c", f"{define}\nset -o pipefail\n{command}"], cwd=checkout,
                           capture_output=True, text=True, timeout=600)
        where = f"{block.path.relative_to(REPO)}:{line}"
        assert p.returncode == 0, (f"{where}: `{command}` exited {p.returncode}\nstdout:\n{p.stdout[-2000:]}\n"
                                   f"stderr:\n{p.stderr[-3000:]}")
        assert "Traceback" not in p.stderr, f"{where}: `{command}` printed a traceback:\n{p.stderr[-3000:]}"
