"""Tests written for mutants of ``_significance.py`` that survived
``tests/mutation/run.py`` (see its RESULTS.md).  Expected values are hand computations
(the arithmetic in a comment) or scipy's."""

from __future__ import annotations

import numpy as np
import pytest

from polars_rankeval import _significance as sig


def test_sampled_randomization_p_counts_the_observed_pattern():
    # n = 20 > log2(999): random sign flips, p = (1 + extreme) / (1 + resamples) (the
    # observed pattern counts as one of the resamples, so p is never 0; Phipson & Smyth).
    # All differences 0: every pattern's mean is 0, as extreme as the observed 0:
    # p = (1 + 999) / (1 + 999) = 1
    zeros = sig.randomization(np.zeros(20), n_resamples=999, rng=np.random.default_rng(0))
    assert zeros == 1.0
    # All differences 1: only the two all-equal sign patterns (+-1 everywhere) reach
    # |mean| >= 1; 999 random draws of 20 fair signs meet one with probability
    # about 999 * 2 / 2^20 = 0.2% (seed 0 meets none): p = (1 + 0) / (1 + 999)
    ones = sig.randomization(np.ones(20), n_resamples=999, rng=np.random.default_rng(0))
    assert ones == 1 / 1000


def test_t_quantile_refuses_q_outside_0_1():
    # the 0- and 1-quantiles of Student's t are -inf and +inf, and q < 0 or q > 1 is
    # no probability: refused, not approximated by an ever-growing bisection bracket
    for q in (0.0, -0.5, 1.0, 1.5):
        with pytest.raises(ValueError, match="quantile must be in"):
            sig.t_ppf(q, 5)


def test_every_comparison_is_tested_when_a_pass_holds_one():
    # 2^23 resamples fill the kept-means budget: one comparison per pass, so 3
    # comparisons of 2 queries take 3 passes.  2^2 = 4 <= resamples: the exact test over
    # the 4 sign patterns, p = #{|mean*| >= |mean|} / 4:
    # [0.1, 0.3]: means 0.2, 0.1, -0.1, -0.2 -> 2 reach 0.2 -> 0.5
    # [0.1, -0.3]: means -0.1, -0.2, 0.2, 0.1 -> all 4 reach 0.1 -> 1.0
    # [0.2, 0.2]: means 0.2, 0, 0, -0.2 -> 2 -> 0.5
    d = np.array([[0.1, 0.3], [0.1, -0.3], [0.2, 0.2]])
    results = sig.run_tests(d, test="randomization", alpha=0.05, n_resamples=2**23, seed=0)
    assert [r.p_value for r in results] == [0.5, 1.0, 0.5]


@pytest.mark.parametrize("n_resamples", [20, 999])
def test_sampled_randomization_interval_is_the_inverted_test(n_resamples):
    # The interval is every shift delta that the same test (the same sign patterns: the
    # same seed) does not reject on d - delta, i.e. p(delta) > alpha.  So just inside
    # each end p > alpha, just outside p <= alpha.  20 queries, so 2^20 > resamples:
    # random sign flips.  With 20 resamples and alpha 0.05, p = (1 + count) / 21 > 0.05
    # needs a single extreme pattern: the interval is finite unless a drawn pattern is
    # all +1 or all -1 (chance 20 * 2 / 2^20).
    d = np.random.default_rng(7).normal(0.05, 0.2, size=20)
    alpha = 0.05

    def test(shift: float) -> sig.TestResult:
        [result] = sig.run_tests(
            (d - shift)[None, :], test="randomization", alpha=alpha,
            n_resamples=n_resamples, seed=3,
        )  # fmt: skip
        return result

    result = test(0.0)
    low, high = result.ci_low, result.ci_high
    assert np.isfinite(low) and np.isfinite(high) and low < d.mean() < high
    eps = 1e-9 * (high - low)
    assert test(low + eps).p_value > alpha and test(high - eps).p_value > alpha
    assert test(low - eps).p_value <= alpha and test(high + eps).p_value <= alpha
