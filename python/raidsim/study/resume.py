"""Picking a sweep up where it stopped: one sweep per output directory, and which points run again.

A sweep holds an exclusive lock on its output directory while it runs
(:func:`locked`: ``flock``, which the kernel drops when its holder dies,
even by ``kill -9``), so two sweeps never interleave their journals. On
start it reads the journal (:mod:`raidsim.study.journal`) and runs only the
points without a current, successful row: failed points, points whose
fingerprint changed, and points the journal lacks; it says on stderr why
each group runs again, and drops rows of points the study no longer has.

A directory holds one study's points: a journal of another study's is
refused (:class:`AnotherStudysResults`) rather than discarded, unless the
caller asks to overwrite it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from typing import Any, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

from .errors import AnotherStudysResults, SweepLocked
from .journal import JOURNAL, Journal
from .spec import Point, Study

LOCK = ".sweep.lock"


@contextlib.contextmanager
def locked(out: str) -> Iterator[None]:
    # flock, not a pid file: the kernel drops the lock when its holder dies, even by kill -9.
    path = os.path.join(out, LOCK)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SweepLocked(f"{out} is in use by another sweep (it holds {path}); "
                              "wait for it to finish or choose another --out") from None
        yield
    finally:
        os.close(fd)


def points_to_run(journal: Journal, study: Study, points: Sequence[Point], prints: Sequence[str], out: str,
                  overwrite: bool) -> List[int]:
    """Indices of the points to run: those without a current, successful row. Says why on stderr."""
    had_journal = os.path.exists(journal.path)
    rejected = journal.load()
    _claim(journal, study, points, out, overwrite)
    last = [journal.records.get(p.point_id) for p in points]
    todo = [i for i, r in enumerate(last) if not (r and r["fingerprint"] == prints[i] and r["status"] == "ok")]
    ids = {p.point_id for p in points}
    gone = sum(1 for k in journal.records if k not in ids)
    journal.keep({points[i].point_id for i in set(range(len(points))) - set(todo)}, rewrite=rejected > 0)
    # The study was edited (same name): its rows of points it no longer has go, said rather than silently.
    say(gone, f"{plural(gone, 'finished point')} of the last run of study {study.name} in {out} "
              f"{'is' if gone == 1 else 'are'} no longer in the study: dropped from the results")
    changed = sum(1 for i in todo if last[i] and last[i]["fingerprint"] != prints[i])
    say(rejected, f"{journal.path}: {plural(rejected, 'incomplete or corrupt row')} ignored; their points run again")
    say(changed, f"{plural(changed, 'point')} changed since the last run: recomputing")
    failed = sum(1 for i in todo if last[i]) - changed
    say(failed, f"{plural(failed, 'point')} failed in the last run: retrying")
    say(not had_journal and os.path.exists(os.path.join(out, "results.csv")),
        f"{out}/results.csv has no {JOURNAL} to vouch for its rows: computing all {plural(len(points), 'point')} afresh")
    return todo


def _claim(journal: Journal, study: Study, points: Sequence[Point], out: str, overwrite: bool) -> None:
    """Refuses a journal holding another study's points (running this study would discard them), or, with
    ``overwrite``, empties it and removes those points' configs."""
    found = _other_study(journal.records, study.name, {p.point_id for p in points})
    if found is None:
        return
    name, count = found
    if not overwrite:
        raise AnotherStudysResults(out, name, count, study.name, journal.path)
    say(True, f"overwriting {out}: the {plural(count, 'finished point')} of study `{name or 'unnamed'}` there "
              f"are replaced by study {study.name}'s")
    dropped = list(journal.records)
    journal.keep(set(), rewrite=True)  # the journal first: no row may outlive its config
    for point_id in dropped:
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(out, "configs", f"{point_id}.toml"))


def _other_study(records: Mapping[str, Mapping[str, Any]], name: str,
                 point_ids: Set[str]) -> Optional[Tuple[Optional[str], int]]:
    """The study a journal's rows belong to, when not ``name`` (None: rows that do not say), and how many.

    Rows name their study; rows of an older raidsim do not, and are another study's only when none of
    them is a point of this one (an edited study keeps some of its points).
    """
    others = [r.get("study") for r in records.values() if r.get("study") != name]
    named_other = [s for s in others if s is not None]
    if named_other:
        return named_other[0], len(others)
    if others and not point_ids & set(records):
        return None, len(others)
    return None


def say(when: Any, text: str) -> None:
    if when:
        print(f"raidsim: {text}", file=sys.stderr)


def plural(k: int, noun: str) -> str:
    return f"{k} {noun}" if k == 1 else f"{k} {noun}s"
