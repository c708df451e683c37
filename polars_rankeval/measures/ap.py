"""Average precision (AP; MAP is its mean over queries)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._errors import MeasureError
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


def _expected(m: Measure, j: Judged) -> pl.Expr:
    """E[AP] over the orderings of tied rows.  At position p, the j-th of a group of n
    rows with r relevant and h relevant rows above it:
    E[rel(p) * hits(<= p)] = h r/n + r/n + (j-1) r(r-1) / (n(n-1)) (no last term when
    n = 1); summed / p over p <= k and divided by the norm, which must not depend on
    the order."""
    t = j.ties
    assert t is not None
    norm = m["norm"]
    if norm == "hits" and m.k is not None:
        raise MeasureError(
            f"{m}: with ties='average' the norm=hits denominator (relevant items in the "
            "top k) depends on the order of a tie group across position k, and the "
            "expected ratio has no closed form here; use norm=R or norm=min, no cutoff, "
            "or ties='trec_eval'"
        )
    n, r, h = t.size, t.relevant(m.rel), t.relevant_above(m.rel)
    pairs = pl.when(n > 1).then(r * (r - 1.0) / (n * (n - 1.0))).otherwise(0.0)
    both = (h + 1.0) * r / n + (t.index(j.pos) - 1.0) * pairs
    precision_at_hits = (both / j.pos.cast(pl.Float64)).filter(j.in_top(m.k)).sum()
    num_rel = j.stat(Stat("num_rel", m.rel))
    if norm == "R":
        denominator = num_rel
    elif norm == "min":
        denominator = num_rel if m.k is None else pl.min_horizontal(num_rel, pl.lit(float(m.k)))
    else:  # hits without a cutoff: every relevant retrieved item, whatever the order
        denominator = j.is_relevant(m.rel).sum()
    return safe_div(precision_at_hits, denominator)


AP = register(
    Family(
        name="AP",
        order=10,
        examples=("AP(norm=min)@3", "AP(norm=hits)@3", "AP(rel=2)"),
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
        expected=_expected,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
