"""Inferred average precision (infAP), exactly as trec_eval's m_infap.c."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Stat, register, safe_div

EPSILON = 0.00001  # trec_eval's INFAP_EPSILON


def _expression(m: Measure, j: Judged) -> pl.Expr:
    relevant = j.is_relevant(m.rel)
    nonrel = ((j.rel >= 0) & (j.rel < m.rel)).fill_null(False)  # judged non-relevant
    pooled = j.rel.is_not_null()  # in the qrels: judged, or negative = pooled but unjudged
    judged = relevant | nonrel
    # at each relevant row (trec_eval's j = position - 1): the rows above it that are
    # relevant, judged non-relevant, and in the pool (judged or not)
    rel_above = (j.rank_among(relevant) - 1).cast(pl.Float64)
    nonrel_above = (
        j.rank_among(judged).filter(relevant.filter(judged)) - j.rank_among(relevant)
    ).cast(pl.Float64)
    pooled_above = (j.rank_among(pooled).filter(relevant.filter(pooled)) - 1).cast(pl.Float64)
    fj = (j.pos.filter(relevant) - 1).cast(pl.Float64)
    # 1/(j+1) + j/(j+1) * (pooled above / j) * (relevant above + e) / (judged above + 2e):
    # the precision above, estimated from the judged rows, with the rows that are not in
    # the pool counted as non-relevant
    term = (
        pl.when(fj == 0)
        .then(1.0)
        .otherwise(
            1.0 / (fj + 1.0)
            + (fj / (fj + 1.0))
            * (pooled_above / fj)
            * ((rel_above + EPSILON) / (rel_above + nonrel_above + 2 * EPSILON))
        )
    )
    return safe_div(term.sum(), j.stat(Stat("num_rel", m.rel)))


INFAP = register(
    Family(
        name="infAP",
        order=160,
        examples=("infAP(rel=2)",),
        aliases=("InfAP",),
        summary="Inferred AP (Yilmaz & Aslam): AP estimated from a sampled judgment pool; "
        "a negative judgment marks an item pooled but not judged.",
        formula="(1/R) * sum over retrieved relevant at position p of (p = 1: 1; else "
        "1/p + (p-1)/p * (pooled above / (p-1)) * (relevant above + 0.00001) / (judged "
        "above + 0.00002)), pooled = in the qrels (any judgment), judged = relevance >= 0",
        trec_eval="infAP",
        cutoff=False,
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
