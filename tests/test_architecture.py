"""The core's layers hold: every `crate::` reference points to a lower layer than its module's, in the
order docs/architecture.md states, and no Rust source file is over 700 lines."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORE = ROOT / "crates" / "raidsim-core" / "src"
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
