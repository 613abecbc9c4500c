"""The study files shipped with raidsim: ``experiments/NAME.toml``, read where the package is installed.

Each is a study spec (:mod:`raidsim.study.spec`) that a reproduction runs,
or the data one computes from: the demo's stripe-unit study, and every
reproduction of the catalog with the published numbers it sets ours beside
(:mod:`raidsim.papers.catalog`). They are package data, found through
:mod:`importlib.resources` and not through the source tree, so an installed
wheel reads the same files a checkout does; :func:`study_file` names a
file as the repository holds it, for messages and pages that tell a reader
where to look.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any, Dict, List

from ..study.errors import StudyError
from ..study.spec import Study

#: Where the study files sit in the repository, as messages and pages name them.
FOLDER = "python/raidsim/papers/experiments"


def packaged_specs() -> List[str]:
    """Names of the packaged study files."""
    files = resources.files(f"{__package__}.experiments")
    return sorted(p.name[:-5] for p in files.iterdir() if p.name.endswith(".toml"))


def packaged_spec(name: str) -> Dict[str, Any]:
    """The packaged study file ``name`` as a dict."""
    path = resources.files(f"{__package__}.experiments") / f"{name}.toml"
    if not path.is_file():
        raise StudyError(f"no packaged study `{name}`; packaged: {', '.join(packaged_specs())}")
    return tomllib.loads(path.read_text())


def packaged_study(name: str) -> Study:
    """The packaged study file ``name`` as a study, ready to run."""
    return Study.from_dict(packaged_spec(name), name)


def study_file(name: str) -> str:
    """``name``'s study file as the repository holds it: ``python/raidsim/papers/experiments/NAME.toml``."""
    return f"{FOLDER}/{name}.toml"
