import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED_TRACES = pathlib.Path(os.environ.get("RAIDSIM_SHARED_TRACES", REPO.parent / "shared" / "traces"))


@pytest.fixture
def traces_dir():
    if not SHARED_TRACES.is_dir():
        pytest.skip(f"{SHARED_TRACES} not found: the shared traces sit beside the project checkout")
    return SHARED_TRACES

SHARED_PAPERS = pathlib.Path(os.environ.get("RAIDSIM_SHARED_PAPERS", REPO.parent / "shared" / "papers"))


@pytest.fixture
def rais_paper_text():
    """The RAIS paper's text, or a skip saying where it was looked for."""
    path = SHARED_PAPERS / "rais-empirical-study.txt"
    if not path.is_file():
        pytest.skip(f"{path} not found: the papers sit in ../shared/papers beside the project checkout")
    return path.read_text()
