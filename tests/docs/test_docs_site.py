"""The documentation site builds with ``mkdocs build --strict`` (every warning fails:
broken links, unresolved API references, docstrings that do not parse), offline."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from polars_rankeval._registry import REGISTRY
from polars_rankeval.diversity.families import DIVERSITY

ROOT = Path(__file__).parents[2]


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None,
    reason="mkdocs is not installed (pip install -e '.[docs]')",
)
def test_the_site_builds_strictly_with_generated_tables_and_api_reference(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr
    for page in ["getting-started", "measures", "migrating", "reliability", "performance",
                 "benchmark-results", "reference"]:
        assert (tmp_path / page / "index.html").exists(), page
    measures = (tmp_path / "measures" / "index.html").read_text()
    assert "<!-- measures -->" not in measures
    for family in [*REGISTRY, *DIVERSITY]:  # the generated tables list every family
        assert f"<code>{family}</code>" in measures, family
    assert "<!-- diversity -->" not in measures
    reference = (tmp_path / "reference" / "index.html").read_text()
    for name in ["evaluate.evaluate", "validate.validate", "compare.compare", "read_trec_run",
                 "read_trec_qrels", "write_report", "sql.render", "duckdb.install",
                 "spark.evaluate", "expr.measure"]:
        assert f'id="polars_rankeval.{name}"' in reference, name
    assert "fonts.googleapis" not in (tmp_path / "index.html").read_text()
