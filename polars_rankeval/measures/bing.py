"""Binary G (trec_eval ``binG``, m_binG.c, "experimental"): each relevant item found
gains 1 / log2(2 + the number of non-relevant items above it), averaged over R.

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q", "q"], "item": ["b", "c"], "relevance": [1, 1]})
>>> rk.evaluate(run, qrels, ["binG"])["value"].round(6).to_list()  # (1/log2(3)) * 2 / 2
[0.63093]
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Stat, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    counted = j.is_relevant(m.rel) & j.in_top(m.k)
    # rows above a relevant row at position p that are not relevant: p - hits(<= p);
    # unjudged rows count as non-relevant (they are not rows here, only gaps in pos)
    nonrel_above = (j.pos.filter(counted) - j.rank_among(counted)).cast(pl.Float64)
    gains = 1.0 / (nonrel_above + 2.0).log(2)
    return safe_div(gains.sum(), j.stat(Stat("num_rel", m.rel)))


BING = register(
    Family(
        name="binG",
        order=245,
        aliases=("BinG",),
        summary="Binary G: relevant items found, each discounted by the non-relevant "
        "items ranked above it, averaged over R (trec_eval's experimental binG).",
        formula="(1/R) * sum over relevant items at position p <= k of "
        "1 / log2(2 + p - relevant in top p); @k: the run cut at k (trec_eval -M k)",
        trec_eval="binG",
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
