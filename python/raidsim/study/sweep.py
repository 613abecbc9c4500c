"""Running a study: every point of its spec, in parallel processes or on a Ray cluster, trusted after any stop.

:func:`run_study` resolves every point's config (a wrong one fails before
anything runs), checks the metrics on probes, and runs the points that have
no current row in the output directory, locally (:mod:`raidsim.study.local`)
or on a Ray cluster (:mod:`raidsim.study.ray`). Results are meant to be
trusted after any interruption:

* each finished point is appended to ``points.jsonl`` at once (one
  checksummed line, fsynced: :mod:`raidsim.study.journal`), so a kill loses
  at most the points running;
* a point is reused only if its *fingerprint* -- the resolved config, the
  trace file's identity, the metrics and the raidsim build -- is unchanged;
  failed, changed and damaged points run again (:mod:`raidsim.study.resume`);
* a failing point is recorded (``status`` = ``failed`` with its ``error``)
  and the others still run; :class:`PointsFailed` is raised at the end;
* ``results.csv`` (ordered as the points are) and ``results.parquet`` are
  rebuilt from the journal, each replaced atomically, as are their long
  forms ``results_long.csv`` and ``results_long.parquet`` (one row per point,
  metric and member: :mod:`raidsim.study.results`) and the report page
  (:mod:`raidsim.study.page`); each point's resolved config goes to
  ``configs/``;
* one sweep at a time may write an output directory (an exclusive lock),
  and a directory holds one study's points: another study's sweep into it
  is refused (:class:`AnotherStudysResults`) unless ``overwrite=True``;
* a file that cannot be written (a full disk) stops the sweep with
  :class:`SweepIOError` naming it, the journal kept for a rerun.
"""

from __future__ import annotations

import os
import tomllib
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

from .. import _atomic, _native, _progress
from . import local, page, ray, results
from .errors import PointsFailed, StudyError, SweepIOError
from .journal import JOURNAL, Journal, fingerprint
from .metrics import check_metrics, check_report_specs
from .resume import locked, plural, points_to_run
from .spec import Point, Study

if TYPE_CHECKING:
    import pandas as pd


def run_study(
    study: Study,
    out_dir: str | os.PathLike,
    *,
    workers: Optional[int] = None,
    ray_address: Optional[str] = None,
    progress: Optional[bool] = None,
    report: Optional[bool] = None,
    overwrite: bool = False,
) -> pd.DataFrame:
    """Runs every point without a current row in ``out_dir``; returns all rows, in point order.

    ``report``: also draw the study's plots and tables and write ``report.html``
    (:mod:`raidsim.study.page`), reused points included; by default when the
    study declares plots or tables, or ``out_dir`` holds a page of an earlier
    run (kept in step with the results). What it wrote is the returned table's
    ``attrs["report"]`` (a :class:`raidsim.study.page.StudyReport`). A page
    of an earlier run is removed before any point runs, so an interrupted
    run leaves none that describes other results.

    ``overwrite``: ``out_dir`` may hold another study's points, which are
    then discarded; without it that is :class:`AnotherStudysResults`, before
    anything is written. (This study's own finished points are reused
    either way.)

    Raises :class:`PointsFailed` after every other point has finished if any
    point failed (the report is written first), :class:`SweepLocked` if
    another sweep holds ``out_dir``, :class:`SweepIOError` naming the file
    if one could not be read or written (a full disk): the journal keeps
    the finished points, and a rerun runs the rest.
    """
    out = os.fspath(out_dir)
    try:
        return _run_study(study, out, workers, ray_address, progress, report, overwrite)
    except OSError as e:
        # Not bad input: the sweep could not finish (the CLI's exit 3), and what finished is kept.
        raise SweepIOError(f"study {study.name} could not finish: {e}; every point that finished is kept in "
                           f"{os.path.join(out, JOURNAL)}: make room (or fix the permissions) and run the same "
                           "command for the rest") from e


def _run_study(study: Study, out: str, workers: Optional[int], ray_address: Optional[str],
               progress: Optional[bool], report: Optional[bool], overwrite: bool) -> pd.DataFrame:
    os.makedirs(os.path.join(out, "configs"), exist_ok=True)
    with locked(out):
        points = study.points()
        prints = [fingerprint(toml, study.metrics) for toml in _resolve_all(study, points)]
        check_metrics(study, points)
        check_report_specs(study)
        journal = Journal(os.path.join(out, JOURNAL))
        todo = points_to_run(journal, study, points, prints, out, overwrite)
        # A page already there is kept in step with the results, asked for or not; one that points about to
        # run would outdate goes now, so an interrupted or unreported run leaves none describing other results.
        render = report if report is not None else bool(study.plots or study.tables) or os.path.exists(
            os.path.join(out, page.PAGE))
        if todo:
            page.remove(out)
        try:
            _run_points(study, [(points[i], prints[i]) for i in todo], journal, out, workers, ray_address, progress)
        finally:
            # Also after Ctrl-C or a crash: the tables show every point that finished.
            table, long = results.write(out, study, points, journal)
        # Not after Ctrl-C (the `finally` above re-raises it): a page of half the points would pass for the study.
        if render:
            table.attrs["report"] = page.render(study, out, points, journal.records, _atomic.replace_atomically,
                                                long.left_out)
    _raise_if_failed(study, points, journal, table, out)
    return table


def _resolve_all(study: Study, points: Sequence[Point]) -> List[str]:
    """Every point's resolved config; validates them all before any runs."""
    out = []
    for p in points:
        try:
            out.append(study.config(p).resolved_toml())
        except _native.RaidsimError as e:
            raise type(e)(f"study {study.name}, point {p.label}: {e}") from None
        if tomllib.loads(out[-1])["metrics"]["request_log"]:
            # A point runs in a worker whose files are not the sweep's results; one log a run is `raidsim run`'s.
            raise StudyError(f"study {study.name}, point {p.label}: metrics.request_log is for one run, and a sweep "
                             "writes no request logs: run the point you want logged with `raidsim run`")
    return out


def _run_points(study: Study, jobs: Sequence[Tuple[Point, str]], journal: Journal, out: str,
                workers: Optional[int], ray_address: Optional[str], progress: Optional[bool]) -> None:
    """Runs the jobs, recording each point in the journal the moment it finishes."""
    bar = _progress_bar(study.name, len(jobs), progress)
    tasks = [(i, study.config(p).layers) for i, (p, _) in enumerate(jobs)]
    finished = _execute(tasks, study.metrics, workers, ray_address)
    try:
        for i, row in finished:
            p, fp = jobs[i]
            error = row.pop("_error", None)
            warnings = row.pop("_warnings", [])
            if error is None:
                config_toml = row.pop("_config_toml")
                path = os.path.join(out, "configs", f"{p.point_id}.toml")
                _atomic.write_text(path, config_toml)
            # The journal line last: it is the mark that the point, and its config file, are done.
            # `study`: whose point this is, so that another study's sweep into this directory is refused.
            journal.append({"point_id": p.point_id, "study": study.name, "case": p.case, "settings": p.settings,
                            "fingerprint": fp, "status": "ok" if error is None else "failed", "error": error,
                            "values": row, "warnings": warnings})
            if bar is not None:
                bar.update(1)
    finally:
        # Now, not when the garbage is collected: an error here (the journal's disk full) stops the
        # workers and cancels the points still out on a cluster.
        finished.close()
        if bar is not None:
            bar.close()


def _progress_bar(name: str, total: int, progress: Optional[bool]):
    if not total or not (progress if progress is not None else _progress.interactive()):
        return None
    return _progress.bar(total=total, desc=name, unit="point")


def _execute(jobs: Sequence, metrics: List[str], workers: Optional[int], ray_address: Optional[str]):
    """Yields ``(key, row)`` as points finish; jobs are ``(key, config layers)``."""
    if not jobs:
        return  # every point is done: no pool to start, no cluster to reach (a rerun works offline)
    if ray_address is None:
        yield from local.execute(jobs, metrics, workers)
        return
    yield from ray.execute(jobs, metrics, ray_address)


def _raise_if_failed(study: Study, points: Sequence[Point], journal: Journal, table: pd.DataFrame, out: str) -> None:
    failed = [p for p in points if journal.records.get(p.point_id, {}).get("status") == "failed"]
    if failed:
        lines = [f"  {p.label}: {journal.records[p.point_id]['error']}" for p in failed]
        raise PointsFailed(f"study {study.name}: {len(failed)} of {plural(len(points), 'point')} failed "
                           f"(status=failed in {out}/results.csv; a rerun retries them):\n" + "\n".join(lines), table)
