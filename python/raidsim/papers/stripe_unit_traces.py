"""Tables 1 and 2 of the stripe-unit paper: page writes and page reads per disk of RAID4 4+1 under its traces.

Counting mode plans every request of the trace (or of its stand-in) on RAID4 4+1 at a 128 KB stripe
unit and counts the pages each member writes and reads, by cause. Given the paper's own trace
(:mod:`raidsim.papers.paper_traces`), each count is set beside the table's, in thousands of pages; without
it the counts are not run and a stand-in gives the parity disk's share of the writes and reads, which is
what the paper draws from the tables ("the parity disk receives updates about twice as data disks do for
Iozone and Vdbench"). The study file ``experiments/stripe-unit-traces.toml`` holds the tables, Table 6
and every choice of the stand-ins.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from ..config import Config
from ..counting import count
from ..workload import Workload
from . import paper_traces
from .packaged import packaged_spec

MEMBERS = ("D0", "D1", "D2", "D3", "P")
NAME = "stripe-unit-traces"


def spec() -> Dict[str, Any]:
    return packaged_spec(NAME)


def stand_in(facts: paper_traces.Facts, write_pages: float, page: int) -> Workload:
    """Table 6's sizes and write share, as many requests as write the table's total of pages."""
    f = facts.stats
    mean, largest = f["mean_write_kb"] * 1024, f["max_write_kb"] * 1024
    smallest = int(2 * mean - largest) // page * page
    # Uniform about the mean up to the largest where that fits (Iozone, Vdbench), else exponential about the
    # mean, cut at the largest, the mean restored (Postmark: 833 KB, at most 4 MB).
    size = ({"kind": "uniform", "min_bytes": smallest, "max_bytes": int(largest)} if smallest >= page else
            {"kind": "exponential", "mean_bytes": int(mean) // page * page, "min_bytes": page,
             "max_bytes": int(largest), "adjust_mean": True})
    writes = write_pages * 1000 * page / mean
    requests = int(round(writes / (f["write_percent"] / 100)))
    return Workload.synthetic(requests=requests, read_fraction=round(1 - f["write_percent"] / 100, 6),
                              address="uniform", sequential_fraction=0.9, alignment_bytes=page,
                              size={**size, "quantum_bytes": page})


def run(*, given: Optional[Mapping[str, paper_traces.Given]] = None) -> Dict[str, Any]:
    """Counts each of Tables 1-2's traces (given or stand-in); returns the per-trace counts and notes."""
    sp, given = spec(), dict(given or {})
    facts = paper_traces.known(NAME)
    base = {k: v for k, v in sp["base"].items() if k != "preset"}
    cfg = Config.preset(sp["base"]["preset"]).with_overrides(paper_traces.dotted(base)).set("array.stripe_unit_bytes",
                                                                               sp["stripe_unit_bytes"])
    counts, warnings = {}, []
    for pub in sp["published"]:
        name = pub["trace"]
        if name in given:
            workload = paper_traces.trace_settings(given[name])
        else:
            workload = stand_in(facts[name], pub["write_pages_total"], sp["page_size_bytes"])
        c = count(cfg.with_overrides(workload) if isinstance(workload, dict) else cfg.with_workload(workload)).to_dict()
        counts[name] = {"writes": [sum(m["pages_written"].values()) for m in c["members"]],
                        "reads": [sum(m["pages_read"].values()) for m in c["members"]],
                        # Pages the requests themselves write and read: the data disks' user pages.
                        "host_write_pages": sum(m["pages_written"].get("user", 0) for m in c["members"]),
                        "host_read_pages": sum(m["pages_read"].get("user", 0) for m in c["members"]),
                        "source": paper_traces.TRACE if name in given else paper_traces.STAND_IN}
        # A trace reaching past the array is folded onto it: the counts then answer another question, so say so.
        warnings += [f"warning: {name}: {w}" for w in c.get("warnings", [])]
    return {"counts": counts, "given": given, "notes": paper_traces.notes(given, facts) + warnings}


def row_args(result: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """Each row's arguments (:func:`raidsim.papers.reproduce_all.row`): the counts in thousands of pages beside
    Tables 1-2 (run only on the paper's trace), and the parity disk's share beside the tables' (on either)."""
    from .catalog import Rule

    sp = spec()
    k = sp["thousand"]
    counts_rule = Rule("absolute", {"tolerance": sp["tolerance_k"]},
                       f"the table prints thousands of pages (\"771 K\"): a count agrees when it rounds to the printed "
                       f"number, within {sp['tolerance_k']:g} K")
    share_rule = Rule("relative", {"tolerance": sp["ratio_tolerance"]},
                      "the parity disk's pages over a data disk's mean, within the study file's ratio_tolerance: a "
                      "stand-in has Table 6's sizes and write share, not the trace's addresses")
    out = []
    for pub in sp["published"]:
        name = pub["trace"]
        c = result["counts"][name]
        on_trace = c["source"] == paper_traces.TRACE
        missing = "" if on_trace else f"the paper's trace not given (--trace {name}=PATH): a stand-in ran instead"
        for table, what, key, published, total, host in (
                ("Table 1", "page writes", "writes", pub["page_writes"], pub["write_pages_total"], c["host_write_pages"]),
                ("Table 2", "page reads", "reads", pub["page_reads"], pub["read_pages_total"], c["host_read_pages"])):
            ours = c[key]
            for member, mine, theirs in zip(MEMBERS, ours, published, strict=True):
                out.append(dict(figure=table, case=name, metric=f"{what}, {member}", raidsim=mine / k,
                                published=theirs, unit="K pages", rule=counts_rule, not_run=not on_trace,
                                note=missing, source=c["source"]))
            out.append(dict(figure=table, case=name, metric=f"total size of {key[:-1]} requests", raidsim=host / k,
                            published=total, unit="K pages", rule=counts_rule, not_run=not on_trace, note=missing,
                            source=c["source"]))
            out.append(dict(figure=table, case=name, metric=f"{what}: parity disk over a data disk",
                            raidsim=_share(ours), published=round(_share(published), 4), unit="ratio",
                            rule=share_rule, source=c["source"],
                            note="P / mean(D0-D3); the published value is the table's own ratio"))
    return out


def _share(per_member: List[float]) -> float:
    data = per_member[:4]
    return per_member[4] / (sum(data) / len(data)) if sum(data) else float("nan")


def text(result: Mapping[str, Any], width: int = 100) -> str:
    """The tables as the terminal shows them: ours beside the paper's, in thousands of pages (the run's notes are
    the caller's to print: its warnings go to stderr)."""
    from .. import _text_table

    lines = ["Tables 1-2: page writes and page reads per disk, RAID4 4+1, 128 KB stripe unit (thousands of 4 KB pages)"]
    sp = spec()
    for pub in sp["published"]:
        name = pub["trace"]
        c = result["counts"][name]
        header = ["", *MEMBERS, "P / D"]
        body = []
        for what, key, published in (("writes", "writes", pub["page_writes"]), ("reads", "reads", pub["page_reads"])):
            body.append([f"{what}, raidsim", *(f"{v / sp['thousand']:,.1f}" for v in c[key]), f"{_share(c[key]):.2f}"])
            body.append([f"{what}, paper", *(f"{v:,}" for v in published), f"{_share(published):.2f}"])
        lines += ["", f"{name} ({'the given trace: every count judged' if c['source'] == paper_traces.TRACE else 'a stand-in: only P / D is judged'}):",
                  _text_table.render(header, body, width=width, labels=1), ""]
    return "\n".join(lines)
