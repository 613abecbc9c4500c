"""The layers hold, in the order docs/architecture.md states them: the core's (every `crate::` reference points
to a lower layer than its module's) and the Python package's (import-linter's contracts in pyproject.toml: no
import upwards, none in a cycle, function-local imports included); and no Rust or Python source file is over
700 lines."""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORE = ROOT / "crates" / "raidsim-core" / "src"
PACKAGE = ROOT / "python" / "raidsim"
MAX_LINES = 700


def stated_layers():
    """{module: layer} from the architecture page's numbered list between the layer markers."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("<!-- layers:begin -->")[1].split("<!-- layers:end -->")[0]
    layers = {}
    for line in block.splitlines():
        m = re.match(r"\s*(\d+)\.\s+(.*)", line)
        if m:
            for name in re.findall(r"`([a-z_]+)`", m.group(2).split(":")[0]):
                layers[name] = int(m.group(1))
    return layers


def without_test_modules(text):
    """The source with each `#[cfg(test)] mod tests { ... }` (closed by a `}` in column 0) cut out."""
    head, *rest = text.split("\n#[cfg(test)]\nmod tests {")
    return head + "".join(part.split("\n}\n", 1)[-1] for part in rest)


def references():
    """(module, referenced module, file:line) for every `crate::X` in the core's non-test code."""
    for path in sorted(CORE.rglob("*.rs")):
        rel = path.relative_to(CORE)
        module = rel.parts[0].removesuffix(".rs")
        if module == "lib" or path.name == "tests.rs":
            continue
        code = without_test_modules(path.read_text())
        for n, line in enumerate(code.splitlines(), 1):
            for target in re.findall(r"crate::([a-z_]+)", line.split("//")[0]):
                if target != module:
                    yield module, target, f"{rel}:{n}"


def test_every_module_of_the_core_has_a_stated_layer():
    layers = stated_layers()
    modules = {p.name.removesuffix(".rs") for p in CORE.iterdir() if p.name != "lib.rs" and (p.is_dir() or p.suffix == ".rs")}
    assert modules - set(layers) == set(), "modules missing from docs/architecture.md's layers"
    assert set(layers) - modules == set(), "layers naming modules that do not exist"


def test_references_point_down_the_layers_only():
    layers = stated_layers()
    upward = [f"{where}: {module} (layer {layers[module]}) uses {target} (layer {layers[target]})"
              for module, target, where in references() if layers[target] >= layers[module]]
    assert upward == []


def test_the_scan_sees_references():
    # Guards the check itself: the simulation does use the array controller.
    assert any(m == "sim" and t == "array" for m, t, _ in references())


def test_no_rust_source_file_is_over_700_lines():
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / "crates").rglob("*.rs")
            if "target" not in p.parts and (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


# --- the Python package ------------------------------------------------------------------------------

def lint_imports(package_parent: pathlib.Path) -> subprocess.CompletedProcess:
    """import-linter with pyproject.toml's contracts, on the `raidsim` found in ``package_parent`` (the
    checkout's python/ by default: never an installed copy, which may be older)."""
    exe = shutil.which("lint-imports", path=os.path.dirname(sys.executable)) or shutil.which("lint-imports")
    assert exe, "lint-imports not found: pip install '.[test]' brings import-linter"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(package_parent), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([exe, "--config", str(ROOT / "pyproject.toml"), "--no-cache", "--no-logo"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)


def test_the_python_package_keeps_its_import_contracts():
    p = lint_imports(PACKAGE.parent)
    assert p.returncode == 0, f"an import breaks the package's layers or makes a cycle:\n{p.stdout}\n{p.stderr}"
    assert "2 kept, 0 broken" in p.stdout


@pytest.mark.parametrize("module, line", [
    ("report.py", "from raidsim.study import page"),  # the core reaching up into the study layer
    ("study/spec.py", "from raidsim.papers import packaged"),  # the studies reaching up into the papers
    ("tools/endurance.py", "from raidsim.papers import catalog"),  # tools and papers know nothing of each other
    ("study/errors.py", "from raidsim.study import sweep"),  # a cycle inside a package (sweep uses errors)
])
def test_the_contracts_refuse_an_upward_import_or_a_cycle_even_inside_a_function(tmp_path, module, line):
    # Guards the check itself, on a copy of the package with one bad import added.
    shutil.copytree(PACKAGE, tmp_path / "raidsim", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    with open(tmp_path / "raidsim" / module, "a") as f:
        f.write(f"\n\ndef _late():\n    {line}\n")
    p = lint_imports(tmp_path)
    assert p.returncode != 0 and "broken" in p.stdout, p.stdout


def stated_python_layers():
    """[{top-level module or package of raidsim}], lowest first, from the architecture page's list between
    the Python layer markers: the backticked names before each item's colon."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("<!-- python-layers:begin -->")[1].split("<!-- python-layers:end -->")[0]
    return [set(re.findall(r"`raidsim\.([a-z_]+)`", m.group(1).split(":")[0]))
            for m in re.finditer(r"^\s*\d+\.\s+(.*)$", block, re.M)]


def test_the_architecture_page_states_the_contracts_layers():
    contract = next(c for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
                    if c["type"] == "layers")
    layers = [set(x.strip() for x in re.split(r"[|:]", layer)) for layer in reversed(contract["layers"])]
    assert stated_python_layers() == layers


def test_no_python_source_file_is_over_700_lines():
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}
