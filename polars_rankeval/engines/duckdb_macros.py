"""``engine="duckdb"``'s macros made once per machine, attached by each process.

Installing the entry point of ``sql/rankeval.sql`` (~1,700 lines: parsing them and
creating some 30 macros and tables) cost every new process ~0.13 CPU s before its first
evaluation.  A SQL user loads the file into a database once (``duckdb my.db <
sql/rankeval.sql``); the engine does the same: :func:`macro_file` creates the macros once
in a DuckDB database file of the cache folder (:func:`cache_folder`), named by the DuckDB
version and a hash of the SQL text, and each process attaches that file read-only
(:func:`attach`, ~0.02 CPU s).  The macros are the same statements, so the values are the
same bits.  Without a usable folder (``POLARS_RANKEVAL_CACHE_DIR=""``, a folder that
cannot be written, a file DuckDB cannot attach) the engine installs the macros in memory,
as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb as _duckdb

__all__ = ["ATTACHED", "CACHE_ENV", "attach", "cache_folder", "macro_file"]

# the environment variable naming the cache folder ("" : no cache, install in memory)
CACHE_ENV = "POLARS_RANKEVAL_CACHE_DIR"
# the attached database's name, first on each cursor's search path
ATTACHED = "rankeval_macros"


def cache_folder() -> Path | None:
    """Where the macros' database files are kept: ``$POLARS_RANKEVAL_CACHE_DIR`` when
    set (empty: nowhere, None), else ``polars_rankeval`` in ``$XDG_CACHE_HOME`` or
    ``~/.cache``.

    >>> import os
    >>> os.environ[CACHE_ENV] = "/tmp/rk-cache"
    >>> str(cache_folder())
    '/tmp/rk-cache'
    >>> os.environ[CACHE_ENV] = ""
    >>> cache_folder() is None
    True
    >>> del os.environ[CACHE_ENV]
    """
    chosen = os.environ.get(CACHE_ENV)
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "polars_rankeval"


def macro_file(sql: str) -> Path | None:
    """The database file holding the objects ``sql`` creates, made now when missing (in
    a file of its own first, then moved into place: a process never attaches a half-made
    file, and processes making it at once each move a whole one); None when there is no
    cache folder or the file cannot be made.

    >>> import os, tempfile
    >>> os.environ[CACHE_ENV] = tempfile.mkdtemp()
    >>> path = macro_file("CREATE MACRO twice(x) AS 2 * x")
    >>> path.name.startswith("duckdb-") and macro_file("CREATE MACRO twice(x) AS 2 * x") == path
    True
    >>> del os.environ[CACHE_ENV]
    """
    import duckdb

    folder = cache_folder()
    if folder is None:
        return None
    digest = hashlib.sha256(sql.encode("utf-8")).hexdigest()[:20]
    path = folder / f"duckdb-{duckdb.__version__}-{digest}.duckdb"
    if path.is_file():
        return path
    partial = folder / f".{path.name}.{uuid.uuid4().hex}.partial"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        made = duckdb.connect(str(partial))
        try:
            # a connection (not a cursor) prints a progress bar on stdout after 2 s
            made.execute("SET enable_progress_bar = false").execute(sql)
        finally:
            made.close()  # a checkpoint: everything in the file, no write-ahead log left
        os.replace(partial, path)
    except (OSError, duckdb.Error):
        return None
    finally:
        for leftover in (partial, Path(f"{partial}.wal")):
            with contextlib.suppress(OSError):
                leftover.unlink()
    return path


def attach(database: _duckdb.DuckDBPyConnection, sql: str) -> bool:
    """Attach the database file of ``sql``'s objects (:func:`macro_file`) to ``database``
    read-only as :data:`ATTACHED`; False (nothing attached) when there is none or DuckDB
    cannot attach it.  A cursor finds the objects once its search path names the file
    (``SET search_path = 'rankeval_macros.main'``; temporary objects are still found
    first).

    >>> import duckdb, os, tempfile
    >>> os.environ[CACHE_ENV] = tempfile.mkdtemp()
    >>> con = duckdb.connect()
    >>> attach(con, "CREATE MACRO twice(x) AS 2 * x")
    True
    >>> con.execute(f"SET search_path = '{ATTACHED}.main'").execute("SELECT twice(21)").fetchall()
    [(42,)]
    >>> del os.environ[CACHE_ENV]
    """
    import duckdb

    path = macro_file(sql)
    if path is None:
        return False
    literal = "'" + str(path).replace("'", "''") + "'"
    try:
        database.execute(f"ATTACH {literal} AS {ATTACHED} (READ_ONLY)")
    except duckdb.Error:
        return False
    return True
