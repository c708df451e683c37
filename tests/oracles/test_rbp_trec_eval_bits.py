"""RBP and RBP_resid to the last bit of trec_eval 10's double arithmetic.

The oracle is a line-by-line transcription of the loops of m_rbp.c and m_rbp_resid.c
(``cur_p = cur_p * p`` per position, terms added one by one in rank order), not the
library's code: trec_eval prints 4 decimals, and a mean that sits at an exact half
(0.87305 -> 0.8730) is decided by those last bits.  Values are compared with ``==``.
"""

from __future__ import annotations

import random

import polars as pl
import pytest

import polars_rankeval as rk


def _trec_eval_rbp(rels: list[int | None], p: float, max_rel: int) -> float:
    # m_rbp.c: gains scaled to 0..1 when the highest level is above 1; unjudged gain 0
    top = max(max_rel, 1)
    total, cur_p = 0.0, 1.0
    for rel in rels:
        gain = rel / top if rel is not None and rel > 0 else 0.0
        if gain != 0:
            total += gain * cur_p
        cur_p = cur_p * p
    return (1.0 - p) * total


def _trec_eval_rbp_resid(rels: list[int | None], p: float) -> float:
    # m_rbp_resid.c: unjudged = not in the qrels or a negative judgment
    unjudged, total, cur_p = 0, 0.0, 1.0
    for rel in rels:
        if rel is None or rel < 0:
            unjudged += 1
            total += cur_p
        cur_p = cur_p * p
    return cur_p + (1 - p) * total if unjudged else 0.0


def _data(seed: int) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, list[int | None]]]:
    """Queries of 1..400 rows (distinct scores), about a third judged with levels -1..4;
    rows shuffled so that the input order is not the rank order.  Also the relevance
    of each query's rows in rank order."""
    rnd = random.Random(seed)
    runs, qrels, ranked = [], [], {}
    for q in range(40):
        depth = rnd.choice([1, 2, 7, 60, 400])
        rels: list[int | None] = []
        for i in range(depth):
            item = f"q{q}d{i}"
            runs.append((f"q{q}", item, float(depth - i)))
            rel = rnd.choice([-1, 0, 1, 2, 4]) if rnd.random() < 0.35 else None
            if q % 7 == 0:  # every row judged, or none: the residual's two edges
                rel = None if q % 14 == 0 else rnd.choice([0, 1, 3])
            if rel is not None:
                qrels.append((f"q{q}", item, rel))
            rels.append(rel)
        qrels.append((f"q{q}", f"q{q}-not-retrieved", rnd.choice([0, 1, 2])))
        ranked[f"q{q}"] = rels
    rnd.shuffle(runs)
    run = pl.DataFrame(runs, schema=["query", "item", "score"], orient="row")
    judged = pl.DataFrame(qrels, schema=["query", "item", "relevance"], orient="row")
    return run, judged, ranked


# duplicates="first" takes the engine's path over every run row, "error" the judged rows
@pytest.mark.parametrize("duplicates", ["error", "first"])
@pytest.mark.parametrize("p", [0.9, 0.5, 0.95, 0.8])
def test_rbp_and_residual_bits_equal_trec_evals_loops(p, duplicates):
    run, qrels, ranked = _data(seed=int(p * 100))
    max_rel = dict(qrels.group_by("query").agg(pl.col("relevance").max()).iter_rows())
    got = rk.evaluate(
        run,
        qrels,
        [f"RBP(p={p})", f"RBP_resid(p={p})"],
        per_query=True,
        duplicates=duplicates,
    )
    values = {(q, m): v for q, m, v in got.iter_rows()}
    for query, rels in ranked.items():
        rbp = _trec_eval_rbp(rels, p, max_rel[query])
        resid = _trec_eval_rbp_resid(rels, p)
        assert values[(query, f"RBP(p={p})")] == rbp, (query, rels)
        assert values[(query, f"RBP_resid(p={p})")] == resid, (query, rels)


def test_the_weights_are_products_not_powers():
    # 0.9 * 0.9 * 0.9 * 0.9 = 0.6561000000000001 (one rounding per product) but
    # 0.9 ** 4 = 0.6561: one judged relevant item at position 5 gives (1 - 0.9) * 0.9^4,
    # 0.06561 (trec_eval) against 0.06560999999999999 with pow
    run = pl.DataFrame({"query": ["q"] * 5, "item": list("abcde"), "score": [5.0, 4, 3, 2, 1]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["e"], "relevance": [1]})
    got = rk.evaluate(run, qrels, ["RBP"])["value"].item()
    assert got == (1.0 - 0.9) * (0.9 * 0.9 * 0.9 * 0.9) == 0.06561
    assert got != (1.0 - 0.9) * 0.9**4
