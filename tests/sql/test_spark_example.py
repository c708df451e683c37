"""``examples/spark_eval.py`` run in the worker's SparkSession, in the Spark group's JVM
(``spark`` in ``tests/sql/conftest.py``), not in a JVM of its own.

The example is run as a script (``runpy``, as ``__main__``): its ``getOrCreate()`` returns
the session that is already running, as PySpark does for any second builder in a process
(the example's runtime SQL settings apply to it for the run, and are put back after), and
its ``spark.stop()`` is a no-op for the run (the other Spark tests share the JVM).  A JVM
costs ~12 s of wall and ~25 s of CPU to start and warm up on the 2-core machine
(benchmarks/TEST_TIMES.md "suite23"); ``tests/docs/test_examples.py`` runs the example in
a process of its own, as a user does, under ``HYPOTHESIS_PROFILE=full``.
"""

from __future__ import annotations

import runpy
from typing import Any

import pytest

from tests.helpers import ROOT
from tests.sql.spark_frames import skip_without_spark

skip_without_spark()

pytestmark = [
    pytest.mark.slow,  # the Spark group's JVM
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


def _restore(conf: Any, before: dict[str, str]) -> None:
    """Put the session's runtime settings back as they were (the example's builder sets
    some, e.g. its number of shuffle partitions)."""
    for key, value in conf.getAll.items():
        if before.get(key) != value and conf.isModifiable(key):
            if key in before:
                conf.set(key, before[key])
            else:
                conf.unset(key)


def test_spark_example_runs_in_the_test_session(
    spark: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pyspark.sql import SparkSession

    before = dict(spark.conf.getAll)
    monkeypatch.setattr(SparkSession, "stop", lambda self: None)  # the JVM is shared
    try:
        names = runpy.run_path(str(ROOT / "examples" / "spark_eval.py"), run_name="__main__")
    finally:
        _restore(spark.conf, before)
    assert names["spark"] is spark  # the example ran in this JVM, not in one of its own
    out = capsys.readouterr().out
    assert "Spark equals the polars engine to 1e-9" in out  # its own assert passed
    assert "nDCG@10" in out and "AP@10" in out  # the summary and per-query tables shown
    assert _runtime(spark.conf) == _runtime(spark.conf, before)  # the other tests' settings


def _runtime(conf: Any, settings: dict[str, str] | None = None) -> dict[str, str]:
    """The runtime SQL settings (``settings``, or the session's now); the others (e.g. the
    example's app name, which PySpark records for an existing session too) change nothing
    once the session runs."""
    settings = conf.getAll if settings is None else settings
    return {key: value for key, value in settings.items() if conf.isModifiable(key)}
