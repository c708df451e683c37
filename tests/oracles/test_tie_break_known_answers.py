"""trec_eval's tie-break, as known answers through every engine.

trec_eval sorts a query's rows by score descending (scores compared as C floats, i.e.
float32), ties by docno descending with ``strcmp`` (byte order, so "9" > "10" > "1" and
"b" > "B").  Each query below puts its only relevant item where that order puts it; an
item-ascending tie-break, a numeric comparison of integer ids or a float64 comparison of
the scores moves it, and the reciprocal rank (1 / its position) changes.  The expected
positions are worked out by hand in the comments.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import polars_rankeval as rk

RUN = pl.DataFrame(
    {
        "query": ["q1"] * 4 + ["q2"] * 3 + ["q3"] * 2 + ["q4"] * 2,
        "item": ["a", "b", "c", "d", "9", "10", "100", "B", "b", "x", "y"],
        "score": [1.0, 1.0, 1.0, 2.0, 0.5, 0.5, 0.5, 3.0, 3.0, 0.30000001, 0.3],
    }
)
QRELS = pl.DataFrame(
    {"query": ["q1", "q2", "q3", "q4"], "item": ["a", "10", "B", "x"], "relevance": [1] * 4}
)
EXPECTED_RR = {
    # d (score 2) first, then the tie c > b > a: a is 4th (ascending ties: 2nd)
    "q1": 1 / 4,
    # "9" > "100" > "10" in byte order: "10" is 3rd (ascending: 1st; numeric desc: 2nd)
    "q2": 1 / 3,
    # "b" (0x62) > "B" (0x42): B is 2nd (ascending: 1st)
    "q3": 1 / 2,
    # 0.30000001 and 0.3 are the same float32: a tie, "y" > "x", x is 2nd (float64: 1st)
    "q4": 1 / 2,
}
# AP = RR here (one relevant item each); P@1 = 1 only where the relevant item is first
MEASURES = ["RR", "AP", "P@1", "nDCG"]


def _per_query(frame: pl.DataFrame) -> dict[tuple[str, str], float]:
    return {(q, m): v for q, m, v in frame.select("query", "measure", "value").iter_rows()}


def _evaluate(how: str, run: pl.DataFrame) -> pl.DataFrame:
    if how == "eager":
        return rk.evaluate(run, QRELS, MEASURES, per_query=True)
    if how == "lazy":
        out = rk.evaluate(run.lazy(), QRELS.lazy(), MEASURES, per_query=True)
        return out.collect()
    if how == "streaming":
        out = rk.evaluate(run.lazy(), QRELS.lazy(), MEASURES, per_query=True)
        return out.collect(engine="streaming")
    return rk.evaluate(run, QRELS, MEASURES, per_query=True, engine="duckdb")


def _check(values: dict[tuple[str, str], float]) -> None:
    for query, rr in EXPECTED_RR.items():
        assert values[(query, "RR")] == pytest.approx(rr, abs=1e-15), query
        assert values[(query, "AP")] == pytest.approx(rr, abs=1e-15), query
        assert values[(query, "P@1")] == 0.0, query
        # one relevant item at position p: nDCG = (1 / log2(p + 1)) / (1 / log2 2)
        position = round(1 / rr)
        assert values[(query, "nDCG")] == pytest.approx(1 / math.log2(position + 1)), query


@pytest.mark.parametrize("how", ["eager", "lazy", "streaming", "duckdb"])
def test_ties_are_broken_by_item_descending_in_byte_order(how):
    _check(_per_query(_evaluate(how, RUN)))


@pytest.mark.parametrize("how", ["eager", "lazy", "streaming", "duckdb"])
def test_integer_items_are_compared_as_text(how):
    # q2 with integer ids: 9, 10, 100 tied, 10 relevant; as text "9" > "100" > "10"
    run = pl.DataFrame({"query": ["q2"] * 3, "item": [9, 10, 100], "score": [0.5] * 3})
    qrels = pl.DataFrame({"query": ["q2"], "item": [10], "relevance": [1]})
    if how == "duckdb":
        out = rk.evaluate(run, qrels, ["RR"], per_query=True, engine="duckdb")
    else:
        lazy = rk.evaluate(run.lazy(), qrels.lazy(), ["RR"], per_query=True)
        out = lazy.collect(engine="streaming" if how == "streaming" else "auto")
    assert out["value"].to_list() == [pytest.approx(1 / 3, abs=1e-15)]


def test_the_rank_column_orders_when_there_is_no_score():
    # rank ascending; equal ranks tie and are broken by item descending too
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "rank": [2, 1, 1]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["b"], "relevance": [1]})
    for engine in ("polars", "duckdb"):
        out = rk.evaluate(run, qrels, ["RR"], per_query=True, engine=engine)
        # rank 1: c, b (c > b), then a: b is 2nd
        assert out["value"].to_list() == [0.5], engine
