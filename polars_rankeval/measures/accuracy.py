"""Accuracy (ir_measures ``Accuracy``): among the retrieved rows within the cutoff, the
share of (relevant, non-relevant) pairs where the relevant row is ranked first; a
diagnostic, as a pairwise training accuracy.  Unjudged rows count as non-relevant.

ir_measures reports no value for a query without a relevant row in the top k (it is
left out of its mean) and divides by zero when no row of the top k is non-relevant;
here the first is 0 (as a query missing from the run) and the second 1 (no pair is
out of order).

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["q"] * 4, "item": ["a", "b", "c", "d"],
...                     "score": [4.0, 3.0, 2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q"] * 2, "item": ["b", "d"], "relevance": [1, 1]})
>>> # relevant b, d have 1 and 2 non-relevant rows above; 2 relevant x 2 non-relevant
>>> # pairs: 1 - (1 + 2) / (2 * 2) = 0.25
>>> rk.evaluate(run, qrels, ["Accuracy"])["value"].to_list()
[0.25]
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, register


def _expression(m: Measure, j: Judged) -> pl.Expr:
    counted = j.is_relevant(m.rel) & j.in_top(m.k)
    found = counted.sum().cast(pl.Float64)
    others = j.count_top(m.k).cast(pl.Float64) - found  # non-relevant or unjudged
    # the i-th relevant row (position p) has p - i non-relevant rows above it
    above = (j.pos.filter(counted) - j.rank_among(counted)).cast(pl.Float64).sum()
    return (
        pl.when(found == 0)
        .then(0.0)
        .when(others == 0)
        .then(1.0)
        .otherwise(1.0 - above / (found * others))
    )


ACCURACY = register(
    Family(
        name="Accuracy",
        order=310,
        summary="Pairwise accuracy (ir_measures): the share of (relevant, non-relevant) "
        "pairs of the top k that the run orders relevant first.",
        formula="1 - (sum over relevant rows at position p <= k of the non-relevant rows "
        "above p) / (relevant rows x non-relevant rows in the top k); 0 when the top k has "
        "no relevant row, 1 when it has no non-relevant one; unjudged rows are non-relevant",
        trec_eval="-",
        expression=_expression,
    )
)
