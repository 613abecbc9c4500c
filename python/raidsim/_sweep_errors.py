"""The errors of :mod:`raidsim.sweep`, apart from it: the CLI catches them on every command, and
importing the sweep machinery (multiprocessing, the journal, its tables) only to name them would slow
every ``raidsim`` command (issue #14). :mod:`raidsim.sweep` exports them; import them from there."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:
    import pandas as pd


class SweepError(Exception):
    """A sweep could not finish (the CLI exits 3; a wrong spec, :class:`StudyError`, exits 1 as bad input does)."""


class StudyError(SweepError, ValueError):
    """The study spec is wrong; says which key."""


class SweepLocked(SweepError):
    """Another sweep is writing the same output directory."""


class PointsFailed(SweepError):
    """Some points failed; the others finished. ``table`` holds every row, failed ones included."""

    def __init__(self, message: str, table: pd.DataFrame):
        super().__init__(message)
        self.table = table


def check_keys(table: Mapping[str, Any], valid: Sequence[str], where: str, what: str) -> None:
    """Raises :class:`StudyError` naming each key of ``table`` not in ``valid`` (with the nearest valid one);
    ``where`` ends with its own colon ("study.toml:", "study.toml: plots[0]:")."""
    unknown = [k for k in table if k not in valid]
    if unknown:
        hints = [f"`{k}`" + (f" (did you mean `{near[0]}`?)" if (near := difflib.get_close_matches(k, valid, n=1)) else "")
                 for k in unknown]
        raise StudyError(f"{where} unknown {what}{'s' if len(unknown) > 1 else ''} {', '.join(hints)}; "
                         f"valid: {', '.join(valid)}")
