"""Edges of the paired tests that the scipy comparisons do not reach (mutation survivors):
two paired values, infinite or overflowing t statistics, and the bootstrap p-value's
exact formula (1 + extreme) / (1 + resamples)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_rankeval import _significance as sig
from tests.helpers import LazyModule

pytest.importorskip("scipy")

scipy_stats = LazyModule("scipy.stats")  # imported by the first test that uses it


def test_two_paired_values_are_enough():
    # n = 2: one degree of freedom; scipy agrees
    x, y = np.array([0.2, 0.5]), np.array([0.4, 0.6])
    ours = sig.paired_t(y - x, alpha=0.05)
    assert ours.p_value == pytest.approx(scipy_stats.ttest_rel(y, x).pvalue, rel=1e-12)
    with pytest.raises(ValueError, match="at least 2"):
        sig.paired_t(np.array([0.1]), alpha=0.05)


@pytest.mark.parametrize("df", [1, 5, 100])
def test_infinite_and_overflowing_t_give_p_0(df):
    assert sig.t_two_sided_p(math.inf, df) == 0.0
    assert sig.t_two_sided_p(-math.inf, df) == 0.0
    # t * t overflows to inf, so df / (df + t^2) is exactly 0: the tail is 0 (scipy: 0)
    assert sig.t_two_sided_p(1e200, df) == 0.0 == 2 * scipy_stats.t.sf(1e200, df)
    assert math.isnan(sig.t_two_sided_p(math.nan, df))
    assert sig.t_two_sided_p(0.0, df) == 1.0


def test_bootstrap_p_value_formula():
    # constant differences: every bootstrap mean equals the observed mean 0.5, so no
    # |mean* - 0.5| reaches |0.5|: p = (1 + 0) / (1 + 99) = 0.01 exactly
    rng = np.random.default_rng(0)
    result = sig.bootstrap(np.array([0.5, 0.5, 0.5]), alpha=0.05, n_resamples=99, rng=rng)
    assert result.p_value == 0.01
    assert result.ci_low == result.ci_high == 0.5
    # differences all 0: every resample is extreme: p = (1 + 99) / (1 + 99) = 1
    rng = np.random.default_rng(0)
    result = sig.bootstrap(np.zeros(4), alpha=0.05, n_resamples=99, rng=rng)
    assert result.p_value == 1.0


@pytest.mark.parametrize("df", [2, 10, 1000])
@pytest.mark.parametrize("q", [0.55, 0.6, 0.7, 0.3])
def test_t_quantiles_below_1_match_scipy(q, df):
    # quantiles with |t| < 1: the bisection's stopping rule is relative to t itself
    assert sig.t_ppf(q, df) == pytest.approx(scipy_stats.t.ppf(q, df), rel=1e-12)


@pytest.mark.parametrize("q", [0.505, 0.51])
def test_t_quantiles_near_the_median_equal_the_closed_forms_of_df_1_and_2(q):
    # small quantiles (|t| ~ 0.02-0.03), where the bisection's stopping rule decides the
    # last digits; the expected values are the closed forms, not scipy: df = 1 is the
    # Cauchy distribution, t = tan(pi (q - 1/2)); df = 2 has t = (2q - 1) / sqrt(2q(1 - q))
    cauchy = math.tan(math.pi * (q - 0.5))
    two = (2.0 * q - 1.0) / math.sqrt(2.0 * q * (1.0 - q))
    assert sig.t_ppf(q, 1) == pytest.approx(cauchy, rel=5e-13, abs=0)
    assert sig.t_ppf(q, 2) == pytest.approx(two, rel=5e-13, abs=0)


@pytest.mark.parametrize("df", [1, 2, 7.5, 1000])
def test_the_t_median_is_exactly_0(df):
    # Student's t is symmetric about 0, so its median is 0 for every df (a closed form,
    # not scipy); the bisection would give a tiny nonzero value (about -6e-61)
    median = sig.t_ppf(0.5, df)
    assert median == 0.0 and math.copysign(1.0, median) == 1.0


@pytest.mark.parametrize("offset", [1e-4, 1e-6, 1e-7, 1e-9, 1e-12, -1e-6, -1e-15])
def test_t_quantiles_within_1e_4_of_the_median_keep_their_digits(offset):
    # where the two-sided tail 2 min(q, 1 - q) is within 2e-4 of 1, a double holds few of
    # its digits (the bisection on it was off by 1.8e-3 at q = 0.500001, df = 1000, and
    # by 5% at 0.5000001); the closed forms of df 1 and 2 (not scipy, which is off by 1%
    # for df = 1 at 0.5 - 1e-15), and scipy for df = 1000
    q = 0.5 + offset
    cauchy = math.tan(math.pi * (q - 0.5))
    two = (2.0 * q - 1.0) / math.sqrt(2.0 * q * (1.0 - q))
    assert sig.t_ppf(q, 1) == pytest.approx(cauchy, rel=1e-14, abs=0)
    assert sig.t_ppf(q, 2) == pytest.approx(two, rel=1e-14, abs=0)
    assert sig.t_ppf(q, 1000) == pytest.approx(scipy_stats.t.ppf(q, 1000), rel=1e-12, abs=0)


def test_randomization_enumerates_every_pattern_when_n_resamples_is_exactly_2_to_the_n():
    # n = 3, 8 resamples: all 8 sign patterns of (0.1, 0.2, 0.3); only all-plus and
    # all-minus reach |mean| 0.2, so p = 2 / 8 exactly (hand count; random flips would
    # give (1 + count) / 9)
    d = np.array([0.1, 0.2, 0.3])
    assert sig.randomization(d, n_resamples=8, rng=np.random.default_rng(0)) == 0.25


def test_an_unknown_correction_is_refused_even_for_one_p_value():
    with pytest.raises(ValueError, match="unknown correction"):
        sig.adjust(np.array([0.2]), "hochberg")


@pytest.mark.parametrize("t", [30.0, 141.4, 1414.2, 1e4])
def test_t_p_values_far_in_the_tail_equal_the_closed_forms_of_df_1_and_2(t):
    # the two-sided tail for large t, where the p-value is small (6e-5 down to 1e-8) and
    # the incomplete beta must use its direct continued fraction: the complement,
    # 1 - (something close to 1), keeps few digits (the branch switch moved to
    # (a - 1) / (a + b + 2) was off by 5.8e-5 relative at df 2, t 1414); the expected
    # values are the closed forms, not scipy, written without cancellation:
    # df = 1 (Cauchy): p = (2 / pi) atan(1 / t); df = 2: p = 1 - t / s = 2 / (s (s + t)),
    # s = sqrt(t^2 + 2)
    s = math.sqrt(t * t + 2.0)
    assert sig.t_two_sided_p(t, 1) == pytest.approx(2.0 / math.pi * math.atan(1.0 / t), rel=1e-13, abs=0)
    assert sig.t_two_sided_p(t, 2) == pytest.approx(2.0 / (s * (s + t)), rel=1e-13, abs=0)


@pytest.mark.parametrize("tail", [1e-12, 1e-9, 1e-5, 2.0**-30])
def test_t_quantiles_far_in_the_tails_equal_the_closed_forms_of_df_1_and_2(tail):
    # q = tail and q = 1 - tail (2^-30 makes 1 - q exact): there the two-sided tail is
    # compared directly, not the central probability, which is within 2 x tail of 1 and
    # would keep few of its digits (comparing it everywhere was off by 5.6e-6 relative at
    # q = 1e-12, df 1); closed forms written without cancellation: df = 1 (Cauchy):
    # t = -1 / tan(pi q) for q < 1/2; df = 2: t = (2q - 1) / sqrt(2q (1 - q))
    for q, sign in ((tail, -1.0), (1.0 - tail, 1.0)):
        small = min(q, 1.0 - q)
        cauchy = sign / math.tan(math.pi * small)
        two = sign * (1.0 - 2.0 * small) / math.sqrt(2.0 * small * (1.0 - small))
        assert sig.t_ppf(q, 1) == pytest.approx(cauchy, rel=1e-12, abs=0)
        assert sig.t_ppf(q, 2) == pytest.approx(two, rel=1e-12, abs=0)


@pytest.mark.parametrize("df", [1, 2, 7.5, 1000, 1e6])
@pytest.mark.parametrize("t", [0.0, -0.0, 5e-324, 1e-160])
def test_the_two_sided_p_value_of_t_0_is_exactly_1(t, df):
    # P(|T| >= 0) = 1 for every df (a closed form, not scipy), and never more: the tail
    # is a probability, uncapped (t = 0 gives x = 1, y = 0, the incomplete beta's end)
    assert sig.t_two_sided_p(t, df) == 1.0


@settings(max_examples=300, deadline=None)
@given(
    t=st.floats(allow_nan=False, min_value=-1e300, max_value=1e300),
    df=st.floats(min_value=1.0, max_value=1e7),
)
def test_the_two_sided_p_value_is_a_probability_without_a_cap(t, df):
    # t_two_sided_p has no min(1, .) since session 18: the incomplete beta itself must stay
    # in [0, 1] for every t and df, and fall as |t| grows
    p = sig.t_two_sided_p(t, df)
    assert 0.0 <= p <= 1.0
    assert sig.t_two_sided_p(2 * t, df) <= p
