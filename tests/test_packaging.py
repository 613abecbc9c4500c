"""The package people install (issue #14): license, citation, one version, and the wheel workflow kept valid."""

import pathlib
import tomllib

import yaml

import raidsim

REPO = pathlib.Path(__file__).resolve().parent.parent


def test_license_matches_the_metadata_and_the_citation_carries_the_version():
    assert (REPO / "LICENSE").read_text().startswith("MIT License")
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert pyproject["project"]["license"] == {"text": "MIT"}
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["license"] == "MIT"
    assert cff["version"] == raidsim.__version__


def test_the_wheel_workflow_builds_every_platform_with_maturin_and_publishes_only_tags():
    wf = yaml.safe_load((REPO / ".github" / "workflows" / "wheels.yml").read_text())
    jobs = wf["jobs"]
    assert {"linux", "macos", "windows", "sdist", "publish"} <= set(jobs)
    runners = {name: job["runs-on"] for name, job in jobs.items()}
    assert runners["linux"].startswith("ubuntu") and runners["macos"].startswith("macos")
    assert runners["windows"].startswith("windows")
    for name in ("linux", "macos", "windows", "sdist"):
        steps = jobs[name]["steps"]
        build = [s for s in steps if str(s.get("uses", "")).startswith("PyO3/maturin-action@")]
        assert len(build) == 1, name
        if name != "sdist":
            assert "--release" in build[0]["with"]["args"] and "--strip" in build[0]["with"]["args"], name
    assert jobs["linux"]["steps"][1]["with"]["manylinux"] == "2_28"
    assert set(jobs["publish"]["needs"]) == {"linux", "macos", "windows", "sdist"}
    assert jobs["publish"]["if"] == "startsWith(github.ref, 'refs/tags/v')"
    # YAML reads a bare `on` as True: the trigger must still be tags.
    triggers = wf.get("on", wf.get(True))
    assert triggers["push"]["tags"] == ["v*"]


def test_abi3_is_what_the_extension_is_built_for():
    cargo = tomllib.loads((REPO / "Cargo.toml").read_text())
    assert "abi3-py311" in cargo["workspace"]["dependencies"]["pyo3"]["features"]
