"""polars_rankeval.spark.evaluate and rk.evaluate(spark_df, ...) with every option of
evaluate on Spark local mode: two grouping columns (``by``), custom column names (one
with a space), ``complete``, ``top``, ``duplicates="first"`` and ``rel``; per query and
summary equal to the polars engine to 1e-9 and, per query, to pytrec_eval (trec_eval's
measures; ``warehouse_cases``).

Skipped, with the reason, only when pyspark or Java is absent (the worker's one
SparkSession, ``spark`` in ``tests/sql/conftest.py``).
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import polars_rankeval as rk
from tests.parity import assert_oracle, assert_same
from tests.sql.entry_cases import COLUMNS, make_data, polars_result
from tests.sql.spark_frames import skip_without_spark, to_polars, to_spark
from tests.sql.warehouse_cases import (
    FULL_GRIDS,
    MEASURES,
    OPTIONS,
    both_option_cases,
    cover,
    option_case,
    polars_values,
    pytrec_expected,
    with_group,
)  # fmt: skip
from tests.ties import GRID, brute_force, small_cases

TIES_GRID = cover(GRID)  # the whole GRID under HYPOTHESIS_PROFILE=full
# The grouped ties='average' run's summary statement under HYPOTHESIS_PROFILE=full only:
# the summary is the per-query statement's _values under one GROUP BY whatever the ties
# (engines/sqltwin/render.py _output_sql), checked on Spark by default with groups in
# test_options_equal_polars_and_pytrec_eval, and with ties='average' on PostgreSQL and
# DuckDB (tests/sql/test_render_ties.py)
TIES_SHAPES = (True, False) if FULL_GRIDS else (True,)

skip_without_spark()

from polars_rankeval.spark import evaluate as spark_evaluate

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


def test_options_equal_polars_and_pytrec_eval(spark: Any) -> None:
    """A run without repeated rows and one with (systems "A+repeated", "B+repeated") in one
    Spark query per output shape: each (system, day) group equals polars; the groups
    without repeated rows equal pytrec_eval too."""
    run, qrels = both_option_cases(51, 10)
    run_df, qrels_df = to_spark(spark, run), to_spark(spark, qrels)
    # repeated rows have no trec_eval counterpart
    expected = pytrec_expected(run.filter(~pl.col("system").str.ends_with("+repeated")), qrels)
    assert len(expected) > 1000
    for per_query in (True, False):
        want = polars_values(run, qrels, per_query=per_query)
        assert want.filter(pl.col("system").str.ends_with("+repeated")).height > 0
        # the front's dispatch and the module function, one each; the front checks the
        # frames (one Spark job), the second statement reads the same frames unchecked
        if per_query:
            result = rk.evaluate(run_df, qrels_df, MEASURES, per_query=per_query, **OPTIONS)
        else:
            result = spark_evaluate(run_df, qrels_df, MEASURES, per_query, check=False, **OPTIONS)
        got = to_polars(result, want.schema)
        assert_same(got, want, what=f"spark per_query={per_query}")
        keys = got.columns[:-2]  # groups (and query): the statement orders by them
        assert got.drop("value").rows() == want.sort(keys, maintain_order=True).drop("value").rows()
        assert_oracle(with_group(got), expected, by="group", per_query=per_query)


def test_options_are_checked_before_spark_runs(spark: Any) -> None:
    run, qrels = option_case(52, 2, duplicates=True)
    run_df, qrels_df = to_spark(spark, run), to_spark(spark, qrels)
    options = dict(OPTIONS, duplicates="error")
    with pytest.raises(rk.InputError, match=r"run: duplicate \(system, day, qid, doc id\) rows"):
        spark_evaluate(run_df, qrels_df, ["AP"], **options)
    with pytest.raises(rk.MeasureError, match="does not support ties='average'"):
        rk.evaluate(run_df, qrels_df, ["Bpref"], ties="average", **dict(OPTIONS, top=None,
                    duplicates="error"))  # fmt: skip
    with pytest.raises(rk.InputError, match="top=0"):
        spark_evaluate(run_df, qrels_df, ["AP"], **dict(OPTIONS, top=0))


def test_ties_average_equals_brute_force_and_polars(spark: Any) -> None:
    """ties="average" (no LGAMMA in Spark: Q(j) as a running sum of logarithms) through
    the rk.evaluate front, in one statement: a grouped tie-heavy run with custom names
    and, as one more (system, day) group of it, 40 small tie-heavy cases; every group
    equals the polars engine per query (and summary under HYPOTHESIS_PROFILE=full), and
    the 40 cases equal the mean over every ordering (tests/ties.py's brute force)."""
    run, qrels = small_cases(9, 40)  # query ids c<i>: none of make_data's
    want = brute_force(run, qrels, TIES_GRID, {})
    grouped, judgments = make_data(2)
    brute_group = [pl.lit("brute").alias("system"), pl.lit(0, pl.Int64).alias("day")]
    renamed = (pl.col(c).alias(COLUMNS[c]) for c in run.columns)
    runs = pl.concat([grouped, run.select(*brute_group, *renamed)])
    judgments = pl.concat([judgments, qrels.rename({c: COLUMNS[c] for c in qrels.columns})])
    runs_df, judgments_df = to_spark(spark, runs), to_spark(spark, judgments)
    by = ["system", "day"]
    for per_query in TIES_SHAPES:
        expected = polars_result(runs, judgments, TIES_GRID, by, per_query, ties="average")
        result = rk.evaluate(runs_df, judgments_df, TIES_GRID, per_query=per_query, by=by,
                             ties="average", **COLUMNS)  # fmt: skip
        got = to_polars(result, expected.schema)
        keys = [*by, "qid"] if per_query else by
        joined = expected.join(got, on=[*keys, "measure"], how="full", suffix="_spark")
        assert joined.height == expected.height == got.height
        assert (joined["value"] - joined["value_spark"]).abs().max() <= 1e-12  # type: ignore[operator]
        if per_query:
            brute = got.filter(pl.col("system") == "brute")
            found = {(q, m): v for q, m, v in brute.select("qid", "measure", "value").rows()}
            assert found.keys() == want.keys()
            assert max(abs(found[key] - value) for key, value in want.items()) <= 1e-12
