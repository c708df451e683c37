"""Yet another average precision (trec_eval ``yaap``, m_yaap.c; Robertson, "On
Smoothing Average Precision", ECIR 2012): a smoothed, log-odds form of AP that averages
better across queries.

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["q"] * 2, "item": ["a", "b"], "score": [2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q", "q"], "item": ["b", "z"], "relevance": [1, 1]})
>>> # S = 1/2 (the relevant b at position 2); log((1 + 1/2) / (1 + 2 - 1/2)) = log(0.6)
>>> rk.evaluate(run, qrels, ["YAAP"])["value"].round(12).to_list()
[-0.510825623766]
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Stat, register


def _yaap(precision_sum: pl.Expr, num_rel: pl.Expr) -> pl.Expr:
    return ((1.0 + precision_sum) / (1.0 + num_rel - precision_sum)).log()


def _expression(m: Measure, j: Judged) -> pl.Expr:
    counted = j.is_relevant(m.rel) & j.in_top(m.k)
    # S: at the i-th relevant item (position p), i / p; summed in rank order, as
    # trec_eval adds them
    precision_sum = (j.rank_among(counted) / j.pos.filter(counted)).cum_sum().last()
    return _yaap(precision_sum.fill_null(0.0), j.stat(Stat("num_rel", m.rel)))


def _missing(m: Measure, j: Judged) -> pl.Expr:
    # no relevant item retrieved (or no row): S = 0, log(1 / (1 + R))
    return _yaap(pl.lit(0.0), j.stat(Stat("num_rel", m.rel)))


YAAP = register(
    Family(
        name="YAAP",
        order=13,
        summary="Yet another AP (Robertson 2012): log((1 + S) / (1 + R - S)), S = AP * R; "
        "a log-odds form of AP that averages better across queries.",
        formula="log((1 + S) / (1 + R - S)), S = sum over relevant items at position i <= k "
        "of (relevant in top i / i); log(1 / (1 + R)) when none is retrieved",
        trec_eval="yaap",
        bounded=False,  # log-odds: negative below AP = 1/2, up to log(1 + R)
        expression=_expression,
        missing=_missing,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
