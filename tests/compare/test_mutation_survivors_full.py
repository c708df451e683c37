"""Tests written for mutants of ``_significance.py`` that survived the full mutation run
of ``tests/mutation/run.py`` (session 12; see its RESULTS.md).  Expected values are
computed here independently (every sign pattern enumerated) or by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from polars_rankeval import _significance as sig


def test_exact_randomization_interval_is_the_inverted_exact_test():
    # 6 queries, 2^6 = 64 <= 1000 resamples: the exact test over all 64 sign patterns.
    # The interval holds every shift delta whose exact p(delta) = #{s: |sum(s (d - delta))|
    # >= |sum(d - delta)|} / 64 is above alpha = 0.1, i.e. at least floor(6.4) + 1 = 7
    # extreme patterns.  p(delta) is counted here by enumerating the patterns, so just
    # inside each end p > 0.1 and just outside p <= 0.1 (6 patterns: 0.09375).
    d = np.array([0.3, 0.1, 0.4, -0.1, 0.5, 0.2])
    alpha = 0.1
    patterns = np.array(list(itertools.product([1.0, -1.0], repeat=d.size)))

    def p(delta: float) -> float:
        x = d - delta
        return float(np.mean(np.abs(patterns @ x) >= abs(x.sum()) * (1 - 1e-12)))

    [result] = sig.run_tests(
        d[None, :], test="randomization", alpha=alpha, n_resamples=1000, seed=0
    )
    assert result.p_value == p(0.0)
    low, high = result.ci_low, result.ci_high
    assert np.isfinite(low) and np.isfinite(high) and low < d.mean() < high
    eps = 1e-9
    assert p(low + eps) > alpha and p(high - eps) > alpha
    assert p(low - eps) <= alpha and p(high + eps) <= alpha


def test_every_comparison_gets_an_interval_when_no_shift_can_be_rejected():
    # 1 resample: p = (1 + count) / 2 >= 0.5 > alpha = 0.05, so no shift is ever
    # rejected (k = floor(0.05 * 2 - 1) + 1 = 0) and every interval is (-inf, inf).
    # A pass takes 2^20 // (2^20 // 2000) = 2^20 // 524 = 2001 comparisons of 2000
    # queries: more comparisons than queries, and each still gets its own result.
    assert sig._chunk(2000, 1) == 2001
    d = np.random.default_rng(0).normal(size=(2001, 2000))
    results = sig.run_tests(d, test="randomization", alpha=0.05, n_resamples=1, seed=0)
    assert len(results) == 2001
    assert {(r.ci_low, r.ci_high) for r in results} == {(-np.inf, np.inf)}
    assert {r.p_value for r in results} <= {0.5, 1.0}


def test_bootstrap_interval_is_the_percentile_interval_of_the_drawn_means():
    # The documented resampling, redone here: each of the 2000 resamples draws 12 query
    # indexes uniformly with replacement (rng.integers(0, 12), one row per resample, in
    # one block), its mean is the bootstrap mean; the 95% percentile interval is the
    # 2.5th and 97.5th percentiles of those means (numpy's linear interpolation, as
    # scipy.stats.bootstrap(method="percentile")).
    d = np.random.default_rng(5).normal(0.1, 0.3, size=12)
    index = np.random.default_rng(11).integers(0, d.size, size=(2000, d.size))
    low, high = np.percentile(d[index].mean(axis=1), [2.5, 97.5])
    result = sig.bootstrap(d, alpha=0.05, n_resamples=2000, rng=np.random.default_rng(11))
    assert result.ci_low == pytest.approx(low, rel=1e-12)
    assert result.ci_high == pytest.approx(high, rel=1e-12)


def test_exact_randomization_interval_is_infinite_when_no_shift_can_be_rejected():
    # 5 queries, 2^5 = 32 patterns (exact).  Whatever the shift, the two all-equal
    # patterns (+1 everywhere, -1 everywhere) are as extreme as the data, so the exact
    # p is at least 2 / 32 = 0.0625 > alpha = 0.05: no shift is rejected and the
    # interval is the whole line.  At alpha = 0.1 (> 0.0625) it is finite.
    d = np.array([0.3, 0.1, 0.4, -0.1, 0.5])
    [wide] = sig.run_tests(d[None, :], test="randomization", alpha=0.05, n_resamples=100, seed=0)
    assert (wide.ci_low, wide.ci_high) == (-np.inf, np.inf)
    [finite] = sig.run_tests(d[None, :], test="randomization", alpha=0.1, n_resamples=100, seed=0)
    assert np.isfinite(finite.ci_low) and np.isfinite(finite.ci_high)


def test_sampled_randomization_interval_where_alpha_times_resamples_is_almost_whole():
    # 38 random sign patterns: p = (1 + count) / 39, above alpha = 0.05 from count = 1
    # (2 / 39 = 0.0513; 1 / 39 = 0.0256), i.e. k = floor(0.05 * 39 - 1) + 1 = 1 (0.05 * 39
    # = 1.95 is just below a whole number, where an off-by-one in 1 + total shows).  The
    # interval is every shift the same test (same seed) does not reject: just inside each
    # end p > alpha, just outside p <= alpha.
    d = np.random.default_rng(7).normal(0.05, 0.2, size=20)
    alpha = 0.05

    def test(shift: float) -> sig.TestResult:
        [result] = sig.run_tests(
            (d - shift)[None, :], test="randomization", alpha=alpha, n_resamples=38, seed=3
        )
        return result

    result = test(0.0)
    low, high = result.ci_low, result.ci_high
    assert np.isfinite(low) and np.isfinite(high) and low < d.mean() < high
    eps = 1e-9 * (high - low)
    assert test(low + eps).p_value > alpha and test(high - eps).p_value > alpha
    assert test(low - eps).p_value <= alpha and test(high + eps).p_value <= alpha
