"""Average precision (AP; MAP is its mean over queries)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Param, Stat, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    counted = j.is_relevant(m.rel) & j.in_top(m.k)
    # at the i-th relevant item (position p): precision = i / p
    precision_at_hits = (j.rank_among(counted) / j.pos.filter(counted)).sum()
    num_rel = j.stat(Stat("num_rel", m.rel))
    norm = m["norm"]
    if norm == "R":
        denominator = num_rel
    elif norm == "min":
        denominator = num_rel if m.k is None else pl.min_horizontal(num_rel, pl.lit(float(m.k)))
    else:  # hits: relevant items retrieved within the cutoff
        denominator = counted.sum()
    return safe_div(precision_at_hits, denominator)


AP = register(
    Family(
        name="AP",
        aliases=("MAP",),
        summary="Average precision: mean of the precision at each relevant item's position.",
        formula="sum over relevant items at position i <= k of (relevant in top i / i), "
        "divided by R (norm=R), min(R, k) (norm=min) or the relevant items found in the "
        "top k (norm=hits)",
        trec_eval="map, map_cut_k",
        params=(
            Param(
                "norm",
                "R",
                "denominator: R = all relevant (trec_eval), min = min(R, k) (Kaggle apk, "
                "Spark, RecBole), hits = relevant retrieved in the top k (torchmetrics)",
                choices=("R", "min", "hits"),
            ),
        ),
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
