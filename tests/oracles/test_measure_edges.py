"""Measure edges found by mutation testing (tests/mutation/RESULTS.md): RBP_resid of a fully
judged run, and Rprec_mult's refusal of a negative multiple."""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankeval as rk

RUN = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})


# duplicates="first" takes the engine's path over every run row (not only the judged ones)
@pytest.mark.parametrize("duplicates", ["error", "first"])
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_rbp_resid_is_0_when_every_retrieved_item_is_judged(engine, duplicates):
    # trec_eval's rbp_resid: the residual counts only unjudged rows; none here -> 0
    qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "relevance": [1, 0, 2]})
    kw = {"engine": engine, "duplicates": duplicates}
    got = rk.evaluate(RUN, qrels, ["RBP_resid(p=0.5)"], **kw)
    assert got["value"].to_list() == [0.0]
    # c unjudged (position 3): p^n + (1 - p) p^2 = 0.125 + 0.5 * 0.25 = 0.25
    got = rk.evaluate(RUN, qrels.head(2), ["RBP_resid(p=0.5)"], **kw)
    assert got["value"].to_list() == [pytest.approx(0.25, abs=1e-15)]


def test_rprec_mult_refuses_a_negative_multiple():
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    with pytest.raises(rk.MeasureError, match="mult"):
        rk.evaluate(RUN, qrels, ["Rprec_mult(mult=-0.5)"])
    with pytest.raises(rk.MeasureError, match="must be > 0"):
        rk.evaluate(RUN, qrels, ["Rprec_mult(mult=0)"])
