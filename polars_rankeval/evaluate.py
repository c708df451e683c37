"""``evaluate(run, qrels, measures)``: the one front of every engine.

It checks the arguments once (:class:`~polars_rankeval.options.EvalOptions`,
:class:`~polars_rankeval.options.Columns`, the measure names), hands a
:class:`~polars_rankeval.engines.spec.Spec` to the chosen engine's ``per_query`` and
finishes the result (:mod:`polars_rankeval.engines.finish`: summary or per-query rows).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any, overload

import polars as pl

from polars_rankeval._docparams import fill_params
from polars_rankeval._errors import InputError, MeasureError, not_a_frame
from polars_rankeval._parse import resolve_measures
from polars_rankeval.engines import engine as engine_module
from polars_rankeval.engines import is_spark_frame
from polars_rankeval.engines.finish import long_frame, summarize
from polars_rankeval.engines.spec import Spec
from polars_rankeval.options import Columns, EvalOptions
from polars_rankeval.prepare.names import alias_columns

__all__ = ["evaluate", "resolve_measures"]

DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "R@100", "RR")
# output columns of the long frame: a key column may not take their names
OUTPUT_COLUMNS = ("measure", "value")


def _check_frames(run: Any, qrels: Any, engine: str) -> None:
    for what, frame in (("run", run), ("qrels", qrels)):
        if frame is None and what == "qrels":
            continue
        if engine == "spark" and not is_spark_frame(frame):
            raise InputError(
                f"engine='spark' needs pyspark DataFrames; {what} is a "
                f"{type(frame).__module__}.{type(frame).__name__}"
            )
        if engine != "spark" and not isinstance(frame, pl.DataFrame | pl.LazyFrame):
            raise not_a_frame(what, frame, "a polars DataFrame or LazyFrame (or a pyspark DataFrame)")


def _check_keys(columns: Columns, options: EvalOptions) -> None:
    for name in [*options.by, columns.query]:
        if name in OUTPUT_COLUMNS:
            raise InputError(
                f"the key column {name!r} has the name of an output column "
                f"({', '.join(OUTPUT_COLUMNS)}); rename it, e.g. "
                f"run.rename({{{name!r}: {name + '_id'!r}}})"
            )


def _spec(
    run: Any, qrels: Any, measures: str | Iterable[str], *, conventions: str,
    rel: float | None, columns: Columns, options: EvalOptions,
    user_names: dict[str, str] | None = None,
) -> Spec:
    """Everything checked that can be checked before reading data."""
    _check_frames(run, qrels, options.engine)
    _check_keys(columns, options)
    if isinstance(measures, bytes | bytearray):
        raise MeasureError(f"measures={measures!r}: give measure names as str, not bytes")
    resolved = resolve_measures(measures, conventions=conventions, rel=rel)
    spec = Spec(run, qrels, [m for _, m in resolved], [n for n, _ in resolved], columns, options,
                user_names or {})  # fmt: skip
    module = engine_module(options.engine)
    for m in spec.measures:
        if options.ties == "average":
            m.require_expected()
        reason = module.supports(m, spec)
        if reason is not None:
            raise MeasureError(reason)
    return spec


@overload
def evaluate(run: pl.DataFrame, qrels: pl.DataFrame | None = ..., measures: str | Iterable[str] = ..., **kw: Any) -> pl.DataFrame: ...
@overload
def evaluate(run: pl.LazyFrame, qrels: Any = ..., measures: str | Iterable[str] = ..., **kw: Any) -> pl.LazyFrame: ...
@overload
def evaluate(run: Any, qrels: Any = ..., measures: str | Iterable[str] = ..., **kw: Any) -> Any: ...
@fill_params  # type: ignore[misc]  # the overloads' **kw stand for the keywords below
def evaluate(
    run: pl.DataFrame | pl.LazyFrame, qrels: pl.DataFrame | pl.LazyFrame | None = None,
    measures: str | Iterable[str] = DEFAULT_MEASURES,
    *, per_query: bool = False, by: str | Sequence[str] | None = None, complete: bool = False,
    conventions: str = "trec_eval", duplicates: str = "error", rel: float | None = None,
    top: int | None = None, ties: str = "trec_eval", engine: str = "polars",
    partitions: int | None = None,
    query: str = "query", item: str = "item", rank: str | None = "rank",
    score: str | None = "score", relevant: str = "relevant", relevance: str = "relevance",
    subtopic: str = "subtopic", intent_weight: str | None = None,
) -> Any:  # fmt: skip
    """Evaluate a ranking: one row per measure (or per query and measure).

    Parameters
    ----------
    {params: run, qrels, measures, per_query, by, complete, conventions, duplicates, rel, top,
    ties, engine, partitions, query, item, rank, score, relevant, relevance, subtopic,
    intent_weight}

    Returns
    -------
    A frame with ``measure`` (the name as given) and ``value`` (Float64), plus the
    ``by`` columns and, with ``per_query=True``, the query column.  Means over queries,
    except the count measures (NumRet, NumRel, NumRelRet, NumQ), which are sums, and
    GMAP, a geometric mean (trec_eval ``gm_map``).  A LazyFrame in gives a LazyFrame
    out, with nothing collected.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankeval as rk
    >>> run = pl.DataFrame({"query": ["q1", "q1", "q1", "q2", "q2"],
    ...                     "item": ["a", "b", "c", "a", "d"], "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["b", "c", "d"],
    ...                       "relevance": [1, 2, 1]})
    >>> # q1 ranks a, b, c (a unjudged): AP = (1/2 + 2/3) / 2, nDCG@2 = (1/log2 3) / (2 + 1/log2 3)
    >>> # q2 ranks a, d: AP = (1/2) / 1, nDCG@2 = (1/log2 3) / 1; the values are the means
    >>> rk.evaluate(run, qrels, ["AP", "nDCG@2", "P@2", "RR"])
    shape: (4, 2)
    ┌─────────┬──────────┐
    │ measure ┆ value    │
    │ ---     ┆ ---      │
    │ str     ┆ f64      │
    ╞═════════╪══════════╡
    │ AP      ┆ 0.541667 │
    │ nDCG@2  ┆ 0.435371 │
    │ P@2     ┆ 0.5      │
    │ RR      ┆ 0.5      │
    └─────────┴──────────┘
    """
    engine = "spark" if is_spark_frame(run) else engine
    options = EvalOptions(
        per_query=per_query, by=by, complete=complete, duplicates=duplicates,  # type: ignore[arg-type]
        top=top, ties=ties, engine=engine, partitions=partitions,
    )  # fmt: skip  # the ignore: `by` is a name or a list, normalised to a tuple
    columns = Columns(query, item, rank, score, relevant, relevance, subtopic, intent_weight)
    return _evaluate(run, qrels, measures, columns, options, conventions=conventions, rel=rel)


def _evaluate(
    run: Any, qrels: Any, measures: str | Iterable[str], columns: Columns,
    options: EvalOptions, *, conventions: str, rel: float | None,
) -> Any:
    """:func:`evaluate` with its options checked: the spec, the engine, the result."""
    run, qrels, columns, options, back = _aliased(run, qrels, columns, options)
    spec = _spec(
        run, qrels, measures, conventions=conventions, rel=rel, columns=columns, options=options,
        user_names=back,
    )
    if options.engine == "spark":
        from polars_rankeval.engines.spark import evaluate_spec

        return evaluate_spec(spec, conventions=conventions, rel=rel)
    wide, keys = engine_module(options.engine).per_query(spec)
    if options.per_query:
        result = long_frame(wide, keys, spec.names)
    else:
        result = summarize(wide, keys, spec.measures, spec.names)
    if back:
        result = result.rename(back, strict=False)
    eager = isinstance(run, pl.DataFrame) and (qrels is None or isinstance(qrels, pl.DataFrame))
    return result.collect() if eager else result

def _aliased(
    run: Any, qrels: Any, columns: Columns, options: EvalOptions
) -> tuple[Any, Any, Columns, EvalOptions, dict[str, str]]:
    """Checks the key columns of polars frames and renames a key column named like an
    engine's own column (_pos, _q...) for the evaluation; the last item names them back
    in the result (empty: nothing renamed, and nothing done for Spark)."""
    if options.engine == "spark" or not all(
        isinstance(f, pl.DataFrame | pl.LazyFrame) for f in (run, qrels) if f is not None
    ):
        return run, qrels, columns, options, {}
    _check_keys(columns, options)
    aliases = alias_columns(run, qrels, columns, options.by)
    options = replace(options, by=aliases.by)
    return aliases.run, aliases.qrels, aliases.columns, options, aliases.back
