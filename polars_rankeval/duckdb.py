"""DuckDB: ``install(con)`` puts the SQL twin's per-family macros into your connection;
``install_entry_point(con)`` the SQL user's entry point (``sql/rankeval.sql``:
``rankeval_per_query`` / ``rankeval_summary`` on any table).

The engine behind ``evaluate(..., engine="duckdb")`` lives in
:mod:`polars_rankeval.engines.duckdb`; this module keeps the public import path.
"""

from polars_rankeval.engines.duckdb import install, install_entry_point

__all__ = ["install", "install_entry_point"]
