"""polars_rankeval: trec_eval-exact ranking evaluation as lazy polars expressions and SQL.

``import polars_rankeval`` registers the ``rankeval`` namespace on DataFrame, LazyFrame
and Expr.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from polars_rankeval import expr, namespace  # noqa: F401  (namespace registers `rankeval`)
from polars_rankeval._errors import InputError, MeasureError, RankevalError, RankevalWarning
from polars_rankeval._parse import PRESETS, parse_measure
from polars_rankeval._registry import REGISTRY
from polars_rankeval.compare import compare
from polars_rankeval.evaluate import evaluate
from polars_rankeval.io import read_trec_qrels, read_trec_run
from polars_rankeval.validate import validate

if TYPE_CHECKING:
    from polars_rankeval.report import write_report

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "REGISTRY",
    "InputError",
    "MeasureError",
    "RankevalError",
    "RankevalWarning",
    "compare",
    "evaluate",
    "expr",
    "parse_measure",
    "read_trec_qrels",
    "read_trec_run",
    "validate",
    "write_report",
]


def __getattr__(name: str) -> Any:
    # the report code (HTML, Markdown, LaTeX) is imported on first use: `rankeval` and
    # `import polars_rankeval` start faster without it
    if name in ("report", "write_report"):
        report = importlib.import_module("polars_rankeval.report")
        return report if name == "report" else report.write_report
    raise AttributeError(f"module 'polars_rankeval' has no attribute {name!r}")
