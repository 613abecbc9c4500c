"""Every config key, with its unit, default and doc, from the Rust declarations.

The core's config structs (``crates/raidsim-core/src/config``) are the one
place a parameter is declared: its name carries its unit, its doc comment
says what it means, its ``Default`` gives its value. The core derives a JSON
Schema from them (``schemars``); this module flattens that schema into dotted
keys, the ones ``--set`` and study files use::

    >>> import raidsim
    >>> k = {e.key: e for e in raidsim.keys()}
    >>> k["array.stripe_unit_bytes"].unit
    'bytes'

A key that exists only for one kind of a tagged table (``workload.kind =
"trace"``) says so in ``when``. Units come from the name's suffix (the
project's rule: ``_bytes``, ``_ns``, ``_fraction``...); a key whose name
carries none (a count, a name, a switch) has the unit ``""``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import _native

# Name suffix -> unit, longest suffix first so `_bytes_per_s` wins over `_s`.
UNIT_SUFFIXES: Tuple[Tuple[str, str], ...] = (
    ("_bytes_per_s", "bytes/s"),
    ("_bytes", "bytes"),
    ("_ns", "ns"),
    ("_fraction", "fraction (0-1)"),
    ("_usd", "USD"),
    ("_requests", "requests"),
    ("rpm", "revolutions/min"),
)


# The resolver takes `[ssd]` or `[hdd]` only for members of that kind (and refuses the other table).
MEMBER_TABLES = {"ssd": 'member.kind = "ssd"', "hdd": 'member.kind = "hdd"'}


@dataclass(frozen=True)
class Key:
    """One config key: dotted name, type, default, unit, doc, allowed values and the kind it applies to."""

    key: str
    type: str
    default: Any
    unit: str
    doc: str
    choices: Optional[Tuple[str, ...]] = None
    when: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        d = asdict(self)
        d["choices"] = list(self.choices) if self.choices is not None else None
        return d


def unit_of(name: str) -> str:
    """The unit a key's last component names (``""`` when it names none)."""
    leaf = name.rsplit(".", 1)[-1]
    for suffix, unit in UNIT_SUFFIXES:
        if leaf == suffix.lstrip("_") or leaf.endswith(suffix):
            return unit
    return ""


def keys(prefix: str = "") -> List[Key]:
    """Every config key (those starting with ``prefix``), in declaration-sorted order."""
    schema = json.loads(_native.config_schema())
    flat = _Flattener(schema["$defs"])
    found = [key for name, sub in sorted(schema["properties"].items())
             for key in flat.walk(sub, name, sub.get("default"), MEMBER_TABLES.get(name))]
    chosen = [k for k in found if _under(k.key, prefix.rstrip("."))] if prefix else found
    if not chosen:
        tops = sorted({k.key.split(".")[0] for k in found})
        raise _native.ConfigError(f"no config key is or lies under `{prefix}` (top-level tables: {', '.join(tops)})")
    return chosen


def _under(key: str, prefix: str) -> bool:
    return key == prefix or key.startswith((prefix + ".", prefix + "[]"))


class _Flattener:
    """Walks the schema: objects become prefixes, everything else a key."""

    def __init__(self, defs: Dict[str, Any]):
        self.defs = defs

    def resolve(self, node: Dict[str, Any]) -> Dict[str, Any]:
        ref = node.get("$ref")
        if ref is None:
            return node
        name = ref.rsplit("/", 1)[-1]
        if name not in self.defs:
            raise RuntimeError(f"config schema: `{ref}` names no definition (a raidsim bug)")
        return {**self.defs[name], **{k: v for k, v in node.items() if k != "$ref"}}

    def walk(self, node: Dict[str, Any], prefix: str, default: Any, when: Optional[str]) -> Iterator[Key]:
        node = self.resolve(node)
        if "properties" in node:
            yield from self.fields(node, prefix, default, when)
        elif _is_tagged(node, self):
            yield from self.variants(node, prefix, default, when)
        else:
            yield self.leaf(node, prefix, default, when)
            items = node.get("items")
            if node.get("type") == "array" and isinstance(items, dict) and "properties" in self.resolve(items):
                # A list of tables (`array.failures`): each entry's keys, as `array.failures[].at_ns`.
                yield from self.fields(self.resolve(items), prefix + "[]", None, when)

    def fields(self, node: Dict[str, Any], prefix: str, default: Any, when: Optional[str]) -> Iterator[Key]:
        for name, sub in sorted(node["properties"].items()):
            key = f"{prefix}.{name}" if prefix else name
            # The enclosing table's default wins: a parent may default a child unlike the child's own Default.
            sub_default = default[name] if isinstance(default, dict) and name in default else sub.get("default")
            yield from self.walk(sub, key, sub_default, when)

    def variants(self, node: Dict[str, Any], prefix: str, default: Any, when: Optional[str]) -> Iterator[Key]:
        kinds = []
        for alt in node["oneOf"]:
            alt = self.resolve(alt)
            kind = alt["properties"]["kind"]["const"]
            kinds.append(kind)
            alt_default = default if isinstance(default, dict) and default.get("kind") == kind else None
            fields = {k: v for k, v in alt["properties"].items() if k != "kind"}
            yield from self.fields({"properties": fields}, prefix, alt_default, f"{prefix}.kind = \"{kind}\"")
        kind_default = default.get("kind") if isinstance(default, dict) else None
        yield Key(f"{prefix}.kind", "string", kind_default, "", node.get("description", "").strip(),
                  tuple(kinds), when)

    def leaf(self, node: Dict[str, Any], key: str, default: Any, when: Optional[str]) -> Key:
        doc = " ".join(node.get("description", "").split())
        optional = ""
        alts = node.get("anyOf") or []
        if len(alts) == 2 and {"type": "null"} in alts:  # Option<T>: T, or absent
            node = self.resolve(next(a for a in alts if a != {"type": "null"}))
            optional = " or null"
        choices = self.choices(node)
        kind = "string" if choices else _type_name(node, self)
        # A unit is a number's: `workload.requests` is a count for synthetic work but, for `requests`, a list of
        # [time_ns, op, offset_bytes, len_bytes] entries, which no one unit describes.
        numeric = kind.replace(" or null", "") in ("integer", "number", "list of integer", "list of number")
        return Key(key, kind + optional, default, unit_of(key) if numeric else "", doc, choices, when)

    def choices(self, node: Dict[str, Any]) -> Optional[Tuple[str, ...]]:
        if "enum" in node:
            return tuple(node["enum"])
        alts = node.get("oneOf")
        if alts and all("const" in self.resolve(a) or "enum" in self.resolve(a) for a in alts):
            out: List[str] = []
            for a in alts:
                a = self.resolve(a)
                out += [a["const"]] if "const" in a else list(a["enum"])
            return tuple(out)
        return None


def _is_tagged(node: Dict[str, Any], flat: _Flattener) -> bool:
    alts = node.get("oneOf") or []
    return bool(alts) and all("kind" in flat.resolve(a).get("properties", {}) for a in alts)


def _type_name(node: Dict[str, Any], flat: _Flattener) -> str:
    t = node.get("type")
    if isinstance(t, list):  # Option<T>: ["integer", "null"]
        t = [x for x in t if x != "null"]
        return (t[0] if t else "null") + " or null"
    if t == "array":
        items = node.get("items")
        return f"list of {_type_name(flat.resolve(items), flat) if isinstance(items, dict) else 'values'}"
    if t is None:
        raise RuntimeError(f"config schema: no type for {json.dumps(node)[:200]} (a raidsim bug)")
    return t


def keys_text(found: List[Key]) -> str:
    """One block per key: name, type, unit, default, then its doc (and choices, and the kind it needs)."""
    lines = []
    for k in found:
        unit = f" [{k.unit}]" if k.unit else ""
        if k.default is None and "[]" in k.key and not k.type.endswith(" or null"):
            # A list entry's field with no default that cannot be null: each entry must set it (not "= null").
            lines.append(f"{k.key} ({k.type}{unit}): required in each entry")
        else:
            lines.append(f"{k.key} ({k.type}{unit}) = {json.dumps(k.default)}")
        if k.when:
            lines.append(f"    only when {k.when}")
        if k.choices:
            lines.append(f"    one of: {', '.join(k.choices)}")
        if k.doc:
            lines.append(f"    {k.doc}")
    return "\n".join(lines)
