"""polars_rankeval.spark.evaluate on Spark local mode against independent values, not the
polars engine: pytrec_eval for every measure trec_eval has (the GRID of
``test_sql_parity``), the other tools' formulas (``test_conventions_independent``) for
the non-default conventions.

Skipped, with the reason, only when pyspark or Java is absent (as ``test_spark.py``,
whose session it uses).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests import test_spark
from tests.oracles.test_conventions_independent import _expected, _frames
from tests.parity import GRID, oracle, random_cases
from tests.parity import assert_oracle as _assert_oracle
from tests.sql.test_postgres_oracle import random_conventions_case
from tests.sql.test_spark import _to_polars, _to_spark, spark_evaluate

session = test_spark.spark  # test_spark's module-scoped SparkSession, as a fixture
pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)


def _per_query(session: Any, run: Any, qrels: Any, names: list[str]) -> Any:
    import polars as pl

    result = spark_evaluate(_to_spark(session, run), _to_spark(session, qrels), names, True)
    schema = pl.Schema({"query": run.schema["query"], "measure": pl.String, "value": pl.Float64})
    return _to_polars(result, schema)


def test_grid_equals_pytrec_eval(session: Any) -> None:
    data = random_cases(31, 20, int_ids=False)
    run, qrels = data["run"], data["qrels"]
    expected = oracle(run, qrels, GRID)
    assert len(expected) > 100
    _assert_oracle(_per_query(session, run, qrels, GRID), expected, by=None, per_query=True)


def test_conventions_equal_the_other_tools_formulas(session: Any) -> None:
    run, qrels = random_conventions_case(6, 20)
    expected = _expected(run, qrels)
    names = sorted({m for _, m in expected})
    got = _per_query(session, *_frames(run, qrels), names)
    values = {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}
    bad = [(k, values.get(k), v) for k, v in expected.items()
           if values.get(k) is None or abs(values[k] - v) > 1e-9]  # fmt: skip
    assert not bad, bad
