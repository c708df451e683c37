"""The polars engine: the measures' expressions aggregated over the judged rows, as one
lazy plan (nothing runs before ``collect``)."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankeval._errors import InputError
from polars_rankeval._registry import Measure
from polars_rankeval.diversity.families import is_diversity
from polars_rankeval.engines.finish import (
    IN_QRELS,
    check_per_query,
    query_groups,
    select_evaluated,
    value_column,
)
from polars_rankeval.engines.partitions import item_buckets, partition_count
from polars_rankeval.engines.spec import Spec
from polars_rankeval.prepare.judge import (
    IN_ORDER,
    IN_RUN,
    MISRANKED,
    Judgement,
    judge,
    repeated_ranks,
)
from polars_rankeval.prepare.ties import tie_needs

__all__ = ["NAME", "per_query", "supports"]

NAME = "polars"


def supports(measure: Measure, spec: Spec) -> str | None:
    """Every registered measure and option (None: supported)."""
    return None


def judgement_for(
    spec: Spec, *, given_ranks: bool = False, only: pl.DataFrame | None = None,
    part: tuple[int, int] | None = None, item_buckets: int = 1,
) -> Judgement:
    """Rank the run and join the qrels as ``spec`` says (lazily); ``given_ranks``,
    ``only``, ``part`` and ``item_buckets``: see
    :func:`~polars_rankeval.prepare.judge.judge`."""
    tie_levels, tie_gains = tie_needs(spec.measures)
    return judge(
        spec.run.lazy(),
        None if spec.qrels is None else spec.qrels.lazy(),
        columns=spec.columns,
        by=spec.options.by,
        stats=[s for m in spec.measures for s in m.stats()],
        ideals=[i for m in spec.measures for i in m.ideal()],
        duplicates=spec.options.duplicates,
        top=spec.options.top,
        ties=spec.options.ties,
        tie_levels=tie_levels,
        tie_gains=tie_gains,
        exp_gain=any(dict(m.params).get("gain") == "exp" for m in spec.measures),
        user_names=spec.user_names,
        given_ranks=given_ranks,
        only=only,
        part=part,
        item_buckets=item_buckets,
    )


def _values(judgement: Judgement, measures: Sequence[Measure]) -> pl.LazyFrame:
    """One row per run query with a column per measure (and the run checks' counts)."""
    j = judgement.judged
    keys = judgement.keys
    value = Measure.expression if j.ties is None else Measure.expected
    measure_values = [value(m, j).alias(value_column(i)) for i, m in enumerate(measures)]
    if judgement.queries is not None:
        # judged-only rows: a query none of whose retrieved rows is judged has no group
        # there; the left join keeps it (values null, filled by select_evaluated)
        return judgement.queries.join(
            judgement.rows.group_by(keys).agg(*measure_values),
            on=keys,
            how="left",
            nulls_equal=True,
        )
    return judgement.rows.group_by(keys).agg(
        *measure_values,
        *[check.counter.alias(check.name) for check in judgement.run_checks],
        pl.lit(True).alias(IN_RUN),
    )


def per_query(spec: Spec) -> tuple[pl.LazyFrame, list[str]]:
    """One row per evaluated (by..., query) with a Float64 column ``_m{i}`` per measure;
    and the key columns.  Diversity measures (subtopic qrels) take their own path,
    which evaluates the others through :func:`_per_query_judged`; without them,
    subtopic qrels are read as topic qrels (:func:`~polars_rankeval.diversity.compute.topic_spec`)."""
    from polars_rankeval.diversity import compute

    if any(is_diversity(m) for m in spec.measures):
        return compute.per_query(spec, _per_query_judged)
    spec = compute.topic_spec(spec)[0]
    wide, keys, _ = _per_query_judged(spec, given_ranks=True, parts=partition_count(spec))
    return wide, keys


def _joined(judgement: Judgement, spec: Spec) -> tuple[pl.LazyFrame, list[str]]:
    """The per-query values joined with the qrels' per-query stats (before the checks);
    and the stat columns."""
    values = _values(judgement, spec.measures)
    if judgement.duplicates_dropped is not None:
        values = values.join(judgement.duplicates_dropped, on=judgement.keys, how="left")
    if judgement.qstats is None:
        if spec.options.complete:
            raise InputError("complete=True needs qrels: without them every query is in the run")
        return values.with_columns(pl.lit(True).alias(IN_QRELS)), []
    qstats = judgement.qstats.with_columns(pl.lit(True).alias(IN_QRELS))
    stat_columns = [c for c in qstats.collect_schema() if c.startswith("_stat_")]
    return values.join(qstats, on=judgement.query, how="full", coalesce=True), stat_columns


def _misranked(frame: pl.DataFrame, judgement: Judgement, rank: str | None) -> pl.Series:
    """Per query of ``frame``: its ranks are not 1..n.  Not ranked from 1 to n
    (:data:`MISRANKED`), or, for a query whose ranks :data:`IN_ORDER` could not prove
    distinct, a repeated rank (:func:`repeated_ranks`, on those queries only)."""
    keys = judgement.keys
    misranked = frame[MISRANKED].fill_null(False)
    # a query only in the qrels (full join) has no ranks to check
    in_run = frame[IN_RUN].fill_null(False)
    unproven = in_run & ~(misranked | frame[IN_ORDER].fill_null(False))
    if judgement.given_run is None or rank is None or not unproven.any():
        return misranked
    only = frame.filter(unproven).select(keys)
    every = bool(unproven.sum() * 2 > in_run.sum())
    repeated = repeated_ranks(judgement.given_run, keys, rank, only, every=every).collect()
    flagged = frame.select(keys).join(
        repeated.with_columns(pl.lit(True).alias("_repeated")),
        on=keys, how="left", nulls_equal=True, maintain_order="left",
    )["_repeated"]
    return misranked | flagged.fill_null(False)


def _ranked_where_misranked(frame: pl.DataFrame, spec: Spec, judgement: Judgement) -> pl.DataFrame:
    """The rank-given fast path's fix-up, at collect time: the queries whose ranks are
    not 1..n (:func:`_misranked`) are evaluated again, ranked trec_eval's way (only
    they: a run of valid ranks pays nothing more, one with a gap in every query 1.6x the
    CPU time of ranking it directly, benchmarks/RESULTS.md)."""
    if MISRANKED not in frame.columns:
        return frame
    keys = judgement.keys
    misranked = _misranked(frame, judgement, spec.columns.rank)
    if not misranked.any():
        return frame
    only = frame.filter(misranked).select(keys)
    ranked, _ = _joined(judgement_for(spec, only=only), spec)
    redone = (
        ranked.join(only.lazy(), on=keys, how="semi", nulls_equal=True)
        .with_columns(pl.lit(False).alias(MISRANKED), pl.lit(True).alias(IN_ORDER))
        .select(frame.columns)
        .collect()
        .cast(frame.schema)
    )
    return pl.concat([frame.filter(~misranked), redone])


def _partitioned(spec: Spec, parts: int, *, given_ranks: bool) -> pl.LazyFrame:
    """The per-query frame before the checks, built one query-hash partition after the
    other at collect time: each partition's plan is collected and dropped before the
    next starts, so memory follows the largest partition, not the run (measured: a
    ``pl.concat(parallel=False)`` of the lazy partitions kept 2.9x as much at 12
    partitions).  A query's rows all fall in one partition, so its values are those of
    one plan.  The plans are built at collect time, after :func:`item_buckets` (which
    reads the rank column) chose how the duplicate check counts long queries; partition
    0's, built now for the schema, is reused when that choice is the default."""
    first = judgement_for(spec, given_ranks=given_ranks, part=(0, parts))
    schema = _joined(first, spec)[0].collect_schema()

    def collected() -> pl.DataFrame:
        buckets = item_buckets(spec) if given_ranks else 1
        frames = []
        for part in range(parts):
            judged = first if part == 0 and buckets == 1 else judgement_for(
                spec, given_ranks=given_ranks, part=(part, parts), item_buckets=buckets
            )
            frame = _ranked_where_misranked(_joined(judged, spec)[0].collect(), spec, judged)
            frames.append(frame.select(schema.names()))
        return pl.concat(frames, how="vertical")

    return pl.defer(collected, schema=schema)


def _per_query_judged(
    spec: Spec, *, given_ranks: bool = False, parts: int = 1
) -> tuple[pl.LazyFrame, list[str], Judgement]:
    """:func:`per_query` without diversity measures, with the judgement it built
    (``given_ranks``: a valid rank column is taken as the positions, see
    :func:`_ranked_where_misranked`; the judgement's ``ranked`` is then not trec_eval's
    order for a misranked query, so callers reading it pass False).  ``parts`` > 1:
    evaluated in that many query-hash partitions (:func:`_partitioned`); the checks,
    warnings and the choice of queries still run once, on all the queries."""
    judgement = judgement_for(spec, given_ranks=given_ranks)
    joined, stat_columns = _joined(judgement, spec)
    has_qrels = judgement.qstats is not None
    complete = spec.options.complete
    if parts > 1:
        joined = _partitioned(spec, parts, given_ranks=given_ranks)

    def checked_frame(frame: pl.DataFrame) -> pl.DataFrame:
        if parts == 1:
            frame = _ranked_where_misranked(frame, spec, judgement)
        return check_per_query(
            frame, judgement, has_qrels=has_qrels, complete=complete, names=spec.names
        )

    wide = select_evaluated(
        joined.map_batches(checked_frame), keys=judgement.keys, measures=spec.measures,
        stat_columns=stat_columns, has_qrels=has_qrels, complete=complete,
        groups=query_groups(spec),
        # judged-only rows: _num_ret comes with the run's queries (judge._run_queries)
        num_ret=judgement.queries is not None,
    )
    return wide, judgement.keys, judgement
