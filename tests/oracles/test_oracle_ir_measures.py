"""Oracle test: Judged@k against ir_measures' ``judged`` provider.

ir_measures breaks score ties by docno ascending, so the runs here have distinct
scores; and it counts a negative judgment as judged, where we follow trec_eval
("pooled but unjudged"): ir_measures is given the qrels without their negative
judgments.  The data helpers are shared with ``test_oracle_gdeval.py`` (numeric query
ids, as gdeval needs).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk

ir_measures = pytest.importorskip("ir_measures")

CUTOFFS = (1, 2, 3, 5, 10, 1000)
SCORES = (0.0, 0.5, 1.0, 2.0)
GRADES = (-1, 0, 0, 1, 2, 3, 4)
ITEMS = ("a", "B", "b", "c1", "c10", "c9", "d-", "d_", "e.1", "z")
SETTINGS = settings(
    max_examples=60,
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


def _frames(run: Rows, qrels: Rows) -> tuple[pl.DataFrame, pl.DataFrame]:
    return (
        pl.DataFrame(run, schema=["query", "item", "score"], orient="row"),
        pl.DataFrame(qrels, schema=["query", "item", "relevance"], orient="row"),
    )


def _ours(run: Rows, qrels: Rows, names: list[str], engine: str) -> dict[tuple[str, str], float]:
    run_frame, qrels_frame = _frames(run, qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)  # run-only queries
        try:
            got = rk.evaluate(run_frame, qrels_frame, names, per_query=True, engine=engine)
        except rk.InputError as error:  # pragma: no cover - the first query is shared
            raise AssertionError(error) from error
    return {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}


# ----------------------------------------------------------------------------- Judged


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@example(
    # k beyond the ranking; a -1 judgment (unjudged for us); an item judged 0
    case=(
        [("1", "a", 3.0), ("1", "b", 2.0), ("1", "c1", 1.0)],
        [("1", "a", -1), ("1", "b", 0), ("1", "z", 1)],
    ),
)
@SETTINGS
@given(case=cases(distinct_scores=True))
def test_judged_matches_ir_measures(case: tuple[Rows, Rows], engine: str) -> None:
    run, qrels = case
    measures = [ir_measures.parse_measure(f"Judged@{k}") for k in CUTOFFS]
    measures.append(ir_measures.parse_measure("Judged"))
    expected = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.judged.iter_calc(
            measures,
            # a negative judgment is "pooled but unjudged" here (trec_eval's convention)
            [ir_measures.Qrel(q, d, r) for q, d, r in qrels if r >= 0],
            [ir_measures.ScoredDoc(q, d, s) for q, d, s in run],
        )
    }
    ours = _ours(run, qrels, [str(m) for m in measures], engine)
    for key, value in expected.items():
        if key not in ours:  # ir_measures reports qrels-only queries: 0 (complete=True)
            assert value == 0.0, key
            continue
        assert math.isclose(ours[key], value, rel_tol=0, abs_tol=1e-12), (key, ours[key], value)
    # ir_measures skips a query whose qrels (without negative judgments) became empty;
    # for us it has no judged item: 0
    for key, value in ours.items():
        if key not in expected:
            assert value == 0.0, key
