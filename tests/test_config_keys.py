"""`raidsim.keys()` / `raidsim keys`: every config key, held to what the config resolver itself accepts and writes."""

import json
import re
import subprocess
import sys

import pytest

import raidsim
from raidsim.config_keys import unit_of

KEYS = raidsim.keys()
BY_KEY = {(k.key, k.when): k for k in KEYS}
TRACE = 'workload.kind = "trace"'
SYNTHETIC = 'workload.kind = "synthetic"'
FLOWS = 'workload.kind = "flows"'


def _leaves(table, prefix=""):
    for name, value in table.items():
        key = f"{prefix}.{name}" if prefix else name
        if isinstance(value, dict):
            yield from _leaves(value, key)
        else:
            yield key, value


HDD = 'member.kind = "hdd"'
SSD = 'member.kind = "ssd"'


def _base(when):
    cfg = raidsim.Config()
    if when == HDD:
        cfg = cfg.set("member.kind", "hdd")
    if when == TRACE:
        cfg = cfg.set("workload.kind", "trace").set("workload.path", "/any/trace.csv")
    if when == FLOWS:
        cfg = cfg.set("workload.kind", "flows").set("workload.flows", [{}, {}])
    return cfg


def test_every_resolved_key_is_listed_with_the_resolvers_default():
    # The resolver's own output (the default config, written in full) is the oracle for the defaults.
    for when in (None, TRACE, HDD, FLOWS):
        resolved = _base(when).resolved()
        resolved.pop("derived")
        listed = {k.key: k for k in KEYS if k.when in {None: (None, SYNTHETIC, SSD), TRACE: (None, TRACE, SSD),
                                                       HDD: (None, SYNTHETIC, HDD), FLOWS: (None, FLOWS, SSD)}[when]}
        for key, value in _leaves(resolved):
            if key in ("workload.kind", "workload.path", "member.kind", "workload.flows"):  # what the bases set
                continue
            assert key in listed, f"{key} is in the resolved config but not in raidsim.keys()"
            assert listed[key].default == value, f"{key}: listed default {listed[key].default!r}, resolver {value!r}"


def test_setting_every_key_to_its_listed_default_changes_nothing():
    scalar = [k for k in KEYS if k.default is not None and not isinstance(k.default, (list, dict))
              and "[]" not in k.key and k.key not in ("workload.kind", "workload.path") and k.when != 'workload.kind = "requests"']
    assert len(scalar) > 100
    for k in scalar:
        base = _base(k.when)
        assert base.set(k.key, k.default).resolved_toml() == base.resolved_toml(), k.key


def test_choices_are_exactly_what_the_resolver_accepts():
    with_choices = [k for k in KEYS if k.choices and "[]" not in k.key and k.key != "workload.kind"]
    assert {"array.level", "array.stripe_order", "member.kind", "workload.format"} <= {k.key for k in with_choices}
    for k in with_choices:
        with pytest.raises(raidsim.ConfigError) as e:
            _base(k.when).set(k.key, "no_such_choice").resolved_toml()
        # serde's own list: "expected one of `a`, `b`, `c`" or "expected `a` or `b`".
        expected = str(e.value).split("unknown variant `no_such_choice`, expected", 1)[1].split("\n")[0]
        assert set(re.findall(r"`([^`]*)`", expected)) == set(k.choices), k.key


def test_tagged_tables_list_each_kinds_keys_once():
    kind = BY_KEY[("workload.kind", None)]
    assert kind.choices == ("synthetic", "trace", "flows", "requests") and kind.default == "synthetic"
    assert BY_KEY[("workload.path", TRACE)].type == "string"
    assert BY_KEY[("workload.format", TRACE)].type == "string or null"
    assert ("workload.path", None) not in BY_KEY
    assert len(BY_KEY) == len(KEYS), "a key is listed twice for the same kind"


def test_list_entries_keys():
    failures = {k.key: k for k in raidsim.keys("array.failures")}
    assert {"array.failures", "array.failures[].member", "array.failures[].at_ns", "array.failures[].chip"} <= set(failures)
    assert failures["array.failures[].at_ns"].unit == "ns"


@pytest.mark.parametrize("name, unit", [
    ("ssd.timing.t_read_ns", "ns"), ("array.stripe_unit_bytes", "bytes"),
    ("ssd.timing.host_link_bandwidth_bytes_per_s", "bytes/s"), ("precondition.fill_fraction", "fraction (0-1)"),
    ("array.controller.price_usd", "USD"), ("hdd.rpm", "revolutions/min"), ("array.members", ""), ("sim.seed", ""),
])
def test_unit_from_the_name(name, unit):
    assert unit_of(name) == unit


def test_every_key_has_a_doc():
    assert [k.key for k in KEYS if not k.doc] == []


def test_prefix_and_unknown_prefix():
    assert {k.key for k in raidsim.keys("ssd.timing")} == {k.key for k in KEYS if k.key.startswith("ssd.timing.")}
    with pytest.raises(raidsim.ConfigError, match="top-level tables: array, hdd"):
        raidsim.keys("array.stripe")  # a prefix of a name, not a table


def test_cli_json_and_text():
    out = subprocess.run([sys.executable, "-m", "raidsim.cli", "keys", "array.level", "--json"],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [BY_KEY[("array.level", None)].to_dict()]
    text = subprocess.run([sys.executable, "-m", "raidsim.cli", "keys", "array.stripe_unit_bytes"],
                          capture_output=True, text=True, check=True).stdout
    assert text.splitlines()[0] == "array.stripe_unit_bytes (integer [bytes]) = 65536"
    bad = subprocess.run([sys.executable, "-m", "raidsim.cli", "keys", "nope"], capture_output=True, text=True)
    assert bad.returncode != 0 and "no config key" in bad.stderr and "Traceback" not in bad.stderr


def test_a_unit_belongs_to_a_number():
    # `workload.requests` counts requests for synthetic work; for `requests` it is the list of them, no unit.
    assert BY_KEY[("workload.requests", SYNTHETIC)].unit == "requests"
    listed = BY_KEY[("workload.requests", 'workload.kind = "requests"')]
    assert listed.type == "list of list of values" and listed.unit == ""
    assert "workload.requests (list of list of values) = null" in raidsim.config_keys.keys_text([listed])


def test_a_list_entrys_required_field_says_so_and_the_resolver_agrees():
    text = raidsim.config_keys.keys_text(raidsim.keys("array.failures") + raidsim.keys("hdd.zones"))
    for key in ("array.failures[].member (integer)", "hdd.zones[].cylinders (integer)",
                "hdd.zones[].sectors_per_track (integer)"):
        assert f"{key}: required in each entry" in text
    assert "array.failures[].at_ns (integer or null [ns]) = null" in text  # optional: null is its default
    with pytest.raises(raidsim.ConfigError, match="missing field `member`"):
        raidsim.Config().set("array.failures", [{"at_ns": 0}]).resolved()
    with pytest.raises(raidsim.ConfigError, match="missing field `sectors_per_track`"):
        raidsim.Config().set("member.kind", "hdd").set("hdd.zones", [{"cylinders": 949}]).resolved()
