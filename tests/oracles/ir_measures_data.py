"""The data of the ir_measures oracle tests (``test_oracle_ir_measures.py``, Judged, and
``test_oracle_gdeval.py``, ERR): runs and qrels with numeric query ids (gdeval's
format), graded -1..4, and our per-query values for them."""

from __future__ import annotations

import warnings
from typing import Any

import polars as pl
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from tests.helpers import examples

CUTOFFS = (1, 2, 3, 5, 10, 1000)
SCORES = (0.0, 0.5, 1.0, 2.0)
GRADES = (-1, 0, 0, 1, 2, 3, 4)
ITEMS = ("a", "B", "b", "c1", "c10", "c9", "d-", "d_", "e.1", "z")
SETTINGS = settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)

Rows = list[tuple[Any, ...]]


@st.composite
def cases(draw: st.DrawFn, *, distinct_scores: bool = False) -> tuple[Rows, Rows]:
    """(run rows (query, item, score), qrels rows (query, item, grade)); numeric query
    ids (gdeval's format); the first query is in both."""
    queries = draw(st.lists(st.integers(1, 30), min_size=1, max_size=4, unique=True))
    run: Rows = []
    qrels: Rows = []
    for i, q in enumerate(queries):
        kind = "both" if i == 0 else draw(st.sampled_from(["both", "both", "run", "qrels"]))
        if kind in ("both", "run"):
            retrieved = draw(st.lists(st.sampled_from(ITEMS), min_size=1, unique=True))
            if distinct_scores:
                scores = draw(
                    st.lists(
                        st.integers(0, 1000), min_size=len(retrieved),
                        max_size=len(retrieved), unique=True,
                    )
                )  # fmt: skip
            else:
                scores = [draw(st.sampled_from(SCORES)) for _ in retrieved]
            run += [(str(q), it, float(s)) for it, s in zip(retrieved, scores, strict=True)]
        if kind in ("both", "qrels"):
            judged = draw(st.lists(st.sampled_from(ITEMS), min_size=1, unique=True))
            qrels += [(str(q), it, draw(st.sampled_from(GRADES))) for it in judged]
    return run, qrels


def frames(run: Rows, qrels: Rows) -> tuple[pl.DataFrame, pl.DataFrame]:
    return (
        pl.DataFrame(run, schema=["query", "item", "score"], orient="row"),
        pl.DataFrame(qrels, schema=["query", "item", "relevance"], orient="row"),
    )


def our_values(
    run: Rows, qrels: Rows, names: list[str], engine: str
) -> dict[tuple[str, str], float]:
    """Our per-query values ``{(query, measure): value}`` through ``engine``."""
    run_frame, qrels_frame = frames(run, qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)  # run-only queries
        try:
            got = rk.evaluate(run_frame, qrels_frame, names, per_query=True, engine=engine)
        except rk.InputError as error:  # pragma: no cover - the first query is shared
            raise AssertionError(error) from error
    return {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}
