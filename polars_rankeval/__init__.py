"""polars_rankeval: trec_eval-exact ranking evaluation as lazy polars expressions and SQL.

``import polars_rankeval`` registers the ``rankeval`` namespace on DataFrame, LazyFrame
and Expr.
"""

from __future__ import annotations

from polars_rankeval import expr, namespace  # noqa: F401  (namespace registers `rankeval`)
from polars_rankeval._errors import InputError, MeasureError, RankevalError, RankevalWarning
from polars_rankeval._parse import PRESETS, parse_measure
from polars_rankeval._registry import REGISTRY
from polars_rankeval.compare import compare
from polars_rankeval.evaluate import evaluate
from polars_rankeval.io import read_trec_qrels, read_trec_run
from polars_rankeval.report import write_report
from polars_rankeval.validate import validate

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
