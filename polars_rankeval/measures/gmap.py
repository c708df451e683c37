"""Geometric mean average precision (GMAP, trec_eval ``gm_map``).

Per query the value is AP (divided by R); over queries it is summarised by the geometric
mean exp(mean(log(max(AP, 1e-5)))), as trec_eval's ``gm_map``, which rewards systems
that are consistent over queries.
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Stat, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    counted = j.is_relevant(m.rel) & j.in_top(m.k)
    # at the i-th relevant item (position p): precision = i / p
    precision_at_hits = (j.rank_among(counted) / j.pos.filter(counted)).sum()
    return safe_div(precision_at_hits, j.stat(Stat("num_rel", m.rel)))


GMAP = register(
    Family(
        name="GMAP",
        order=130,
        summary="Geometric mean of AP over queries (per query: AP).",
        formula="per query AP (divided by R, as AP@k for a cutoff); over queries "
        "exp(mean(log(max(AP, 0.00001))))",
        trec_eval="gm_map (per query trec_eval prints nothing; here: AP)",
        aggregate="gmean",
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
