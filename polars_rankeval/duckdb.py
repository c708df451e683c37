"""DuckDB: ``install(con)`` puts the SQL twin's macros into your connection.

The engine behind ``evaluate(..., engine="duckdb")`` lives in
:mod:`polars_rankeval.engines.duckdb`; this module keeps the public import path.
"""

from polars_rankeval.engines.duckdb import install

__all__ = ["install"]
