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


def stack_cases(parts: list[tuple[Rows, Rows]]) -> tuple[Rows, Rows]:
    """Cases as one: the queries of the i-th renamed apart (query + 100 i: still a
    number, gdeval's format), so that each query is evaluated on its own case's rows as in
    a call of its own, and one call per engine checks them all (DuckDB plans its SQL
    ~0.2 s a call, whatever the rows).

    >>> stack_cases([([("3", "a", 1.0)], [("3", "a", 1)]), ([("3", "b", 0.5)], [])])
    ([('3', 'a', 1.0), ('103', 'b', 0.5)], [('3', 'a', 1)])
    """

    def tag(i: int, rows: Rows) -> Rows:
        return [(str(int(q) + 100 * i), *rest) for q, *rest in rows]

    run = [row for i, (part, _) in enumerate(parts) for row in tag(i, part)]
    qrels = [row for i, (_, part) in enumerate(parts) for row in tag(i, part)]
    return run, qrels


BATCH = 10  # cases per drawn batch, at most


@st.composite
def case_batches(draw: st.DrawFn, *, distinct_scores: bool = False) -> tuple[Rows, Rows]:
    """1 to :data:`BATCH` :func:`cases`, stacked (:func:`stack_cases`): each example checks
    several cases in one call per engine.  The simplest one (hypothesis' first example) is
    one simplest case."""
    first = draw(cases(distinct_scores=distinct_scores))
    rest = draw(st.lists(cases(distinct_scores=distinct_scores), max_size=BATCH - 1))
    return stack_cases([first, *rest])


# SETTINGS' grid in batches (~5.5 cases each on average): 15 batches hold ~80 cases where
# SETTINGS' 60 examples held 60, in a quarter of the calls; the default profile's 3 (the
# simplest case, then two batches) hold ~12, as its 12 did.
BATCH_SETTINGS = settings(
    SETTINGS,
    max_examples=examples(15),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


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
