"""``evaluate(run, qrels, measures)``: the whole evaluation as one lazy polars plan."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import TypeVar, overload

import polars as pl

from polars_rankeval._errors import InputError, MeasureError, RankevalWarning
from polars_rankeval._judge import (
    IN_RUN,
    NUM_RET,
    TIES,
    Columns,
    Judgement,
    judge,
    keep_top,
    raise_for_checks,
    tie_needs,
)
from polars_rankeval._parse import parse_measure
from polars_rankeval._registry import Judged, Measure

__all__ = ["evaluate", "resolve_measures"]

IN_QRELS = "_in_qrels"
GMEAN_FLOOR = 1e-5  # trec_eval's MIN_GEO_MEAN
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def resolve_measures(
    measures: str | Iterable[str], *, conventions: str = "trec_eval", rel: float | None = None
) -> list[tuple[str, Measure]]:
    """Parse measure names; returns (name as given, measure) pairs, repeats removed."""
    if isinstance(measures, str):
        measures = [measures]
    names = list(dict.fromkeys(measures))
    if not names:
        raise MeasureError("no measure given")
    return [(name, parse_measure(name, conventions=conventions, rel=rel)) for name in names]


def _column(i: int) -> str:
    return f"_m{i}"


def _check_per_query(
    frame: pl.DataFrame, judgement: Judgement, *, has_qrels: bool, complete: bool
) -> pl.DataFrame:
    """Runs at collect time on the small per-query frame: raise on bad data, warn on
    skipped data (with counts), pass the frame through unchanged."""
    raise_for_checks(
        frame,
        # qrels first: duplicate judgments also duplicate run rows through the join
        [*judgement.qrels_checks, *judgement.run_checks],
        lambda which: judgement.run if which == "run" else judgement.qrels,
    )
    in_run = frame[IN_RUN].fill_null(False)
    if not in_run.any():
        raise InputError("the run has no rows: there is nothing to evaluate")
    query = judgement.query
    if has_qrels:
        in_qrels = frame[IN_QRELS].fill_null(False)
        run_only = frame.filter(in_run & ~in_qrels)[query].unique()
        both = frame.filter(in_run & in_qrels)[query].n_unique()
        if both == 0 and not complete:
            qrels_queries = frame.filter(in_qrels)[query].unique()
            raise InputError(
                f"run and qrels share no query: the run's queries (e.g. "
                f"{run_only.head(3).to_list()}) are not in the qrels (e.g. "
                f"{qrels_queries.head(3).to_list()}); check the query column and its type"
            )
        if run_only.len():
            warnings.warn(
                f"{run_only.len()} run quer{'y is' if run_only.len() == 1 else 'ies are'} "
                f"not in the qrels and {'is' if run_only.len() == 1 else 'are'} ignored "
                f"(as trec_eval does), e.g. {run_only.head(3).to_list()}",
                RankevalWarning,
                stacklevel=2,
            )
    if "_dropped" in frame.columns:
        dropped = int(frame["_dropped"].fill_null(0).sum())
        if dropped:
            warnings.warn(
                f"duplicates='first': dropped {dropped} duplicate (query, item) run row(s), "
                "keeping the best-ranked one of each",
                RankevalWarning,
                stacklevel=2,
            )
    return frame


def _per_query_polars(
    judgement: Judgement,
    measures: Sequence[Measure],
    *,
    complete: bool,
) -> pl.LazyFrame:
    """One row per evaluated (by..., query) with a Float64 column ``_m{i}`` per measure."""
    j = judgement.judged
    keys = judgement.keys
    query = judgement.query
    value = Measure.expression if j.ties is None else Measure.expected
    measure_values = [value(m, j).alias(_column(i)) for i, m in enumerate(measures)]
    if judgement.queries is not None:
        # judged-only rows: a query none of whose retrieved rows is judged has no group
        # there; the left join keeps it (values null, filled by select_evaluated)
        values = judgement.queries.join(
            judgement.rows.group_by(keys).agg(*measure_values),
            on=keys,
            how="left",
            nulls_equal=True,
        )
    else:
        values = judgement.rows.group_by(keys).agg(
            *measure_values,
            *[check.counter.alias(check.name) for check in judgement.run_checks],
            pl.lit(True).alias(IN_RUN),
        )
    if judgement.duplicates_dropped is not None:
        values = values.join(judgement.duplicates_dropped, on=keys, how="left")
    has_qrels = judgement.qstats is not None
    if judgement.qstats is None:
        if complete:
            raise InputError("complete=True needs qrels: without them every query is in the run")
        joined = values.with_columns(pl.lit(True).alias(IN_QRELS))
        stat_columns: list[str] = []
    else:
        qstats = judgement.qstats.with_columns(pl.lit(True).alias(IN_QRELS))
        stat_columns = [c for c in qstats.collect_schema() if c.startswith("_stat_")]
        joined = values.join(qstats, on=query, how="full", coalesce=True)

    checked = joined.map_batches(
        lambda frame: _check_per_query(frame, judgement, has_qrels=has_qrels, complete=complete)
    )
    return select_evaluated(
        checked, keys=keys, measures=measures, stat_columns=stat_columns,
        has_qrels=has_qrels, complete=complete,
    )


def select_evaluated(
    checked: FrameT,
    *,
    keys: list[str],
    measures: Sequence[Measure],
    stat_columns: list[str],
    has_qrels: bool,
    complete: bool,
) -> FrameT:
    """From the checked per-query frame of either engine (``_m{i}`` values, stat columns,
    ``_in_run``/``_in_qrels`` flags, ``_num_ret`` with judged-only rows): the evaluated
    queries, missing values filled.

    Queries in both run and qrels by default; every qrels query with ``complete`` (for
    each ``by`` group of the run); a query without values (no run rows, or no judged
    retrieved rows) takes each measure's ``missing`` value (0, or R for NumRel...).
    """
    by = keys[:-1]
    columns = checked.collect_schema() if isinstance(checked, pl.LazyFrame) else checked.schema
    value_columns = [_column(i) for i in range(len(measures))]
    if NUM_RET in columns:
        value_columns.append(NUM_RET)
    in_run = pl.col(IN_RUN).fill_null(False)
    in_qrels = pl.col(IN_QRELS).fill_null(False)
    if not complete:
        base = checked.filter(in_run & in_qrels)
    elif not by:
        base = checked.filter(in_qrels)
    elif isinstance(checked, pl.LazyFrame):
        # built eagerly on the small per-query frame, in one pass so the checks run once
        schema = checked.collect_schema()
        base = checked.map_batches(
            lambda frame: _complete_by_groups(frame, keys, stat_columns, value_columns),
            schema={c: schema[c] for c in [*keys, *stat_columns, *value_columns]},
        )
    else:
        base = _complete_by_groups(checked, keys, stat_columns, value_columns)
    if not has_qrels:  # every query has run rows: nothing is missing
        return base.select(*keys, *value_columns[: len(measures)])

    # a query without rows, seen by the measures' ``missing``: per-query columns
    num_ret = pl.col(NUM_RET).fill_null(0) if NUM_RET in columns else pl.lit(0, pl.Int64)
    empty = Judged(
        pos=pl.lit(None, pl.Int64),
        rel=pl.lit(None, pl.Float64),
        stat=lambda s: pl.col(s.column),
        num_ret=num_ret,
        judged_only=True,
    )
    return base.select(
        *keys,
        *[
            pl.coalesce(pl.col(_column(i)), m.missing(empty)).alias(_column(i))
            for i, m in enumerate(measures)
        ],
    )


def _complete_by_groups(
    frame: pl.DataFrame, keys: list[str], stat_columns: list[str], value_columns: list[str]
) -> pl.DataFrame:
    """complete=True with ``by``: every by-group of the run crossed with every qrels query,
    with the values the group's run has (null = missing, filled by the caller)."""
    by, query = keys[:-1], keys[-1]
    in_run = pl.col(IN_RUN).fill_null(False)
    in_qrels = pl.col(IN_QRELS).fill_null(False)
    groups = frame.filter(in_run).select(by).unique()
    qrels_queries = frame.filter(in_qrels).select(query, *stat_columns).unique(subset=[query])
    found = frame.filter(in_run & in_qrels).select(*keys, *value_columns)
    universe = groups.join(qrels_queries, how="cross")
    # a null by-value is a group like any other
    return universe.join(found, on=keys, how="left", nulls_equal=True).select(
        *keys, *stat_columns, *value_columns
    )


def _aggregate(values: pl.Expr, m: Measure) -> pl.Expr:
    """The summary over queries: the mean, the sum (counts) or trec_eval's geometric
    mean exp(mean(log(max(x, 1e-5)))) (gm_map)."""
    if m.family.aggregate == "sum":
        return values.sum()
    if m.family.aggregate == "gmean":
        return values.clip(lower_bound=GMEAN_FLOOR).log().mean().exp()
    return values.mean()


def _long(
    wide: pl.LazyFrame, keys: list[str], names: Sequence[str], *, per_query: bool
) -> pl.LazyFrame:
    value_columns = [_column(i) for i in range(len(names))]
    long = wide.unpivot(
        on=value_columns, index=keys, variable_name="measure", value_name="value"
    ).with_columns(pl.col("measure").str.slice(2).cast(pl.Int64).alias("_order"))
    long = long.sort([*keys, "_order"]) if keys else long.sort("_order")
    mapping = {_column(i): name for i, name in enumerate(names)}
    return long.select(
        *keys,
        pl.col("measure").replace_strict(mapping, return_dtype=pl.String),
        pl.col("value").cast(pl.Float64),
    )


@overload
def evaluate(run: pl.DataFrame, qrels: pl.DataFrame | None = ..., measures=..., **kw) -> pl.DataFrame: ...  # noqa: E501
@overload
def evaluate(run: pl.LazyFrame, qrels=..., measures=..., **kw) -> pl.LazyFrame: ...
def evaluate(
    run: pl.DataFrame | pl.LazyFrame,
    qrels: pl.DataFrame | pl.LazyFrame | None = None,
    measures: str | Iterable[str] = ("AP", "nDCG@10", "P@10", "R@100", "RR"),
    *,
    per_query: bool = False,
    by: str | Sequence[str] | None = None,
    complete: bool = False,
    conventions: str = "trec_eval",
    duplicates: str = "error",
    rel: float | None = None,
    top: int | None = None,
    ties: str = "trec_eval",
    engine: str = "polars",
    query: str = "query",
    item: str = "item",
    rank: str | None = "rank",
    score: str | None = "score",
    relevant: str = "relevant",
    relevance: str = "relevance",
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate a ranking: one row per measure (or per query and measure).

    Parameters
    ----------
    run
        Long format, one row per retrieved item: ``query``, ``item`` and ``score``
        (ranked as trec_eval ranks: score descending, ties by item descending, byte
        order) or ``rank`` (1 = top; used when there is no score column, or with
        ``score=None``); plus ``relevant`` when no qrels are given.
    qrels
        Optional judgments ``query, item, relevance``.  With qrels, relevance comes from
        them (unjudged = not relevant) and so do R and the ideal nDCG ranking; without,
        from the run's ``relevant`` column (recall is then relative to what was retrieved).
    measures
        Names such as ``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@5"``, ``"AP(norm=min)@10"`` or
        trec_eval names (``"map"``, ``"ndcg_cut_10"``).
    per_query
        Return ``query, measure, value`` rows instead of the mean over queries.
    by
        Columns of the run to evaluate separately (systems, A/B arms, segments); each
        group is evaluated as its own run.
    complete
        Average over every qrels query, those the run misses scoring 0 (trec_eval ``-c``).
        By default only queries in both run and qrels count; run-only queries are ignored
        with a warning that counts them.
    conventions
        Preset for parameters a name leaves unset: ``"trec_eval"`` (default),
        ``"kaggle"``, ``"spark"``, ``"torchmetrics"``.
    duplicates
        ``"error"`` (default, as trec_eval) or ``"first"``: keep the best-ranked row of a
        repeated (query, item) and warn with the number dropped.
    rel
        Default relevance level for measures without their own ``rel=`` (trec_eval ``-l``).
    top
        Keep only the top ``top`` rows of each query after ranking (trec_eval ``-M``).
    ties
        ``"trec_eval"`` (default): tied scores (or ranks) are ordered by item descending.
        ``"average"``: each value is the expected value over every ordering of the tied
        rows of a query, in closed form (McSherry & Najork, ECIR 2008), as sklearn's and
        torchmetrics' nDCG do.  For AP (norm=R, min; hits without a cutoff), P, R,
        nDCG, RR, Success, Rprec and the counts; not with ``top`` or
        ``duplicates="first"``.
    engine
        ``"polars"`` (default) or ``"duckdb"``.
    query, item, rank, score, relevant, relevance
        Column names.

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
    >>> run = pl.DataFrame({
    ...     "query": ["q1", "q1", "q1", "q2", "q2"],
    ...     "item": ["a", "b", "c", "a", "d"],
    ...     "score": [3.0, 2.0, 1.0, 2.0, 1.0],
    ... })
    >>> qrels = pl.DataFrame({
    ...     "query": ["q1", "q1", "q2"], "item": ["b", "c", "d"], "relevance": [1, 2, 1],
    ... })
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
    eager = isinstance(run, pl.DataFrame) and (qrels is None or isinstance(qrels, pl.DataFrame))
    for what, frame in (("run", run), ("qrels", qrels)):
        if frame is not None and not isinstance(frame, pl.DataFrame | pl.LazyFrame):
            raise InputError(
                f"{what} must be a polars DataFrame or LazyFrame, got {type(frame).__name__}"
            )
    if engine not in ("polars", "duckdb"):
        raise InputError(f"engine={engine!r}: choose 'polars' or 'duckdb'")
    resolved = resolve_measures(measures, conventions=conventions, rel=rel)
    names = [name for name, _ in resolved]
    measure_list = [m for _, m in resolved]
    by_list = [by] if isinstance(by, str) else list(by or [])
    columns = Columns(query, item, rank, score, relevant, relevance)

    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top <= 0):
        raise InputError(f"top={top!r}: give a positive number of rows per query")
    if ties not in TIES:
        raise InputError(f"ties={ties!r}: choose 'trec_eval' or 'average'")
    if ties == "average" and (top is not None or duplicates == "first"):
        # both keep rows chosen by the tie-break, which ties="average" averages away
        raise InputError(
            "ties='average' cannot be combined with "
            + ("top=" if top is not None else "duplicates='first'")
            + ": which rows are kept would depend on the order of tied rows; filter or "
            "de-duplicate the run first"
        )
    if engine == "duckdb":
        from polars_rankeval.duckdb import per_query_duckdb

        if top is not None:  # the SQL twin ranks again; this keeps the same rows
            run = keep_top(run.lazy(), top, columns=columns, by=by_list)
        wide, keys = per_query_duckdb(
            run, qrels, measure_list, columns=columns, by=by_list, complete=complete,
            duplicates=duplicates, ties=ties,
        )
    else:
        tie_levels, tie_gains = tie_needs(measure_list)
        judgement = judge(
            run.lazy(),
            None if qrels is None else qrels.lazy(),
            columns=columns,
            by=by_list,
            stats=[s for m in measure_list for s in m.stats()],
            duplicates=duplicates,
            top=top,
            ties=ties,
            tie_levels=tie_levels,
            tie_gains=tie_gains,
        )
        wide = _per_query_polars(judgement, measure_list, complete=complete)
        keys = judgement.keys

    if per_query:
        result = _long(wide, keys, names, per_query=True)
    else:
        by_keys = keys[:-1]
        aggregates = [_aggregate(pl.col(_column(i)), m) for i, m in enumerate(measure_list)]
        # sorted: the means add in the same order on every call, whatever the engine
        wide = wide.sort(keys, nulls_last=True)
        summary = (
            wide.group_by(by_keys, maintain_order=True).agg(*aggregates)
            if by_keys
            else wide.select(*aggregates)
        )
        result = _long(summary, by_keys, names, per_query=False)
    return result.collect() if eager else result
