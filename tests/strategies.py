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
def run_and_qrels(
    draw, *, min_queries: int = 1, min_retrieved: int = 1, first_query_relevant: bool = False
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A tie-heavy run (query, item, score) and graded qrels (query, item, relevance).

    ``min_retrieved``: rows per query at least.  ``first_query_relevant``: the first
    query has a relevant judgment (grade >= 1), so run and qrels always share a query.
    """
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=min_queries, unique=True))
    run_rows, qrels_rows = [], []
    for index, q in enumerate(queries):
        forced = first_query_relevant and index == 0
        judged = draw(st.lists(st.sampled_from(ITEM_IDS), unique=True, max_size=8,
                               min_size=1 if forced else 0))  # fmt: skip
        for position, item in enumerate(judged):
            grades = [g for g in GRADES if g >= 1] if forced and position == 0 else GRADES
            qrels_rows.append((q, item, draw(st.sampled_from(grades))))
        retrieved = draw(st.lists(st.sampled_from(ITEM_IDS), unique=True, min_size=min_retrieved))
        for item in retrieved:
            run_rows.append((q, item, draw(st.sampled_from(SCORES))))
    run = pl.DataFrame(run_rows, schema=["query", "item", "score"], orient="row")
    qrels = pl.DataFrame(
        qrels_rows,
        schema={"query": pl.String, "item": pl.String, "relevance": pl.Int64},
        orient="row",
    )
    return run, qrels
