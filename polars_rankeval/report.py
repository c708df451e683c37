"""Reports of a comparison: Markdown and LaTeX tables, and an HTML page with plots.

The tables follow ranx's layout: one row per system (with a letter), one column per
measure, the best value of each measure in bold, and superscript letters naming the
systems a value is significantly better than.  The HTML report adds the comparison
details and three plots (matplotlib, embedded as SVG images, so the page is one
self-contained file): per-measure means with confidence intervals, per-query
differences against the baseline, and P@k, R@k and nDCG@k over k.

Plots need the ``report`` extra (``pip install 'polars_rankeval[report]'``); the
Markdown and LaTeX tables need only numpy (the ``compare`` extra).
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import polars as pl

from polars_rankeval._errors import RankevalError
from polars_rankeval._files import atomic_write
from polars_rankeval.compare import (
    DEFAULT_MEASURES,
    Frame,
    check_options,
    compare_per_query,
    per_query_values,
    stack_runs,
)
from polars_rankeval.options import TestOptions

__all__ = [
    "Report",
    "build_report",
    "format_for_path",
    "latex_table",
    "markdown_table",
    "write_report",
]

REPORT_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".tex": "latex"}
DEFAULT_CUTOFFS = (1, 2, 3, 5, 10, 15, 20, 30, 50, 100, 200, 500, 1000)
_LOG_LABELS = frozenset({1, 2, 5, 10, 20, 50, 100, 200, 500, 1000})
CURVES = (("P", "Precision@k"), ("R", "Recall@k"), ("nDCG", "nDCG@k"))
_TEST_NAMES = {
    "t": "paired t-test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test",
}
_CORRECTION_NAMES = {
    "holm": "Holm correction",
    "bonferroni": "Bonferroni correction",
    "bh": "Benjamini-Hochberg correction",
    None: "no correction",
}


def format_for_path(path: str | Path) -> str:
    """``html``, ``markdown`` or ``latex`` from a report path's suffix."""
    suffix = Path(path).suffix.lower()
    if suffix not in REPORT_FORMATS:
        raise RankevalError(
            f"report {str(path)!r}: the name must end in .html, .md or .tex to choose a format"
        )
    return REPORT_FORMATS[suffix]


# ---------------------------------------------------------------- tables


def _letters(n: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26] for i in range(n)]


@dataclass(frozen=True)
class _Cell:
    text: str  # the value, formatted
    best: bool
    better_than: tuple[str, ...]  # letters of the systems this value significantly beats


def _table_cells(
    comparison: pl.DataFrame, *, digits: int
) -> tuple[list[str], list[str], list[str], dict[tuple[str, str], _Cell]]:
    """Systems (in order), their letters, measures, and one cell per (system, measure)."""
    systems: list[str] = []
    for baseline, system in comparison.select("baseline", "system").iter_rows():
        for name in (baseline, system):
            if name not in systems:
                systems.append(name)
    measures = list(dict.fromkeys(comparison["measure"].to_list()))
    letters = dict(zip(systems, _letters(len(systems))))
    means: dict[tuple[str, str], float] = {}
    beats: dict[tuple[str, str], list[str]] = {}
    for row in comparison.iter_rows(named=True):
        system, baseline, measure = row["system"], row["baseline"], row["measure"]
        means.setdefault((system, measure), row["mean"])
        means.setdefault((baseline, measure), row["baseline_mean"])
        if row["significant"]:
            winner, loser = (system, baseline) if row["delta"] > 0 else (baseline, system)
            if row["delta"] != 0:
                beats.setdefault((winner, measure), []).append(letters[loser])
    cells = {}
    for measure in measures:
        texts = {s: f"{means[(s, measure)]:.{digits}f}" for s in systems if (s, measure) in means}
        best = max(float(t) for t in texts.values())
        for system, text in texts.items():
            marks = sorted(beats.get((system, measure), []), key=lambda x: (len(x), x))
            cells[(system, measure)] = _Cell(text, float(text) == best, tuple(marks))
    return systems, [letters[s] for s in systems], measures, cells


def _legend(comparison: pl.DataFrame, *, test: str, correction: str | None, alpha: float) -> str:
    baselines = set(comparison["baseline"].to_list())
    compared = set(comparison["system"].to_list())
    if len(baselines) == 1 and not baselines & compared and len(compared) > 1:
        against = f"comparisons against {next(iter(baselines))} only"
    else:
        against = "every pair of systems"
    return (
        f"Best value per measure in bold. Superscript letters: significantly better than "
        f"the system with that letter ({_TEST_NAMES.get(test, test)}, two-sided, "
        f"{_CORRECTION_NAMES.get(correction, correction)} over the comparisons of each "
        f"measure, α = {alpha:g}; {against})."
    )


def _markdown_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")


def markdown_table(
    comparison: pl.DataFrame,
    *,
    test: str = "t",
    correction: str | None = "holm",
    alpha: float = 0.05,
    digits: int = 4,
) -> str:
    """A Markdown table of a :func:`~polars_rankeval.compare.compare` result, with legend.

    >>> comparison = pl.DataFrame({
    ...     "system": ["dense"], "baseline": ["bm25"], "measure": ["AP"], "mean": [0.4],
    ...     "baseline_mean": [0.3], "delta": [0.1], "significant": [True]})
    >>> print(markdown_table(comparison))  # doctest: +NORMALIZE_WHITESPACE
    | # | System | AP |
    |:-:|:--|--:|
    | a | bm25 | 0.3000 |
    | b | dense | **0.4000**<sup>a</sup> |
    <BLANKLINE>
    Best value per measure in bold. Superscript letters: significantly better than the
    system with that letter (paired t-test, two-sided, Holm correction over the
    comparisons of each measure, α = 0.05; every pair of systems).
    """
    systems, letters, measures, cells = _table_cells(comparison, digits=digits)
    lines = [
        "| # | System | " + " | ".join(_markdown_escape(m) for m in measures) + " |",
        "|:-:|:--|" + "--:|" * len(measures),
    ]
    for system, letter in zip(systems, letters):
        row = []
        for measure in measures:
            cell = cells.get((system, measure))
            if cell is None:
                row.append("")
                continue
            text = f"**{cell.text}**" if cell.best else cell.text
            if cell.better_than:
                text += f"<sup>{''.join(cell.better_than)}</sup>"
            row.append(text)
        lines.append(f"| {letter} | {_markdown_escape(system)} | " + " | ".join(row) + " |")
    legend = _legend(comparison, test=test, correction=correction, alpha=alpha)
    return "\n".join(lines) + "\n\n" + legend + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def latex_table(
    comparison: pl.DataFrame,
    *,
    test: str = "t",
    correction: str | None = "holm",
    alpha: float = 0.05,
    digits: int = 4,
) -> str:
    """A LaTeX ``table`` (booktabs) of a comparison; the legend is the caption."""
    systems, letters, measures, cells = _table_cells(comparison, digits=digits)
    legend = _legend(comparison, test=test, correction=correction, alpha=alpha)
    lines = [
        r"% needs \usepackage{booktabs}",
        r"\begin{table}[t]",
        r"\centering",
        r"\caption{" + _latex_escape(legend).replace("α", r"$\alpha$") + "}",
        r"\begin{tabular}{cl" + "r" * len(measures) + "}",
        r"\toprule",
        r"\# & System & " + " & ".join(_latex_escape(m) for m in measures) + r" \\",
        r"\midrule",
    ]
    for system, letter in zip(systems, letters):
        row = []
        for measure in measures:
            cell = cells.get((system, measure))
            if cell is None:
                row.append("")
                continue
            text = rf"\textbf{{{cell.text}}}" if cell.best else cell.text
            if cell.better_than:
                text += rf"$^{{{''.join(cell.better_than)}}}$"
            row.append(text)
        lines.append(f"{letter} & {_latex_escape(system)} & " + " & ".join(row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _html_results_table(comparison: pl.DataFrame, *, digits: int) -> str:
    systems, letters, measures, cells = _table_cells(comparison, digits=digits)
    head = "".join(f"<th>{html.escape(m)}</th>" for m in measures)
    body = []
    for system, letter in zip(systems, letters):
        tds = []
        for measure in measures:
            cell = cells.get((system, measure))
            if cell is None:
                tds.append("<td></td>")
                continue
            text = f"<b>{cell.text}</b>" if cell.best else cell.text
            if cell.better_than:
                text += f"<sup>{''.join(cell.better_than)}</sup>"
            tds.append(f'<td class="num">{text}</td>')
        body.append(
            f'<tr><td class="letter">{letter}</td><td>{html.escape(system)}</td>{"".join(tds)}</tr>'
        )
    return (
        f'<table class="results"><thead><tr><th>#</th><th>System</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _html_comparison_table(comparison: pl.DataFrame) -> str:
    def number(value: float | None, digits: int = 4, sign: bool = False) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "–"
        return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"

    def p_text(value: float | None) -> str:
        if value is None:
            return "–"
        return "&lt; 0.0001" if value < 1e-4 else f"{value:.4f}"

    rows = []
    for r in comparison.iter_rows(named=True):
        rows.append(
            f'<tr class="{"sig" if r["significant"] else ""}">'
            f"<td>{html.escape(r['measure'])}</td><td>{html.escape(r['system'])}</td>"
            f'<td>{html.escape(r["baseline"])}</td><td class="num">{r["n_queries"]}</td>'
            f'<td class="num">{number(r["mean"])}</td>'
            f'<td class="num">{number(r["baseline_mean"])}</td>'
            f'<td class="num">{number(r["delta"], sign=True)}</td>'
            f'<td class="num">[{number(r["ci_low"], sign=True)}, '
            f"{number(r['ci_high'], sign=True)}]</td>"
            f'<td class="num">{p_text(r["p_value"])}</td>'
            f'<td class="num">{p_text(r["p_value_corrected"])}</td>'
            f'<td class="num">{number(r["effect_size"], 2, sign=True)}</td>'
            f"<td>{'yes' if r['significant'] else 'no'}</td></tr>"
        )
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "Measure",
            "System",
            "Baseline",
            "Queries",
            "Mean",
            "Baseline mean",
            "Δ",
            "Interval of Δ",
            "p",
            "p corrected",
            "Effect size d",
            "Significant",
        )
    )
    return (
        f'<table class="comparison"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


# ---------------------------------------------------------------- plots


def _matplotlib() -> Any:
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - matplotlib comes with the `report` extra
        raise ImportError(
            "the HTML report draws its plots with matplotlib: pip install 'polars_rankeval[report]'"
        ) from None
    return matplotlib, Figure


def _svg_image(figure: Any, alt: str) -> str:
    matplotlib, _ = _matplotlib()
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "polars_rankeval"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None}, dpi=150)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/svg+xml;base64,{data}">'


def _colors(systems: Sequence[str]) -> dict[str, Any]:
    matplotlib, _ = _matplotlib()
    palette = matplotlib.colormaps["tab10"].colors
    return {s: palette[i % len(palette)] for i, s in enumerate(systems)}


def _grid(n: int, columns: int) -> tuple[int, int]:
    columns = max(1, min(columns, n))
    return math.ceil(n / columns), columns


def _means_figure(
    summary: pl.DataFrame, systems: Sequence[str], measures: Sequence[str], alpha: float
) -> str:
    _, Figure = _matplotlib()
    colors = _colors(systems)
    rows, columns = _grid(len(measures), 4)
    figure = Figure(figsize=(2.9 * columns + 0.4, 2.7 * rows + 0.4), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False)
    for index, measure in enumerate(measures):
        ax = axes[index // columns][index % columns]
        part = summary.filter(pl.col("measure") == measure)
        values = {r["system"]: r for r in part.iter_rows(named=True)}
        present = [s for s in systems if s in values]
        means = [values[s]["mean"] for s in present]
        low = [values[s]["mean"] - values[s]["ci_low"] for s in present]
        high = [values[s]["ci_high"] - values[s]["mean"] for s in present]
        positions = range(len(present))
        ax.bar(positions, means, color=[colors[s] for s in present], width=0.7)
        ax.errorbar(positions, means, yerr=[low, high], fmt="none", ecolor="#222", capsize=4, lw=1)
        ax.set_xticks(list(positions), present, rotation=30, ha="right", fontsize=8)
        ax.set_title(measure, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        ax.spines[["top", "right"]].set_visible(False)
    for index in range(len(measures), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    figure.suptitle(f"Mean per query, with {100 * (1 - alpha):g}% t intervals", fontsize=11)
    return _svg_image(figure, "per-measure means with confidence intervals")


def _differences_figure(
    per_query: pl.DataFrame, reference: str, systems: Sequence[str], measures: Sequence[str]
) -> str:
    import numpy as np

    _, Figure = _matplotlib()
    others = [s for s in systems if s != reference]
    rows, columns = len(measures), len(others)
    figure = Figure(
        figsize=(min(11.5, max(6.0, 5.0 * columns)), 2.3 * rows + 0.6), layout="constrained"
    )
    axes = figure.subplots(rows, columns, squeeze=False, sharey="row")
    for i, measure in enumerate(measures):
        wide = (
            per_query.filter(pl.col("measure") == measure)
            .select(pl.col("query").alias("\x00query"), "system", "value")
            .pivot(on="system", index="\x00query", values="value")
        )
        for j, other in enumerate(others):
            ax = axes[i][j]
            if other not in wide.columns or reference not in wide.columns:
                ax.set_visible(False)
                continue
            d = (
                wide.select((pl.col(other) - pl.col(reference)).alias("d"))
                .drop_nulls()
                .sort("d", descending=True)["d"]
                .to_numpy()
            )
            # one filled step outline per sign, not one bar per query; with many queries
            # the fill is embedded as a bitmap (axes and text stay vector): the image
            # stays small however many queries there are
            edges = np.arange(len(d) + 1)
            steps = np.append(d, d[-1:] if len(d) else [])
            for sign, color in ((1, "#2a9d4b"), (-1, "#c8413b")):
                ax.fill_between(
                    edges,
                    0,
                    np.where(sign * steps > 0, steps, 0),
                    step="post",
                    color=color,
                    lw=0,
                    rasterized=len(d) > 100,
                )
            ax.axhline(0, color="#222", lw=0.8)
            ax.set_xlim(0, max(len(d), 1))
            wins, losses = int((d > 0).sum()), int((d < 0).sum())
            ties = len(d) - wins - losses
            ax.set_title(
                f"{other} − {reference}: {measure}\n"
                f"better on {wins}, worse on {losses}, tied on {ties}",
                fontsize=8.5,
            )
            ax.set_xticks([])
            ax.set_xlabel("queries, sorted by difference", fontsize=7)
            ax.grid(axis="y", alpha=0.3)
            ax.set_axisbelow(True)
            ax.spines[["top", "right"]].set_visible(False)
    figure.suptitle(f"Per-query difference against {reference}", fontsize=11)
    return _svg_image(figure, f"per-query differences against {reference}")


def _curves_figure(
    summary: pl.DataFrame, systems: Sequence[str], curves: Mapping[str, Sequence[tuple[int, str]]]
) -> str:
    _, Figure = _matplotlib()
    colors = _colors(systems)
    figure = Figure(figsize=(11.5, 3.4), layout="constrained")
    axes = figure.subplots(1, len(curves), squeeze=False)[0]
    for ax, (label, points) in zip(axes, curves.items()):
        names = [name for _, name in points]
        ks = [k for k, _ in points]
        part = summary.filter(pl.col("measure").is_in(names))
        for system in systems:
            values = dict(
                part.filter(pl.col("system") == system).select("measure", "mean").iter_rows()
            )
            ax.plot(
                ks,
                [values.get(n, math.nan) for n in names],
                marker="o",
                ms=3,
                label=system,
                color=colors[system],
            )
        if ks and max(ks) / min(ks) > 20:
            ax.set_xscale("log")
            labelled = [k for k in ks if k in _LOG_LABELS] or ks
            ax.set_xticks(labelled, [str(k) for k in labelled], fontsize=7)
            ax.set_xticks([k for k in ks if k not in labelled], minor=True)
            ax.tick_params(axis="x", which="minor", labelbottom=False)
        else:
            ax.set_xticks(ks, [str(k) for k in ks], fontsize=7)
        ax.set_title(label, fontsize=10)
        ax.set_xlabel("cutoff k", fontsize=8)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside right upper", fontsize=8, frameon=False)
    figure.suptitle("Measures over the cutoff (mean per query)", fontsize=11)
    return _svg_image(figure, "precision, recall and nDCG over the cutoff")


# ---------------------------------------------------------------- the report


@dataclass
class Report:
    """Everything a report shows; :meth:`write` renders it."""

    comparison: pl.DataFrame  # compare()'s result
    summary: pl.DataFrame  # system, measure, mean, ci_low, ci_high, n_queries (own queries)
    per_query: pl.DataFrame  # system, query, measure, value
    systems: list[str]
    measures: list[str]
    curves: dict[str, list[tuple[int, str]]]  # label -> [(k, measure name)]
    baseline: str | None
    test: str
    correction: str | None
    alpha: float
    n_resamples: int
    seed: int

    def markdown(self, *, digits: int = 4) -> str:
        return markdown_table(
            self.comparison,
            test=self.test,
            correction=self.correction,
            alpha=self.alpha,
            digits=digits,
        )

    def latex(self, *, digits: int = 4) -> str:
        return latex_table(
            self.comparison,
            test=self.test,
            correction=self.correction,
            alpha=self.alpha,
            digits=digits,
        )

    def html(self, *, title: str = "Ranking evaluation report", digits: int = 4) -> str:
        """A self-contained HTML page (plots embedded as SVG images)."""
        reference = self.baseline if self.baseline is not None else self.systems[0]
        queries = self.per_query["query"].n_unique()
        settings = [
            ("Systems", ", ".join(self.systems)),
            ("Measures", ", ".join(self.measures)),
            ("Queries", str(queries)),
            ("Baseline", self.baseline or "none (every pair compared)"),
            (
                "Test",
                _TEST_NAMES[self.test]
                + (
                    f" ({self.n_resamples} resamples, seed {self.seed})" if self.test != "t" else ""
                ),
            ),
            ("Correction", _CORRECTION_NAMES[self.correction]),
            ("α", f"{self.alpha:g}"),
        ]
        settings_html = "".join(
            f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in settings
        )
        legend = _legend(
            self.comparison, test=self.test, correction=self.correction, alpha=self.alpha
        )
        means = _means_figure(self.summary, self.systems, self.measures, self.alpha)
        differences = _differences_figure(self.per_query, reference, self.systems, self.measures)
        reference_note = (
            ""
            if self.baseline is not None
            else f" No baseline was given; differences are against the first system, {reference}."
        )
        curves = (
            _curves_figure(self.summary, self.systems, self.curves)
            if any(self.curves.values())
            else "<p>(no cutoff curves)</p>"
        )
        from polars_rankeval import __version__

        return _PAGE.format(
            title=html.escape(title),
            settings=settings_html,
            results=_html_results_table(self.comparison, digits=digits),
            legend=html.escape(legend),
            comparison=_html_comparison_table(self.comparison),
            means=means,
            differences=differences,
            reference_note=html.escape(reference_note),
            curves=curves,
            version=html.escape(__version__),
        )

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


def _summary(per_query: pl.DataFrame, alpha: float) -> pl.DataFrame:
    """Mean per (system, measure) over the system's own queries, with a t interval."""
    from polars_rankeval._significance import t_ppf

    stats = per_query.group_by("system", "measure", maintain_order=True).agg(
        pl.col("value").mean().alias("mean"),
        pl.col("value").std().fill_null(0.0).alias("_sd"),
        pl.len().alias("n_queries"),
    )
    factors = {
        n: (t_ppf(1 - alpha / 2, n - 1) if n > 1 else 0.0)
        for n in stats["n_queries"].unique().to_list()
    }
    half = (
        pl.col("n_queries").replace_strict(factors, return_dtype=pl.Float64)
        * pl.col("_sd")
        / pl.col("n_queries").cast(pl.Float64).sqrt()
    )
    return stats.select(
        "system",
        "measure",
        "mean",
        (pl.col("mean") - half).alias("ci_low"),
        (pl.col("mean") + half).alias("ci_high"),
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


def build_report(
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
    cutoffs: Sequence[int] | None = None,
    curves: bool = True,
    system: str = "system",
    query: str = "query",
    **evaluate_kwargs: Any,
) -> Report:
    """Evaluate every system once (the measures and the cutoff curves) and compare them.

    Arguments as for :func:`~polars_rankeval.compare.compare`; ``cutoffs`` are the k of
    the P@k, R@k and nDCG@k curves (default: 1, 2, 3, 5, 10, ... up to the deepest
    ranking); ``curves=False`` skips them (Markdown and LaTeX reports do not show them).
    """
    check_options(test=test, correction=correction, alpha=alpha, n_resamples=n_resamples, seed=seed)
    names = [measures] if isinstance(measures, str) else list(dict.fromkeys(measures))
    if isinstance(runs, Mapping) and baseline is not None and baseline not in runs:
        raise RankevalError(f"baseline {baseline!r} is not a system; systems: {list(runs)}")
    curve_names: dict[str, list[tuple[int, str]]] = {}
    if curves:
        stacked, _ = stack_runs(runs, system=system)
        ks = _cutoffs(stacked, system, query, cutoffs)
        curve_names = {label: [(k, f"{family}@{k}") for k in ks] for family, label in CURVES}
    everything = list(dict.fromkeys([*names, *(n for p in curve_names.values() for _, n in p)]))
    per_query, systems = per_query_values(
        runs, qrels, everything, system=system, query=query, **evaluate_kwargs
    )
    per_query = per_query.rename({system: "system", query: "query"})
    comparison = compare_per_query(
        per_query.filter(pl.col("measure").is_in(names)),
        systems,
        names,
        options=TestOptions(test=test, correction=correction, alpha=alpha,
                            n_resamples=n_resamples, seed=seed, baseline=baseline),
    )
    return Report(
        comparison=comparison,
        summary=_summary(per_query, alpha),
        per_query=per_query.filter(pl.col("measure").is_in(names)),
        systems=systems,
        measures=names,
        curves=curve_names,
        baseline=baseline,
        test=test,
        correction=correction,
        alpha=alpha,
        n_resamples=n_resamples,
        seed=seed,
    )


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

    ``options`` are those of :func:`build_report`.  Returns the path written.
    """
    fmt = format or format_for_path(path)
    report = build_report(runs, qrels, measures, curves=fmt == "html", **options)
    return report.write(path, format=fmt, title=title)


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 1200px; padding: 0 1rem; color: #1d1d1f; line-height: 1.45; }}
h1 {{ font-size: 1.6rem; margin-bottom: 0.2rem; }}
h2 {{ font-size: 1.2rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }}
table {{ border-collapse: collapse; margin: 0.6rem 0; font-size: 0.9rem; }}
th, td {{ padding: 0.3rem 0.6rem; border-bottom: 1px solid #e5e5e5; text-align: left; }}
thead th {{ border-bottom: 2px solid #999; }}
td.num {{ text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }}
td.letter {{ color: #666; text-align: center; }}
table.settings th {{ font-weight: 600; color: #444; }}
tr.sig td {{ background: #f1f8f2; }}
sup {{ color: #1a6e34; font-weight: 600; }}
p.legend, p.note {{ font-size: 0.85rem; color: #555; max-width: 60rem; }}
img {{ max-width: 100%; height: auto; display: block; margin: 0.5rem 0; }}
footer {{ margin-top: 3rem; font-size: 0.8rem; color: #888; }}
</style>
</head>
<body>
<h1>{title}</h1>
<table class="settings">{settings}</table>

<h2>Results</h2>
{results}
<p class="legend">{legend}</p>

<h2>Comparisons</h2>
{comparison}
<p class="note">Δ = mean of (system − baseline) over the queries both were evaluated on;
interval of Δ at the same confidence level; effect size d = Δ / standard deviation of the
per-query differences (paired Cohen's d).</p>

<h2>Means with confidence intervals</h2>
{means}

<h2>Per-query differences</h2>
<p class="note">One bar per query, sorted; green: better than the reference, red: worse.{reference_note}</p>
{differences}

<h2>Measures over the cutoff</h2>
{curves}

<footer>Generated by polars_rankeval {version}.</footer>
</body>
</html>
"""
