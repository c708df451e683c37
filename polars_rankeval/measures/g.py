"""Normalised gain G (trec_eval ``G``, m_G.c, "experimental"): each item found gains
gain / log2(2 + ideal cost - run gain so far), summed and divided by the ideal gain.

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["b", "c", "z"], "relevance": [2, 1, 1]})
>>> # ideal gains 2, 1, 1: cost 2, 3, 4 at positions 1-3; run gains 0, 2, 1 (so far 0, 2, 3)
>>> # b: 2 / log2(2 + 3 - 2), c: 1 / log2(2 + 4 - 3); sum 3 / log2(3), over 2 + 1 + 1
>>> rk.evaluate(run, qrels, ["G"])["value"].round(6).to_list()
[0.473197]
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Ideal, Judged, Measure, Stat, register, safe_div
from polars_rankeval._stats import gain

COST = Ideal("cost")
NUM_POS = Stat("num_pos")


def _expression(m: Measure, j: Judged) -> pl.Expr:
    # in rank order: the run's gain so far is a cumulative sum (unjudged rows gain 0, so
    # the judged rows alone give it)
    order = j.pos
    pos = j.pos.sort_by(order).cast(pl.Float64)
    g = gain(j.rel, "linear").sort_by(order)
    so_far = g.cum_sum()
    npos = j.stat(NUM_POS)
    # the ideal cost at p: past the ideal ranking each position costs 1 (min_cost)
    cost = (
        pl.when(pos <= npos)
        .then(j.ideal(COST).sort_by(order))
        .otherwise(j.stat(Stat("ideal_cost")) + pos - npos)
    )
    found = (g > 0) & j.in_top(m.k).sort_by(order)
    terms = (g / (2.0 + cost - so_far).log(2)).filter(found)
    return safe_div(terms.sum(), j.stat(Stat("ideal_gain")))


G = register(
    Family(
        name="G",
        order=246,
        summary="Normalised gain: graded items found, each discounted by how far the run's "
        "gain so far trails the ideal ranking's (trec_eval's experimental G).",
        formula="sum over items at position p <= k with gain g > 0 of "
        "g / log2(2 + C(p) - CG(p)), divided by the sum of the judged gains; CG(p) = the "
        "run's gain in the top p, C(p) = sum over ideal positions q <= p of max(g*_q, 1) "
        "(1 past the judged items); gain = relevance (> 0); rel= does not change it; "
        "@k: the run cut at k (trec_eval -M k)",
        trec_eval="G",
        expression=_expression,
        stats=lambda m: (NUM_POS, Stat("ideal_gain"), Stat("ideal_cost")),
        ideal=lambda m: (COST,),
    )
)
