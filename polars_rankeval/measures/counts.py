"""Count measures: retrieved, relevant, relevant retrieved.  They aggregate as sums."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Stat, register


def _num_rel(m: Measure) -> Stat:
    return Stat("num_rel", m.rel)


def _expected_relevant(j: Judged, level: float) -> pl.Expr:
    """With ties="average": r/n of the row's tie group, its expected relevance."""
    assert j.ties is not None
    return j.ties.share(level)


NUM_RET = register(
    Family(
        name="NumRet",
        order=90,
        bounded=False,
        summary="Number of items retrieved (within the top k). Sum over queries.",
        formula="retrieved in top k; rel= is ignored",
        trec_eval="num_ret",
        aggregate="sum",
        expression=lambda m, j: j.count_top(m.k),
        expected=lambda m, j: j.count_top(m.k),  # the order of tied rows does not matter
        missing=lambda m, j: j.count_top(m.k),
    )
)

NUM_REL = register(
    Family(
        name="NumRel",
        order=91,
        bounded=False,
        summary="Number of relevant items (R). Sum over queries.",
        formula="R = judged items with relevance >= rel",
        trec_eval="num_rel",
        cutoff=False,
        aggregate="sum",
        expression=lambda m, j: j.stat(_num_rel(m)),
        expected=lambda m, j: j.stat(_num_rel(m)),  # no order at all
        stats=lambda m: (_num_rel(m),),
        missing=lambda m, j: j.stat(_num_rel(m)),
    )
)

NUM_REL_RET = register(
    Family(
        name="NumRelRet",
        order=92,
        bounded=False,
        summary="Number of relevant items retrieved (within the top k). Sum over queries.",
        formula="relevant in top k",
        trec_eval="num_rel_ret",
        aggregate="sum",
        expression=lambda m, j: (j.is_relevant(m.rel) & j.in_top(m.k)).sum(),
        expected=lambda m, j: _expected_relevant(j, m.rel).filter(j.in_top(m.k)).sum(),
    )
)

__all__ = ["NUM_REL", "NUM_REL_RET", "NUM_RET", "pl"]
