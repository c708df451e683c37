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
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

__all__ = [
    "CI_METHODS",
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

# Resamples x queries cells of one block (8 bytes each; a block holds about three such
# arrays: 24 MiB), and resamples x comparisons cells kept for the intervals (64 MiB).
_BLOCK_CELLS = 2**20
_KEPT_CELLS = 2**23
CI_METHODS = {
    "t": "t",
    "randomization": "randomization (inverted)",
    "bootstrap": "bootstrap percentile",
}


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


def _betainc(a: float, b: float, x: float, y: float) -> float:
    """Regularized incomplete beta I_x(a, b); ``y`` is 1 - x, given by the caller
    (computed from the same inputs, it keeps its digits where x is close to 1)."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, y) / b


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom."""
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    # x = df / (df + t^2) and its complement t^2 / (df + t^2), each computed directly:
    # near t = 0, 1 - x in floating point loses the digits the tail is made of.  No cap at
    # 1 is needed: I_x(df/2, 1/2) is 1 at t = 0 (y = 0), 1 minus a positive term where x
    # is close to 1, and well below 1 elsewhere
    square = t * t
    return _betainc(df / 2.0, 0.5, df / (df + square), square / (df + square))


def _short_of(t: float, df: float, q: float) -> bool:
    """Whether t >= 0 is below the q-quantile's |t|: P(|T| >= t) above the two-sided tail
    2 min(q, 1 - q).  Near the median that tail is close to 1 and a double keeps few of
    its digits, so there the central probability P(|T| < t) = I_y(1/2, df/2),
    y = t^2 / (df + t^2), is compared with |2q - 1| (exact for q in [1/4, 1]) instead."""
    central = abs(2.0 * q - 1.0)
    if central < 0.5:
        square = t * t
        return _betainc(0.5, df / 2.0, square / (df + square), df / (df + square)) < central
    return t_two_sided_p(t, df) > 2.0 * min(q, 1.0 - q)


def t_ppf(q: float, df: float) -> float:
    """The q-quantile of Student's t (q in (0, 1)), by bisection on the CDF."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"quantile must be in (0, 1), got {q}")
    if q == 0.5:
        return 0.0
    low, high = 0.0, 1.0
    while _short_of(high, df, q):
        high *= 2.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if _short_of(mid, df, q):
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


def _block_rows(n: int) -> int:
    """Resamples per block: a block holds a few resamples x queries arrays of 8 bytes."""
    return max(1, _BLOCK_CELLS // max(n, 1))


def _blocks(total: int, n: int) -> list[int]:
    size = min(total, _block_rows(n))
    return [min(size, total - start) for start in range(0, total, size)]


def _count_extreme(values: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Per column: how many |values| (resamples x C) are at least |observed| (C,),
    with a relative tolerance for float noise."""
    threshold = np.abs(observed) * (1.0 - 1e-12) - 1e-15
    return np.count_nonzero(np.abs(values) >= threshold, axis=0)


def _batch(d: np.ndarray) -> tuple[np.ndarray, bool]:
    d = _check(d)
    return (d[None, :], True) if d.ndim == 1 else (d, False)


def _exact(n: int, n_resamples: int) -> bool:
    """Enumerate every sign pattern (an exact randomization test)?"""
    return n < 63 and 2**n <= n_resamples


def _sign_blocks(n: int, n_resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """The randomization test's sign patterns (+-1.0), a bounded block at a time:
    all 2^n of them when that is at most ``n_resamples``, else random fair flips."""
    if _exact(n, n_resamples):
        total, size = 2**n, _block_rows(n)
        shifts = np.arange(n, dtype=np.int64)
        for start in range(0, total, size):
            ids = np.arange(start, min(total, start + size), dtype=np.int64)
            yield 1.0 - 2.0 * ((ids[:, None] >> shifts) & 1)
        return
    for size in _blocks(n_resamples, n):
        random_bytes = rng.integers(0, 256, size=(size, (n + 7) // 8), dtype=np.uint8)
        yield 1.0 - 2.0 * np.unpackbits(random_bytes, axis=1, count=n)  # fair coin flips


class _Smallest:
    """The k smallest values of each column seen so far, in memory O(k + block)."""

    def __init__(self, k: int) -> None:
        self.k, self.rows = k, 0
        self.parts: list[np.ndarray] = []

    def add(self, values: np.ndarray) -> None:
        self.parts.append(values)
        self.rows += values.shape[0]
        if self.rows > 2 * self.k + 1024:  # amortised: partition only when it doubled
            self._shrink()

    def _shrink(self) -> None:
        both = np.concatenate(self.parts)
        if both.shape[0] > self.k:
            both = np.partition(both, self.k - 1, axis=0)[: self.k]
        self.parts, self.rows = [both], both.shape[0]

    def kth(self) -> np.ndarray:
        self._shrink()
        return self.parts[0].max(axis=0)


def _inverted_bounds(
    a: np.ndarray, b: np.ndarray, observed: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For each sign pattern s (rows) and comparison (columns): the shifts delta for
    which s is at least as extreme as the data in the test of mean(d - delta) = 0.

    With a = mean(s d), b = mean(s) and m = mean(d), s is extreme when
    |a - delta b| >= |m - delta|, i.e. (m - a - delta (1 - b)) (m + a - delta (1 + b)) <= 0:
    the interval between (m - a) / (1 - b) and (m + a) / (1 + b), which holds m.  The
    all-equal patterns (b = +-1) are extreme for every delta.
    """
    b = b[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        one, two = (observed - a) / (1.0 - b), (observed + a) / (1.0 + b)
    constant = np.abs(b) == 1.0
    low = np.where(constant, -np.inf, np.minimum(one, two))
    high = np.where(constant, np.inf, np.maximum(one, two))
    return low, high


def _randomization_batch(
    batch: np.ndarray, *, alpha: float, n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """p-values and the inverted (1 - alpha) intervals of C comparisons (C x n).

    The interval is every shift delta that the same test, run on d - delta with the same
    sign patterns, does not reject at level alpha (p(delta) > alpha).  p(delta) counts
    the patterns whose extreme-set (see :func:`_inverted_bounds`) holds delta; each set
    is an interval around the mean, so the ends are order statistics of the set ends.
    """
    n = batch.shape[1]
    observed = batch.mean(axis=1)
    exact = _exact(n, n_resamples)
    total = 2**n if exact else n_resamples
    # p(delta) = count / total (exact) or (1 + count) / (1 + total) is above alpha when
    # count >= k
    k = math.floor(alpha * total) + 1 if exact else math.floor(alpha * (1 + total) - 1) + 1
    extreme = np.zeros(batch.shape[0], dtype=np.int64)
    lows, highs = _Smallest(max(k, 1)), _Smallest(max(k, 1))
    for signs in _sign_blocks(n, n_resamples, rng):
        a = signs @ batch.T / n
        extreme += _count_extreme(a, observed)
        low, high = _inverted_bounds(a, signs.mean(axis=1), observed)
        lows.add(low)
        highs.add(-high)
    p = extreme / total if exact else (1 + extreme) / (1 + total)
    if k <= 0:  # no shift can be rejected: alpha is below the smallest possible p
        infinite = np.full(batch.shape[0], np.inf)
        return p, -infinite, infinite
    return p, lows.kth(), -highs.kth()


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
    p, _, _ = _randomization_batch(batch, alpha=0.05, n_resamples=n_resamples, rng=rng)
    return float(p[0]) if single else p


def _bootstrap_blocks(
    batch: np.ndarray, *, n_resamples: int, rng: np.random.Generator
) -> Iterator[np.ndarray]:
    """Bootstrap means (resamples x C) a bounded block at a time.  Each resample is a
    row of counts (how often each query was drawn), so the means of all C comparisons
    are one matrix product."""
    n = batch.shape[1]
    for size in _blocks(n_resamples, n):
        index = rng.integers(0, n, size=(size, n))
        index += np.arange(size)[:, None] * n
        counts = np.bincount(index.ravel(), minlength=size * n).reshape(size, n)
        yield counts @ batch.T / n


def bootstrap_means(d: np.ndarray, *, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n_resamples`` bootstrap samples (queries drawn with replacement).

    ``d``: n differences (returns n_resamples means) or C x n (n_resamples x C).
    """
    batch, single = _batch(d)
    means = np.concatenate(list(_bootstrap_blocks(batch, n_resamples=n_resamples, rng=rng)))
    return means[:, 0] if single else means


def _bootstrap_batch(
    batch: np.ndarray, *, alpha: float, n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """p-values and percentile intervals of C comparisons; the means are kept (the
    interval needs them all: 8 bytes x n_resamples x C), everything else is per block."""
    observed = batch.mean(axis=1)
    means = np.empty((n_resamples, batch.shape[0]))
    extreme = np.zeros(batch.shape[0], dtype=np.int64)
    start = 0
    for block in _bootstrap_blocks(batch, n_resamples=n_resamples, rng=rng):
        means[start : start + block.shape[0]] = block
        start += block.shape[0]
        extreme += _count_extreme(block - observed, observed)
    p = np.minimum(1.0, (1 + extreme) / (1 + n_resamples))
    q = [100 * alpha / 2, 100 * (1 - alpha / 2)]
    low, high = np.percentile(means, q, axis=0, overwrite_input=True)
    return p, low, high


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
    p, low, high = _bootstrap_batch(d[None, :], alpha=alpha, n_resamples=n_resamples, rng=rng)
    return TestResult(float(p[0]), float(low[0]), float(high[0]))


def _chunk(n: int, n_resamples: int) -> int:
    """Comparisons per pass: the per-comparison arrays (a resamples x comparisons block,
    the kept bootstrap means) stay within the block budget, at least one comparison."""
    return max(1, min(_BLOCK_CELLS // _block_rows(n), _KEPT_CELLS // n_resamples))


def run_tests(
    d: np.ndarray, *, test: str, alpha: float, n_resamples: int, seed: int
) -> list[TestResult]:
    """The test of each row of ``d`` (C comparisons x n queries), with the interval
    that matches it (:data:`CI_METHODS`).

    Resampling tests draw from ``default_rng(seed)``, afresh for every pass over a
    chunk of comparisons, so a comparison gets the same result alone or in a batch.
    """
    d = np.atleast_2d(_check(d))
    if test == "t":
        return [paired_t(row, alpha=alpha) for row in d]
    if test not in ("randomization", "bootstrap"):
        raise ValueError(f"unknown test {test!r}")
    method = _randomization_batch if test == "randomization" else _bootstrap_batch
    size = _chunk(d.shape[1], n_resamples)
    results = []
    for start in range(0, d.shape[0], size):
        rng = np.random.default_rng(seed)
        p, low, high = method(
            d[start : start + size], alpha=alpha, n_resamples=n_resamples, rng=rng
        )
        results += [TestResult(float(x), float(y), float(z)) for x, y, z in zip(p, low, high)]
    return results


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
