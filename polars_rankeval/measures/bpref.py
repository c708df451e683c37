"""Binary preference (bpref), exactly as trec_eval's m_bpref.c."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Stat, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    num_rel = j.stat(Stat("num_rel", m.rel))
    num_nonrel = j.stat(Stat("num_nonrel", m.rel))
    relevant = j.is_relevant(m.rel)
    # judged non-relevant: levels 0 .. rel-1; unjudged (not in qrels) and negative
    # judgments are skipped, as trec_eval does
    nonrel = ((j.rel >= 0) & (j.rel < m.rel)).fill_null(False)
    judged = relevant | nonrel
    # judged items above a relevant item, minus the relevant ones among them; from the
    # engine's running counts when it has them (judged = relevance >= 0 when rel > 0):
    # the same integers in the same order, so the same sum
    if j.running is not None and m.rel > 0:
        nonrel_above = (j.running(0.0) - j.running(m.rel)).filter(relevant).cast(pl.Float64)
    else:
        nonrel_above = (
            j.rank_among(judged).filter(relevant.filter(judged)) - j.rank_among(relevant)
        ).cast(pl.Float64)
    penalty = pl.min_horizontal(nonrel_above, num_rel) / pl.min_horizontal(num_nonrel, num_rel)
    term = pl.when(nonrel_above > 0).then(1.0 - penalty).otherwise(1.0)
    return safe_div(term.sum(), num_rel)


BPREF = register(
    Family(
        name="Bpref",
        order=80,
        summary="Binary preference: how often judged relevant items precede judged "
        "non-relevant ones (unjudged items are skipped).",
        formula="(1/R) * sum over retrieved relevant r of "
        "(1 - min(judged non-relevant above r, R) / min(N, R)), N = judged non-relevant",
        trec_eval="bpref",
        cutoff=False,
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel), Stat("num_nonrel", m.rel)),
    )
)
