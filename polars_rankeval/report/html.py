"""The HTML report: one self-contained page (settings, results tables, comparison
details and the plots embedded as SVG images)."""

from __future__ import annotations

import html
import math
from typing import Any

import polars as pl

from polars_rankeval.report import figures
from polars_rankeval.report.tables import (
    CORRECTION_NAMES,
    TEST_NAMES,
    by_of,
    html_tables,
    table_model,
)

__all__ = ["comparison_table", "render_html"]

_HEAD = (
    "Measure", "System", "Baseline", "Queries", "Summary", "Baseline summary", "Δ",
    "{interval}", "p", "p corrected", "Effect size d", "Significant",
)  # fmt: skip


def _number(value: float | None, digits: int = 4, sign: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _p_text(value: float | None) -> str:
    if value is None:
        return "–"
    return "&lt; 0.0001" if value < 1e-4 else f"{value:.4f}"


def interval_label(comparison: pl.DataFrame) -> str:
    """``95% t interval of Δ`` from the comparison's label columns."""
    if "ci_method" not in comparison.columns or comparison.is_empty():
        return "Interval of Δ"
    level, method = comparison["ci_level"][0], comparison["ci_method"][0]
    return f"{100 * level:g}% {method} interval of Δ"


def comparison_table(comparison: pl.DataFrame) -> str:
    """Every comparison, one row each (the ``by`` columns first)."""
    by = by_of(comparison)
    rows = []
    for r in comparison.iter_rows(named=True):
        cells = [html.escape(str(r[c])) for c in by]
        cells += [html.escape(r["measure"]), html.escape(r["system"]), html.escape(r["baseline"])]
        numbers = [
            str(r["n_queries"]), _number(r["mean"]), _number(r["baseline_mean"]),
            _number(r["delta"], sign=True),
            f"[{_number(r['ci_low'], sign=True)}, {_number(r['ci_high'], sign=True)}]",
            _p_text(r["p_value"]), _p_text(r["p_value_corrected"]),
            _number(r["effect_size"], 2, sign=True),
        ]  # fmt: skip
        tds = "".join(f"<td>{c}</td>" for c in cells)
        tds += "".join(f'<td class="num">{n}</td>' for n in numbers)
        sig = "yes" if r["significant"] else "no"
        rows.append(f'<tr class="{"sig" if r["significant"] else ""}">{tds}<td>{sig}</td></tr>')
    names = [*by, *_HEAD]
    names[names.index("{interval}")] = interval_label(comparison)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in names)
    return (
        f'<table class="comparison"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _settings(report: Any) -> str:
    options = report.options
    test = TEST_NAMES[options.test]
    if options.test != "t":
        test += f" ({options.n_resamples} resamples, seed {options.seed})"
    settings = [
        ("Systems", ", ".join(report.systems)),
        ("Measures", ", ".join(report.measures)),
        ("Queries", str(report.per_query["query"].n_unique())),
        ("Groups (by)", ", ".join(report.by) or "none"),
        ("Baseline", options.baseline or "none (every pair compared)"),
        ("Test", test),
        ("Interval", interval_label(report.comparison).replace(" of Δ", "")),
        ("Correction", CORRECTION_NAMES[options.correction]),
        ("α", f"{options.alpha:g}"),
    ]
    return "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in settings
    )


def _panels(report: Any) -> list[figures.Panel]:
    """A plot panel per measure, and per ``by`` group."""
    if not report.by:
        return [figures.Panel(m, pl.col("measure") == m) for m in report.measures]
    groups = report.per_query.select(report.by).unique().sort(report.by, nulls_last=True)
    panels = []
    for key in groups.rows(named=True):
        where = pl.all_horizontal(pl.col(c).eq_missing(v) for c, v in key.items())
        label = ", ".join(f"{c} = {v}" for c, v in key.items())
        panels += [figures.Panel(f"{m} ({label})", where & (pl.col("measure") == m))
                   for m in report.measures]  # fmt: skip
    return panels


def render_html(report: Any, *, title: str, digits: int) -> str:
    """The page of ``report`` (a :class:`~polars_rankeval.report.model.Report`; typed
    loosely so that this module needs nothing of the model's: no import cycle)."""
    from polars_rankeval import __version__

    options = report.options
    reference = options.baseline if options.baseline is not None else report.systems[0]
    model = table_model(report.comparison, digits=digits)
    panels = _panels(report)
    note = (
        ""
        if options.baseline is not None
        else (f" No baseline was given; differences are against the first system, {reference}.")
    )
    curves = (
        figures.curves_figure(report.summary, report.systems, report.curves)
        if any(report.curves.values())
        else "<p>(no cutoff curves" + (": they are drawn without by groups" if report.by else "")
        + ")</p>"
    )  # fmt: skip
    fields: dict[str, Any] = {
        "title": html.escape(title),
        "settings": _settings(report),
        "results": html_tables(model),
        "legend": html.escape(model.legend),
        "comparison": comparison_table(report.comparison),
        "interval": html.escape(interval_label(report.comparison)),
        "means": figures.means_figure(report.summary, report.systems, panels, options.alpha),
        "differences": figures.differences_figure(
            report.per_query, reference, report.systems, panels
        ),
        "reference_note": html.escape(note),
        "curves": curves,
        "version": html.escape(__version__),
    }
    return _PAGE.format(**fields)


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
<p class="note">Δ = summary of the system − summary of the baseline over the queries both
were evaluated on (means; sums for counts; geometric means for GMAP, tested on
log(max(AP, 1e-5))); the interval of Δ is the one that matches the test ({interval});
effect size d = mean / standard deviation of the tested per-query differences (paired
Cohen's d).</p>

<h2>Summaries with confidence intervals</h2>
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
