"""raidsim reproduce erasure-code-tables: the erasure-code paper's Tables 4 and 5, Eq. 1 and Section 3.2.4's
averages against counting mode (issue #13).

The published values come from the study file (experiments/erasure-code-tables.toml); the counts from the
planner. Beside the paper, each count is checked against a derivation written here from the codes'
definitions (EVENODD: Blaum et al. 1995; RDP: Corbett et al. 2004), not from raidsim's code structure, and
Eq. 1 against its closed form. Each test's docstring names a one-line change it catches.
"""

import json
import re

import pytest

from raidsim.papers import erasure_code_tables as ect
from raidsim.cli import main
from raidsim.papers.packaged import packaged_spec

SPEC = packaged_spec("erasure-code-tables")
ARRAYS = SPEC["arrays"]
KIB = 1024


@pytest.fixture(scope="module")
def rows():
    return ect.erasure_code_tables()


def parse_paper(text):
    """'(2-5) * 4' -> ([2, 5], 4); '2 * 16' -> ([2, 2], 16); '7-15' -> ([7, 15], None); '6' -> ([6, 6], None)."""
    m = re.fullmatch(r"\(?(\d+)(?:-(\d+))?\)?(?: \* (\d+))?", text)
    assert m, f"unparsable published cell {text!r}"
    lo, hi, sus = m.group(1), m.group(2) or m.group(1), m.group(3)
    return [int(lo), int(hi)], (int(sus) if sus else None)


# --- an independent derivation from the codes' definitions ---------------------------------------------------

def model_units(code, k, p, start, n, rows=None):
    """Parity units touched by n consecutive units from logical unit ``start``; k real data columns, prime (or
    not) p, imaginary columns after the real ones, ``rows`` per codeword (p - 1 unless given; 1 for RS).

    RS: P and Q of every row touched. EVENODD: the row parity of every row touched; diagonal d = (r + c) mod p
    has parity unit d for d < p - 1; a unit on diagonal p - 1 (the adjuster S) changes every diagonal parity.
    RDP: the row parity of every row touched; diagonal p - 1 is not stored; the row parity of row r sits in
    column p - 1, on diagonal (r + p - 1) mod p, so rewriting it rewrites that diagonal's parity too.
    """
    rows = 1 if code == "rs" else rows or p - 1
    by_codeword = {}
    for u in range(start, start + n):
        g, c = divmod(u, k)
        by_codeword.setdefault(g // rows, []).append((g % rows, c))
    total = 0
    for cells in by_codeword.values():
        touched_rows = {r for r, _ in cells}
        if code == "rs":
            total += 2 * len(touched_rows)
            continue
        diagonals = set()
        for r, c in cells:
            d = (r + c) % p
            if code == "evenodd":
                diagonals |= set(range(p - 1)) if d == p - 1 else {d}
            elif d != p - 1:
                diagonals.add(d)
        if code == "rdp":
            diagonals |= {(r + p - 1) % p for r in touched_rows} - {p - 1}
        total += len(touched_rows) + len(diagonals)
    return total


def model_range(code, k, p, n, inside=True, rows=None):
    rows_ = 1 if code == "rs" else rows or p - 1
    vals = [model_units(code, k, p, s, n, rows) for s in range(rows_ * k)
            if not inside or code == "rs" or s + n <= rows_ * k]
    return [min(vals), max(vals)]


def eq1(sor, sus, k, start_unit):
    """Eq. 1 written out again: SUP = NoRO x SUS + min{SoR, UD x SUS}, bytes."""
    ud = len({b // sus for b in (start_unit * sus + i for i in range(0, sor, 512))})
    noro = len({b // (sus * k) for b in (start_unit * sus + i for i in range(0, sor, 512))})
    return noro * sus + min(sor, ud * sus)


# --- the published values, as data ---------------------------------------------------------------------------

def test_published_cells_are_consistent_data():
    """The printed strings, the [min, max] units and Table 4's AVG column agree in the study file, and every AVG is
    the midpoint of its range x SUS (the paper's convention). Catches a published value edited in one place
    (e.g. paper_units = [2, 4] left under paper = "(2-5) * 4")."""
    for c in SPEC["cells"]:
        units, sus = parse_paper(c["paper"])
        assert units == c["paper_units"], c
        if c["table"] == "Table 4":
            assert sus == c["sus_kib"], c
            assert c["paper_avg_kib"] == (units[0] + units[1]) / 2 * c["sus_kib"], c
        else:
            assert sus is None and c["sus_kib"] == 4, c
    assert len([c for c in SPEC["cells"] if c["table"] == "Table 4"]) == 9
    assert len([c for c in SPEC["cells"] if c["table"] == "Table 5"]) == 12


# --- raidsim against the paper -------------------------------------------------------------------------------

def test_now_cells_against_the_printed_values(rows):
    """Each NoW row's count is compared with the printed cell parsed here, not with the row's own `paper_units`:
    matches are exactly the cells without a recorded reason, and the two Table 5 cells that do not reproduce
    give the counts their reasons describe. Catches e.g. the planner rewriting only one diagonal unit for a
    write on EVENODD's adjuster diagonal (Table 4 EVENODD 4 KB becomes 2-2), or `match` computed on the
    midpoint instead of the range."""
    now = [r for r in rows if r["quantity"] == "NoW"]
    assert len(now) == len(SPEC["cells"]) == 21
    for r, c in zip(now, SPEC["cells"]):
        printed, _ = parse_paper(c["paper"])
        assert r["paper"] == c["paper"]
        assert r["match"] == (r["units"] == printed), r
        assert r["match"] == ("mismatch" not in c), r
        if not r["match"]:
            assert r["note"].startswith(c["mismatch"].rstrip(".")), r
    wrong = {(r["code"], r["nod"], r["sor_bytes"]): r["units"] for r in now if not r["match"]}
    assert wrong == {("evenodd", 13, 24 * KIB): [7, 14], ("rdp", 13, 24 * KIB): [7, 10]}


def test_counts_equal_the_independent_derivation():
    """Every start of every array in the study: raidsim's parity units equal the derivation above from the codes'
    definitions. Catches a planner that forgets the diagonal of RDP's rewritten row parity, or stores a parity
    for RDP's missing diagonal (RDP 4 KB would become 2-2 or 3-3)."""
    for c in SPEC["cells"]:
        a = ARRAYS[c["array"]]
        code, k, p = a["code"], a["data_disks"], a["prime"]
        sus, n = c["sus_kib"], c["sor_kib"] // c["sus_kib"]
        got = ect.per_start(c)
        for key, units in got.items():
            r, d = map(int, key.split(","))
            assert units == model_units(code, k, p, r * k + d, n), (c, key)


def test_hand_counts():
    """A few cells counted by hand from the code layout. Catches a diagonal convention flipped to (c - r) mod p
    (the units on EVENODD's S and RDP's missing diagonal move) or a request placed at the wrong start."""
    def units(array, sor_kib, row, disk):
        a = ARRAYS[array]
        return ect.parity_bytes(a["code"], a["data_disks"], a["prime"], 4096, sor_kib * KIB,
                                row * a["data_disks"] + disk) // 4096
    # EVENODD 5+2, p = 5, 4 KB: (row 1, D3) is on diagonal 4 = S: its row unit + all 4 diagonal units.
    assert units("evenodd-5", 4, 1, 3) == 5
    # (row 1, D0) is on diagonal 1: one row unit, one diagonal unit.
    assert units("evenodd-5", 4, 1, 0) == 2
    # RDP 5 data, p = 7, 24 KB from (row 0, D0): rows 0-1 (2 row units); data on diagonals 0-4 and 1;
    # row 0's parity is on diagonal 6 (not stored), row 1's on diagonal 0: {0..4}, 5 units. 7.
    assert units("rdp-5", 24, 0, 0) == 7
    # From (row 1, D0): rows 1-2; data on 1-5 and 2; row parities on 0 and 1: {0..5}, 6 units. 8.
    assert units("rdp-5", 24, 1, 0) == 8
    # RS 13 data disks, 24 KB: D7 ends on D12 (one row: P, Q); D8 spills into the next row (2 x P, Q).
    assert units("rs-13", 24, 0, 7) == 2
    assert units("rs-13", 24, 0, 8) == 4


def test_mismatch_and_mapping_notes_state_true_facts(rows):
    """The reasons in the study file are claims about counts: check them. Catches a note left stale when a
    count changes (e.g. the '55 of 203' of RDP 13 or the 7-8 of RDP 5 at every in-codeword start)."""
    by = {(r["table"], r["code"], r["nod"], r["sor_bytes"]): r for r in rows if r["quantity"] == "NoW"}
    rdp13 = by[("Table 5", "rdp", 13, 24 * KIB)]
    starts = {(r, d): ok for r, d, ok in ect.starts("rdp", 13, 17, 4096, 24 * KIB)}
    cell = next(c for c in SPEC["cells"] if c["array"] == "rdp-13" and c["sor_kib"] == 24)
    inside = [u for key, u in ect.per_start(cell).items() if starts[tuple(map(int, key.split(",")))]]
    assert (inside.count(7), len(inside)) == (55, 203) and "55 of 203" in rdp13["note"]
    # The same 7 with 12 data disks and p = 13, and with p = 14; row 1's starts give 8-10.
    assert model_range("rdp", 12, 13, 6)[0] == model_range("rdp", 13, 14, 6)[0] == 7
    assert {model_units("rdp", 13, 17, 13 + d, 6) for d in range(13)} == {8, 10}
    # EVENODD 13: at most 14 at any start; p = 14 (13 rows) would give 7-15 but 2-14 for 4 KB; p = 17: 7-18.
    assert by[("Table 5", "evenodd", 13, 24 * KIB)]["all_starts_range"] == "7-14"
    assert model_range("evenodd", 13, 14, 6) == [7, 15] and model_range("evenodd", 13, 14, 1) == [2, 14]
    assert model_range("evenodd", 13, 17, 6) == [7, 18]
    # RDP 5: 7-8 inside a codeword, 8 exactly from D4 and from row 1; the paper's p = 6 layout: 7 everywhere.
    rdp5 = next(c for c in SPEC["cells"] if c["array"] == "rdp-5" and c["sor_kib"] == 24)
    got = ect.per_start(rdp5)
    eights = {k for k, v in got.items() if v == 8 and int(k.split(",")[0]) < 5}
    assert eights == {f"{r},4" for r in range(5)} | {f"1,{d}" for d in range(5)}
    assert by[("Table 5", "rdp", 5, 24 * KIB)]["codeword_range"] == "7-8"
    assert model_range("rdp", 5, 6, 6) == [7, 7] and model_range("rdp", 5, 6, 1) == [2, 3]
    # EVENODD 5, 24 KB: 6 at every in-codeword start, 6-8 only across codewords.
    assert by[("Table 5", "evenodd", 5, 24 * KIB)]["codeword_range"] == "6"
    assert by[("Table 5", "evenodd", 5, 24 * KIB)]["all_starts_range"] == "6-8"
    # Table 4's RDP needs Table 3's 4+2 array: 5 data disks (p = 7) would give 5-8.
    assert model_range("rdp", 5, 7, 4) == [5, 8] and model_range("rdp", 4, 5, 4) == [5, 6]


def test_a_range_matches_only_when_both_ends_do(monkeypatch):
    """A published range with our midpoint but other ends is not a match, nor is a single value inside our range.
    Catches `match` computed from midpoints or sums (EVENODD 5, 24 KB: 6 against a printed 5-7)."""
    spec = packaged_spec("erasure-code-tables")
    cell = next(c for c in spec["cells"] if c["array"] == "evenodd-5" and c["sor_kib"] == 24)
    cell.update(paper="5-7", paper_units=[5, 7], mismatch="test: a different range")
    rdp = next(c for c in spec["cells"] if c["array"] == "rdp-5" and c["sor_kib"] == 24)
    rdp.update(starts="codeword", paper="7", paper_units=[7, 7], mismatch="test: one value inside our 7-8")
    monkeypatch.setattr(ect, "spec", lambda: spec)
    got = {(r["code"], r["nod"]): r for r in ect.erasure_code_tables()
           if r["table"] == "Table 5" and r["sor_bytes"] == 24 * KIB}
    assert (got[("evenodd", 5)]["units"], got[("evenodd", 5)]["match"]) == ([6, 6], False)
    assert (got[("rdp", 5)]["units"], got[("rdp", 5)]["match"]) == ([7, 8], False)
    assert got[("rdp", 5)]["note"].startswith("test: one value inside our 7-8")


# --- averages: midpoints, not means ---------------------------------------------------------------------------

def test_averages_are_midpoints_and_means_are_shown(rows):
    """AVG rows give the midpoint x SUS and carry the mean over the chosen starts, which differs. Catches an AVG
    computed as the mean (EVENODD 4 KB: 10.4 KB, not 14) or a Diff computed from means (rs: 128.6 %)."""
    avg = [r for r in rows if r["quantity"] == "AVG (KB)"]
    assert len(avg) == 9 and all(r["match"] for r in avg)
    for r in avg:
        sus_kib = r["sus_bytes"] // KIB
        assert float(r["raidsim"]) == (r["units"][0] + r["units"][1]) / 2 * sus_kib
        assert r["raidsim_mean_kib"] == pytest.approx(r["mean"] * sus_kib, abs=1e-3)
    eo = next(r for r in avg if r["code"] == "evenodd" and r["sor_bytes"] == 4 * KIB)
    assert (eo["raidsim"], eo["raidsim_mean_kib"]) == ("14", 10.4)
    byc = {(r["code"], r["sus_bytes"]): float(r["raidsim"]) for r in avg if r["sor_bytes"] == 16 * KIB}
    for r in (r for r in rows if r["quantity"] == "Diff"):
        assert r["raidsim_pct"] == pytest.approx((byc[(r["code"], 16 * KIB)] / byc[(r["code"], 4 * KIB)] - 1) * 100,
                                                 abs=0.01)
        assert r["match"]
    text = {r["quantity"]: r for r in rows if r["table"] == "Sec. 3.2.4"}
    assert [r["raidsim"] for r in text.values()] == ["3.5", "2.14x", "33.3%"] and all(r["match"] for r in text.values())


# --- Eq. 1 -----------------------------------------------------------------------------------------------------

def test_eq1_worked_example_and_closed_form(rows):
    """The worked example (8 KB on four data disks: 10 KB at SUS 2 KB, 12 KB at 4 KB) is raidsim's count at a
    codeword's first unit for EVENODD and RDP, and the module's Eq. 1 is the formula written out here. Catches
    Eq. 1 with UD x SUS in place of min{SoR, UD x SUS}, or NoRO counted in units rather than rows. (As UD counts
    the units a request touches, UD x SUS >= SoR: Eq. 1's min is always SoR.)"""
    eq = [r for r in rows if r["table"] == "Eq. 1"]
    assert [(r["code"], r["sus_bytes"], r["raidsim"], r["paper"], r["match"]) for r in eq] == [
        ("evenodd", 2048, "10", "10", True), ("evenodd", 4096, "12", "12", True),
        ("rdp", 2048, "10", "10", True), ("rdp", 4096, "12", "12", True),
        ("evenodd", 16384, "8", "20 (Eq. 1)", False)]
    for sor in (2048, 4096, 8192, 24576, 65536):
        for sus in (2048, 4096, 16384):
            for k in (4, 5, 13):
                for s in range(2 * k):
                    assert ect.eq1_kib(sor, sus, k, s) * KIB == eq1(sor, sus, k, s)


def test_eq1_holds_exactly_off_evenodds_adjuster_diagonal():
    """Closed form for EVENODD 5+2 (p = 5), 1-5 whole units inside one row: the count is one row unit plus one
    diagonal unit per data unit (Eq. 1) unless a unit lies on S, when it is one row unit plus all p - 1 diagonal
    units. Catches a planner that writes the row parity per data unit, or ignores S."""
    a = ARRAYS["evenodd-5"]
    k, p, sus = a["data_disks"], a["prime"], 4096
    for n in range(1, k + 1):
        for row in range(p - 1):
            for disk in range(k - n + 1):
                got = ect.parity_bytes("evenodd", k, p, sus, n * sus, row * k + disk)
                on_s = any((row + c) % p == p - 1 for c in range(disk, disk + n))
                assert got == sus * (1 + (p - 1 if on_s else n)), (n, row, disk)
                assert (got == eq1(n * sus, sus, k, row * k + disk)) == (not on_s or n == p - 1)


def test_eq1_below_a_stripe_unit_is_neither_parity_rule(rows):
    """SoR < SUS: Eq. 1 says 16 + 4 = 20 KB; md's page rule writes 4 KB of each parity unit (8 KB), a whole-unit
    rule 16 KB of each (32 KB), as the row's reason says. Catches a planner that rewrites whole parity units
    under the page rule."""
    r = next(r for r in rows if r["table"] == "Eq. 1" and r["sus_bytes"] == 16384)
    assert (r["raidsim"], r["eq1_kib"], r["raidsim_whole_unit_kib"]) == ("8", 20, 32)
    assert "(8 KB)" in r["note"] and "(32 KB)" in r["note"]


# --- the command --------------------------------------------------------------------------------------------

def test_cli_json_rows_and_text(capsys):
    """`--json` prints every row with the documented keys, a note wherever match is false; the text names each
    table and numbers its notes. Catches the reproduction missing from the CLI or a row without its reason."""
    assert main(["reproduce", "erasure-code-tables", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    keys = {"table", "code", "sor_bytes", "nod", "sus_bytes", "raidsim", "paper", "match", "note"}
    assert all(keys <= set(r) for r in out)
    assert {r["table"] for r in out} == {"Table 4", "Table 5", "Eq. 1", "Sec. 3.2.4"}
    assert all(r["note"] for r in out if not r["match"])
    assert sum(not r["match"] for r in out) == 3
    assert main(["reproduce", "erasure-code-tables"]) == 0
    text = capsys.readouterr().out
    for needle in ("Table 4:", "Table 5:", "Eq. 1:", "38 of 41 rows match", "NO[1]", "[3] not reproduced"):
        assert needle in text
    assert main(["reproduce", "erasure-code-tables", "--granularity", "page"]) == 2
