"""Compatibility (Clarke, Vtyurina and Smucker, "Assessing top-k preferences", TOIS
2021; ir_measures ``Compat``): the rank-biased overlap of the run with an ideal ranking,
normalised by the ideal ranking's overlap with itself.

The ideal ranking holds the judged items with a gain > 0, by gain descending; items of
equal gain stand in the order the run ranks them (unretrieved ones after), so that a run
is never penalised for choosing among equals (ir_measures sorts them by the run's score,
which is that order when the scores are distinct and positive).  With D = max(retrieved,
ideal items), the overlap at depth i is O(i) = |run top i  and  ideal top i|, and
RBO = sum over i <= D of p^(i-1) O(i) / i, divided by sum over i <= D of p^(i-1).  An item
at run position a and ideal position b is in O(i) for every i >= max(a, b), so the sum is
sum over the items of T(max(a, b)), T(m) = sum over m <= i <= D of p^(i-1) / i.

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q"] * 2, "item": ["b", "c"], "relevance": [2, 1]})
>>> # ideal b, c; D = 3; O(1..3) = 0, 1, 2: RBO sum = 0.5 p + 2/3 p^2; ideal: 1 + p + 2/3 p^2
>>> # p = 0.5: (0.25 + 1/6) / (1.5 + 1/6) = 0.25
>>> rk.evaluate(run, qrels, ["Compat(p=0.5)"])["value"].round(12).to_list()
[0.25]
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Ideal, Judged, Measure, Param, Stat, register

ABOVE = Ideal("above")  # judged items with a higher gain than the row's
NUM_POS = Stat("num_pos")


def _ideal_positions(j: Judged, positive: pl.Expr) -> pl.Expr:
    """For the retrieved rows with a gain > 0 (in row order): their ideal position b =
    (judged items with a higher gain) + (retrieved rows of the same gain at or above)."""
    pos = j.pos.filter(positive)
    g = j.rel.filter(positive)
    # t: place in the order (gain descending, position); c: retrieved rows of a higher
    # gain + 1.  The rows of the same gain at or above this one: t - c + 1.
    level = g.rank("dense", descending=True).cast(pl.Float64)
    t = (level * (pos.max() + 1).cast(pl.Float64) + pos).rank("ordinal")
    c = g.rank("min", descending=True)
    return j.ideal(ABOVE).filter(positive) + (t - c + 1).cast(pl.Float64)


def _expression(m: Measure, j: Judged) -> pl.Expr:
    positive = (j.rel > 0).fill_null(False)
    npos = j.stat(NUM_POS).fill_null(0.0)  # null: a run-only query (not evaluated)
    depth = pl.max_horizontal(j.num_ret.cast(pl.Float64), npos, j.pos.max().cast(pl.Float64))
    i = pl.int_range(1, depth.cast(pl.Int64) + 1)
    weight = pl.lit(float(m["p"])).pow(i - 1)
    tail = (weight / i).cum_sum(reverse=True)  # T(m) at index m - 1
    first_common = pl.max_horizontal(j.pos.filter(positive).cast(pl.Float64),
                                     _ideal_positions(j, positive))  # fmt: skip
    score = tail.gather(first_common.cast(pl.Int64) - 1).sum()
    if m["normalize"] == "true":
        best = tail.head(npos.cast(pl.Int64)).sum()  # the ideal item at b: T(b)
        return pl.when(best > 0).then(score / best).otherwise(0.0)
    return score / weight.sum()


COMPAT = register(
    Family(
        name="Compat",
        order=300,
        summary="Compatibility (Clarke et al. 2021): rank-biased overlap of the run with the "
        "ideal ranking (equal gains in the run's order), normalised by the ideal's own.",
        formula="sum over i <= D of p^(i-1) O(i) / i, O(i) = items in both the run's and "
        "the ideal ranking's top i, divided by the same for the ideal ranking with itself "
        "(normalize=true) or by sum over i <= D of p^(i-1); ideal = judged items with gain "
        "> 0 by gain descending, ties in run order; D = max(retrieved, ideal items); rel= "
        "does not change it",
        trec_eval="-",
        cutoff=False,
        params=(
            Param(
                "p", 0.95, "persistence of the rank-biased overlap",
                minimum=0.0, maximum=1.0, closed=True,
            ),
            Param(
                "normalize", "true",
                "true: divide by the ideal ranking's overlap with itself (ir_measures' "
                "default); false: the plain RBO against the ideal ranking",
                choices=("true", "false"),
            ),
        ),
        examples=("Compat(p=0.8)", "Compat(normalize=false)", "Compat(p=1)"),
        expression=_expression,
        stats=lambda m: (NUM_POS,),
        ideal=lambda m: (ABOVE,),
    )
)
