"""Interpolated precision at a recall level (IPrec@0.1; trec_eval ``iprec_at_recall``).

``@`` gives the recall level (0 to 1), not a rank cutoff, as in ir_measures' ``IPrec``.
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Param, Stat, register

ROUNDING = Param(
    "rounding",
    "v10",
    "how level x R becomes a number of relevant items: v10 = nearest integer (trec_eval "
    "10.0, lround), v9 = + 0.9 then truncated (trec_eval 9.x and pytrec_eval)",
    choices=("v10", "v9"),
)


def needed(level: float, num_rel: pl.Expr, rounding: str) -> pl.Expr:
    """Relevant items needed to reach a recall level: floor(level * R + 0.5) (trec_eval
    10.0's lround, up to ties within one ulp) or floor(level * R + 0.9) (9.x)."""
    return (level * num_rel + (0.9 if rounding == "v9" else 0.5)).floor()


def interpolated_precision(level: float, rounding: str, rel: float, j: Judged) -> pl.Expr:
    """max over the ranks at or below the one where the needed relevant items are found
    of the precision there (trec_eval m_iprec_at_recall.c); 0 when they are not found.
    Precision only peaks at relevant items, so it is the max over the relevant rows
    whose count of relevant rows so far reaches the needed number."""
    relevant = j.is_relevant(rel)
    if j.running is not None and j.row_stat is not None:
        # the engine's running count: elementwise, then one native max (the same
        # divisions as below, so the same bits; ~10% of the CLI's evaluation CPU)
        hits, num_rel = j.running(rel), j.row_stat(Stat("num_rel", rel))
        reached = relevant & (hits >= needed(level, num_rel, rounding))
        return pl.when(reached).then(hits / j.pos).max().fill_null(0.0)
    hits = j.rank_among(relevant)  # relevant rows at or above, at each relevant row
    precision = hits / j.pos.filter(relevant)
    cutoff = needed(level, j.stat(Stat("num_rel", rel)), rounding)
    return precision.filter(hits >= cutoff).max().fill_null(0.0)


def _expression(m: Measure, j: Judged) -> pl.Expr:
    return interpolated_precision(float(m["recall"]), str(m["rounding"]), m.rel, j)


IPREC = register(
    Family(
        name="IPrec",
        order=140,
        examples=("IPrec@0.5", "IPrec(rounding=v9)@0.3", "IPrec(rel=2)@1"),
        aliases=("iPrec",),
        summary="Interpolated precision at a recall level: the best precision at any rank "
        "where at least that share of the relevant items has been found.",
        formula="max over ranks i with relevant in top i >= c of (relevant in top i / i), "
        "c = round(recall * R) (rounding=v10) or floor(recall * R + 0.9) (rounding=v9); "
        "0 if fewer than c are found; @ gives the recall level",
        trec_eval="iprec_at_recall_0.00 ... iprec_at_recall_1.00",
        params=(
            Param(
                "recall",
                0.0,
                "the recall level, 0 to 1 (also given after @: IPrec@0.1)",
                minimum=0.0,
                maximum=1.0,
                closed=True,
            ),
            ROUNDING,
        ),
        cutoff=False,
        at_param="recall",
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
