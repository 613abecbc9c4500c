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


def test_unknown_names_say_which_are_valid():
    entries = ["stripe-unit-traces", "cr5m"]
    assert paper_traces.unknown_names({(None, "Iozone"): "a", ("cr5m", "Radius"): "b"}, entries) == []
    (msg,) = paper_traces.unknown_names({(None, "iozone"): "a"}, entries)
    assert "valid: ATTO, Build, Exchange, Fin2, Iozone, Postmark, Radius, Vdbench" in msg
    (msg,) = paper_traces.unknown_names({("rais", "Iozone"): "a"}, entries)
    assert "`rais` is not one of the reproductions run" in msg
    # A name of one reproduction, qualified with another, is unknown there.
    assert paper_traces.unknown_names({("cr5m", "Iozone"): "a"}, entries)


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
    refused = raidsim_cli("reproduce", "disk-parameters", "--trace", "Iozone=x")
    assert refused.returncode == 2 and "does not take --trace" in refused.stderr
    (tmp_path / "vdbench.csv").symlink_to(traces_dir / "msr-hm0-sample.csv")
    found = raidsim_cli("reproduce", "stripe-unit-traces", "--traces", str(tmp_path), "--json")
    assert found.returncode == 0, found.stderr
    counts = json.loads(found.stdout)["counts"]
    assert counts["Vdbench"]["source"] == "trace" and counts["Iozone"]["source"] == "stand-in"
    assert "warning: Vdbench: write share (%) 49.2 where the paper's Table 6 gives 99.9" in found.stderr
    assert not math.isnan(counts["Vdbench"]["host_write_pages"])


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
