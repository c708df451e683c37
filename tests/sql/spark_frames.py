"""The Spark modules' shared pieces: the module-level skip when pyspark or Java is absent,
and polars frames to and from pyspark DataFrames.

Shared by the test modules (test modules never import from each other):
``sql/test_spark.py``, ``sql/test_spark_options.py`` and ``sql/test_spark_oracle.py``.
The SparkSession itself is the worker's one session (``spark`` in ``tests/sql/conftest.py``).
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import polars as pl
import pytest

_SPARK_TYPES = {pl.String: "string", pl.Int64: "bigint", pl.Float64: "double"}


def skip_without_spark() -> None:
    """Skip the calling module, saying why, when sqlglot, pyspark or a Java runtime is
    absent (``.ci/install_engines.sh`` installs pyspark; Java 17 is expected)."""
    pytest.importorskip("sqlglot")
    pytest.importorskip("pyspark", reason="pyspark not installed: run .ci/install_engines.sh")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime for Spark (install openjdk-17-jre)", allow_module_level=True)


def to_spark(spark: Any, frame: pl.DataFrame, *, rows: bool = False) -> Any:
    """``frame`` as a pyspark DataFrame (string, bigint and double columns), through Arrow:
    a local relation in the JVM; with ``rows``, from a list of its rows (a Python RDD, of
    unknown size to the planner: joins on it are not broadcast).  From rows, every scan of
    an input in a statement runs Python workers again: the grid's
    90-measure statement cost 12.5 s of JVM CPU (and its Python workers') against 14.7 s,
    a five-measure one 1.98 s against 2.35 s (medians of 4 alternating pairs each, in one
    warm JVM; benchmarks/TEST_TIMES.md, spark31; the results do not change)."""
    if rows:
        schema = ", ".join(f"`{c}` {_SPARK_TYPES[t]}" for c, t in frame.schema.items())
        return spark.createDataFrame(frame.rows(), schema=schema)
    assert all(t in _SPARK_TYPES for t in frame.schema.values()), frame.schema
    return spark.createDataFrame(frame.to_arrow())


def to_polars(result: Any, schema: pl.Schema) -> pl.DataFrame:
    rows = [tuple(row) for row in result.collect()]
    return pl.DataFrame(rows, schema=list(schema), orient="row").cast(dict(schema))
