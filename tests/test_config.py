"""Config: layers, overrides and the errors a user meets (issue #2)."""

import pytest

import raidsim
from raidsim import Config, ConfigError


def test_unknown_key_names_the_key_and_lists_valid_ones():
    with pytest.raises(ConfigError) as e:
        Config.preset("stripe-unit-table5").set("ssd.geometry.chanels", 4).resolved()
    msg = str(e.value)
    assert "ssd.geometry" in msg and "chanels" in msg
    assert "channels" in msg and "blocks_per_plane" in msg


def test_impossible_geometry_says_why():
    with pytest.raises(ConfigError, match="spare blocks per plane"):
        Config().set("ssd.geometry.over_provisioning_fraction", 0.0).resolved()


def test_overrides_by_dotted_key_and_string():
    c = Config.preset("cr5m-table1").with_overrides({"ssd.queue_depth": 4}).with_overrides(["ssd.ftl.gc_victim=cost_benefit"])
    r = c.resolved()
    assert r["ssd"]["queue_depth"] == 4
    assert r["ssd"]["ftl"]["gc_victim"] == "cost_benefit"
    # The preset's own values are kept underneath.
    assert r["ssd"]["geometry"]["channels"] == 4
    assert r["ssd"]["timing"]["t_read_ns"] == 20_000


def test_resolved_config_is_sorted_and_carries_derived_geometry():
    text = Config.preset("stripe-unit-table5").resolved_toml()
    r = Config.preset("stripe-unit-table5").resolved()
    # Table 5: 4 KB pages x 64 x 2048 x 8 planes x 8 dies = 32 GiB of flash.
    assert r["derived"]["physical_pages"] * 4096 == 32 * 2**30
    # DiskSim's reserve: floor(15 % x 2048) = 307 blocks of every plane; one
    # summary page per block: 64 planes x 1741 blocks x 63 data pages.
    assert r["derived"]["capacity_bytes"] == 64 * 1741 * 63 * 4096
    top = [line for line in text.splitlines() if line.startswith("[") and "." not in line]
    assert top == sorted(top)


def test_workload_replaces_rather_than_merges():
    c = Config().set("workload.read_fraction", 0.9).with_workload(raidsim.Workload.requests([(0, "R", 0, 4096)]))
    w = c.resolved()["workload"]
    assert w["kind"] == "requests" and "read_fraction" not in w


def test_unknown_preset_lists_presets():
    with pytest.raises(ConfigError, match="stripe-unit-table5"):
        Config.preset("nope").resolved()


def test_every_preset_cites_its_source():
    for name, text in raidsim.presets().items():
        assert text.startswith("#"), name
        Config.preset(name).resolved()


def test_dict_overrides_that_contradict_are_refused_in_either_order():
    # A dict's keys count as set one by one, as "key=value" overrides do: a
    # later key may not silently drop an earlier one over mqsim-default.
    for first, second in (({"ssd.write_cache.capacity_bytes": 8192}, {"ssd.write_buffer_bytes": 0}),
                          ({"ssd.ftl.cmt_bytes": 4096}, {"ssd.ftl.scheme": "page_map"})):
        for a, b in ((first, second), (second, first)):
            with pytest.raises(ConfigError):
                Config.preset("mqsim-default").with_overrides({**a, **b}).resolved()
    # Alone, the later key drops what the preset set under it.
    ssd = Config.preset("mqsim-default").with_overrides({"ssd.write_buffer_bytes": 0}).resolved()["ssd"]
    assert ssd["write_cache"]["capacity_bytes"] == 0
    assert "cmt_bytes" not in Config.preset("mqsim-default").with_overrides({"ssd.ftl.scheme": "page_map"}).resolved()["ssd"]["ftl"]
