"""Geometric mean of bpref (trec_eval ``gm_bpref``).

Per query the value is bpref, exactly as :mod:`polars_rankeval.measures.bpref`; over
queries it is summarised by the geometric mean exp(mean(log(max(bpref, 1e-5)))), as
trec_eval's ``gm_bpref`` (m_gm_bpref.c), which rewards systems that are consistent
over queries.

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "relevance": [0, 1]})
>>> # bpref = 1 - min(1, 1) / min(1, 1) = 0, floored at 1e-5 by the geometric mean
>>> rk.evaluate(run, qrels, ["GMBpref"])["value"].round(12).to_list()
[1e-05]
"""

from __future__ import annotations

from polars_rankeval._registry import Family, Stat, register
from polars_rankeval.measures.bpref import _expression

GMBPREF = register(
    Family(
        name="GMBpref",
        order=135,
        summary="Geometric mean of bpref over queries (per query: bpref).",
        formula="per query bpref; over queries exp(mean(log(max(bpref, 0.00001))))",
        trec_eval="gm_bpref (per query trec_eval prints nothing; here: bpref)",
        cutoff=False,
        aggregate="gmean",
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel), Stat("num_nonrel", m.rel)),
    )
)
