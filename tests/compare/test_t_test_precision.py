"""The README's figure for the paired t-test: equal to ``scipy.stats.ttest_rel`` to 2e-13.

``test_compare.py`` checks the same to a relative 1e-9, which a less precise incomplete
beta function would still pass; here the absolute difference of the p-value and of the
interval bounds is held to the figure the README states, over many random cases (the
largest difference measured: 1.4e-14 for p, 4.4e-16 for the bounds).
"""

from __future__ import annotations

import numpy as np
import pytest

from polars_rankeval import _significance as sig
from tests.helpers import LazyModule

pytest.importorskip("scipy")

scipy_stats = LazyModule("scipy.stats")  # imported by the first test that uses it


@pytest.mark.parametrize("n", [3, 5, 10, 30, 200, 1000])
def test_paired_t_equals_ttest_rel_to_2e_13(n):
    for seed in range(20):
        rng = np.random.default_rng(seed)
        x = rng.random(n)
        y = np.clip(x + rng.normal(0.03, 0.15, n), 0, 1)
        ours = sig.paired_t(y - x, alpha=0.05)
        theirs = scipy_stats.ttest_rel(y, x)
        interval = theirs.confidence_interval(confidence_level=0.95)
        assert abs(ours.p_value - theirs.pvalue) <= 2e-13, (n, seed)
        assert abs(ours.ci_low - interval.low) <= 2e-13, (n, seed)
        assert abs(ours.ci_high - interval.high) <= 2e-13, (n, seed)
