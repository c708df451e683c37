"""Oracle test: Judged@k against ir_measures' ``judged`` provider.

ir_measures breaks score ties by docno ascending, so the runs here have distinct
scores; and it counts a negative judgment as judged, where we follow trec_eval
("pooled but unjudged"): ir_measures is given the qrels without their negative
judgments.  The data helpers are shared with ``test_oracle_gdeval.py`` (numeric query
ids, as gdeval needs).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.helpers import examples
from tests.oracles.ir_measures_data import CUTOFFS, SETTINGS, Rows, cases, our_values

ir_measures = pytest.importorskip("ir_measures")


# ----------------------------------------------------------------------------- Judged

# Several generated cases go through one evaluate call (each case's query ids prefixed
# with its number; a query's values do not depend on the other queries), so the grid
# pays DuckDB's fixed cost once a batch, not once a case.  examples(60 // BATCH) batches
# of BATCH cases: as many cases as the 60 single cases before under each profile
# (default 12, full 60; the fast tier 6, was 3), a third of the evaluate calls.
BATCH = 3


def _batched(cases: list[tuple[Rows, Rows]]) -> tuple[Rows, Rows]:
    """The cases as one run and one qrels, query ids ``{case}_{query}``."""
    run = [(f"{i}_{q}", d, s) for i, (rows, _) in enumerate(cases) for q, d, s in rows]
    qrels = [(f"{i}_{q}", d, r) for i, (_, rows) in enumerate(cases) for q, d, r in rows]
    return run, qrels


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@example(
    # k beyond the ranking; a -1 judgment (unjudged for us); an item judged 0
    batch=[(
        [("1", "a", 3.0), ("1", "b", 2.0), ("1", "c1", 1.0)],
        [("1", "a", -1), ("1", "b", 0), ("1", "z", 1)],
    )],
)
@settings(SETTINGS, max_examples=examples(60 // BATCH))
@given(batch=st.lists(cases(distinct_scores=True), min_size=BATCH, max_size=BATCH))
def test_judged_matches_ir_measures(batch: list[tuple[Rows, Rows]], engine: str) -> None:
    run, qrels = _batched(batch)
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
    ours = our_values(run, qrels, [str(m) for m in measures], engine)
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
