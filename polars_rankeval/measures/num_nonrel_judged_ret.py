"""Judged non-relevant items retrieved (trec_eval ``num_nonrel_judged_ret``), summed."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, register


def _expression(m: Measure, j: Judged) -> pl.Expr:
    """Retrieved rows judged with 0 <= relevance < rel: trec_eval's num_ret - num_nonpool
    - num_unjudged_in_pool - num_rel_ret (a negative judgment is 'unjudged in pool')."""
    judged_nonrel = (j.rel >= 0) & (j.rel < m.rel)
    return judged_nonrel.fill_null(False).sum()


NUM_NONREL_JUDGED_RET = register(
    Family(
        name="NumNonRelJudgedRet",
        order=93,
        bounded=False,
        summary="Number of judged non-relevant items retrieved. Sum over queries.",
        formula="retrieved items judged with 0 <= relevance < rel",
        trec_eval="num_nonrel_judged_ret",
        cutoff=False,
        aggregate="sum",
        expression=_expression,
        expected=_expression,  # without a cutoff the order of tied rows does not matter
    )
)
