"""Configuration every test folder shares.

* Hypothesis profiles: ``default`` (a fifth of each test's written example count, see
  ``tests.helpers.examples``), ``full`` (the counts as written: the full grids), chosen
  with ``HYPOTHESIS_PROFILE=full``, and ``fast`` (a twentieth, at least 2), which the
  inner loop ``pytest -m "not slow"`` loads unless HYPOTHESIS_PROFILE says otherwise.
  No deadline in either: on a loaded machine and under pytest-xdist a time limit per
  example fails for reasons that are not bugs.  The grids whose every call costs seconds
  (``tests/parity.py``'s ``BATCH_SETTINGS``: the SQL parity and render grids) check
  batches of datasets stacked into one call and run only their explicit example (a
  seeded batch) unless the profile is ``full``.
* The slow tier (``slow``): the modules and tests of :data:`SLOW`, the tests listed in
  ``tests/slow_tests.txt`` (measured at 0.25 s of CPU or more each, ``tests/tiers.py``),
  the tests asking for a server (:data:`SERVERS`) and the ``@pytest.mark.slow`` ones.
* pytest-xdist runs each test file on one worker (``--dist loadfile`` in pyproject),
  and the files go out in collection order (``--no-loadscope-reorder``, longest first:
  ``LONGEST_FIRST``); the session-scoped PostgreSQL cluster starts at most once per
  worker; the modules of each ``SHARED_WORKER`` group run on one worker together, so
  their session-scoped server (the SparkSession) starts once per group.

The shared helpers and oracles are plain modules beside this file (``helpers``,
``strategies``, ``parity``, ``oracles/pytrec_data``, ``oracles/ir_measures_data``):
test modules never import from each other.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import settings

from tests.tiers import listed

settings.register_profile("full", max_examples=100, deadline=None)  # hypothesis' default
settings.register_profile("default", max_examples=20, deadline=None)
settings.register_profile("fast", max_examples=5, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_configure(config: pytest.Config) -> None:
    """The fast tier's smaller example counts (before any test module is imported, so
    ``tests.helpers.examples`` sees them)."""
    if "not slow" in (config.option.markexpr or "") and "HYPOTHESIS_PROFILE" not in os.environ:
        settings.load_profile("fast")


# The slow tier, beside the tests marked @pytest.mark.slow in their modules: whole modules
# that drive real external tools or servers (trec_eval's binary, dbt, Spark, PostgreSQL, a
# browser, mkdocs) and randomized oracle grids of several seconds each.  CI runs them all.
SLOW = (
    "tests/cli/test_trec_eval_oracle.py",
    "tests/sql/test_sql_dbt.py",
    "tests/sql/test_spark_oracle.py",
    "tests/sql/test_postgres_oracle.py",
    "tests/sql/test_postgres_options.py",
    "tests/sql/test_spark_options.py",
    "tests/compare/test_report_browser.py",
    "tests/docs/test_docs_site.py",
    "tests/engines/test_determinism.py",
    "tests/oracles/test_oracle_pytrec_eval_gains.py",
    "tests/oracles/test_oracle_pytrec_eval_issue13.py",
    "tests/oracles/test_diversity.py::test_per_query_matches_pyndeval",
    "tests/sql/test_sql_entry.py::test_parity_with_polars",
    "tests/oracles/test_trec_eval_conformance.py::test_total_matched",
)
# ... and the tests measured at 0.25 s of CPU or more each (``tests/slow_tests.txt``,
# written by ``tests/tiers.py``): mostly calls of the SQL entry point in DuckDB, which
# plans its whole macro on each call (~0.3 s), so that the fast tier fits in a minute.
SLOW_MEASURED = listed()
# ... and any test that asks for a server's fixture (tests/sql/conftest.py).
SERVERS = frozenset({"postgres", "spark"})


# The longest modules, longest first (per-file CPU of the quiet full run at 2a4df1e,
# /usr/bin/time -n 0 figures of the files changed since, and the wall of the ones that wait
# on a server or a subprocess; benchmarks/TEST_TIMES.md "grids21").  With ``--dist
# loadfile`` a worker takes whole modules in collection order, so a long module collected
# last becomes the run's tail on one core; started first, it overlaps the rest (the
# longest-processing-time-first rule): the Spark group on one worker, the rest on the other
# until the group ends, then the short modules fill both to the end.
LONGEST_FIRST = (
    "tests/sql/test_spark.py",
    "tests/sql/test_spark_options.py",
    "tests/sql/test_spark_oracle.py",
    "tests/sql/test_spark_example.py",
    "tests/docs/test_examples.py",
    "tests/sql/test_sql_dbt.py",
    "tests/sql/test_sql_render.py",
    "tests/engines/test_sql_parity.py",
    "tests/engines/test_determinism.py",
    "tests/hostile/test_valid_inputs.py",
    "tests/oracles/test_conventions_independent.py",
    "tests/sql/test_postgres.py",
    "tests/sql/test_postgres_options.py",
    "tests/sql/test_sql_entry.py",
    "tests/cli/test_chunked.py",
    "tests/oracles/test_trec_eval_conformance.py",
    "tests/sql/test_sql_entry_errors.py",
    "tests/engines/test_duckdb_engine.py",
    "tests/engines/test_partitions.py",
    "tests/sql/test_render_ties.py",
    "tests/oracles/test_oracle_ranx.py",
)


# Module path prefixes whose modules share a session-scoped server: each group runs on one
# pytest-xdist worker (one unit of ``--dist loadfile``), so the server starts once per group.
# The Spark modules are one group (one JVM: its start and JIT warm-up cost ~15 s of
# CPU): their statements ask for a cover of the measure grid by default (a few minutes of
# CPU in all, benchmarks/TEST_TIMES.md "suite8"), first in LONGEST_FIRST so that the
# rest of the run overlaps them on the other worker.
SHARED_WORKER = {
    "tests/sql/test_spark.py": "spark",
    "tests/sql/test_spark_options.py": "spark",
    "tests/sql/test_spark_oracle.py": "spark",
    "tests/sql/test_spark_example.py": "spark",  # examples/spark_eval.py in the group's JVM
}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` with the :data:`SHARED_WORKER` groups as single units (any
    other ``--dist`` keeps pytest-xdist's own scheduler)."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedServerScheduling(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return next(
                (group for prefix, group in SHARED_WORKER.items() if path.startswith(prefix)),
                path,
            )

    return SharedServerScheduling(config, log)


def _module_rank(item: pytest.Item) -> int:
    path = item.nodeid.split("::")[0]
    return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        servers = SERVERS.intersection(getattr(item, "fixturenames", ()))
        if item.nodeid.startswith(SLOW) or item.nodeid in SLOW_MEASURED or servers:
            item.add_marker(pytest.mark.slow)
    items.sort(key=_module_rank)  # stable: each module's own order is kept
