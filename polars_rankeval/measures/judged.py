"""Judged@k: the share of the top k that has a relevance judgment (ir_measures Judged)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    # judged: in the qrels with a judgment >= 0; a negative judgment is trec_eval's
    # "pooled but unjudged" (as for bpref, infAP and unj_k)
    judged = (j.rel >= 0).fill_null(False)
    top = j.in_top(m.k)
    return safe_div((judged & top).sum(), j.count_top(m.k))


JUDGED = register(
    Family(
        name="Judged",
        order=170,
        summary="Judgment rate: the share of the top k (of what was retrieved there) that "
        "has a relevance judgment.",
        formula="judged in top k / retrieved in top k (min(k, retrieved)); judged = in "
        "the qrels with relevance >= 0 (a negative judgment counts as unjudged); rel= is "
        "ignored",
        trec_eval="- (see Unjudged for unj_k)",
        expression=_expression,
    )
)
