"""The residual of rank-biased precision (trec_eval 10's ``rbp_resid``), with trec_eval's
arithmetic to the last bit (see :mod:`polars_rankeval.measures.rbp`)."""

from __future__ import annotations

from functools import lru_cache

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, register
from polars_rankeval.measures.rbp import (
    PERSISTENCE,
    in_rank_order,
    lookup,
    ordered_sum,
    powers,
    weight,
)


def _expression(m: Measure, j: Judged) -> pl.Expr:
    p = float(m["p"])
    # trec_eval m_rbp_resid.c: how much RBP could still rise if every unjudged retrieved
    # item (not in the qrels, or a negative judgment) had gain 1, plus the weight of the
    # items below the ranking: cur_p + (1 - p) * (sum of cur_p over the unjudged rows,
    # in rank order), cur_p = p^n after the loop; 0 when every retrieved item is judged
    if j.judged_only:
        # the unjudged rows are not there: every position 1..n, less the judged ones
        index = pl.int_range(0, j.num_ret)  # position - 1
        judged = j.pos.filter((j.rel >= 0).fill_null(False))
        unjudged = ~(index + 1).is_in(judged.implode())
        terms = pl.when(unjudged).then(weight(p, index)).otherwise(0.0)
        has_unjudged = judged.len() < j.num_ret
        n = j.num_ret
    else:
        unjudged = (j.rel < 0).fill_null(True)
        terms = in_rank_order(pl.when(unjudged).then(weight(p, j.pos - 1)).otherwise(0.0), j)
        has_unjudged, n = unjudged.any(), j.pos.max()
    residual = weight(p, n).first() + (1.0 - p) * ordered_sum(terms)
    return pl.when(has_unjudged).then(residual).otherwise(pl.lit(0.0))


@lru_cache(maxsize=16)
def _all_unjudged(p: float) -> pl.Series:
    """RBP_resid of n unjudged rows, for n = 0, 1, ...: cur_p(n) + (1 - p) * the sum of
    cur_p(0..n-1) added in order (about 1, not exactly); 0 for n = 0."""
    table = powers(p)
    return pl.concat([pl.Series([0.0]), table[1:] + (1.0 - p) * table.cum_sum()[:-1]])


def _missing(m: Measure, j: Judged) -> pl.Expr:
    # a query none of whose n retrieved rows is judged; past the table of powers (its
    # fixed point, or 2^20 positions) the value no longer changes in the 16th digit
    table = _all_unjudged(float(m["p"]))
    return lookup(table, j.num_ret)


RBP_RESID = register(
    Family(
        name="RBP_resid",
        order=200,
        examples=("RBP_resid(p=0.5)",),
        summary="Residual of RBP: how much RBP could still rise if the unjudged items "
        "retrieved were relevant (and the ranking went on).",
        formula="p^n + (1 - p) * sum over unjudged retrieved of p^(position - 1), n = "
        "retrieved; 0 when every retrieved item is judged (as trec_eval); unjudged = not "
        "in the qrels or a negative judgment; rel= is ignored",
        trec_eval="rbp_resid",
        params=(PERSISTENCE,),
        cutoff=False,
        expression=_expression,
        missing=_missing,
    )
)
