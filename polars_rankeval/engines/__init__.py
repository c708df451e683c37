"""The engines behind ``evaluate``: each turns a :class:`~.spec.Spec` into one row per
evaluated query with a column per measure (``per_query``) and says which measures and
options it supports (``supports``); :mod:`.finish` does the rest for all of them.

* :mod:`.polars`: lazy polars expressions (default);
* :mod:`.duckdb`: the public SQL entry point ``rankeval_per_query`` (sql/rankeval.sql)
  in an in-process DuckDB;
* :mod:`.spark`: the SQL twin rendered for Spark SQL, on pyspark DataFrames.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

__all__ = ["engine", "is_spark_frame"]


def engine(name: str) -> ModuleType:
    """The engine module called ``name`` (imported on first use: DuckDB only when used)."""
    import importlib

    if name not in ("polars", "duckdb", "spark"):
        raise ValueError(f"no engine {name!r}")
    return importlib.import_module(f"polars_rankeval.engines.{name}")


def is_spark_frame(frame: Any) -> bool:
    """A pyspark DataFrame (classic or Connect), without importing pyspark."""
    return any(
        cls.__module__.startswith("pyspark.") and cls.__name__ == "DataFrame"
        for cls in type(frame).__mro__
    )
