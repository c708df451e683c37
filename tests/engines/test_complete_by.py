"""complete=True with by=: systems (each group holds the whole run) are averaged over every
qrels query; for groups that split the queries (segments) the same rule applies and a
warning says what it means (issue #16's trap)."""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankeval as rk

QRELS = pl.DataFrame({"query": ["q1", "q2", "q3", "q4"], "item": ["a"] * 4, "relevance": [1] * 4})


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_systems_average_over_every_qrels_query(engine: str) -> None:
    # system A finds a at rank 1 for q1..q3 and misses q4 (not retrieved): AP 1,1,1,0 -> 0.75
    # system B finds it for q1 only and retrieves q2 (b, unjudged): AP 1,0,0,0 -> 0.25
    run = pl.DataFrame({
        "system": ["A", "A", "A", "B", "B"],
        "query": ["q1", "q2", "q3", "q1", "q2"],
        "item": ["a", "a", "a", "a", "b"],
        "score": [1.0] * 5,
    })
    got = rk.evaluate(run, QRELS, ["AP", "NumQ"], by="system", complete=True, engine=engine)
    assert got.sort("system", "measure").rows() == [
        ("A", "AP", 0.75), ("A", "NumQ", 4.0), ("B", "AP", 0.25), ("B", "NumQ", 4.0)
    ]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_segments_that_split_the_queries_are_warned_about(engine: str) -> None:
    # two perfect queries in segment a, one in b: over all 4 qrels queries, a 0.5, b 0.25
    run = pl.DataFrame({
        "segment": ["a", "a", "b"], "query": ["q1", "q2", "q3"], "item": ["a"] * 3,
        "score": [1.0] * 3,
    })
    with pytest.warns(rk.RankevalWarning, match=r"complete=True with by=\['segment'\].*segments"):
        got = rk.evaluate(run, QRELS, ["AP"], by="segment", complete=True, engine=engine)
    assert got.sort("segment")["value"].to_list() == [0.5, 0.25]
    # without complete, each segment averages over its own queries: 1.0 and 1.0
    got = rk.evaluate(run, QRELS, ["AP"], by="segment", engine=engine)
    assert got.sort("segment")["value"].to_list() == [1.0, 1.0]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_segments_carried_by_the_qrels_average_over_their_own_queries(engine: str) -> None:
    """When the qrels carry the by column, it is a query attribute: each segment is
    averaged over its own qrels queries. Segment a: q1, q2 (both found, AP 1) and
    q4 (missing, 0) -> 2/3; segment b: q3 found -> 1."""
    qrels = QRELS.with_columns(segment=pl.Series(["a", "a", "b", "a"]))
    run = pl.DataFrame({
        "segment": ["a", "a", "b"], "query": ["q1", "q2", "q3"], "item": ["a"] * 3,
        "score": [1.0] * 3,
    })
    got = rk.evaluate(run, qrels, ["AP", "NumQ"], by="segment", complete=True, engine=engine)
    assert got.sort("segment", "measure").rows() == [
        ("a", "AP", pytest.approx(2 / 3)), ("a", "NumQ", 3.0),
        ("b", "AP", 1.0), ("b", "NumQ", 1.0),
    ]


def test_a_query_with_two_segments_in_the_qrels_is_an_error() -> None:
    qrels = QRELS.with_columns(segment=pl.Series(["a", "a", "b", "a"]))
    qrels = pl.concat([qrels, qrels.head(1).with_columns(item=pl.lit("z"), segment=pl.lit("b"))])
    run = pl.DataFrame({"segment": ["a"], "query": ["q1"], "item": ["a"], "score": [1.0]})
    with pytest.raises(rk.InputError, match="query attributes"):
        rk.evaluate(run, qrels, ["AP"], by="segment", complete=True)
