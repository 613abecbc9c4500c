"""Progress bars that show on a terminal and in a Jupyter notebook, and nowhere else by default."""

from __future__ import annotations

import importlib.util
import sys


def interactive() -> bool:
    """True on a terminal, or in a Jupyter kernel (whose stderr is no terminal but is shown)."""
    return sys.stderr.isatty() or "ipykernel" in sys.modules


def bar(**options):
    """A tqdm bar: the notebook widget in Jupyter when ipywidgets is there, text elsewhere.

    tqdm.auto picks the widget in any Jupyter kernel, and without ipywidgets warns (TqdmWarning:
    "IProgress not found") and falls back to text each time; so tqdm.auto only where the widget can
    be drawn, tqdm.std's text bar otherwise."""
    if _widgets_importable():
        from tqdm.auto import tqdm
    else:
        from tqdm.std import tqdm

    return tqdm(**options)


def _widgets_importable() -> bool:
    try:
        return importlib.util.find_spec("ipywidgets") is not None
    except (ImportError, ValueError):  # a broken or half-imported package: not drawable either
        return False
