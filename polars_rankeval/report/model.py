"""What a report shows (:class:`Report`), built by :func:`build_report` from one
evaluation of every system, and written by :func:`write_report`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import polars as pl

from polars_rankeval._docparams import fill_params
from polars_rankeval._errors import RankevalError
from polars_rankeval._files import atomic_write
from polars_rankeval._parse import resolve_measures
from polars_rankeval.compare import (
    DEFAULT_MEASURES,
    Frame,
    checked_arguments,
    compare_per_query,
    compared_values,
    per_query_values,
    stack_runs,
)
from polars_rankeval.engines.finish import aggregate
from polars_rankeval.options import TestOptions
from polars_rankeval.report import tables

__all__ = ["Report", "build_report", "format_for_path", "write_report"]

REPORT_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".tex": "latex"}
DEFAULT_CUTOFFS = (1, 2, 3, 5, 10, 15, 20, 30, 50, 100, 200, 500, 1000)
CURVES = (("P", "Precision@k"), ("R", "Recall@k"), ("nDCG", "nDCG@k"))


def format_for_path(path: str | Path) -> str:
    """``html``, ``markdown`` or ``latex`` from a report path's suffix."""
    suffix = Path(path).suffix.lower()
    if suffix not in REPORT_FORMATS:
        raise RankevalError(
            f"report {str(path)!r}: the name must end in .html, .md or .tex to choose a format"
        )
    return REPORT_FORMATS[suffix]


@dataclass
class Report:
    """Everything a report shows; :meth:`write` renders it."""

    comparison: pl.DataFrame  # compare()'s result
    # [by...,] system, measure, mean, ci_low, ci_high, n_queries (the system's own queries)
    summary: pl.DataFrame
    per_query: pl.DataFrame  # [by...,] system, query, measure, value
    systems: list[str]
    measures: list[str]
    curves: dict[str, list[tuple[int, str]]]  # label -> [(k, measure name)]
    options: TestOptions
    by: list[str] = field(default_factory=list)

    def markdown(self, *, digits: int = 4) -> str:
        return tables.markdown_table(self.comparison, digits=digits)

    def latex(self, *, digits: int = 4) -> str:
        return tables.latex_table(self.comparison, digits=digits)

    def html(self, *, title: str = "Ranking evaluation report", digits: int = 4) -> str:
        """A self-contained HTML page (plots embedded as SVG images)."""
        from polars_rankeval.report.html import render_html

        return render_html(self, title=title, digits=digits)

    def write(
        self, path: str | Path, *, format: str | None = None, title: str | None = None
    ) -> Path:
        """Render to ``path`` (format from the suffix unless given), atomically."""
        fmt = format or format_for_path(path)
        if fmt == "html":
            text = self.html(title=title or "Ranking evaluation report")
        elif fmt == "markdown":
            text = self.markdown()
        elif fmt == "latex":
            text = self.latex()
        else:
            raise RankevalError(f"format={fmt!r}: choose html, markdown or latex")
        data = text.encode("utf-8")

        def write(file: BinaryIO) -> None:
            file.write(data)

        return atomic_write(path, write)


def summary(
    per_query: pl.DataFrame,
    measures: Sequence[str],
    *,
    by: Sequence[str] = (),
    alpha: float = 0.05,
    conventions: str = "trec_eval",
    rel: float | None = None,
) -> pl.DataFrame:
    """Each system's summary per measure (and ``by`` group) over its own queries, as
    :func:`~polars_rankeval.evaluate` summarises (mean; sum for counts; geometric mean
    for GMAP), with a t interval computed on the scale the summary averages (the
    values; the values, times n for sums; log(max(x, 1e-5)) for GMAP, mapped back by exp).
    """
    from polars_rankeval._significance import t_ppf

    parts = []
    for name, m in resolve_measures(measures, conventions=conventions, rel=rel):
        tested = compared_values(pl.col("value"), m)
        parts.append(
            per_query.filter(pl.col("measure") == name)
            .group_by(*by, "system", "measure", maintain_order=True)
            .agg(
                aggregate(pl.col("value"), m).alias("mean"),
                tested.mean().alias("_mu"),
                tested.std().fill_null(0.0).alias("_sd"),
                pl.len().alias("n_queries"),
            )
            .with_columns(_kind=pl.lit(m.family.aggregate))
        )
    stats = pl.concat(parts)
    factors = {
        n: (t_ppf(1 - alpha / 2, n - 1) if n > 1 else 0.0)
        for n in stats["n_queries"].unique().to_list()
    }
    n = pl.col("n_queries")
    half = n.replace_strict(factors, return_dtype=pl.Float64) * pl.col("_sd") / n.sqrt()

    def back(x: pl.Expr) -> pl.Expr:  # a mean on the tested scale -> the summary's scale
        kind = pl.col("_kind")
        return pl.when(kind == "sum").then(n * x).when(kind == "gmean").then(x.exp()).otherwise(x)

    return stats.select(
        *by,
        "system",
        "measure",
        "mean",
        back(pl.col("_mu") - half).alias("ci_low"),
        back(pl.col("_mu") + half).alias("ci_high"),
        "n_queries",
    )


def _cutoffs(
    stacked: pl.LazyFrame, system: str, query: str, cutoffs: Sequence[int] | None
) -> list[int]:
    if cutoffs is not None:
        ks = sorted({int(k) for k in cutoffs})
        if any(k <= 0 for k in ks):
            raise RankevalError(f"cutoffs must be positive integers, got {list(cutoffs)}")
        return ks
    depth = stacked.group_by(system, query).len().select(pl.col("len").max()).collect().item()
    depth = int(depth or 1)
    ks = [k for k in DEFAULT_CUTOFFS if k <= depth]
    return ks if depth in ks or depth > DEFAULT_CUTOFFS[-1] else [*ks, depth]


def _curve_names(
    runs: Mapping[str, Frame] | Frame, cutoffs: Sequence[int] | None, system: str, query: str
) -> dict[str, list[tuple[int, str]]]:
    stacked, _ = stack_runs(runs, system=system)
    ks = _cutoffs(stacked, system, query, cutoffs)
    return {label: [(k, f"{family}@{k}") for k in ks] for family, label in CURVES}


@fill_params
def build_report(
    runs: Mapping[str, Frame] | Frame,
    qrels: Frame | None,
    measures: str | Iterable[str] = DEFAULT_MEASURES,
    *,
    by: str | Sequence[str] | None = None,
    baseline: str | None = None,
    test: str = "t",
    correction: str | None = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int = 0,
    cutoffs: Sequence[int] | None = None,
    curves: bool = True,
    system: str = "system",
    query: str = "query",
    **evaluate_kwargs: Any,
) -> Report:
    """Evaluate every system once (the measures and the cutoff curves) and compare them,
    as :func:`~polars_rankeval.compare.compare` does (with ``by``: a table and a set of
    plot panels per group).

    Parameters
    ----------
    {params: runs, qrels, measures, by@compare, baseline, test, correction, alpha, n_resamples,
    seed, cutoffs@report}
    curves
        Compute the curves; False skips them (Markdown and LaTeX reports do not show
        them, nor do reports with ``by``).
    {params: system, query}
    **evaluate_kwargs
        Options of :func:`~polars_rankeval.evaluate`, as for ``compare`` (``complete``,
        ``conventions``, ``duplicates``, ``rel``, the other column names).
    """
    options, names, by_list = checked_arguments(
        runs, measures, by, system=system, query=query, test=test, correction=correction,
        alpha=alpha, n_resamples=n_resamples, seed=seed, baseline=baseline)  # fmt: skip
    curve_names = _curve_names(runs, cutoffs, system, query) if curves and not by_list else {}
    everything = list(dict.fromkeys([*names, *(n for p in curve_names.values() for _, n in p)]))
    per_query, systems = per_query_values(
        runs, qrels, everything, system=system, by=by_list, query=query, **evaluate_kwargs
    )
    per_query = per_query.rename({system: "system", query: "query"})
    resolve = {k: evaluate_kwargs[k] for k in ("conventions", "rel") if k in evaluate_kwargs}
    mine = per_query.filter(pl.col("measure").is_in(names))
    return Report(
        comparison=compare_per_query(mine, systems, names, options=options, by=by_list, **resolve),
        summary=summary(per_query, everything, by=by_list, alpha=alpha, **resolve),
        per_query=mine,
        systems=systems,
        measures=names,
        curves=curve_names,
        options=options,
        by=by_list,
    )


@fill_params
def write_report(
    path: str | Path,
    runs: Mapping[str, Frame] | Frame,
    qrels: Frame | None,
    measures: str | Iterable[str] = DEFAULT_MEASURES,
    *,
    format: str | None = None,
    title: str | None = None,
    **options: Any,
) -> Path:
    """Compare ``runs`` and write the report to ``path`` (.html, .md or .tex), atomically.

    Parameters
    ----------
    path
        The file to write; its suffix names the format unless ``format`` is given.
    {params: runs, qrels, measures}
    format
        ``"html"`` (with figures), ``"markdown"`` or ``"latex"`` (tables).
    title
        The HTML report's title (default: "Ranking evaluation report").
    **options
        Those of :func:`build_report` (``by=`` among them: a table per group).

    Returns
    -------
    The path written.
    """
    fmt = format or format_for_path(path)
    report = build_report(runs, qrels, measures, curves=fmt == "html", **options)
    return report.write(path, format=fmt, title=title)
