"""R-precision."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Stat, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    num_rel = j.stat(Stat("num_rel", m.rel))
    return safe_div((j.is_relevant(m.rel) & (j.pos <= num_rel)).sum(), num_rel)


RPREC = register(
    Family(
        name="Rprec",
        summary="R-precision: precision at position R.",
        formula="relevant in top R / R",
        trec_eval="Rprec",
        cutoff=False,
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
