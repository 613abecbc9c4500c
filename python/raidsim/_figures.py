"""Figures written as files: laid out, saved whole or not at all, and closed.

Shared by the core (:func:`raidsim.report.plot_rebuild`) and the layers above
it (a reproduction's figures): a figure file is a result, so like every
other one it is replaced atomically (:mod:`raidsim._atomic`), and a full disk
or a kill midway leaves the last complete file, never half a PNG. Closing
the figure at once keeps a run that draws dozens from holding them all in
memory. matplotlib is imported by the caller that draws, not here.
"""

from __future__ import annotations

import os
from typing import Any

from . import _atomic


def save_figure(fig: Any, path: str, dpi: int = 100) -> str:
    """Lays out, writes and closes ``fig``; returns ``path``. The format is the path's extension."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    # The temporary file's name ends in .tmp: the format must be said, not read off it.
    fmt = os.path.splitext(path)[1].lstrip(".").lower() or "png"
    try:
        _atomic.replace_atomically(path, lambda tmp: fig.savefig(tmp, dpi=dpi, format=fmt))
    finally:
        plt.close(fig)
    return path
