"""``engine="duckdb"`` reading the user's own Parquet file instead of a copy of it.

A lazy input is handed to DuckDB as a Parquet file that polars writes (``sink_parquet``,
~1.5 CPU s at 10M run rows).  When the input is exactly ``pl.scan_parquet(path)`` of one
local file, with polars' defaults (no filter, projection, row index, hive options, list
of files or glob), DuckDB can read that file itself: :func:`parquet_view` gives the view
to create, or None when anything differs (then the engine makes its copy as before).

The plan is recognised without guessing at its form: the path polars prints for the
scan is taken, ``pl.scan_parquet(path)`` is built again, and the two plans must
serialize to the same bytes.  Each column must be of a dtype that polars and DuckDB
read alike, and DuckDB's view must show the types expected (:meth:`ParquetView.create`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    import duckdb as _duckdb

__all__ = ["ParquetView", "parquet_view", "plain_parquet_file"]

# dtypes that a Parquet file gives polars and DuckDB alike (DuckDB's name of each)
_DUCKDB_TYPES: dict[pl.DataType, str] = {
    pl.String(): "VARCHAR",
    pl.Int8(): "TINYINT", pl.Int16(): "SMALLINT", pl.Int32(): "INTEGER", pl.Int64(): "BIGINT",
    pl.UInt8(): "UTINYINT", pl.UInt16(): "USMALLINT", pl.UInt32(): "UINTEGER",
    pl.UInt64(): "UBIGINT", pl.Float32(): "FLOAT", pl.Float64(): "DOUBLE",
}

_SCAN = "Parquet SCAN ["
_GLOB = set("*?[]{}")


def plain_parquet_file(frame: pl.LazyFrame) -> str | None:
    """The local file ``frame`` reads when it is exactly ``pl.scan_parquet(that file)``
    with polars' defaults; else None.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.parquet")
    >>> pl.DataFrame({"query": ["q1"], "score": [1.0]}).write_parquet(path)
    >>> plain_parquet_file(pl.scan_parquet(path)) == path
    True
    >>> plain_parquet_file(pl.scan_parquet(path).filter(pl.col("score") > 0)) is None
    True
    """
    try:
        first = frame.explain(optimized=False).split("\n", 1)[0]
        if not (first.startswith(_SCAN) and first.endswith("]")):
            return None  # not a scan at the root, or not of Parquet
        path = first[len(_SCAN):-1]
        if _GLOB & set(path) or not os.path.isfile(path):
            return None  # a glob, a list of files, a directory, a remote source
        rebuilt = pl.scan_parquet(path)
        rebuilt.explain(optimized=False)  # the same state as ``frame``'s plan
        return path if rebuilt.serialize() == frame.serialize() else None
    except Exception:  # noqa: BLE001 - any doubt: the engine copies the input instead
        return None


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class ParquetView:
    """A DuckDB view over the user's Parquet file with the engine's column names."""

    path: str
    # (the file's column, the engine's name, the SQL expression, the DuckDB type it has)
    columns: tuple[tuple[str, str, str, str], ...]

    def create(self, con: _duckdb.DuckDBPyConnection, name: str) -> bool:
        """Create the view ``name``; False (and no view) when DuckDB reads a column as
        another type than polars does."""
        literal = "'" + os.path.abspath(self.path).replace("'", "''") + "'"
        select = ", ".join(f"{expr} AS {_quoted(alias)}" for _, alias, expr, _ in self.columns)
        con.execute(f"CREATE TEMP VIEW {name} AS SELECT {select} FROM read_parquet({literal})")
        types = [row[1] for row in con.execute(f"DESCRIBE {name}").fetchall()]
        if types == [t for *_, t in self.columns]:
            return True
        con.execute(f"DROP VIEW {name}")
        return False


def parquet_view(
    frame: pl.LazyFrame, columns: list[tuple[str, str, pl.DataType | None]]
) -> ParquetView | None:
    """The view that hands ``columns`` of ``frame`` over, each ``(the frame's column,
    the engine's name, the dtype the engine hands over)`` (None: the column's own dtype;
    Float64 of a numeric column: cast in DuckDB), when ``frame`` is a plain scan of one
    Parquet file (:func:`plain_parquet_file`) and every column's dtype is read alike by
    polars and DuckDB; else None.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.parquet")
    >>> pl.DataFrame({"qid": ["q1"], "grade": [2]}).write_parquet(path)
    >>> view = parquet_view(pl.scan_parquet(path), [("qid", "_q", pl.String()),
    ...                                            ("grade", "relevance", pl.Float64())])
    >>> [(alias, sql_type) for _, alias, _, sql_type in view.columns]
    [('_q', 'VARCHAR'), ('relevance', 'DOUBLE')]
    >>> parquet_view(pl.scan_parquet(path), [("qid", "_q", pl.Int64())]) is None
    True
    """
    path = plain_parquet_file(frame)
    if path is None:
        return None
    schema = frame.collect_schema()
    view: list[tuple[str, str, str, str]] = []
    for column, alias, wanted in columns:
        dtype = schema.get(column)
        sql_type = None if dtype is None else _DUCKDB_TYPES.get(dtype)
        if dtype is None or sql_type is None:
            return None
        if wanted is None or wanted == dtype:
            view.append((column, alias, _quoted(column), sql_type))
        elif wanted == pl.Float64() and dtype.is_numeric():
            view.append((column, alias, f"CAST({_quoted(column)} AS DOUBLE)", "DOUBLE"))
        else:
            return None
    return ParquetView(path, tuple(view))
