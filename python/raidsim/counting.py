"""Counting mode: the array planner without timing, for exact page counts."""

from __future__ import annotations

import html
import json
import time
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Union

from . import _native, _text_table
from .config import Config
from .api import run_in_slices
from .workload import Workload

if TYPE_CHECKING:
    # Imported where a DataFrame is made: `import raidsim` does without pandas (issue #14).
    import pandas as pd

#: Requests planned per call into the core (well under a second each).
_REQUESTS_PER_STEP = 200_000


class CountReport:
    """Exact page counts per member and cause (``to_dict()`` is the JSON the core wrote)."""

    def __init__(self, data: Dict[str, Any]):
        self._data = data

    def to_dict(self) -> Dict[str, Any]:
        return self._data

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self._data, indent=indent)

    def __repr__(self) -> str:
        members = self._data["members"]
        read = sum(sum(m["pages_read"].values()) for m in members)
        written = sum(sum(m["pages_written"].values()) for m in members)
        return (f"<CountReport {len(members)} member{'s' if len(members) != 1 else ''}: {read:,} pages read "
                f"({sum(self.extra_page_reads()):,} pre-reads), {written:,} pages written>")

    def _repr_html_(self) -> str:
        """Jupyter's view: pages read and written per member and cause."""
        return f"<p>{html.escape(repr(self))}</p>" + self.pages().to_html()

    def pages(self) -> pd.DataFrame:
        """One row per member: pages read and written by cause."""
        import pandas as pd

        rows = []
        for m in self._data["members"]:
            row: Dict[str, Any] = {"member": m["member"]}
            row.update({f"read.{c}": n for c, n in m["pages_read"].items()})
            row.update({f"written.{c}": n for c, n in m["pages_written"].items()})
            rows.append(row)
        return pd.DataFrame(rows).set_index("member").fillna(0).astype(int)

    def extra_page_reads(self) -> List[int]:
        """Pre-read pages (RMW + RCW) per member: the stripe-unit paper's Table 3 quantity."""
        return [m["pages_read"].get("pre_read_rmw", 0) + m["pages_read"].get("pre_read_rcw", 0) for m in self._data["members"]]

    def pages_written(self) -> List[int]:
        """All pages written per member: the stripe-unit paper's Table 4 quantity."""
        return [sum(m["pages_written"].values()) for m in self._data["members"]]

    @property
    def warnings(self) -> List[str]:
        """What changed the workload being counted (trace requests wrapped to fit the capacity)."""
        return list(self._data.get("warnings", []))

    def to_text(self, width: Optional[int] = None) -> str:
        """Pages read and written per member and cause, a column per member as ``raidsim run`` lays out its
        devices (cut into blocks of members at ``width`` characters), then the warnings."""
        rows = [{"device": f"member[{m['member']}]", **{f"read.{c}": n for c, n in m["pages_read"].items()},
                 **{f"written.{c}": n for c, n in m["pages_written"].items()}} for m in self._data["members"]]
        text = _text_table.transposed(rows, index="device", width=width) if rows else "no members"
        return text + "".join(f"\nwarning: {w}" for w in self.warnings)

    def __str__(self) -> str:
        return self.to_text()


def count(
    config: Union[Config, str, Mapping[str, Any], None] = None,
    workload: Optional[Union[Workload, Mapping[str, Any]]] = None,
    *,
    overrides: Optional[Union[Mapping[str, Any], List[str]]] = None,
) -> CountReport:
    """Plans every request of the workload without timing; exact page counts by member and cause.

    ``workload`` replaces the config's ``[workload]``; ``overrides`` apply last, on top of it.

    >>> r = count({"array": {"level": "raid4", "members": 5, "stripe_unit_bytes": 4096}},
    ...           Workload.requests([(0, "W", 4096, 524288)]))
    >>> r.extra_page_reads(), r.pages_written()
    ([2, 0, 0, 0, 1], [32, 32, 32, 32, 33])
    """
    cfg = Config.load(config).with_workload(workload).with_overrides(overrides)
    counting = _native.Counting(cfg.layers)
    run_in_slices(lambda: counting.step(_REQUESTS_PER_STEP), "counting", None, time.monotonic())
    return CountReport(json.loads(counting.report_json()))
