"""polars_rankeval.spark.evaluate on Spark local mode against independent values, not the
polars engine: the other tools' formulas (``tests/conventions.py``) for the
non-default conventions; the diversity family (subtopic qrels) against pyndeval
(ndeval.c) per query, as tests/sql/test_sql_render_diversity.py does for DuckDB and
PostgreSQL (ndeval's documented differences skipped: no @1 cutoffs; nNRBP's NaN), and
against the polars engine with intent weights, ``by``, ``top`` and a summary.  pytrec_eval for every measure trec_eval has (the GRID of
``test_sql_parity``) is checked in ``test_spark.py::test_grid_matches_polars``, on the
same Spark query as the polars parity.

Skipped, with the reason, only when pyspark or Java is absent (the worker's one
SparkSession, ``spark`` in ``tests/sql/conftest.py``).
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import polars as pl
import pytest

import polars_rankeval as rk
from tests.conventions import conventions_frames, expected_values, random_conventions_case
from tests.diversity_cases import (
    MISSING_COLUMN_CASES,
    SUBTOPIC_QRELS,
    check_missing_column_error,
    compare_with_pyndeval,
    ndeval_pairs,
    stacked_cases,
)
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


ND_PAIRS = ndeval_pairs()


def _subtopic_frames(qrels: list[tuple], run: list[tuple]) -> tuple[pl.DataFrame, pl.DataFrame]:
    q = pl.DataFrame(qrels, schema=["query", "subtopic", "item", "relevance"], orient="row")
    r = pl.DataFrame(run, schema=["query", "item", "score"], orient="row")
    return r, q


def test_diversity_equals_pyndeval_and_polars(spark: Any) -> None:
    """One statement, 40 stacked random cases, every diversity family per query."""
    pytest.importorskip("pyndeval")
    qrels, run = stacked_cases(31, 40)
    r, q = _subtopic_frames(qrels, run)
    names = [ours for ours, _ in ND_PAIRS]
    result = spark_evaluate(to_spark(spark, r), to_spark(spark, q), names, True,
                            subtopic="subtopic")  # fmt: skip
    schema = pl.Schema({"query": pl.String, "measure": pl.String, "value": pl.Float64})
    got = {(a, m): v for a, m, v in to_polars(result, schema).iter_rows()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        want = rk.evaluate(r, q, names, per_query=True)
    assert got.keys() == {(a, m) for a, m, _ in want.iter_rows()}
    for a, m, v in want.iter_rows():
        assert got[(a, m)] == pytest.approx(v, rel=1e-12, abs=1e-12), (a, m)
    assert compare_with_pyndeval(got, qrels, run, ND_PAIRS) > 1500


def test_diversity_weights_by_top_summary_equal_polars(spark: Any) -> None:
    """rk.evaluate on pyspark DataFrames (engine='spark'): intent weights, two systems,
    top= and a summary, plain measures beside, against the polars engine."""
    qrels, run = stacked_cases(32, 15)
    r, q = _subtopic_frames(qrels, run)
    rng = random.Random(4)
    weights = {key: rng.choice([0.0, 0.5, 1.0, 3.0]) for key in sorted({(a, s) for a, s, _, _ in qrels})}
    q = q.with_columns(pl.Series("w", [weights[(a, s)] for a, s, _, _ in qrels], pl.Float64))
    runs = pl.concat([r.with_columns(sys=pl.lit("A")),
                      r.with_columns(sys=pl.lit("B"), score=-pl.col("score"))])  # fmt: skip
    names = ["nERR_IA@5", "ERR_IA@10", "P_IA@3", "AP_IA", "alpha_nDCG@5", "nNRBP",
             "NRBP(alpha=0.3, beta=0.8)", "nNRBP(beta=1)", "StRecall", "AP", "nDCG@5"]  # fmt: skip
    kw: dict[str, Any] = {"by": "sys", "top": 5, "intent_weight": "w"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        want = rk.evaluate(runs, q, names, **kw)
        result = rk.evaluate(to_spark(spark, runs), to_spark(spark, q), names, **kw)
    got = to_polars(result, pl.Schema({"sys": pl.String, "measure": pl.String, "value": pl.Float64}))
    values = {(a, m): v for a, m, v in got.iter_rows()}
    expected = {(a, m): v for a, m, v in want.select("sys", "measure", "value").iter_rows()}
    assert values.keys() == expected.keys()
    for key, value in expected.items():
        assert values[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


def test_subtopic_qrels_for_plain_measures(spark: Any) -> None:
    """rk.evaluate on pyspark DataFrames whose qrels hold the subtopic column, plain
    measures alone: the values over topic qrels collapsed here (an item's highest
    relevance), through the polars engine; a null subtopic raises as beside a diversity
    measure."""
    qrels, run = stacked_cases(33, 12)
    r, q = _subtopic_frames(qrels, run)
    best: dict[tuple[str, str], int] = {}
    for a, _, item, grade in qrels:
        best[(a, item)] = max(grade, best.get((a, item), grade))
    assert len(best) < len(qrels)  # some item is judged under two subtopics
    topic = pl.DataFrame([(a, i, g) for (a, i), g in best.items()], schema=["query", "item", "relevance"], orient="row")
    names = ["AP", "nDCG@5", "P@5", "RR", "nDCG"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        want = rk.evaluate(r, topic, names, per_query=True)
        result = rk.evaluate(to_spark(spark, r), to_spark(spark, q), names, per_query=True)
    got = to_polars(result, pl.Schema({"query": pl.String, "measure": pl.String, "value": pl.Float64}))
    values = {(a, m): v for a, m, v in got.iter_rows()}
    expected = {(a, m): v for a, m, v in want.iter_rows()}
    assert values.keys() == expected.keys()
    for key, value in expected.items():
        assert values[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
    null = q.with_columns(subtopic=pl.when(pl.col("item") == "d3").then(None).otherwise("subtopic"))
    for measures in (["AP"], ["AP", "alpha_nDCG@5"]):
        with pytest.raises(rk.InputError, match="qrels column 'subtopic': subtopic is null"):
            rk.evaluate(to_spark(spark, r), to_spark(spark, null), measures)
        # without the DataFrame checks, the SQL's own, on inputs of rows; on Arrow's local
        # relations (a known small size: another plan) the same error reaches Python as
        # py4j's Py4JJavaError, not a pyspark error (benchmarks/TEST_TIMES.md, spark31:
        # left for the package)
        unchecked = spark_evaluate(to_spark(spark, r, rows=True), to_spark(spark, null, rows=True),
                                   measures, check=False, subtopic="subtopic")  # fmt: skip
        with pytest.raises(Exception, match="qrels column 'subtopic': subtopic is null") as error:
            unchecked.collect()
        assert type(error.value).__module__.startswith("pyspark")


def test_a_missing_subtopic_qrels_column_is_named(spark: Any) -> None:
    """Subtopic qrels missing a column, through rk.evaluate on pyspark DataFrames and
    polars_rankeval.spark.evaluate: the polars engine's message (Spark's own analysis
    error named the column only inside its plan), no diversity measure blamed unless
    asked."""
    qrels = pl.DataFrame(SUBTOPIC_QRELS)
    run = to_spark(spark, pl.DataFrame({"query": ["q1", "q1"], "item": ["a", "b"], "score": [2.0, 1.0]}))
    for drop, names, keywords, start, named in MISSING_COLUMN_CASES:
        q = to_spark(spark, qrels.drop(drop) if drop else qrels)
        with pytest.raises(rk.InputError) as error:
            rk.evaluate(run, q, names, **keywords)
        check_missing_column_error(str(error.value), start, named)
        if drop != "subtopic":  # by hand, subtopic= says the qrels are subtopic qrels
            with pytest.raises(rk.InputError) as error:
                spark_evaluate(run, q, names, subtopic="subtopic", **keywords)
            check_missing_column_error(str(error.value), start, named)


def test_subtopic_rule_is_the_polars_engines(spark: Any) -> None:
    """Spark reads subtopic qrels by the polars engine's rule
    (diversity.compute.reads_subtopics, not a second spelling of it): a diversity
    measure without qrels raises the polars engine's error, word for word (Spark's
    MeasureError from sql.render before), and qrels holding the subtopic column are
    subtopic qrels for a plain measure (a repeated (query, item) across subtopics is
    no duplicate)."""
    run = pl.DataFrame({"query": ["q1", "q1"], "item": ["a", "b"], "score": [2.0, 1.0], "relevant": [1, 0]})
    errors = []
    for frame in (run, to_spark(spark, run)):
        with pytest.raises(rk.InputError) as error:
            rk.evaluate(frame, None, ["AP", "alpha_nDCG@20"])
        errors.append(str(error.value))
    assert errors[0] == errors[1] == "alpha_nDCG@20: diversity measures need subtopic qrels (query, subtopic, item, relevance)"
    qrels = pl.DataFrame({"query": ["q1", "q1"], "subtopic": ["x", "y"], "item": ["b", "b"], "relevance": [1, 2]})
    got = rk.evaluate(to_spark(spark, run.drop("relevant")), to_spark(spark, qrels), ["AP"]).collect()
    assert [tuple(row) for row in got] == [("AP", 0.5)]  # b, the one relevant item, at rank 2
