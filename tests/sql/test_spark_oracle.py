"""polars_rankeval.spark.evaluate on Spark local mode against independent values, not the
polars engine: the other tools' formulas (``tests/conventions.py``) for the
non-default conventions.  pytrec_eval for every measure trec_eval has (the GRID of
``test_sql_parity``) is checked in ``test_spark.py::test_grid_matches_polars``, on the
same Spark query as the polars parity.

Skipped, with the reason, only when pyspark or Java is absent (the worker's one
SparkSession, ``spark`` in ``tests/sql/conftest.py``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conventions import conventions_frames, expected_values, random_conventions_case
from tests.sql.spark_frames import skip_without_spark, to_polars, to_spark

skip_without_spark()

from polars_rankeval.spark import evaluate as spark_evaluate

pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)


def _per_query(spark: Any, run: Any, qrels: Any, names: list[str]) -> Any:
    import polars as pl

    result = spark_evaluate(to_spark(spark, run), to_spark(spark, qrels), names, True)
    schema = pl.Schema({"query": run.schema["query"], "measure": pl.String, "value": pl.Float64})
    return to_polars(result, schema)


def test_conventions_equal_the_other_tools_formulas(spark: Any) -> None:
    run, qrels = random_conventions_case(6, 20)
    expected = expected_values(run, qrels)
    names = sorted({m for _, m in expected})
    got = _per_query(spark, *conventions_frames(run, qrels), names)
    values = {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}
    bad = [(k, values.get(k), v) for k, v in expected.items()
           if values.get(k) is None or abs(values[k] - v) > 1e-9]  # fmt: skip
    assert not bad, bad
