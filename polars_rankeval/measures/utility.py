"""Set utility (trec_eval ``utility``, m_utility.c): a weighted count of the contingency
table of the retrieved set.

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "z"], "relevance": [1, 1]})
>>> rk.evaluate(run, qrels, ["Utility", "Utility(c=-1)"])["value"].to_list()  # 1 - 2; -1 - 1
[-1.0, -2.0]
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Param, Stat, register


def _utility(m: Measure, j: Judged, hits: pl.Expr) -> pl.Expr:
    """a*rel_ret + b*nonrel_ret + c*rel_nonret + d*nonrel_nonret; trec_eval's nonrel_ret
    is every retrieved item that is not relevant (unjudged ones too), nonrel_nonret is
    the collection size (-N) minus the rest."""
    retrieved = j.count_top(m.k).cast(pl.Float64)
    num_rel = j.stat(Stat("num_rel", m.rel))
    a, b, c, d = (float(m[p]) for p in "abcd")
    docs = float(m["docs"])
    return (
        a * hits
        + b * (retrieved - hits)
        + c * (num_rel - hits)
        + d * (docs + hits - retrieved - num_rel)
    )


def _expression(m: Measure, j: Judged) -> pl.Expr:
    hits = (j.is_relevant(m.rel) & j.in_top(m.k)).sum().cast(pl.Float64)
    return _utility(m, j, hits)


def _missing(m: Measure, j: Judged) -> pl.Expr:
    # trec_eval -c sets the utility of a query missing from the run to 0; a query whose
    # retrieved rows are all unjudged has no relevant one retrieved
    return pl.when(j.num_ret > 0).then(_utility(m, j, pl.lit(0.0))).otherwise(0.0)


def _weight(name: str, default: float, cell: str) -> Param:
    return Param(name, default, f"weight of each {cell} (trec_eval's utility parameter)")


UTILITY = register(
    Family(
        name="Utility",
        order=240,
        bounded=False,
        summary="Set utility: weighted counts of relevant and non-relevant items, "
        "retrieved or not (the top k as the set).",
        formula="a*(relevant retrieved) + b*(retrieved not relevant, unjudged included) "
        "+ c*(relevant not retrieved) + d*(docs - retrieved - relevant not retrieved); "
        "a, b, c, d = 1, -1, 0, 0; a query missing from the run scores 0",
        trec_eval="utility (utility.a,b,c,d; docs = -N)",
        params=(
            _weight("a", 1.0, "relevant retrieved item"),
            _weight("b", -1.0, "retrieved item that is not relevant"),
            _weight("c", 0.0, "relevant item not retrieved"),
            _weight("d", 0.0, "non-relevant item not retrieved"),
            Param(
                "docs",
                0.0,
                "items in the collection, for the d term (trec_eval -N; default 0)",
                minimum=0.0,
                closed=True,
            ),
        ),
        expression=_expression,
        # no ties="average": the polars engine's value for a query none of whose rows is
        # judged reads num_ret, which that path does not provide (it would give 0)
        missing=_missing,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
