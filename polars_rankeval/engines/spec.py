"""What the front hands an engine: the data, the resolved measures, the column names
and the validated options."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from polars_rankeval._registry import Measure
from polars_rankeval.options import Columns, EvalOptions

__all__ = ["Spec"]


class Spec(NamedTuple):
    """One evaluation, checked: ``run``/``qrels`` are the user's frames (polars frames
    for the polars and DuckDB engines, pyspark DataFrames for Spark)."""

    run: Any
    qrels: Any | None
    measures: Sequence[Measure]
    names: Sequence[str]  # the measure names as given, one per measure
    columns: Columns
    options: EvalOptions
    # columns renamed for the evaluation (prepare/names.py): alias -> the user's name,
    # so that error messages name the user's columns
    user_names: Mapping[str, str] = MappingProxyType({})
