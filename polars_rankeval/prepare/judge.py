"""Where the run meets the qrels: ``judge(...)`` turns a user's run (and qrels) into lazy
frames with fixed internal column names that every measure expression reads.

* ``rows``: the rows the measures aggregate: the key columns (``by`` + query), ``_pos``
  (1-based position, trec_eval order), ``_rel`` (relevance value, null when not in the
  qrels) and, with qrels, the per-query stat columns (``Stat.column``) copied from the
  qrels side.  With qrels (and trec_eval's tie order, duplicates an error) only the
  *judged* retrieved rows, with the query's ``_num_ret``: the measures never need the
  unjudged rows, only how many there are (see ``Judged.judged_only``).  Otherwise
  every kept run row.
* ``queries``: with judged-only rows, one row per run query with ``_num_ret``, the run
  checks' counts and ``_in_run`` (a query none of whose rows is judged is only here).
* ``qstats``: with qrels, one row per qrels query with the stat columns.

The steps: schemas and checks of each side (:func:`_run_side`, :func:`_qrels_side`),
ranking (:mod:`.ranking`), de-duplication, the join (:func:`_join`), tie groups
(:mod:`.ties`).  Nothing is collected.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

import polars as pl

from polars_rankeval._errors import InputError
from polars_rankeval._registry import Ideal, Judged, Stat
from polars_rankeval._stats import IDEAL_POS, ideal_rows, item_ideal_rows, stat_expr
from polars_rankeval.options import Columns
from polars_rankeval.prepare.checks import (
    Check,
    duplicate_check,
    example,
    exp_gain_check,
    float_checks,
    rank_check,
    row_check,
)
from polars_rankeval.prepare.ranking import POS, order_column, position
from polars_rankeval.prepare.schema import (
    align_key,
    key_dtype,
    read_schema,
    require,
    require_numeric,
)
from polars_rankeval.prepare.ties import REL, with_ties

__all__ = [
    "IN_ORDER", "IN_RUN", "MISRANKED", "NUM_RET", "POS", "RANKS_PER_BUCKET", "REL", "Judgement",
    "in_partition", "judge", "repeated_ranks",
]

NUM_RET = "_num_ret"
IN_RUN = "_in_run"
# with given ranks taken as positions: the query's ranks are not 1..n (see judge's
# ``given_ranks``), so its values must come from the ranked plan
MISRANKED = "_misranked"
# with given ranks: the query's ranks are distinct, proved in row order without hashing
# them (see :func:`_in_order`); a query without this proof is checked by
# :func:`repeated_ranks`
IN_ORDER = "_in_order"
_ROW = "_row"  # the run's row number, for :func:`_in_order`
# names the engines give their own columns; a user column used as a key may not take one
_RESERVED = re.compile(
    r"_(pos|rel|num_ret|in_run|in_qrels|misranked|in_order|row|dropped|first|order|q|n|m\d+|b\d+|stat_.*|check_.*|tie_.*|ideal_.*)"
)


class Judgement(NamedTuple):
    """Everything the engines need, lazily: see the module docstring."""

    rows: pl.LazyFrame
    # with judged-only rows: one row per run query, keys, _num_ret, run checks, _in_run
    queries: pl.LazyFrame | None
    qstats: pl.LazyFrame | None
    keys: list[str]  # by columns + query
    query: str
    judged: Judged
    run_checks: list[Check]
    qrels_checks: list[Check]
    run: pl.LazyFrame  # the user's run, for examples of bad rows
    ranked: pl.LazyFrame  # every kept run row with keys, item and _pos
    qrels: pl.LazyFrame | None
    duplicates_dropped: pl.LazyFrame | None  # keys + _dropped, with duplicates="first"
    user_names: Mapping[str, str] = MappingProxyType({})  # alias -> user's name
    # with given ranks taken as positions: every run row evaluated (keys aligned, before
    # ``top``), for :func:`repeated_ranks`
    given_run: pl.LazyFrame | None = None


class RunSide(NamedTuple):
    """The run's schema-checked columns: what it is ranked by and its row checks."""

    frame: pl.LazyFrame  # only the columns evaluation reads
    schema: pl.Schema
    keys: list[str]
    order_column: str
    checks: list[Check]


def _check_keys(c: Columns, by: list[str], order: str, has_qrels: bool) -> None:
    if c.query in by or len(set(by)) != len(by):
        raise InputError(f"by={by!r} must not repeat columns or contain the query column")
    used = [*by, c.query, c.item, order, *([] if has_qrels else [c.relevant])]
    for name in used:
        if _RESERVED.fullmatch(name):
            raise InputError(
                f"run column {name!r} has a name polars_rankeval uses internally; rename it "
                f"(e.g. run.rename({{{name!r}: {name.lstrip('_') or 'x'!r}}}))"
            )


def _run_side(run: pl.LazyFrame, c: Columns, by: list[str], *, has_qrels: bool) -> RunSide:
    """Check the run's schema; its row checks (ids, score or rank, labels)."""
    schema = read_schema(run, "run")
    require(schema, run, "run", {"query": c.query, "item": c.item})
    for name in by:
        require(schema, run, "run", {"by": name})
    key_dtype(schema, run, "run", c.query)
    key_dtype(schema, run, "run", c.item)
    order = order_column(c, schema)
    if order is None:
        swapped = " (it has the qrels' columns: run and qrels swapped?)" * (c.relevance in schema)
        raise InputError(
            f"run needs a score column ({c.score!r}) or a rank column ({c.rank!r}){swapped}; "
            f"columns: {list(schema)}; pass score=... or rank=...; "
            f"example row: {example(run)}"
        )
    _check_keys(c, by, order, has_qrels)
    require_numeric(schema, run, "run", order)
    checks = [
        row_check("run", c.query, "query id is null", pl.col(c.query).is_null(), "null"),
        row_check("run", c.item, "item id is null", pl.col(c.item).is_null(), "null"),
    ]
    if order == c.score:
        checks += float_checks("run", c.score, schema[c.score], "score")
    else:
        checks.append(rank_check(order, schema[order]))
    needed = [*by, c.query, c.item, order]
    if not has_qrels:
        require(schema, run, "run (no qrels given, so relevance comes from it)",
                {"relevant": c.relevant})
        require_numeric(schema, run, "run", c.relevant, allow_bool=True)
        checks += float_checks("run", c.relevant, schema[c.relevant], "relevance label")
        needed.append(c.relevant)
    # only what evaluation reads: other columns can never meet an internal name
    frame = run.select(list(dict.fromkeys(needed)))
    return RunSide(frame, schema, [*by, c.query], order, checks)


def _qrels_side(
    qrels: pl.LazyFrame, side: RunSide, c: Columns
) -> tuple[pl.LazyFrame, pl.LazyFrame, list[Check]]:
    """Check the qrels' schema and give both sides' keys one dtype; the qrels checks."""
    schema = read_schema(qrels, "qrels")
    require(schema, qrels, "qrels", {"query": c.query, "item": c.item, "relevance": c.relevance})
    require_numeric(schema, qrels, "qrels", c.relevance, allow_bool=True)  # True = 1
    run = side.frame
    qrels = qrels.select(c.query, c.item, c.relevance)
    for column in (c.query, c.item):
        run_t = key_dtype(side.schema, run, "run", column)
        qrels_t = key_dtype(schema, qrels, "qrels", column)
        run, qrels = align_key(run, qrels, column, run_t, qrels_t)
    checks = [
        row_check("qrels", c.query, "query id is null", pl.col(c.query).is_null(), "null"),
        row_check("qrels", c.item, "item id is null", pl.col(c.item).is_null(), "null"),
        *float_checks("qrels", c.relevance, schema[c.relevance], "relevance"),
        duplicate_check("qrels", [c.query], c.item, "duplicate (query, item) judgments"),
    ]
    return run, qrels, checks


def _retrieved(top: int | None) -> pl.Expr:
    retrieved = pl.len().cast(pl.Int64)
    if top is not None:
        retrieved = pl.min_horizontal(retrieved, pl.lit(top, dtype=pl.Int64))
    return retrieved


def _rank(
    run: pl.LazyFrame,
    side: RunSide,
    c: Columns,
    *,
    top: int | None,
    judged_only: bool,
    given: bool = False,
) -> pl.LazyFrame:
    """The run with ``_pos`` (and, judged-only, ``_num_ret``); ``given``: the rank column
    is taken as the position, with no ranking window (valid where the ranks are 1..n:
    see :func:`_misranked`)."""
    # not strict: a NaN rank becomes null here and an error from the rank check
    pos = (
        pl.col(side.order_column).cast(pl.Int64, strict=False)
        if given
        else position(c, side.order_column, side.keys)
    )
    ranked = run.with_columns(
        pos.alias(POS),
        # judged-only rows carry their query's count: a window over the rank's own groups,
        # measured free next to it (a join of per-query counts cost 0.6 s at 10M rows);
        # without the rank window (rank-given, 10M rows, load ~20) still cheaper than
        # joining the counts to the judged rows: 4.2 against 4.4 s CPU, 0.97 against
        # 1.20 GB peak
        *([_retrieved(top).over(side.keys).alias(NUM_RET)] if judged_only else []),
    )
    return ranked if top is None else ranked.filter(pl.col(POS) <= top)


def _misranked(rank: str) -> pl.Expr:
    """Per query: its ranks are certainly not exactly 1..n (n = its rows), so the given
    rank is not trec_eval's position (a gap, not starting at 1).  An aggregation beside
    the run checks' counters, in the same pass.  Repeated ranks within 1..n are found
    by :func:`_in_order`, or failing that :func:`repeated_ranks`."""
    column, rows = pl.col(rank), pl.len()
    return (column.min() != 1) | (column.max() != rows)


def _in_order(rank: str) -> pl.Expr:
    """Per query: ``rank - row`` is one value on every row (``row``: the run's row
    number), so rank = row + c and the ranks are as distinct as the rows: a proof
    without hashing (two streaming aggregations, where a per-query ``n_unique`` builds
    one hash set per query: on one query of 10M rows, one hash set of 10M on one
    thread).  Holds for a query whose rows are in rank order, one after the other."""
    step = pl.col(rank).cast(pl.Int64, strict=False) - pl.col(_ROW).cast(pl.Int64)
    return step.min() == step.max()


def _given_rank_flags(rank: str) -> list[pl.Expr]:
    """The per-query flags of the rank-given fast path (the run numbered by ``_ROW``)."""
    return [_misranked(rank).alias(MISRANKED), _in_order(rank).alias(IN_ORDER)]


# ranks in different buckets differ: a query's distinct ranks are the sum over its
# buckets, so one long query is counted in many small hash sets, in parallel (also the
# ranks per item bucket of the duplicate check: engines/partitions.py item_buckets)
RANKS_PER_BUCKET = 1 << 16


def _repeats_per_query(
    frame: pl.LazyFrame, keys: list[str], value: pl.Expr, bucket: pl.Expr, name: str
) -> pl.LazyFrame:
    """Per query (``keys``): how many of its rows repeat a ``value`` of another row,
    counted in groups of (``keys``, ``bucket``) and summed (``bucket`` must put equal
    values in one group), so that one long query is many small hash sets, counted in
    parallel, where a per-query ``n_unique`` builds one on one thread.

    >>> frame = pl.LazyFrame({"query": ["a", "a", "a", "b"], "v": [1, 2, 1, 1]})
    >>> counts = _repeats_per_query(frame, ["query"], pl.col("v"), pl.col("v") % 2, "n")
    >>> sorted(counts.collect().rows())
    [('a', 1), ('b', 0)]
    """
    per_bucket = frame.group_by([*keys, bucket.alias("_b")]).agg(
        (pl.len() - value.n_unique()).alias("_d")
    )
    return per_bucket.group_by(keys).agg(pl.col("_d").sum().alias(name))


def repeated_ranks(
    run: pl.LazyFrame, keys: Sequence[str], rank: str, only: pl.DataFrame, *,
    every: bool = False,
) -> pl.LazyFrame:
    """The keys of ``only`` (a frame of ``keys``) whose queries in ``run`` repeat a rank:
    the exact check behind :func:`_in_order`, for the queries it could not prove
    (``every``: they are most of ``run``'s queries, so its rows are read unfiltered,
    measured cheaper than filtering 10M shuffled rows to them: 8.6 against 11.4 s CPU).

    >>> run = pl.LazyFrame({"query": ["a", "a", "b", "b"], "rank": [2, 1, 1, 1]})
    >>> only = pl.DataFrame({"query": ["a", "b"]})
    >>> repeated_ranks(run, ["query"], "rank", only).collect()["query"].to_list()
    ['b']
    """
    keys = list(keys)
    value = pl.col(rank).cast(pl.Int64, strict=False)
    query = keys[-1]
    rows = run if every else run.filter(
        pl.col(query).is_in(only[query].implode(), nulls_equal=True)
    )
    per_query = _repeats_per_query(rows, keys, value, value // RANKS_PER_BUCKET, "_repeats")
    repeated = per_query.filter(pl.col("_repeats") != 0).select(keys)
    return repeated.join(only.lazy(), on=keys, how="semi", nulls_equal=True)


def _run_queries(
    run: pl.LazyFrame, keys: list[str], run_checks: list[Check], top: int | None,
    given_rank: str | None, item_buckets: int,
) -> pl.LazyFrame:
    """One row per run query: its count and the run checks' counts (the checks cover
    every row, also beyond top); with ``given_rank``, the fast path's flags."""
    numbered = run if given_rank is None else run.with_row_index(_ROW)
    bucketed = [c for c in run_checks if item_buckets > 1 and c.kind == "duplicate"]
    queries = numbered.group_by(keys).agg(
        _retrieved(top).alias(NUM_RET),
        *[c.counter.alias(c.name) for c in run_checks if not any(c is b for b in bucketed)],
        *([] if given_rank is None else _given_rank_flags(given_rank)),
        pl.lit(True).alias(IN_RUN),
    )
    for check in bucketed:
        counts = _duplicates_in_buckets(run, keys, check, item_buckets)
        queries = queries.join(counts, on=keys, how="left", nulls_equal=True)
    return queries


def _duplicates_in_buckets(
    run: pl.LazyFrame, keys: list[str], check: Check, buckets: int
) -> pl.LazyFrame:
    """The duplicate check's count per query (``check.counter``'s value, the same
    number), counted in ``buckets`` groups of each query by a hash of the item: equal
    items share a bucket, so the query's count is the sum of its buckets'.  For a run
    with very long queries: polars' streaming group-by counts one query's distinct
    items in one hash set on one thread (one query of 10M rows: ~4 s of CPU, 100k
    queries of 100 rows: ~0.5 s; in 16 buckets ~1.6 s, benchmarks/RESULTS.md, perf20).

    >>> run = pl.LazyFrame({"query": ["a", "a", "a", "b"], "item": ["x", "y", "x", "x"]})
    >>> dup = duplicate_check("run", ["query"], "item", "duplicate rows")
    >>> counts = _duplicates_in_buckets(run, ["query"], dup, 4).collect()
    >>> sorted(counts.rows())
    [('a', 1), ('b', 0)]
    """
    item = pl.col(check.column).hash()
    return _repeats_per_query(run, keys, item, item % buckets, check.name)


def _first_of_duplicates(
    ranked: pl.LazyFrame, keys: list[str], item: str
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """duplicates="first": keep the best-ranked row of each (query, item); the dropped
    rows keep occupying their positions, as they did on the user's screen."""
    first = pl.int_range(pl.len()).over([*keys, item], order_by=POS) == 0
    ranked = ranked.with_columns(first.alias("_first"))
    dropped = ranked.filter(~pl.col("_first")).group_by(keys).agg(pl.len().alias("_dropped"))
    return ranked.filter(pl.col("_first")).drop("_first"), dropped


class Joined(NamedTuple):
    rows: pl.LazyFrame
    queries: pl.LazyFrame | None
    qstats: pl.LazyFrame | None
    stat: Callable[[Stat], pl.Expr]
    num_ret: pl.Expr


def _with_ideal(
    rows: pl.LazyFrame, judged: pl.LazyFrame, keys: list[str], ideals: list[Ideal], item: str
) -> pl.LazyFrame:
    """``rows`` with a column per :class:`Ideal`: the ideal ranking of ``judged`` (keyed
    by ``keys``) at each row's position, null past its end; or, for one joined by item,
    the value of the row's own judgment.  Row order is kept."""
    by_position = [i for i in ideals if not i.by_item]
    by_item = [i for i in ideals if i.by_item]
    if by_position:
        rows = rows.join(
            ideal_rows(judged, keys, REL, by_position),
            left_on=[*keys, POS], right_on=[*keys, IDEAL_POS], how="left", maintain_order="left",
        )
    if by_item:
        rows = rows.join(
            item_ideal_rows(judged, keys, item, REL, by_item),
            on=[*keys, item], how="left", maintain_order="left",
        )
    return rows


def _join(
    ranked: pl.LazyFrame,
    run: pl.LazyFrame,
    qrels: pl.LazyFrame | None,
    *,
    c: Columns,
    keys: list[str],
    stats: list[Stat],
    ideals: list[Ideal],
    run_checks: list[Check],
    qrels_checks: list[Check],
    top: int | None,
    judged_only: bool,
    given_rank: str | None = None,
    item_buckets: int = 1,
) -> Joined:
    """The rows the measures aggregate, the per-query stats and how measures read them.
    ``given_rank``: positions are this rank column as given (judged-only rows only);
    ``item_buckets``: see :func:`_duplicates_in_buckets` (judged-only rows only)."""
    if qrels is None:  # the judged set is the run's own rows
        rows = ranked.with_columns(pl.col(c.relevant).cast(pl.Float64).alias(REL))
        rows = _with_ideal(rows, rows, keys, ideals, c.item).sort([*keys, POS])
        return Joined(rows, None, None, lambda s: stat_expr(s, pl.col(REL)), pl.len())
    judged_qrels = qrels.with_columns(pl.col(c.relevance).cast(pl.Float64).alias(REL))
    qstats = judged_qrels.group_by(c.query).agg(
        *[stat_expr(s, pl.col(REL)).alias(s.column) for s in stats],
        *[check.counter.alias(check.name) for check in qrels_checks],
    )
    per_query = qstats.select(c.query, *[s.column for s in stats])
    if not judged_only:
        items = judged_qrels.select(c.query, c.item, REL)
        rows = ranked.join(items, on=[c.query, c.item], how="left", maintain_order="left")
        # every row carries its query's stats, also a query none of whose retrieved items
        # is judged (its R is still the qrels' R: Utility's c * (R - hits) needs it)
        rows = rows.join(per_query, on=c.query, how="left", maintain_order="left")
        # sorted: a query's float sums add in rank order, whatever the input row order
        rows = _with_ideal(rows, judged_qrels, [c.query], ideals, c.item).sort([*keys, POS])
        return Joined(rows, None, qstats, lambda s: pl.col(s.column).max(), pl.len())
    queries = _run_queries(run, keys, run_checks, top, given_rank, item_buckets)
    # the stats joined to the judged rows (half the judgments at 10M rows), not to every
    # judgment before the run join: 308 against 356 MiB peak at 10M rows, rank-given,
    # the same CPU time (benchmarks/RESULTS.md, issue 15)
    judged_rows = ranked.join(
        judged_qrels.select(c.query, c.item, REL), on=[c.query, c.item], how="inner"
    ).join(per_query, on=c.query, how="left")
    rows = (
        _with_ideal(judged_rows, judged_qrels, [c.query], ideals, c.item)
        # ~1/20 of the run: sorted, a query's sums add in the same order on every call
        # (measured free; maintain_order on the join cost 1.7 s at 10M rows)
        .sort([*keys, POS], nulls_last=True)
    )
    return Joined(
        rows, queries, qstats, lambda s: pl.col(s.column).first(), pl.col(NUM_RET).first()
    )


def _sides(
    run: pl.LazyFrame, qrels: pl.LazyFrame | None, c: Columns, by: Sequence[str], *,
    exp_gain: bool, only: pl.DataFrame | None, part: tuple[int, int] | None = None,
) -> tuple[RunSide, pl.LazyFrame, pl.LazyFrame | None, list[Check], list[Check]]:
    """Both sides checked: the run side, the run and qrels to evaluate (keys aligned;
    the run restricted to the keys ``only`` has; both to the queries of partition
    ``part``), the run checks and the qrels checks."""
    side = _run_side(run, c, list(by), has_qrels=qrels is not None)
    run_checks, prepared, qrels_checks = list(side.checks), side.frame, list[Check]()
    if qrels is not None:
        prepared, qrels, qrels_checks = _qrels_side(qrels, side, c)
        if exp_gain:
            qrels_checks.append(exp_gain_check("qrels", c.relevance))
    elif exp_gain:
        run_checks.append(exp_gain_check("run", c.relevant))
    if only is not None:
        prepared = prepared.join(only.lazy(), on=side.keys, how="semi", nulls_equal=True)
    if part is not None:
        prepared = prepared.filter(in_partition(c.query, *part))
        qrels = None if qrels is None else qrels.filter(in_partition(c.query, *part))
    return side, prepared, qrels, run_checks, qrels_checks


def in_partition(query: str, part: int, parts: int) -> pl.Expr:
    """The rows of the queries in partition ``part`` of ``parts``: split by a hash of the
    query id (after both sides' ids have one dtype, so that a query's run and qrels rows
    meet in one partition; a null id hashes like any value, so its rows, and their
    check, stay in one partition too).

    >>> frame = pl.DataFrame({"query": ["q1", "q2", "q1", None]})
    >>> sizes = [frame.filter(in_partition("query", p, 2)).height for p in range(2)]
    >>> sum(sizes)
    4
    """
    return pl.col(query).hash() % parts == part


def _running_column(level: float) -> str:
    """The running count of relevant rows at ``level`` (a reserved ``_stat_`` name)."""
    return "_stat_running" + Stat("num_rel", level).column.removeprefix("_stat_num_rel")


def _running_counts(rows: pl.LazyFrame, keys: list[str], stats: Sequence[Stat]) -> pl.LazyFrame:
    """The rows with, for level 0 (the judged rows) and each level of a ``num_rel`` stat,
    each row's count of the rows at or above it in its query with a relevance at that
    level or more (``Judged.running``): a cumulative sum, the rows being in position order
    within each query (``_join`` sorts them).  One pass a query for every measure at that
    level, where IPrec's recall levels and bpref each ranked the relevant (and judged)
    rows of every query again (polars prunes a column no measure reads).

    >>> rows = pl.LazyFrame({"query": [1, 1, 1, 2], "_rel": [1.0, None, 2.0, 0.0]})
    >>> _running_counts(rows, ["query"], [Stat("num_rel", 1.0)]).collect()["_stat_running_1"].to_list()
    [1, 1, 2, 0]
    """
    stat_levels = (s.level for s in stats if s.kind == "num_rel" and s.level is not None)
    levels = dict.fromkeys([0.0, *stat_levels])
    return rows.with_columns(
        (pl.col(REL) >= level).fill_null(False).cum_sum().over(keys).alias(_running_column(level))
        for level in levels
    )


def _duplicates(
    ranked: pl.LazyFrame, keys: list[str], item: str, duplicates: str, run_checks: list[Check]
) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """``duplicates='first'``: the best-ranked row of each repeated (query, item) and what
    was dropped (:func:`_first_of_duplicates`); else the ranked rows as they are, the run's
    duplicate check added to ``run_checks``."""
    if duplicates == "first":
        return _first_of_duplicates(ranked, keys, item)
    problem = "duplicate (query, item) rows (pass duplicates='first' to keep the best-ranked one)"
    run_checks.append(duplicate_check("run", keys, item, problem))
    return ranked, None


def _per_row(
    joined: Joined, keys: list[str], c: Columns, order: str, stats: Sequence[Stat], *,
    ties: str, tie_levels: Sequence[float], tie_gains: Sequence[str], judged_only: bool,
    in_order: bool,
) -> tuple[pl.LazyFrame, Judged]:
    """The joined rows with the columns measures read per row (tie groups with
    ``ties="average"``; running counts when ``in_order``: the rows carry their query's
    stats, joined, sorted), and the :class:`Judged` that reads them."""
    rows, tie_columns = joined.rows, None
    if ties == "average":
        rows, tie_columns = with_ties(rows, keys, c, order, tie_levels, tie_gains)
    if in_order:
        rows = _running_counts(rows, keys, stats)
    judged = Judged(
        pos=pl.col(POS), rel=pl.col(REL), stat=joined.stat, ties=tie_columns,
        num_ret=joined.num_ret, judged_only=judged_only,
        running=(lambda level: pl.col(_running_column(level))) if in_order else None,
        row_stat=(lambda s: pl.col(s.column)) if in_order else None,
    )
    return rows, judged


def judge(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame | None,
    *,
    columns: Columns,
    by: Sequence[str],
    stats: Sequence[Stat],
    duplicates: str,
    ideals: Sequence[Ideal] = (),
    top: int | None = None,
    ties: str = "trec_eval",
    tie_levels: Sequence[float] = (),
    tie_gains: Sequence[str] = (),
    exp_gain: bool = False,
    user_names: Mapping[str, str] | None = None,
    given_ranks: bool = False,
    only: pl.DataFrame | None = None,
    part: tuple[int, int] | None = None,
    item_buckets: int = 1,
) -> Judgement:
    """Validate the schemas, rank the run, join the qrels; nothing is collected.

    ``ideals``: the rows also get these values of the ideal ranking at their position
    (:class:`~polars_rankeval._registry.Ideal`, read through ``judged.ideal``).
    With ``ties="average"`` the rows also get the tie-group columns of ``tie_levels``
    and ``tie_gains`` (see :class:`~polars_rankeval._registry.Ties`), read through
    ``judged.ties``.  ``exp_gain``: a measure reads exponential gains, so labels above
    1023 are an error (see :func:`~.checks.exp_gain_check`).  ``user_names``: the
    user's names of aliased columns (``prepare/names.py``), for error messages.
    ``given_ranks``: ranks as positions, no window (judged-only rows); ``queries`` flags
    queries not ranked 1..n (:data:`MISRANKED`, :data:`IN_ORDER`) to redo them ranked.
    ``part``: (partition, partitions): only the queries of that partition (see
    :func:`in_partition`); the checks' examples still read the whole ``run``.
    ``item_buckets`` > 1: the run's duplicate check counts each query in that many
    buckets (:func:`_duplicates_in_buckets`; the same counts), for long queries.
    """
    c = columns
    side, prepared, qrels, run_checks, qrels_checks = _sides(
        run, qrels, c, by, exp_gain=exp_gain, only=only, part=part
    )
    keys = side.keys
    judged_only = qrels is not None and ties == "trec_eval" and duplicates == "error"
    given = given_ranks and judged_only and side.order_column == c.rank
    ranked = _rank(prepared, side, c, top=top, judged_only=judged_only, given=given)
    ranked, dropped = _duplicates(ranked, keys, c.item, duplicates, run_checks)
    joined = _join(
        ranked, prepared, qrels, c=c, keys=keys, stats=list(dict.fromkeys(stats)),
        ideals=list(dict.fromkeys(ideals)), run_checks=run_checks, qrels_checks=qrels_checks,
        top=top, judged_only=judged_only, given_rank=side.order_column if given else None,
        item_buckets=item_buckets,
    )
    rows, judged = _per_row(
        joined, keys, c, side.order_column, stats, ties=ties, tie_levels=tie_levels,
        tie_gains=tie_gains, judged_only=judged_only, in_order=qrels is not None)  # fmt: skip
    return Judgement(
        rows=rows, queries=joined.queries, qstats=joined.qstats, keys=keys, query=c.query,
        judged=judged, run_checks=run_checks, qrels_checks=qrels_checks, run=run,
        ranked=ranked, qrels=qrels, duplicates_dropped=dropped, user_names=user_names or {},
        given_run=prepared if given else None,
    )
