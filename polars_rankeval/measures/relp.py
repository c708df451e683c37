"""Relative precision (trec_eval ``relative_P_k`` and ``set_relative_P``): precision
divided by the highest precision possible at that depth, min(k, R) / k.

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q", "q"], "item": ["b", "z"], "relevance": [1, 1]})
>>> rk.evaluate(run, qrels, ["RelP@1", "RelP@3", "RelP"])["value"].to_list()
[0.0, 0.5, 0.5]
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Stat, register, safe_div


def _denominator(m: Measure, j: Judged) -> pl.Expr:
    num_rel = j.stat(Stat("num_rel", m.rel))
    # relative_P_k: min(k, R) even when fewer than k were retrieved (m_rel_P.c);
    # set_relative_P: min(retrieved, R) (m_set_rel_P.c)
    depth = j.num_ret.cast(pl.Float64) if m.k is None else pl.lit(float(m.k))
    return pl.min_horizontal(depth, num_rel)


def _expression(m: Measure, j: Judged) -> pl.Expr:
    hits = (j.is_relevant(m.rel) & j.in_top(m.k)).sum()
    return safe_div(hits, _denominator(m, j))


def _expected(m: Measure, j: Judged) -> pl.Expr:
    """E[hits in top k] / min(k, R): the denominator does not depend on the order."""
    assert j.ties is not None
    hits = j.ties.share(m.rel).filter(j.in_top(m.k)).sum()
    return safe_div(hits, _denominator(m, j))


RELP = register(
    Family(
        name="RelP",
        order=25,
        aliases=("RelativeP", "SetRelP"),
        summary="Relative precision: precision over the best precision possible at that "
        "depth (precision up to R, recall beyond).",
        formula="relevant in top k / min(k, R); no cutoff: relevant retrieved / "
        "min(retrieved, R); 0 when R = 0",
        trec_eval="relative_P_k, set_relative_P",
        expression=_expression,
        expected=_expected,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
