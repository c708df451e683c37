"""MkDocs hook: the parts of the site generated at build time, never pasted by hand.

- ``<!-- measures -->``, ``<!-- diversity -->``, ``<!-- presets -->`` and
  ``<!-- trec-aliases -->`` in a page are replaced by the tables of :mod:`polars_rankeval._docs` (rendered from the registry, the
  same text the README's tables are checked against);
- ``benchmark-results.md`` is ``benchmarks/RESULTS.md`` as the benchmark runner wrote it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

from polars_rankeval._docs import alias_list, diversity_table, measure_table, preset_table

ROOT = Path(__file__).parents[2]
GENERATED = {
    "<!-- measures -->": measure_table,
    "<!-- diversity -->": diversity_table,
    "<!-- presets -->": preset_table,
    "<!-- trec-aliases -->": alias_list,
}


def on_files(files: Files, config: Any) -> Files:
    """Add the benchmark results page, read from the benchmarks folder at build time."""
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text()
    files.append(File.generated(config, "benchmark-results.md", content=results))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Replace each table marker by the table generated from the registry."""
    for marker, render in GENERATED.items():
        markdown = markdown.replace(marker, render())
    return markdown
