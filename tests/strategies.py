"""Shared test data builders."""

from __future__ import annotations

import polars as pl
from hypothesis import strategies as st

# Ids whose byte order differs from case-insensitive or numeric order.
ITEM_IDS = ["a", "B", "b", "A1", "a10", "a9", "Z", "_x", "-y", "d.1", "d-1", "d_1", "0", "10", "9"]
QUERY_IDS = ["q1", "Q2", "q10", "3"]
SCORES = [0.0, 0.5, 1.0, 2.0]  # few values, so ties are common
GRADES = [-1, 0, 0, 1, 1, 2, 3]


@st.composite
def run_and_qrels(draw, *, min_queries: int = 1) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A tie-heavy run (query, item, score) and graded qrels (query, item, relevance)."""
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=min_queries, unique=True))
    run_rows, qrels_rows = [], []
    for q in queries:
        judged = draw(st.lists(st.sampled_from(ITEM_IDS), unique=True, max_size=8))
        for item in judged:
            qrels_rows.append((q, item, draw(st.sampled_from(GRADES))))
        retrieved = draw(st.lists(st.sampled_from(ITEM_IDS), unique=True, min_size=1))
        for item in retrieved:
            run_rows.append((q, item, draw(st.sampled_from(SCORES))))
    run = pl.DataFrame(run_rows, schema=["query", "item", "score"], orient="row")
    qrels = pl.DataFrame(
        qrels_rows,
        schema={"query": pl.String, "item": pl.String, "relevance": pl.Int64},
        orient="row",
    )
    return run, qrels
