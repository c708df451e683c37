"""Evaluate on a Spark cluster: the SQL twin rendered for Spark SQL, run on pyspark DataFrames.

Needs the optional extra ``pip install 'polars_rankeval[spark]'`` (pyspark and sqlglot).
The numbers equal :func:`polars_rankeval.evaluate`'s to 1e-9.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from polars_rankeval._errors import InputError
from polars_rankeval._registry import Measure
from polars_rankeval.engines.spec import Spec
from polars_rankeval.engines.sqltwin.render import render

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["NAME", "evaluate", "evaluate_spec", "supports"]

NAME = "spark"


def _backticked(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _check(run_df: DataFrame, qrels_df: DataFrame | None, *, columns: dict[str, str]) -> None:
    """One aggregation per frame: null ids, null/NaN scores, duplicate rows; raises
    :class:`InputError` as the polars engine does (without the example row)."""
    from pyspark.sql import functions as F

    def col(name: str) -> Any:
        return F.col(_backticked(name))

    def bad(predicate: Any) -> Any:
        return F.sum(F.when(predicate, 1).otherwise(0))

    query, item = columns["query"], columns["item"]
    frames = [("run", run_df, columns["order"])]
    if qrels_df is not None:
        frames.append(("qrels", qrels_df, columns["relevance"]))
    for what, frame, value in frames:
        row = frame.select(
            bad(col(query).isNull()).alias("query"),
            bad(col(item).isNull()).alias("item"),
            bad(col(value).isNull() | F.isnan(col(value).cast("double"))).alias("value"),
            (F.count(F.lit(1)) - F.count_distinct(col(query), col(item))).alias("repeated"),
        ).first()
        problems = {
            "query": f"{what} column {query!r}: query id is null",
            "item": f"{what} column {item!r}: item id is null",
            "value": f"{what} column {value!r}: value is null or NaN",
            "repeated": f"{what}: duplicate ({query}, {item}) rows",
        }
        for key, message in problems.items():
            count = (row[key] or 0) if row is not None else 0
            if count:
                raise InputError(f"{message}: {count} row(s)")


def evaluate(
    run_df: DataFrame,
    qrels_df: DataFrame | None,
    measures: str | Iterable[str] = ("AP", "nDCG@10", "P@10", "R@100", "RR"),
    per_query: bool = False,
    *,
    conventions: str = "trec_eval",
    rel: float | None = None,
    check: bool = True,
    query: str = "query",
    item: str = "item",
    score: str | None = "score",
    rank: str = "rank",
    relevant: str = "relevant",
    relevance: str = "relevance",
) -> DataFrame:
    """Evaluate a run held in a pyspark DataFrame; returns a pyspark DataFrame.

    ``measure, value`` (means over the queries in both run and qrels; sums for the
    count measures) or, with ``per_query=True``, ``query, measure, value``.  Columns and
    conventions as in :func:`polars_rankeval.evaluate`; ``qrels_df=None`` takes the
    relevance from the run's ``relevant`` column.  ``check=True`` first counts null
    ids, null or NaN scores and duplicate (query, item) rows in one Spark job each for
    run and qrels and raises :class:`~polars_rankeval.InputError` on any.

    The query is :func:`polars_rankeval.sql.render` for Spark SQL over temporary views
    of the two DataFrames, run on the run DataFrame's SparkSession.
    """
    session = run_df.sparkSession
    use_score = score is not None and score in run_df.columns
    order = score if use_score else rank
    if check:
        _check(
            run_df,
            qrels_df,
            columns={"query": query, "item": item, "order": order or rank,
                     "relevance": relevance},
        )
    tag = uuid.uuid4().hex
    run_view = f"rankeval_run_{tag}"
    qrels_view = f"rankeval_qrels_{tag}" if qrels_df is not None else None
    run_df.createOrReplaceTempView(run_view)
    if qrels_df is not None:
        assert qrels_view is not None
        qrels_df.createOrReplaceTempView(qrels_view)
    try:
        sql = render(
            measures,
            "spark",
            run_table=run_view,
            qrels_table=qrels_view,
            per_query=per_query,
            conventions=conventions,
            rel=rel,
            query=query,
            item=item,
            score=order if use_score else None,
            rank=rank,
            relevant=relevant,
            relevance=relevance,
        )
        # the analysed plan keeps the views' plans: the views can go right away
        result = session.sql(sql)
    finally:
        session.catalog.dropTempView(run_view)
        if qrels_view is not None:
            session.catalog.dropTempView(qrels_view)
    return result


def supports(measure: Measure, spec: Spec) -> str | None:
    """Every measure with a SQL twin, with trec_eval's defaults for the options (None:
    supported); the reason otherwise."""
    from polars_rankeval.engines.duckdb import supports as has_sql_twin

    options = spec.options
    unsupported = [
        name
        for name, used in (
            ("by=", bool(options.by)),
            ("complete=True", options.complete),
            ("top=", options.top is not None),
            ("ties='average'", options.ties == "average"),
            ("duplicates='first'", options.duplicates == "first"),
        )
        if used
    ]
    if unsupported:
        return (
            f"engine='spark' does not support {', '.join(unsupported)} yet; use the polars "
            "or duckdb engine (e.g. on run_df.toPandas() through polars)"
        )
    return has_sql_twin(measure, spec)


def evaluate_spec(spec: Spec, *, conventions: str, rel: float | None) -> DataFrame:
    """``rk.evaluate`` on pyspark DataFrames: :func:`evaluate` with the spec's options."""
    c = spec.columns
    return evaluate(
        spec.run, spec.qrels, spec.names, spec.options.per_query,
        conventions=conventions, rel=rel, query=c.query, item=c.item, score=c.score,
        rank=c.rank or "rank", relevant=c.relevant, relevance=c.relevance,
    )
