"""11-point interpolated average precision (trec_eval ``11pt_avg``)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Stat, divide_by, register
from polars_rankeval.measures.iprec import ROUNDING, interpolated_precision

# trec_eval's recall levels (m_11pt_avg.c), as the same double constants
LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _expression(m: Measure, j: Judged) -> pl.Expr:
    rounding = str(m["rounding"])
    total = interpolated_precision(LEVELS[0], rounding, m.rel, j)
    for level in LEVELS[1:]:
        total = total + interpolated_precision(level, rounding, m.rel, j)
    return divide_by(total, len(LEVELS))  # trec_eval: sum / 11


IPREC_11PT = register(
    Family(
        name="IPrec11pt",
        order=150,
        examples=("IPrec11pt(rounding=v9)",),
        summary="11-point interpolated average precision: the mean of IPrec at the recall "
        "levels 0, 0.1, ..., 1.",
        formula="(IPrec@0 + IPrec@0.1 + ... + IPrec@1) / 11, with the same rounding=",
        trec_eval="11pt_avg",
        params=(ROUNDING,),
        cutoff=False,
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
