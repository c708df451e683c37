"""polars_rankeval: trec_eval-exact ranking evaluation as lazy polars expressions and SQL.

``import polars_rankeval`` registers the ``rankeval`` namespace on DataFrame, LazyFrame
and Expr.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from polars_rankeval import namespace  # noqa: F401  (registers `rankeval`; imports polars)
from polars_rankeval._errors import InputError, MeasureError, RankevalError, RankevalWarning
from polars_rankeval.io import read_trec_qrels, read_trec_run

if TYPE_CHECKING:
    from polars_rankeval import expr
    from polars_rankeval._parse import PRESETS, parse_measure
    from polars_rankeval._registry import REGISTRY
    from polars_rankeval.compare import compare
    from polars_rankeval.evaluate import evaluate
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


# the rest is imported on first use (the measures, the engines: ~60 ms after polars):
# `rankeval` reads its run file meanwhile, and the report code (HTML, Markdown, LaTeX)
# is left out until asked for
_LAZY = {
    "expr": ("polars_rankeval.expr", None),
    "PRESETS": ("polars_rankeval._parse", "PRESETS"),
    "parse_measure": ("polars_rankeval._parse", "parse_measure"),
    "REGISTRY": ("polars_rankeval._registry", "REGISTRY"),
    "compare": ("polars_rankeval.compare", "compare"),
    "evaluate": ("polars_rankeval.evaluate", "evaluate"),
    "validate": ("polars_rankeval.validate", "validate"),
    "report": ("polars_rankeval.report", None),
    "write_report": ("polars_rankeval.report", "write_report"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'polars_rankeval' has no attribute {name!r}")
    module, attribute = _LAZY[name]
    found = importlib.import_module(module)
    return found if attribute is None else getattr(found, attribute)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


class _Package(types.ModuleType):
    """The package: ``evaluate``, ``compare`` and ``validate`` stay the functions when
    their modules (named alike) are first imported, which sets the package's attribute
    of that name to the module."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in ("compare", "evaluate", "validate") and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
