"""Configuration every test folder shares.

* Hypothesis profiles: ``default`` (a fifth of each test's written example count, see
  ``tests.helpers.examples``) and ``full`` (the counts as written: the full grids),
  chosen with ``HYPOTHESIS_PROFILE=full``.  No deadline in either: on a loaded machine
  and under pytest-xdist a time limit per example fails for reasons that are not bugs.
* Under pytest-xdist (``--dist loadgroup``), the tests that start a server (the
  throwaway PostgreSQL cluster, the SparkSession) each run on one worker, so one
  cluster and one JVM are started per run instead of one per worker.

The shared helpers and oracles are plain modules beside this file (``helpers``,
``strategies``, ``parity``, ``oracles/pytrec_data``, ``oracles/ir_measures_data``):
test modules never import from each other.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("full", max_examples=100, deadline=None)  # hypothesis' default
settings.register_profile("default", max_examples=20, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# a piece of a test id -> the xdist group of the tests whose id contains it
SERVER_GROUPS = {
    "sql/test_postgres.py::": "postgres",
    "sql/test_spark.py::": "spark",
    "test_example_runs[spark_eval.py]": "spark",  # the Spark example starts a JVM too
}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups off the items
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for piece, group in SERVER_GROUPS.items():
            if piece in item.nodeid:
                item.add_marker(pytest.mark.xdist_group(group))
