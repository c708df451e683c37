"""Per-query constants of the judged set (R, judged non-relevant N, ideal DCG@k, the
highest relevance level, the positive gains' count, sum and levels), and the per-position
values of its ideal ranking (:func:`ideal_rows`).

Each is an aggregation over the rows of one query's judged set: the qrels rows of
the query, or the run's own rows when no qrels are given.  ``rel`` is the relevance
value column of those rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankeval._registry import Ideal, Stat

__all__ = ["IDEAL_POS", "discount", "gain", "ideal_rows", "item_ideal_rows", "stat_expr"]

IDEAL_POS = "_ideal_pos"


def gain(rel: pl.Expr, kind: str) -> pl.Expr:
    """Gain of a row for DCG.

    ``linear``: the relevance value (trec_eval ``ndcg``); ``exp``: 2^rel - 1 (Burges).
    Relevance <= 0, negative (trec_eval's "in pool, unjudged") or null (not judged)
    gains 0, as in trec_eval.
    """
    rel = rel.cast(pl.Float64)
    value = rel if kind == "linear" else pl.lit(2.0).pow(rel) - 1.0
    return pl.when(rel > 0).then(value).otherwise(pl.lit(0.0))


def discount(pos: pl.Expr) -> pl.Expr:
    """1 / log2(pos + 1) for a 1-based position."""
    return 1.0 / (pos.cast(pl.Float64) + 1.0).log(2)


def stat_expr(stat: Stat, rel: pl.Expr) -> pl.Expr:
    """The aggregation that computes ``stat`` over one query's judged rows."""
    if stat.kind == "num_rel":
        return (rel >= stat.level).fill_null(False).sum().cast(pl.Float64)
    if stat.kind == "num_nonrel":
        # trec_eval m_bpref.c: judged levels 0 .. rel-1 are judged non-relevant;
        # negative judgments are "unjudged" and not counted.
        return ((rel >= 0) & (rel < stat.level)).fill_null(False).sum().cast(pl.Float64)
    if stat.kind == "idcg":
        ideal_pos = pl.int_range(1, pl.len() + 1)
        gains = gain(rel, stat.gain or "linear").sort(descending=True)
        if stat.k is not None:
            # the first k before the products, not filtered after them: the same products
            # in the same order (the same sum), 0.30 against 0.35 s of CPU for 100k
            # queries' idcg@10 (benchmarks/RESULTS.md, perf21)
            gains, ideal_pos = gains.head(stat.k), ideal_pos.head(stat.k)
        return (gains * discount(ideal_pos)).sum().cast(pl.Float64)
    if stat.kind == "max_rel":
        # trec_eval's highest relevance level of the query (negative judgments are not
        # levels); null when the query has no judgment >= 0
        return rel.filter(rel >= 0).max().cast(pl.Float64)
    positive = rel.filter(rel > 0).cast(pl.Float64)  # the ideal ranking's gains
    if stat.kind == "num_pos":
        return positive.len().cast(pl.Float64)
    if stat.kind == "ideal_gain":
        return positive.sum()
    if stat.kind == "ideal_cost":
        return positive.clip(lower_bound=1.0).sum()
    if stat.kind == "gain_levels":
        return positive.n_unique().cast(pl.Float64)
    raise ValueError(f"unknown stat {stat!r}")


def _ideal_expr(which: Ideal, g: pl.Expr) -> pl.Expr:
    """``which`` at each ideal position, over ``g``: one query's positive gains sorted
    descending (an aggregation giving a list per query)."""
    if which.kind == "cost":
        return g.clip(lower_bound=1.0).cum_sum()
    dcg = (g * discount(pl.int_range(1, pl.len() + 1))).cum_sum()
    if which.kind == "dcg":
        return dcg
    if which.kind == "level_ends":
        # an end of a gain level: the next ideal gain differs (0 after the last one)
        end = g != g.shift(-1, fill_value=0.0)
        return pl.when(end).then(1.0 / dcg).otherwise(0.0).cum_sum(reverse=True)
    raise ValueError(f"unknown ideal value {which!r}")


def ideal_rows(
    judged: pl.LazyFrame, keys: Sequence[str], rel: str, which: Sequence[Ideal]
) -> pl.LazyFrame:
    """One row per position of each query's ideal ranking (its judged rows with
    relevance > 0, gain descending): ``keys``, :data:`IDEAL_POS` (1-based, Int64) and a
    column per :class:`Ideal` in ``which``.  The engines join it onto the run's rows at
    (query, position)."""
    g = pl.col(rel).cast(pl.Float64).sort(descending=True)
    per_query = judged.filter(pl.col(rel) > 0).group_by(keys).agg(
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias(IDEAL_POS),
        *[_ideal_expr(w, g).alias(w.column) for w in which],
    )
    return per_query.explode([IDEAL_POS, *[w.column for w in which]])


def item_ideal_rows(
    judged: pl.LazyFrame, keys: Sequence[str], item: str, rel: str, which: Sequence[Ideal]
) -> pl.LazyFrame:
    """One row per judged item with a gain > 0: ``keys``, ``item`` and a column per
    :class:`Ideal` of ``which`` that is joined by item (``Ideal.by_item``).  ``above``:
    how many of the query's positive judgments have a strictly higher gain (the rank
    "min" of the gain, descending, less one)."""
    columns = []
    for w in which:
        if w.kind != "above":
            raise ValueError(f"not an ideal value joined by item: {w!r}")
        above = pl.col(rel).rank("min", descending=True).over(keys) - 1
        columns.append(above.cast(pl.Float64).alias(w.column))
    positive = judged.filter(pl.col(rel) > 0).unique([*keys, item], keep="first")
    return positive.select(*keys, item, *columns)
