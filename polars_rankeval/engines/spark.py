"""Evaluate on a Spark cluster: the SQL entry point rendered for Spark SQL, run on pyspark DataFrames.

Needs the optional extra ``pip install 'polars_rankeval[spark]'`` (pyspark and sqlglot).
The numbers equal :func:`polars_rankeval.evaluate`'s to 1e-9.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from polars_rankeval._docparams import fill_params
from polars_rankeval._errors import InputError
from polars_rankeval._parse import parse_measure
from polars_rankeval._registry import Measure
from polars_rankeval._sqlentry import FAMILIES_SQL
from polars_rankeval.diversity.compute import check_subtopic_columns, reads_subtopics
from polars_rankeval.diversity.families import is_diversity
from polars_rankeval.engines.spec import Spec
from polars_rankeval.engines.sqltwin.render import render
from polars_rankeval.options import Columns, EvalOptions
from polars_rankeval.prepare.checks import FRAME_ORDER

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["NAME", "evaluate", "evaluate_spec", "supports"]

NAME = "spark"


def _backticked(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _check(
    run_df: DataFrame, qrels_df: DataFrame | None, *, columns: dict[str, str],
    by: Sequence[str], duplicates: str,
) -> None:
    """One aggregation per frame, both in one Spark job: null ids, null/NaN scores,
    duplicate rows; raises :class:`InputError` as the polars engine does, in its order (the
    qrels first, :data:`~polars_rankeval.prepare.checks.FRAME_ORDER`), with a first
    offending row (read only then).  The SQL raises on the same problems, but only when
    the result is computed."""
    from pyspark.sql import functions as F

    query, item, subtopic = columns["query"], columns["item"], columns.get("subtopic")
    frames = [_SparkFrame("run", run_df, columns["order"], columns["order_noun"], [*by, query, item],
                          duplicates == "error", "")]
    if qrels_df is not None:
        # subtopic qrels judge an item once per subtopic
        key = [query, subtopic, item] if subtopic else [query, item]
        frames.append(_SparkFrame("qrels", qrels_df, columns["relevance"], "relevance", key, True, subtopic or ""))
    problems = {frame.what: _spark_problems(frame, query, item) for frame in frames}
    counts = None
    for frame in frames:
        row = frame.df.select(F.lit(frame.what).alias("frame"), *[
            count.alias(name) for name, (_, count, _) in problems[frame.what].items()])
        counts = row if counts is None else counts.unionByName(row, allowMissingColumns=True)
    assert counts is not None
    found = {row["frame"]: row for row in counts.collect()}
    # every engine's order: the qrels' checks, then the run's
    for frame in sorted(frames, key=lambda frame: FRAME_ORDER.index(frame.what)):
        for name, (message, _, offending) in problems[frame.what].items():
            if found[frame.what][name]:
                rows = offending().limit(1).collect()
                shown = str(rows[0].asDict()) if rows else "(none)"
                raise InputError(f"{message}: {found[frame.what][name]} row(s); example row: {shown}")


class _SparkFrame(NamedTuple):
    """One frame :func:`_check` reads: ``value`` the score/rank or relevance column (``noun``
    says which, for the message), ``key`` the columns a row is unique by (when ``unique``), ``subtopic`` the qrels'
    subtopic column ('' for none)."""

    what: str
    df: DataFrame
    value: str
    noun: str
    key: list[str]
    unique: bool
    subtopic: str


def _spark_problems(frame: _SparkFrame, query: str, item: str) -> dict[str, tuple[str, Any, Any]]:
    """Each check of ``frame`` in the polars engine's order (subtopic qrels: ids, then
    values): its message, its count (a Spark aggregate) and its offending rows (a
    function returning a DataFrame, run only to show an example)."""
    from pyspark.sql import functions as F

    def col(name: str) -> Any:
        return F.col(_backticked(name))

    def null(name: str) -> tuple[Any, Any]:
        return col(name).isNull(), lambda: frame.df.filter(col(name).isNull())

    what, df, value, key = frame.what, frame.df, frame.value, frame.key
    checks = {"query": (f"{what} column {query!r}: query id is null", *null(query))}
    if frame.subtopic:
        checks["subtopic"] = (f"{what} column {frame.subtopic!r}: subtopic is null", *null(frame.subtopic))
    checks["item"] = (f"{what} column {item!r}: item id is null", *null(item))
    as_double = col(value).cast("double")
    bad_value = col(value).isNull() | F.isnan(as_double) | as_double.isin(math.inf, -math.inf)
    # the polars engine's words: NaN and infinity are named only for a float column
    floating = df.schema[value].dataType.typeName() in ("float", "double")
    problem = "is null, NaN or infinite" if floating else "is null"
    checks["value"] = (f"{what} column {value!r}: {frame.noun} {problem}", bad_value,
                       lambda: df.filter(bad_value))  # fmt: skip
    if frame.unique:
        groups = df.groupBy(*[col(k) for k in key]).agg(F.count(F.lit(1)).alias("_rk_rows"))
        repeated = groups.filter(F.col("_rk_rows") > 1).drop("_rk_rows")
        checks["repeated"] = (f"{what}: duplicate ({', '.join(key)}) rows", None,
                              lambda: df.join(repeated.limit(1), on=key, how="left_semi"))  # fmt: skip
    counts = {name: F.sum(F.when(bad, 1).otherwise(0)).cast("bigint")
              for name, (_, bad, _) in checks.items() if name != "repeated"}
    # rows beyond the distinct keys (count_distinct skips a null key: the null checks come first)
    counts["repeated"] = F.count(F.lit(1)) - F.count_distinct(*[col(k) for k in key])
    return {name: (message, counts[name], rows) for name, (message, _, rows) in checks.items()}


@fill_params
def evaluate(
    run_df: DataFrame, qrels_df: DataFrame | None,
    measures: str | Iterable[str] = ("AP", "nDCG@10", "P@10", "R@100", "RR"),
    per_query: bool = False,
    *, by: str | Sequence[str] | None = None, complete: bool = False,
    conventions: str = "trec_eval", duplicates: str = "error", rel: float | None = None,
    top: int | None = None, ties: str = "trec_eval", check: bool = True,
    query: str = "query", item: str = "item", rank: str | None = "rank",
    score: str | None = "score", relevant: str = "relevant", relevance: str = "relevance",
    subtopic: str | None = None, intent_weight: str | None = None,
) -> DataFrame:  # fmt: skip
    """Evaluate a run held in a pyspark DataFrame; returns a pyspark DataFrame.

    The query is :func:`polars_rankeval.sql.render` for Spark SQL over temporary views
    of the two DataFrames, run on the run DataFrame's SparkSession.

    Parameters
    ----------
    run_df, qrels_df
        The run and the qrels, as ``run`` and ``qrels`` of :func:`polars_rankeval.evaluate`
        (the score column when the run has it, else the rank column); ``qrels_df=None``
        takes the relevance from the run's ``relevant`` column (not with ``by``, ``top``
        or ``duplicates="first"``).
    {params: measures, per_query, by, complete, conventions, duplicates, rel, top, ties}
    check
        First count null ids, null or NaN scores and duplicate rows of run and qrels (one
        Spark job for both) and raise :class:`~polars_rankeval.InputError` on any (the
        SQL raises on them too, when the result is computed).
    {params: query, item, rank, score, relevant, relevance, subtopic@sql, intent_weight}
    """
    use_score = score is not None and score in run_df.columns
    order = score if use_score else (rank or "rank")
    assert order is not None
    keys = EvalOptions(by=by).by  # type: ignore[arg-type]  # checked and made a tuple
    tag = uuid.uuid4().hex
    views = {"run": f"rankeval_run_{tag}", "qrels": f"rankeval_qrels_{tag}"}
    sql = render(
        measures, "spark", run_table=views["run"],
        qrels_table=views["qrels"] if qrels_df is not None else None, by=keys,
        per_query=per_query, conventions=conventions, rel=rel, complete=complete, top=top,
        ties="first" if ties == "trec_eval" else ties, duplicates=duplicates, query=query,
        item=item, score=order if use_score else None, rank=None if use_score else order,
        relevant=relevant, relevance=relevance, subtopic=subtopic, intent_weight=intent_weight,
    )  # fmt: skip
    if subtopic is not None and qrels_df is not None:  # the polars engine's message
        columns = Columns(query, item, rank, score, relevant, relevance, subtopic, intent_weight)
        _check_subtopics(qrels_df, measures, columns, conventions=conventions, rel=rel)
    if check:
        _check(run_df, qrels_df, by=keys, duplicates=duplicates, columns={
            "query": query, "item": item, "order": order, "relevance": relevance,
            "order_noun": "score" if use_score else "rank", "subtopic": subtopic or ""})  # fmt: skip
    return _query_views(run_df, qrels_df, views, sql)


def _check_subtopics(
    qrels_df: DataFrame, measures: str | Iterable[str], columns: Columns, *,
    conventions: str, rel: float | None,
) -> None:
    """The subtopic qrels' columns checked as every engine checks them (the diversity
    measures need the subtopic column, ``intent_weight=`` its column)."""
    names = [measures] if isinstance(measures, str) else list(measures)
    diverse = [n for n in names if is_diversity(parse_measure(n, conventions=conventions, rel=rel))]
    check_subtopic_columns(qrels_df.columns, columns, diverse)


def _query_views(
    run_df: DataFrame, qrels_df: DataFrame | None, views: dict[str, str], sql: str
) -> DataFrame:
    """``sql`` run on the run's SparkSession with the frames as the temporary ``views``,
    dropped before returning: the analysed plan keeps the views' plans."""
    session = run_df.sparkSession
    run_df.createOrReplaceTempView(views["run"])
    if qrels_df is not None:
        qrels_df.createOrReplaceTempView(views["qrels"])
    try:
        return session.sql(sql)
    finally:
        session.catalog.dropTempView(views["run"])
        if qrels_df is not None:
            session.catalog.dropTempView(views["qrels"])


def supports(measure: Measure, spec: Spec) -> str | None:
    """Every measure of the SQL entry point, with every option (None: supported); the
    reason otherwise."""
    del spec  # every option renders (ties='average' too: sql.render checks the measures)
    if measure.family.name not in FAMILIES_SQL:
        return f"{measure}: engine='spark' has no SQL formula for {measure.family.name} yet"
    return None


def evaluate_spec(spec: Spec, *, conventions: str, rel: float | None) -> DataFrame:
    """``rk.evaluate`` on pyspark DataFrames: :func:`evaluate` with the spec's options
    (subtopic qrels by every engine's rule,
    :func:`~polars_rankeval.diversity.compute.reads_subtopics`)."""
    c, o = spec.columns, spec.options
    subtopics = reads_subtopics(spec)
    return evaluate(
        spec.run, spec.qrels, spec.names, o.per_query, by=o.by, complete=o.complete,
        conventions=conventions, duplicates=o.duplicates, rel=rel, top=o.top, ties=o.ties,
        query=c.query, item=c.item, score=c.score, rank=c.rank, relevant=c.relevant,
        relevance=c.relevance, subtopic=c.subtopic if subtopics else None,
        intent_weight=c.intent_weight if subtopics else None,
    )  # fmt: skip
