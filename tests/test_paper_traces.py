"""The papers' own traces by name: parsed, found, checked against the paper's statistics, replayed in place of
exactly their stand-in, and the rows they give marked."""

from __future__ import annotations

import csv
import json
import math

import pytest

from conftest import raidsim_cli, write_msr_trace
from raidsim.papers import catalog, cr5m, erasure_code_study, paper_traces, stripe_unit_traces
from raidsim.papers.reproduce_all import RunContext, run_entry


def test_trace_options_parse_by_name_and_entry():
    assert paper_traces.parse(["Iozone=a.trace", "cr5m:Exchange=dir/x=y.csv"]) == {
        (None, "Iozone"): "a.trace", ("cr5m", "Exchange"): "dir/x=y.csv"}
    for bad, message in (("Iozone", "expected NAME=PATH"), ("=x", "expected NAME=PATH"), ("Iozone=", "expected")):
        with pytest.raises(paper_traces.TraceError, match=message):
            paper_traces.parse([bad])
    with pytest.raises(paper_traces.TraceError, match="given twice"):
        paper_traces.parse(["Iozone=a", "Iozone=b"])


def test_names_are_checked_against_the_run_and_a_name_two_papers_read_differently_is_refused(tmp_path):
    entries = ["stripe-unit-traces", "cr5m"]
    assert paper_traces.check_names({(None, "Iozone"): "a", ("cr5m", "Radius"): "b"}, entries) == []
    (msg,) = paper_traces.check_names({(None, "iozone"): "a"}, entries)
    assert "valid: ATTO, Build, Exchange, Fin2, Iozone, Postmark, Radius, Vdbench" in msg
    (msg,) = paper_traces.check_names({("rais", "Iozone"): "a"}, entries)
    assert "`rais` is neither a reproduction of this run nor its paper" in msg
    assert paper_traces.check_names({("cr5m", "Iozone"): "a"}, entries)  # Iozone is not a trace of cr5m's paper
    # Exchange is Table 2's in the CR5M paper and Table 7's in the erasure-code paper: two different traces.
    both = ["cr5m", "erasure-code-study"]
    (msg,) = paper_traces.check_names({(None, "Exchange"): "x"}, both)
    assert "different trace in each of cr5m (Table 2), erasure-codes (Table 7): write PAPER:Exchange" in msg
    assert paper_traces.check_names({("cr5m", "Exchange"): "x", ("erasure-codes", "Exchange"): "y"}, both) == []
    # Postmark is one trace of both the stripe-unit and the erasure-code paper: a bare name is fine.
    assert paper_traces.check_names({(None, "Postmark"): "p"}, ["stripe-unit-traces", "erasure-code-study"]) == []
    (tmp_path / "exchange.csv").write_text("")
    (msg,) = paper_traces.check_names({}, both, str(tmp_path))
    assert "exchange.csv would be a different trace" in msg and "cr5m-exchange.csv" in msg
    (tmp_path / "exchange.csv").rename(tmp_path / "cr5m-Exchange.csv")
    assert paper_traces.check_names({}, both, str(tmp_path)) == []
    assert paper_traces.find(str(tmp_path), paper_traces.known("cr5m")["Exchange"]).endswith("cr5m-Exchange.csv")
    assert paper_traces.find(str(tmp_path), paper_traces.known("erasure-code-study")["Exchange"]) is None


def test_a_papers_name_reaches_every_reproduction_of_that_paper(tmp_path):
    path = write_msr_trace(tmp_path / "x.csv", requests=20)
    given = {("cr5m", "Exchange"): str(path)}
    assert set(paper_traces.for_entry("cr5m", given, None)) == {"Exchange"}
    assert set(paper_traces.for_entry("cr5m-chips", given, None)) == {"Exchange"}
    assert paper_traces.for_entry("erasure-code-study", given, None) == {}
    # An entry's own qualifier wins over its paper's, which wins over a bare name.
    other = write_msr_trace(tmp_path / "y.csv", requests=30)
    mixed = {("cr5m-chips", "Exchange"): str(other), ("cr5m", "Exchange"): str(path), (None, "Exchange"): "z"}
    assert paper_traces.for_entry("cr5m-chips", mixed, None)["Exchange"].path == str(other)
    assert paper_traces.for_entry("cr5m", mixed, None)["Exchange"].path == str(path)


def test_a_trace_is_found_in_a_directory_by_its_names_ignoring_case(tmp_path):
    facts = paper_traces.known("stripe-unit-traces")
    (tmp_path / "IOZONE.trace.gz").write_text("")
    (tmp_path / "Postmark2.csv").write_text("")  # another trace of the paper: not Postmark's
    assert paper_traces.find(str(tmp_path), facts["Iozone"]) == str(tmp_path / "IOZONE.trace.gz")
    assert paper_traces.find(str(tmp_path), facts["Postmark"]) is None
    (tmp_path / "iozone.csv").write_text("")
    with pytest.raises(paper_traces.TraceError, match="2 files could be the paper's Iozone"):
        paper_traces.find(str(tmp_path), facts["Iozone"])


def _msr_by_hand(path):
    """Write share, mean sizes and largest write of an MSR CSV, read with the csv module (not raidsim)."""
    rows = list(csv.reader(open(path)))
    writes = [int(r[5]) for r in rows if r[3] == "Write"]
    reads = [int(r[5]) for r in rows if r[3] == "Read"]
    return {"requests": len(rows), "write_percent": 100 * len(writes) / len(rows),
            "mean_kb": (sum(writes) + sum(reads)) / len(rows) / 1024, "mean_write_kb": sum(writes) / len(writes) / 1024,
            "mean_read_kb": sum(reads) / len(reads) / 1024, "max_write_kb": max(writes) / 1024}


def test_a_traces_statistics_are_the_papers_units_and_checked_against_its_table(traces_dir):
    path = str(traces_dir / "msr-hm0-sample.csv")
    by_hand = _msr_by_hand(path)
    stats = paper_traces.measured(raidsim_trace_stats(path))
    for key, value in by_hand.items():
        assert stats[key] == pytest.approx(value), key
    same = paper_traces.Facts("X", "Table 9", ("X",), by_hand)
    assert paper_traces.compare(same, raidsim_trace_stats(path)) == []
    off = paper_traces.Facts("X", "Table 9", ("X",), {**by_hand, "write_percent": by_hand["write_percent"] + 2.5,
                                                      "mean_write_kb": by_hand["mean_write_kb"] * 1.05})
    (warning,) = paper_traces.compare(off, raidsim_trace_stats(path))  # 5 % off a mean is within 10 %
    assert warning.startswith("X: write share (%) 49.2 where the paper's Table 9 gives 51.7")


def raidsim_trace_stats(path):
    import raidsim

    return raidsim.trace_stats(path)


def test_a_given_trace_replaces_exactly_its_stand_in():
    g = paper_traces.Given("Radius", "/t/radius.csv", {"requests": 5000}, [])
    named = cr5m.paper_workloads(1000, {"Radius": g}, quick=True)
    stand = cr5m.stand_ins(1000)
    assert {k: v for k, v in named.items() if k != "Radius"} == {k: v for k, v in stand.items() if k != "Radius"}
    assert named["Radius"]["workload.path"] == "/t/radius.csv" and named["Radius"]["workload.max_requests"] == 1000
    assert named["Radius"]["_requests"] == 1000
    assert "workload.max_requests" not in cr5m.paper_workloads(1000, {"Radius": g}, quick=False)["Radius"]
    ec = erasure_code_study.workloads(True, None, {"Financial1": g})
    plain = erasure_code_study.workloads(True, None)
    assert ec["Financial1"]["workload.kind"] == "trace" and plain["Financial1"]["workload.kind"] == "synthetic"
    assert {k: v for k, v in ec.items() if k != "Financial1"} == {k: v for k, v in plain.items() if k != "Financial1"}


def test_cr5m_rows_say_what_they_rest_on():
    given = {"Radius": object()}
    assert cr5m.source("ssd1 Radius", given) == "trace"
    assert cr5m.source("ssd1 Build", given) == "stand-in"
    assert cr5m.source("ssd2 average", given) == "mixed"
    assert cr5m.source("fill 0.8", given) == "trace"  # Figure 10 runs on Radius
    assert cr5m.source("size 16 KB", given) == ""  # §4.3's own synthetic benchmark: no trace behind it
    assert cr5m.source("ssd1 average", {}) == "stand-in"


def _pages(offset, size, page=4096):
    return -(-(offset + size) // page) - offset // page


def test_tables_1_2_on_a_given_trace_are_judged_and_marked(tmp_path):
    path = write_msr_trace(tmp_path / "io.csv", requests=400)
    rows = list(csv.reader(open(path)))
    write_pages = sum(_pages(int(r[4]), int(r[5])) for r in rows if r[3] == "Write")
    read_pages = sum(_pages(int(r[4]), int(r[5])) for r in rows if r[3] == "Read")
    ctx = RunContext(str(tmp_path / "out"), trace_paths={(None, "Iozone"): str(path)})
    res = run_entry(catalog.entry("stripe-unit-traces"), ctx)
    assert res.status == "ok", res.error
    iozone = [r for r in res.rows if r["case"] == "Iozone"]
    others = [r for r in res.rows if r["case"] != "Iozone"]
    assert {r["source"] for r in iozone} == {"trace"} and {r["source"] for r in others} == {"stand-in"}
    assert not any(r["verdict"] == "not run" for r in iozone)
    assert {r["verdict"] for r in others if r["unit"] == "K pages"} == {"not run"}
    by = {(r["figure"], r["metric"]): r["raidsim"] for r in iozone}
    assert by[("Table 1", "total size of write requests")] == pytest.approx(write_pages / 1000)
    assert by[("Table 2", "total size of read requests")] == pytest.approx(read_pages / 1000)
    # Every page a request writes lands on one data disk: the data disks' writes add up to the trace's.
    data = sum(by[("Table 1", f"page writes, D{i}")] for i in range(4))
    assert data == pytest.approx(write_pages / 1000)
    assert any("write share (%) 75" in n for n in res.notes)  # the stand-in's check: Table 6 says 100 %


def test_the_stand_in_writes_the_tables_total(monkeypatch):
    counts = stripe_unit_traces.run()["counts"]
    for pub in stripe_unit_traces.spec()["published"]:
        host = counts[pub["trace"]]["host_write_pages"] / 1000
        assert host == pytest.approx(pub["write_pages_total"], rel=0.02), pub["trace"]


def test_the_cli_takes_traces_by_name_and_refuses_unknown_ones(tmp_path, traces_dir):
    bad = raidsim_cli("reproduce", "stripe-unit-traces", "--trace", "Bogus=x")
    assert bad.returncode == 2 and "valid: Iozone, Postmark, Vdbench" in bad.stderr
    missing = raidsim_cli("reproduce", "stripe-unit-traces", "--trace", f"Iozone={tmp_path / 'none.csv'}")
    assert missing.returncode == 1 and "no such file" in missing.stderr
    folder = raidsim_cli("reproduce", "stripe-unit-traces", "--trace", f"Iozone={tmp_path}")
    assert folder.returncode == 1 and "a directory, not a trace file" in folder.stderr
    (tmp_path / "empty.csv").write_text("")
    empty = raidsim_cli("reproduce", "stripe-unit-traces", "--trace", f"Iozone={tmp_path / 'empty.csv'}")
    assert empty.returncode == 1 and "--trace Iozone=" in empty.stderr and "not a trace raidsim reads" in empty.stderr
    assert "Traceback" not in empty.stderr
    # reproduce all reads every given trace before the first reproduction runs.
    early = raidsim_cli("reproduce", "all", "--only", "disk-parameters,stripe-unit-traces", "--out", str(tmp_path / "o"),
                        "--trace", f"Iozone={tmp_path / 'empty.csv'}")
    assert early.returncode == 1 and "not a trace raidsim reads" in early.stderr and "[1/2]" not in early.stdout
    refused = raidsim_cli("reproduce", "disk-parameters", "--trace", "Iozone=x")
    assert refused.returncode == 2 and "does not take --trace" in refused.stderr
    (tmp_path / "vdbench.csv").symlink_to(traces_dir / "msr-hm0-sample.csv")
    found = raidsim_cli("reproduce", "stripe-unit-traces", "--traces", str(tmp_path), "--json")
    assert found.returncode == 0, found.stderr
    rows = json.loads(found.stdout)
    assert {r["source"] for r in rows if r["case"] == "Vdbench"} == {"trace"}
    assert {r["source"] for r in rows if r["case"] == "Iozone"} == {"stand-in"}
    assert "warning: Vdbench: write share (%) 49.2 where the paper's Table 6 gives 99.9" in found.stderr
    assert found.stderr.count("write share (%) 49.2") == 1
    text = raidsim_cli("reproduce", "stripe-unit-traces", "--traces", str(tmp_path))
    assert (text.stdout + text.stderr).count("write share (%) 49.2") == 1  # each warning once, on stderr
    assert "Vdbench: replayed from" in text.stdout
    total = [r for r in rows if r["case"] == "Vdbench" and r["metric"] == "total size of write requests"]
    assert total[0]["verdict"] == "gap" and not math.isnan(total[0]["raidsim"])  # judged, not "not run"


def test_a_case_trace_replaces_that_cases_workload_and_no_other():
    spec = {"base": {"preset": "p", "workload": {"kind": "synthetic", "requests": 10, "size": {"kind": "fixed"}}},
            "cases": [{"name": "a", "set": {"workload.read_fraction": 0.5}}, {"name": "b", "set": {"x.y": 1}}]}
    g = paper_traces.Given("A", "/t/a.csv", {"requests": 3}, [])
    traces = [{"name": "A", "case": "a", "set": {"ssd.k": 2}, "why": "w"}, {"name": "B", "case": "b", "why": "w"}]
    out, sources = paper_traces.study_spec_with(spec, traces, {"A": g})
    assert "workload" not in out["base"] and sources == {"a": "trace", "b": "stand-in"}
    a, b = out["cases"]
    assert a["set"] == {"workload.kind": "trace", "workload.path": "/t/a.csv", "workload.out_of_range": "wrap",
                        "workload.max_wrapped_fraction": 1.0, "ssd.k": 2}
    assert b["set"] == {"workload.kind": "synthetic", "workload.requests": 10, "workload.size.kind": "fixed", "x.y": 1}
    assert spec["base"]["workload"]["kind"] == "synthetic"  # the study file's own spec is left as it was
    with pytest.raises(paper_traces.TraceError, match="no case `c`"):
        paper_traces.study_spec_with(spec, [{"name": "A", "case": "c", "why": "w"}], {"A": g})
    base, sources = paper_traces.study_spec_with(spec, [{"name": "A", "set": {"ssd.k": 3}, "why": "w"}], {"A": g})
    assert base["base"]["workload"]["path"] == "/t/a.csv" and base["base"]["ssd"] == {"k": 3}
    assert sources == {"": "trace"} and base["cases"] == spec["cases"]


def test_every_study_that_stands_in_for_a_trace_names_known_traces_and_cases():
    from raidsim.study.spec import Study

    for e in catalog.entries():
        if not e.traces:
            continue
        cases = {c["name"] for c in Study.from_file(e.path).spec.get("cases", [])}
        known = paper_traces.known(e.name)
        for t in e.traces:
            assert t["name"] in known, (e.name, t["name"])
            assert t.get("case", next(iter(cases), None)) in cases | {None}, (e.name, t)


def test_an_ordinary_study_marks_each_cases_rows(tmp_path):
    path = write_msr_trace(tmp_path / "radius.csv", requests=200)
    ctx = RunContext(str(tmp_path / "out"), trace_paths={(None, "Radius"): str(path)})
    res = run_entry(catalog.entry("cr5m-chips"), ctx)
    assert res.status == "ok", res.error
    by_case = {}
    for r in res.rows:
        by_case.setdefault(r["case"].split(",")[0], set()).add(r["source"])
    assert by_case["Radius"] == {"trace"} and by_case["ATTO"] == {"stand-in"}
    radius_claims = [r for r in res.rows if r["published"] is not None and r["case"].startswith("Radius")]
    assert radius_claims and all(r["source"] == "trace" and r["gap_class"] != "a" for r in radius_claims)


def test_a_wrong_traces_table_is_an_error_naming_it(tmp_path):
    head = ('[catalog]\npaper = "stripe-unit"\ncovers = ["Figure 5"]\nkind = "trend"\nquick_seconds = 1\n'
            'full_seconds = 1\nsummary = "s"\n')
    for body, message in (('[[catalog.traces]]\nname = "Iozone"\n', "missing `why`"),
                          ('[[catalog.traces]]\nname = "Iozone"\nwhy = "w"\ncas = "x"\n', "unknown key `cas`"),
                          ('[[catalog.traces]]\nname = "Iozone"\nwhy = "w"\nset = 3\n', "must be a table of settings")):
        (tmp_path / "x.toml").write_text(head + body)
        with pytest.raises(catalog.CatalogError, match=message):
            catalog.load_entries(str(tmp_path))


def test_a_trace_folded_onto_the_array_says_so(tmp_path):
    # Every request of this trace lies past the 128 GB array: folded onto it, with a warning in the notes.
    lines = [f"{128166372000000000 + i * 10_000},hm,0,Write,{(1 << 40) + i * 65536},65536,100" for i in range(50)]
    path = tmp_path / "far.csv"
    path.write_text("\n".join(lines) + "\n")
    result = stripe_unit_traces.run(given=paper_traces.for_entry("stripe-unit-traces", {(None, "Iozone"): str(path)}, None))
    assert any(n.startswith("warning: Iozone: wrapped: 50 of 50") for n in result["notes"]), result["notes"]


def test_an_ordinary_study_replays_the_traces_its_catalog_names_and_no_more(monkeypatch):
    assert set(paper_traces.known("stripe-unit-study")) == {"Iozone"}
    assert set(paper_traces.known("stripe-unit-chips")) == {"Iozone", "Vdbench"}
    assert set(paper_traces.known("stripe-unit-traces")) == {"Iozone", "Postmark", "Vdbench"}
    assert set(paper_traces.known("cr5m-chips")) == set(paper_traces.known("cr5m"))
    assert paper_traces.known("rais") == {}
    monkeypatch.setitem(paper_traces.FACTS_IN, "stripe-unit-traces", ("stripe-unit-traces", "paper_traces", ("Iozone", "Bonnie")))
    with pytest.raises(paper_traces.TraceError, match="replays Bonnie, which .* does not list"):
        paper_traces.known("stripe-unit-traces")
