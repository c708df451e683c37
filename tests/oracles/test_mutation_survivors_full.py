"""Tests written for mutants of ``measures/`` that survived the full mutation run of
``tests/mutation/run.py`` (session 12; see its RESULTS.md).  Expected values are
independent: trec_eval's C loops redone in plain Python, or hand computations (the
arithmetic in a comment)."""

from __future__ import annotations

import pytest

from polars_rankeval.measures.rbp import powers


@pytest.mark.parametrize("p", [0.9, 0.99, 0.5])
def test_rbp_powers_equal_trec_evals_loop_across_chunks(p):
    # trec_eval m_rbp.c: cur_p = 1.0 at position 1, then cur_p = cur_p * p once per
    # position, one rounding per multiplication.  The loop runs to the fixed point (the
    # first value that times p rounds back to itself: 0 or a subnormal); the table is
    # built 4096 products at a time, so p = 0.9 (~7,000 positions) and 0.99 (~70,000)
    # cross several chunk boundaries.
    expected, cur = [], 1.0
    while True:
        expected.append(cur)
        if cur * p == cur:
            break
        cur *= p
    table = powers(p).to_list()
    assert len(table) == len(expected)
    assert table == expected
