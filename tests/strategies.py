"""Shared test data builders: a tie-heavy hypothesis run and qrels, the corruptions
the malformed-input tests apply to them, and seeded runs of unequal quality for the
comparison tests."""

from __future__ import annotations

import numpy as np
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


def _null_at(frame: pl.DataFrame, column: str, row: int) -> pl.DataFrame:
    values = frame[column].to_list()
    values[row % frame.height] = None
    return frame.with_columns(pl.Series(column, values, dtype=frame.schema[column]))


def _value_at(frame: pl.DataFrame, column: str, row: int, value) -> pl.DataFrame:
    values = frame[column].cast(pl.Float64).to_list()
    values[row % frame.height] = value
    return frame.with_columns(pl.Series(column, values, dtype=pl.Float64))


# name -> (function(run, qrels, row) -> (run, qrels), an error is expected)
CORRUPTIONS = {
    "null run query": (lambda r, q, i: (_null_at(r, "query", i), q), True),
    "null run item": (lambda r, q, i: (_null_at(r, "item", i), q), True),
    "null score": (lambda r, q, i: (_null_at(r, "score", i), q), True),
    "NaN score": (lambda r, q, i: (_value_at(r, "score", i, float("nan")), q), True),
    "-inf score": (lambda r, q, i: (_value_at(r, "score", i, float("-inf")), q), True),
    "duplicate run row": (lambda r, q, i: (pl.concat([r, r[i % r.height]]), q), True),
    "null qrels relevance": (lambda r, q, i: (r, _null_at(q, "relevance", i)), True),
    "NaN qrels relevance": (lambda r, q, i: (r, _value_at(q, "relevance", i, float("nan"))), True),
    "null qrels item": (lambda r, q, i: (r, _null_at(q, "item", i)), True),
    "duplicate judgment": (lambda r, q, i: (r, pl.concat([q, q[i % q.height]])), True),
    "string relevance": (lambda r, q, i: (r, q.with_columns(pl.col("relevance").cast(pl.String))),
                         True),
    "int query ids in the run only": (
        lambda r, q, i: (r.with_columns(pl.col("query").str.len_bytes().cast(pl.Int64)), q), True),
    "no score column": (lambda r, q, i: (r.drop("score"), q), True),
    "empty run": (lambda r, q, i: (r.head(0), q), True),
    "run-only query (ignored, counted)": (
        lambda r, q, i: (pl.concat([r, r.head(1).with_columns(pl.lit("unjudged-q").alias("query"))]),
                         q), False),
}


def make_runs(n_queries: int = 30, depth: int = 20, seed: int = 0):
    """qrels and three runs whose quality differs: dense > bm25 ~ noisy."""
    rng = np.random.default_rng(seed)
    queries = np.repeat([f"q{i:02d}" for i in range(n_queries)], depth * 2)
    items = np.tile([f"d{j:03d}" for j in range(depth * 2)], n_queries)
    grade = rng.choice([0, 0, 0, 1, 2], size=queries.size)
    qrels = pl.DataFrame({"query": queries, "item": items, "relevance": grade})
    runs = {}
    for name, skill in [("bm25", 1.0), ("dense", 2.0), ("noisy", 0.9)]:
        score = skill * grade + rng.normal(0, 1.5, grade.size)
        runs[name] = (
            pl.DataFrame({"query": queries, "item": items, "score": score})
            .sort("score", descending=True)
            .group_by("query", maintain_order=True)
            .head(depth)
        )
    return qrels, runs
