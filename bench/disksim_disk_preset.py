"""Turn one of DiskSim 4.0's validated disk models into a raidsim [hdd] table.

DiskSim's validation suite (github.com/benh/disksim, `valid/`) ships, for
each drive it was validated against, the drive's parameters as extracted
from the real drive (Worthington et al.'s and Schindler & Ganger's DIXtrac
methods): `NAME.diskspecs` (controller, cache, overheads), `NAME.model`
(zones, skews, spares, mechanics) and `NAME.seek` (measured seek curve).
This prints the same drive as raidsim's `[hdd]` keys, so the presets
`hdd-cheetah-9lp` and `hdd-atlas-iii` can be regenerated and checked:

    python bench/disksim_disk_preset.py DISKSIM/valid cheetah9LP

A DIXtrac extraction in DiskSim's newer layout format (`dm_layout_g4`, with
the extracted `layout.mappings` of every LBN beside it), such as the
Seagate Cheetah 15K.5 of github.com/bootbool/disksim
(`valid/Seagate-Cheetah15k5.tar.gz`), is read from the mappings: a zone is
a run of cylinders of one track size, its unmapped sectors (spares and
slipped defects) are its spares, and its skew is the g4 layout's per-track
skew (raidsim's layout is cylinder-major, the drive's serpentine: see the
preset):

    python bench/disksim_disk_preset.py DIR Seagate-Cheetah15k5

Only what raidsim models is carried over; the script names every DiskSim
parameter it drops that is not at its neutral value.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def _value(text: str, key: str) -> str:
    m = re.search(rf"^\s*{re.escape(key)}\s*=\s*([^,\n]+)", text, re.M)
    if not m:
        raise SystemExit(f"no `{key}` in the DiskSim files")
    return m.group(1).strip()


def _ms_to_ns(text: str, key: str) -> int:
    return round(float(_value(text, key)) * 1e6)


def zones(model: str, heads: int) -> list[dict]:
    out = []
    blocks = model.split("dm_layout_g1_zone")[1:]
    for i, z in enumerate(blocks):
        first, last = int(_value(z, "First cylinder number")), int(_value(z, "Last cylinder number"))
        nxt = int(_value(blocks[i + 1], "First cylinder number")) if i + 1 < len(blocks) else last + 1
        spt = int(_value(z, "Blocks per track"))
        # Cylinders between this zone's last and the next zone's first are unmapped: spares.
        gap = nxt - last - 1
        out.append(
            {
                "cylinders": nxt - first,
                "sectors_per_track": spt,
                "track_skew_sectors": round(float(_value(z, "Skew for track switch"))),
                "cylinder_skew_sectors": round(float(_value(z, "Skew for cylinder switch"))),
                "spare_sectors": int(_value(z, "Number of spares")) + gap * heads * spt,
            }
        )
        front = int(float(_value(z, "Empty space at zone front")))
        if front:
            out[-1]["front_spare_sectors"] = front
    return out


def mapped_zones(mappings: str, heads: int, skew_revolutions: float) -> list[dict]:
    """Zones from an extracted LBN map: runs of cylinders whose fullest track holds one number of sectors
    (a run shorter than 20 cylinders is defects', folded into the zone before)."""
    per_track: dict[tuple[int, int], int] = {}
    for c, h, n in re.findall(r"--> cyl (\d+), head (\d+), sect \d+, count (\d+)", mappings):
        per_track[(int(c), int(h))] = per_track.get((int(c), int(h)), 0) + int(n)
    last = max(c for c, _ in per_track)
    runs: list[list[int]] = []  # [first cylinder, sectors per track, last cylinder]
    for c in range(last + 1):
        spt = max(per_track.get((c, h), 0) for h in range(heads))
        if runs and runs[-1][1] == spt:
            runs[-1][2] = c
        else:
            runs.append([c, spt, c])
    zones: list[list[int]] = []
    for run in runs:
        if zones and run[2] - run[0] < 20:
            zones[-1][2] = run[2]
        else:
            zones.append(run)
    out = []
    for first, spt, end in zones:
        mapped = sum(per_track.get((c, h), 0) for c in range(first, end + 1) for h in range(heads))
        skew = round(skew_revolutions * spt)
        out.append({"cylinders": end - first + 1, "sectors_per_track": spt, "track_skew_sectors": skew,
                    "cylinder_skew_sectors": skew, "spare_sectors": (end - first + 1) * heads * spt - mapped})
    return out


def g4_skew_revolutions(layout: str) -> float:
    """The per-track skew of a g4 layout's outermost band (its first TRACK entry's sixth field), in revolutions."""
    m = re.search(r"^\s*0,\s*0,\s*0\.0,\s*\d+,\s*\d+,\s*([\d.]+),", layout, re.M)
    if not m:
        raise SystemExit("no first TRACK entry in the g4 layout")
    return float(m.group(1))


def seek_table(seek: str) -> list[tuple[int, int]]:
    rows = re.findall(r"^\s*(\d+),\s*([\d.]+)", seek, re.M)
    return [(int(d), round(float(t) * 1e6)) for d, t in rows]


def interpolate(table: list[tuple[int, int]], x: int) -> float:
    """The table at `x`, linearly between points and past its ends, as raidsim and DiskSim read it."""
    for i, (d, t) in enumerate(table):
        if d == x:
            return t
        if d > x or i == len(table) - 1:
            j = max(i, 1)
            (d1, t1), (d2, t2) = table[j - 1], table[j]
            return t1 + (t2 - t1) * (x - d1) / (d2 - d1)
    raise ValueError("empty seek table")


def mean_seek_ns(table: list[tuple[int, int]], cylinders: int) -> float:
    """The mean seek between two uniformly random cylinders."""
    c = cylinders
    return sum(2 * (c - d) / (c * c) * interpolate(table, d) for d in range(1, c))


def preset(valid: Path, name: str) -> str:
    specs = (valid / f"{name}.diskspecs").read_text()
    model = (valid / f"{name}.model").read_text()
    seek_file = valid / f"{name}.seek"
    seek = (seek_file if seek_file.exists() else valid / f"{name}.seeks").read_text()
    heads = int(_value(model, "Number of data surfaces"))
    cylinders = int(_value(model, "Number of cylinders"))
    rpm = float(_value(model, "Rotation speed (in rpms)"))
    lines = ["[hdd]", "bytes_per_sector = 512", f"tracks_per_cylinder = {heads}", f"cylinders = {cylinders}"]
    lines.append(f"capacity_limit_bytes = {int(_value(model, 'Block count')) * 512}")
    lines.append(f"rpm = {rpm:g}")
    table = seek_table(seek)
    g4 = "dm_layout_g1_zone" not in model
    if g4:  # the zones from the LBN map; the seeks from the table's ends
        zone_list = mapped_zones((valid / "layout.mappings").read_text(), heads,
                                 g4_skew_revolutions((valid / f"{name}-skews.layout").read_text()))
        cylinders = sum(z["cylinders"] for z in zone_list)
        lines[3] = f"cylinders = {cylinders}"
        # The model's block count is the highest LBN; the map holds one more.
        mapped = sum(z["cylinders"] * heads * z["sectors_per_track"] - z["spare_sectors"] for z in zone_list)
        lines[4] = f"capacity_limit_bytes = {mapped * 512}"
        lines.append(f"single_cylinder_seek_ns = {table[0][1]}")
    else:
        zone_list = zones(model, heads)
        lines.append(f"single_cylinder_seek_ns = {_ms_to_ns(model, 'Single cylinder seek time')}")
    lines.append(f"average_seek_ns = {round(mean_seek_ns(table, cylinders) / 1000) * 1000}")
    lines.append(f"max_seek_ns = {table[-1][1] if g4 else _ms_to_ns(model, 'Full strobe seek time')}")
    lines.append(f"head_switch_ns = {_ms_to_ns(model, 'Head switch time')}")
    lines.append(f"write_settle_ns = {_ms_to_ns(model, 'Add. write settling delay')}")
    # DiskSim takes the larger of the bus's and the disk's time, so the 15K.5's -0.015 ms ran as the bus's 0
    # there; the stripe-unit paper's Table 10 prints 0.0150 ms, which the measured drive fits better (see the preset).
    lines.append(f"overhead_ns = {_ms_to_ns(specs, 'Per-request overhead time')}")
    lines.append(f"interface_sector_transfer_ns = {abs(_ms_to_ns(specs, 'Bulk sector transfer time'))}")
    lines += ["merge_adjacent = true", "synchronized_spindles = true", 'queue_policy = "fcfs"']
    pairs = ", ".join(f"[{d}, {t}]" for d, t in table)
    lines.append(f"seek_table = [{pairs}]")
    lines.append("zones = [")
    for z in zone_list:
        lines.append("  { " + ", ".join(f"{k} = {v}" for k, v in z.items()) + " },")
    lines.append("]")
    over = {
        "read_hit_after_read_ns": "Read hit over. after read",
        "read_hit_after_write_ns": "Read hit over. after write",
        "read_miss_after_read_ns": "Read miss over. after read",
        "read_miss_after_write_ns": "Read miss over. after write",
        "write_hit_after_read_ns": "Write hit over. after read",
        "write_hit_after_write_ns": "Write hit over. after write",
        "write_miss_after_read_ns": "Write miss over. after read",
        "write_miss_after_write_ns": "Write miss over. after write",
    }
    lines.append("[hdd.command_overhead]")
    lines += [f"{k} = {_ms_to_ns(specs, v)}" for k, v in over.items()]
    lines.append("[hdd.cache]")
    lines.append(f"segments = {_value(specs, 'Number of buffer segments')}")
    lines.append(f"segment_sectors = {_value(specs, 'Segment size (in blks)')}")
    lines.append(f"max_write_segments = {_value(specs, 'Maximum number of write segments')}")
    if int(_value(specs, "Buffer continuous read")) == 4:
        lines += ["read_ahead_sectors = 0", 'read_ahead_until = "track_end"']
    else:
        lines.append(f"read_ahead_sectors = {_value(specs, 'Maximum read-ahead (blks)')}")
    lines.append(f"fast_write = {'true' if int(_value(specs, 'Fast write level')) > 0 else 'false'}")
    lines.append(f"combine_writes = {'true' if int(_value(specs, 'Combine seq writes')) else 'false'}")
    lines.append(f"read_hits_on_write_data = {'true' if int(_value(specs, 'Allow read hits on write data')) else 'false'}")
    dropped = [
        k
        for k in ("Read completion overhead", "Write completion overhead", "Data preparation overhead", "Minimum read-ahead (blks)")
        if float(_value(specs, k)) != 0
    ]
    if dropped:
        print(f"# not modelled (non-zero in DiskSim's spec): {', '.join(dropped)}", file=sys.stderr)
    return "\n".join(lines) + "\n"


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit("usage: disksim_disk_preset.py DISKSIM/valid NAME (e.g. cheetah9LP, atlas_III, Seagate-Cheetah15k5)")
    print(preset(Path(sys.argv[1]), sys.argv[2]), end="")


if __name__ == "__main__":
    main()
