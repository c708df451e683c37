"""Recall at k (R@k)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Param, Stat, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    hits = (j.is_relevant(m.rel) & j.in_top(m.k)).sum()
    num_rel = j.stat(Stat("num_rel", m.rel))
    if m["norm"] == "min" and m.k is not None:
        return safe_div(hits, pl.min_horizontal(num_rel, pl.lit(float(m.k))))
    return safe_div(hits, num_rel)


def _expected(m: Measure, j: Judged) -> pl.Expr:
    """E[R@k] over the orderings of tied rows: relevant replaced by r/n of the row's tie
    group."""
    assert j.ties is not None
    hits = j.ties.share(m.rel).filter(j.in_top(m.k)).sum()
    num_rel = j.stat(Stat("num_rel", m.rel))
    if m["norm"] == "min" and m.k is not None:
        return safe_div(hits, pl.min_horizontal(num_rel, pl.lit(float(m.k))))
    return safe_div(hits, num_rel)


R = register(
    Family(
        name="R",
        order=30,
        examples=("R(norm=min)@2",),
        aliases=("Recall", "SetR"),
        summary="Recall: fraction of the relevant items found in the top k.",
        formula="relevant in top k / R (norm=R) or / min(R, k) (norm=min)",
        trec_eval="recall_k, set_recall",
        params=(
            Param(
                "norm",
                "R",
                "denominator: R = all relevant (trec_eval) or min = min(R, k)",
                choices=("R", "min"),
            ),
        ),
        expression=_expression,
        expected=_expected,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
