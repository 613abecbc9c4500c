"""The package people install (issue #14): license, citation, one version, its data files, and the wheel workflow
kept valid."""

import os
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
            # No --release: it would override pyproject's profile ("dist", fat LTO).
            args = build[0]["with"]["args"]
            assert "--release" not in args and "--profile" not in args and "--strip" in args, name
    assert jobs["linux"]["steps"][1]["with"]["manylinux"] == "2_28"
    assert set(jobs["publish"]["needs"]) == {"linux", "macos", "windows", "sdist"}
    assert jobs["publish"]["if"] == "startsWith(github.ref, 'refs/tags/v')"
    # YAML reads a bare `on` as True: the trigger must still be tags.
    triggers = wf.get("on", wf.get(True))
    assert triggers["push"]["tags"] == ["v*"]


def test_abi3_is_what_the_extension_is_built_for():
    cargo = tomllib.loads((REPO / "Cargo.toml").read_text())
    assert "abi3-py311" in cargo["workspace"]["dependencies"]["pyo3"]["features"]


def _requirements():
    from packaging.requirements import Requirement

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert set(extras) == {"test", "ray"}, "a new extra: pin it in constraints.txt and list it here"
    return [Requirement(r) for r in project["dependencies"] + extras["test"] + extras["ray"]]


def test_dependencies_are_ranges_with_lower_bounds_not_pins():
    # An exact pin clashes with a user's environment; a missing lower bound admits versions never tested.
    for req in _requirements():
        ops = {s.operator for s in req.specifier}
        assert "==" not in ops and "===" not in ops, f"{req}: pinned"
        assert ">=" in ops, f"{req}: no tested lower bound"


def test_constraints_pin_every_dependency_inside_its_range():
    # CI installs with -c constraints.txt: each direct dependency must be pinned there, inside the range
    # pyproject.toml states, or CI would test a point users cannot get (or pip would refuse the set).
    from packaging.utils import canonicalize_name

    pins = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version
    for req in _requirements():
        version = pins.get(canonicalize_name(req.name))
        assert version is not None, f"{req.name} is not pinned in constraints.txt"
        assert req.specifier.contains(version), f"constraints.txt pins {req.name}=={version}, outside {req.specifier}"


def test_ci_runs_the_readme_test_command_and_tests_the_built_wheel():
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci in readme, ".ci/run must run exactly the README's test command"
    assert ci.endswith("&& .ci/wheel-demo") and "-c constraints.txt" in ci
    demo = (REPO / ".ci" / "wheel-demo").read_text()
    # The wheel is built by maturin (manylinux tag, strip), installed into a fresh venv, run outside the tree.
    assert "maturin\" build --out" in demo and "--release" not in demo and "venv" in demo and 'cd "$work"' in demo
    maturin = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["maturin"]
    assert maturin["strip"] is True and maturin["compatibility"].startswith("manylinux_")
    # What users install is built with whole-program LTO.
    profiles = tomllib.loads((REPO / "Cargo.toml").read_text())["profile"]
    assert maturin["profile"] == "dist" and profiles["dist"]["inherits"] == "release" and profiles["dist"]["lto"] == "fat"


def test_the_installed_package_ships_the_study_files_and_the_papers():
    # Read as an installed raidsim reads them (importlib.resources), not from the checkout: CI's raidsim is
    # the one pip installed, so a data file the build leaves out fails here (and in .ci/wheel-demo's demo).
    from importlib import resources

    from raidsim.papers import catalog, packaged

    in_tree = sorted(p.stem for p in (REPO / packaged.FOLDER).glob("*.toml"))
    assert packaged.packaged_specs() == in_tree and "stripe-unit-study" in in_tree
    assert (resources.files("raidsim.papers") / "papers.toml").is_file()
    assert catalog.papers() and all(os.path.isfile(e.path) for e in catalog.entries())
