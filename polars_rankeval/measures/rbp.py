"""Rank-biased precision (RBP, Moffat & Zobel 2008), as trec_eval 10's ``rbp``."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Param, Stat, register

PERSISTENCE = Param(
    "p",
    0.9,
    "persistence: the probability that the user goes on to the next item (trec_eval's "
    "default 0.9; ir_measures uses 0.8)",
    minimum=0.0,
    maximum=1.0,
)


def _gain(m: Measure, j: Judged) -> pl.Expr:
    if m["gain"] == "binary":
        return j.is_relevant(m.rel).cast(pl.Float64)
    # trec_eval m_rbp.c: the judged level, divided by the query's highest level when that
    # is above 1 (levels scaled to 0..1); unjudged and negative judgments gain 0
    top = pl.max_horizontal(j.stat(Stat("max_rel")).fill_null(1.0), pl.lit(1.0))
    return pl.when(j.rel > 0).then(j.rel / top).otherwise(pl.lit(0.0))


def _expression(m: Measure, j: Judged) -> pl.Expr:
    p = float(m["p"])
    weight = pl.lit(p).pow((j.pos - 1).cast(pl.Float64))  # p^(position - 1)
    return (1.0 - p) * (_gain(m, j) * weight).filter(j.in_top(m.k)).sum()


RBP = register(
    Family(
        name="RBP",
        order=190,
        examples=("RBP(p=0.5,gain=binary)@3", "RBP(gain=binary)@3"),
        summary="Rank-biased precision: the expected gain per item seen by a user who goes "
        "on to the next item with probability p.",
        formula="(1 - p) * sum over top k of gain * p^(position - 1); gain = relevance / "
        "max(1, the query's highest judged level) (graded, trec_eval rbp; rel= is ignored) "
        "or 1 if relevance >= rel (binary, ranx, ir_measures RBP(rel=...))",
        trec_eval="rbp (no cutoff)",
        params=(
            PERSISTENCE,
            Param(
                "gain",
                "graded",
                "graded = relevance scaled by the query's highest level when above 1 "
                "(trec_eval), binary = relevant or not at rel",
                choices=("graded", "binary"),
            ),
        ),
        expression=_expression,
        stats=lambda m: (Stat("max_rel"),) if m["gain"] == "graded" else (),
    )
)
