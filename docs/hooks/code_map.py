"""MkDocs hook: the map of the code in ``architecture.md``, read off the tree at every build.

The code is being reorganised while this guide is read, so the map is not written by hand:

- ``<!-- raidsim:code-map -->`` becomes, for each crate, its modules (in the order ``lib.rs`` declares
  them) with the first sentence of each module's ``//!`` doc and the crate modules it uses; for the Python
  package, each module or subpackage with its docstring's first sentence and the package modules it
  imports; and for each side the layer order those edges give, lowest first, with any modules that depend
  on each other (a cycle) shown as one group;
- ``<!-- raidsim:causes -->`` becomes the causes an I/O below the host carries, read from their one enum
  (``Cause`` in raidsim-core, by its serde names and doc comments), which no API exposes;
- ``<!-- raidsim:design-check -->`` becomes the list of places where the tree does not (yet) follow the
  rules of ``../shared/DESIGN.md`` that can be checked mechanically: the layout of the Python package,
  one-way layers, and that only ``device/`` names the member kinds ``ssd/`` and ``hdd/``.
"""

from __future__ import annotations

import ast
import os
import re
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CRATES = os.path.join(ROOT, "crates")
PACKAGE = os.path.join(ROOT, "python", "raidsim")
PLACEHOLDER = re.compile(r"<!-- raidsim:(code-map|design-check|causes) -->")
# DESIGN.md's "Crates and packages": the Python package's subpackages.
DESIGN_SUBPACKAGES = {
    "study": "study specs, sweeps (local, Ray), plots, pages, tidy results",
    "papers": "the catalog, one module per paper, experiments/",
    "tools": "advise, endurance",
    "cli": "one module per subcommand",
}


def on_page_markdown(markdown, page, config, files):
    make = {"code-map": code_map, "design-check": design_check, "causes": causes}
    return PLACEHOLDER.sub(lambda m: make[m.group(1)](), markdown)


# --- reading the tree -------------------------------------------------------------------------------

ISSUE = re.compile(r"\s*\(issue #\d+\)|,? issue #\d+'s|\s*issue #\d+")  # history belongs to CHANGELOG.md


def first_sentence(text: str) -> str:
    """Up to the first full stop that ends a sentence: not an initial (``H.``), an abbreviation (``al.``,
    ``Eqs.``, ``e.g.``) or a stop inside parentheses; with issue numbers left out."""
    text = ISSUE.sub("", " ".join(text.split()))
    text = re.sub(r":\w+:`([^`]+)`", r"`\1`", text).replace("``", "`")  # reST roles and literals
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch in ".!?" and depth == 0 and (i + 1 == len(text) or text[i + 1] == " "):
            word = re.search(r"(\S+)$", text[:i])
            word = word.group(1) if word else ""
            if re.fullmatch(r"[A-Z]|al|Eqs?|e\.g|i\.e|cf|vs|Fig|No", word):
                continue
            if i + 2 < len(text) and not (text[i + 2].isupper() or text[i + 2] in "`*\"'[:"):
                continue
            return text[:i + 1].replace("|", "\\|")
    return text.replace("|", "\\|")


def rust_doc(path: str) -> str:
    """The first paragraph of a Rust file's ``//!`` doc, skipping a ``# title`` line."""
    lines = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("//!"):
                if lines:
                    break
                continue
            text = line[3:].strip()
            if text.startswith("#"):
                continue
            if not text and lines:
                break
            if text:
                lines.append(text)
    return first_sentence(" ".join(lines))


def rust_code(path: str) -> str:
    """The code the crate is built from: without comments and docs (they name modules without using them)
    and without its `#[cfg(test)] mod tests { ... }` (closed by a `}` in column 0), as the layer test reads it."""
    with open(path, encoding="utf-8") as f:
        head, *rest = f.read().split("\n#[cfg(test)]\nmod tests {")
    code = head + "".join(part.split("\n}\n", 1)[-1] for part in rest)
    return re.sub(r"//[^\n]*", "", code)


def rust_modules(src: str):
    """(name, path of its root file, [files]) of each module ``lib.rs`` declares, in its order."""
    with open(os.path.join(src, "lib.rs"), encoding="utf-8") as f:
        names = re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", f.read(), re.M)
    out = []
    for name in names:
        if os.path.isdir(os.path.join(src, name)):
            folder = os.path.join(src, name)
            files = sorted(os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs
                           if f.endswith(".rs") and f != "tests.rs")
            out.append((name, os.path.join(folder, "mod.rs"), files))
        else:
            path = os.path.join(src, f"{name}.rs")
            out.append((name, path, [path]))
    return out


def rust_edges(src: str):
    mods = rust_modules(src)
    names = {n for n, _, _ in mods}
    edges = {}
    for name, _, files in mods:
        used = set()
        for path in files:
            used |= set(re.findall(r"\bcrate::(\w+)", rust_code(path)))
        edges[name] = sorted(u for u in used if u in names and u != name)
    return mods, edges


def python_modules():
    """(name, path, docstring) of each module and subpackage of the package, private ones included."""
    out = []
    for entry in sorted(os.listdir(PACKAGE)):
        path = os.path.join(PACKAGE, entry)
        if entry.endswith(".py") and entry != "__init__.py":
            out.append((entry[:-3], path))
        elif os.path.isfile(os.path.join(path, "__init__.py")):
            out.append((entry, os.path.join(path, "__init__.py")))
    return [(n, p, ast.get_docstring(ast.parse(open(p, encoding="utf-8").read())) or "") for n, p in out]


def python_edges():
    """Module -> {module it imports: True if at module level, False if only inside a function}."""
    mods = python_modules()
    names = {n for n, _, _ in mods}
    edges = {}
    for name, path, _ in mods:
        files = [path]
        if path.endswith("__init__.py"):
            folder = os.path.dirname(path)
            files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".py"))
        found = {}
        for f in files:
            inner = f != path  # a subpackage's own modules: `..x` is the package's, `.x` its own
            tree = ast.parse(open(f, encoding="utf-8").read())
            top = {id(n) for n in tree.body}
            for node in ast.walk(tree):
                targets = []
                if isinstance(node, ast.ImportFrom):
                    level = node.level - (1 if inner else 0)
                    if node.module and node.module.startswith("raidsim."):
                        targets = [node.module.split(".")[1]]
                    elif level == 1:
                        targets = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
                    elif node.module == "raidsim":
                        targets = [a.name for a in node.names]
                elif isinstance(node, ast.Import):
                    targets = [a.name.split(".")[1] for a in node.names if a.name.startswith("raidsim.")]
                for t in targets:
                    if t in names and t != name:
                        found[t] = found.get(t, False) or id(node) in top or _guarded(tree, node)
        edges[name] = found
    return mods, edges


def _guarded(tree, node) -> bool:
    """An import under a module-level ``if``/``try`` (``TYPE_CHECKING`` aside) is a module-level one."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.If, ast.Try)) and any(n is node for n in ast.walk(stmt)):
            return not (isinstance(stmt, ast.If) and "TYPE_CHECKING" in ast.unparse(stmt.test))
    return False


def layers(edges):
    """Groups of modules, lowest first: a module comes after everything it uses; a cycle is one group."""
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            sccs.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sccs  # Tarjan's order: every group after the groups it depends on


def layer_text(edges) -> str:
    """Layers, lowest first: a module stands one above the highest module it uses; a cycle is one group."""
    level, parts = {}, {}
    for group in layers(edges):
        uses = {u for m in group for u in edges[m]} - set(group)
        n = 1 + max((level[u] for u in uses), default=-1)
        for m in group:
            level[m] = n
        parts.setdefault(n, []).append(f"`{group[0]}`" if len(group) == 1 else
                                       "{" + ", ".join(f"`{g}`" for g in group) + "}")
    return "; ".join(f"{n}: {', '.join(sorted(ms))}" for n, ms in sorted(parts.items()))


# --- the generated text -----------------------------------------------------------------------------

def code_map() -> str:
    out = []
    for crate in sorted(os.listdir(CRATES)):
        src = os.path.join(CRATES, crate, "src")
        manifest = os.path.join(CRATES, crate, "Cargo.toml")
        if not os.path.isfile(os.path.join(src, "lib.rs")):
            continue
        with open(manifest, "rb") as f:
            description = tomllib.load(f)["package"].get("description", "")
        mods, edges = rust_edges(src)
        out += [f"### `crates/{crate}`", "", f"{description}." if description else rust_doc(os.path.join(src, "lib.rs")), ""]
        if not mods:
            continue
        out += ["| module | what it is for | uses |", "|---|---|---|"]
        for name, path, files in mods:
            rel = os.path.relpath(path if len(files) == 1 else os.path.dirname(path), os.path.join(CRATES, crate))
            subs = [f for f in files if f != path]
            sub_text = "".join(f"<br>`{os.path.relpath(f, os.path.dirname(path))}`: {rust_doc(f)}" for f in subs)
            uses = ", ".join(f"`{u}`" for u in edges[name]) or "—"
            out.append(f"| `{name}` (`{rel}`) | {rust_doc(path)}{sub_text} | {uses} |")
        out += ["", f"Layers, lowest first (a module stands above every module it uses; braces: modules that use "
                f"each other): {layer_text(edges)}.", ""]
    mods, edges = python_edges()
    out += ["### `python/raidsim`", "",
            "The Python package: the API, the CLI, studies and the reproductions. `uses` lists the package "
            "modules a module imports; *in italics*, those it imports only inside a function (when needed, "
            "to keep start-up fast).", "",
            "| module | what it is for | uses |", "|---|---|---|"]
    for name, path, doc in mods:
        rel = os.path.relpath(path if not path.endswith("__init__.py") else os.path.dirname(path) + "/", PACKAGE)
        uses = ", ".join(f"`{t}`" if top else f"*`{t}`*" for t, top in sorted(edges[name].items())) or "—"
        if not doc and path.endswith("__init__.py"):  # a package of data (experiments/: the study files)
            data = sorted(f for f in os.listdir(os.path.dirname(path)) if not f.endswith((".py", ".pyc")))
            doc = f"Data: {len(data)} files ({', '.join(sorted({os.path.splitext(f)[1] for f in data}))})."
        subs = ""
        if path.endswith("__init__.py") and doc:
            folder = os.path.dirname(path)
            for f in sorted(os.listdir(folder)):
                if f.endswith(".py") and f not in ("__init__.py", "__main__.py"):
                    sub = ast.get_docstring(ast.parse(open(os.path.join(folder, f), encoding="utf-8").read()))
                    subs += f"<br>`{f}`: {first_sentence(sub) if sub else '(no docstring)'}"
        out.append(f"| `{name}` (`{rel}`) | {first_sentence(doc) if doc else '(no docstring)'}{subs} | {uses} |")
    top_edges = {n: sorted(t for t, top in e.items() if top) for n, e in edges.items()}
    out += ["", f"Layers of the module-level imports, lowest first: {layer_text(top_edges)}.", ""]
    return "\n".join(out)


def causes() -> str:
    """The variants of raidsim-core's ``enum Cause``, as reports name them (snake_case), with their docs."""
    src = os.path.join(CRATES, "raidsim-core", "src")
    for folder, _, names in sorted(os.walk(src)):
        for name in sorted(names):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                m = re.search(r"pub enum Cause \{(.*?)\n\}", f.read(), re.S)
            if m:
                rows, doc = [], []
                for line in m.group(1).splitlines():
                    line = line.strip()
                    if line.startswith("///"):
                        doc.append(line[3:].strip())
                    elif re.fullmatch(r"\w+,", line):
                        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", line[:-1]).lower()
                        rows.append(f"| `{snake}` | {' '.join(doc).replace('|', chr(92) + '|')} |")
                        doc = []
                return "\n".join(["| cause | what |", "|---|---|"] + rows)
    raise RuntimeError("no `pub enum Cause` in crates/raidsim-core/src: where did the causes go?")


def design_check() -> str:
    found = []
    missing = [f"`python/raidsim/{name}/` ({what})" for name, what in DESIGN_SUBPACKAGES.items()
               if not os.path.isdir(os.path.join(PACKAGE, name))]
    if missing:
        found.append("DESIGN.md lays the Python package out in subpackages; these do not exist, and their "
                     "modules sit at the top of `python/raidsim/`: " + "; ".join(missing) + ".")
    _, rust = rust_edges(os.path.join(CRATES, "raidsim-core", "src"))
    _, py = python_edges()
    py_top = {n: sorted(t for t, top in e.items() if top) for n, e in py.items()}
    for side, edges in (("raidsim-core", rust), ("the Python package (module-level imports)", py_top)):
        cycles = [g for g in layers(edges) if len(g) > 1]
        if cycles:
            found.append(f"Layers point one way, says DESIGN.md; in {side} these modules use each other: "
                         + "; ".join("{" + ", ".join(f"`{m}`" for m in g) + "}" for g in cycles) + ".")
    # Besides the kinds themselves, only the interface and the enum of member kinds may name them.
    mods, _ = rust_edges(os.path.join(CRATES, "raidsim-core", "src"))
    enum = {name for name, _, files in mods if any(re.search(r"\bpub enum Member\b", rust_code(f)) for f in files)}
    allowed = {"device", "ssd", "hdd"} | enum
    naming = sorted(m for m, uses in rust.items() if m not in allowed and ({"ssd", "hdd"} & set(uses)))
    if naming:
        found.append("Nothing above the member-device interface names the member kinds (`ssd/`, `hdd/`), says "
                     "DESIGN.md, but for the enum of member kinds"
                     + (f" (`{', '.join(sorted(enum))}`)" if enum else "")
                     + "; these modules of raidsim-core use them too: " + ", ".join(f"`{m}`" for m in naming) + ".")
    if "ssd" in rust.get("device", []) or "hdd" in rust.get("device", []):
        found.append("DESIGN.md puts the member-device interface and the enum of member kinds in two modules, "
                     "so that `ssd/` and `hdd/` depend on the interface and nothing depends back on them; "
                     "`device/` holds both, and uses `ssd/` and `hdd/` "
                     + ("while they use it." if "device" in rust.get("ssd", []) + rust.get("hdd", []) else "."))
    if not _rust_layers_checked():
        found.append("DESIGN.md has CI check the core's layers (its `use crate::` edges); no test does.")
    if not _import_linter_configured():
        found.append("DESIGN.md has CI check the Python package's layers with import-linter; it is not "
                     "configured, so nothing checks the package's imports.")
    if not found:
        return "The tree follows every rule of DESIGN.md that this page checks."
    return "\n".join(f"- {f}" for f in found)


def _import_linter_configured() -> bool:
    if os.path.isfile(os.path.join(ROOT, ".importlinter")):
        return True
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return "importlinter" in tomllib.load(f).get("tool", {})


def _rust_layers_checked() -> bool:
    """A test of the tree that reads the core's `crate::` references (tests/test_architecture.py does)."""
    tests = os.path.join(ROOT, "tests")
    return any(f.endswith(".py") and "crate::" in open(os.path.join(tests, f), encoding="utf-8").read()
               for f in os.listdir(tests))
