"""R-precision."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Stat, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    num_rel = j.stat(Stat("num_rel", m.rel))
    return safe_div((j.is_relevant(m.rel) & (j.pos <= num_rel)).sum(), num_rel)


def _expected(m: Measure, j: Judged) -> pl.Expr:
    """E[Rprec] over the orderings of tied rows: relevant replaced by r/n of the row's
    tie group (R does not depend on the order)."""
    assert j.ties is not None
    num_rel = j.stat(Stat("num_rel", m.rel))
    return safe_div(j.ties.share(m.rel).filter(j.pos <= num_rel).sum(), num_rel)


RPREC = register(
    Family(
        name="Rprec",
        order=70,
        summary="R-precision: precision at position R.",
        formula="relevant in top R / R",
        trec_eval="Rprec",
        cutoff=False,
        expression=_expression,
        expected=_expected,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
