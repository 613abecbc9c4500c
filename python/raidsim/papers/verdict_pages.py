"""The pages of ``raidsim reproduce all``: an index of verdicts, and a page per entry with its rows.

``OUT/report.html`` is the index: the run (version, date, grids, time), the verdicts of every entry added up,
a line per entry (its paper, what it covers, exact or trend, its verdict counts, its time, a link to its
page), how a row is judged, and what no entry reproduces. ``OUT/entries/NAME.html`` is one entry's page,
its verdict first: then the paper and what it covers, its notes, its verdicts by table and figure, the rules
that judged its rows, its rows beside the published numbers, its known gaps, its figures and the rows the
paper gives no number for (folded); it links back to the index and on to the entries beside it. A page
of an entry the run did not hold (a run before, of other entries) is removed: the index and the pages
always describe the same run as ``rows.json``.
"""

from __future__ import annotations

import html
import os
from datetime import datetime, timezone
from typing import Any, Dict, List, Mapping, Optional, Sequence

from . import catalog
from .catalog import COUNT_KEYS, GAP, NO_VERDICT, NOT_RUN, PASS, PASS_MAPPED
from .packaged import study_file

#: The index's file name in OUT, and the folder of the entries' pages.
INDEX, ENTRIES = "report.html", "entries"

_CSS = """body{font-family:sans-serif;max-width:1200px;margin:2em auto;line-height:1.35}
table{border-collapse:collapse;font-size:12px;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}.pass{background:#e3f4e3}.gap{background:#fbe3e3}
.mapped{background:#f6f0d0}
.notrun{background:#f3f3f3;color:#666}.failed{background:#fbe3e3;padding:.5em;border:1px solid #d88}
.verdict{padding:.5em;border:1px solid #aaa;font-size:15px}div.pass{border-color:#8c8}div.gap{border-color:#d88}
figure{display:inline-block;margin:6px}img{width:520px}tr.total td{font-weight:bold;border-top:2px solid #888}
.small{font-size:12px;color:#444}nav{font-size:13px;margin-bottom:1em}"""

#: The verdicts' cells and their headers, in the order of COUNT_KEYS.
_COUNT_HEADERS = {"pass": PASS, "pass_mapped": PASS_MAPPED, "gap": GAP, "not_run": NOT_RUN,
                  "no_published_value": "no published value"}
_VERDICT_CLASS = {PASS: "pass", PASS_MAPPED: "mapped", GAP: "gap", NOT_RUN: "notrun"}


def counts_text(c: Mapping[str, int]) -> str:
    """An entry's verdicts on one line, as ``raidsim reproduce all`` prints them as it goes: mapped passes
    and rows not run only when there are any."""
    return (f"{c['pass']} pass" + (f", {c['pass_mapped']} {PASS_MAPPED}" if c["pass_mapped"] else "")
            + f", {c['gap']} gap" + (f", {c['not_run']} not run" if c["not_run"] else "")
            + f", {c['no_published_value']} rows without a published value")


def paper_summary(results: Sequence[Any]) -> List[Dict[str, Any]]:
    """Per paper (papers.toml's order), over the entries that ran: exact rows matched and judged, trend rows
    passed and judged, gaps by class (``unexplained``: no ``[[catalog.gap_reasons]]`` matches), rows not run,
    and the tables and figures no entry covers."""
    out = []
    for paper in catalog.papers().values():
        mine = [res for res in results if res.entry.paper.key == paper.key and res.status == "ok"]
        if not mine:
            continue
        s = {"paper": paper.short, "key": paper.key, "exact_pass": 0, "exact_judged": 0, "trend_pass": 0,
             "trend_judged": 0, **{f"gap_{k}": 0 for k in catalog.GAP_CLASSES}, "gap_unexplained": 0, "not_run": 0,
             "not_covered": [what for what, _ in paper.outside_catalog]}
        for res in mine:
            for r in res.rows:
                if r["published"] is None:
                    continue
                if r["verdict"] == NOT_RUN:
                    s["not_run"] += 1
                    continue
                s[f"{res.entry.kind}_judged"] += 1
                s[f"{res.entry.kind}_pass"] += r["verdict"] in (PASS, PASS_MAPPED)
                if r["verdict"] == GAP:
                    s[f"gap_{r.get('gap_class') or 'unexplained'}"] += 1
        out.append(s)
    return out


def paper_summary_text(summary: Sequence[Mapping[str, Any]]) -> List[str]:
    """:func:`paper_summary` as the terminal shows it, a line or two per paper."""
    lines = []
    for s in summary:
        gaps = ", ".join(f"{s['gap_' + k]} ({k})" for k in catalog.GAP_CLASSES if s["gap_" + k])
        if s["gap_unexplained"]:
            gaps += (", " if gaps else "") + f"{s['gap_unexplained']} unexplained"
        judged = [f"{kind} {s[kind + '_pass']}/{s[kind + '_judged']} {verb}" for kind, verb in
                  (("exact", "rows match"), ("trend", "pass")) if s[kind + "_judged"]]
        lines.append(f"{s['paper']}: {', '.join(judged) or 'no row judged'}; gaps: {gaps or 'none'}"
                     + (f"; {s['not_run']} not run" if s["not_run"] else "")
                     + (f"; not covered: {', '.join(s['not_covered'])}" if s["not_covered"] else ""))
    return lines + ["gap classes: " + "; ".join(f"({k}) {v}" for k, v in catalog.GAP_CLASSES.items())]


def entry_page(name: str) -> str:
    """An entry's page, relative to OUT."""
    return f"{ENTRIES}/{name}.html"


def write_pages(results: Sequence[Any], out: str, *, quick: bool, seconds: float, planned: int) -> str:
    """Writes each result's page (an :class:`~raidsim.papers.reproduce_all.EntryResult`), then the index
    linking them; removes the pages of entries this run did not hold. Returns the index's path."""
    folder = os.path.join(out, ENTRIES)
    os.makedirs(folder, exist_ok=True)
    names = [res.entry.name for res in results]
    for i, res in enumerate(results):
        neighbours = (names[i - 1] if i else None, names[i + 1] if i + 1 < len(names) else None)
        with open(os.path.join(out, entry_page(res.entry.name)), "w") as f:
            f.write(_entry_page(res, out, neighbours))
    for stale in set(os.listdir(folder)) - {f"{n}.html" for n in names}:
        if stale.endswith(".html"):
            os.remove(os.path.join(folder, stale))
    index = os.path.join(out, INDEX)
    with open(index, "w") as f:
        f.write(_index(results, quick, seconds, planned))
    return index


def _head(title: str) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style></head><body>")


# --- the index ----------------------------------------------------------------------------------------

def _index(results: Sequence[Any], quick: bool, seconds: float, planned: int) -> str:
    from .. import __version__

    e = html.escape
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    grids = "<b>--quick</b>: smaller grids (a smoke run where an entry says so)" if quick else "full grids"
    failed = sum(res.status != "ok" for res in results)
    total = _total(results)
    judged = sum(v for k, v in total.items() if k != "no_published_value")
    parts = [_head("raidsim: every reproduction"),
             "<h1>raidsim: every reproduction, ours beside the published numbers</h1>",
             f"<p>raidsim {e(__version__)}, {e(when)}; {grids}; {len(results)} entries in {seconds:.0f} s"
             + (f", <b>{failed} failed</b>" if failed else "")
             + (f", <b>interrupted: {planned - len(results)} of {planned} did not run</b>" if planned > len(results) else "")
             + ".</p>",
             f"<p>In all, {judged:,} rows have a published number beside raidsim's: <b>{total['pass']:,} pass</b>"
             + (f", {total['pass_mapped']:,} {PASS_MAPPED}" if total["pass_mapped"] else "")
             + f", <b>{total['gap']:,} gap</b>" + (f", {total['not_run']:,} not run" if total["not_run"] else "")
             + f"; {total['no_published_value']:,} rows have none (no verdict). Each entry's page has its rules, its "
             "figures, its verdicts by table and figure and its rows; every row of every entry is in "
             "<a href='rows.csv'><code>rows.csv</code></a> and <a href='rows.json'><code>rows.json</code></a>, each "
             "entry's status and counts in <a href='entries.json'><code>entries.json</code></a>.</p>",
             _papers_table(results), _summary_table(results, total), _rules_text(), _outside_catalog(),
             "</body></html>"]
    return "\n".join(parts)


def _total(results: Sequence[Any]) -> Dict[str, int]:
    total = {k: 0 for k in COUNT_KEYS.values()}
    for res in results:
        for k, v in res.counts().items():
            total[k] += v
    return total


def _papers_table(results: Sequence[Any]) -> str:
    e = html.escape
    classes = "".join(f"<th title='{e(v)}'>gap ({e(k)})</th>" for k, v in catalog.GAP_CLASSES.items())
    head = (f"<tr><th>paper</th><th>exact rows matched</th><th>trend rows passed</th>{classes}"
            "<th>gap, unexplained</th><th>not run</th><th>not covered</th></tr>")
    body = "".join(
        f"<tr><td>{e(s['paper'])}</td><td class='n'>{s['exact_pass']:,} of {s['exact_judged']:,}</td>"
        f"<td class='n'>{s['trend_pass']:,} of {s['trend_judged']:,}</td>"
        + "".join(f"<td class='n'>{s['gap_' + k]:,}</td>" for k in catalog.GAP_CLASSES)
        + f"<td class='n{' gap' if s['gap_unexplained'] else ''}'>{s['gap_unexplained']:,}</td>"
        f"<td class='n'>{s['not_run']:,}</td><td>{e(', '.join(s['not_covered'])) or 'none'}</td></tr>"
        for s in paper_summary(results))
    legend = "; ".join(f"<b>({e(k)})</b> {e(v)}" for k, v in catalog.GAP_CLASSES.items())
    return (f"<h2>By paper</h2><table>{head}{body}</table><p class='small'>Gaps by class: {legend}. Not covered: "
            "the paper's tables and figures no entry sets raidsim's numbers beside (why: below).</p>")


def _summary_table(results: Sequence[Any], total: Mapping[str, int]) -> str:
    e = html.escape
    head = ("<tr><th>reproduction</th><th>paper</th><th>covers</th><th>kind</th><th>status</th>"
            + "".join(f"<th>{e(h)}</th>" for h in _COUNT_HEADERS.values()) + "<th>time</th></tr>")
    body = []
    for res in results:
        x = res.entry
        status = "ok" if res.status == "ok" else f"<b>FAILED</b>: {e(res.error)}"
        body.append(f"<tr id='{e(x.name)}'><td><a href='{e(entry_page(x.name))}'>{e(x.name)}</a></td>"
                    f"<td>{e(x.paper.short)}</td><td>{e(catalog.covers_text(x.covers))}</td><td>{x.kind}</td>"
                    f"<td>{status}</td>{_count_cells(res.counts())}<td class='n'>{res.seconds:.1f} s</td></tr>")
    body.append(f"<tr class='total'><td colspan='5'>all {len(results)} entries</td>{_count_cells(total)}"
                f"<td class='n'>{sum(res.seconds for res in results):.0f} s</td></tr>")
    return f"<h2>Entries</h2><table>{head}{''.join(body)}</table>"


def _count_cells(c: Mapping[str, int]) -> str:
    """The counts' cells; a pass count green and a gap count red when not 0."""
    cls = {"pass": "pass", "pass_mapped": "mapped", "gap": "gap"}
    return "".join(f"<td class='n{' ' + cls[k] if c[k] and k in cls else ''}'>{c[k]:,}</td>" for k in _COUNT_HEADERS)


def _rules_text() -> str:
    items = "".join(f"<li><b>{html.escape(name)}</b>: {html.escape(meaning)}</li>"
                    for name, meaning in catalog.RULE_MEANINGS.items())
    return ("<h2>How a row is judged</h2><ul>"
            f"<li><b>{PASS}</b> / <b>{GAP}</b>: by the row's rule, printed beside it (rule, tolerance) and, with its "
            "reason, on the entry's page above its rows.</li>"
            f"<li><b>{PASS_MAPPED}</b>: a pass that rests on a mapping, an interpretation of the paper its study file "
            "chose (which array, start row or start positions a printed number stands for) where the paper does not "
            "say or says otherwise; the study file's reason is printed beside the row. Counted apart from plain passes: "
            f"under another reading the row may be a {GAP}.</li>"
            f"<li><b>{NO_VERDICT}</b>: the paper gives no number for the row: no verdict, never a pass.</li>"
            f"<li><b>{NOT_RUN}</b>: the paper gives a number this run did not reach (the <code>--quick</code> grid).</li>"
            "<li>An <i>exact</i> entry's row passes only when raidsim's value equals the published one, or is within "
            "a tolerance its study file states beside that number. A <i>trend</i> entry's rows are judged by the "
            "rules of its study file's <code>[[catalog.verdicts]]</code>. A value raidsim could not measure beside "
            f"a published one is a {GAP}.</li></ul><p class='small'>The rules:</p><ul class='small'>{items}</ul>")


def _outside_catalog() -> str:
    rows = "".join(f"<tr><td>{html.escape(p.short)}</td><td>{html.escape(what)}</td><td>{html.escape(why)}</td></tr>"
                   for p in catalog.papers().values() for what, why in p.outside_catalog)
    return ("<h2>Not in the catalog</h2><p>The papers' tables and figures with numbers that no entry sets "
            f"raidsim's numbers beside, and why (<code>{catalog.PAPERS_FILE}</code>).</p>"
            f"<table><tr><th>paper</th><th>table or figure</th><th>why</th></tr>{rows}</table>")


# --- an entry's page ----------------------------------------------------------------------------------

def _entry_page(res: Any, out: str, neighbours: Sequence[Optional[str]]) -> str:
    e, x = html.escape, res.entry
    nav = _nav(neighbours)
    parts = [_head(f"raidsim: {x.name}"), nav, f"<h1>{e(x.name)}: {e(x.paper.short)}, {e(catalog.covers_text(x.covers))}</h1>",
             _verdict(res),
             f"<p><b>{e(x.paper.cite)}</b>. {'An' if x.kind == 'exact' else 'A'} {x.kind} reproduction: {e(x.summary)}.</p>",
             f"<p class='small'>Study file: <code>{e(x.file)}</code>"
             + (f"; published numbers in <code>{e(study_file(x.published_in))}</code>" if x.published_in else "")
             + f"; {res.seconds:.1f} s here.</p>"]
    if res.status != "ok":
        parts.append(f"<div class='failed'><b>This entry failed</b>: {e(res.error)}"
                     f"<details><summary>traceback</summary><pre>{e(res.trace)}</pre></details></div>")
    parts += [f"<p class='small'>{e(n)}</p>" for n in res.notes]
    if res.rows:
        parts += ["<h2>By table and figure</h2>", _by_figure(res.rows)]
    published = [r for r in res.rows if r["published"] is not None]
    if published:
        rules = dict.fromkeys((r["rule"], r["tolerance"], r["why"]) for r in published if r["rule"] is not None)
        parts.append("<h2>Rules that judged these rows</h2><ul class='small'>" + "".join(
            f"<li><b>{e(t)}</b> ({e(n)}): {e(w or '')}</li>" if t != n.replace("_", " ") else
            f"<li><b>{e(t)}</b>: {e(w or '')}</li>" for n, t, w in rules) + "</ul>")
        parts += [f"<h2>{len(published):,} rows beside the published numbers</h2>", _rows_table(published, judged=True)]
    if x.gaps:
        parts.append("<h2>Known gaps</h2><p class='small'>From the study file.</p><ul>"
                     + "".join(f"<li>{e(g)}</li>" for g in x.gaps) + "</ul>")
    if res.figures:
        folder = os.path.join(out, ENTRIES)
        parts.append("<h2>Figures</h2><div>" + "".join(
            f"<figure><a href='{e(os.path.relpath(p, folder))}'><img src='{e(os.path.relpath(p, folder))}' "
            f"alt='{e(os.path.basename(p))}'></a><figcaption class='small'>{e(os.path.basename(p))}</figcaption></figure>"
            for p in res.figures) + "</div>")
    rest = [r for r in res.rows if r["published"] is None]
    if rest:
        parts.append(f"<h2>{len(rest):,} rows without a published value</h2><details><summary>show them (no verdict: "
                     f"the paper gives no number for them)</summary>{_rows_table(rest, judged=False)}</details>")
    parts += [nav, "</body></html>"]
    return "\n".join(parts)


def _nav(neighbours: Sequence[Optional[str]]) -> str:
    before, after = neighbours
    links = [f"<a href='../{INDEX}'>&larr; every reproduction (the index)</a>"]
    if before is not None:
        links.append(f"previous: <a href='{html.escape(before)}.html'>{html.escape(before)}</a>")
    if after is not None:
        links.append(f"next: <a href='{html.escape(after)}.html'>{html.escape(after)}</a>")
    return "<nav>" + " &middot; ".join(links) + "</nav>"


def _verdict(res: Any) -> str:
    """The entry's verdict, the first thing its page says."""
    e = html.escape
    if res.status != "ok":
        return f"<div class='verdict gap'><b>Verdict: FAILED</b>: {e(res.error)} (the traceback is below).</div>"
    c = res.counts()
    judged = sum(v for k, v in c.items() if k != "no_published_value")
    rest = c["no_published_value"]
    if not judged:
        return ("<div class='verdict notrun'><b>Verdict: none</b>: no row of this entry has a published number "
                f"beside it; its {rest:,} rows have no verdict, never a pass (the study file sets none; its known gaps "
                "below say what is not compared yet).</div>")
    cls = "gap" if c["gap"] else "pass" if c["pass"] + c["pass_mapped"] == judged else "notrun"
    said = [f"{c['pass']:,} pass"] + ([f"{c['pass_mapped']:,} {PASS_MAPPED}"] if c["pass_mapped"] else []) \
        + [f"{c['gap']:,} gap"] + ([f"{c['not_run']:,} not run"] if c["not_run"] else [])
    return (f"<div class='verdict {cls}'><b>Verdict: {', '.join(said)}</b>, of the {judged:,} rows with a published "
            f"number beside raidsim's" + (f"; {rest:,} more rows have none (no verdict)" if rest else "") + ".</div>")


def _by_figure(rows: Sequence[Mapping[str, Any]]) -> str:
    """The verdicts of an entry's rows, by table and figure."""
    counts: Dict[str, Dict[str, int]] = {}
    for r in rows:
        c = counts.setdefault(r["figure"], {k: 0 for k in COUNT_KEYS.values()})
        c[COUNT_KEYS[r["verdict"]]] += 1
    body = "".join(f"<tr><td>{html.escape(fig)}</td>{_count_cells(c)}</tr>" for fig, c in counts.items())
    return ("<table><tr><th>table/figure</th>" + "".join(f"<th>{html.escape(h)}</th>" for h in _COUNT_HEADERS.values())
            + f"</tr>{body}</table>")


def _rows_table(rows: Sequence[Mapping[str, Any]], judged: bool) -> str:
    """The rows, one ``<tr class='row'>`` each."""
    e = html.escape
    cols = ["table/figure", "case", "metric", "raidsim"] + (["published"] if judged else []) + ["unit"] \
        + (["rule", "verdict"] if judged else []) + ["note"]
    body: List[str] = []
    for r in rows:
        cells = [e(r["figure"]), e(r["case"]), e(r["metric"]), f"<td class='n'>{e(_fmt(r['raidsim']))}</td>"]
        if judged:
            cells.append(f"<td class='n'>{e(_fmt(r['published']))}</td>")
        cells.append(e(r["unit"]))
        klass = r.get("gap_class")
        if judged:
            verdict = r["verdict"] + (f" ({klass})" if klass else "")
            cells += [e(r["tolerance"] or ""), f"<td class='{_VERDICT_CLASS.get(r['verdict'], '')}'>{e(verdict)}</td>"]
        why = [f"<b>mapped</b>: {e(r['mapping'])}"] if r.get("mapping") else []
        if klass:
            why.append(f"<b>gap {e(klass)}</b>, {e(catalog.GAP_CLASSES[klass])}: {e(r['gap_why'])}")
        cells.append(f"<span class='small'>{' — '.join(why + ([e(r['note'])] if r['note'] else []))}</span>")
        body.append("<tr class='row'>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in cells) + "</tr>")
    return "<table><tr>" + "".join(f"<th>{c}</th>" for c in cols) + "</tr>" + "".join(body) + "</table>"


def _fmt(value: Any) -> str:
    """A value as the report shows it: an empty cell for none, never a 0."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.0f}" if abs(value) >= 1e5 else f"{value:,.6g}"  # the digits the value has, up to six
