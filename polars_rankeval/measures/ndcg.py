"""Normalised discounted cumulative gain (nDCG@k)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Param, Stat, register, safe_div
from polars_rankeval._stats import discount, gain, stat_expr


def _ideal(m: Measure) -> Stat:
    return Stat("idcg", gain=str(m["gain"]), k=m.k)


def _expression(m: Measure, j: Judged) -> pl.Expr:
    kind = str(m["gain"])
    dcg = (gain(j.rel, kind) * discount(j.pos)).filter(j.in_top(m.k)).sum()
    if m["ideal"] == "run":
        # the ideal ranking of the retrieved rows only (sklearn / polars-ds style)
        ideal = stat_expr(_ideal(m), j.rel)
    else:
        ideal = j.stat(_ideal(m))
    return safe_div(dcg, ideal)


def _expected(m: Measure, j: Judged) -> pl.Expr:
    """E[nDCG@k] over the orderings of tied rows: each gain replaced by the mean gain of
    the row's tie group; the ideal DCG does not depend on the order (sklearn's and
    torchmetrics' tie-averaged nDCG)."""
    assert j.ties is not None
    kind = str(m["gain"])
    dcg = (j.ties.mean_gain(kind) * discount(j.pos)).filter(j.in_top(m.k)).sum()
    ideal = stat_expr(_ideal(m), j.rel) if m["ideal"] == "run" else j.stat(_ideal(m))
    return safe_div(dcg, ideal)


NDCG = register(
    Family(
        name="nDCG",
        order=50,
        examples=("nDCG(gain=exp)@3", "nDCG(ideal=run)@3"),
        aliases=("NDCG",),
        summary="Normalised discounted cumulative gain.",
        formula="sum over top k of gain / log2(position + 1), divided by the same sum for "
        "the ideal ranking of all judged items (cut at k); gain = relevance (linear) or "
        "2^relevance - 1 (exp); rel= does not change gains (as trec_eval)",
        trec_eval="ndcg, ndcg_cut_k",
        params=(
            Param(
                "gain",
                "linear",
                "gain of a relevance value: linear = the value (trec_eval), exp = 2^value - 1",
                choices=("linear", "exp"),
            ),
            Param(
                "ideal",
                "qrels",
                "ideal ranking from all judged items (qrels, trec_eval) or from the "
                "retrieved rows only (run)",
                choices=("qrels", "run"),
            ),
        ),
        expression=_expression,
        expected=_expected,
        stats=lambda m: (_ideal(m),) if m["ideal"] == "qrels" else (),
    )
)
