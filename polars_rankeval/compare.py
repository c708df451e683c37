"""``compare(runs, qrels, measures)``: paired significance tests between systems.

Every system is evaluated per query in one :func:`~polars_rankeval.evaluate` call
(``by=system``); each comparison pairs the per-query values of two systems over the
queries both were evaluated on (trec_eval's query universe: queries in the run and the
qrels; every qrels query with ``complete=True``).  The tests are in
:mod:`polars_rankeval._significance` (numpy; resampling vectorised over a
resamples x queries matrix).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import polars as pl

from polars_rankeval._errors import InputError, RankevalError, RankevalWarning
from polars_rankeval.evaluate import evaluate

__all__ = ["CORRECTIONS", "TESTS", "compare", "compare_per_query", "per_query_values"]

TESTS = ("t", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "bh", None)
DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "R@100", "RR")
_QUERY = "\x00query"  # pivot index: cannot clash with a system name

Frame = pl.DataFrame | pl.LazyFrame


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy comes with the `compare` extra
        raise ImportError("compare needs numpy: pip install 'polars_rankeval[compare]'") from None
    return numpy


def check_options(
    *, test: str, correction: str | None, alpha: float, n_resamples: int, seed: int
) -> None:
    """Raise :class:`RankevalError` for an unknown test or correction or a bad number."""
    if test not in TESTS:
        raise RankevalError(f"test={test!r}: choose one of {', '.join(TESTS)}")
    if correction not in CORRECTIONS:
        raise RankevalError(
            f"correction={correction!r}: choose one of holm, bonferroni, bh or None"
        )
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise RankevalError(f"alpha must be a number in (0, 1), got {alpha!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise RankevalError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise RankevalError(f"seed must be a non-negative integer, got {seed!r}")


def stack_runs(runs: Mapping[str, Frame] | Frame, *, system: str) -> tuple[pl.LazyFrame, list[str]]:
    """One lazy frame with a ``system`` column (String), and the system names in order."""
    if isinstance(runs, pl.DataFrame | pl.LazyFrame):
        if system not in runs.collect_schema():
            raise InputError(
                f"runs is one frame but has no {system!r} column naming the systems "
                f"(columns: {list(runs.collect_schema())}); pass system='<column>' or a "
                "mapping name -> frame"
            )
        one = runs.lazy().with_columns(pl.col(system).cast(pl.String))
        names = one.select(pl.col(system).unique(maintain_order=True)).collect()[system].to_list()
        if None in names:
            raise InputError(f"runs column {system!r} has null system names")
        return one, names
    if not isinstance(runs, Mapping):
        raise InputError(
            f"runs must be a mapping name -> frame or one frame with a {system!r} column, "
            f"got {type(runs).__name__}"
        )
    frames = []
    for name, frame in runs.items():
        if not isinstance(name, str) or not name:
            raise InputError(f"system names must be non-empty strings, got {name!r}")
        if not isinstance(frame, pl.DataFrame | pl.LazyFrame):
            raise InputError(
                f"run {name!r} must be a polars DataFrame or LazyFrame, got {type(frame).__name__}"
            )
        if system in frame.collect_schema():
            raise InputError(
                f"run {name!r} already has a {system!r} column; pass system='<other name>'"
            )
        frames.append(frame.lazy().with_columns(pl.lit(name, pl.String).alias(system)))
    if not frames:
        raise InputError("runs is empty: compare needs at least two systems")
    try:
        stacked = pl.concat(frames, how="diagonal_relaxed")
    except pl.exceptions.PolarsError as error:
        raise InputError(f"the runs' columns do not fit together: {error}") from error
    return stacked, list(runs)


def per_query_values(
    runs: Mapping[str, Frame] | Frame,
    qrels: Frame | None,
    measures: str | Iterable[str],
    *,
    system: str = "system",
    **evaluate_kwargs: Any,
) -> tuple[pl.DataFrame, list[str]]:
    """Per-query values of every system (``system, query, measure, value``), one evaluation."""
    stacked, names = stack_runs(runs, system=system)
    if len(names) < 2:
        raise InputError(f"compare needs at least two systems, got {names}")
    result = evaluate(stacked, qrels, measures, per_query=True, by=system, **evaluate_kwargs)
    return result.lazy().collect(), names


def _pairs(names: Sequence[str], baseline: str | None) -> list[tuple[str, str]]:
    """(baseline, system) pairs: against the baseline, or every pair in input order."""
    if baseline is not None:
        return [(baseline, name) for name in names if name != baseline]
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]


def compare_per_query(
    per_query: pl.DataFrame,
    systems: Sequence[str],
    measures: Sequence[str],
    *,
    baseline: str | None = None,
    test: str = "t",
    correction: str | None = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int = 0,
    system: str = "system",
    query: str = "query",
) -> pl.DataFrame:
    """The comparison table from per-query values (see :func:`compare`)."""
    from polars_rankeval import _significance as sig

    np = _numpy()
    check_options(test=test, correction=correction, alpha=alpha, n_resamples=n_resamples, seed=seed)
    if baseline is not None and baseline not in systems:
        raise RankevalError(f"baseline {baseline!r} is not a system; systems: {list(systems)}")
    pairs = _pairs(systems, baseline)
    rows: list[dict[str, Any]] = []
    groups: dict[tuple[Any, ...], list[int]] = {}  # comparisons over the same queries
    differences: list[Any] = []
    for measure in measures:
        wide = (
            per_query.filter(pl.col("measure") == measure)
            .select(pl.col(query).alias(_QUERY), system, "value")
            .pivot(on=system, index=_QUERY, values="value")
            .sort(_QUERY)
        )
        for name in systems:
            if name not in wide.columns:
                raise InputError(
                    f"system {name!r} has no evaluated query: none of its queries is in the qrels"
                )
        queries = wide[_QUERY].to_numpy()
        for base, other in pairs:
            a = wide[base].to_numpy().astype(np.float64)
            b = wide[other].to_numpy().astype(np.float64)
            both = ~np.isnan(a) & ~np.isnan(b)
            n = int(both.sum())
            if n == 0:
                raise InputError(
                    f"systems {base!r} and {other!r} have no evaluated query in common "
                    f"({int((~np.isnan(a)).sum())} and {int((~np.isnan(b)).sum())} queries); "
                    "a paired comparison needs the same queries"
                )
            if n < 2:
                raise InputError(
                    f"systems {base!r} and {other!r} have only {n} evaluated query in common; "
                    "a paired test needs at least 2"
                )
            unpaired = int((~np.isnan(a) | ~np.isnan(b)).sum()) - n
            if unpaired:
                warnings.warn(
                    f"{measure}: {unpaired} quer{'y is' if unpaired == 1 else 'ies are'} "
                    f"evaluated for only one of {base!r} and {other!r} and left out of their "
                    "paired comparison",
                    RankevalWarning,
                    stacklevel=3,
                )
            d = b[both] - a[both]
            groups.setdefault(tuple(queries[both]), []).append(len(rows))
            differences.append(d)
            effect = sig.effect_size(d)
            rows.append(
                {
                    "system": other,
                    "baseline": base,
                    "measure": measure,
                    "n_queries": n,
                    "mean": float(b[both].mean()),
                    "baseline_mean": float(a[both].mean()),
                    "delta": float(d.mean()),
                    "effect_size": None if math.isnan(effect) else effect,
                }
            )
    # one batch of tests per set of paired queries (usually one for everything)
    for members in groups.values():
        results = sig.run_tests(
            np.stack([differences[i] for i in members]),
            test=test,
            alpha=alpha,
            n_resamples=n_resamples,
            seed=seed,
        )
        for i, result in zip(members, results):
            rows[i].update(p_value=result.p_value, ci_low=result.ci_low, ci_high=result.ci_high)
    for measure in measures:  # the correction's family: the comparisons of one measure
        block = [row for row in rows if row["measure"] == measure]
        adjusted = sig.adjust(np.array([row["p_value"] for row in block]), correction)
        for row, p in zip(block, adjusted):
            row["p_value_corrected"] = float(p)
            row["significant"] = bool(p < alpha)
    schema = {
        "system": pl.String,
        "baseline": pl.String,
        "measure": pl.String,
        "n_queries": pl.Int64,
        "mean": pl.Float64,
        "baseline_mean": pl.Float64,
        "delta": pl.Float64,
        "p_value": pl.Float64,
        "p_value_corrected": pl.Float64,
        "effect_size": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "significant": pl.Boolean,
    }
    return pl.DataFrame(rows, schema=schema)


def compare(
    runs: Mapping[str, Frame] | Frame,
    qrels: Frame | None,
    measures: str | Iterable[str] = DEFAULT_MEASURES,
    *,
    baseline: str | None = None,
    test: str = "t",
    correction: str | None = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int = 0,
    system: str = "system",
    complete: bool = False,
    conventions: str = "trec_eval",
    duplicates: str = "error",
    rel: float | None = None,
    query: str = "query",
    item: str = "item",
    rank: str | None = "rank",
    score: str | None = "score",
    relevant: str = "relevant",
    relevance: str = "relevance",
) -> pl.DataFrame:
    """Compare systems with paired significance tests over queries.

    Parameters
    ----------
    runs
        A mapping ``name -> run frame``, or one frame with a ``system`` column.
    qrels
        Judgments ``query, item, relevance`` (or None: labels from the runs' ``relevant``).
    measures
        Measure names, as for :func:`~polars_rankeval.evaluate`.
    baseline
        Compare every other system against this one; None compares every pair (in the
        order the systems are given: the later one is ``system``, the earlier ``baseline``).
    test
        ``"t"`` (paired Student's t-test, t interval), ``"randomization"`` (sign-flip
        permutation test of the mean difference, exact when 2^n <= n_resamples; bootstrap
        percentile interval) or ``"bootstrap"`` (paired bootstrap of the mean difference:
        shifted-null p-value, percentile interval).  All two-sided.
    correction
        Multiple-comparison correction over the comparisons of each measure:
        ``"holm"`` (default), ``"bonferroni"``, ``"bh"`` (Benjamini-Hochberg) or None.
    alpha
        Significance level; the intervals are (1 - alpha) intervals.
    n_resamples, seed
        Resampling tests: number of resamples, and the seed of
        ``numpy.random.default_rng`` (the same for every comparison, so a pair's result
        does not depend on the other systems).
    system
        Name of the system column (of the one-frame form; the output column is ``system``).
    complete, conventions, duplicates, rel, query, item, rank, score, relevant, relevance
        As for :func:`~polars_rankeval.evaluate`.

    Returns
    -------
    A DataFrame with one row per (measure, comparison): ``system``, ``baseline``,
    ``measure``, ``n_queries`` (queries paired), ``mean`` and ``baseline_mean`` (over those
    queries), ``delta`` (mean of system - baseline), ``p_value``, ``p_value_corrected``,
    ``effect_size`` (paired Cohen's d: mean difference / its standard deviation; null
    when the differences do not vary), ``ci_low``, ``ci_high`` (interval of ``delta``)
    and ``significant`` (``p_value_corrected < alpha``).  Every measure is averaged
    (count measures too).

    Examples
    --------
    Reciprocal ranks: bm25 0.5, 1, 0.5; dense 1, 0.5, 1.  Differences 0.5, -0.5, 0.5:
    mean 1/6, standard error 1/3, t = 0.5 on 2 degrees of freedom, p = 2/3.

    >>> import polars as pl
    >>> from polars_rankeval.compare import compare
    >>> qrels = pl.DataFrame({"query": ["q1", "q2", "q3"], "item": ["a", "b", "c"],
    ...                       "relevance": [1, 1, 1]})
    >>> bm25 = pl.DataFrame({"query": ["q1", "q1", "q2", "q2", "q3", "q3"],
    ...                      "item": ["x", "a", "b", "y", "x", "c"],
    ...                      "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0]})
    >>> dense = bm25.with_columns(score=-pl.col("score"))
    >>> compare({"bm25": bm25, "dense": dense}, qrels, ["RR"], baseline="bm25").select(
    ...     "system", "measure", "mean", "delta", "p_value")
    shape: (1, 5)
    ┌────────┬─────────┬──────────┬──────────┬──────────┐
    │ system ┆ measure ┆ mean     ┆ delta    ┆ p_value  │
    │ ---    ┆ ---     ┆ ---      ┆ ---      ┆ ---      │
    │ str    ┆ str     ┆ f64      ┆ f64      ┆ f64      │
    ╞════════╪═════════╪══════════╪══════════╪══════════╡
    │ dense  ┆ RR      ┆ 0.833333 ┆ 0.166667 ┆ 0.666667 │
    └────────┴─────────┴──────────┴──────────┴──────────┘
    """
    check_options(test=test, correction=correction, alpha=alpha, n_resamples=n_resamples, seed=seed)
    if isinstance(measures, str):
        measures = [measures]
    names = list(dict.fromkeys(measures))
    stacked_names = None
    if baseline is not None and isinstance(runs, Mapping):
        stacked_names = list(runs)
        if baseline not in stacked_names:
            raise RankevalError(f"baseline {baseline!r} is not a system; systems: {stacked_names}")
    per_query, systems = per_query_values(
        runs,
        qrels,
        names,
        system=system,
        complete=complete,
        conventions=conventions,
        duplicates=duplicates,
        rel=rel,
        query=query,
        item=item,
        rank=rank,
        score=score,
        relevant=relevant,
        relevance=relevance,
    )
    return compare_per_query(
        per_query,
        systems,
        names,
        baseline=baseline,
        test=test,
        correction=correction,
        alpha=alpha,
        n_resamples=n_resamples,
        seed=seed,
        system=system,
        query=query,
    )
