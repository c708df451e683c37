"""Precision at k (P@k); without a cutoff, precision of the whole retrieved set."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import (
    Family,
    Judged,
    Measure,
    Param,
    divide_by,
    register,
    safe_div,
)


def _expression(m: Measure, j: Judged) -> pl.Expr:
    hits = (j.is_relevant(m.rel) & j.in_top(m.k)).sum()
    if m.k is None:
        return safe_div(hits, j.num_ret)  # trec_eval set_P
    if m["norm"] == "ret":
        return safe_div(hits, j.count_top(m.k))
    return divide_by(hits, m.k)  # trec_eval P_k: divide by k even if fewer were retrieved


def _expected(m: Measure, j: Judged) -> pl.Expr:
    """E[P@k] over the orderings of tied rows: relevant replaced by r/n of the row's tie
    group (the positions a group occupies do not depend on its order)."""
    assert j.ties is not None
    hits = j.ties.share(m.rel).filter(j.in_top(m.k)).sum()
    if m.k is None:
        return safe_div(hits, j.num_ret)
    if m["norm"] == "ret":
        return safe_div(hits, j.count_top(m.k))
    return divide_by(hits, m.k)


P = register(
    Family(
        name="P",
        order=20,
        examples=("P(norm=ret)@3", "P(rel=2)@3"),
        aliases=("Precision", "SetP"),
        summary="Precision: fraction of the top k that is relevant.",
        formula="relevant in top k / k (norm=k) or / min(k, retrieved) (norm=ret); "
        "no cutoff: relevant retrieved / retrieved",
        trec_eval="P_k, set_P",
        params=(
            Param(
                "norm",
                "k",
                "denominator: k even when fewer items were retrieved (trec_eval), or "
                "ret = the number retrieved within the cutoff",
                choices=("k", "ret"),
            ),
        ),
        expression=_expression,
        expected=_expected,
    )
)
