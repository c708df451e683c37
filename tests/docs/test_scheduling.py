"""The README's test command hands the longest files out first: pytest-xdist's own
scheduler (``--dist loadfile`` with the options in pyproject) gives the Spark group (the
three Spark modules, one JVM), first in ``LONGEST_FIRST``, to a worker at the start,
although it has few tests.

pytest-xdist's default (``--loadscope-reorder``) sorts the files by test count instead:
the Spark group (8 tests, several minutes) went out 47th of 131 and ran alone at the
end of the CI run.
"""

from __future__ import annotations

import re
import shlex
import types
from typing import Any

import pytest

from tests.helpers import ROOT

pytest.importorskip("xdist")


class _Node:
    """The part of pytest-xdist's WorkerController a scheduler talks to."""

    def __init__(self, name: str, ids: list[str]) -> None:
        self.gateway = types.SimpleNamespace(id=name)
        self.shutting_down = False
        self.ids = ids
        self.files: list[str] = []
        self.units: list[set[str]] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.files.append(self.ids[indices[0]].split("::")[0])
        self.units.append({self.ids[index].split("::")[0] for index in indices})

    def shutdown(self) -> None:
        self.shutting_down = True


def _addopts() -> list[str]:
    line = next(
        line for line in (ROOT / "pyproject.toml").read_text().splitlines()
        if line.startswith("addopts")
    )  # fmt: skip
    return shlex.split(line.split("=", 1)[1].strip().strip('"'))


def _first_files(
    ids: list[str], reorder: bool, units: dict[str, list[set[str]]] | None = None
) -> dict[str, list[str]]:
    """The files each worker gets first (the first file of each unit sent); ``units``, when
    given, receives each worker's units (their sets of files)."""
    from tests import conftest

    option = types.SimpleNamespace(loadscopereorder=reorder, tx=["popen"] * 2, dist="loadfile")
    config: Any = types.SimpleNamespace(
        option=option, getvalue=lambda name: getattr(option, name, None),
        getoption=lambda name: getattr(option, name),
    )  # fmt: skip
    log = types.SimpleNamespace(loadscopesched=print, loadfilesched=print)
    scheduler = conftest.pytest_xdist_make_scheduler(config, log)
    nodes = [_Node("gw0", ids), _Node("gw1", ids)]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, ids)
    scheduler.schedule()
    if units is not None:
        units.update({node.gateway.id: node.units for node in nodes})
    return {node.gateway.id: node.files for node in nodes}


def test_the_spark_group_goes_out_first_to_one_worker() -> None:
    options = _addopts()
    assert "--dist" in options and options[options.index("--dist") + 1] == "loadfile"
    assert "--no-loadscope-reorder" in options
    # the collection order of tests/conftest.py: the Spark modules (few tests) first
    ids = [f"tests/sql/test_spark.py::t{i}" for i in range(5)]
    ids += [f"tests/sql/test_spark_options.py::t{i}" for i in range(2)]
    ids += ["tests/sql/test_spark_oracle.py::t0"]
    ids += [f"tests/m{m}.py::t{i}" for m in range(6) for i in range(50)]
    units: dict[str, list[set[str]]] = {}
    first = _first_files(ids, reorder=False, units=units)
    assert first["gw0"][0] == "tests/sql/test_spark.py" and first["gw1"][0] == "tests/m0.py"
    # one unit, one worker, one JVM: the three Spark modules go out together
    assert units["gw0"][0] == {f"tests/sql/test_spark{m}.py" for m in ("", "_options", "_oracle")}
    assert all("spark" not in file for unit in units["gw1"] for file in unit)
    # what xdist's default did: the files with the most tests first
    default = _first_files(ids, reorder=True)
    assert all("tests/sql/test_spark.py" not in files for files in default.values()), default


def test_every_measured_slow_test_exists() -> None:
    """``tests/slow_tests.txt`` names tests that exist: a renamed or moved test would
    otherwise leave the list and silently join the fast tier (source parsing only)."""
    from tests.tiers import listed

    assert listed()
    for nodeid in listed():
        path, name = nodeid.split("[", 1)[0].split("::", 1)
        function = name.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^\s*(async )?def {re.escape(function)}\(", source, re.MULTILINE), nodeid
