"""Scores are compared as trec_eval compares them: in single precision.

trec_eval keeps a run's scores in a C ``float`` (trec_format.h: ``float sim``), so two
scores that differ only beyond float32 precision tie, and the tie is broken by item id
descending.  pytrec_eval (the same C code) is the oracle.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
import pytrec_eval

import polars_rankeval as rk


def runs_that_tie_only_in_float32(queries: int = 50) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(3)
    rows = []
    for q in range(queries):
        high = float(np.float32(rng.random()))
        low = float(np.nextafter(high, 0.0))  # lower as a double, equal as a float32
        assert np.float32(low) == np.float32(high) and low < high
        rows += [(f"q{q}", "a", high), (f"q{q}", "b", low), (f"q{q}", "c", high - 0.5)]
    run = pl.DataFrame(rows, schema=["query", "item", "score"], orient="row")
    qrels = pl.DataFrame({"query": [f"q{q}" for q in range(queries)], "item": ["a"] * queries,
                          "relevance": [1] * queries})
    return run, qrels


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_scores_equal_in_float32_tie_and_break_by_item_like_trec_eval(engine):
    run, qrels = runs_that_tie_only_in_float32()
    ours = rk.evaluate(run, qrels, ["RR", "AP", "nDCG"], per_query=True, engine=engine)
    as_dicts: dict[str, dict[str, float]] = {}
    for query, item, score in run.iter_rows():
        as_dicts.setdefault(query, {})[item] = score
    judged = {q: {i: r} for q, i, r in qrels.iter_rows()}
    oracle = pytrec_eval.RelevanceEvaluator(judged, {"recip_rank", "map", "ndcg"}).evaluate(
        as_dicts
    )
    names = {"RR": "recip_rank", "AP": "map", "nDCG": "ndcg"}
    for query, measure, value in ours.iter_rows():
        assert value == pytest.approx(oracle[query][names[measure]], abs=1e-12)
    # "b" wins the float32 tie on item order, so the relevant "a" is second everywhere
    assert set(ours.filter(pl.col("measure") == "RR")["value"]) == {0.5}


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_scores_beyond_float_range_tie_at_infinity_like_trec_eval(engine):
    """1e308 and 1e39 are both inf in a C float: they tie, b (item descending) first.
    The DuckDB engine raised a conversion error on them before."""
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [1e308, 1e39, -1e308]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    oracle = pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, {"recip_rank"}).evaluate(
        {"q": {"a": 1e308, "b": 1e39, "c": -1e308}})
    ours = rk.evaluate(run, qrels, ["RR"], engine=engine)["value"].item()
    assert ours == oracle["q"]["recip_rank"] == 0.5
