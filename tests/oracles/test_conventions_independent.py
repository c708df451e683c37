"""Non-default conventions and parameters against independent formulas, not our engine.

Each oracle (in ``tests/conventions.py``) is the other tool's formula written out in plain
Python, one query at a time (the published values of those tools are in ``test_fixtures.py``; here the formulas
meet random data):

* ``AP(norm=min)@k``: Kaggle's ``ml_metrics.apk`` (the ``kaggle`` preset), transcribed.
* ``AP(norm=hits)@k``: torchmetrics' ``retrieval_average_precision(top_k=k)``: the mean
  of the precisions at the relevant items found in the top k (the ``torchmetrics`` preset).
* ``nDCG(gain=exp)@k``: Burges' gain 2^rel - 1, discount log2(i + 1), the ideal from the
  qrels (Spark's ``RankingMetrics.ndcgAt`` with relevance values, ranx ``ndcg_burges``).
* ``P(norm=ret)@k``: hits in the top k / min(k, retrieved).
* ``R(norm=min)@k``: hits in the top k / min(R, k).
* ``RBP(p, gain=binary)@k``: (1 - p) * sum over the top k of [relevant] p^(i - 1)
  (ranx's ``rbp.<p>`` on these graded qrels made binary: ``test_oracle_ranx.py``, where
  ranx compiles its measures once per run).

Scores are distinct (every tool has its own tie rule), grades 0..3.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from tests.conventions import (
    Qrels,
    Run,
    conventions_cases,
    conventions_frames,
    expected_values,
    kaggle_apk,
    torchmetrics_ap,
)
from tests.helpers import examples

# Each example is a batch of 1 to BATCH cases stacked into one call per engine (DuckDB
# plans its SQL ~0.3 s a call, whatever the rows): 20 batches hold ~110 cases where 75
# examples held 75; the default profile's 4 (the simplest case, then three batches) ~17,
# where its 15 held 15.
BATCH = 10
SETTINGS = settings(
    max_examples=examples(20),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def cases(draw: st.DrawFn) -> tuple[Run, Qrels]:
    """1 to ``BATCH`` of ``conventions_cases`` as one: the i-th case's queries renamed
    ``"<i>:<query>"`` (each query is evaluated on its own rows, as in a call of its own)."""
    parts = [draw(conventions_cases()), *draw(st.lists(conventions_cases(), max_size=BATCH - 1))]
    run: Run = {f"{i}:{q}": items for i, (r, _) in enumerate(parts) for q, items in r.items()}
    qrels: Qrels = {f"{i}:{q}": docs for i, (_, j) in enumerate(parts) for q, docs in j.items()}
    return run, qrels


def _ours(run: Run, qrels: Qrels, names: list[str], engine: str) -> dict[tuple[str, str], float]:
    run_frame, qrels_frame = conventions_frames(run, qrels)
    got = rk.evaluate(run_frame, qrels_frame, names, per_query=True, engine=engine)
    return {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}


# ------------------------------------------------------------------ the tests


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@SETTINGS
@given(case=cases())
def test_conventions_equal_the_other_tools_formulas(case: tuple[Run, Qrels], engine: str):
    run, qrels = case
    expected = expected_values(run, qrels)
    names = sorted({m for _, m in expected})
    got = _ours(run, qrels, names, engine)
    bad = [
        (q, m, got.get((q, m)), v)
        for (q, m), v in expected.items()
        if got.get((q, m)) is None or not math.isclose(got[(q, m)], v, rel_tol=0, abs_tol=1e-12)
    ]
    assert not bad, bad


def test_the_presets_are_these_conventions():
    # kaggle's AP@k is norm=min, torchmetrics' is norm=hits: the same numbers by name
    run, qrels = {"p": ["a", "b", "c", "d"]}, {"p": {"b": 1, "d": 1, "z": 1}}
    run_frame, qrels_frame = conventions_frames(run, qrels)
    for preset, oracle in [
        # Kaggle: (1/2 + 2/4) / min(3, 4) = 1/3
        ("kaggle", kaggle_apk(["b", "d", "z"], run["p"], 4)),
        # torchmetrics: (1/2 + 2/4) / 2 hits = 1/2
        ("torchmetrics", torchmetrics_ap([False, True, False, True], 4)),
    ]:
        got = rk.evaluate(run_frame, qrels_frame, ["AP@4"], conventions=preset)
        assert got["value"].item() == pytest.approx(oracle, abs=1e-15), preset
    assert kaggle_apk(["b", "d", "z"], run["p"], 4) == pytest.approx(1 / 3)
    assert torchmetrics_ap([False, True, False, True], 4) == pytest.approx(1 / 2)
