"""ties="average" with a relevant item the run misses: AP's norm (R, min) must still divide
by the qrels' R (a mutation survivor: the brute-force test caught it, the fast known
answers did not)."""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankeval as rk

RUN = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [1.0, 1.0]})
# a is relevant and retrieved, c is relevant and not retrieved: R = 2
QRELS = pl.DataFrame({"query": ["q", "q"], "item": ["a", "c"], "relevance": [1, 1]})


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_average_over_the_two_orders_divides_by_r(engine):
    got = rk.evaluate(
        RUN,
        QRELS,
        ["AP", "AP(norm=min)@1", "P@1", "R", "R@1", "R(norm=min)@1", "NumRelRet@1", "Success@1"],
        ties="average",
        engine=engine,
    )
    values = dict(zip(got["measure"], got["value"]))
    # order a, b: AP = (1/1) / 2 = 0.5; order b, a: AP = (1/2) / 2 = 0.25; mean 0.375
    assert values["AP"] == pytest.approx(0.375, abs=1e-15)
    # AP@1 / min(R, 1): a first gives 1, b first gives 0; mean 0.5
    assert values["AP(norm=min)@1"] == pytest.approx(0.5, abs=1e-15)
    # P@1: a first 1, b first 0; R: 1 of 2 relevant retrieved in either order
    assert values["P@1"] == pytest.approx(0.5, abs=1e-15)
    assert values["R"] == pytest.approx(0.5, abs=1e-15)
    # R@1: a first 1/2, b first 0 -> 0.25; R(norm=min)@1: 1/min(2, 1) or 0 -> 0.5
    assert values["R@1"] == pytest.approx(0.25, abs=1e-15)
    assert values["R(norm=min)@1"] == pytest.approx(0.5, abs=1e-15)
    # the expected number of relevant items in the top 1, and of hits: 1/2
    assert values["NumRelRet@1"] == pytest.approx(0.5, abs=1e-15)
    assert values["Success@1"] == pytest.approx(0.5, abs=1e-15)
