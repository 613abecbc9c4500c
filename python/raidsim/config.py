"""Configurations: layers (preset, TOML file, dict) plus dotted overrides.

Every default and every check lives in the Rust core (``raidsim-core``'s
``config`` module); a :class:`Config` only records how to build the raw
table, and asks the core to validate it.
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from typing import Any, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

from . import _native
from ._native import ConfigError

Layer = Tuple[str, str]


def _nested(key: Any, value: Any) -> dict:
    # A key that is not a string would otherwise fail deep inside as an AttributeError.
    if not isinstance(key, str):
        raise ConfigError(f"a config key is a dotted string such as \"ssd.queue_depth\", got {key!r}")
    out: dict = {}
    node = out
    parts = key.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out


def _toml_problem(value: Any) -> Optional[str]:
    """Why ``value`` has no TOML form, or None. JSON would carry these over
    (null, NaN, integers past 64 bits) and the core could then only say the
    whole dict was not a table; here the key can be named."""
    if value is None:
        return "None is not a TOML value (TOML has no null: leave the key out for its default)"
    if isinstance(value, bool) or isinstance(value, str):
        return None
    if isinstance(value, int):
        return None if -2**63 <= value < 2**63 else f"{value} does not fit in TOML's signed 64-bit integers"
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value} is not a finite number"
    if isinstance(value, Mapping):
        return next((p for p in map(_toml_problem, value.values()) if p), None)
    if isinstance(value, (list, tuple)):
        return next((p for p in map(_toml_problem, value) if p), None)
    return None  # json.dumps below names what it cannot encode


def _problem_in(table: Any, prefix: str) -> Optional[Tuple[str, str]]:
    """The dotted key of the first value in a nested table that has no TOML form, and why."""
    if not isinstance(table, Mapping):
        problem = _toml_problem(table)
        return (prefix or "<root>", problem) if problem else None
    for key, value in table.items():
        found = _problem_in(value, f"{prefix}.{key}" if prefix else str(key))
        if found:
            return found
    return None


def _path_value(value: Any) -> Any:
    """A path (``pathlib.Path``) as a config value: its text, or the list of its bytes when it is not UTF-8."""
    if isinstance(value, os.PathLike):
        path = os.fsencode(value)
        try:
            return path.decode("utf-8")
        except UnicodeDecodeError:
            return list(path)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _json_layer(key: Any, value: Any) -> Layer:
    # A nested table's bad value is named by its whole dotted key (`ssd.timing.t_read_ns`, not `ssd`).
    found = _problem_in(value, str(key))
    if found:
        raise ConfigError(f"config error at `{found[0]}`: {found[1]}")
    table = _nested(key, value)
    try:
        # "override": its keys count as set one by one, as a "key=value" override's do.
        return ("override", json.dumps(table, allow_nan=False, default=_path_value))
    except (TypeError, ValueError) as e:  # e.g. a set or an arbitrary object
        raise ConfigError(f"config key `{key}`: {value!r} is not a TOML value ({e})") from None


def _set_layer(override: Any) -> Layer:
    if not isinstance(override, str):
        raise ConfigError(f"an override is a \"key=value\" string, got {override!r}")
    return ("set", override)


def _layer_text(kind: str, text: str) -> str:
    if kind == "preset":
        return f"preset {text}"
    if kind == "set":
        return text
    if kind in ("json", "override"):
        return ", ".join(f"{k} = {json.dumps(v)}" for k, v in _flat(json.loads(text)))
    if kind == "file":
        return f"file {text}"
    if kind == "toml":
        try:
            return ", ".join(f"{k} = {json.dumps(v)}" for k, v in _flat(tomllib.loads(text))) or "empty TOML"
        except (tomllib.TOMLDecodeError, TypeError):  # shown as given; resolving it says what is wrong
            return f"TOML {text[:60]!r}"
    return f"{kind} layer ({len(text)} characters)"


def _flat(table: Mapping[str, Any], prefix: str = "") -> Iterator[Tuple[str, Any]]:
    for k, v in table.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict) and v:
            yield from _flat(v, key)
        elif isinstance(v, list) and len(v) > 8:
            yield key, f"<{len(v)} items>"
        else:
            yield key, v


class Config:
    """An immutable stack of configuration layers, applied in order.

    >>> c = Config.preset("stripe-unit-table5").set("ssd.queue_depth", 8)
    >>> c.resolved()["ssd"]["queue_depth"]
    8
    """

    def __init__(self, layers: Iterable[Layer] = ()):
        self._layers: List[Layer] = list(layers)

    @classmethod
    def preset(cls, name: str) -> "Config":
        """A packaged preset (see :func:`raidsim.presets`)."""
        if not isinstance(name, str):  # the core takes a string: anything else would be a TypeError on the way in
            raise ConfigError(f"a preset is named by a string (see `raidsim presets`), got {name!r}")
        return cls([("preset", name)])

    @classmethod
    def from_file(cls, path: Union[str, os.PathLike]) -> "Config":
        """A TOML file."""
        return cls([("file", os.fspath(path))])

    @classmethod
    def from_dict(cls, table: Mapping[str, Any]) -> "Config":
        """A nested dict, as the TOML would be."""
        found = _problem_in(table, "")
        if found:
            raise ConfigError(f"config error at `{found[0]}`: {found[1]}")
        try:
            return cls([("json", json.dumps(table, allow_nan=False))])
        except (TypeError, ValueError) as e:  # e.g. a datetime from TOML, or a set
            raise ConfigError(f"a config table holds a value that is not a config value ({e})") from None

    @classmethod
    def from_toml(cls, text: str) -> "Config":
        """TOML text."""
        return cls([("toml", text)])

    @classmethod
    def load(cls, source: Union["Config", str, os.PathLike, Mapping[str, Any], None]) -> "Config":
        """A Config from a Config, a preset name, a TOML path, a dict or None (defaults)."""
        if source is None:
            return cls()
        if isinstance(source, Config):
            return source
        if isinstance(source, Mapping):
            return cls.from_dict(source)
        text = os.fspath(source)
        if text.endswith(".toml") or os.sep in text or os.path.exists(text):
            return cls.from_file(text)
        return cls.preset(text)

    def set(self, key: str, value: Any) -> "Config":
        """A copy with ``key`` (dotted) set to ``value``."""
        return Config(self._layers + [_json_layer(key, value)])

    def with_overrides(self, overrides: Union[Mapping[str, Any], Iterable[str], None]) -> "Config":
        """A copy with overrides: a dict of dotted keys to values, or ``"key=value"`` strings."""
        if not overrides:
            return self
        if isinstance(overrides, Mapping):
            layers = [_json_layer(k, v) for k, v in overrides.items()]
        else:
            # One "key=value" string is one override, not a list of its characters.
            layers = [_set_layer(s) for s in ([overrides] if isinstance(overrides, str) else overrides)]
        return Config(self._layers + layers)

    def with_workload(self, workload: Any) -> "Config":
        """A copy whose ``[workload]`` table is replaced (not merged) by ``workload``."""
        if workload is None:
            return self
        table = workload.to_dict() if hasattr(workload, "to_dict") else dict(workload)
        found = _problem_in(table, "workload")
        if found:
            raise ConfigError(f"config error at `{found[0]}`: {found[1]}")
        try:
            return Config(self._layers + [("workload", json.dumps(table, allow_nan=False))])
        except (TypeError, ValueError) as e:
            raise ConfigError(f"[workload]: a value is not a TOML value ({e})") from None

    @property
    def layers(self) -> List[Layer]:
        """The layers, for the native core."""
        return list(self._layers)

    def resolved_toml(self) -> str:
        """The validated configuration with every default filled in, sorted TOML."""
        return _native.resolve_config(self._layers)

    def resolved(self) -> dict:
        """The validated configuration as a dict."""
        return tomllib.loads(self.resolved_toml())

    def __repr__(self) -> str:
        # Layers as one reads them ("preset x", then each setting in order), not as the core takes them.
        shown = [_layer_text(kind, text) for kind, text in self._layers]
        return f"Config({'; '.join(shown) if shown else 'defaults'})"
