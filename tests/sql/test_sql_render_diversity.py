"""The diversity family through ``sql.render(..., subtopic=...)``: run for real on DuckDB
and on a throwaway PostgreSQL cluster (``tests/sql/postgres_cluster.py``), against
pyndeval (ndeval.c) per query and equal to the polars engine; Spark's rendering (a fold
over arrays, no recursion) is parsed here and run in tests/sql/test_spark_oracle.py;
BigQuery and Snowflake refuse the family by name.

The cases are many small random subtopic qrels and tie-heavy runs (as
``tests/diversity_cases.py``: graded, negative and unjudged, queries without relevant
subtopics, one-subtopic queries) stacked under distinct query ids, so that each engine
runs one statement.  ndeval's documented differences are skipped as in
tests/oracles/test_diversity.py (ERR-IA@1, alpha-DCG@1; nNRBP's NaN).
"""

from __future__ import annotations

import random
import warnings

import duckdb
import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval.sql import render
from tests.diversity_cases import compare_with_pyndeval, ndeval_pairs, stacked_cases
from tests.sql.postgres_cluster import MISSING, Postgres

pyndeval = pytest.importorskip("pyndeval")
pytest.importorskip("sqlglot")

PAIRS = ndeval_pairs()
OURS = [ours for ours, _ in PAIRS]


def _frames(qrels: list[tuple], run: list[tuple]) -> tuple[pl.DataFrame, pl.DataFrame]:
    q = pl.DataFrame(qrels, schema=["query", "subtopic", "item", "relevance"], orient="row")
    r = pl.DataFrame(run, schema=["query", "item", "score"], orient="row")
    return q, r


def _check(got: dict, qrels: list[tuple], run: list[tuple]) -> int:
    """got (query, measure) -> value against pyndeval and the polars engine; the count
    of values compared with pyndeval."""
    q, r = _frames(qrels, run)
    _equal_to_polars(got, r, q, OURS)
    return compare_with_pyndeval(got, qrels, run, PAIRS)


def _equal_to_polars(got: dict, run: pl.DataFrame, qrels: pl.DataFrame, measures: list[str]) -> None:
    """got (query, measure) -> value equals the polars engine's per-query values."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        want = rk.evaluate(run, qrels, measures, per_query=True)
    expected = {(a, m): v for a, m, v in want.iter_rows()}
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


def test_duckdb_render_matches_pyndeval_and_polars():
    qrels, run = stacked_cases(11, 60)
    q, r = _frames(qrels, run)
    con = duckdb.connect()
    con.register("run", r.to_arrow())
    con.register("qrels", q.to_arrow())
    sql = render(OURS, "duckdb", subtopic="subtopic")
    got = {(a, m): v for a, m, v in con.execute(sql).fetchall()}
    assert _check(got, qrels, run) > 2000


@pytest.mark.skipif(bool(MISSING), reason="PostgreSQL not installed")
def test_postgres_render_matches_pyndeval_and_polars(postgres: Postgres):
    qrels, run = stacked_cases(12, 60)
    q, r = _frames(qrels, run)
    postgres.load("run", r)
    postgres.load("qrels", q)
    sql = render(OURS, "postgres", subtopic="subtopic")
    out = postgres.query(sql, {"query": pl.String, "measure": pl.String, "value": pl.Float64})
    got = {(a, m): v for a, m, v in out.iter_rows()}
    assert _check(got, qrels, run) > 2000


@pytest.mark.skipif(bool(MISSING), reason="PostgreSQL not installed")
def test_postgres_render_weights_by_top_equal_polars(postgres: Postgres):
    """Intent weights, two systems (by=), top= and a summary, against the polars engine."""
    qrels, run = stacked_cases(13, 20)
    q, r = _frames(qrels, run)
    rng = random.Random(3)
    weights = {key: rng.choice([0.0, 0.5, 1.0, 3.0]) for key in {(a, s) for a, s, _, _ in qrels}}
    q = q.with_columns(pl.Series("w", [weights[(a, s)] for a, s, _, _ in qrels], pl.Float64))
    runs = pl.concat([r.with_columns(sys=pl.lit("A")), r.with_columns(sys=pl.lit("B"), score=-pl.col("score"))])
    names = ["nERR_IA@5", "ERR_IA@10", "P_IA@3", "AP_IA", "alpha_nDCG@5", "nNRBP", "AP"]
    postgres.load("runs", runs.select("sys", "query", "item", "score"))
    postgres.load("judgments", q)
    kw = {"by": "sys", "top": 5}
    sql = render(names, "postgres", run_table="runs", qrels_table="judgments", subtopic="subtopic",
                 intent_weight="w", per_query=False, **kw)  # fmt: skip
    got = postgres.query(sql, {"sys": pl.String, "measure": pl.String, "value": pl.Float64})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        want = rk.evaluate(runs, q, names, intent_weight="w", **kw)
    values = {(a, m): v for a, m, v in got.iter_rows()}
    expected = {(a, m): v for a, m, v in want.select("sys", "measure", "value").iter_rows()}
    assert values.keys() == expected.keys()
    for key, value in expected.items():
        assert values[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake"])
def test_other_dialects_refuse_by_name(dialect):
    with pytest.raises(rk.MeasureError, match=rf"nNRBP: the diversity measures .* render\(dialect='{dialect}'\) yet \(ndeval's greedy"):
        render(["AP", "nNRBP"], dialect, subtopic="subtopic")


def test_spark_rendering_is_a_fold_without_recursion():
    """Spark's recursive CTEs take no window over the recursive reference: its rendering
    has no WITH RECURSIVE and places the greedy ideal's ranks in a fold (run for real in
    tests/sql/test_spark_oracle.py); sqlglot parses it as Spark SQL."""
    import sqlglot

    sql = render(["alpha_nDCG@20", "nNRBP", "ERR_IA@5", "AP"], "spark", subtopic="subtopic")
    assert "RECURSIVE" not in sql and "AGGREGATE(SEQUENCE(1, " in sql
    sqlglot.parse_one(sql, read="spark")
    assert "RECURSIVE" not in render(["AP"], "spark", subtopic="subtopic")


def test_render_errors_name_the_measure():
    with pytest.raises(rk.MeasureError, match="alpha_nDCG@20 is a diversity measure: it needs subtopic qrels"):
        render(["alpha_nDCG@20"], "postgres")
    with pytest.raises(rk.MeasureError, match="ERR_IA needs a cutoff"):
        render(["ERR_IA"], "duckdb", subtopic="subtopic")
    con = duckdb.connect()
    con.register("run", pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]}).to_arrow())
    con.register("qrels", pl.DataFrame({"query": ["q", "q"], "subtopic": ["1", "1"], "item": ["a", "a"],
                                        "relevance": [1, 0]}).to_arrow())  # fmt: skip
    with pytest.raises(duckdb.Error, match=r"duplicate \(query, subtopic, item\)"):
        con.execute(render(["alpha_nDCG@5"], "duckdb", subtopic="subtopic")).fetchall()


def test_spark_engine_takes_the_family():
    """engine='spark' (rk.evaluate on a pyspark DataFrame) takes the family (no
    SparkSession needed to ask); ties='average' stays refused by the rendering."""
    from types import SimpleNamespace

    from polars_rankeval._parse import parse_measure
    from polars_rankeval.engines import spark

    spec = SimpleNamespace(options=SimpleNamespace(ties="trec_eval"))
    assert spark.supports(parse_measure("AP"), spec) is None  # type: ignore[arg-type]
    assert spark.supports(parse_measure("alpha_nDCG@20"), spec) is None  # type: ignore[arg-type]
    # every option reaches the rendering, which refuses ties='average' for the family
    with pytest.raises(rk.MeasureError, match=r"alpha_nDCG@20 does not support ties='average'"):
        render(["alpha_nDCG@20"], "spark", subtopic="subtopic", ties="average")


def test_dbt_package_refuses_the_family_where_the_adapter_has_no_recursive_windows():
    """The dbt package's diversity check dispatches on the adapter (only dbt-duckdb and
    dbt-postgres are run here, tests/sql/test_sql_dbt.py): recursive() is true for those
    two and false by default, and the refusal names the measure and says why."""
    from pathlib import Path

    macros = Path(__file__).resolve().parents[2] / "sql" / "dbt" / "macros"
    dialect = (macros / "_generated_dialect.sql").read_text()
    assert "{% macro default__recursive() %}{{ return(false) }}{% endmacro %}" in dialect
    for adapter in ("duckdb", "postgres"):
        assert f"{{% macro {adapter}__recursive() %}}{{{{ return(true) }}}}{{% endmacro %}}" in dialect
    for adapter in ("spark", "bigquery", "snowflake"):
        assert f"{adapter}__recursive" not in dialect
    evaluate = (macros / "_generated_evaluate.sql").read_text()
    assert "{%- if not rankeval.recursive() -%}" in evaluate
    assert ("the diversity measures need recursive CTEs with window functions over the recursive"
            " reference (ndeval's greedy ideal ranking)") in evaluate


PLAIN = ["AP", "nDCG@5", "P@5", "RR", "R@5", "nDCG"]


def _topic(qrels: list[tuple]) -> pl.DataFrame:
    """Topic qrels from subtopic qrels, collapsed here: an item's highest relevance."""
    best: dict[tuple[str, str], int] = {}
    for q, _, item, rel in qrels:
        best[(q, item)] = max(rel, best.get((q, item), rel))
    rows = [(q, item, rel) for (q, item), rel in best.items()]
    assert len(rows) < len(qrels)  # some item is judged under two subtopics
    return pl.DataFrame(rows, schema=["query", "item", "relevance"], orient="row")




def test_duckdb_render_plain_measures_see_the_highest_relevance():
    """Plain measures alone over subtopic qrels (subtopic=): the values over topic qrels
    collapsed in the test, rendered and through the polars engine."""
    qrels, run = stacked_cases(14, 20)
    q, r = _frames(qrels, run)
    con = duckdb.connect()
    con.register("run", r.to_arrow())
    con.register("qrels", q.to_arrow())
    con.register("topic", _topic(qrels).to_arrow())
    got = {(a, m): v for a, m, v in con.execute(render(PLAIN, "duckdb", subtopic="subtopic")).fetchall()}
    plain = con.execute(render(PLAIN, "duckdb", qrels_table="topic")).fetchall()
    assert got == {(a, m): v for a, m, v in plain}
    _equal_to_polars(got, r, _topic(qrels), PLAIN)


@pytest.mark.skipif(bool(MISSING), reason="PostgreSQL not installed")
def test_postgres_render_plain_measures_see_the_highest_relevance(postgres: Postgres):
    qrels, run = stacked_cases(15, 20)
    q, r = _frames(qrels, run)
    postgres.load("run", r)
    postgres.load("qrels", q)
    out = postgres.query(render(PLAIN, "postgres", subtopic="subtopic"),
                         {"query": pl.String, "measure": pl.String, "value": pl.Float64})  # fmt: skip
    _equal_to_polars({(a, m): v for a, m, v in out.iter_rows()}, r, _topic(qrels), PLAIN)
    postgres.load("qrels", q.with_columns(subtopic=pl.when(pl.col("item") == "d3").then(None).otherwise("subtopic")))
    with pytest.raises(RuntimeError, match="qrels column 'subtopic': subtopic is null"):
        postgres.query(render(["AP"], "postgres", subtopic="subtopic"), {})


@pytest.mark.parametrize("names", [["AP"], ["nDCG@3", "AP"], ["alpha_nDCG@3", "AP"]])
def test_render_checks_subtopic_qrels_without_a_diversity_measure(names):
    """With subtopic=, the subtopic qrels' checks raise whatever the measures."""
    con = duckdb.connect()
    con.register("run", pl.DataFrame({"query": ["q"] * 2, "item": ["a", "c"], "score": [2.0, 1.0]}).to_arrow())
    bad = {
        r"duplicate \(query, subtopic, item\)": (["1", "1", "2"], ["a", "a", "c"], None),
        "qrels column 'subtopic': subtopic is null": (["1", None, "2"], ["a", "b", "c"], None),
        r"qrels column 'w' \(intent_weight\) must be a finite weight >= 0": (["1", "1", "2"], ["a", "b", "c"], [1.0, 2.0, 1.0]),
    }  # fmt: skip
    for message, (subtopics, items, w) in bad.items():
        qrels = pl.DataFrame({"query": ["q"] * 3, "subtopic": subtopics, "item": items, "relevance": [1, 0, 1],
                              "w": w or [1.0] * 3})  # fmt: skip
        con.register("qrels", qrels.to_arrow())
        sql = render(names, "duckdb", subtopic="subtopic", intent_weight="w" if w else None)
        with pytest.raises(duckdb.Error, match=message):
            con.execute(sql).fetchall()
