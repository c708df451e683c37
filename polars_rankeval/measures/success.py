"""Success at k (hit rate)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, register


def _expression(m: Measure, j: Judged) -> pl.Expr:
    return (j.is_relevant(m.rel) & j.in_top(m.k)).any().cast(pl.Float64)


def _expected(m: Measure, j: Judged) -> pl.Expr:
    """P(a relevant item in the top k) over the orderings of tied rows: 1 - P(none at
    positions <= the last row within k); for the group across k with m of its n
    positions within k, P(none there) = C(n-r, m) / C(n, m)."""
    assert j.ties is not None
    return 1.0 - j.ties.none_through(m.rel, j.pos).filter(j.in_top(m.k)).min()


SUCCESS = register(
    Family(
        name="Success",
        order=60,
        aliases=("HitRate",),
        summary="Success (hit rate): 1 if any relevant item is in the top k, else 0.",
        formula="1 if relevant in top k > 0 else 0",
        trec_eval="success_k",
        expression=_expression,
        expected=_expected,
    )
)
