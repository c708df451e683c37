"""F measure: the weighted harmonic mean of precision and recall (F1 at beta=1)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Param, Stat, register, safe_div


def _expression(m: Measure, j: Judged) -> pl.Expr:
    hits = (j.is_relevant(m.rel) & j.in_top(m.k)).sum()
    # P = hits / d with d = k (trec_eval P_k) or, without a cutoff, the number retrieved
    # (trec_eval set_P); R = hits / num_rel.  (beta + 1) P R / (beta P + R) is then
    # (beta + 1) hits / (beta num_rel + d): 0 when nothing relevant is found.
    retrieved = pl.lit(float(m.k)) if m.k is not None else j.num_ret.cast(pl.Float64)
    beta = float(m["beta"])
    return safe_div((beta + 1.0) * hits, beta * j.stat(Stat("num_rel", m.rel)) + retrieved)


F1 = register(
    Family(
        name="F1",
        order=110,
        examples=("F1(beta=0.5)@3",),
        aliases=("F", "SetF"),
        summary="F measure: harmonic mean of precision and recall (of the top k, or of the "
        "whole retrieved set without a cutoff).",
        formula="(beta + 1) P R / (beta P + R), P = relevant in top k / k (no cutoff: / "
        "retrieved), R = relevant in top k / R; 0 if none found. beta weighs R against P "
        "as trec_eval's set_F parameter does (beta=1: F1)",
        trec_eval="set_F (no cutoff)",
        params=(
            Param(
                "beta",
                1.0,
                "relative importance of recall to precision (trec_eval set_F's parameter, "
                "used as is, not squared)",
                minimum=0.0,
            ),
        ),
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
