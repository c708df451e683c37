"""Reciprocal rank (RR; MRR is its mean over queries)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, register


def _expression(m: Measure, j: Judged) -> pl.Expr:
    first_hit = j.pos.filter(j.is_relevant(m.rel) & j.in_top(m.k)).min()
    return (1.0 / first_hit.cast(pl.Float64)).fill_null(0.0)


def _expected(m: Measure, j: Judged) -> pl.Expr:
    """E[RR@k] over the orderings of tied rows: sum over positions p <= k of
    P(first relevant at p) / p; only the first group with a relevant row contributes:
    P(its j-th position is the first relevant) = C(n-j, r-1) / C(n, r)."""
    assert j.ties is not None
    first = j.ties.first(m.rel, j.pos) / j.pos.cast(pl.Float64)
    return first.filter(j.in_top(m.k)).sum()


RR = register(
    Family(
        name="RR",
        order=40,
        aliases=("MRR",),
        summary="Reciprocal rank of the first relevant item.",
        formula="1 / position of the first relevant item within the top k, 0 if none",
        trec_eval="recip_rank (no cutoff)",
        expression=_expression,
        expected=_expected,
    )
)
