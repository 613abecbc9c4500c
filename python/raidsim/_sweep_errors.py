"""The errors of :mod:`raidsim.sweep`, apart from it: the CLI catches them on every command, and
importing the sweep machinery (multiprocessing, the journal, its tables) only to name them would slow
every ``raidsim`` command (issue #14). :mod:`raidsim.sweep` exports them; import them from there."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
