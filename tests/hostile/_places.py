"""Every place an ``evaluate`` input goes through: the polars engine eager, lazy and
streaming, and the DuckDB engine eager and lazy."""

from __future__ import annotations

import math
import warnings
from typing import Any

import polars as pl

import polars_rankeval as rk

PLACES = ("eager", "lazy", "streaming", "duckdb", "duckdb_lazy")


def evaluate_at(place: str, run: pl.DataFrame, qrels: pl.DataFrame | None, measures: Any,
                **options: Any) -> pl.DataFrame:
    """``rk.evaluate`` at ``place``, collected."""
    engine = "duckdb" if place.startswith("duckdb") else "polars"
    lazy = place in ("lazy", "streaming", "duckdb_lazy")
    r = run.lazy() if lazy else run
    q = None if qrels is None else (qrels.lazy() if lazy else qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        out = rk.evaluate(r, q, measures, engine=engine, **options)
        if isinstance(out, pl.LazyFrame):
            out = out.collect(engine="streaming" if place == "streaming" else "auto")
    return out


# A small collection with values computed by hand (the arithmetic is in HAND below).
RUN = pl.DataFrame({
    "query": ["q1", "q1", "q1", "q2", "q2"],
    "item": ["a", "b", "c", "d", "e"],
    "score": [3.0, 2.0, 1.0, 2.0, 1.0],
    "rank": [1, 2, 3, 1, 2],
})  # fmt: skip
QRELS = pl.DataFrame({
    "query": ["q1", "q1", "q2", "q2"],
    "item": ["b", "c", "e", "f"],
    "relevance": [1, 2, 1, 1],
})  # fmt: skip
MEASURES = ["AP", "P@2", "RR", "nDCG@3", "R@2", "NumRet"]


def _hand() -> dict[str, float]:
    log2 = math.log2
    # q1 ranks a, b, c: b (1) at 2, c (2) at 3, R = 2; q2 ranks d, e: e (1) at 2, R = 2
    ap = ((1 / 2 + 2 / 3) / 2 + (1 / 2) / 2) / 2
    ndcg_q1 = (1 / log2(3) + 2 / log2(4)) / (2 / log2(2) + 1 / log2(3))
    ndcg_q2 = (1 / log2(3)) / (1 / log2(2) + 1 / log2(3))
    return {
        "AP": ap,
        "P@2": (1 / 2 + 1 / 2) / 2,
        "RR": (1 / 2 + 1 / 2) / 2,
        "nDCG@3": (ndcg_q1 + ndcg_q2) / 2,
        "R@2": (1 / 2 + 1 / 2) / 2,
        "NumRet": 5.0,
    }


HAND = _hand()


def assert_hand_values(out: pl.DataFrame) -> None:
    got = dict(zip(out["measure"], out["value"], strict=True))
    assert set(got) == set(HAND)
    for name, value in HAND.items():
        assert math.isclose(got[name], value, rel_tol=1e-12, abs_tol=1e-12), (name, got[name], value)
