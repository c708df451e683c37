"""Per-query constants of the judged set (R, judged non-relevant N, ideal DCG@k, the
highest relevance level).

Each is an aggregation over the rows of one query's judged set: the qrels rows of
the query, or the run's own rows when no qrels are given.  ``rel`` is the relevance
value column of those rows.
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Stat

__all__ = ["discount", "gain", "stat_expr"]


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
        ideal = gain(rel, stat.gain or "linear").sort(descending=True) * discount(ideal_pos)
        if stat.k is not None:
            ideal = ideal.filter(ideal_pos <= stat.k)
        return ideal.sum().cast(pl.Float64)
    if stat.kind == "max_rel":
        # trec_eval's highest relevance level of the query (negative judgments are not
        # levels); null when the query has no judgment >= 0
        return rel.filter(rel >= 0).max().cast(pl.Float64)
    raise ValueError(f"unknown stat {stat!r}")
