"""Tests written for the measures target's survivors of ``tests/mutation/run.py`` (session
17's run of every measure module, see its RESULTS.md).  Expected values are hand
computations (the arithmetic in a comment), never the code under test's output.
"""

from __future__ import annotations

import polars as pl
import pytest

from polars_rankeval import evaluate
from polars_rankeval._errors import MeasureError


def test_precision_norm_ret_under_average_ties_with_fewer_retrieved_than_k():
    # two retrieved items tie; one of them is relevant.  Either order: 1 relevant in the top 5.
    # P@5 divides by k = 5 -> 0.2; P(norm=ret)@5 by the 2 retrieved -> 0.5 (ties="average"
    # too: the order of a tie group does not change which rows lie within the cutoff)
    run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    for ties in ("trec_eval", "average"):
        got = evaluate(run, qrels, ["P@5", "P(norm=ret)@5"], ties=ties)
        assert got["value"].to_list() == pytest.approx([0.2, 0.5], abs=1e-12), ties


def test_bpref_without_judged_non_relevant_items():
    # qrels judge a and c relevant, nothing non-relevant (N = 0); the run retrieves a and
    # the unjudged b.  trec_eval's bpref adds 1 for a relevant item with no judged
    # non-relevant item above it (it never divides by min(N, R) then): 1 / R = 1 / 2
    run = pl.DataFrame({"query": ["q", "q"], "item": ["b", "a"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "c"], "relevance": [1, 1]})
    assert evaluate(run, qrels, ["Bpref"])["value"].to_list() == [0.5]


def test_bpref_skips_unjudged_items_above_a_relevant_one():
    # b (unjudged) ranks above a (relevant); x is judged non-relevant, not retrieved:
    # R = 1, N = 1.  Unjudged items are skipped: no judged non-relevant item above a ->
    # 1 - 0 / min(1, 1) = 1 (counting b as non-relevant would give 1 - 1 / 1 = 0).  No
    # duplicates here, so duplicates="first" is the same; it keeps the unjudged rows (the
    # default drops them before the measures, see Judged.judged_only)
    run = pl.DataFrame({"query": ["q", "q"], "item": ["b", "a"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "x"], "relevance": [1, 0]})
    for duplicates in ("error", "first"):
        got = evaluate(run, qrels, ["Bpref"], duplicates=duplicates)
        assert got["value"].to_list() == [1.0], duplicates


def test_bpref_takes_no_cutoff():
    # trec_eval's bpref has no cutoff (README's measure table: no @k); Bpref@5 is refused
    run = pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    with pytest.raises(MeasureError, match="Bpref takes no @k cutoff"):
        evaluate(run, qrels, ["Bpref@5"])
