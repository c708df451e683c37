"""How many query-hash partitions the polars engine evaluates a run in.

A run is evaluated in partitions of its queries (split by a hash of the query id), one
after the other, so that memory follows the largest partition rather than the run; the
values are the same bits (a query's rows all fall in one partition, and the summary adds
the queries in trec_eval's order whatever the partitions).  ``evaluate(partitions=n)``
asks for ``n``; by default the count follows the run's row count, one partition per
:data:`ROWS_PER_PARTITION` rows up to :data:`MAX_PARTITIONS`, when that count is known
without reading the rows: a
DataFrame's height, or a LazyFrame that is a bare scan of files whose row count polars
reads from their metadata (Parquet, IPC).  Any other LazyFrame (a CSV scan, filters,
joins, computed columns before ``evaluate``) is one partition unless asked.
"""

from __future__ import annotations

import math

import polars as pl

from polars_rankeval.engines.spec import Spec
from polars_rankeval.prepare.judge import RANKS_PER_BUCKET

__all__ = [
    "MAX_ITEM_BUCKETS", "MAX_PARTITIONS", "RANKS_PER_BUCKET", "ROWS_PER_PARTITION", "item_buckets",
    "known_rows", "partition_count",
]

# measured (benchmarks/RESULTS.md, issue 15): at 10M rows 3 partitions peaked at 0.21x
# pytrec_eval's memory (score-only), 4 at 0.17x; partitions of this size keep the peak
# memory near that of evaluating this many rows, for a few percent more CPU time
ROWS_PER_PARTITION = 2_500_000
# each partition reads the whole run again (one scan filtered by the hash): at 100M rows
# 25 partitions took 90 s of CPU and 0.70 GiB, 8 partitions 57 s and 1.48 GiB
MAX_PARTITIONS = 8

# a rank-given run whose largest rank passes RANKS_PER_BUCKET (judge's, the same
# 2^16 the exact rank check buckets ranks by) counts its duplicate items in hash
# buckets, one per RANKS_PER_BUCKET ranks, at most MAX_ITEM_BUCKETS (see item_buckets)
MAX_ITEM_BUCKETS = 16

# the lines of a row count's plan that only describe a scan (or an in-memory frame)
_SCAN_LINES = ("SELECT [len()]", "PROJECT", "ESTIMATED ROWS", "DF [")
_SCANS = ("Parquet SCAN", "IPC SCAN")


def known_rows(frame: pl.DataFrame | pl.LazyFrame) -> int | None:
    """The number of rows of ``frame`` when known without reading its rows (None: not).

    >>> known_rows(pl.DataFrame({"query": ["q1", "q2"]}))
    2
    >>> known_rows(pl.LazyFrame({"query": ["q1", "q2"]}).filter(pl.col("query") == "q1"))
    """
    if isinstance(frame, pl.DataFrame):
        return frame.height
    count = frame.select(pl.len())
    try:
        plan = count.explain()
    except pl.exceptions.PolarsError:
        return None  # a plan that cannot resolve: judge's schema read reports it, in our words
    lines = [line.strip() for line in plan.splitlines() if line.strip()]
    if not all(line.startswith(_SCAN_LINES + _SCANS) for line in lines):
        return None
    return int(count.collect().item())


def partition_count(spec: Spec) -> int:
    """``evaluate``'s ``partitions``, or one per :data:`ROWS_PER_PARTITION` known rows,
    at most :data:`MAX_PARTITIONS`.

    >>> from polars_rankeval.engines.spec import Spec
    >>> from polars_rankeval.options import Columns, EvalOptions
    >>> run = pl.select(pl.repeat(1, 6_000_000).alias("query"))
    >>> partition_count(Spec(run, None, [], [], Columns(), EvalOptions()))
    3
    >>> partition_count(Spec(run.head(1), None, [], [], Columns(), EvalOptions(partitions=12)))
    12
    """
    if spec.options.partitions is not None:
        return int(spec.options.partitions)
    rows = known_rows(spec.run)
    if rows is None:
        return 1
    return max(1, min(MAX_PARTITIONS, math.ceil(rows / ROWS_PER_PARTITION)))


def item_buckets(spec: Spec) -> int:
    """In how many hash buckets of the items a rank-given run's duplicate check counts
    each query (``judge``'s ``item_buckets``): one per :data:`RANKS_PER_BUCKET` of the
    run's largest rank, at most :data:`MAX_ITEM_BUCKETS`.  polars' streaming group-by
    counts a query's distinct items in one hash set on one thread, so one query of
    10M rows took ~4 s of CPU where 100k queries of 100 rows take ~0.5 s
    (benchmarks/RESULTS.md, perf20); the largest rank says cheaply that a query is
    that long.  1 unless the run is ranked by its rank column and that column can be
    read without running the caller's plan (a DataFrame, or a bare scan of files:
    :func:`known_rows`).

    >>> from polars_rankeval.engines.spec import Spec
    >>> from polars_rankeval.options import Columns, EvalOptions
    >>> run = pl.DataFrame({"query": ["q"] * 70_000, "rank": [*range(1, 70_000), 200_000]})
    >>> item_buckets(Spec(run, None, [], [], Columns(score=None), EvalOptions()))
    4
    >>> item_buckets(Spec(run.with_columns(score=1.0), None, [], [], Columns(), EvalOptions()))
    1
    """
    rank, run = spec.columns.rank, spec.run
    if rank is None:
        return 1
    rows = known_rows(run)
    # no query can be longer than the run: only a longer run pays for reading the ranks
    if rows is None or rows <= RANKS_PER_BUCKET:
        return 1
    schema = run.collect_schema()
    if rank not in schema or (spec.columns.score is not None and spec.columns.score in schema):
        return 1
    try:
        largest = run.lazy().select(pl.col(rank).cast(pl.Float64, strict=False).max()).collect()
    except pl.exceptions.PolarsError:
        return 1
    value = largest.item()
    if value is None or not math.isfinite(value):
        return 1
    return max(1, min(MAX_ITEM_BUCKETS, math.ceil(value / RANKS_PER_BUCKET)))
