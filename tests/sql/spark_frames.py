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


def to_spark(spark: Any, frame: pl.DataFrame) -> Any:
    schema = ", ".join(f"`{c}` {_SPARK_TYPES[t]}" for c, t in frame.schema.items())
    return spark.createDataFrame(frame.rows(), schema=schema)


def to_polars(result: Any, schema: pl.Schema) -> pl.DataFrame:
    rows = [tuple(row) for row in result.collect()]
    return pl.DataFrame(rows, schema=list(schema), orient="row").cast(dict(schema))
