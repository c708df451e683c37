"""The lower bounds of the runtime dependencies are versions CI tests (issue 11's CI, the
brief's "lower bounds you have tested"): `.ci/run` runs the fast tier with
`.ci/lower_bounds.txt` as pip constraints, and those pins are pyproject.toml's bounds."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ("polars", "pyarrow", "duckdb")


def _declared_bounds() -> dict[str, str]:
    text = (ROOT / "pyproject.toml").read_text()  # no tomllib on Python 3.10
    block = re.search(r"^dependencies = \[\n(.*?)^\]", text, re.MULTILINE | re.DOTALL)
    assert block, "pyproject.toml has no dependencies list"
    bounds = {}
    for requirement in re.findall(r'^\s*"([^"]+)"', block.group(1), re.MULTILINE):
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", requirement.split(";")[0].strip())
        assert match, f"a runtime dependency without a plain lower bound: {requirement!r}"
        bounds[match.group(1)] = match.group(2)
    return bounds


def _pinned() -> dict[str, str]:
    lines = (ROOT / ".ci/lower_bounds.txt").read_text().splitlines()
    pins = [line.split("==") for line in lines if line and not line.startswith("#")]
    return {name: version for name, version in pins}


def _release(version: str) -> tuple[int, ...]:
    """1.4 and 1.4.0 are one release."""
    parts = [int(p) for p in version.split(".")]
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


def test_the_runtime_dependencies_are_polars_pyarrow_and_duckdb() -> None:
    assert sorted(_declared_bounds()) == sorted(RUNTIME)


def test_the_ci_pins_are_the_declared_lower_bounds() -> None:
    declared, pinned = _declared_bounds(), _pinned()
    assert sorted(pinned) == sorted(declared)
    assert {n: _release(v) for n, v in pinned.items()} == {
        n: _release(v) for n, v in declared.items()
    }


def test_ci_runs_the_fast_tier_on_the_lower_bounds() -> None:
    run = (ROOT / ".ci/run").read_text()
    install = re.search(
        r"^(\S+)/bin/pip install .*-c \.ci/lower_bounds\.txt .*\"\.\[test\]\"$", run, re.MULTILINE
    )
    assert install, ".ci/run installs no venv with the lower-bound constraints"
    venv = re.escape(install.group(1))
    assert re.search(rf"^{venv}/bin/python -m pytest -m \"not slow\"", run, re.MULTILINE)
    # the fast tier runs before the README's test command, so its failure fails CI
    assert run.index(install.group(0)) < run.index("\n.venv/bin/python -m pytest\n")
