"""Tests written for the survivors of ``tests/mutation/run.py``'s run of
``measures/rbp.py``, ``rbp_resid.py``, ``err.py`` and ``infap.py`` (session 19, see its
RESULTS.md).  Expected values are hand computations from the measures' definitions (the
arithmetic in a comment: Moffat & Zobel 2008 for RBP, trec_eval 10's m_rbp_resid.c for
the residual, Chapelle et al. 2009 / gdeval for ERR, Yilmaz & Aslam 2006 / trec_eval's
m_infap.c for infAP), never the code under test's output.
"""

from __future__ import annotations

import polars as pl
import pytest

from polars_rankeval import evaluate
from polars_rankeval._errors import MeasureError

RUN = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
QRELS = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})


@pytest.mark.parametrize("family", ["RBP", "RBP_resid"])
@pytest.mark.parametrize("p", ["0", "1", "-0.5", "1.5"])
def test_rbp_persistence_is_a_probability_strictly_between_0_and_1(family, p):
    # Moffat & Zobel's p is the probability of going on to the next item; p = 1 gives
    # the weight (1 - p) = 0 to every item and p = 0 looks at position 1 only (0^0): the
    # parameter is declared open on both sides (0 < p < 1), so these are refused by name
    with pytest.raises(MeasureError, match=f"p must be [<>] [01].0, got {p}"):
        evaluate(RUN, QRELS, [f"{family}(p={p})"])


@pytest.mark.parametrize("duplicates", ["error", "first"])
def test_rbp_resid_of_a_query_missing_from_the_run_is_0_with_complete(duplicates):
    # trec_eval 10.0 -c -q -m rbp_resid -m rbp on these files prints q 0.9000 / 0.1000
    # and r 0.0000 / 0.0000 (m_rbp_resid.c: no retrieved row, so none unjudged -> 0).
    # By hand (p = 0.9): q retrieves a (judged 1) and b (unjudged, position 2): p^2 +
    # (1 - p) * p^1 = 0.81 + 0.09 = 0.9; RBP = 0.1 * 1 = 0.1.  r is in the qrels only:
    # 0, as the README says of a query the run misses under complete=True
    run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [3.0, 2.0]})
    qrels = pl.DataFrame(
        {"query": ["q", "r", "r"], "item": ["a", "x", "y"], "relevance": [1, 1, 0]}
    )
    got = evaluate(
        run, qrels, ["RBP_resid", "RBP"], per_query=True, complete=True, duplicates=duplicates
    )
    values = {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}
    assert values[("r", "RBP_resid")] == 0.0
    assert values[("r", "RBP")] == 0.0
    assert values[("q", "RBP_resid")] == pytest.approx(0.9, abs=1e-15)
    assert values[("q", "RBP")] == pytest.approx(0.1, abs=1e-15)


@pytest.mark.parametrize("bad_rank", [0, -1])
def test_rbp_of_a_group_with_a_non_positive_rank_is_null(bad_rank):
    # polars_rankeval.expr's contract: a group whose rows cannot be a ranking (here a
    # rank below 1) gives null, never an impossible value or an error; the weights are
    # read by position - 1 >= 0 only.  Query 2 is a ranking: relevant at rank 1 only,
    # RBP(p=0.5) = (1 - 0.5) * 1 * 0.5^0 = 0.5; every row judged: RBP_resid = 0
    import polars_rankeval.expr as rx

    frame = pl.DataFrame(
        {"query": [1, 1, 2, 2], "rank": [bad_rank, 1, 1, 2], "relevant": [1, 1, 1, 0]}
    )
    got = (
        frame.group_by("query")
        .agg(rx.measure("RBP(p=0.5)").alias("rbp"), rx.measure("RBP_resid(p=0.5)").alias("resid"))
        .sort("query")
    )
    assert got.rows() == [(1, None, None), (2, 0.5, 0.0)]


def test_rbp_graded_gain_is_not_scaled_up_when_the_top_level_is_below_1():
    # the graded gain divides by max(1, the query's highest level) (trec_eval m_rbp.c
    # scales only when that level is above 1): judged a:0.5 only, run a b, p = 0.5:
    # RBP = (1 - 0.5) * (0.5 / 1) * 0.5^0 = 0.25, not 0.5 (0.5 / 0.5 = gain 1)
    run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [0.5]})
    got = evaluate(run, qrels, ["RBP(p=0.5)"])["value"].item()
    assert got == pytest.approx(0.25, abs=1e-15)


def _m_rbp_loop(rels_in_rank_order: list[int], p: float) -> float:
    # trec_eval 10's m_rbp.c, line by line: graded gains scaled by the highest level when
    # it is above 1, sum += gain * cur_p in rank order, cur_p *= p, then (1 - p) * sum
    top = max(max(rels_in_rank_order), 1)
    total, cur_p = 0.0, 1.0
    for rel in rels_in_rank_order:
        if rel > 0:
            total += rel / top * cur_p
        cur_p = cur_p * p
    return (1.0 - p) * total


def test_rbp_adds_its_terms_in_rank_order_whatever_the_row_order():
    # polars_rankeval.expr over a group whose rows come in reverse rank order: the terms
    # are added in rank order, as m_rbp.c's loop adds them.  Relevance 1, 3, 1 at ranks
    # 1, 2, 3 (p = 0.9): 1/3 + 0.9 + 0.81/3 in that order rounds to 0.15033333333333332
    # after (1 - p) *, the reverse order (row order here) to 0.1503333333333333
    import polars_rankeval.expr as rx

    expected = _m_rbp_loop([1, 3, 1], 0.9)
    assert expected == 0.15033333333333332  # the case is there: the order shows
    reversed_rows = pl.DataFrame({"rank": [3, 2, 1], "relevant": [1, 3, 1]})
    assert reversed_rows.select(rx.measure("RBP")).item() == expected
    assert reversed_rows.select(rx.measure("RBP(p=0.9)")).item() == expected
