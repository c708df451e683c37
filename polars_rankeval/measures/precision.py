"""Precision at k (P@k); without a cutoff, precision of the whole retrieved set."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Param, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    hits = (j.is_relevant(m.rel) & j.in_top(m.k)).sum()
    if m.k is None:
        return safe_div(hits, pl.len())  # trec_eval set_P
    if m["norm"] == "ret":
        return safe_div(hits, j.in_top(m.k).sum())
    return hits / m.k  # trec_eval P_k: divide by k even if fewer were retrieved


P = register(
    Family(
        name="P",
        aliases=("Precision",),
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
    )
)
