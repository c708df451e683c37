"""nDCG averaged over the ends of the ideal ranking's gain levels (trec_eval ``Rndcg``,
m_Rndcg.c, "experimental"): R-precision's idea for graded judgments.

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["b", "c", "z"], "relevance": [2, 1, 1]})
>>> # ideal gains 2, 1, 1: levels end at 1 and 3; nDCG@1 = 0 / 2, nDCG@3 = 1.76186 / 3.13093
>>> rk.evaluate(run, qrels, ["RnDCG"])["value"].round(6).to_list()
[0.281364]
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Ideal, Judged, Measure, Stat, register, safe_div
from polars_rankeval._stats import discount, gain

LEVEL_ENDS = Ideal("level_ends")
NUM_POS = Stat("num_pos")
IDCG = Stat("idcg", gain="linear")


def _expression(m: Measure, j: Judged) -> pl.Expr:
    g = gain(j.rel, "linear")
    found = j.in_top(m.k) & (g > 0)
    order = j.pos.filter(found)  # sums in rank order, whatever the order of the rows
    dcg = (g * discount(j.pos)).filter(found).sort_by(order)  # each row's share of DCG
    npos = j.stat(NUM_POS)
    # sum over level ends b of DCG(min(b, n)) / IDCG(b) = sum over rows p of their DCG
    # share times the sum over ends b >= p of 1 / IDCG(b) (0 past the ideal ranking)
    weight = pl.when(j.pos <= npos).then(j.ideal(LEVEL_ENDS)).otherwise(0.0)
    at_ends = (dcg * weight.filter(found).sort_by(order)).sum()
    # trec_eval's "implied R-level at num_retrieved": only when n >= Npos + 2
    retrieved = j.count_top(m.k).cast(pl.Float64)
    extra = (npos >= 1) & (retrieved >= npos + 2)
    at_end = pl.when(extra).then(safe_div(dcg.sum(), j.stat(IDCG))).otherwise(0.0)
    points = j.stat(Stat("gain_levels")) + extra.cast(pl.Float64)
    value = safe_div(at_ends + at_end, points)
    return pl.when(j.stat(Stat("num_rel", m.rel)) > 0).then(value).otherwise(0.0)


RNDCG = register(
    Family(
        name="RnDCG",
        order=56,
        aliases=("Rndcg",),
        summary="nDCG averaged over the depths where the ideal ranking's gain drops "
        "(trec_eval's experimental Rndcg).",
        formula="mean of DCG(min(b, n)) / IDCG(b) over the ends b of the ideal ranking's "
        "gain levels (b <= Npos, gain at b+1 lower), plus DCG(n) / IDCG(Npos) when "
        "n >= Npos + 2; n = retrieved (in the top k), Npos = judged items with gain > 0; "
        "0 when R = 0 or Npos = 0 (trec_eval: NaN when R > 0 = Npos, rel <= 0); "
        "@k: the run cut at k (trec_eval -M k)",
        trec_eval="Rndcg",
        expression=_expression,
        stats=lambda m: (NUM_POS, IDCG, Stat("gain_levels"), Stat("num_rel", m.rel)),
        ideal=lambda m: (LEVEL_ENDS,),
    )
)
