"""Files written whole or not at all: a temporary name in the same directory, then a rename.

A disk that fills up (or a kill) midway through a write must leave the file
as it was, never a truncated one that passes for a result; and an ``OSError``
of a write (``[Errno 28] No space left on device``) names no file, so it is
raised again naming the file meant. Light (no pandas): the CLI imports it.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from typing import Callable, Optional


def named(e: OSError, path: str, instead_of: Optional[str] = None) -> OSError:
    """``e``, naming ``path`` when it names no file (a failed write or flush names none) or names
    ``instead_of`` (the temporary twin of ``path``)."""
    if e.filename is not None and e.filename != instead_of:
        return e
    if e.errno is None:
        return OSError(f"{path}: {e}")
    return type(e)(e.errno, e.strerror or str(e), path)


def replace_atomically(path: str, write: Callable[[str], None]) -> None:
    """Writes ``path`` through ``write(tmp)`` into a temporary file beside it, fsyncs it and renames it
    over ``path``, so no reader or crash ever sees half a file. On an error the temporary file goes."""
    # Unique, so two writers of one path (two runs logging to one file) never share a temporary file.
    tmp = f"{path}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise named(e, path, tmp) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    _fsync_directory(os.path.dirname(path))


def write_text(path: str, text: str) -> None:
    """``text`` into ``path``, atomically."""
    def fill(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
    replace_atomically(path, fill)


def _fsync_directory(path: str) -> None:
    fd = os.open(path or ".", os.O_RDONLY)
    try:
        os.fsync(fd)  # the renames themselves survive a power cut
    finally:
        os.close(fd)
