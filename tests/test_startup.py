"""Start-up cost (issue #14): `import raidsim`, `raidsim --version`, `raidsim presets` and a `raidsim run`
that writes no files must not import the heavy libraries (pandas alone is most of a second and ~100 MB).

Each check runs in a fresh interpreter, as a command does: in this one, other tests have imported them.
No wall-clock limits here (the machine is noisy); a heavy import creeping back fails by name.
"""

import json
import subprocess
import sys

import pytest

HEAVY = ("pandas", "numpy", "scipy", "matplotlib", "pyarrow", "tqdm")

RUN = ["run", "--preset", "stripe-unit-table5", "--set", "workload.requests=200", "--no-progress"]

# Runs `action`, then prints the heavy modules loaded as the last line of stdout.
PROBE = """
import json, sys
import raidsim, raidsim.cli
status = None
{action}
print()
print(json.dumps({{"status": status, "loaded": sorted(m for m in {heavy!r} if m in sys.modules)}}))
"""


def probe(action: str, tmp_path) -> dict:
    p = subprocess.run([sys.executable, "-c", PROBE.format(action=action, heavy=HEAVY)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.splitlines()[-1])


def main_call(argv) -> str:
    return f"status = raidsim.cli.main({argv!r})"


def test_importing_the_package_and_the_cli_loads_no_heavy_library(tmp_path):
    assert probe("pass", tmp_path)["loaded"] == []


@pytest.mark.parametrize("argv", [RUN, RUN + ["--json"], ["presets"], ["presets", "stripe-unit-table5"]],
                         ids=["run", "run-json", "presets", "presets-name"])
def test_a_command_loads_no_heavy_library(argv, tmp_path):
    assert probe(main_call(argv), tmp_path) == {"status": 0, "loaded": []}
    assert not any(tmp_path.iterdir())  # without --out, nothing written (a save would need pandas)


def test_version_loads_no_heavy_library(tmp_path):
    action = "try:\n    raidsim.cli.main(['--version'])\nexcept SystemExit as e:\n    status = e.code"
    assert probe(action, tmp_path) == {"status": 0, "loaded": []}


def test_the_tables_still_load_pandas_when_asked_for(tmp_path):
    # The other side of the lazy imports: the DataFrame methods work in a fresh process.
    action = ("r = raidsim.simulate('stripe-unit-table5', overrides={'workload.requests': 50})\n"
              "status = int(r.summary()['requests'].iloc[0] == 50 and list(r.devices().index) == ['ssd'])")
    result = probe(action, tmp_path)
    assert result["status"] == 1 and "pandas" in result["loaded"]
    assert not {"scipy", "matplotlib", "tqdm"} & set(result["loaded"])  # pandas' own imports aside
