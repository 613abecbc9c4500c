"""Tables 4 and 5 and Eq. 1 of the erasure-code paper from counting mode (``raidsim reproduce erasure-code-tables``).

Alinezhad Chamazcoti et al., Microelectronics Reliability 2015, Sections
3.2.3-3.2.4: the parity written by one write request (NoW) by stripe unit
size (Table 4, in KB) and by number of data disks (Table 5, in units), the
size-of-updated-parity formula Eq. 1, and the averages quoted in the text.
For every start position of a codeword, the planner's parity pages for one
request (dedicated parity, md's page rule) are counted; the published values,
the arrays and start positions they map to and the reasons for each mapping
or mismatch are data, in ``experiments/erasure-code-tables.toml``. A cell
read under an interpretation of the paper chosen so that it fits (another
array than the printed NoD, sampled starts) says so in its ``mapping``; the
rows derived from it (AVG, Diff, the text's averages) carry it too, and the
catalog's verdict of a matching row is then ``pass (mapped)``.

The paper's averages are midpoints of its ranges, (min + max) / 2; the mean
over start positions is printed beside them.
"""

from __future__ import annotations

import functools
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

from .. import codes
from ..config import Config
from ..counting import count
from ..workload import Workload
from .catalog import mapping_of
from .packaged import packaged_spec, study_file

KIB = 1024


STUDY_FILE = study_file("erasure-code-tables")
# The keys of each record of published numbers: all valid ones, then the required ones.
RECORD_KEYS = {
    "cells": (("table", "code", "sor_kib", "nod", "sus_kib", "array", "starts", "paper", "paper_units",
               "paper_avg_kib", "note", "mismatch", "mapping"),
              ("table", "code", "sor_kib", "nod", "sus_kib", "array", "starts", "paper", "paper_units")),
    "diffs": (("code", "paper_pct", "tolerance", "mapping"), ("code", "paper_pct", "tolerance")),
    "text": (("what", "paper", "value", "kind", "tolerance", "cells", "mapping"), ("what", "paper", "value", "kind", "cells")),
    "eq1": (("code", "array", "sor_kib", "sus_kib", "page_kib", "start", "paper_kib", "mismatch", "mapping"),
            ("code", "array", "sor_kib", "sus_kib", "page_kib", "start")),
    "figure5": (("code", "array", "paper_units", "mapping"), ("code", "array", "paper_units")),
}


def spec() -> Dict[str, Any]:
    s = packaged_spec("erasure-code-tables")
    check_spec(s)
    return s


def check_spec(s: Mapping[str, Any], where: str = STUDY_FILE) -> None:
    """Every record of published numbers has known keys (a misspelt ``mapping`` is an error, not a plain pass)."""
    from .catalog import check_published

    for name, (valid, required) in RECORD_KEYS.items():
        for i, record in enumerate(s[name]):
            check_published(record, valid, required, f"{where}: [[{name}]][{i}]")


@functools.lru_cache(maxsize=None)
def codeword_rows(code: str, data_disks: int, prime: int) -> int:
    """Rows of one codeword: p - 1 for EVENODD/RDP, 1 for Reed-Solomon."""
    return int(codes.structure(code, data_disks, prime or None)["rows"])


@functools.lru_cache(maxsize=None)
def _config(code: str, data_disks: int, prime: int, sus: int, page: int, granularity: str) -> Config:
    return Config.from_dict({
        "array": {"level": "raid6", "members": data_disks + 2, "stripe_unit_bytes": sus, "code": code, "prime": prime,
                  "parity_placement": "dedicated", "parity_granularity": granularity},
        "ssd": {"geometry": {"blocks_per_plane": 64, "page_size_bytes": page}},
    })


@functools.lru_cache(maxsize=None)
def parity_bytes(code: str, data_disks: int, prime: int, sus: int, sor: int, start_unit: int, page: int = 4096,
                 granularity: str = "page") -> int:
    """Parity bytes written on the two parity members by one write of ``sor`` bytes from logical unit ``start_unit``."""
    cfg = _config(code, data_disks, prime, sus, page, granularity)
    members = count(cfg, Workload.requests([(0, "W", start_unit * sus, sor)])).to_dict()["members"]
    return sum(members[data_disks + i]["pages_written"].get("parity", 0) for i in range(2)) * page


def starts(code: str, data_disks: int, prime: int, sus: int, sor: int) -> List[Tuple[int, int, bool]]:
    """(row, disk, inside) for every start of one codeword; ``inside``: the request ends in the same codeword.

    A Reed-Solomon codeword is one row, and a request spanning rows is the case Eq. 2 describes: every start
    disk counts as inside.
    """
    rows = codeword_rows(code, data_disks, prime)
    units = -(-sor // sus)
    out = []
    for row in range(rows):
        for disk in range(data_disks):
            s = row * data_disks + disk
            out.append((row, disk, code == "rs" or s + units <= rows * data_disks))
    return out


def _range(values: Sequence[float]) -> str:
    lo, hi = min(values), max(values)
    return _num(lo) if lo == hi else f"{_num(lo)}-{_num(hi)}"


def _int(x: float) -> float:
    return int(x) if float(x).is_integer() else x


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _starts_label(sel: Any, n: int, code: str) -> str:
    if sel == "codeword":
        return f"every start disk ({n})" if code == "rs" else f"every start inside one codeword ({n})"
    return "mapped: " + ", ".join(f"row {r} D{d}" for r, d in sel)


def _cell_key(c: Mapping[str, Any]) -> str:
    return f"{c['table']}/{c['code']}/{c['sor_kib']}/{c['nod']}/{c['sus_kib']}"


def _now_cell(cell: Mapping[str, Any], arrays: Mapping[str, Any]) -> Dict[str, Any]:
    """Parity units per start for one published cell, and its summary row."""
    a = arrays[cell["array"]]
    code, k, prime = a["code"], a["data_disks"], a["prime"]
    sus, sor = cell["sus_kib"] * KIB, cell["sor_kib"] * KIB
    every = starts(code, k, prime, sus, sor)
    units = {(r, d): _int(parity_bytes(code, k, prime, sus, sor, r * k + d) / sus) for r, d, _ in every}
    inside = [units[(r, d)] for r, d, ok in every if ok]
    sel = cell["starts"]
    chosen = inside if sel == "codeword" else [units[(r, d)] for r, d in sel]
    lo, hi = min(chosen), max(chosen)
    return {
        "table": cell["table"], "code": code, "sor_bytes": sor, "nod": cell["nod"], "sus_bytes": sus,
        "data_disks": k, "prime": prime if code != "rs" else None,
        "starts": _starts_label(sel, len(chosen), code),
        "units": [lo, hi], "paper_units": list(cell["paper_units"]),
        "midpoint": (lo + hi) / 2, "mean": sum(chosen) / len(chosen),
        "codeword_range": _range(inside), "all_starts_range": _range(list(units.values())),
        "per_start": {f"{r},{d}": units[(r, d)] for r, d, _ in every},
    }


def _explain(match: bool, cell: Mapping[str, Any], facts: str) -> str:
    """The study file's mapping note, or its mismatch reason; a surprise is said, never hidden."""
    if match:
        base = cell.get("note", "")
        if "mismatch" in cell:
            base = "the study file expected a mismatch, yet this agrees: " + cell["mismatch"]
    else:
        base = cell.get("mismatch") or "UNEXPECTED mismatch: the study file gives no reason. " + cell.get("note", "")
    return f"{base.rstrip('.')}. {facts}" if base else facts


def erasure_code_tables() -> List[Dict[str, Any]]:
    """Rows {table, quantity, code, sor_bytes, nod, sus_bytes, raidsim, paper, match, note, ...}: Tables 4, 5, the
    averages of Section 3.2.4's text and Eq. 1, from counting mode beside the paper."""
    s = spec()
    arrays = s["arrays"]
    rows: List[Dict[str, Any]] = []
    cells: Dict[str, Dict[str, Any]] = {}
    for cell in s["cells"]:
        c = _now_cell(cell, arrays)
        cells[_cell_key(cell)] = c
        lo, hi = c["units"]
        t4 = cell["table"] == "Table 4"
        ours = _range([lo, hi])
        ours = (f"({ours}) * {cell['sus_kib']}" if lo != hi else f"{ours} * {cell['sus_kib']}") if t4 else ours
        match = [lo, hi] == list(cell["paper_units"])
        facts = (f"raidsim over {c['starts']}: {_range([lo, hi])} units (in-codeword starts {c['codeword_range']}, "
                 f"all starts {c['all_starts_range']}; mean {c['mean']:.3f})")
        rows.append({**{k: v for k, v in c.items() if k != "per_start"}, "quantity": "NoW",
                     "raidsim": ours, "paper": cell["paper"], "match": match, "note": _explain(match, cell, facts)})
        c["mapping"] = rows[-1]["mapping"] = mapping_of(cell)
        if t4:
            sk = cell["sus_kib"]
            mid_kib, mean_kib = c["midpoint"] * sk, c["mean"] * sk
            match_avg = mid_kib == cell["paper_avg_kib"]
            rows.append({**{k: v for k, v in rows[-1].items() if k not in ("raidsim", "paper", "match", "note")},
                         "quantity": "AVG (KB)", "raidsim": _num(mid_kib), "paper": _num(cell["paper_avg_kib"]),
                         "match": match_avg, "raidsim_mean_kib": round(mean_kib, 3),
                         "note": (f"midpoint of the range x SUS, as the paper's AVG; the mean over the starts is "
                                  f"{mean_kib:.2f} KB" + ("" if match_avg else " (UNEXPECTED: midpoint differs)"))})
    rows += _diff_rows(s, cells)
    rows += _text_rows(s, cells)
    rows += _eq1_rows(s, arrays)
    return rows


def _diff_rows(s: Mapping[str, Any], cells: Mapping[str, Dict[str, Any]]) -> List[Dict[str, Any]]:
    out = []
    for d in s["diffs"]:
        small = next(c for c in cells.values() if c["table"] == "Table 4" and c["code"] == d["code"]
                     and c["sor_bytes"] == 16 * KIB and c["sus_bytes"] == 4 * KIB)
        large = next(c for c in cells.values() if c["table"] == "Table 4" and c["code"] == d["code"]
                     and c["sor_bytes"] == 16 * KIB and c["sus_bytes"] == 16 * KIB)
        mid = (large["midpoint"] * 16) / (small["midpoint"] * 4) * 100 - 100
        mean = (large["mean"] * 16) / (small["mean"] * 4) * 100 - 100
        match = abs(mid - d["paper_pct"]) <= d["tolerance"]  # the study file's, beside the printed number
        out.append({"mapping": mapping_of(d, small, large),
                    "table": "Table 4", "quantity": "Diff", "code": d["code"], "sor_bytes": 16 * KIB, "nod": 5,
                    "sus_bytes": 16 * KIB, "raidsim": f"{mid:.1f}%", "paper": f"{d['paper_pct']}%", "match": match,
                    "raidsim_pct": round(mid, 2), "raidsim_mean_pct": round(mean, 2),
                    "note": (f"AVG at SUS 16 KB over AVG at SUS 4 KB (16 KB requests), minus 1, from midpoints; the paper "
                             f"truncates or rounds, so a difference up to {d['tolerance']:g} points counts; from means "
                             f"over the starts: {mean:.1f}%")})
    return out


def _text_rows(s: Mapping[str, Any], cells: Mapping[str, Dict[str, Any]]) -> List[Dict[str, Any]]:
    out = []
    for t in s["text"]:
        cs = [cells[k] for k in t["cells"]]
        if t["kind"] == "midpoint":
            mid, mean = cs[0]["midpoint"], cs[0]["mean"]
            match, shown, shown_mean = mid == t["value"], _num(mid), f"{mean:.3f}"
        elif t["kind"] == "ratio":
            mid, mean = cs[0]["midpoint"] / cs[1]["midpoint"], cs[0]["mean"] / cs[1]["mean"]
            match, shown, shown_mean = round(mid, 2) == t["value"], f"{mid:.2f}x", f"{mean:.2f}x"
        else:  # percent_above
            mid, mean = (cs[0]["midpoint"] / cs[1]["midpoint"] - 1) * 100, (cs[0]["mean"] / cs[1]["mean"] - 1) * 100
            match, shown, shown_mean = abs(mid - t["value"]) <= t["tolerance"], f"{mid:.1f}%", f"{mean:.1f}%"
        c0 = cs[0]
        out.append({"mapping": mapping_of(t, *cs),
                    "table": "Sec. 3.2.4", "quantity": t["what"], "code": c0["code"], "sor_bytes": c0["sor_bytes"],
                    "nod": c0["nod"] if len(cs) == 1 else "/".join(str(c["nod"]) for c in cs),
                    "sus_bytes": c0["sus_bytes"], "raidsim": shown, "paper": t["paper"], "match": match,
                    "note": f"from the midpoints of Table 5's ranges; from means over the starts it would be {shown_mean}"})
    return out


def figure5_rows() -> List[Dict[str, Any]]:
    """Figure 5: the fewest and most parity units one updated 4 KB data unit writes (SoR = SUS = 4 KB), over every
    data unit of a codeword of Table 3's arrays, beside the figure's."""
    s, out = spec(), []
    for f in s["figure5"]:
        a = s["arrays"][f["array"]]
        code, k, p, unit = a["code"], a["data_disks"], a["prime"], 4 * KIB
        units = [parity_bytes(code, k, p, unit, unit, r * k + d) // unit for r, d, _ in starts(code, k, p, unit, unit)]
        for what, ours, theirs in (("fewest", min(units), f["paper_units"][0]), ("most", max(units), f["paper_units"][1])):
            out.append({"code": code, "array": f"{k}+2", "quantity": f"{what} parity units one data unit updates",
                        "raidsim": ours, "paper": theirs, "mapping": mapping_of(f),
                        "note": f"over the {len(units)} data units of a codeword"})
    return out


def eq1_kib(sor: int, sus: int, data_disks: int, start_unit: int) -> float:
    """Eq. 1, SUP = NoRO x SUS + min{SoR, UD x SUS}, in KB, for a write of ``sor`` bytes from ``start_unit``."""
    first, last = start_unit * sus, start_unit * sus + sor - 1
    ud = last // sus - first // sus + 1
    noro = last // (sus * data_disks) - first // (sus * data_disks) + 1
    return (noro * sus + min(sor, ud * sus)) / KIB


def _eq1_rows(s: Mapping[str, Any], arrays: Mapping[str, Any]) -> List[Dict[str, Any]]:
    out = []
    for e in s["eq1"]:
        a = arrays[e["array"]]
        code, k, prime = a["code"], a["data_disks"], a["prime"]
        sus, sor, page = e["sus_kib"] * KIB, e["sor_kib"] * KIB, e["page_kib"] * KIB
        r0, d0 = e["start"]
        ours = _int(parity_bytes(code, k, prime, sus, sor, r0 * k + d0, page) / KIB)
        eq = eq1_kib(sor, sus, k, r0 * k + d0)
        inside = [(r, d) for r, d, ok in starts(code, k, prime, sus, sor) if ok]
        per = [(parity_bytes(code, k, prime, sus, sor, r * k + d, page) / KIB, eq1_kib(sor, sus, k, r * k + d))
               for r, d in inside]
        agree = sum(1 for x, y in per if x == y)
        facts = (f"At row {r0} D{d0}: raidsim {_num(ours)} KB, Eq. 1 {_num(eq)} KB; over the {len(per)} in-codeword starts "
                 f"raidsim gives {_range([x for x, _ in per])} KB and Eq. 1 equals it at {agree} (it counts one diagonal "
                 f"unit per data unit: no adjuster S, no missing diagonal, no diagonal of RDP's row parity)")
        if "paper_kib" in e:
            paper, match = _num(e["paper_kib"]), ours == e["paper_kib"] == eq
            note = (f"the paper's worked example (its value equals Eq. 1: {_num(eq)} KB). " if eq == e["paper_kib"]
                    else f"UNEXPECTED: the printed {e['paper_kib']} KB is not Eq. 1's {_num(eq)} KB. ") + facts
        else:
            paper, match = f"{_num(eq)} (Eq. 1)", ours == eq
            whole = parity_bytes(code, k, prime, sus, sor, r0 * k + d0, page, "whole_unit") / KIB
            note = (e["mismatch"] if not match else "") + " " + facts
        out.append({"mapping": mapping_of(e),
                    "table": "Eq. 1", "quantity": "SUP (KB)", "code": code, "sor_bytes": sor, "nod": k, "sus_bytes": sus,
                    "data_disks": k, "prime": prime, "starts": f"row {r0} D{d0}", "raidsim": _num(ours), "paper": paper,
                    "match": match, "eq1_kib": _int(eq), "eq1_agrees_at": [agree, len(per)], "note": note.strip(),
                    **({} if "paper_kib" in e else {"raidsim_whole_unit_kib": _int(whole)})})
    return out


def erasure_code_tables_text(rows: List[Dict[str, Any]]) -> str:
    """Readable tables: ours beside the paper, what matches, and a note for every mapping and mismatch."""
    notes: List[str] = []

    def ref(r: Dict[str, Any]) -> str:
        if not r["match"] or r["quantity"] == "NoW" and "mapped" in str(r.get("starts", "")):
            notes.append(r["note"])
            return f"[{len(notes)}]"
        return ""

    def kb(b: int) -> str:
        return f"{b // KIB}K"

    out = []
    t4 = [r for r in rows if r["table"] == "Table 4" and r["quantity"] == "NoW"]
    avg = {(r["code"], r["sor_bytes"], r["sus_bytes"]): r for r in rows if r["quantity"] == "AVG (KB)"}
    recs = []
    for r in t4:
        a = avg[(r["code"], r["sor_bytes"], r["sus_bytes"])]
        recs.append({"code": r["code"], "SoR": kb(r["sor_bytes"]), "NoD": r["nod"],
                     "array": f"{r['data_disks']}+2" + (f" p={r['prime']}" if r["prime"] else ""), "SUS": kb(r["sus_bytes"]),
                     "NoW raidsim": r["raidsim"], "NoW paper": r["paper"], "match": _yes(r["match"]) + ref(r),
                     "AVG raidsim": a["raidsim"], "AVG paper": a["paper"], "AVG match": _yes(a["match"]) + ref(a),
                     "mean (KB)": f"{a['raidsim_mean_kib']:.2f}"})
    out += ["Table 4: parity written (units x SUS, KB) by stripe unit size; AVG = midpoint of the range x SUS "
            "(the paper's), mean = over start positions", pd.DataFrame(recs).to_string(index=False), ""]
    recs = [{"code": r["code"], "raidsim": r["raidsim"], "paper": r["paper"], "match": _yes(r["match"]) + ref(r),
             "from means": f"{r['raidsim_mean_pct']:.1f}%"} for r in rows if r["quantity"] == "Diff"]
    out += ["Table 4 Diff: AVG at SUS 16 KB over AVG at SUS 4 KB, 16 KB requests", pd.DataFrame(recs).to_string(index=False), ""]
    recs = [{"SoR": kb(r["sor_bytes"]), "code": r["code"], "NoD": r["nod"],
             "array": f"{r['data_disks']}+2" + (f" p={r['prime']}" if r["prime"] else ""),
             "raidsim": r["raidsim"], "paper": r["paper"], "match": _yes(r["match"]) + ref(r), "midpoint": _num(r["midpoint"]),
             "mean": f"{r['mean']:.2f}", "in-codeword": r["codeword_range"], "all starts": r["all_starts_range"],
             "starts": r["starts"]} for r in rows if r["table"] == "Table 5"]
    out += ["Table 5: parity units written by number of data disks (SUS 4 KB)", pd.DataFrame(recs).to_string(index=False), ""]
    recs = [{"quantity": r["quantity"], "raidsim": r["raidsim"], "paper": r["paper"], "match": _yes(r["match"]) + ref(r),
             "note": r["note"]} for r in rows if r["table"] == "Sec. 3.2.4"]
    out += ["Section 3.2.4's text (averages are midpoints)", pd.DataFrame(recs).drop(columns="note").to_string(index=False), ""]
    recs = [{"code": r["code"], "SoR": kb(r["sor_bytes"]), "NoD": r["nod"], "SUS": kb(r["sus_bytes"]), "start": r["starts"],
             "raidsim (KB)": r["raidsim"], "paper (KB)": r["paper"], "match": _yes(r["match"]) + ref(r),
             "Eq. 1 = count at": f"{r['eq1_agrees_at'][0]}/{r['eq1_agrees_at'][1]} starts"}
            for r in rows if r["table"] == "Eq. 1"]
    out += ["Eq. 1: SUP = NoRO x SUS + min{SoR, UD x SUS}", pd.DataFrame(recs).to_string(index=False), ""]
    n = sum(1 for r in rows if r["match"])
    out.append(f"{n} of {len(rows)} rows match. Arrays, start positions and conventions: {STUDY_FILE}")
    if notes:
        out += ["", "Notes (mappings and mismatches):"] + [f"[{i}] {t}" for i, t in enumerate(notes, 1)]
    mappings = dict.fromkeys(r["mapping"] for r in rows if r.get("mapping"))
    if mappings:  # `raidsim reproduce all` counts their matches as "pass (mapped)", apart from plain passes
        out += ["", "Read under a mapping (the study file's `mapping`; a match there is a \"pass (mapped)\"):"] \
            + [f"- {m} ({n} row{'' if n == 1 else 's'})" for m in mappings
               for n in [sum(r.get("mapping") == m for r in rows)]]
    return "\n".join(out)


def _yes(m: bool) -> str:
    return "yes" if m else "NO"


def per_start(cell: Mapping[str, Any], arrays: Optional[Mapping[str, Any]] = None) -> Dict[str, float]:
    """Parity units written at every start ``"row,disk"`` of one codeword, for one study cell."""
    return _now_cell(cell, arrays or spec()["arrays"])["per_start"]
