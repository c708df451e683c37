"""Expected reciprocal rank (ERR, Chapelle et al. 2009), as gdeval (ir_measures' ERR)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, register

# the highest grade of the relevance scale: 4, as gdeval (TREC Web track) and so
# ir_measures' ERR; higher grades count as 4 (gdeval refuses them)
MAX_GRADE = 4.0


def _expression(m: Measure, j: Judged) -> pl.Expr:
    grade = j.rel.fill_null(0.0).clip(0.0, MAX_GRADE)  # unjudged, negative: 0
    # the probability that the user is satisfied at a row: (2^grade - 1) / 2^max
    stop = ((pl.lit(2.0).pow(grade) - 1.0) / 2.0**MAX_GRADE).sort_by(j.pos)
    position = j.pos.sort()
    # the probability that the user reaches a row: not satisfied at any row above it
    reach = (1.0 - stop).cum_prod().shift(1, fill_value=1.0)
    term = stop * reach / position.cast(pl.Float64)
    if m.k is not None:
        term = term.filter(position <= m.k)
    return term.sum()


ERR = register(
    Family(
        name="ERR",
        order=210,
        summary="Expected reciprocal rank: 1/position of the item where a cascading user "
        "stops, each item stopping them with a probability set by its grade.",
        formula="sum over top k of R_i / i * prod over positions j < i of (1 - R_j), R = "
        "(2^grade - 1) / 2^4, grade = relevance clipped to 0..4 (gdeval, ir_measures); "
        "rel= is ignored",
        trec_eval="- (gdeval err@k)",
        expression=_expression,
    )
)
