"""The HTML report's plots (matplotlib, embedded as SVG images): summaries with
intervals, per-query differences against the reference system, and P@k, R@k and
nDCG@k over k.  Plots need the ``report`` extra (``pip install 'polars_rankeval[report]'``).
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

__all__ = ["Panel", "curves_figure", "differences_figure", "means_figure"]

_LOG_LABELS = frozenset({1, 2, 5, 10, 20, 50, 100, 200, 500, 1000})


@dataclass(frozen=True)
class Panel:
    """One plot panel: a measure, in one ``by`` group (``where`` selects its rows)."""

    title: str
    where: pl.Expr

    def select(self, frame: pl.DataFrame) -> pl.DataFrame:
        return frame.filter(self.where)


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


def means_figure(
    summary: pl.DataFrame, systems: Sequence[str], panels: Sequence[Panel], alpha: float
) -> str:
    """One bar chart per panel (a measure, in a ``by`` group): each system's summary
    with its interval (``summary``: system, measure, mean, ci_low, ci_high, by...)."""
    _, Figure = _matplotlib()
    colors = _colors(systems)
    rows, columns = _grid(len(panels), 4)
    figure = Figure(figsize=(2.9 * columns + 0.4, 2.7 * rows + 0.4), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False)
    for index, panel in enumerate(panels):
        ax = axes[index // columns][index % columns]
        values = {r["system"]: r for r in panel.select(summary).iter_rows(named=True)}
        present = [s for s in systems if s in values]
        means = [values[s]["mean"] for s in present]
        low = [values[s]["mean"] - values[s]["ci_low"] for s in present]
        high = [values[s]["ci_high"] - values[s]["mean"] for s in present]
        positions = range(len(present))
        ax.bar(positions, means, color=[colors[s] for s in present], width=0.7)
        ax.errorbar(positions, means, yerr=[low, high], fmt="none", ecolor="#222", capsize=4, lw=1)
        ax.set_xticks(list(positions), present, rotation=30, ha="right", fontsize=8)
        ax.set_title(panel.title, fontsize=10)
        _style(ax, axis="y")
    for index in range(len(panels), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    figure.suptitle(f"Summary per system, with {100 * (1 - alpha):g}% t intervals", fontsize=11)
    return _svg_image(figure, "per-measure summaries with confidence intervals")


def _style(ax: Any, *, axis: str) -> None:
    ax.grid(axis=axis, alpha=0.3)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)


def _difference_axes(ax: Any, d: Any, title: str) -> None:
    """Sorted per-query differences as two filled step outlines (better, worse)."""
    import numpy as np

    # one filled step outline per sign, not one bar per query; with many queries the
    # fill is embedded as a bitmap (axes and text stay vector): the image stays small
    edges = np.arange(len(d) + 1)
    steps = np.append(d, d[-1:] if len(d) else [])
    for sign, color in ((1, "#2a9d4b"), (-1, "#c8413b")):
        ax.fill_between(
            edges, 0, np.where(sign * steps > 0, steps, 0), step="post", color=color, lw=0,
            rasterized=len(d) > 100,
        )  # fmt: skip
    ax.axhline(0, color="#222", lw=0.8)
    ax.set_xlim(0, max(len(d), 1))
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    ax.set_title(
        f"{title}\nbetter on {wins}, worse on {losses}, tied on {len(d) - wins - losses}",
        fontsize=8.5,
    )
    ax.set_xticks([])
    ax.set_xlabel("queries, sorted by difference", fontsize=7)
    _style(ax, axis="y")


def differences_figure(
    per_query: pl.DataFrame, reference: str, systems: Sequence[str], panels: Sequence[Panel]
) -> str:
    """Per panel (rows) and system (columns): the per-query differences against
    ``reference`` (``per_query``: system, query, measure, value, by...)."""
    _, Figure = _matplotlib()
    others = [s for s in systems if s != reference]
    rows, columns = len(panels), len(others)
    figure = Figure(
        figsize=(min(11.5, max(6.0, 5.0 * columns)), 2.3 * rows + 0.6), layout="constrained"
    )
    axes = figure.subplots(rows, columns, squeeze=False, sharey="row")
    for i, panel in enumerate(panels):
        wide = (
            panel.select(per_query)
            .select(pl.col("query").alias("\x00query"), "system", "value")
            .pivot(on="system", index="\x00query", values="value")
        )
        for j, other in enumerate(others):
            if other not in wide.columns or reference not in wide.columns:
                axes[i][j].set_visible(False)
                continue
            d = (
                wide.select((pl.col(other) - pl.col(reference)).alias("d"))
                .drop_nulls()
                .sort("d", descending=True)["d"]
                .to_numpy()
            )
            _difference_axes(axes[i][j], d, f"{other} − {reference}: {panel.title}")
    figure.suptitle(f"Per-query difference against {reference}", fontsize=11)
    return _svg_image(figure, f"per-query differences against {reference}")


def curves_figure(
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
