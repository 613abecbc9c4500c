"""Diff-RAID: uneven parity ages an SSD array's members apart, and makes it more reliable than RAID-5.

Diff-RAID (Balakrishnan, Kadav, Prabhakaran, Malkhi, "Differential RAID: Rethinking RAID for SSD
Reliability", EuroSys 2010) starts from two facts: an SSD's bit error rate climbs with its erasures, and
RAID-5 spreads small writes evenly, so its members wear out together, and the survivors of the first one to
go are as worn as it was when they are read to rebuild it. It gives the members uneven parity shares, so the
parity-heavy ones take more of the updates and age faster, and reshuffles the shares on each replacement, so
the oldest member always holds the most: the survivors of a wear-out are younger and read with fewer errors.

:func:`run` does both halves with raidsim:

1. **Wear, simulated.** RAID-5 of five aged SSDs under 4 KiB random writes, once per parity assignment
   (``array.parity_distribution``): each member's erases, and the throughput the assignment gives up.
2. **Lifetimes.** ``raidsim reliability`` over a mission: each member's hours to its rated cycles in
   proportion to its simulated erases, parity shifted on each replacement for Diff-RAID
   (``replacement_wear = "shift"``) and kept for RAID-5 and RAID-4, the error rate growing with wear from a
   new device's to the limit's (``uber_worn``), for three growths: the probability of losing data, and the
   members' ages each time one wears out, beside their closed form (rank k of n holds Σ_{j≥k} r_j / Σ r_j
   of its cycles, r the ranks' wear rates).

The study file ``experiments/diff-raid.toml`` holds the settings, which of them are the paper's and which
are assumed, and the claims of the paper's abstract the rows are judged against.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .packaged import packaged_spec

NAME = "diff-raid"


def spec() -> Dict[str, Any]:
    return packaged_spec(NAME)


def shares(assignment: Mapping[str, Any]) -> List[float]:
    """An assignment's percentages as ``array.parity_distribution`` takes them."""
    return [p / 100 for p in assignment["shares"]]


def simulate_wear(assignment: Mapping[str, Any]) -> Dict[str, Any]:
    """One assignment's run: each member's erases and page writes, and the host's IOPS."""
    import raidsim
    from raidsim import Workload

    r = spec()["run"]
    work = Workload.synthetic(requests=r["requests"], read_fraction=0.0, processes=r["processes"],
                              alignment_bytes=r["request_bytes"], size={"kind": "fixed", "mean_bytes": r["request_bytes"]})
    report = raidsim.simulate(None, work, overrides={**r["overrides"], "array.parity_distribution": shares(assignment)},
                              progress=False)
    d = report.to_dict()
    return {"erases": [m["erases"] for m in d["devices"]],
            "pages_written": [sum(m["pages_written"].values()) for m in d["devices"]],
            "iops": d["host"]["iops"]}


def wear_out_hours(erases: Sequence[int], raid5_erases: Sequence[int]) -> List[float]:
    """Each member's hours to its rated cycles: RAID-5's members' after the study's years, the others' in
    proportion to their erases."""
    years = spec()["reliability"]["raid5_wear_out_years"]
    base = sum(raid5_erases) / len(raid5_erases)
    return [years * 8766.0 * base / e for e in erases]


def closed_form_ages(hours: Sequence[float]) -> List[float]:
    """Diff-RAID's ages at replacement, oldest first: rank k holds Σ_{j≥k} r_j / Σ r_j, r = 1 / hours by rank."""
    rates = sorted((1 / h for h in hours), reverse=True)
    total = sum(rates)
    return [sum(rates[k:]) / total for k in range(len(rates))]


def lifetimes(assignment: Mapping[str, Any], hours: Sequence[float], growth: float, quick: bool) -> Any:
    """The assignment's array lifetimes at one error growth."""
    from ..reliability import reliability

    s, rel = spec(), spec()["reliability"]
    return reliability(level="raid5", members=s["members"], member_capacity_bytes=s["member_capacity_bytes"],
                       wear_out_hours=list(hours), replacement_wear=assignment["replacement_wear"],
                       rebuild="fixed", rebuild_hours=rel["rebuild_hours"], uber=rel["uber_worn"] / growth,
                       uber_worn=rel["uber_worn"], mission_years=rel["mission_years"],
                       lifetimes=rel["quick_lifetimes" if quick else "lifetimes"], progress=False)


def run(quick: bool = False) -> Dict[str, Any]:
    """Every assignment's wear, then its lifetimes at every growth."""
    s = spec()
    runs = {a["name"]: simulate_wear(a) for a in s["assignments"]}
    raid5 = runs[s["assignments"][0]["name"]]["erases"]
    out: Dict[str, Any] = {"assignments": {}, "quick": quick}
    for a in s["assignments"]:
        hours = wear_out_hours(runs[a["name"]]["erases"], raid5)
        studies = {g: lifetimes(a, hours, g, quick) for g in s["reliability"]["uber_growths"]}
        out["assignments"][a["name"]] = {
            **runs[a["name"]], "shares": a["shares"], "replacement_wear": a["replacement_wear"],
            "wear_out_hours": hours, "closed_form_ages": closed_form_ages(hours),
            "loss": {g: st.summary() for g, st in studies.items()},
            "by_year": {g: st.by_year() for g, st in studies.items()},
            "ages": {g: st.to_dict()["wear_at_wear_outs"] for g, st in studies.items()},
        }
    return out


def _gain(theirs: Mapping[str, Any], ours: Mapping[str, Any]) -> Optional[float]:
    """A conservative reliability gain: the other's lower 95 % bound on P(loss) over ours' upper one."""
    if ours["p_loss_high"] <= 0:
        return None
    return round(theirs["p_loss_low"] / ours["p_loss_high"], 3)


def _growth_text(g: float) -> str:
    return f"error rate ×{g:.0e} over life".replace("e+0", "e")


def row_args(result: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """Rows: per assignment its P(loss), wear shares and ages; the abstract's claims, judged."""
    a = result["assignments"]
    names = list(a)
    raid5, raid4 = a[names[0]], a[names[-1]]
    diff = names[1:-1]
    years = spec()["reliability"]["mission_years"]
    args: List[Dict[str, Any]] = []
    gains = []
    for g in spec()["reliability"]["uber_growths"]:
        for n in names:
            args.append(dict(figure="Abstract", case=f"{n}, {_growth_text(g)}", metric=f"P(data loss in {years} years)",
                             raidsim=a[n]["loss"][g]["p_loss"], published=None, unit=""))
        for n in diff:
            gain = _gain(raid5["loss"][g], a[n]["loss"][g])
            gains.append(gain)
            args.append(dict(figure="Abstract", case=f"{n}, {_growth_text(g)}", metric="reliability gain over RAID-5",
                             raidsim=gain, published=1.0, unit="×"))
        heavy = diff[-1]
        args.append(dict(figure="Abstract", case=f"{heavy}, {_growth_text(g)}", metric="reliability gain over RAID-4",
                         raidsim=_gain(raid4["loss"][g], a[heavy]["loss"][g]), published=1.0, unit="×"))
    known = [x for x in gains if x is not None]
    quick = {"not_run": True, "note": "not in --quick: its 20,000 lifetimes leave the intervals too wide to bound a "
                                      "gain of 100"} if result["quick"] else {}
    args.append(dict(figure="Abstract", case="the best Diff-RAID assignment and growth",
                     metric="largest reliability gain over RAID-5", raidsim=max(known) if known else None,
                     published=100.0, unit="×", **quick))
    for n in diff:
        args.append(dict(figure="Abstract", case=n, metric="throughput over RAID-5's",
                         raidsim=round(a[n]["iops"] / raid5["iops"], 3), published=1.0, unit="×"))
    args += _age_rows(a, diff)
    return args


def _age_rows(a: Mapping[str, Any], diff: Sequence[str]) -> List[Dict[str, Any]]:
    """The survivors' ages at the last recorded wear-out, beside the closed form (no published value)."""
    rows = []
    g = spec()["reliability"]["uber_growths"][0]
    for n in diff:
        ages = a[n]["ages"][g]
        if not ages:
            continue
        last, closed = ages[-1], a[n]["closed_form_ages"]
        for k in range(1, len(closed)):
            met = last["fractions"][k]
            rows.append(dict(figure="Ages at replacement", case=f"{n}, wear-out {last['wear_out']}",
                             metric=f"age of the {_ordinal(k + 1)} oldest", raidsim=None if met is None else round(met, 3),
                             published=None, unit="of rated cycles", note=f"their limit, the closed form: {closed[k]:.3f}"))
    return rows


def text(result: Mapping[str, Any], judged_rows: Sequence[Mapping[str, Any]]) -> str:
    """Per assignment its wear and throughput, then the loss probabilities, then the judged claims."""
    s = spec()
    rel = s["reliability"]
    out = [f"RAID-5 of {s['members']} SSDs, 4 KiB random writes: the members' simulated erases (relative to the "
           f"least), the throughput, and array lifetimes over {rel['mission_years']} years ({rel['quick_lifetimes' if result['quick'] else 'lifetimes']:,} "
           f"each; members of {s['member_capacity_bytes'] / 1e9:g} GB, {s['pe_cycles']:,} cycles, RAID-5's worn out "
           f"after {rel['raid5_wear_out_years']:g} years; UBER {rel['uber_worn']:g} at the limit)", ""]
    for n, r in result["assignments"].items():
        least = min(r["erases"]) or 1
        ages = ""
        met = r["ages"][rel["uber_growths"][0]]
        if r["replacement_wear"] == "shift" and met:
            ages = (f"   ages at wear-out {met[-1]['wear_out']}: {_ages_text(met[-1]['fractions'])} "
                    f"(their limit: {_ages_text(r['closed_form_ages'])})")
        out.append(f"  {n:<28} erases {' '.join(f'{e / least:.2f}' for e in r['erases'])}   {r['iops']:,.0f} IOPS{ages}")
    out += ["", "P(data loss) by error growth over a device's life:"]
    for g in rel["uber_growths"]:
        cells = [f"{n.split(' (')[0] if n.startswith('RAID') else n.replace('Diff-RAID ', '')}: "
                 f"{r['loss'][g]['p_loss']:.3g} [{r['loss'][g]['p_loss_low']:.2g}, {r['loss'][g]['p_loss_high']:.2g}]"
                 for n, r in result["assignments"].items()]
        out.append(f"  ×{g:.0e}: " + "; ".join(cells))
    out += ["", "The abstract's claims:"]
    for r in judged_rows:
        if r["published"] is None:
            continue
        out.append(f"  {r['verdict']:<5} {r['case']}: {r['metric']} {r['raidsim']} (claim: {_claim(r)})")
    return "\n".join(out)


def _ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def _ages_text(fractions: Sequence[Optional[float]]) -> str:
    return " ".join("-" if x is None else f"{x:.2f}" for x in fractions)


def _claim(r: Mapping[str, Any]) -> str:
    return f"{'≤' if r['metric'].startswith('throughput') else '≥'} {r['published']:g}"


def plot(result: Mapping[str, Any], out_dir: str) -> List[str]:
    """P(data loss) by year for each assignment at the middle growth, and the ages at each wear-out of the
    most skewed Diff-RAID assignment converging to their closed form."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .._figures import save_figure

    growths = spec()["reliability"]["uber_growths"]
    g = growths[len(growths) // 2]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for i, (n, r) in enumerate(result["assignments"].items()):
        t = r["by_year"][g].replace(0.0, float("nan"))  # no loss yet: nothing to draw on a log scale
        left.plot(t.index, t["loss"], "-o", color=f"C{i}", label=n, markersize=3)
        left.fill_between(t.index, t["loss_low"], t["loss_high"], color=f"C{i}", alpha=0.15)
    left.set_yscale("log")
    left.set_xlabel("years in service")
    left.set_ylabel("probability of data loss")
    left.set_title(f"RAID-5 of 5 SSDs, {_growth_text(g)}", fontsize=10)
    left.grid(alpha=0.3)
    left.legend(fontsize=8)
    heavy = list(result["assignments"])[-2]
    ages = result["assignments"][heavy]["ages"][growths[0]]
    closed = result["assignments"][heavy]["closed_form_ages"]
    for k in range(len(closed)):
        right.plot([w["wear_out"] for w in ages], [float("nan") if w["fractions"][k] is None else w["fractions"][k]
                                                   for w in ages], "-o", color=f"C{k}", markersize=3,
                   label=f"{_ordinal(k + 1)} oldest")
        right.axhline(closed[k], color=f"C{k}", linestyle=":", linewidth=1)
    right.set_xlabel("wear-out in a lifetime (1 = the first)")
    right.set_ylabel("fraction of rated P/E cycles")
    right.set_title(f"{heavy}: ages when one wears out (dotted: their limit)", fontsize=10)
    right.grid(alpha=0.3)
    right.legend(fontsize=8)
    os.makedirs(out_dir, exist_ok=True)
    return [save_figure(fig, os.path.join(out_dir, "diff-raid.png"))]

