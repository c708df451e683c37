"""Unranked set AP (trec_eval ``set_map``, m_set_map.c): set precision times set recall.

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["q"] * 2, "item": ["a", "b"], "score": [2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q", "q"], "item": ["b", "z"], "relevance": [1, 1]})
>>> rk.evaluate(run, qrels, ["SetAP"])["value"].to_list()  # 1^2 / (2 * 2)
[0.25]
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Stat, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    hits = (j.is_relevant(m.rel) & j.in_top(m.k)).sum().cast(pl.Float64)
    retrieved = j.count_top(m.k).cast(pl.Float64)
    return safe_div(hits * hits, retrieved * j.stat(Stat("num_rel", m.rel)))


SETAP = register(
    Family(
        name="SetAP",
        order=12,
        summary="Unranked set AP: set precision x set recall of the retrieved set (the "
        "top k as the set).",
        formula="(relevant in top k)^2 / (retrieved in top k * R); 0 when nothing was "
        "retrieved or R = 0",
        trec_eval="set_map",
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
