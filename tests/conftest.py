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
