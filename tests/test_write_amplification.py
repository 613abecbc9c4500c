"""Host-to-media write amplification in the text of a run (the Array or Drive section): bytes the devices
programmed, every cause on every device, over the bytes the host wrote, checked on hand counts."""

import pytest

import raidsim
from raidsim import Workload

SU = 65536  # the stripe unit of the Table-5 preset
PAGE = 4096


def write_amplification(text):
    """The Array (or Drive) section's write amplification, as a number."""
    line = next(line for line in text.splitlines() if line.startswith("write amplification "))
    return float(line.split()[2].replace(",", ""))


def array_line(text, label):
    return next(line for line in text.splitlines() if line.startswith(label))[27:]


NO_GC = {"precondition.fill_fraction": 0.0}


@pytest.mark.parametrize("level, members, requests, expected", [
    ("single", 1, [(i * 1000, "W", i * PAGE, PAGE) for i in range(50)], 1.0),  # a page each, nothing else
    ("single", 1, [(i * 1000, "W", i * PAGE, PAGE // 2) for i in range(50)], 2.0),  # half a page programs a page
    ("raid1", 2, [(i * 1000, "W", i * PAGE, PAGE) for i in range(50)], 2.0),  # each page on both mirrors
    ("raid5", 4, [(i * 1_000_000, "W", i * 3 * SU, 3 * SU) for i in range(10)], 4 / 3),
    ("raid6", 6, [(i * 1_000_000, "W", i * 4 * SU, 4 * SU) for i in range(10)], 6 / 4),  # n/(n-2)
])
def test_write_amplification_is_the_hand_count(level, members, requests, expected):
    r = raidsim.simulate("stripe-unit-table5", Workload.requests(requests),
                         overrides={**NO_GC, "array.level": level, "array.members": members}, progress=False)
    assert all(d["gc_runs"] == 0 for d in r.to_dict()["devices"])
    text = r.to_text()
    assert write_amplification(text) == pytest.approx(expected, abs=1e-4)
    assert text.split("\n")[text.split("\n").index("Drive" if level == "single" else "Array") - 1] == ""


def test_write_amplification_counts_garbage_collection_on_every_member():
    # A full drive overwritten at random: collections copy pages, so flash writes exceed the host's.
    r = raidsim.simulate("erasure-code-table6", Workload.synthetic(requests=6000, read_fraction=0.0),
                         overrides={"precondition.fill_fraction": 1.0, "precondition.random_overwrite_factor": 1.0,
                                    "array.level": "raid5", "array.members": 3, "array.stripe_unit_bytes": 8192},
                         progress=False)
    d = r.to_dict()
    assert sum(dev["pages_written"].get("gc_write", 0) for dev in d["devices"]) > 0
    page = raidsim.Config.preset("erasure-code-table6").resolved()["ssd"]["geometry"]["page_size_bytes"]
    summary = sum(s["value"] for s in d["stats"] if s["path"].endswith(".ftl.summary_pages_written"))
    flash = (sum(sum(dev["pages_written"].values()) for dev in d["devices"]) + summary) * page
    assert write_amplification(r.to_text()) == pytest.approx(flash / d["host"]["bytes_written"], abs=1e-4)
    assert "gc_write" in array_line(r.to_text(), "flash bytes programmed")


def test_a_disk_array_counts_sectors_and_a_run_without_writes_has_no_ratio():
    r = raidsim.simulate("hdd-cheetah-9lp", Workload.requests([(i * 10_000_000, "W", i * 3 * SU, 3 * SU)
                                                               for i in range(4)]),
                         overrides={"array.level": "raid5", "array.members": 4}, progress=False)
    text = r.to_text()
    assert write_amplification(text) == pytest.approx(4 / 3, abs=1e-4)
    assert array_line(text, "disk bytes written").startswith(f"{4 * 4 * SU:,} ({4 * 4 * SU // 512:,} sectors")
    reads = raidsim.simulate(None, Workload.requests([(0, "R", 0, PAGE)]), progress=False).to_text()
    assert array_line(reads, "write amplification") == "- (the host wrote nothing)"
