"""After any engine: the per-query checks at collect time, which queries count
(``complete``), the values of queries without rows, the aggregation over queries and
the long output.  Every engine's per-query frame ends here, so these rules exist once.

An engine's per-query frame has the key columns (``by`` + query), a Float64 column
``_m{i}`` per measure, the per-query stat columns, ``_in_run`` / ``_in_qrels`` flags
and, with judged-only rows, ``_num_ret``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import TypeVar

import polars as pl

from polars_rankeval._errors import InputError, RankevalWarning
from polars_rankeval._registry import Judged, Measure
from polars_rankeval.engines.spec import Spec
from polars_rankeval.prepare.checks import example, raise_for_checks
from polars_rankeval.prepare.judge import IN_RUN, NUM_RET, Judgement

__all__ = [
    "GMEAN_FLOOR",
    "IN_QRELS",
    "aggregate",
    "check_per_query",
    "long_frame",
    "select_evaluated",
    "summarize",
    "value_column",
]

IN_QRELS = "_in_qrels"
GMEAN_FLOOR = 1e-5  # trec_eval's MIN_GEO_MEAN
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def value_column(i: int) -> str:
    """The name of measure ``i``'s column in a per-query frame."""
    return f"_m{i}"


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def _warn_skipped(frame: pl.DataFrame, query: str) -> None:
    """Warn of the run's queries that are not in the qrels (some are: see :func:`_found`)."""
    run_only = frame.filter(pl.col(IN_RUN).fill_null(False) & ~pl.col(IN_QRELS).fill_null(False))
    # the examples: the first queries in order (the same whatever the row order)
    queries = run_only[query].unique().sort()
    n = queries.len()
    warnings.warn(
        f"{n} run quer{_plural(n, 'y is', 'ies are')} not in the qrels and "
        f"{_plural(n, 'is', 'are')} ignored (as trec_eval does), e.g. "
        f"{queries.head(3).to_list()}",
        RankevalWarning,
        stacklevel=3,
    )


def _raise_no_shared_query(frame: pl.DataFrame, query: str) -> None:
    """Raise for a run and qrels without a query in common, with examples of each."""
    in_run = frame[IN_RUN].fill_null(False)
    in_qrels = frame[IN_QRELS].fill_null(False)
    run_only = frame.filter(in_run & ~in_qrels)[query].unique().sort()
    qrels_queries = frame.filter(in_qrels)[query].unique().sort()
    raise InputError(
        f"run and qrels share no query: the run's queries (e.g. "
        f"{run_only.head(3).to_list()}) are not in the qrels (e.g. "
        f"{qrels_queries.head(3).to_list()}); check the query column and its type"
    )


def _is_infinite(column: str) -> pl.Expr:
    return pl.col(column).is_not_null() & ~pl.col(column).is_finite()


def _raise_infinite(frame: pl.DataFrame, judgement: Judgement, names: Sequence[str]) -> None:
    """Name the first measure with a value that is not finite, its query and a row
    (none: finite values whose sum overflowed, no error)."""
    for i, name in enumerate(names):
        column = value_column(i)
        if column not in frame.columns:
            continue
        bad = frame.filter(_is_infinite(column))
        if bad.height:
            key = bad.row(0, named=True)
            where = {k: key[k] for k in judgement.keys}
            match = pl.all_horizontal(pl.col(k).eq_missing(v) for k, v in where.items())
            raise InputError(
                f"{name} is {key[column]} for {where}: a measure value must be finite "
                f"(the input overflows double precision); {bad.height} quer"
                f"{_plural(bad.height, 'y', 'ies')}; example run row: "
                f"{example(judgement.run, match)}"
            )


def _found(
    frame: pl.DataFrame, judgement: Judgement, *, has_qrels: bool, names: Sequence[str]
) -> dict[str, int]:
    """What :func:`check_per_query` has to report, counted in one pass of the columns'
    own reductions (native, microseconds each; a ``select`` of them costs ~0.5 ms): each
    check's bad rows and the dropped duplicates (``_dropped``), the rows of the run, of
    the qrels, of both (a null flag is False: a sum leaves nulls out), and whether a
    measure's values may not all be finite (their sum is not: a NaN or an infinity, or
    finite values overflowing)."""
    counts = [c.name for c in (*judgement.qrels_checks, *judgement.run_checks)]
    found: dict[str, int] = {
        c: int(frame.get_column(c).sum()) for c in (*counts, "_dropped") if c in frame.columns
    }
    values = [value_column(i) for i in range(len(names)) if value_column(i) in frame.columns]
    found["maybe not finite"] = not all(_finite_sum(frame.get_column(c)) for c in values)
    in_run = frame.get_column(IN_RUN)
    found["run rows"] = int(in_run.sum())
    if has_qrels:
        in_qrels = frame.get_column(IN_QRELS)
        found["qrels rows"] = int(in_qrels.sum())
        found["shared"] = int((in_run & in_qrels).sum())
        found["run only"] = found["run rows"] - found["shared"]
    return found


def _finite_sum(values: pl.Series) -> bool:
    """Whether the sum of ``values`` (nulls left out) is finite: then none is NaN or
    infinite."""
    total = values.sum()
    return total is not None and math.isfinite(total)


def check_per_query(
    frame: pl.DataFrame,
    judgement: Judgement,
    *,
    has_qrels: bool,
    complete: bool,
    names: Sequence[str] = (),
) -> pl.DataFrame:
    """Runs at collect time on the small per-query frame: raise on bad data, warn on
    skipped data (with counts), pass the frame through unchanged.  Everything is
    counted in one pass (:func:`_found`); only what it finds is looked at again, for
    the message."""
    found = _found(frame, judgement, has_qrels=has_qrels, names=names)
    checks = [*judgement.qrels_checks, *judgement.run_checks]  # raised in checks.FRAME_ORDER
    if any(found.get(c.name) for c in checks):
        raise_for_checks(
            frame, checks, lambda which: judgement.run if which == "run" else judgement.qrels,
            judgement.user_names,
        )  # fmt: skip
    if not found["run rows"]:
        raise InputError("the run has no rows: there is nothing to evaluate")
    if has_qrels and not found["qrels rows"]:
        raise InputError(
            ("complete=True needs judged queries to average over, but"
             if complete else "run and qrels share no query:")
            + " the qrels have no rows (is the qrels file or filter empty?)"
        )
    if found["maybe not finite"]:
        _raise_infinite(frame, judgement, names)
    if has_qrels and not (complete or found["shared"]):
        _raise_no_shared_query(frame, judgement.query)
    if has_qrels and found["run only"]:
        _warn_skipped(frame, judgement.query)
    if dropped := found.get("_dropped"):
        warnings.warn(
            f"duplicates='first': dropped {dropped} duplicate (query, item) run row(s), "
            "keeping the best-ranked one of each",
            RankevalWarning,
            stacklevel=2,
        )
    return frame


def query_groups(spec: Spec) -> pl.LazyFrame | None:
    """With ``complete`` and ``by`` columns that the qrels carry too (query attributes:
    a segment, a category), each qrels query's group: one row per (query, by...)."""
    by = list(spec.options.by)
    if not (spec.options.complete and by and spec.qrels is not None):
        return None
    qrels = spec.qrels.lazy()
    if not set(by) <= set(qrels.collect_schema()):
        return None
    return qrels.select(spec.columns.query, *by).unique()


def _evaluated_queries(
    checked: FrameT, keys: list[str], stat_columns: list[str], value_columns: list[str],
    *, complete: bool, groups: pl.LazyFrame | None = None,
) -> FrameT:
    """Queries in both run and qrels by default; every qrels query with ``complete``
    (for each ``by`` group of the run, or of the qrels when they carry the ``by``
    columns: see :func:`query_groups`)."""
    in_run = pl.col(IN_RUN).fill_null(False)
    in_qrels = pl.col(IN_QRELS).fill_null(False)
    if not complete:
        return checked.filter(in_run & in_qrels)
    if len(keys) == 1:
        return checked.filter(in_qrels)
    if isinstance(checked, pl.LazyFrame):
        # built eagerly on the small per-query frame, in one pass so the checks run once
        schema = checked.collect_schema()
        return checked.map_batches(
            lambda frame: _complete_by_groups(frame, keys, stat_columns, value_columns, groups),
            schema={c: schema[c] for c in [*keys, *stat_columns, *value_columns]},
        )
    return _complete_by_groups(checked, keys, stat_columns, value_columns, groups)


def select_evaluated(
    checked: FrameT,
    *,
    keys: list[str],
    measures: Sequence[Measure],
    stat_columns: list[str],
    has_qrels: bool,
    complete: bool,
    groups: pl.LazyFrame | None = None,
    num_ret: bool | None = None,
) -> FrameT:
    """From the checked per-query frame of any engine: the evaluated queries, missing
    values filled.  A query without values (no run rows, or no judged retrieved rows)
    takes each measure's ``missing`` value (0, or R for NumRel...).  ``num_ret``: whether
    ``checked`` has a ``_num_ret`` column, when the engine knows (None: read from its
    schema, which for a lazy per-query plan costs ~0.8 ms of planning)."""
    if num_ret is None:
        schema = checked.collect_schema() if isinstance(checked, pl.LazyFrame) else checked.schema
        num_ret = NUM_RET in schema
    value_columns = [value_column(i) for i in range(len(measures))]
    if num_ret:
        value_columns.append(NUM_RET)
    base = _evaluated_queries(
        checked, keys, stat_columns, value_columns, complete=complete, groups=groups
    )
    if not has_qrels:  # every query has run rows: nothing is missing
        return base.select(*keys, *value_columns[: len(measures)])

    # a query without rows, seen by the measures' ``missing``: per-query columns
    empty = Judged(
        pos=pl.lit(None, pl.Int64),
        rel=pl.lit(None, pl.Float64),
        stat=lambda s: pl.col(s.column),
        num_ret=pl.col(NUM_RET).fill_null(0) if num_ret else pl.lit(0, pl.Int64),
        judged_only=True,
    )
    return base.select(
        *keys,
        *[
            pl.coalesce(pl.col(value_column(i)), m.missing(empty)).alias(value_column(i))
            for i, m in enumerate(measures)
        ],
    )


def _complete_by_groups(
    frame: pl.DataFrame, keys: list[str], stat_columns: list[str], value_columns: list[str],
    query_groups: pl.LazyFrame | None = None,
) -> pl.DataFrame:
    """complete=True with ``by``: every by-group of the run crossed with every qrels query
    (systems, days), or, when the qrels carry the ``by`` columns, each qrels query in its
    own group only (segments); with the values the group's run has (null = missing,
    filled by the caller)."""
    by, query = keys[:-1], keys[-1]
    in_run = pl.col(IN_RUN).fill_null(False)
    in_qrels = pl.col(IN_QRELS).fill_null(False)
    qrels_queries = frame.filter(in_qrels).select(query, *stat_columns).unique(subset=[query])
    found = frame.filter(in_run & in_qrels).select(*keys, *value_columns)
    if query_groups is not None:
        universe = _attribute_groups(query_groups.collect(), qrels_queries, query, by)
        universe = universe.with_columns(pl.col(b).cast(frame.schema[b]) for b in by)
    else:
        groups = frame.filter(in_run).select(by).unique()
        _warn_query_attributes(frame.filter(in_run).select(keys), by, query, groups.height)
        universe = groups.join(qrels_queries, how="cross")
    # a null by-value is a group like any other
    return universe.join(found, on=keys, how="left", nulls_equal=True).select(
        *keys, *stat_columns, *value_columns
    )


def _attribute_groups(
    query_groups: pl.DataFrame, qrels_queries: pl.DataFrame, query: str, by: list[str]
) -> pl.DataFrame:
    """Each qrels query in the group its qrels rows give it (one group per query)."""
    repeated = query_groups.filter(pl.col(query).is_duplicated())
    if repeated.height:
        raise InputError(
            f"complete=True with by={by} taken from the qrels: a query must have one value of "
            f"the by columns there (they are query attributes), but {repeated.row(0, named=True)}"
            f" and others disagree; e.g. {repeated.head(2).rows(named=True)}"
        )
    typed = query_groups.with_columns(pl.col(query).cast(qrels_queries.schema[query]))
    return typed.join(qrels_queries, on=query, how="inner").select(by + qrels_queries.columns)


def _warn_query_attributes(
    run_keys: pl.DataFrame, by: list[str], query: str, n_groups: int
) -> None:
    """complete=True averages each ``by`` group over every qrels query: right for groups
    that each hold the whole run (systems, days), misleading for groups that split the
    queries (a query's category), where it scores the other groups' queries 0.  When
    every run query is in one group only, say so (the numbers are as documented)."""
    if n_groups < 2:
        return
    spread = run_keys.group_by(query).agg(pl.struct(by).n_unique().alias("_groups"))
    if spread["_groups"].max() != 1:
        return
    example = run_keys.sort(run_keys.columns, nulls_last=True).head(1).row(0, named=True)
    warnings.warn(
        f"complete=True with by={by}: every run query is in one group only (e.g. {example}): "
        "if the groups split the queries (segments) rather than each holding the whole run "
        "(systems, days), each group is averaged over every qrels query and the other "
        "groups' queries score 0 in it; for per-segment means filter run and qrels to the "
        "segment, or drop complete=True",
        RankevalWarning,
        stacklevel=2,
    )


def aggregate(values: pl.Expr, m: Measure) -> pl.Expr:
    """The one aggregation over queries: the mean, the sum (count measures) or trec_eval's
    geometric mean exp(mean(log(max(x, 1e-5)))) (gm_map).  Used by ``evaluate``'s
    summaries, ``compare`` and the reports.  The values are added one after the other in
    row order: sort the frame first (trec_eval's query order) for reproducible bits.

    >>> import polars as pl
    >>> from polars_rankeval._parse import parse_measure
    >>> pl.select(aggregate(pl.lit(pl.Series([0.5, 0.0])), parse_measure("GMAP"))).item()
    0.0022360679774997894
    """
    # sequential sums (cum_sum) in the frame's row order, as trec_eval adds its queries:
    # the same bits on every call, unlike a parallel sum() or mean()
    if m.family.aggregate == "sum":
        return values.cum_sum().last()
    if m.family.aggregate == "gmean":
        logs = values.clip(lower_bound=GMEAN_FLOOR).log()
        return (logs.cum_sum().last() / logs.count()).exp()
    return values.cum_sum().last() / values.count()


def long_frame(wide: pl.LazyFrame, keys: list[str], names: Sequence[str]) -> pl.LazyFrame:
    """``keys..., measure, value`` rows from a frame with a ``_m{i}`` column per measure,
    in key order then the measures' order."""
    value_columns = [value_column(i) for i in range(len(names))]
    long = wide.unpivot(
        on=value_columns, index=keys, variable_name="measure", value_name="value"
    ).with_columns(pl.col("measure").str.slice(2).cast(pl.Int64).alias("_order"))
    long = long.sort([*keys, "_order"]) if keys else long.sort("_order")
    mapping = {value_column(i): name for i, name in enumerate(names)}
    return long.select(
        *keys,
        pl.col("measure").replace_strict(mapping, return_dtype=pl.String),
        pl.col("value").cast(pl.Float64),
    )


def summarize(
    wide: pl.LazyFrame, keys: list[str], measures: Sequence[Measure], names: Sequence[str]
) -> pl.LazyFrame:
    """The summary over queries (per ``by`` group), in long form."""
    by_keys, query = keys[:-1], keys[-1]
    aggregates = [aggregate(pl.col(value_column(i)), m) for i, m in enumerate(measures)]
    # trec_eval's order (queries as text, strcmp): the sums add in its order on every
    # call, whatever the engine or the input order, so even exact halves round as it does
    order = pl.col(query).cast(pl.String)
    # the groups' order is long_frame's (it sorts by the by keys); group_by keeps each
    # group's rows in this order whatever its maintain_order says
    wide = wide.sort([*by_keys, order])
    summary = (
        wide.group_by(by_keys).agg(*aggregates)
        if by_keys
        else wide.select(*aggregates)
    )
    return long_frame(summary, by_keys, names)
