"""Studies: a question asked of the simulator, written as data and answered by a sweep.

A *study* is a TOML spec (:mod:`raidsim.study.spec`): a base config, named
cases, axes swept across them and the report values (*metrics*) to keep,
with the figures and tables to draw (:mod:`raidsim.study.plot_specs`). Its
*points* are the cases crossed with the axes; each is one simulation.
:func:`run_study` (:mod:`raidsim.study.sweep`) runs them in parallel on this
machine (:mod:`raidsim.study.local`) or on a Ray cluster
(:mod:`raidsim.study.ray`), records each in a journal the moment it finishes
(:mod:`raidsim.study.journal`), so an interrupted sweep resumes where it
stopped (:mod:`raidsim.study.resume`), and writes its results as tables
(:mod:`raidsim.study.results`, :mod:`raidsim.study.long_results`,
:mod:`raidsim.study.replicates`), figures (:mod:`raidsim.study.plots`) and
one HTML page (:mod:`raidsim.study.page`)::

    from raidsim.study import Study, run_study

    table = run_study(Study.from_file("my-study.toml"), "raidsim-out/my-study")

The study layer sits on the core (``simulate``, ``Config``, ``Workload``,
``Report``) and knows nothing of the papers or the tools built on it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Study", "Point", "run_study", "SweepError", "StudyError", "SweepLocked", "AnotherStudysResults",
           "SweepIOError", "PointsFailed"]

_ERRORS = ("SweepError", "StudyError", "SweepLocked", "AnotherStudysResults", "SweepIOError", "PointsFailed")


def __getattr__(name: str) -> Any:
    # Imported when first named: the CLI imports raidsim.study.errors on every command, and loading this
    # package must not load the sweep machinery with it.
    if name in ("Study", "Point"):
        from . import spec as module
    elif name == "run_study":
        from . import sweep as module
    elif name in _ERRORS:
        from . import errors as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(module, name)
