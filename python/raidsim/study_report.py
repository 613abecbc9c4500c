"""The stripe-unit study's table, figures and HTML report (the main job).

Figures in the manner of the stripe-unit paper (Rajaei Salmasi et al. 2013):
5 (extra page reads per disk, RAID4), 6 (page writes per disk, RAID4),
9 (mean response time), 10 (throughput by Eq. 5), 12 (erases per disk, RAID4).
"""

from __future__ import annotations

import html
import os
from typing import Dict, List

import pandas as pd

KIB = 1024


def _members(df: pd.DataFrame, prefix: str) -> List[str]:
    return sorted((c for c in df.columns if c.startswith(prefix + "[")), key=lambda c: int(c[len(prefix) + 1:-1]))


def summary_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (case, stripe unit): the figures the issue asks for.

    A value a point's report does not have (the array columns of the single SSD) shows as "-",
    never as 0 or "nan".
    """
    rows = []
    for _, r in df.iterrows():
        case = r["case"]
        reads = _present(df, r, "array.extra_page_reads")
        data = _present(df, r, "array.data_pages_written")
        parity = _present(df, r, "array.parity_pages_written")
        erases = _present(df, r, "devices.erases")
        if case == "raid4":
            data_member_writes = data[:4]
            parity_member_writes = data[4] + parity[4] if len(data) > 4 and len(parity) > 4 else MISSING
        else:
            data_member_writes = [d + p for d, p in zip(data, parity)]
            parity_member_writes = ""
        su = r.get("array.stripe_unit_bytes")
        rows.append({
            "config": case,
            "stripe_unit": MISSING if _missing(su) else f"{int(su) // KIB}K",
            "extra_page_reads": sum(reads) if reads else MISSING,
            "data_member_page_writes": "/".join(map(str, data_member_writes)) or MISSING,
            "parity_member_page_writes": parity_member_writes,
            "parity/data_writes": _number(r.get("array.parity_to_data_write_ratio"), 1, 3),
            "erases_per_member": "/".join(map(str, erases)) or MISSING,
            "mean_response_ms": _number(r.get("host.response.mean_ns"), 1e-6, 3),
            "throughput_MB/s": _number(r.get("host.throughput_eq5_mb_per_s"), 1, 1),
        })
    return pd.DataFrame(rows)


#: How the table shows a value the point's report does not have.
MISSING = "-"


def _missing(value: object) -> bool:
    return value is None or bool(pd.isna(value))


def _present(df: pd.DataFrame, r: pd.Series, prefix: str) -> List[int]:
    """The point's per-member values of a list metric, leaving out members it does not have."""
    return [int(r[c]) for c in _members(df, prefix) if not _missing(r[c])]


def _number(value: object, scale: float, digits: int) -> str:
    return MISSING if _missing(value) else f"{float(value) * scale:.{digits}f}"


def make_figures(df: pd.DataFrame, out_dir: str) -> Dict[str, str]:
    """Writes the PNG figures; returns {figure name: file name}."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    su = "array.stripe_unit_bytes"
    raid4 = df[df.case == "raid4"].sort_values(su)
    labels = ["D0", "D1", "D2", "D3", "P"]
    files = {}

    def per_member(data: pd.DataFrame, prefix: str, ylabel: str, title: str, name: str):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        x = data[su] / KIB
        for i, col in enumerate(_members(data, prefix)):
            ax.plot(x, data[col], marker="o", label=labels[i] if i < len(labels) else col,
                    linewidth=2.5 if i == 4 else 1.5, linestyle="-" if i == 4 else "--")
        _axes(ax, ylabel, title)
        files[name] = _save(fig, out_dir, name)

    def by_config(metric: str, scale: float, ylabel: str, title: str, name: str):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        for case, style in (("raid0", "s-"), ("raid4", "o-"), ("raid5", "^-")):
            d = df[df.case == case].sort_values(su)
            ax.plot(d[su] / KIB, d[metric] * scale, style, label=case.upper())
        single = df[df.case == "single"]
        if len(single):
            ax.axhline(single[metric].mean() * scale, color="black", linestyle=":", label="single SSD")
        _axes(ax, ylabel, title)
        files[name] = _save(fig, out_dir, name)

    raid4 = raid4.assign(**{f"pre[{i}]": raid4[f"devices.pages_read.pre_read_rmw[{i}]"] + raid4[f"devices.pages_read.pre_read_rcw[{i}]"]
                            for i in range(5)})
    raid4 = raid4.assign(**{f"writes[{i}]": raid4[f"array.data_pages_written[{i}]"] + raid4[f"array.parity_pages_written[{i}]"]
                            for i in range(5)})
    per_member(raid4, "pre", "extra page reads", "Fig. 5 — extra page reads, RAID4 4+1", "fig5_extra_page_reads.png")
    per_member(raid4, "writes", "page writes", "Fig. 6 — page writes, RAID4 4+1", "fig6_page_writes.png")
    by_config("host.response.mean_ns", 1e-6, "mean response time (ms)", "Fig. 9 — average response time", "fig9_response_time.png")
    by_config("host.throughput_eq5_mb_per_s", 1.0, "throughput, Eq. 5 (MB/s)", "Fig. 10 — overall throughput", "fig10_throughput.png")
    per_member(raid4, "devices.erases", "block erases", "Fig. 12 — erases per disk, RAID4 4+1", "fig12_erases.png")
    plt.close("all")
    return files


def _axes(ax, ylabel: str, title: str) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xlabel("stripe unit size (KiB)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ticks = [4, 8, 16, 32, 64, 128, 256, 512, 1024]
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])


def save_figure(fig, path: str, dpi: int = 100) -> str:
    """Lays out, writes and closes ``fig``; returns ``path``."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def _save(fig, out_dir: str, name: str) -> str:
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, name), dpi=110)
    return name


def write_html(table: pd.DataFrame, figures: Dict[str, str], out_dir: str, title: str, note: str) -> str:
    """A small self-contained HTML report beside the figures."""
    imgs = "\n".join(f'<figure><img src="{html.escape(f)}" alt="{html.escape(f)}"><figcaption>{html.escape(f)}</figcaption></figure>'
                     for f in figures.values())
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto}} table{{border-collapse:collapse;font-size:12px}}
td,th{{border:1px solid #ccc;padding:2px 6px;text-align:right}} figure{{display:inline-block;margin:8px}} img{{width:520px}}</style>
</head><body>
<h1>{html.escape(title)}</h1>
<p>{html.escape(note)}</p>
<p>Source: Rajaei Salmasi, Asadi, GhasemiGol, Scientia Iranica 2013, §5. Configuration of every point: <code>configs/</code>;
all columns: <code>results.csv</code> / <code>results.parquet</code>.</p>
{imgs}
<h2>Results</h2>
{table.to_html(index=False)}
</body></html>
"""
    path = os.path.join(out_dir, "report.html")
    with open(path, "w") as f:
        f.write(page)
    return path
