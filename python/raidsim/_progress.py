"""Progress bars that show on a terminal and in a Jupyter notebook, and nowhere else by default."""

from __future__ import annotations

import sys


def interactive() -> bool:
    """True on a terminal, or in a Jupyter kernel (whose stderr is no terminal but is shown)."""
    return sys.stderr.isatty() or "ipykernel" in sys.modules


def bar(**options):
    """A tqdm bar: the notebook widget in Jupyter (when ipywidgets is there), text elsewhere."""
    from tqdm.auto import tqdm

    return tqdm(**options)
