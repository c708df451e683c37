"""nDCG averaged over the relevant items (trec_eval ``ndcg_rel``, m_ndcg_rel.c,
"experimental"): nDCG at the position of each item with a positive gain, an item not
retrieved counting the nDCG at the end of the run.

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["b", "c", "z"], "relevance": [2, 1, 1]})
>>> # DCG at 2, 3: 2/log2(3), + 1/2; ideal DCG at 2, 3: 2 + 1/log2(3), + 1/2.
>>> # b (2): 1.26186/2.63093; c (3) and z (not retrieved): 1.76186/3.13093 each; mean of 3
>>> rk.evaluate(run, qrels, ["nDCG_rel"])["value"].round(6).to_list()
[0.535026]
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Ideal, Judged, Measure, Stat, register, safe_div
from polars_rankeval._stats import discount, gain

IDEAL_DCG = Ideal("dcg")
NUM_POS = Stat("num_pos")
IDCG = Stat("idcg", gain="linear")


def _expression(m: Measure, j: Judged) -> pl.Expr:
    order = j.pos
    pos = j.pos.sort_by(order)
    g = gain(j.rel, "linear").sort_by(order)
    in_top = j.in_top(m.k).sort_by(order)
    dcg = g * discount(pos)
    npos, idcg = j.stat(NUM_POS), j.stat(IDCG)
    # the ideal DCG at depth p; past the ideal ranking, all of it
    ideal = pl.when(pos <= npos).then(j.ideal(IDEAL_DCG).sort_by(order)).otherwise(idcg)
    found = (g > 0) & in_top
    at_found = (dcg.cum_sum() / ideal).filter(found).sum()
    # each relevant item not found counts nDCG at the end of the (cut) run
    at_end = (npos - found.sum().cast(pl.Float64)) * safe_div(dcg.filter(in_top).sum(), idcg)
    total = at_found + at_end
    return pl.when(total > 0).then(total / npos).otherwise(0.0)


NDCG_REL = register(
    Family(
        name="nDCG_rel",
        order=55,
        aliases=("NDCG_rel",),
        summary="nDCG averaged over the items with a positive gain: at each one's position, "
        "at the end of the run for those not retrieved (trec_eval's experimental ndcg_rel).",
        formula="(1/Npos) * (sum over items at position p <= k with gain > 0 of "
        "DCG(p) / IDCG(min(p, Npos)) + (Npos - those items) * DCG(n) / IDCG(Npos)); "
        "Npos = judged items with gain > 0, n = retrieved (in the top k); gain = "
        "relevance; rel= does not change it; @k: the run cut at k (trec_eval -M k)",
        trec_eval="ndcg_rel",
        expression=_expression,
        stats=lambda m: (NUM_POS, IDCG),
        ideal=lambda m: (IDEAL_DCG,),
    )
)
