"""What can go wrong with a study: a wrong spec, or a sweep that could not finish.

Every error here is a :class:`raidsim.RaidsimError`. :class:`StudyError` is
bad input (a spec naming a key, metric or axis that is not there), found
before anything runs, and a ``ValueError`` too; every other
:class:`SweepError` means a sweep could not finish: points failed, another
sweep holds the output directory, a file could not be written, or the
directory holds another study's results. The command line tells them apart
by their exit status. Light on purpose: the CLI imports this module on
every command, without the sweep machinery.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from .._native import RaidsimError

if TYPE_CHECKING:
    import pandas as pd


class SweepError(RaidsimError):
    """A sweep could not finish (the CLI exits 3; a wrong spec, :class:`StudyError`, exits 1 as bad input does)."""


class StudyError(SweepError, ValueError):
    """The study spec is wrong; says which key."""


class SweepLocked(SweepError):
    """Another sweep is writing the same output directory."""


class AnotherStudysResults(SweepError):
    """The output directory holds the finished points of another study: running this one there would
    discard them, so it is refused unless asked to overwrite (the CLI exits 2: a wrong --out)."""

    def __init__(self, out: str, found: Optional[str], points: int, wanted: str, journal: str):
        self.out, self.found, self.points, self.wanted = out, found, points, wanted
        study = f"study `{found}`" if found else "another study (its rows do not name it; none is a point of this one)"
        super().__init__(f"{out} holds the results of {study}: {points} finished point{'s' if points != 1 else ''} "
                         f"in {journal}, which running study `{wanted}` there would discard")


class SweepIOError(SweepError):
    """The sweep could not read or write its output directory (a full disk, permissions): it could not
    finish, and the journal keeps every point that did (a rerun runs the rest)."""


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
