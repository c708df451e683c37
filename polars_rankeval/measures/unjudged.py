"""Unjudged@k: the share of the top k without a judgment (trec_eval 10's ``unj_k``)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, divide_by, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    # trec_eval m_unjudged.c: not in the qrels, or a negative judgment (pooled but not
    # judged): the retrieved rows within k minus the judged ones (>= 0) among them
    judged = ((j.rel >= 0) & j.in_top(m.k)).fill_null(False).sum()
    return _share(m, j, j.count_top(m.k) - judged)


def _share(m: Measure, j: Judged, unjudged: pl.Expr) -> pl.Expr:
    # the rows missing below a short ranking count as judged, so divide by k
    if m.k is not None:
        return divide_by(unjudged, m.k)
    return safe_div(unjudged, j.num_ret)


def _missing(m: Measure, j: Judged) -> pl.Expr:
    # no retrieved row is judged: every one is unjudged
    return _share(m, j, j.count_top(m.k))


UNJUDGED = register(
    Family(
        name="Unjudged",
        order=180,
        summary="Share of the top k without a relevance judgment, over k even when fewer "
        "were retrieved (a red flag for incomplete judgments).",
        formula="unjudged in top k / k (no cutoff: / retrieved); unjudged = not in the "
        "qrels or a negative judgment; rel= is ignored",
        trec_eval="unj_k (trec_eval 10)",
        expression=_expression,
        missing=_missing,
    )
)
