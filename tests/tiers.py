"""The measured part of the slow tier: the tests of the fast tier that cost at least
:data:`THRESHOLD` seconds of CPU each, listed in ``tests/slow_tests.txt`` (one pytest
node id a line), which ``tests/conftest.py`` marks ``slow``.

Most of them call the SQL entry point in DuckDB (``sql/rankeval.sql``): DuckDB plans the
whole macro on each call, ~0.3 s of CPU however few rows go in, so a table of SQL cases
costs seconds where the same checks on the polars engine cost milliseconds.  They still
run in the full suite (what CI runs); the fast tier keeps the cheap tests of every module.

To measure again (both steps from the repository root)::

    TIERS_OUT=/tmp/tiers .venv/bin/python -m pytest -m "not slow" -p tests.tiers
    .venv/bin/python -m tests.tiers /tmp/tiers

The first run writes each worker's per-test CPU times (user + sys of the worker process
and its children, setup to teardown) to ``TIERS_OUT``; the second adds the tests at or
above the threshold to the list (the entries already there stay).

>>> sorted(over_threshold([("a", 0.1), ("b", 0.3), ("c", THRESHOLD)]))
['b', 'c']
"""

from __future__ import annotations

import json
import os
import resource
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

THRESHOLD = 0.25  # seconds of CPU per test
LIST = Path(__file__).resolve().parent / "slow_tests.txt"
_times: list[tuple[str, float]] = []


def listed() -> frozenset[str]:
    """The node ids in ``tests/slow_tests.txt`` (comments and blank lines skipped)."""
    lines = (line.strip() for line in LIST.read_text(encoding="utf-8").splitlines())
    return frozenset(line for line in lines if line and not line.startswith("#"))


def over_threshold(times: Iterable[tuple[str, float]]) -> Iterator[str]:
    """The node ids whose CPU time is at least :data:`THRESHOLD`."""
    return (nodeid for nodeid, cpu in times if cpu >= THRESHOLD)


def _cpu() -> float:
    own, children = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Iterator[None]:
    start = _cpu()
    yield
    _times.append((item.nodeid, _cpu() - start))


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = Path(os.environ.get("TIERS_OUT", "tiers-profile"))
    folder.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    (folder / f"{worker}.json").write_text(json.dumps(_times))


def main(folder: str) -> None:
    times = [tuple(row) for path in Path(folder).glob("*.json") for row in json.loads(path.read_text())]
    new = set(over_threshold(times)) - listed()  # type: ignore[arg-type]
    with LIST.open("a", encoding="utf-8") as out:
        out.writelines(f"{nodeid}\n" for nodeid in sorted(new))
    print(f"{len(new)} tests added to {LIST}")


if __name__ == "__main__":
    main(sys.argv[1])
