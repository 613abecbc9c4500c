"""MkDocs hook: the pages of the guide that raidsim itself says, generated at every build.

Nothing here is copied by hand, so a new key, preset or reproduction shows up in the next build:

- ``reference/config-keys.md``: every config key, from :func:`raidsim.keys` (what ``raidsim keys`` prints);
- ``reference/presets.md``: every preset, from :func:`raidsim.presets` (what ``raidsim presets NAME`` prints);
- the "Reproductions" section of the navigation: the overview, then one page per paper of
  ``papers.toml``, in its order (:func:`raidsim.papers.catalog.papers`).

In a page, placeholders become what the catalog says:

- ``<!-- raidsim:catalog -->``: every reproduction, one row each, linked to its paper's page;
- ``<!-- raidsim:paper KEY -->``: the paper's citation and its reproductions;
- ``<!-- raidsim:entry NAME -->``: one reproduction: what it covers, how long it runs, where its published
  numbers are, how its rows are judged (each rule with its reason) and its known gaps, each with its reason;
- ``<!-- raidsim:not-covered KEY -->``: the paper's tables and figures no reproduction covers, with the reason.

A paper's page (``reproductions/KEY.md``, hand-written around the placeholders with what was measured)
gets, at its end, every entry of its paper it does not place and the not-covered list if it lacks it, so
nothing in the catalog is left off; a paper without a page gets one made of those alone.
"""

from __future__ import annotations

import json
import posixpath
import re

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

import raidsim
from raidsim.papers import catalog

KEYS_PAGE = "reference/config-keys.md"
PRESETS_PAGE = "reference/presets.md"
PLACEHOLDER = re.compile(r"<!-- raidsim:(catalog|paper|entry|not-covered)(?: ([\w-]+))? -->")

# What each top-level table of a config is for (the keys themselves say the rest).
TABLES = {
    "array": "the array: level, members, layout, code, parity rules, failures and spares, the controller",
    "hdd": "one hard disk (members of kind `hdd`)",
    "member": "which kind of drive the members are",
    "metrics": "what the report measures over time",
    "precondition": "how a drive is aged before the run, without simulated time",
    "rebuild": "reconstruction of failed members onto spares",
    "sim": "the run itself: seed, limits, stopping rule, verification",
    "ssd": "one flash SSD (members of kind `ssd`, the default)",
    "workload": "where host requests come from: a trace, the synthetic generator or explicit requests",
}


def paper_page(key: str) -> str:
    return f"reproductions/{key}.md"


# --- hooks ------------------------------------------------------------------------------------------

def on_config(config):
    """The "Reproductions" section: the overview, then a page per paper, in papers.toml's order."""
    for item in config.nav or []:
        if isinstance(item, dict) and "Reproductions" in item:
            item["Reproductions"] = ["reproductions/index.md"] + [
                {paper.short: paper_page(key)} for key, paper in catalog.papers().items()]
            return config
    raise PluginError("mkdocs.yml: the nav has no `Reproductions` section for the catalog's papers")


def on_files(files, config):
    files.append(File.generated(config, KEYS_PAGE, content=keys_page()))
    files.append(File.generated(config, PRESETS_PAGE, content=presets_page()))
    for key, paper in catalog.papers().items():
        if files.get_file_from_path(paper_page(key)) is None:
            files.append(File.generated(config, paper_page(key),
                                        content=f"# {paper.short}\n\n<!-- raidsim:paper {key} -->\n"))
    return files


def on_page_markdown(markdown, page, config, files):
    here = posixpath.dirname(page.file.src_uri)
    placed = set()

    def expand(m: re.Match) -> str:
        what, key = m.group(1), m.group(2)
        placed.add((what, key))
        if what == "catalog":
            return catalog_table(here)
        if what == "entry":
            if key not in catalog.names():
                raise PluginError(f"{page.file.src_uri}: `{m.group(0)}` names no reproduction; "
                                  f"valid: {', '.join(catalog.names())}")
            return entry_section(catalog.entry(key))
        if key not in catalog.papers():
            raise PluginError(f"{page.file.src_uri}: `{m.group(0)}` names no paper of papers.toml; "
                              f"valid: {', '.join(catalog.papers())}")
        return paper_header(key) if what == "paper" else not_covered(key)

    out = PLACEHOLDER.sub(expand, markdown)
    key = next((k for k in catalog.papers() if page.file.src_uri == paper_page(k)), None)
    if key is not None:  # a paper's page: whatever of the catalog it does not place comes at its end
        rest = [entry_section(e) for e in catalog.entries() if e.paper.key == key and ("entry", e.name) not in placed]
        if ("not-covered", key) not in placed:
            rest.append(not_covered(key))
        out = out.rstrip("\n") + "".join(f"\n\n{r}" for r in rest if r) + "\n"
    return out


# --- config keys ------------------------------------------------------------------------------------

def cell(text: str) -> str:
    """Text fit for one cell of a Markdown table."""
    return " ".join(str(text).split()).replace("|", "\\|")


def default_text(k) -> str:
    # As `raidsim keys` prints it (raidsim.config_keys.keys_text).
    if k.default is None and "[]" in k.key and not k.type.endswith(" or null"):
        return "required in each entry"
    return f"`{json.dumps(k.default)}`"


def keys_page() -> str:
    found = raidsim.keys()
    out = ["# Config keys", "",
           f"Every key of a configuration: {len(found)} of them, generated from the declarations in "
           "`crates/raidsim-core/src/config/` when this guide is built. `raidsim keys [PREFIX]` prints the "
           "same (`--json` for a list of objects), and so does `raidsim.keys()` in Python. A key is set in a "
           "TOML table (`[array]` ... `stripe_unit_bytes = 65536`), by `--set array.stripe_unit_bytes=65536` "
           "or in a dict of overrides; `[]` marks the fields of each entry of a list of tables. "
           "See [Configuration and presets](../configuration.md) for how the layers combine.", ""]
    tops = sorted({k.key.split(".")[0] for k in found})
    out += ["| table | what | keys |", "|---|---|---:|"]
    for top in tops:
        n = sum(1 for k in found if k.key.split(".")[0] == top)
        out.append(f"| [`[{top}]`](#{top}) | {TABLES.get(top, '')} | {n} |")
    for top in tops:
        out += ["", f"## `[{top}]` {{#{top}}}", ""]
        if top in TABLES:
            out += [TABLES[top][0].upper() + TABLES[top][1:] + ".", ""]
        out += ["| key | type | default | meaning |", "|---|---|---|---|"]
        for k in found:
            if k.key.split(".")[0] != top:
                continue
            notes = []
            if k.unit:
                notes.append(f"Unit: {k.unit}.")
            if k.choices:
                notes.append("One of " + ", ".join(f"`{c}`" for c in k.choices) + ".")
            if k.when:
                notes.append(f"Only when `{k.when}`.")
            meaning = " ".join([k.doc] + notes) if k.doc else " ".join(notes)
            out.append(f"| `{k.key}`{{#{k.key}}} | {cell(k.type)} | {cell(default_text(k))} | {cell(meaning)} |")
    return "\n".join(out) + "\n"


# --- presets ----------------------------------------------------------------------------------------

def opening_comment(toml: str) -> str:
    lines = []
    for line in toml.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[1:].strip())
    return " ".join(" ".join(lines).split())


def first_sentence(text: str) -> str:
    m = re.match(r"(.+?[.:])(\s|$)", text)
    return m.group(1).rstrip(":") if m else text


def without_issues(toml: str) -> str:
    """The preset as `raidsim presets NAME` prints it, less its comments' references to development issues
    (a user guide carries no history: that is CHANGELOG.md's)."""
    lines = []
    for line in toml.splitlines():
        if line.startswith("#"):
            line = re.sub(r"\s*\(issue #\d+\)|;\s*issue #\d+| in issue #\d+|,?\s*issue #\d+", "", line)
        lines.append(line)
    return "\n".join(lines)


def presets_page() -> str:
    presets = raidsim.presets()
    out = ["# Presets", "",
           f"The {len(presets)} presets raidsim ships, generated from the package when this guide is built: "
           "`raidsim presets` lists them and `raidsim presets NAME` prints one (`raidsim.presets()` in "
           "Python: name to TOML text). A preset is a partial config merged over the defaults; each opens "
           "with a comment citing its source and saying what was calibrated to what. Start a config of your "
           "own from one (`raidsim presets NAME > my.toml`), or name it as `preset = \"NAME\"` in a study's "
           "`[base]`.", "",
           "| preset | what |", "|---|---|"]
    for name, toml in presets.items():
        out.append(f"| [`{name}`](#{name}) | {cell(first_sentence(opening_comment(toml)))} |")
    for name, toml in presets.items():
        out += ["", f"## `{name}` {{#{name}}}", "", "```toml", without_issues(toml).rstrip("\n"), "```"]
    return "\n".join(out) + "\n"


# --- reproductions ----------------------------------------------------------------------------------

def entry_anchor(name: str) -> str:
    return f"reproduce-{name}"


def catalog_table(here: str) -> str:
    """Every reproduction, one row each, linked to its paper's page."""
    out = ["| reproduction | paper | tables and figures | kind | runtime here (2 cores) | what it runs |",
           "|---|---|---|---|---|---|"]
    for e in catalog.entries():
        page = posixpath.relpath(paper_page(e.paper.key), here or ".")
        out.append(f"| [`{e.name}`]({page}#{entry_anchor(e.name)}) | [{e.paper.short}]({page}) | "
                   f"{catalog.covers_text(e.covers)} | {e.kind} | {catalog.runtime_text(e)} | {cell(e.summary)} |")
    return "\n".join(out)


def verdict_rows(e) -> list:
    out = []
    for v in e.verdicts:
        rows = " / ".join(f"{what} `{pattern}`" for what, pattern in
                          (("figure", v.figure), ("case", v.case), ("metric", v.metric)) if pattern != "*")
        params = ", ".join(f"{k} = {v.rule.params[k]:g}" for k in v.rule.params)
        rule = f"`{v.rule.name}`" + (f" ({params})" if params else "")
        out.append(f"| {rows or 'every other row'} | {rule}: {cell(catalog.RULE_MEANINGS[v.rule.name])} | "
                   f"{cell(v.rule.why)} |")
    return out


def paper_header(key: str) -> str:
    paper = catalog.papers()[key]
    mine = [e for e in catalog.entries() if e.paper.key == key]
    out = [f"**{paper.cite}.** Its text: `../shared/papers/{paper.file}`."]
    if mine:
        out += ["", "| reproduction | tables and figures | kind | runtime here (2 cores) | what it runs |",
                "|---|---|---|---|---|"]
        out += [f"| [`{e.name}`](#{entry_anchor(e.name)}) | {catalog.covers_text(e.covers)} | {e.kind} | "
                f"{catalog.runtime_text(e)} | {cell(e.summary)} |" for e in mine]
    return "\n".join(out)


def entry_section(e) -> str:
    out = [f"## `raidsim reproduce {e.name}` {{#{entry_anchor(e.name)}}}", "", e.summary + ".", ""]
    quick = "" if e.quick_seconds == e.full_seconds else \
        f"; with `--quick`, about {catalog.duration_text(e.quick_seconds)}"
    out.append(f"- **Covers** {catalog.covers_text(e.covers)}; runs in about "
               f"{catalog.duration_text(e.full_seconds)} here{quick}.")
    out.append(f"- **Published numbers and every choice**: `{e.file}`"
               + (f"; the published numbers: `{e.to_dict()['published_in']}`" if e.published_in else "")
               + ".")
    if e.kind == "exact":
        out.append("- **Exact**: a row passes only when raidsim's value equals the published one (or lies "
                   "within a tolerance the study file states beside that number); a pass that rests on a "
                   "stated interpretation of the paper is `pass (mapped)`, with the reason beside it.")
    else:
        out += ["- **Trend**: each row with a published number is judged by the first of these rules that "
                "matches it:", "", "    | rows | rule | why |", "    |---|---|---|"]
        out += ["    " + row for row in verdict_rows(e)]
    if e.gaps:
        out += ["", "Known gaps, each with its reason:", ""] + [f"- {g}" for g in e.gaps]
    else:
        out += ["", "Known gaps: none."]
    return "\n".join(out)


def not_covered(key: str) -> str:
    paper = catalog.papers()[key]
    if not paper.outside_catalog:
        return ""
    out = ["## Tables and figures no reproduction covers {#not-covered}", "",
           "| table or figure | why |", "|---|---|"]
    out += [f"| {what} | {cell(why)} |" for what, why in paper.outside_catalog]
    return "\n".join(out)
