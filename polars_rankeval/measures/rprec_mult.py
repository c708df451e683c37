"""Precision at a multiple of R (trec_eval ``Rprec_mult_0.20`` ... ``Rprec_mult_2.00``)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Param, Stat, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    num_rel = j.stat(Stat("num_rel", m.rel))
    # trec_eval m_Rprec_mult.c: cutoff = (long) (mult * R + 0.9)
    cutoff = (float(m["mult"]) * num_rel + 0.9).floor()
    hits = (j.is_relevant(m.rel) & (j.pos <= cutoff)).sum()
    return safe_div(hits, cutoff)


RPREC_MULT = register(
    Family(
        name="Rprec_mult",
        order=120,
        examples=("Rprec_mult(mult=0.6)", "Rprec_mult(mult=2)"),
        summary="Precision at position mult x R (R-precision at a multiple of R).",
        formula="relevant in top c / c, c = floor(mult * R + 0.9) (trec_eval's rounding); "
        "0 when c = 0; mult=1 is Rprec",
        trec_eval="Rprec_mult_0.20 ... Rprec_mult_2.00",
        params=(Param("mult", 1.0, "the multiple of R where precision is taken", minimum=0.0),),
        cutoff=False,
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
