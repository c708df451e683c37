"""The other tools' formulas for the non-default conventions, written out in plain Python
one query at a time (``tests/oracles/test_conventions_independent.py`` has the list and
their sources), and the random cases the warehouse tests meet them with.

Shared by the test modules (test modules never import from each other):
``oracles/test_conventions_independent.py``, ``sql/test_postgres_oracle.py`` and
``sql/test_spark_oracle.py`` (and ``oracles/test_oracle_ranx.py``'s graded cases).  Scores are distinct (every tool has its own tie rule),
grades 0..3.
"""

from __future__ import annotations

import math
import random

import polars as pl
from hypothesis import strategies as st

ITEMS = ("a", "B", "b", "c1", "c10", "c9", "d", "e", "f", "g", "h", "z")
KS = (1, 3, 5, 20)
Run = dict[str, list[str]]  # query -> items, best first
Qrels = dict[str, dict[str, int]]


def conventions_frames(run: Run, qrels: Qrels) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = [(q, d, float(len(items) - i)) for q, items in run.items() for i, d in enumerate(items)]
    judged = [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
    return (
        pl.DataFrame(rows, schema=["query", "item", "score"], orient="row"),
        pl.DataFrame(judged, schema=["query", "item", "relevance"], orient="row"),
    )


@st.composite
def conventions_cases(draw: st.DrawFn) -> tuple[Run, Qrels]:
    """1-4 queries, each a ranking of distinct items and judgments graded 0..3."""
    queries = draw(st.lists(st.sampled_from("pqrst"), min_size=1, max_size=4, unique=True))
    run: Run = {}
    qrels: Qrels = {}
    for q in queries:
        run[q] = draw(st.permutations(draw(st.lists(st.sampled_from(ITEMS), min_size=1,
                                                    unique=True))))  # fmt: skip
        judged = draw(st.lists(st.sampled_from(ITEMS), min_size=1, unique=True))
        qrels[q] = {item: draw(st.sampled_from((0, 0, 1, 2, 3))) for item in judged}
    return run, qrels


def random_conventions_case(seed: int, queries: int) -> tuple[Run, Qrels]:
    """Distinct scores (the order of the list), grades 0..3, every query judged."""
    rng = random.Random(seed)
    run: Run = {}
    qrels: Qrels = {}
    for q in range(queries):
        run[f"q{q}"] = rng.sample(ITEMS, rng.randint(1, len(ITEMS)))
        judged = rng.sample(ITEMS, rng.randint(1, len(ITEMS)))
        qrels[f"q{q}"] = {d: rng.choice((0, 0, 1, 2, 3)) for d in judged}
    return run, qrels


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


def expected_values(run: Run, qrels: Qrels) -> dict[tuple[str, str], float]:
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
