"""polars_rankeval.spark.evaluate on Spark local mode must match the polars engine to 1e-9
(and, on the grid with text ids, pytrec_eval for every measure trec_eval has).

The SparkSession is the worker's one session (``spark`` in ``tests/sql/conftest.py``).
Skipped, with the reason, only when pyspark or Java is absent; ``.ci/install_engines.sh``
installs pyspark (Java 17 is expected on the machine).
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import polars_rankeval as rk
from tests.parity import (
    GRID,
    NO_NUMREL,
    Expected,
    assert_oracle,
    assert_same,
    oracle,
    polars_reference,
    random_cases,
    stacked_cases,
)
from tests.sql.spark_frames import skip_without_spark, to_polars, to_spark
from tests.sql.warehouse_cases import FULL_GRIDS, cover, cover_families

skip_without_spark()

from polars_rankeval.spark import evaluate as spark_evaluate

pytestmark = [
    pytest.mark.slow,  # a JVM starts for these tests
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


def _check(
    spark: Any, run: pl.DataFrame, qrels: pl.DataFrame | None, names: list[str], *,
    expected: Expected | None = None, shapes: tuple[bool, ...] = (True, False), **kw: Any,
) -> None:
    """Per query and summary (``shapes``: the ``per_query`` values) equal to polars (and to
    ``expected``, pytrec_eval's values, when given); the data checks run with the first
    call only (the same frames)."""
    run_df = to_spark(spark, run)
    qrels_df = None if qrels is None else to_spark(spark, qrels)
    for per_query in shapes:
        want = polars_reference(run, qrels, names, per_query=per_query, **kw)
        result = spark_evaluate(run_df, qrels_df, names, per_query, check=per_query, **kw)
        got = to_polars(result, want.schema)
        assert_same(got, want, what=f"spark per_query={per_query}")
        if not per_query:
            assert got["measure"].to_list() == want["measure"].to_list()
        if expected is not None:
            assert_oracle(got, expected, by=None, per_query=per_query)


# The summary statement is the per-query one's ``_values`` with one GROUP BY on top
# (engines/sqltwin/render.py ``_output_sql``): its Spark rendering is checked on the
# whole GRID with text ids under HYPOTHESIS_PROFILE=full (against polars and
# pytrec_eval's means), with custom names and, by default, in test_spark_options.py (its
# cover of the measures, by groups, complete, top, the rk.evaluate front), so the
# int ids, the rank column and the run's own labels, which change the rows of ``_values``
# only, are checked per query: one Spark statement each (~35 s of JVM CPU for the grid).
PER_QUERY = (True,)
# every family, parameter value, cutoff or none and rel level at least once (the whole
# GRID under HYPOTHESIS_PROFILE=full): a Spark statement's CPU grows with its measures,
# slowly (~3 s of JVM CPU for a few measures, ~13 s for these 90); the same cells split
# into three statements cost 66% more (benchmarks/TEST_TIMES.md "suite26")
SPARK_GRID = cover(GRID)
# Integer ids change only what every family shares (the ranking's tie-break on the id as
# text, the joins to the qrels on the ids), not a family's formula: with them the grid
# asks for each family once (at the cutoff 3 where it has one), every CTE of SPARK_GRID's
# statement (nDCG(ideal=run)'s too); the whole GRID under HYPOTHESIS_PROFILE=full
INT_ID_GRID = cover_families(GRID)
# The grid's summary statement (one more statement of every family) runs under
# HYPOTHESIS_PROFILE=full only: by default the summary's rendering (each family's
# aggregation rule over the per-query values checked here) is held by
# test_spark_options.py's summary of its cover of the measures (by groups, against polars
# and pytrec_eval's means) and by test_column_names_and_conventions
GRID_SHAPES = (True, False) if FULL_GRIDS else PER_QUERY


@pytest.mark.parametrize("int_ids", [False, True], ids=["text_ids", "int_ids"])
def test_grid_matches_polars(spark: Any, int_ids: bool) -> None:
    """One Spark query per query (and, under HYPOTHESIS_PROFILE=full, a summary one with
    text ids), equal to polars; with text ids two case sets (seeds 11 and 31), equal per
    query (and on the mean) to pytrec_eval too wherever it has the measure (trec_eval
    breaks ties by the text id); with integer ids each family once (INT_ID_GRID)."""
    if int_ids:
        data = random_cases(11, 20, int_ids=True)
        _check(spark, data["run"], data["qrels"], INT_ID_GRID, shapes=PER_QUERY)
        return
    data = stacked_cases((11, 31), 20, int_ids=False)
    expected = oracle(data["run"], data["qrels"], SPARK_GRID)
    assert len(expected) > 200
    _check(spark, data["run"], data["qrels"], SPARK_GRID, expected=expected, shapes=GRID_SHAPES)


def test_rank_column_and_no_qrels(spark: Any) -> None:
    data = random_cases(12, 12, int_ids=False)
    names = ["AP", "nDCG@3", "P@3", "RR", "Bpref"]
    _check(spark, data["ranked"], data["qrels"], names, score=None, shapes=PER_QUERY)
    no_qrels = cover([n for n in NO_NUMREL if "@10" not in n])
    _check(spark, data["labels"], None, no_qrels, shapes=PER_QUERY)


def test_column_names_and_conventions(spark: Any) -> None:
    data = random_cases(13, 8, int_ids=False)
    run = data["run"].rename({"query": "qid", "item": "doc id", "score": "s"})
    qrels = data["qrels"].rename({"query": "qid", "item": "doc id", "relevance": "grade"})
    _check(
        spark, run, qrels, ["AP@3", "nDCG@3", "R@3"], conventions="spark", rel=2,
        query="qid", item="doc id", score="s", relevance="grade",
    )  # fmt: skip


def test_bad_input_is_refused(spark: Any) -> None:
    data = random_cases(14, 2, int_ids=False)
    run = pl.concat([data["run"], data["run"].head(1)])
    with pytest.raises(rk.InputError, match="duplicate") as error:
        spark_evaluate(to_spark(spark, run), to_spark(spark, data["qrels"]), ["AP"])
    # the message shows the offending row, as the polars engine's do
    assert str(error.value).endswith(f"1 row(s); example row: {data['run'].row(0, named=True)}")
    nan = data["run"].with_columns(pl.when(pl.col("item") == data["run"]["item"][1])
                                   .then(float("nan")).otherwise("score").alias("score"))  # fmt: skip
    with pytest.raises(rk.InputError, match="NaN") as error:
        spark_evaluate(to_spark(spark, nan), to_spark(spark, data["qrels"]), ["AP"])
    assert "'score': nan}" in str(error.value).split("example row: ")[1]
    infinite = data["run"].with_columns(pl.when(pl.col("item") == data["run"]["item"][1])
                                        .then(float("-inf")).otherwise("score").alias("score"))  # fmt: skip
    # refused before any job, in the polars engine's words, not by the SQL's raise_error
    with pytest.raises(rk.InputError, match=r"run column 'score': score is null, NaN or infinite: 1 row\(s\)") as error:
        spark_evaluate(to_spark(spark, infinite), to_spark(spark, data["qrels"]), ["AP"])
    assert "'score': -inf}" in str(error.value).split("example row: ")[1]
    null_id = data["qrels"].with_columns(query=pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise("query"))
    with pytest.raises(rk.InputError, match="query id is null") as error:
        spark_evaluate(to_spark(spark, data["run"]), to_spark(spark, null_id), ["AP"])
    assert str(error.value).endswith(f"example row: {null_id.row(0, named=True)}")


def test_the_qrels_fault_is_reported_before_the_runs(spark: Any) -> None:
    """A run fault and a qrels fault at once: Spark's checks name the qrels' first, as
    the polars and DuckDB engines do (prepare.checks.FRAME_ORDER; the run's before)."""
    run = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q1", "q2"], "item": ["a", "c"], "relevance": [1, 1]})
    null_score = run.with_columns(score=pl.when(pl.col("item") == "b").then(None).otherwise("score"))
    cases = [
        (null_score, pl.concat([qrels, qrels.head(1)]), r"^qrels: duplicate \(query, item\) rows: 1 row"),
        (pl.concat([run, run.head(1)]), qrels.with_columns(relevance=pl.lit(None, pl.Int64)),
         r"^qrels column 'relevance': relevance is null: 2 row"),
        (null_score, qrels.with_columns(item=pl.lit(None, pl.String)), r"^qrels column 'item': item id is null: 2 row"),
    ]  # fmt: skip
    for r, q, message in cases:
        with pytest.raises(rk.InputError, match=message):
            rk.evaluate(to_spark(spark, r), to_spark(spark, q), ["AP"])
