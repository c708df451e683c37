"""The options of an evaluation and of a comparison, validated once.

``Columns`` holds the user's column names (every one a keyword of ``evaluate``);
``EvalOptions`` every other option of ``evaluate``; :class:`TestOptions` the options of
the significance tests.  Each checks itself in ``__post_init__``, so the fronts
(``evaluate``, ``compare``, the reports, the command line) give the same messages and the
engines receive only valid values.  A bad test option raises
:class:`~polars_rankeval.RankevalError` (the base class; :class:`InputError` is kept for
bad data and bad ``evaluate`` arguments, on which the command line exits with status 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from polars_rankeval._errors import InputError, RankevalError

__all__ = [
    "CORRECTIONS",
    "DUPLICATES",
    "ENGINE_NAMES",
    "MAX_RESAMPLES",
    "MAX_TOP",
    "TESTS",
    "TIES",
    "Columns",
    "EvalOptions",
    "TestOptions",
]

TIES = ("trec_eval", "average")
DUPLICATES = ("error", "first")
ENGINE_NAMES = ("polars", "duckdb", "spark")
MAX_TOP = 2**63 - 1  # a 64-bit row count, as every engine keeps it


@dataclass(frozen=True)
class Columns:
    """The user's column names (every one a keyword of ``evaluate``)."""

    query: str = "query"
    item: str = "item"
    rank: str | None = "rank"
    score: str | None = "score"
    relevant: str = "relevant"
    relevance: str = "relevance"
    subtopic: str = "subtopic"  # subtopic qrels (diversity measures)
    intent_weight: str | None = None  # subtopic qrels: weight of (query, subtopic)

    def __post_init__(self) -> None:
        for keyword in ("query", "item", "relevant", "relevance", "rank", "score", "subtopic",
                        "intent_weight"):  # fmt: skip
            value = getattr(self, keyword)
            if value is None and keyword in ("rank", "score", "intent_weight"):
                continue
            if not isinstance(value, str) or not value:
                raise InputError(
                    f"{keyword}={value!r}: give the name of a column (a non-empty string)"
                )
        self._check_distinct()

    def _check_distinct(self) -> None:
        """The run's key and ranking columns must be different columns."""
        # rank= only counts without a score (a default rank= naming a key column is unused)
        keywords = ("query", "item", "score") if self.score is not None else ("query", "item", "rank")
        named = [(k, getattr(self, k)) for k in keywords]
        for i, (keyword, value) in enumerate(named):
            for other, other_value in named[:i]:
                if value is not None and value == other_value:
                    raise InputError(
                        f"{other}={other_value!r} and {keyword}={value!r} name the same "
                        "column; each must be a column of its own"
                    )


def _by_list(by: str | Sequence[str] | None) -> tuple[str, ...]:
    if by is None:
        return ()
    if isinstance(by, str):
        return (by,)
    if not isinstance(by, Sequence) or not all(isinstance(b, str) for b in by):
        raise InputError(f"by={by!r}: give a column name or a list of column names")
    return tuple(by)


@dataclass(frozen=True)
class EvalOptions:
    """Every option of ``evaluate`` but the data, the measures and the column names.

    >>> EvalOptions(by="arm").by
    ('arm',)
    >>> EvalOptions(top=0)
    Traceback (most recent call last):
    ...
    polars_rankeval._errors.InputError: top=0: give a positive number of rows per query
    """

    per_query: bool = False
    by: tuple[str, ...] = field(default=())
    complete: bool = False
    duplicates: str = "error"
    top: int | None = None
    ties: str = "trec_eval"
    engine: str = "polars"
    partitions: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "by", _by_list(self.by))
        self._check_partitions()
        for flag in ("per_query", "complete"):
            value = getattr(self, flag)
            # a string such as "no" would be truthy: only booleans (numpy's too)
            if not isinstance(value, bool) and type(value).__name__ != "bool_":
                raise InputError(f"{flag}={value!r}: give True or False")
        if self.engine not in ENGINE_NAMES:
            raise InputError(
                f"engine={self.engine!r}: choose one of {', '.join(map(repr, ENGINE_NAMES))}"
            )
        top = self.top
        if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top <= 0):
            raise InputError(f"top={top!r}: give a positive number of rows per query")
        if top is not None and top > MAX_TOP:
            raise InputError(f"top={top!r}: give at most {MAX_TOP} rows per query")
        if self.ties not in TIES:
            raise InputError(f"ties={self.ties!r}: choose 'trec_eval' or 'average'")
        if self.duplicates not in DUPLICATES:
            raise InputError(f"duplicates={self.duplicates!r}: choose 'error' or 'first'")
        if self.ties == "average" and (top is not None or self.duplicates == "first"):
            # both keep rows chosen by the tie-break, which ties="average" averages away
            raise InputError(
                "ties='average' cannot be combined with "
                + ("top=" if top is not None else "duplicates='first'")
                + ": which rows are kept would depend on the order of tied rows; filter or "
                "de-duplicate the run first"
            )

    def _check_partitions(self) -> None:
        parts = self.partitions
        if parts is None:
            return
        if not _is_int(parts) or parts <= 0:
            raise InputError(f"partitions={parts!r}: give a positive number of partitions")
        if self.engine != "polars":
            raise InputError(
                f"partitions={parts!r} is an option of engine='polars', not {self.engine!r}"
            )


TESTS = ("t", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "bh", None)
# The percentile and permutation intervals keep one float per resample and comparison
# (80 MB at this bound); the Monte Carlo standard error of a p-value is then at most
# 1.6e-4, far below any decision it could change.  Larger sizes are refused up front.
MAX_RESAMPLES = 10_000_000


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class TestOptions:
    """Options of a paired significance test, checked on construction.

    Parameters
    ----------
    test
        ``"t"`` (paired t-test), ``"randomization"`` (sign-flip permutation test) or
        ``"bootstrap"`` (paired bootstrap of the mean difference).
    correction
        ``"holm"``, ``"bonferroni"``, ``"bh"`` (Benjamini-Hochberg) or None.
    alpha
        Significance level in (0, 1); the intervals are (1 - alpha) intervals.
    n_resamples
        Resamples of the resampling tests, 1 .. ``MAX_RESAMPLES`` (10^7).
    seed
        Seed of ``numpy.random.default_rng`` (a non-negative integer).
    baseline
        The system every other one is compared with, or None (every pair).

    Examples
    --------
    >>> TestOptions(test="bootstrap", n_resamples=2000).alpha
    0.05
    >>> TestOptions(test="wilcoxon")
    Traceback (most recent call last):
    ...
    polars_rankeval._errors.RankevalError: test='wilcoxon': choose one of t, randomization, bootstrap
    """

    __test__ = False  # a dataclass named Test*, not a pytest test class

    test: str = "t"
    correction: str | None = "holm"
    alpha: float = 0.05
    n_resamples: int = 10_000
    seed: int = 0
    baseline: str | None = None

    def __post_init__(self) -> None:
        if self.test not in TESTS:
            raise RankevalError(f"test={self.test!r}: choose one of {', '.join(TESTS)}")
        if self.correction not in CORRECTIONS:
            raise RankevalError(
                f"correction={self.correction!r}: choose one of holm, bonferroni, bh or None"
            )
        alpha = self.alpha
        if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
            raise RankevalError(f"alpha must be a number in (0, 1), got {alpha!r}")
        if not _is_int(self.n_resamples) or self.n_resamples < 1:
            raise RankevalError(f"n_resamples must be a positive integer, got {self.n_resamples!r}")
        if self.n_resamples > MAX_RESAMPLES:
            raise RankevalError(
                f"n_resamples={self.n_resamples:_} is more than {MAX_RESAMPLES:_}: the "
                "intervals keep one number per resample and comparison (8 bytes each), and "
                f"{MAX_RESAMPLES:_} resamples already estimate a p-value to +-1.6e-4"
            )
        if not _is_int(self.seed) or self.seed < 0:
            raise RankevalError(f"seed must be a non-negative integer, got {self.seed!r}")
        if self.baseline is not None and (not isinstance(self.baseline, str) or not self.baseline):
            raise RankevalError(f"baseline must be a system name (a string), got {self.baseline!r}")

    def check_baseline(self, systems: Sequence[str]) -> None:
        """Raise :class:`RankevalError` when the baseline is not one of ``systems``."""
        if self.baseline is not None and self.baseline not in systems:
            raise RankevalError(
                f"baseline {self.baseline!r} is not a system; systems: {list(systems)}"
            )

    def pairs(self, systems: Sequence[str]) -> list[tuple[str, str]]:
        """(baseline, system) pairs: against the baseline, or every pair in input order."""
        if self.baseline is not None:
            return [(self.baseline, name) for name in systems if name != self.baseline]
        return [(a, b) for i, a in enumerate(systems) for b in systems[i + 1 :]]
