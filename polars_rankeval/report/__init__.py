"""Reports of a comparison: Markdown and LaTeX tables, and an HTML page with plots.

- :mod:`~polars_rankeval.report.model`: :class:`Report` (what a report shows),
  :func:`build_report`, :func:`write_report`, :func:`format_for_path`;
- :mod:`~polars_rankeval.report.tables`: one table model (ranx's layout: a row per
  system with a letter, the best value in bold, superscript letters for the systems a
  value is significantly better than; a table per ``by`` group), rendered as Markdown,
  LaTeX and HTML;
- :mod:`~polars_rankeval.report.html`: the self-contained HTML page;
- :mod:`~polars_rankeval.report.figures`: its plots (matplotlib, embedded as SVG).

Plots need the ``report`` extra (``pip install 'polars_rankeval[report]'``); the
Markdown and LaTeX tables need only numpy (the ``compare`` extra).
"""

from __future__ import annotations

from polars_rankeval.report import tables
from polars_rankeval.report.model import Report, build_report, format_for_path, write_report
from polars_rankeval.report.tables import latex_table, markdown_table

__all__ = [
    "Report",
    "build_report",
    "format_for_path",
    "latex_table",
    "markdown_table",
    "tables",
    "write_report",
]
