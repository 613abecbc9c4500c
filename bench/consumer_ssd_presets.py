"""Holds the consumer drive presets (`samsung-970-evo-plus-1tb`, `intel-660p-1tb`) against their data sheets.

For each preset it runs, on the fresh drive, 128 KiB sequential writes at queue depth 32 inside the SLC cache
(4 GB) and past it (the cache's bytes, then 4 GB more: their rate is the difference of the two runs' times),
128 KiB sequential reads at queue depth 32, and 4 KiB random reads and writes at queue depth 1 and 32 on a
half-filled drive, and prints each figure beside the data sheet's (and beside the drive's own, measured, where a
review publishes it).

    python bench/consumer_ssd_presets.py [PRESET ...] [--json]

`tests/test_consumer_presets.py` holds the figures this prints; the presets' comments give the sources.
"""
from __future__ import annotations

import argparse
import json

import raidsim

#: The data sheets' figures (see each preset's comments for the sources).
DATA_SHEET = {
    "samsung-970-evo-plus-1tb": {"cache_bytes": 5_905_580_032, "write_in_cache_mb_per_s": 3300,
                                 "write_past_cache_mb_per_s": 1700, "sequential_read_mb_per_s": 3500,
                                 "random_read_qd1_iops": 19_000, "random_read_qd32_iops": 600_000,
                                 "random_write_qd1_iops": 60_000, "random_write_qd32_iops": 550_000},
    "intel-660p-1tb": {"cache_bytes": 11_945_377_792, "write_in_cache_mb_per_s": 1800,
                       "write_past_cache_mb_per_s": 100, "sequential_read_mb_per_s": 1800},
}


#: Figures measured on the drive itself, where a review publishes them: KitGuru's review of the 970 EVO Plus
#: 1 TB (kitguru.net, "Samsung SSD 970 EVO Plus 1TB review", page 10: 4K random writes "a QD1 figure 163,140
#: IOPS", at QD32 "354,973 IOPS").
MEASURED = {"samsung-970-evo-plus-1tb": {"random_write_qd1_iops": 163_140, "random_write_qd32_iops": 354_973}}
def _run(preset: str, requests: int, read_fraction: float, overrides: dict) -> dict:
    workload = raidsim.Workload.synthetic(requests=requests, read_fraction=read_fraction)
    return raidsim.simulate(preset, workload, overrides=overrides, progress=False).to_dict()["host"]


def _sequential(preset: str, total_bytes: int, read: bool = False) -> int:
    """Duration, ns, of `total_bytes` of 128 KiB sequential requests at queue depth 32."""
    o = {"workload.address": "sequential", "workload.processes": 32, "workload.size.mean_bytes": 131072,
         "workload.alignment_bytes": 131072}
    if read:
        o["precondition.fill_fraction"] = 0.5
    return _run(preset, total_bytes // 131072, 1.0 if read else 0.0, o)["duration_ns"]


def _random(preset: str, read_fraction: float, depth: int) -> float:
    o = {"workload.processes": depth, "precondition.fill_fraction": 0.5}
    return _run(preset, 100_000, read_fraction, o)["iops"]


def measure(preset: str) -> dict:
    """The preset's figures, keyed as :data:`DATA_SHEET`."""
    cache = DATA_SHEET[preset]["cache_bytes"]
    span = 4 * 1024**3
    # Whole 128 KiB requests: the cache run ends where the next one starts.
    cache_requests_bytes = cache // 131072 * 131072
    past = _sequential(preset, cache_requests_bytes + span) - _sequential(preset, cache_requests_bytes)
    out = {"write_in_cache_mb_per_s": span / _sequential(preset, span) * 1e3,
           "write_past_cache_mb_per_s": span / past * 1e3,
           "sequential_read_mb_per_s": span / _sequential(preset, span, read=True) * 1e3}
    if "random_read_qd1_iops" in DATA_SHEET[preset]:
        out |= {"random_read_qd1_iops": _random(preset, 1.0, 1), "random_read_qd32_iops": _random(preset, 1.0, 32),
                "random_write_qd1_iops": _random(preset, 0.0, 1), "random_write_qd32_iops": _random(preset, 0.0, 32)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("presets", nargs="*", default=list(DATA_SHEET))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {p: measure(p) for p in args.presets}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for preset, figures in results.items():
        print(preset)
        for key, value in figures.items():
            sheet = DATA_SHEET[preset][key]
            line = f"  {key:28s} {value:12,.0f}   data sheet {sheet:>10,}   {100 * (value / sheet - 1):+6.1f} %"
            measured = MEASURED.get(preset, {}).get(key)
            if measured:
                line += f"   measured {measured:>10,}   {100 * (value / measured - 1):+6.1f} %"
            print(line)


if __name__ == "__main__":
    main()
