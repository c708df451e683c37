"""Non-default conventions and parameters against independent formulas, not our engine.

Each oracle below is the other tool's formula written out in plain Python, one query at a
time (the published values of those tools are in ``test_fixtures.py``; here the formulas
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

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from tests.helpers import examples

ITEMS = ("a", "B", "b", "c1", "c10", "c9", "d", "e", "f", "g", "h", "z")
KS = (1, 3, 5, 20)
SETTINGS = settings(
    max_examples=examples(75),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
Run = dict[str, list[str]]  # query -> items, best first
Qrels = dict[str, dict[str, int]]


@st.composite
def cases(draw: st.DrawFn) -> tuple[Run, Qrels]:
    queries = draw(st.lists(st.sampled_from("pqrst"), min_size=1, max_size=4, unique=True))
    run: Run = {}
    qrels: Qrels = {}
    for q in queries:
        run[q] = draw(st.permutations(draw(st.lists(st.sampled_from(ITEMS), min_size=1,
                                                    unique=True))))  # fmt: skip
        judged = draw(st.lists(st.sampled_from(ITEMS), min_size=1, unique=True))
        qrels[q] = {item: draw(st.sampled_from((0, 0, 1, 2, 3))) for item in judged}
    return run, qrels


def _frames(run: Run, qrels: Qrels) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = [(q, d, float(len(items) - i)) for q, items in run.items() for i, d in enumerate(items)]
    judged = [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
    return (
        pl.DataFrame(rows, schema=["query", "item", "score"], orient="row"),
        pl.DataFrame(judged, schema=["query", "item", "relevance"], orient="row"),
    )


def _ours(run: Run, qrels: Qrels, names: list[str], engine: str) -> dict[tuple[str, str], float]:
    run_frame, qrels_frame = _frames(run, qrels)
    got = rk.evaluate(run_frame, qrels_frame, names, per_query=True, engine=engine)
    return {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}


# ------------------------------------------------------------------ the oracles


def kaggle_apk(actual: list[str], predicted: list[str], k: int) -> float:
    """ml_metrics.average_precision.apk (Kaggle), as published."""
    if len(predicted) > k:
        predicted = predicted[:k]
    score = 0.0
    num_hits = 0.0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            num_hits += 1.0
            score += num_hits / (i + 1.0)
    if not actual:
        return 0.0
    return score / min(len(actual), k)


def torchmetrics_ap(target: list[bool], k: int) -> float:
    """torchmetrics.functional.retrieval_average_precision(preds, target, top_k=k), the
    target already in preds-descending order: mean of (hits so far) / position over the
    relevant positions of the top k; 0 without one."""
    positions = [i + 1 for i, t in enumerate(target[:k]) if t]
    if not positions:
        return 0.0
    return sum((n + 1) / p for n, p in enumerate(positions)) / len(positions)


def burges_ndcg(grades: list[int], all_grades: list[int], k: int) -> float:
    """DCG with gain 2^g - 1 and discount log2(i + 1), over the ideal DCG of the judged
    grades sorted descending (both cut at k)."""

    def dcg(values: list[int]) -> float:
        return sum((2.0**g - 1.0) / math.log2(i + 2) for i, g in enumerate(values[:k]))

    ideal = dcg(sorted(all_grades, reverse=True))
    return dcg(grades) / ideal if ideal > 0 else 0.0


def rbp_binary(relevant: list[bool], p: float, k: int | None) -> float:
    top = relevant if k is None else relevant[:k]
    return (1 - p) * sum(p**i for i, r in enumerate(top) if r)


def _expected(run: Run, qrels: Qrels) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    for q, items in run.items():
        grades = [qrels[q].get(d, 0) for d in items]
        relevant = [g >= 1 for g in grades]
        actual = [d for d, g in qrels[q].items() if g >= 1]
        big_r = len(actual)
        for k in KS:
            hits = sum(relevant[:k])
            out[(q, f"AP(norm=min)@{k}")] = kaggle_apk(actual, items, k)
            out[(q, f"AP(norm=hits)@{k}")] = torchmetrics_ap(relevant, k)
            out[(q, f"nDCG(gain=exp)@{k}")] = burges_ndcg(grades, list(qrels[q].values()), k)
            out[(q, f"P(norm=ret)@{k}")] = hits / min(k, len(items))
            out[(q, f"R(norm=min)@{k}")] = hits / min(big_r, k) if big_r else 0.0
            out[(q, f"RBP(p=0.8,gain=binary)@{k}")] = rbp_binary(relevant, 0.8, k)
        out[(q, "RBP(p=0.5,gain=binary)")] = rbp_binary(relevant, 0.5, None)
    return out


# ------------------------------------------------------------------ the tests


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@SETTINGS
@given(case=cases())
def test_conventions_equal_the_other_tools_formulas(case: tuple[Run, Qrels], engine: str):
    run, qrels = case
    expected = _expected(run, qrels)
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
    run_frame, qrels_frame = _frames(run, qrels)
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
