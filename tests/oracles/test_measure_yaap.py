"""YAAP (trec_eval ``yaap``, m_yaap.c) by hand; the real trec_eval binary checks it on
random data through the command line (``tests/cli/_grid.py``, flag set ``yaap``)."""

from __future__ import annotations

import math

import polars as pl
import pytest

import polars_rankeval as rk

RUN = pl.DataFrame(
    {"query": ["q1"] * 4 + ["q2"] * 2, "item": ["a", "b", "c", "d", "x", "y"],
     "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0]}
)  # fmt: skip
QRELS = pl.DataFrame(
    {"query": ["q1", "q1", "q1", "q2", "q3"], "item": ["a", "c", "z", "n", "m"],
     "relevance": [1, 2, 1, 0, 1]}
)  # fmt: skip


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_yaap_by_hand(engine: str) -> None:
    out = rk.evaluate(RUN, QRELS, ["YAAP", "YAAP@2", "YAAP(rel=2)"], per_query=True,
                      complete=True, engine=engine)  # fmt: skip
    got = {(q, m): v for q, m, v in out.iter_rows()}
    # q1: R = 3 (a, c, z); relevant at positions 1 and 3: S = 1/1 + 2/3 = 5/3
    assert got["q1", "YAAP"] == pytest.approx(math.log((1 + 5 / 3) / (1 + 3 - 5 / 3)), abs=1e-15)
    # @2: only a counts: S = 1
    assert got["q1", "YAAP@2"] == pytest.approx(math.log(2 / 3), abs=1e-15)
    # rel=2: R = 1 (c), at position 3 as the 1st: S = 1/3
    assert got["q1", "YAAP(rel=2)"] == pytest.approx(math.log((4 / 3) / (1 + 1 - 1 / 3)))
    # q2: R = 0, nothing relevant: log(1 / 1) = 0; q3 (not in the run): log(1 / (1 + 1))
    assert got["q2", "YAAP"] == 0.0
    assert got["q3", "YAAP"] == pytest.approx(math.log(1 / 2), abs=1e-15)


def test_yaap_is_monotonic_with_ap_on_one_query() -> None:
    # Robertson's property: for one query, a higher AP gives a higher YAAP (S = AP * R)
    qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "relevance": [1] * 3})
    runs = [
        pl.DataFrame({"query": ["q"] * 5, "item": list(order), "score": [5.0, 4, 3, 2, 1]})
        for order in ("abcde", "adbce", "deabc", "dexab")
    ]
    pairs = [tuple(rk.evaluate(r, qrels, ["AP", "YAAP"])["value"]) for r in runs]
    assert pairs == sorted(pairs, reverse=True)
    assert len({ap for ap, _ in pairs}) == len(pairs)
