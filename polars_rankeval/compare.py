"""``compare(runs, qrels, measures)``: paired significance tests between systems.

Every system is evaluated per query in one :func:`~polars_rankeval.evaluate` call
(``by=[system, *by]``); each comparison pairs the per-query values of two systems over
the queries both were evaluated on (trec_eval's query universe: queries in the run and
the qrels; every qrels query with ``complete=True``), within one ``by`` group.  The
tests are in :mod:`polars_rankeval._significance` (numpy; resampling vectorised over a
resamples x queries matrix, in blocks of bounded memory).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import polars as pl

from polars_rankeval._docparams import fill_params
from polars_rankeval._errors import InputError, MeasureError, RankevalWarning, not_a_frame
from polars_rankeval._parse import resolve_measures
from polars_rankeval._registry import Measure
from polars_rankeval.engines.finish import GMEAN_FLOOR, aggregate
from polars_rankeval.evaluate import evaluate
from polars_rankeval.options import CORRECTIONS, TESTS, TestOptions

__all__ = [
    "CORRECTIONS",
    "TESTS",
    "TestOptions",
    "compare",
    "compare_per_query",
    "per_query_values",
]

DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "R@100", "RR")
_QUERY = "\x00query"  # pivot index: cannot clash with a system name

Frame = pl.DataFrame | pl.LazyFrame
# output columns a `by` column must not be called
RESULT_COLUMNS = (
    "system", "baseline", "measure", "n_queries", "mean", "baseline_mean", "delta", "p_value",
    "p_value_corrected", "effect_size", "ci_low", "ci_high", "significant", "test",
    "correction", "ci_method", "ci_level",
)  # fmt: skip


def _significance() -> Any:
    try:
        from polars_rankeval import _significance
    except ImportError:  # pragma: no cover - numpy comes with the `compare` extra
        raise ImportError("compare needs numpy: pip install 'polars_rankeval[compare]'") from None
    return _significance


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
            raise not_a_frame(f"run {name!r}", frame)
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


def by_columns(by: str | Sequence[str] | None, *, system: str, query: str) -> list[str]:
    """The ``by`` argument as a list of column names, checked."""
    if by is None:
        return []
    columns = [by] if isinstance(by, str) else by
    if not isinstance(columns, Sequence) or not all(isinstance(c, str) and c for c in columns):
        raise InputError(f"by must be a column name or a list of column names, got {by!r}")
    for column in columns:
        if column in (system, query):
            role = "system" if column == system else "query"
            raise InputError(f"by={column!r} is the {role} column; give the segment columns only")
        if column in RESULT_COLUMNS:
            raise InputError(
                f"by column {column!r} has the name of a result column of compare(); "
                "rename it in the runs"
            )
    if len(set(columns)) < len(columns):
        raise InputError(f"by names a column twice: {list(columns)}")
    return list(columns)


def per_query_values(
    runs: Mapping[str, Frame] | Frame,
    qrels: Frame | None,
    measures: str | Iterable[str],
    *,
    system: str = "system",
    by: str | Sequence[str] | None = None,
    **evaluate_kwargs: Any,
) -> tuple[pl.DataFrame, list[str]]:
    """Per-query values of every system (``system, *by, query, measure, value``), in one
    evaluation, and the system names in order."""
    stacked, names = stack_runs(runs, system=system)
    if len(names) < 2:
        raise InputError(f"compare needs at least two systems, got {names}")
    keys = [system, *by_columns(by, system=system, query=evaluate_kwargs.get("query", "query"))]
    result = evaluate(stacked, qrels, measures, per_query=True, by=keys, **evaluate_kwargs)
    return result.lazy().collect(), names


# ---------------------------------------------------------------- one comparison


class _Comparison(NamedTuple):
    """One (group, measure, pair) comparison: its output row and the per-query
    differences the test runs on."""

    row: dict[str, Any]
    tested: Any  # numpy array: per-query differences on the tested scale
    measure: Measure


def compared_values(column: pl.Expr, m: Measure) -> pl.Expr:
    """The per-query values a test averages: log(max(x, 1e-5)) for a geometric mean
    (GMAP is exp of their mean), the values themselves otherwise."""
    if m.family.aggregate == "gmean":
        return column.clip(lower_bound=GMEAN_FLOOR).log()
    return column


def _to_delta(mu: float, c: _Comparison) -> float:
    """A mean difference on the tested scale as a difference of the summaries: the same
    for means, times the number of queries for sums, baseline * (exp(mu) - 1) for a
    geometric mean (exp(mu) is the ratio of the two geometric means).  Increasing in
    mu, so it maps an interval of mu onto an interval of ``delta``."""
    if c.measure.family.aggregate == "sum":
        return c.row["n_queries"] * mu
    if c.measure.family.aggregate == "gmean":
        return c.row["baseline_mean"] * math.expm1(mu)
    return mu


def _where(key: dict[str, Any]) -> str:
    return f" in group {key}" if key else ""


def _pair(
    wide: pl.DataFrame, base: str, other: str, m: Measure, name: str, key: dict[str, Any]
) -> _Comparison:
    """The comparison of ``other`` against ``base`` over their common queries."""
    a, b = pl.col(base), pl.col(other)
    paired = wide.filter(a.is_not_null() & b.is_not_null()).select(a.alias("a"), b.alias("b"))
    n, unpaired = paired.height, wide.filter(a.is_null() ^ b.is_null()).height
    if n < 2:
        counts = f"{wide[base].count()} and {wide[other].count()} queries"
        raise InputError(
            f"systems {base!r} and {other!r} have "
            + ("no evaluated query" if n == 0 else f"only {n} evaluated query")
            + f" in common{_where(key)} ({counts}); a paired test needs at least 2"
            + ("; filter out small groups" if key else "")
        )
    if unpaired:
        warnings.warn(
            f"{name}{_where(key)}: {unpaired} quer{'y is' if unpaired == 1 else 'ies are'} "
            f"evaluated for only one of {base!r} and {other!r} and left out of their "
            "paired comparison",
            RankevalWarning,
            stacklevel=4,
        )
    summary = paired.select(
        aggregate(pl.col("b"), m).alias("mean"), aggregate(pl.col("a"), m).alias("baseline_mean")
    ).row(0, named=True)
    tested = paired.select(compared_values(pl.col("b"), m) - compared_values(pl.col("a"), m))
    row = {**key, "system": other, "baseline": base, "measure": name, "n_queries": n, **summary}
    return _Comparison(row, tested.to_series().to_numpy(), m)


def _group_comparisons(
    part: pl.DataFrame,
    key: dict[str, Any],
    systems: Sequence[str],
    measures: Sequence[tuple[str, Measure]],
    options: TestOptions,
    system: str,
    query: str,
) -> list[_Comparison]:
    """The comparisons of one ``by`` group, measure by measure."""
    comparisons = []
    for name, m in measures:
        wide = (
            part.filter(pl.col("measure") == name)
            .select(pl.col(query).alias(_QUERY), system, "value")
            .pivot(on=system, index=_QUERY, values="value")
            .sort(_QUERY)
        )
        for other in systems:
            if other not in wide.columns:
                raise InputError(
                    f"system {other!r} has no evaluated query{_where(key)}: none of its "
                    "queries there is in the qrels"
                )
        comparisons += [_pair(wide, a, b, m, name, key) for a, b in options.pairs(systems)]
    return comparisons


# ---------------------------------------------------------------- tests and corrections


def _run_tests(comparisons: Sequence[_Comparison], options: TestOptions) -> None:
    """Test every comparison and put p, the matching interval (on the scale of
    ``delta``) and the effect size in its row.  Comparisons over the same number of
    queries run as one batch (the resampling draws depend only on it)."""
    sig = _significance()
    np = sig.np
    batches: dict[int, list[_Comparison]] = {}
    for c in comparisons:
        batches.setdefault(c.tested.size, []).append(c)
    for batch in batches.values():
        results = sig.run_tests(
            np.stack([c.tested for c in batch]),
            test=options.test,
            alpha=options.alpha,
            n_resamples=options.n_resamples,
            seed=options.seed,
        )
        for c, result in zip(batch, results):
            effect = sig.effect_size(c.tested)
            c.row.update(
                delta=_to_delta(float(c.tested.mean()), c),
                p_value=result.p_value,
                effect_size=None if math.isnan(effect) else effect,
                ci_low=_to_delta(result.ci_low, c),
                ci_high=_to_delta(result.ci_high, c),
            )


def _correct(comparisons: Sequence[_Comparison], options: TestOptions) -> None:
    """Adjust the p-values; the family is every comparison of one measure, over every
    pair and every ``by`` group."""
    sig = _significance()
    families: dict[str, list[dict[str, Any]]] = {}
    for c in comparisons:
        families.setdefault(c.row["measure"], []).append(c.row)
    for rows in families.values():
        adjusted = sig.adjust(sig.np.array([row["p_value"] for row in rows]), options.correction)
        for row, p in zip(rows, adjusted):
            row.update(
                p_value_corrected=float(p),
                significant=bool(p < options.alpha),
                test=options.test,
                correction=options.correction,
                ci_method=sig.CI_METHODS[options.test],
                ci_level=1.0 - options.alpha,
            )


def _result_frame(
    comparisons: Sequence[_Comparison], by_schema: Mapping[str, pl.DataType]
) -> pl.DataFrame:
    floats = ("mean", "baseline_mean", "delta", "p_value", "p_value_corrected", "effect_size")
    schema: dict[str, Any] = {
        **by_schema,
        "system": pl.String,
        "baseline": pl.String,
        "measure": pl.String,
        "n_queries": pl.Int64,
        **dict.fromkeys(floats, pl.Float64),
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "significant": pl.Boolean,
        "test": pl.String,
        "correction": pl.String,
        "ci_method": pl.String,
        "ci_level": pl.Float64,
    }
    return pl.DataFrame([c.row for c in comparisons], schema=schema)


def compare_per_query(
    per_query: pl.DataFrame,
    systems: Sequence[str],
    measures: Sequence[str],
    *,
    options: TestOptions | None = None,
    by: Sequence[str] = (),
    conventions: str = "trec_eval",
    rel: float | None = None,
    system: str = "system",
    query: str = "query",
) -> pl.DataFrame:
    """The comparison table from per-query values (``system, *by, query, measure,
    value``; see :func:`compare`)."""
    options = options or TestOptions()
    options.check_baseline(systems)
    resolved = resolve_measures(measures, conventions=conventions, rel=rel)
    by = list(by)
    if by:
        groups = per_query.select(by).unique().sort(by, nulls_last=True).rows(named=True)
        parts = per_query.partition_by(by, as_dict=True, maintain_order=True)
    else:
        groups, parts = [{}], {(): per_query}
    comparisons = []
    for key in groups:
        part = parts[tuple(key.values())]
        comparisons += _group_comparisons(part, key, systems, resolved, options, system, query)
    _run_tests(comparisons, options)
    _correct(comparisons, options)
    return _result_frame(comparisons, {c: per_query.schema[c] for c in by})


@fill_params
def compare(
    runs: Mapping[str, Frame] | Frame, qrels: Frame | None,
    measures: str | Iterable[str] = DEFAULT_MEASURES,
    *, by: str | Sequence[str] | None = None, baseline: str | None = None, test: str = "t",
    correction: str | None = "holm", alpha: float = 0.05, n_resamples: int = 10_000,
    seed: int = 0, system: str = "system", complete: bool = False,
    conventions: str = "trec_eval", duplicates: str = "error", rel: float | None = None,
    query: str = "query", item: str = "item", rank: str | None = "rank",
    score: str | None = "score", relevant: str = "relevant", relevance: str = "relevance",
) -> pl.DataFrame:  # fmt: skip
    """Compare systems with paired significance tests over queries.

    Parameters
    ----------
    {params: runs, qrels, measures, by@compare, baseline, test, correction, alpha, n_resamples,
    seed, system, complete, conventions, duplicates, rel, query, item, rank, score, relevant,
    relevance}

    Returns
    -------
    A DataFrame with one row per (group, measure, comparison): the ``by`` columns, ``system``,
    ``baseline``, ``measure``, ``n_queries`` (queries paired), ``mean`` and ``baseline_mean``
    (summaries over those queries, as :func:`~polars_rankeval.evaluate` makes them: the mean;
    the sum for counts; the geometric mean for GMAP), ``delta`` (``mean - baseline_mean``),
    ``p_value``, ``p_value_corrected``, ``effect_size`` (paired Cohen's d of the tested
    differences; null when they do not vary), ``ci_low``, ``ci_high`` (interval of
    ``delta``), ``significant`` (``p_value_corrected < alpha``) and the labels ``test``,
    ``correction``, ``ci_method``, ``ci_level`` (1 - alpha); ``test`` says what is tested.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankeval.compare import compare
    >>> qrels = pl.DataFrame({"query": ["q1", "q2", "q3"], "item": list("abc"), "relevance": 1})
    >>> bm25 = pl.DataFrame({"query": ["q1", "q1", "q2", "q2", "q3", "q3"], "item": list("xabyxc"),
    ...                      "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0]})
    >>> dense = bm25.with_columns(score=-pl.col("score"))
    >>> # RR: bm25 0.5, 1, 0.5; dense 1, 0.5, 1: mean difference 1/6, s.e. 1/3, t(2) = 0.5, p = 2/3
    >>> compare({"bm25": bm25, "dense": dense}, qrels, ["RR"], baseline="bm25").select(
    ...     "system", "measure", "mean", "delta", "p_value", "ci_method")
    shape: (1, 6)
    ┌────────┬─────────┬──────────┬──────────┬──────────┬───────────┐
    │ system ┆ measure ┆ mean     ┆ delta    ┆ p_value  ┆ ci_method │
    │ ---    ┆ ---     ┆ ---      ┆ ---      ┆ ---      ┆ ---       │
    │ str    ┆ str     ┆ f64      ┆ f64      ┆ f64      ┆ str       │
    ╞════════╪═════════╪══════════╪══════════╪══════════╪═══════════╡
    │ dense  ┆ RR      ┆ 0.833333 ┆ 0.166667 ┆ 0.666667 ┆ t         │
    └────────┴─────────┴──────────┴──────────┴──────────┴───────────┘
    """
    options, names, by_list = checked_arguments(
        runs, measures, by, system=system, query=query, test=test, correction=correction,
        alpha=alpha, n_resamples=n_resamples, seed=seed, baseline=baseline)  # fmt: skip
    per_query, systems = per_query_values(
        runs, qrels, names, system=system, by=by_list, complete=complete,
        conventions=conventions, duplicates=duplicates, rel=rel, query=query, item=item,
        rank=rank, score=score, relevant=relevant, relevance=relevance)  # fmt: skip
    return compare_per_query(
        per_query, systems, names, options=options, by=by_list, conventions=conventions,
        rel=rel, system=system, query=query)  # fmt: skip


def checked_arguments(
    runs: Mapping[str, Frame] | Frame, measures: object, by: str | Sequence[str] | None, *,
    system: str, query: str, **test_options: Any,
) -> tuple[TestOptions, list[str], list[str]]:
    """What :func:`compare` and the report check before evaluating: the test options, the
    measure names (each once, in order), the ``by`` columns, the baseline among the named
    runs."""
    options = TestOptions(**test_options)
    if not isinstance(measures, str) and not isinstance(measures, Iterable):
        raise MeasureError(
            f"measures={measures!r}: give a measure name or a list of names, e.g. ['AP', 'nDCG@10']"
        )
    names = [measures] if isinstance(measures, str) else list(dict.fromkeys(measures))
    by_list = by_columns(by, system=system, query=query)
    if isinstance(runs, Mapping):
        options.check_baseline(list(runs))  # before the evaluation
    return options, names, by_list
