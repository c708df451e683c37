"""Paired significance tests over per-query differences, in numpy.

Every test takes the vector ``d`` of per-query differences (system - baseline) over
the queries both systems were evaluated on.  Resampling tests work on a
resamples x queries matrix, in blocks that bound memory; there is no per-query Python
loop.  Student's t distribution is computed here (regularized incomplete beta by
continued fraction) so that scipy stays a test-only dependency; the tests check it
against ``scipy.stats``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "CORRECTIONS",
    "TESTS",
    "TestResult",
    "adjust",
    "bootstrap",
    "effect_size",
    "paired_t",
    "randomization",
    "run_tests",
    "t_ppf",
    "t_two_sided_p",
]

TESTS = ("t", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "bh")

_BLOCK_CELLS = 2_000_000  # resamples x queries per block: 16 MB of float64


@dataclass(frozen=True)
class TestResult:
    """Two-sided p-value and a (1 - alpha) confidence interval of the mean difference."""

    p_value: float
    ci_low: float
    ci_high: float


# ---------------------------------------------------------------- Student's t


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom."""
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    return min(1.0, _betainc(df / 2.0, 0.5, df / (df + t * t)))


def t_ppf(q: float, df: float) -> float:
    """The q-quantile of Student's t (q in (0, 1)), by bisection on the CDF."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"quantile must be in (0, 1), got {q}")
    if q == 0.5:
        return 0.0
    target = 2.0 * min(q, 1.0 - q)  # two-sided tail probability of |t|
    low, high = 0.0, 1.0
    while t_two_sided_p(high, df) > target:
        high *= 2.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if t_two_sided_p(mid, df) > target:
            low = mid
        else:
            high = mid
        if high - low <= 1e-15 * high:
            break
    value = (low + high) / 2.0
    return value if q > 0.5 else -value


# ---------------------------------------------------------------- tests
#
# The resampling tests take one comparison (``d``: n differences) or a batch of
# comparisons over the same queries (``d``: C x n).  A batch shares its random draws
# (one resamples x queries matrix, multiplied by all C rows at once); since each call
# starts from the same seed, a comparison gets the same result alone or in a batch.


def _check(d: np.ndarray) -> np.ndarray:
    d = np.asarray(d, dtype=np.float64)
    if d.ndim not in (1, 2) or d.shape[-1] < 2:
        raise ValueError("a paired test needs at least 2 paired values")
    return d


def effect_size(d: np.ndarray) -> float:
    """Paired Cohen's d (d_z): mean difference / standard deviation of the differences.

    NaN when the differences do not vary.
    """
    d = _check(d)
    sd = float(np.std(d, ddof=1))
    return float(np.mean(d)) / sd if sd > 0 else math.nan


def paired_t(d: np.ndarray, *, alpha: float) -> TestResult:
    """Paired Student's t-test (= ``scipy.stats.ttest_rel``) and its t interval.

    When the differences do not vary: p = 1 if they are all 0, else 0.
    """
    d = _check(d)
    n = d.size
    mean = float(np.mean(d))
    se = float(np.std(d, ddof=1)) / math.sqrt(n)
    if se == 0.0:
        return TestResult(1.0 if mean == 0.0 else 0.0, mean, mean)
    p = t_two_sided_p(mean / se, n - 1)
    half = t_ppf(1.0 - alpha / 2.0, n - 1) * se
    return TestResult(p, mean - half, mean + half)


def _blocks(total: int, n: int) -> list[int]:
    size = max(1, min(total, _BLOCK_CELLS // max(n, 1)))
    return [min(size, total - start) for start in range(0, total, size)]


def _count_extreme(values: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Per column: how many |values| (resamples x C) are at least |observed| (C,),
    with a relative tolerance for float noise."""
    threshold = np.abs(observed) * (1.0 - 1e-12) - 1e-15
    return np.count_nonzero(np.abs(values) >= threshold, axis=0)


def _batch(d: np.ndarray) -> tuple[np.ndarray, bool]:
    d = _check(d)
    return (d[None, :], True) if d.ndim == 1 else (d, False)


def randomization(
    d: np.ndarray, *, n_resamples: int, rng: np.random.Generator
) -> float | np.ndarray:
    """Two-sided paired randomization (sign-flip permutation) test of the mean difference.

    Under the null hypothesis each query's difference is as likely to have either sign.
    When 2^n <= n_resamples every sign pattern is enumerated (exact p); otherwise
    p = (1 + #{|mean*| >= |mean|}) / (1 + n_resamples) over random sign flips.
    Equals ``scipy.stats.permutation_test(..., permutation_type="samples")``.
    ``d``: n differences (returns a float) or C x n (returns C p-values).
    """
    batch, single = _batch(d)
    n = batch.shape[1]
    observed = batch.mean(axis=1)
    if n < 63 and 2**n <= n_resamples:
        patterns = np.arange(2**n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)
        signs = 1.0 - 2.0 * (patterns & 1)
        p = _count_extreme(signs @ batch.T / n, observed) / 2**n
    else:
        extreme = np.zeros(batch.shape[0], dtype=np.int64)
        for size in _blocks(n_resamples, n):
            random_bytes = rng.integers(0, 256, size=(size, (n + 7) // 8), dtype=np.uint8)
            bits = np.unpackbits(random_bytes, axis=1, count=n)  # fair coin flips
            signs = 1.0 - 2.0 * bits
            extreme += _count_extreme(signs @ batch.T / n, observed)
        p = (1 + extreme) / (1 + n_resamples)
    return float(p[0]) if single else p


def bootstrap_means(d: np.ndarray, *, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n_resamples`` bootstrap samples (queries drawn with replacement).

    ``d``: n differences (returns n_resamples means) or C x n (n_resamples x C).  Each
    resample is a row of counts (how often each query was drawn), so the means of all
    C comparisons are one matrix product.
    """
    batch, single = _batch(d)
    n = batch.shape[1]
    parts = []
    for size in _blocks(n_resamples, n):
        index = rng.integers(0, n, size=(size, n))
        index += np.arange(size)[:, None] * n
        counts = np.bincount(index.ravel(), minlength=size * n).reshape(size, n)
        parts.append(counts @ batch.T / n)
    means = np.concatenate(parts)
    return means[:, 0] if single else means


def _bootstrap_batch(
    batch: np.ndarray, *, alpha: float, n_resamples: int, rng: np.random.Generator
) -> list[TestResult]:
    means = bootstrap_means(batch, n_resamples=n_resamples, rng=rng)
    observed = batch.mean(axis=1)
    p = np.minimum(1.0, (1 + _count_extreme(means - observed, observed)) / (1 + n_resamples))
    low, high = np.percentile(means, [100 * alpha / 2, 100 * (1 - alpha / 2)], axis=0)
    return [TestResult(float(p[i]), float(low[i]), float(high[i])) for i in range(len(p))]


def bootstrap(
    d: np.ndarray, *, alpha: float, n_resamples: int, rng: np.random.Generator
) -> TestResult:
    """Paired bootstrap test of the mean difference, with a percentile interval.

    p = (1 + #{|mean* - mean| >= |mean|}) / (1 + n_resamples): the bootstrap
    distribution shifted to the null hypothesis (mean 0), two-sided.  The interval
    is the (alpha/2, 1 - alpha/2) percentile interval of the bootstrap means
    (``scipy.stats.bootstrap(..., method="percentile")``).
    """
    d = _check(d)
    if d.ndim != 1:
        raise ValueError("bootstrap() takes one comparison; run_tests() takes a batch")
    return _bootstrap_batch(d[None, :], alpha=alpha, n_resamples=n_resamples, rng=rng)[0]


def run_tests(
    d: np.ndarray, *, test: str, alpha: float, n_resamples: int, seed: int
) -> list[TestResult]:
    """The test of each row of ``d`` (C comparisons x n queries, the same queries).

    Resampling tests draw from ``default_rng(seed)``; the randomization test reports the
    bootstrap percentile interval.
    """
    d = np.atleast_2d(_check(d))
    if test == "t":
        return [paired_t(row, alpha=alpha) for row in d]
    if test not in ("randomization", "bootstrap"):
        raise ValueError(f"unknown test {test!r}")
    rng = np.random.default_rng(seed)
    intervals = _bootstrap_batch(d, alpha=alpha, n_resamples=n_resamples, rng=rng)
    if test == "bootstrap":
        return intervals
    rng = np.random.default_rng(seed)
    p = np.atleast_1d(randomization(d, n_resamples=n_resamples, rng=rng))
    return [TestResult(float(pi), r.ci_low, r.ci_high) for pi, r in zip(p, intervals)]


# ---------------------------------------------------------------- corrections


def adjust(p: np.ndarray, method: str | None) -> np.ndarray:
    """Multiple-comparison adjusted p-values (NaN entries are left out and kept NaN).

    ``holm`` (step-down), ``bonferroni``, ``bh`` (Benjamini-Hochberg, false
    discovery rate) or None (unchanged).
    """
    p = np.asarray(p, dtype=np.float64)
    out = p.copy()
    valid = ~np.isnan(p)
    values = p[valid]
    m = values.size
    if method is None or m == 0:
        return out
    if method == "bonferroni":
        adjusted = np.minimum(1.0, values * m)
    elif method == "holm":
        order = np.argsort(values, kind="stable")
        steps = np.maximum.accumulate(values[order] * (m - np.arange(m)))
        adjusted = np.empty(m)
        adjusted[order] = np.minimum(1.0, steps)
    elif method == "bh":
        order = np.argsort(values, kind="stable")
        scaled = values[order] * m / np.arange(1, m + 1)
        steps = np.minimum.accumulate(scaled[::-1])[::-1]
        adjusted = np.empty(m)
        adjusted[order] = np.minimum(1.0, steps)
    else:
        raise ValueError(f"unknown correction {method!r}")
    out[valid] = adjusted
    return out
