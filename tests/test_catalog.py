"""One catalog of every reproduction (`raidsim reproduce --list`, `reproduce all`; raidsim/papers/catalog.py).

The expected names, covers and published numbers here come from the issue, the papers and the study files
read with tomllib, not from the catalog's own output.
"""

import json
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from raidsim import cli
from raidsim.papers import catalog, reproduce_all
from raidsim.papers.catalog import GAP, NO_VERDICT, NOT_RUN, PASS, PASS_MAPPED, CatalogError, Rule, judge

REPO = pathlib.Path(__file__).resolve().parent.parent
EXPERIMENTS = REPO / "python" / "raidsim" / "papers" / "experiments"
# The ten reproductions `raidsim reproduce` had before the catalog (the list).
NAMES = {"stripe-unit-tables", "erasure-code-updates", "erasure-code-tables", "stripe-unit-study", "disk-parameters",
         "striping-coefficients", "hdd-stripe-unit-tables", "cr5m", "rais", "erasure-code-study",
         "stripe-unit-chips", "stripe-unit-md-raid5", "stripe-unit-traces", "cr5m-chips", "striping-traces",
         "disk-validation", "mqsim-fast18", "diff-raid"}
# The entries that run in seconds (counting, or arithmetic on presets).
FAST = ["stripe-unit-tables", "erasure-code-updates", "erasure-code-tables", "disk-parameters"]
# The same in the catalog's order, as `reproduce all` runs them.
FAST_IN_ORDER = ["stripe-unit-tables", "disk-parameters", "erasure-code-updates", "erasure-code-tables"]

# Every table and figure with numbers in the five papers, read off their texts (../shared/papers): results and
# the inputs they tabulate; diagrams (the papers' layouts, flowcharts, architectures) and tables without a
# number (the erasure-code paper's abbreviations and O() complexities) are left out.
PAPERS = {
    "stripe-unit": {"Table 1", "Table 2", "Table 3", "Table 4", "Table 5", "Table 6", "Table 7", "Table 8", "Table 9",
                    "Table 10", "Figure 5", "Figure 6", "Figure 7", "Figure 8", "Figure 9", "Figure 10", "Figure 11",
                    "Figure 12", "Figure 13"},
    "chen-lee": {"Table 1", "Table 2"} | {f"Figure {i}" for i in range(2, 11)},
    "cr5m": {"Figure 1", "Table 1", "Table 2", "Table 3"} | {f"Figure {i}" for i in range(8, 15)},
    "rais": {f"Table {i}" for i in range(1, 7)} | {f"Figure {i}" for i in range(1, 8)},
    "erasure-codes": {"Table 3", "Table 4", "Table 5", "Table 6", "Table 7"} | {f"Figure {i}" for i in range(5, 18)},
}


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "raidsim.cli", *args], capture_output=True, text=True, cwd=cwd)


def study_file(name):
    return tomllib.loads((EXPERIMENTS / f"{name}.toml").read_text())


def entry_page(out, name):
    """The text of an entry's page in a `reproduce all` report."""
    return (out / "entries" / f"{name}.html").read_text()


# --- the catalog ----------------------------------------------------------------------------------

def test_list_prints_one_line_per_reproduction_starting_with_its_name():
    p = run_cli("reproduce", "--list")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert {line.split()[0] for line in lines} == NAMES and len(lines) == len(NAMES)
    by_name = {line.split()[0]: line for line in lines}
    for name, paper, covers, kind in (
            ("stripe-unit-tables", "Rajaei Salmasi et al. 2013", "Tables 3-4", "exact"),
            ("hdd-stripe-unit-tables", "Rajaei Salmasi et al. 2013", "Tables 7-9", "trend"),
            ("disk-parameters", "Chen & Lee 1995", "Table 1", "trend"),
            ("cr5m", "Pan & Xie 2018", "Figures 8-14", "trend"),
            ("rais", "Kim et al. 2010", "Figures 1-7, Tables 3-6", "trend"),
            ("erasure-code-updates", "Alinezhad Chamazcoti et al. 2015", "Table 3", "exact")):
        line = by_name[name]
        assert paper in line and covers in line and line.rstrip().endswith(kind), line
        assert re.search(r"~\d+ (s|min|h)", line), line  # a runtime estimate
    # With a quick mode, both estimates; the counting entries have one.
    assert re.search(r"~\d+ s quick, ~\d+ min full", by_name["erasure-code-study"])
    assert "quick" not in by_name["stripe-unit-tables"]


def test_list_json_gives_an_object_per_reproduction():
    p = run_cli("reproduce", "--list", "--json")
    assert p.returncode == 0, p.stderr
    objects = {o["name"]: o for o in json.loads(p.stdout)}
    assert set(objects) == NAMES
    for o in objects.values():
        assert set(o) == {"name", "paper", "paper_short", "paper_cite", "covers", "kind", "quick_seconds",
                          "full_seconds", "summary", "gaps", "file", "published_in"}
        assert o["kind"] in ("exact", "trend") and o["quick_seconds"] <= o["full_seconds"]
        assert (REPO / o["file"]).is_file()
    assert objects["erasure-code-updates"]["covers"] == ["Table 3"]
    assert objects["erasure-code-updates"]["paper"] == "erasure-codes"
    assert objects["disk-parameters"]["published_in"] == "python/raidsim/papers/experiments/striping-coefficients.toml"
    # Exactly the four counting reproductions are exact.
    assert {n for n, o in objects.items() if o["kind"] == "exact"} == {"stripe-unit-tables", "erasure-code-updates",
                                                                       "erasure-code-tables", "stripe-unit-traces"}


def test_list_is_light_and_refuses_what_it_would_ignore(tmp_path):
    probe = ("import sys, raidsim.cli; s = raidsim.cli.main(['reproduce', '--list']); "
             "print(s, sorted(m for m in ('pandas', 'numpy', 'matplotlib') if m in sys.modules))")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-1] == "0 []"
    p = run_cli("reproduce", "--list", "--quick")
    assert p.returncode == 2 and "takes only --json" in p.stderr, p.stderr
    p = run_cli("reproduce", "--list", "cr5m")
    assert p.returncode == 2 and "takes only --json" in p.stderr, p.stderr


def test_every_name_the_cli_accepts_has_an_entry_and_every_entry_is_a_name():
    assert set(catalog.names()) == NAMES
    # Each name has its own options declared, or (a new study file) the ordinary study's.
    assert set(cli._REPRODUCE_OPTIONS) - {"all"} == NAMES
    # Each name runs in `reproduce all`: its own runner, or as an ordinary study that loads.
    from raidsim.study import Study

    for name in NAMES - set(reproduce_all.RUNNERS):
        Study.from_file(catalog.entry(name).path)
    assert set(reproduce_all.RUNNERS) <= NAMES
    p = run_cli("reproduce", "no-such-thing")
    assert p.returncode == 2 and "unknown reproduction `no-such-thing`" in p.stderr
    assert all(n in p.stderr for n in NAMES), p.stderr
    p = run_cli("reproduce")
    assert p.returncode == 2 and "--list" in p.stderr, p.stderr


def test_a_new_study_file_with_a_catalog_table_is_a_new_name(tmp_path, monkeypatch):
    folder = tmp_path / "experiments"
    folder.mkdir()
    shutil.copy(EXPERIMENTS / "stripe-unit-tables.toml", folder)
    (folder / "tiny-study.toml").write_text("""
name = "tiny-study"
metrics = ["host.requests"]
[base]
preset = "stripe-unit-table5"
workload = { kind = "synthetic", requests = 50 }
[catalog]
paper = "stripe-unit"
covers = ["Figure 11"]
kind = "trend"
quick_seconds = 1
full_seconds = 1
summary = "a test's study"
""")
    (folder / "not-a-reproduction.toml").write_text('name = "x"\nmetrics = ["host.requests"]\n')
    found = catalog.load_entries(str(folder))
    assert [e.name for e in found] == ["stripe-unit-tables", "tiny-study"]  # tables before figures
    monkeypatch.setattr(catalog, "entries", lambda: found)
    out = tmp_path / "out"
    assert cli.main(["reproduce", "tiny-study", "--json", "--out", str(out), "--no-progress", "--workers", "1"]) == 0
    assert cli.main(["reproduce", "tiny-study", "--quick"]) == 2  # an ordinary study has no quick mode
    results = reproduce_all.run_all(["tiny-study"], str(tmp_path / "all"), workers=1, progress=False, echo=lambda s: None)
    (res,) = results
    assert res.status == "ok", res.trace
    assert [(r["metric"], r["raidsim"], r["verdict"]) for r in res.rows] == [("host.requests", 50.0, NO_VERDICT)]


# --- verdicts ---------------------------------------------------------------------------------------

def test_verdict_rules_on_hand_made_rows():
    equal = Rule("equal")
    assert judge(32, 32, equal) == PASS
    assert judge(33, 32, equal) == GAP  # one off
    assert judge("(2-4) * 4", "(2-4) * 4", equal) == PASS and judge("7-14", "7-15", equal) == GAP
    assert judge(5, None, equal) == NO_VERDICT and judge(5, None, None) == NO_VERDICT  # no published value
    assert judge(None, 0.051, equal) == GAP  # nothing measured beside a published number
    assert judge(None, 4.6, equal, not_run=True) == NOT_RUN
    assert judge(166.67, 166, Rule("absolute", {"tolerance": 1})) == PASS
    assert judge(167.5, 166, Rule("absolute", {"tolerance": 1})) == GAP
    assert judge(1.77, 1.8, Rule("relative", {"tolerance": 0.02})) == PASS  # 1.7 % below
    assert judge(1.75, 1.8, Rule("relative", {"tolerance": 0.02})) == GAP  # 2.8 % below
    factor = Rule("factor", {"factor": 2.0, "floor": 5})
    assert judge(-39.5, -25, factor) == PASS and judge(-60.1, -21, factor) == GAP
    assert judge(6.7, -2.3, factor) == GAP and judge(0.0, 0, factor) == PASS  # opposite signs; a floor at 0
    assert judge(9.9, 3.2, Rule("same_sign")) == PASS and judge(-0.01, 7.4, Rule("same_sign")) == GAP
    assert judge(90.7, 75, Rule("at_least")) == PASS and judge(12.8, 10, Rule("at_most")) == GAP
    band = Rule("band", {"lo": 0.48, "hi": 0.72, "published_in_band": False})
    assert judge(0.72, 0.48, band) == GAP  # the module's own membership decides, not the endpoints
    with pytest.raises(CatalogError, match="no sign"):
        judge(1, 0, Rule("same_sign"))
    with pytest.raises(CatalogError, match="needs a verdict rule"):
        judge(1, 1, None)
    with pytest.raises(CatalogError, match="takes tolerance; missing tolerance"):
        Rule("relative")


def test_a_value_raidsim_did_not_measure_is_a_gap_under_every_rule():
    # NaN (a metric with nothing to average) or an infinite ratio (a zero denominator) is not a measurement:
    # the band rule, decided by the module's membership, and the one-sided bounds would otherwise pass it.
    band = Rule("band", {"lo": 0.48, "hi": 0.72, "published_in_band": True})
    assert judge(0.6, 0.48, band) == PASS
    nan, inf = float("nan"), float("inf")
    for rule in (band, Rule("equal"), Rule("relative", {"tolerance": 0.1}), Rule("factor", {"factor": 2.0, "floor": 5}),
                 Rule("at_least"), Rule("at_most"), Rule("same_sign"), Rule("absolute", {"tolerance": 1})):
        for value in (nan, inf, -inf):
            assert judge(value, 75, rule) == GAP, (rule.name, value)


def test_a_tolerance_in_points_reads_unlike_a_relative_one():
    # On a row in %, "±1 %" would read as 1 % of the value (the relative rule's text): an absolute
    # tolerance there is in percentage points, and says so.
    assert Rule("relative", {"tolerance": 0.02}).describe("%") == "±2 %"
    assert Rule("absolute", {"tolerance": 1}).describe("%") == "±1 point"
    assert Rule("absolute", {"tolerance": 5}).describe("%") == "±5 points"
    assert Rule("factor", {"factor": 2.0, "floor": 5}).describe("%") == "×2 or ±5 points"
    assert Rule("absolute", {"tolerance": 0.005}).describe("USD") == "±0.005 USD"
    assert Rule("absolute", {"tolerance": 1}).describe("") == "±1"


def test_an_exact_entry_passes_only_equal_rows_and_a_trend_entry_needs_a_rule_for_each():
    exact = catalog.entry("stripe-unit-tables")
    rows = [reproduce_all.row("Table 4", "hand", "page writes, P", 33, 33, "pages"),
            reproduce_all.row("Table 4", "hand", "page writes, D0", 31, 32, "pages"),
            reproduce_all.row("Eq. 3", "hand", "page writes, P", 33, None, "pages")]
    assert [r["verdict"] for r in reproduce_all.judged(exact, rows)] == [PASS, GAP, NO_VERDICT]
    trend = catalog.entry("erasure-code-study")
    claim = reproduce_all.row("Figure 9", "Iozone2, rs", "noc_pct: hand-made", -39.5, -25, "%")
    (r,) = reproduce_all.judged(trend, [claim])
    assert (r["rule"], r["tolerance"], r["verdict"]) == ("factor", "×2 or ±5 points", PASS)
    stray = reproduce_all.row("Figure 99", "hand", "unknown", 1, 2, "")
    with pytest.raises(CatalogError, match="no \\[\\[catalog.verdicts\\]\\] matches the row Figure 99"):
        reproduce_all.judged(trend, [stray])
    # A runner's row whose verdict contradicts its module's own comparison is a bug, said so.
    contradicted = reproduce_all.row("Table 4", "hand", "page writes, P", 33, 33, "pages", expect=False)
    with pytest.raises(RuntimeError, match="disagrees with the module"):
        reproduce_all.judged(exact, [contradicted])


def test_a_pass_under_a_mapping_is_counted_apart_and_a_mismatch_under_one_is_still_a_gap():
    equal = Rule("equal")
    assert judge(4, 4, equal, mapping="R1 read as row 1") == PASS_MAPPED
    assert judge(4, 4, equal) == PASS and judge(4, 4, equal, mapping="") == PASS
    assert judge(1, 4, equal, mapping="R1 read as row 1") == GAP
    assert judge(4, None, equal, mapping="R1 read as row 1") == NO_VERDICT  # nothing published: nothing mapped
    assert judge(None, 4, equal, mapping="R1 read as row 1") == GAP
    exact = catalog.entry("erasure-code-updates")
    rows = [reproduce_all.row("Table 3", "hand", "parity units, P2", 4, 4, "units", mapping="R1 read as row 1"),
            reproduce_all.row("Table 3", "hand", "parity units, P1", 1, 1, "units"),
            reproduce_all.row("Table 3", "hand", "parity units, P2", 1, 4, "units", mapping="R1 read as row 1"),
            reproduce_all.row("Table 3", "hand", "parity units, P2", 1, None, "units", mapping="R1 read as row 1")]
    got = reproduce_all.judged(exact, rows)
    assert [r["verdict"] for r in got] == [PASS_MAPPED, PASS, GAP, NO_VERDICT]
    assert [r["mapping"] for r in got] == ["R1 read as row 1", None, "R1 read as row 1", None]
    res = reproduce_all.EntryResult(exact, "ok", 0.0, got)
    assert res.counts() == {"pass": 1, "pass_mapped": 1, "gap": 1, "not_run": 0, "no_published_value": 1}
    # The module's own comparison agrees with a mapped pass (a match), and disagrees with it when it says no.
    assert reproduce_all.judged(exact, [reproduce_all.row("T", "c", "m", 4, 4, "", mapping="x", expect=True)])
    with pytest.raises(RuntimeError, match="disagrees with the module"):
        reproduce_all.judged(exact, [reproduce_all.row("T", "c", "m", 4, 4, "", mapping="x", expect=False)])


def test_a_mapping_is_read_from_the_study_file_and_a_misspelt_key_is_an_error_naming_file_and_key():
    from raidsim.papers import erasure_code_tables as ect
    from raidsim.papers import reproduce

    spec = study_file("erasure-code-updates")
    table = reproduce._updates_published(spec, "updates.toml")
    # By hand from the study file: the EVENODD group without the X row carries the note, its rows inherit it.
    assert table[("evenodd", 4, 1, 3)]["mapping"].startswith("the paper's R1 read as our row 1")
    assert table[("evenodd", 64, 0, 0)]["mapping"] == "" and table[("rdp", 4, 1, 0)]["mapping"] == ""
    spec["published"][3]["rows"][0]["maping"] = "typo"
    with pytest.raises(CatalogError, match=r"updates.toml: \[\[published\]\]\[3\] \(rdp\) rows\[0\]: unknown key `maping`"):
        reproduce._updates_published(spec, "updates.toml")
    spec = study_file("erasure-code-updates")
    spec["published"][0]["mapping"] = ""
    with pytest.raises(CatalogError, match=r"\[\[published\]\]\[0\] mapping: must be a non-empty string"):
        reproduce._updates_published(spec, "updates.toml")
    tables = study_file("erasure-code-tables")
    ect.check_spec(tables)
    tables["diffs"][1]["maping"] = "typo"
    with pytest.raises(CatalogError, match=r"erasure-code-tables.toml: \[\[diffs\]\]\[1\]: unknown key `maping`; valid: "
                                           r"code, paper_pct, tolerance, mapping"):
        ect.check_spec(tables)


def test_the_report_shows_mapped_passes_apart_with_their_notes(fast_report):
    p, out = fast_report
    line = next(x for x in p.stdout.splitlines() if re.match(r"\[3/4\] erasure-code-updates: ", x))
    assert "32 pass, 12 pass (mapped), 0 gap" in line, line
    line = next(x for x in p.stdout.splitlines() if re.match(r"\[4/4\] erasure-code-tables: ", x))
    assert "28 pass, 15 pass (mapped), 4 gap" in line, line
    line = next(x for x in p.stdout.splitlines() if re.match(r"\[1/4\] stripe-unit-tables: ", x))
    assert "192 pass, 0 gap" in line, line  # none mapped: not said
    counts = {e["name"]: e["counts"] for e in json.loads((out / "entries.json").read_text())}
    assert (counts["erasure-code-updates"]["pass"], counts["erasure-code-updates"]["pass_mapped"]) == (32, 12)
    assert (counts["erasure-code-tables"]["pass"], counts["erasure-code-tables"]["pass_mapped"]) == (28, 15)
    index = (out / "report.html").read_text()
    assert "<li><b>pass (mapped)</b>: a pass that rests on a mapping" in index  # the legend
    assert "<th>pass (mapped)</th>" in index
    updates, tables = (entry_page(out, name) for name in ("erasure-code-updates", "erasure-code-tables"))
    assert updates.count("<td class='mapped'>pass (mapped)</td>") == 12
    assert tables.count("<td class='mapped'>pass (mapped)</td>") == 15
    assert "<b>mapped</b>: the paper&#x27;s R1 read as our row 1 for EVENODD" in updates  # the note beside the row
    assert "<th>pass (mapped)</th>" in updates  # its counts by table and figure
    header = (out / "rows.csv").read_text().splitlines()[0].split(",")
    assert "mapping" in header


@pytest.mark.parametrize("change, message", [
    ({"colour": "red"}, "unknown key `colour`; valid: paper, covers"),
    ({"kind": None}, "missing `kind`"),
    ({"kind": "roughly"}, "`kind` must be one of exact, trend"),
    ({"paper": "nature-2024"}, "not a paper of papers.toml; valid: stripe-unit, chen-lee"),
    ({"quick_seconds": 0}, "`quick_seconds` must be a positive number"),
    ({"covers": []}, "`covers` must be a non-empty list"),
    ({"verdicts": [{"rule": "equal", "why": "x"}]}, "an exact entry's rows pass only when equal"),
    ({"kind": "trend", "verdicts": [{"rule": "close", "why": "x"}]}, "`rule` must be one of equal, absolute"),
    ({"kind": "trend", "verdicts": [{"rule": "relative", "why": "x"}]}, "missing `tolerance`"),
    ({"kind": "trend", "verdicts": [{"rule": "relative", "tolerance": 0.1}]}, "missing `why`"),
    ({"kind": "trend", "verdicts": [{"rule": "absolute", "tolerance": "1", "why": "x"}]}, "`tolerance` must be a number"),
    ({"published_in": "nowhere"}, "is not a study file beside it"),
    # TOML has inf: a tolerance that passes every row, or a negative one that passes none, is refused.
    ({"kind": "trend", "verdicts": [{"rule": "absolute", "tolerance": float("inf"), "why": "x"}]},
     "`tolerance` must be a finite number of at least 0, got inf"),
    ({"kind": "trend", "verdicts": [{"rule": "factor", "factor": 2, "floor": -1, "why": "x"}]},
     "`floor` must be a finite number of at least 0, got -1"),
])
def test_a_wrong_catalog_table_is_an_error_naming_the_file_and_key(tmp_path, change, message):
    table = dict(study_file("stripe-unit-tables")["catalog"])
    for k, v in change.items():
        if v is None:
            table.pop(k)
        else:
            table[k] = v
    def toml(v):
        return "inf" if v == float("inf") else json.dumps(v)

    lines = ["[catalog]"] + [f"{k} = {toml(v)}" for k, v in table.items() if k != "verdicts"]
    for v in table.get("verdicts", []):
        lines += ["[[catalog.verdicts]]"] + [f"{k} = {toml(x)}" for k, x in v.items()]
    (tmp_path / "broken.toml").write_text("\n".join(lines) + "\n")
    with pytest.raises(CatalogError, match=re.escape(message)) as e:
        catalog.load_entries(str(tmp_path))
    assert "broken.toml: [catalog]" in str(e.value)


def test_every_table_and_figure_with_numbers_is_in_the_catalog_or_says_why_not():
    covered = {}
    for e in catalog.entries():
        for c in e.covers:
            if re.fullmatch(r"(Table|Figure) \d+", c):
                assert (e.paper.key, c) not in covered, f"{c} of {e.paper.key}: in {covered.get((e.paper.key, c))} too"
                covered[(e.paper.key, c)] = e.name
    for key, expected in PAPERS.items():
        mine = {c for (k, c) in covered if k == key}
        outside = {what for what, _ in catalog.papers()[key].outside_catalog}
        assert not mine & outside, (key, mine & outside)
        assert mine | outside == expected, (key, "missing:", expected - mine - outside, "extra:", (mine | outside) - expected)


def paper_text(key):
    from conftest import SHARED_PAPERS

    path = SHARED_PAPERS / catalog.papers()[key].file
    if not path.is_file():
        pytest.skip(f"{path} not found: the papers sit in ../shared/papers beside the project checkout")
    return " ".join(path.read_text().split())


def test_what_the_catalog_says_of_a_paper_is_what_its_text_says():
    # Figure 5's RDP: the text gives a minimum of one parity unit, Table 5 (and raidsim) two; the reason for
    # leaving Figure 5 out may not say Table 5 reproduces it whole.
    ec = paper_text("erasure-codes")
    assert "RDP in the minimum case updates just one parity unit, but in the maximum case, three" in ec
    assert "Figure 5" in catalog.entry("erasure-code-tables").covers
    reason = catalog.entry("erasure-code-tables").gap_reason_for("Figure 5", "rdp 4+2, one 4 KB data unit on 4 KB units",
                                                                 "fewest parity units one data unit updates")
    assert reason is not None and reason.klass == "b" and "Table 5" in reason.why
    # The 2.2x and 1.8x write amplification continue the sentence on Fig. 7, not Fig. 14's.
    assert re.search(r"As shown in Fig\. 7, the difference among erasure codes is considerable .{0,400}when running "
                     r"random workloads\. For CAM03-lvm0 workload, RDP and EVENODD impose about", ec)
    claims = [c for c in study_file("erasure-code-study")["claims"] if c["paper"] == {"rdp": 120, "evenodd": 80}]
    assert [c["figure"] for c in claims] == ["Figure 7", "Figure 7"]  # one row per reading of "write amplification"
    assert sorted(c["metric"] for c in claims) == ["wa", "wa_parity"] and all("reading" in c for c in claims)
    # stripe-unit-study's figures: the numbers the text prints about them are claims, each quoting the text.
    su = " ".join(paper_text("stripe-unit").split())
    claims = catalog.entry("stripe-unit-study").claims
    for words, published in (("improve the response time up to six times", 6.0), ("up to four times", 4.0),
                             ("(up to 67.6%, 52.2%, and 48.6%", 67.6), ("on average, 20% less", 20.0)):
        assert words in su
        assert any(words.split("(")[-1] in c["text"] and c["published"] == published for c in claims), words


def test_the_readme_table_is_the_catalogs():
    readme = (REPO / "README.md").read_text()
    assert catalog.current_block(readme) == catalog.readme_block(), (
        f"README.md's catalog table differs from the catalog: run `{catalog.README_COMMAND}` to regenerate it")


def test_the_readme_command_rewrites_a_stale_block(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{catalog.BEGIN}\n| stale |\n{catalog.END}\n\nafter\n")
    command = [sys.executable, "-m", "raidsim.papers.catalog", "--readme", str(readme)]
    assert subprocess.run(command + ["--check"], capture_output=True).returncode == 1
    assert subprocess.run(command, capture_output=True).returncode == 0
    assert readme.read_text() == f"# x\n\n{catalog.readme_block()}\n\nafter\n"
    assert subprocess.run(command + ["--check"], capture_output=True).returncode == 0
    readme.write_text("no markers\n")
    p = subprocess.run(command, capture_output=True, text=True)
    assert p.returncode == 1 and "must hold the markers" in p.stderr


def test_check_alone_checks_the_checkouts_readme_rather_than_passing_unread(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "README.md"
    stale.write_text(f"{catalog.BEGIN}\n| stale |\n{catalog.END}\n")
    monkeypatch.setattr(catalog, "default_readme", lambda: str(stale))
    assert catalog.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().out
    assert stale.read_text() == f"{catalog.BEGIN}\n| stale |\n{catalog.END}\n"  # checked, not rewritten


# --- reproduce all --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fast_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce-all")
    p = run_cli("reproduce", "all", "--only", ",".join(FAST), "--out", str(out))
    return p, out


def test_reproduce_all_writes_the_report_with_progress_per_entry(fast_report):
    p, out = fast_report
    assert p.returncode == 0, p.stderr
    done = [line for line in p.stdout.splitlines() if re.match(r"\[\d/4\] [a-z-]+: ", line)]
    assert [line.split()[1].rstrip(":") for line in done] == FAST_IN_ORDER
    assert all(re.search(r"\(\d+\.\d s; \d+ s elapsed\)$", line) for line in done), done
    entries = json.loads((out / "entries.json").read_text())
    assert [(e["name"], e["status"]) for e in entries] == [(n, "ok") for n in FAST_IN_ORDER]
    index = (out / "report.html").read_text()
    for name in FAST:
        assert f"<a href='entries/{name}.html'>{name}</a>" in index
    assert "no verdict, never a pass" in index and "Not in the catalog" in index


def test_the_index_links_a_page_per_entry_that_links_back_and_holds_every_row(fast_report):
    _, out = fast_report
    index = (out / "report.html").read_text()
    rows = json.loads((out / "rows.json").read_text())
    entries = json.loads((out / "entries.json").read_text())
    linked = re.findall(r"<a href='entries/([a-z0-9-]+)\.html'>", index)
    assert linked == [e["name"] for e in entries] == FAST_IN_ORDER
    assert sorted(p.name for p in (out / "entries").iterdir()) == sorted(f"{n}.html" for n in FAST)
    shown = 0
    for e in entries:
        page = entry_page(out, e["name"])
        assert page.count("<a href='../report.html'>") == 2  # back to the index, above and below the rows
        # Its verdict comes first, before anything else the page says, and holds the entry's counts.
        head = page.split("<div class='verdict", 1)
        assert len(head) == 2 and "<h2>" not in head[0] and "<table>" not in head[0]
        verdict = head[1].split("</div>", 1)[0]
        c = e["counts"]
        assert f"{c['pass']} pass" in verdict and f"{c['gap']} gap" in verdict
        n = page.count("<tr class='row'>")
        assert n == sum(c.values()) == sum(r["entry"] == e["name"] for r in rows)
        shown += n
    assert shown == len(rows)  # no row left off a page
    # The index adds up the verdicts: its totals row is the sum of entries.json's counts.
    total = index.split("<tr class='total'>", 1)[1].split("</tr>", 1)[0]
    cells = [int(x.replace(",", "")) for x in re.findall(r"<td class='n[^']*'>([\d,]+)</td>", total)]
    assert cells == [sum(e["counts"][k] for e in entries) for k in reproduce_all.COUNT_KEYS.values()]


def test_a_rerun_of_fewer_entries_removes_the_pages_of_the_others(tmp_path):
    out = tmp_path / "out"
    assert cli.main(["reproduce", "all", "--only", "disk-parameters,stripe-unit-tables", "--out", str(out)]) == 0
    assert (out / "entries" / "stripe-unit-tables.html").is_file()
    assert cli.main(["reproduce", "all", "--only", "disk-parameters", "--out", str(out)]) == 0
    assert [p.name for p in (out / "entries").iterdir()] == ["disk-parameters.html"]
    assert "stripe-unit-tables" not in (out / "report.html").read_text()


def test_the_reports_rows_hold_the_published_numbers_of_the_study_files(fast_report):
    _, out = fast_report
    rows = json.loads((out / "rows.json").read_text())
    by = lambda entry: [r for r in rows if r["entry"] == entry]  # noqa: E731
    # stripe-unit-tables: every published page count of Tables 3 and 4, member by member, and all pass.
    spec = study_file("stripe-unit-tables")
    members = ["D0", "D1", "D2", "D3", "P"]
    for table, key, what in (("Table 3", "published_reads", "extra page reads"),
                             ("Table 4", "published_writes", "page writes")):
        got = {(r["case"], r["metric"]): r["published"] for r in by("stripe-unit-tables") if r["figure"] == table}
        want = {(f"SUS {s['stripe_unit_bytes'] // 1024} KB, from D{s['start_disk']}", f"{what}, {m}"): v
                for s in spec["rows"] for m, v in zip(members, s[key])}
        assert got == want
    assert {r["verdict"] for r in by("stripe-unit-tables")} == {PASS}
    # erasure-code-updates: Table 3's 22 published pairs as 44 rows, all pass; the other starts have none.
    published = [r for r in by("erasure-code-updates") if r["published"] is not None]
    want = sorted(v for p in study_file("erasure-code-updates")["published"] for r in p["rows"] for v in r["published"])
    assert sorted(r["published"] for r in published) == want and len(published) == 44
    # Those that pass only with EVENODD's R1 read as row 1 (RDP's R1 is row 0; the study file's comment): the
    # six EVENODD R1 pairs, 4, 16 and 32 KB from D0 and D3, each P1 and P2, are mapped; the other 32 rows
    # (RS 7 pairs, EVENODD's 64 KB X, RDP 8 pairs) are plain passes.
    mapped = {(f"evenodd 5+2, {kib} KB from row 1 D{d} (paper: R1)", f"parity units, {p}")
              for kib in (4, 16, 32) for d in (0, 3) for p in ("P1", "P2")}
    assert {(r["case"], r["metric"]) for r in published if r["verdict"] == PASS_MAPPED} == mapped
    assert [r["verdict"] for r in published].count(PASS) == 44 - 12 == 32
    assert all("R1 read as our row 1" in r["mapping"] for r in published if r["verdict"] == PASS_MAPPED)
    assert all(r["mapping"] is None for r in published if r["verdict"] == PASS)
    assert {r["verdict"] for r in by("erasure-code-updates") if r["published"] is None} == {NO_VERDICT}
    # erasure-code-tables: the guide's "43 of 47 rows match" (docs/reproductions/erasure-codes.md); the two Table 5
    # cells, Eq. 1 below a unit and Figure 5's RDP minimum (the text's 1, its Table 5's 2).
    verdicts = [r["verdict"] for r in by("erasure-code-tables")]
    assert (verdicts.count(PASS) + verdicts.count(PASS_MAPPED), verdicts.count(GAP), len(verdicts)) == (43, 4, 47)
    fig5 = {(r["case"].split()[0], r["metric"].split()[0]): (r["raidsim"], r["verdict"])
            for r in by("erasure-code-tables") if r["figure"] == "Figure 5"}
    assert fig5 == {("rs", "fewest"): (2, PASS), ("rs", "most"): (2, PASS), ("evenodd", "fewest"): (2, PASS),
                    ("evenodd", "most"): (5, PASS), ("rdp", "fewest"): (2, GAP), ("rdp", "most"): (3, PASS)}
    # Of the 38, mapped: Table 4's RS and RDP cells, drawn on Table 3's 4+2 arrays though Table 4 prints NoD = 5
    # (3 cells each, NoW and AVG: 12), their two Diffs (from those AVGs), and Table 5's RDP 5 disks 24 KB, on
    # Table 3's sampled starts: 15. EVENODD's Table 4 array, 5+2, is NoD 5: plain passes, as everything else.
    mapped = {(code, quantity, sor, sus) for code in ("rs", "rdp") for quantity in ("NoW", "AVG (KB)")
              for sor, sus in ((4, 4), (16, 4), (16, 16))} | {("rs", "Diff", 16, 16), ("rdp", "Diff", 16, 16)}
    got = {(r["case"].split(",")[0], r["metric"], int(r["case"].split("SoR ")[1].split(" KB")[0]),
            int(r["case"].split("SUS ")[1].split(" KB")[0]))
           for r in by("erasure-code-tables") if r["verdict"] == PASS_MAPPED and r["figure"] == "Table 4"}
    assert got == mapped
    (t5,) = [r for r in by("erasure-code-tables") if r["verdict"] == PASS_MAPPED and r["figure"] != "Table 4"]
    assert (t5["figure"], t5["published"], t5["raidsim"]) == ("Table 5", "7", "7") and "rdp, SoR 24 KB, NoD 5" in t5["case"]
    assert "sampled starts" in t5["mapping"]
    assert (verdicts.count(PASS), verdicts.count(PASS_MAPPED)) == (43 - 15, 15)
    printed = {c["paper"] for c in study_file("erasure-code-tables")["cells"]}
    assert printed <= {r["published"] for r in by("erasure-code-tables")}
    diff = [r for r in by("erasure-code-tables") if r["metric"] == "Diff"]
    assert {r["published"] for r in diff} == {166, 155, 81} and {r["tolerance"] for r in diff} == {"±1 point"}
    # disk-parameters: Table 1's numbers from striping-coefficients.toml, judged within 2 %.
    pub = {(d["disk"], "capacity"): d["capacity_mb"] for d in study_file("striping-coefficients")["disks_published"]}
    got = {(r["case"], r["metric"]): r["published"] for r in by("disk-parameters") if r["metric"] == "capacity"}
    assert got == pub
    assert {r["tolerance"] for r in by("disk-parameters")} == {"±2 %"}
    # The entry's page shows them: Table 5's unreproduced cell as printed, beside ours.
    page = entry_page(out, "erasure-code-tables")
    assert "<td class='n'>7-15</td>" in page and "<td class='n'>7-14</td>" in page
    csv_lines = (out / "rows.csv").read_text().splitlines()
    assert csv_lines[0] == ",".join(reproduce_all.COLUMNS) and len(csv_lines) == len(rows) + 1


def test_a_failing_entry_is_reported_and_the_others_still_run(tmp_path, monkeypatch, capsys):
    def broken(ctx):
        raise ValueError("a runner that breaks")

    monkeypatch.setitem(reproduce_all.RUNNERS, "disk-parameters", broken)
    out = tmp_path / "out"
    status = cli.main(["reproduce", "all", "--only", "disk-parameters,stripe-unit-tables", "--out", str(out)])
    captured = capsys.readouterr()
    assert status == cli.EXIT_SWEEP
    assert "disk-parameters: FAILED: ValueError: a runner that breaks" in captured.out
    assert "1 of 2 reproductions failed: disk-parameters" in captured.err
    entries = {e["name"]: e for e in json.loads((out / "entries.json").read_text())}
    assert entries["disk-parameters"]["status"] == "failed" and "a runner that breaks" in entries["disk-parameters"]["error"]
    assert entries["stripe-unit-tables"]["status"] == "ok" and entries["stripe-unit-tables"]["counts"]["pass"] == 192
    index = (out / "report.html").read_text()
    assert "1 failed" in index and "<b>FAILED</b>: ValueError: a runner that breaks" in index
    page = entry_page(out, "disk-parameters")
    assert "Verdict: FAILED</b>: ValueError: a runner that breaks" in page and "This entry failed" in page


def test_reproduce_all_passes_its_options_to_every_entry(tmp_path, monkeypatch):
    seen = {}

    def spy(name):
        def run(ctx):
            seen[name] = ctx
            return reproduce_all.Outcome([reproduce_all.row("Table 1", "spy", "x", 1.0, 1.0, "")])
        return run

    for name in ("cr5m", "disk-parameters"):
        monkeypatch.setitem(reproduce_all.RUNNERS, name, spy(name))
    out = tmp_path / "out"
    argv = ["reproduce", "all", "--only", "disk-parameters,cr5m", "--out", str(out), "--quick", "--workers", "1",
            "--traces", str(tmp_path), "--no-progress"]
    assert cli.main(argv) == 0
    for ctx in seen.values():
        assert (ctx.quick, ctx.workers, ctx.traces_dir, ctx.progress) == (True, 1, str(tmp_path), False)
    # A quick grid has its own directory, beside a full run's; an entry with no quick mode runs the same either way.
    assert seen["cr5m"].out_dir == str(out / "cr5m-quick") and seen["disk-parameters"].out_dir == str(out / "disk-parameters")
    assert cli.main(argv[:6]) == 0  # no --quick
    assert seen["cr5m"].quick is False and seen["cr5m"].out_dir == str(out / "cr5m")
    # Without --out: raidsim-out/reproduce-all of the working directory.
    monkeypatch.chdir(tmp_path)
    assert cli.main(["reproduce", "all", "--only", "disk-parameters"]) == 0
    assert (tmp_path / "raidsim-out" / "reproduce-all" / "report.html").is_file()
    assert cli.main(["reproduce", "all", "--only", "disk-parameters,nope"]) == 2
    assert cli.main(["reproduce", "all", "--json"]) == 2


def _lightning_only(quick):
    """striping.striping_coefficients' result as --quick leaves it: the IBM Lightning's row alone."""
    from raidsim.papers import striping

    pub = striping.published("hdd-ibm-lightning")
    r = {"disk": pub["disk"], "preset": "hdd-ibm-lightning", "disks": 17, "ranges_read": {}, "ranges_write": {}}
    for k in striping.COEFFICIENTS:
        r[k], r[f"{k}_published"] = pub[k], pub[k]
        if k.startswith("Z"):
            r[f"{k}_band"], r[f"{k}_published_in_band"] = (pub[k], pub[k]), True
    return {"rows": [r], "by_disks": [], "quick": quick, "observations": []}


@pytest.mark.parametrize("quick", [True, False])
def test_a_published_coefficient_the_quick_grid_leaves_out_is_not_run_and_a_full_run_must_hold_it(
        tmp_path, monkeypatch, quick):
    from raidsim.papers import striping

    monkeypatch.setattr(striping, "striping_coefficients", lambda *a, **k: _lightning_only(quick))
    monkeypatch.setattr(striping, "plot_striping", lambda *a, **k: [])
    e = catalog.entry("striping-coefficients")
    res = reproduce_all.run_entry(e, reproduce_all.RunContext(str(tmp_path), quick=quick))
    if not quick:  # the full grid runs every disk: a missing one is a failure, not a silence
        assert res.status == "failed" and "no row for the published Seagate Elite3" in res.error
        return
    assert res.status == "ok", res.trace
    table2 = {(r["case"], r["metric"]): r for r in res.rows if r["figure"] == "Table 2"}
    for disk in ("Seagate Elite3", "Seagate Wren4"):
        for k in striping.COEFFICIENTS:
            r = table2[(f"{disk}, 17 disks", k)]
            assert (r["raidsim"], r["published"], r["verdict"]) == (None, striping.published(
                {"Seagate Elite3": "hdd-seagate-elite3", "Seagate Wren4": "hdd-seagate-wren4"}[disk])[k], NOT_RUN)
    assert res.counts() == {"pass": 5, "pass_mapped": 0, "gap": 0, "not_run": 10, "no_published_value": 0}


def test_rais_sets_every_published_number_beside_its_own_or_says_it_did_not_run(tmp_path, monkeypatch):
    from raidsim.papers import rais
    from raidsim.papers.rows import PublishedRows

    published = rais.published()
    # Every number of the study file, read with tomllib: Figure 1's six peaks, the text's 13, Tables 3-4's 28,
    # Table 5's 18 IOPS and Table 6's six cells; Figure 7's ratios are Table 5's and Table 6's, RAIS-0(B)'s own 1 left out.
    spec = study_file("rais")
    assert len(published) == 6 + len(spec["published"]) + 16 + 12 + 18 + 6 + 12 + 2
    assert published[("Table 5", "RAIS-0(A), 0 % reads", "iops")] == 9472
    assert published[("Table 4", "RAIS-6(B)", "stdev_mb_per_s")] == 72.6
    assert published[("Table 6", "RAIS-0(B)", "total_usd")] == 6 * 799 + 579
    assert not any(case.startswith("RAIS-0(B)") for (fig, case, _) in published if fig == "Figure 7")
    # A quick run that reached all but Table 5's 20 % reads, plus Figure 7's reference row.
    # Its rows as rais.rows makes them: the published numbers it did not reach come last, saying so.
    left_out = {k for k in published if "20 % reads" in k[1]}
    out = PublishedRows(published)
    for (f, c, m), v in published.items():
        if (f, c, m) not in left_out:
            out.add(f, c, m, v)
    out.add("Figure 7", "RAIS-0(B), 0 % reads", "iops_per_usd_vs_rais0b", 1.0, paper=1.0)
    monkeypatch.setattr(rais, "run", lambda *a, **k: {"rows": out.rows()})
    monkeypatch.setattr(rais, "plot", lambda *a, **k: [])
    e = catalog.entry("rais")
    res = reproduce_all.run_entry(e, reproduce_all.RunContext(str(tmp_path), quick=True))
    assert res.status == "ok", res.trace
    by = {(r["figure"], r["case"], r["metric"]): r for r in res.rows}
    assert {k for k, r in by.items() if r["verdict"] == NOT_RUN} == left_out
    reference = by[("Figure 7", "RAIS-0(B), 0 % reads", "iops_per_usd_vs_rais0b")]
    assert (reference["published"], reference["verdict"]) == (None, NO_VERDICT)  # 1 = 1 by definition: no pass
    assert res.counts()["pass"] == len(published) - len(left_out)
    # Without --quick the same rows are a failure: the full grid reaches every published case.
    res = reproduce_all.run_entry(e, reproduce_all.RunContext(str(tmp_path), quick=False))
    assert res.status == "failed" and "no row for the published" in res.error


def test_an_out_in_use_is_refused_before_its_report_is_replaced(tmp_path, capsys):
    import fcntl
    import os

    # A sweep's directory: reproduce all would replace its report.html with its own.
    sweep_out = tmp_path / "a-sweep"
    sweep_out.mkdir()
    (sweep_out / "points.jsonl").write_text("")
    (sweep_out / "report.html").write_text("the sweep's page")
    assert cli.main(["reproduce", "all", "--only", "disk-parameters", "--out", str(sweep_out)]) == 2
    assert "holds a sweep's results (points.jsonl)" in capsys.readouterr().err
    assert (sweep_out / "report.html").read_text() == "the sweep's page"
    # Another `reproduce all` (or sweep) running into the same directory: refused, nothing written.
    out = tmp_path / "busy"
    out.mkdir()
    fd = os.open(out / ".sweep.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert cli.main(["reproduce", "all", "--only", "disk-parameters", "--out", str(out)]) == cli.EXIT_SWEEP
        assert "is in use by another sweep" in capsys.readouterr().err
        assert not (out / "report.html").exists()
    finally:
        os.close(fd)
    assert cli.main(["reproduce", "all", "--only", "disk-parameters", "--out", str(out)]) == 0


def test_the_quick_modes_are_the_clis_and_the_runtimes_say_so():
    with_quick = {n for n, takes in cli._REPRODUCE_OPTIONS.items() if "quick" in takes} - {"all"}
    assert reproduce_all.QUICK_MODES == with_quick
    for e in catalog.entries():
        assert (e.quick_seconds < e.full_seconds) == (e.name in with_quick), e.name


def test_an_interrupted_run_still_reports_what_finished(tmp_path, monkeypatch):
    def interrupted(ctx):
        raise KeyboardInterrupt

    monkeypatch.setitem(reproduce_all.RUNNERS, "disk-parameters", interrupted)
    out = tmp_path / "out"
    argv = ["reproduce", "all", "--only", "stripe-unit-tables,disk-parameters,erasure-code-updates", "--out", str(out)]
    assert cli.main(argv) == cli.EXIT_INTERRUPTED
    assert [e["name"] for e in json.loads((out / "entries.json").read_text())] == ["stripe-unit-tables"]
    assert "interrupted: 2 of 3 did not run" in (out / "report.html").read_text()


def test_runtimes_read_as_they_are_measured():
    # 150 s is two and a half minutes: "3 min", not format's round-half-even "2 min"; never "~0 s".
    assert [catalog.duration_text(s) for s in (0.4, 2.5, 60, 150, 700, 1860, 5400, 9180)] == \
        ["1 s", "3 s", "60 s", "3 min", "12 min", "31 min", "1.5 h", "2.6 h"]
    assert catalog.runtime_text(catalog.entry("rais")) == "~3 min quick, ~12 min full"


def test_a_module_metrics_unit_is_read_off_its_name():
    unit = reproduce_all.module_unit
    # A claim is a change in %, whatever it is a change of (write amplification included).
    assert unit("wa_pct: RDP and EVENODD impose about 2.2x and 1.8x") == "%"
    assert unit("noc_pct: NoC decreased by 155 %") == "%" and unit("mirror_chip_writes_pct_of_data_chip") == "%"
    # Write amplification itself is a ratio, with no unit.
    assert unit("wa") == "" and unit("wa_reserve_0.05") == "" and unit("wa_flash_reserve_preset") == ""
    assert unit("peak_mb_per_s") == "MB/s" and unit("art_ms") == "ms" and unit("iops_per_usd_vs_rais0b") == "× RAIS-0(B)"
    assert unit("no_rule_knows_this") == ""  # an empty cell, never a guess
