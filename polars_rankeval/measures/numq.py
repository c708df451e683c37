"""Number of queries (trec_eval ``num_q``): 1 per evaluated query, summed."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, register


def _expression(m: Measure, j: Judged) -> pl.Expr:
    return pl.lit(1.0)


NUM_Q = register(
    Family(
        name="NumQ",
        order=100,
        bounded=False,
        summary="Number of queries evaluated: 1 per query, summed over queries.",
        formula="1 per query (also a query scored 0 by complete=True); rel= is ignored",
        trec_eval="num_q",
        cutoff=False,
        aggregate="sum",
        expression=_expression,
        missing=lambda m, j: pl.lit(1.0),
    )
)
