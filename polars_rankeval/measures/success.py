"""Success at k (hit rate)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, register


def _expression(m: Measure, j: Judged) -> pl.Expr:
    return (j.is_relevant(m.rel) & j.in_top(m.k)).any().cast(pl.Float64)


SUCCESS = register(
    Family(
        name="Success",
        aliases=("HitRate",),
        summary="Success (hit rate): 1 if any relevant item is in the top k, else 0.",
        formula="1 if relevant in top k > 0 else 0",
        trec_eval="success_k",
        expression=_expression,
    )
)
