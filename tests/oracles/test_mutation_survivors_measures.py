"""Tests written for the measures target's survivors of ``tests/mutation/run.py`` (session
17's run of every measure module, see its RESULTS.md).  Expected values are hand
computations (the arithmetic in a comment), never the code under test's output.
"""

from __future__ import annotations

import polars as pl
import pytest

from polars_rankeval import evaluate


def test_precision_norm_ret_under_average_ties_with_fewer_retrieved_than_k():
    # two retrieved items tie; one of them is relevant.  Either order: 1 relevant in the top 5.
    # P@5 divides by k = 5 -> 0.2; P(norm=ret)@5 by the 2 retrieved -> 0.5 (ties="average"
    # too: the order of a tie group does not change which rows lie within the cutoff)
    run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    for ties in ("trec_eval", "average"):
        got = evaluate(run, qrels, ["P@5", "P(norm=ret)@5"], ties=ties)
        assert got["value"].to_list() == pytest.approx([0.2, 0.5], abs=1e-12), ties
