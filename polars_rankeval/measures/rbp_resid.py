"""The residual of rank-biased precision (trec_eval 10's ``rbp_resid``)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, register
from polars_rankeval.measures.rbp import PERSISTENCE


def _expression(m: Measure, j: Judged) -> pl.Expr:
    p = float(m["p"])
    # trec_eval m_rbp_resid.c: how much RBP could still rise if every unjudged retrieved
    # item (not in the qrels, or a negative judgment) had gain 1, plus the weight of the
    # items below the ranking, p^n; 0 when every retrieved item is judged
    weight = pl.lit(p).pow((j.pos - 1).cast(pl.Float64))
    if j.judged_only:
        # positions 1..n all retrieved: the unjudged weights are the geometric series
        # (1 - p^n) / (1 - p) minus the judged rows' weights, so the residual is
        # p^n + (1 - p^n) - (1 - p) * (judged weights)
        judged = (j.rel >= 0).fill_null(False)
        residual = 1.0 - (1.0 - p) * weight.filter(judged).sum()
        return pl.when(judged.sum() < j.num_ret).then(residual).otherwise(pl.lit(0.0))
    unjudged = (j.rel < 0).fill_null(True)
    residual = (
        pl.lit(p).pow(j.pos.max().cast(pl.Float64)) + (1.0 - p) * weight.filter(unjudged).sum()
    )
    return pl.when(unjudged.any()).then(residual).otherwise(pl.lit(0.0))


def _missing(m: Measure, j: Judged) -> pl.Expr:
    # every retrieved row unjudged: p^n + (1 - p) (1 + p + ... + p^(n-1)) = 1
    return pl.when(j.num_ret > 0).then(pl.lit(1.0)).otherwise(pl.lit(0.0))


RBP_RESID = register(
    Family(
        name="RBP_resid",
        order=200,
        examples=("RBP_resid(p=0.5)",),
        summary="Residual of RBP: how much RBP could still rise if the unjudged items "
        "retrieved were relevant (and the ranking went on).",
        formula="p^n + (1 - p) * sum over unjudged retrieved of p^(position - 1), n = "
        "retrieved; 0 when every retrieved item is judged (as trec_eval); unjudged = not "
        "in the qrels or a negative judgment; rel= is ignored",
        trec_eval="rbp_resid",
        params=(PERSISTENCE,),
        cutoff=False,
        expression=_expression,
        missing=_missing,
    )
)
