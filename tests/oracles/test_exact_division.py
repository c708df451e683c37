"""Per-query values divided by a constant are C's correctly rounded division, as
trec_eval computes them (m_P.c: rel_so_far / cutoff), whatever the number of queries
evaluated together.  polars divides a column by a scalar through its reciprocal
(3 * (1/5) = 0.6000000000000001), which moved the last bit of P@5 for several queries and
could flip trec_eval's 4-decimal rounding at an exact half."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankeval as rk


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("k", [3, 5, 10, 20])
def test_precision_at_k_is_hits_divided_by_k(engine: str, k: int) -> None:
    rng = np.random.default_rng(k)
    n_queries, depth = 300, 25
    labels = rng.integers(0, 2, (n_queries, depth))
    run = pl.DataFrame({
        "query": np.repeat(np.arange(n_queries), depth).astype(str),
        "item": np.tile(np.arange(depth), n_queries).astype(str),
        "score": np.tile(np.arange(depth, 0, -1), n_queries).astype(float),
    })  # fmt: skip
    judged = rng.random((n_queries, depth)) < 0.7
    qrels = (
        run.select("query", "item")
        .with_columns(relevance=labels.ravel())
        .filter(pl.Series(judged.ravel()))
    )
    got = rk.evaluate(run, qrels, [f"P@{k}", f"Unjudged@{k}"], per_query=True, engine=engine)
    precision = dict(got.filter(pl.col("measure") == f"P@{k}").select("query", "value").rows())
    for q in range(n_queries):
        hits = int((labels[q, :k] * judged[q, :k]).sum())
        assert precision[str(q)] == hits / k  # the same double, not within a tolerance
    unjudged = dict(
        got.filter(pl.col("measure") == f"Unjudged@{k}").select("query", "value").rows()
    )
    for q in range(n_queries):
        assert unjudged[str(q)] == int((~judged[q, :k]).sum()) / k
