"""The DuckDB engine: install the SQL twin's macros, evaluate through them.

``install(con)`` creates every ``rankeval_*`` macro of the ``sql/`` files in a DuckDB
connection (``rankeval_AP(run_table, qrels_table, k := NULL, rel := 1, norm := 'R')``
and its siblings, ``rankeval_evaluate``, the shared ``rankeval_ranked`` /
``rankeval_joined``).  ``per_query_duckdb`` is what ``evaluate(..., engine="duckdb")``
runs: the same checks, warnings and numbers as the polars engine, computed by those
macros in an in-process DuckDB when the result is collected.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from polars_rankeval._errors import InputError
from polars_rankeval._judge import Check, Columns, Judgement, judge, raise_for_checks, tie_needs
from polars_rankeval._registry import Measure
from polars_rankeval._sqltwin import build_query, expected_macro, sql_files, value_macro

if TYPE_CHECKING:
    import duckdb as _duckdb

__all__ = ["install", "install_entry_point", "per_query_duckdb"]

RUN_SOURCE = "_rk_run_src"
QRELS_SOURCE = "_rk_qrels_src"
RUN_VIEW = "_rk_run"
QRELS_VIEW = "_rk_qrels"
QRELS_BY_VIEW = "_rk_qrels_by"


def install(con: _duckdb.DuckDBPyConnection) -> None:
    """Create (or replace) every ``rankeval_*`` macro of the SQL twin in ``con``.

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> install(con)
    >>> con.execute(
    ...     "CREATE TABLE run AS SELECT * FROM (VALUES ('q1', 'a', 2.0), ('q1', 'b', 1.0))"
    ...     " AS t(query, item, score)"
    ... ).execute(
    ...     "CREATE TABLE qrels AS SELECT * FROM (VALUES ('q1', 'b', 1)) AS t(query, item, relevance)"
    ... ).execute("SELECT * FROM rankeval_RR('run', 'qrels')").fetchall()
    [('q1', 'RR', 0.5)]
    """
    for _name, text in sql_files():
        con.execute(text)


def install_entry_point(con: _duckdb.DuckDBPyConnection) -> None:
    """Create the SQL user's entry point (``sql/rankeval.sql``) in ``con``:
    ``rankeval_per_query`` and ``rankeval_summary`` on any table, with your column names,
    ``by`` groups and measure names (plus the per-family macros of :func:`install`).

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> install_entry_point(con)
    >>> con.execute(
    ...     "CREATE TABLE runs AS SELECT * FROM (VALUES ('bm25', 'q1', 'a', 2.0),"
    ...     " ('bm25', 'q1', 'b', 1.0)) AS t(system, qid, doc_id, sim)"
    ... ).execute(
    ...     "CREATE TABLE judgments AS SELECT * FROM (VALUES ('q1', 'b', 1)) AS t(qid, doc_id, grade)"
    ... ).execute(
    ...     "SELECT * FROM rankeval_summary('runs', 'judgments', ['MRR', 'P@2'], by := ['system'],"
    ...     " query := 'qid', item := 'doc_id', score := 'sim', relevance := 'grade')"
    ... ).fetchall()
    [('bm25', 'MRR', 0.5), ('bm25', 'P@2', 0.5)]
    """
    from polars_rankeval._sqltwin import ENTRY, _sql_dir

    con.execute(_sql_dir().joinpath(ENTRY).read_text(encoding="utf-8"))


_DATABASE: _duckdb.DuckDBPyConnection | None = None
_DATABASE_LOCK = threading.Lock()


def _connection() -> _duckdb.DuckDBPyConnection:
    """A new connection to a process-wide in-memory database that has the macros.

    Installing the macros once saves ~0.1 s per evaluation; each evaluation gets its
    own connection (a cursor), so its temporary views and registered frames are its
    own, and concurrent evaluations do not meet.
    """
    global _DATABASE
    import duckdb

    with _DATABASE_LOCK:
        if _DATABASE is None:
            # row order is never relied upon (results are sorted in polars): not keeping
            # it lets DuckDB stream more.  It spills to the system's temporary folder
            # (an in-memory database's default is ./.tmp, the user's working folder).
            spill = os.path.join(tempfile.gettempdir(), f"rankeval-duckdb-{os.getpid()}")
            database = duckdb.connect(
                config={"preserve_insertion_order": False, "temp_directory": spill}
            )
            install(database)
            _DATABASE = database
        return _DATABASE.cursor()


def _hand_over(
    con: _duckdb.DuckDBPyConnection, name: str, source: pl.LazyFrame, *, eager: bool, folder: str
) -> None:
    """Make ``source`` the table ``name`` of ``con``.

    A frame already in memory goes over as Arrow (no copy).  A lazy one is streamed
    by polars into a Parquet file that DuckDB scans: neither side holds the whole
    table in memory, and DuckDB can spill its own work to disk (at 100M rows, the
    in-memory Arrow copy this replaced took the process above 16 GiB).
    """
    if eager:
        con.register(name, source.collect().to_arrow())
        return
    path = os.path.join(folder, f"{name}.parquet")
    # lz4: cheap to write and to read back, the file lives for one evaluation
    source.sink_parquet(path, compression="lz4")
    literal = "'" + path.replace("'", "''") + "'"
    con.execute(f"CREATE TEMP VIEW {name} AS SELECT * FROM read_parquet({literal})")


def _plain(dtype: pl.DataType) -> pl.DataType:
    """Categorical and Enum travel to DuckDB as strings."""
    return pl.String if dtype == pl.Categorical or isinstance(dtype, pl.Enum) else dtype


def _is_float(dtype: pl.DataType) -> bool:
    return dtype.is_float()


def _check_sql(
    check: Check, columns: Columns, schema: pl.Schema, *, score_mode: bool, n_by: int
) -> str | None:
    """An aggregate over the source table counting what ``check`` counts, or None when
    the check is not one we know (it is then counted by polars)."""
    c = columns
    problem = check.problem.lower()

    def count(predicate: str) -> str:
        return f"SUM(CASE WHEN {predicate} THEN 1 ELSE 0 END)"

    def finite(column: str, user_column: str) -> str:
        if "nan" in problem:  # float column: null, NaN or infinite
            return count(f"{column} IS NULL OR NOT isfinite(CAST({column} AS DOUBLE))")
        return count(f"{column} IS NULL")

    if check.frame == "run":
        if check.column == c.query and "null" in problem:
            return count("_q IS NULL")
        if check.column == c.item and "null" in problem:
            return count("item IS NULL")
        if check.column == c.item and problem.startswith("duplicate"):
            keys = ", ".join([*(f"_b{n}" for n in range(n_by)), "_q", "item"])
            return (
                f"COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT {keys} FROM {RUN_SOURCE}) AS d)"
            )
        if score_mode and check.column == c.score:
            return finite("score", c.score)
        if not score_mode and check.column == c.rank and "rank" in problem:
            bad = "_rank IS NULL OR _rank <= 0"
            if _is_float(schema[c.rank]):
                bad += " OR NOT isfinite(_rank) OR _rank <> FLOOR(_rank)"
            return count(bad)
        if check.column == c.relevant and "relevance" in problem:
            return finite("relevance", c.relevant)
        return None
    if check.column == c.query and "null" in problem:
        return count("_q IS NULL")
    if check.column == c.item and "null" in problem:
        return count("item IS NULL")
    if check.column == c.item and problem.startswith("duplicate"):
        return (
            f"COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT _q, item FROM {QRELS_SOURCE}) AS d)"
        )
    if check.column == c.relevance and "relevance" in problem:
        return finite("relevance", c.relevance)
    return None


def _polars_count(check: Check, judgement: Judgement) -> int:
    """Fallback for a check without SQL: count it as the polars engine does."""
    if check.frame == "run":
        frame, keys = judgement.ranked, judgement.keys
    else:
        assert judgement.qrels is not None
        frame, keys = judgement.qrels, [judgement.query]
    counts = frame.group_by(keys).agg(check.counter.alias("_n")).select(pl.col("_n").sum())
    return int(counts.collect().item() or 0)


def _count_checks(
    con: _duckdb.DuckDBPyConnection,
    judgement: Judgement,
    columns: Columns,
    run_schema: pl.Schema,
    *,
    score_mode: bool,
    n_by: int,
) -> tuple[dict[str, int], int]:
    """Counts of every data check (by check name), in one scan of each source table,
    and the number of run rows repeating the (by..., query, item) of another row."""
    keys = ", ".join([*(f"_b{n}" for n in range(n_by)), "_q", "item"])
    repeated_sql = (
        f"COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT {keys} FROM {RUN_SOURCE}) AS d)"
    )
    counts: dict[str, int] = {}
    repeated = 0
    for source, checks in (
        (RUN_SOURCE, judgement.run_checks),
        (QRELS_SOURCE, judgement.qrels_checks),
    ):
        named: list[tuple[str, str]] = []
        for check in checks:
            expression = _check_sql(check, columns, run_schema, score_mode=score_mode, n_by=n_by)
            if expression is None:
                counts[check.name] = _polars_count(check, judgement)
            else:
                named.append((check.name, expression))
        if source == RUN_SOURCE:
            named.append(("", repeated_sql))
        if not named:
            continue
        row = con.execute("SELECT " + ", ".join(e for _, e in named) + f" FROM {source}").fetchall()
        for (name, _), value in zip(named, row[0], strict=True):
            if name:
                counts[name] = int(value or 0)
            else:
                repeated = int(value or 0)
    return counts, repeated


def per_query_duckdb(
    run: pl.DataFrame | pl.LazyFrame,
    qrels: pl.DataFrame | pl.LazyFrame | None,
    measures: Sequence[Measure],
    *,
    columns: Columns,
    by: Sequence[str],
    complete: bool,
    duplicates: str,
    ties: str = "trec_eval",
) -> tuple[pl.LazyFrame, list[str]]:
    """What ``_per_query_polars`` returns, computed by DuckDB through the SQL twin.

    One row per evaluated (by..., query) with the key columns (the user's names and
    dtypes) and a Float64 column ``_m{i}`` per measure, as a LazyFrame whose DuckDB
    work happens when it is collected; plus the key column names.  Bad input raises
    the polars engine's :class:`InputError` (schemas now, data checks at collect
    time) and skipped data gives the same warnings.
    """
    if ties != "average":
        for m in measures:
            value_macro(m.family.name)  # a family without a SQL twin fails now
    by = list(by)
    run_lf = run.lazy()
    qrels_lf = None if qrels is None else qrels.lazy()
    tie_levels, tie_gains = tie_needs(measures)
    judgement = judge(
        run_lf,
        qrels_lf,
        columns=columns,
        by=by,
        stats=[s for m in measures for s in m.stats()],
        duplicates=duplicates,
        ties=ties,
        tie_levels=tie_levels,
        tie_gains=tie_gains,
    )
    if judgement.judged.ties is not None:
        for m in measures:  # the polars engine's MeasureError, then a missing SQL twin
            m.expected(judgement.judged)
            expected_macro(m.family.name)
    has_qrels = qrels_lf is not None
    if complete and not has_qrels:
        raise InputError("complete=True needs qrels: without them every query is in the run")
    keys = list(judgement.keys)
    c = columns
    run_schema = run_lf.collect_schema()
    rows_schema = judgement.rows.collect_schema()
    key_types = {k: rows_schema[k] for k in keys}
    score_mode = c.score is not None and c.score in run_schema

    run_columns = [pl.col(b).cast(_plain(run_schema[b])).alias(f"_b{n}") for n, b in enumerate(by)]
    run_columns += [
        pl.col(c.query).cast(_plain(rows_schema[c.query])).alias("_q"),
        pl.col(c.item).cast(_plain(rows_schema[c.item])).alias("item"),
        pl.col(c.score).alias("score") if score_mode else pl.col(c.rank).alias("_rank"),
    ]
    if not has_qrels:
        run_columns.append(pl.col(c.relevant).cast(pl.Float64).alias("relevance"))
    run_source = run_lf.select(run_columns)
    qrels_source = None
    if qrels_lf is not None:
        assert judgement.qrels is not None  # the qrels with key dtypes aligned to the run
        qrels_source = judgement.qrels.select(
            pl.col(c.query).cast(_plain(rows_schema[c.query])).alias("_q"),
            pl.col(c.item).cast(_plain(rows_schema[c.item])).alias("item"),
            pl.col(c.relevance).cast(pl.Float64).alias("relevance"),
        )

    key = (
        "struct_pack(" + ", ".join([*(f"b{n} := _b{n}" for n in range(len(by))), "q := _q"]) + ")"
        if by
        else "_q"
    )
    # trec_eval compares scores in single precision (a C float): so does the twin
    score = "CAST(CAST(score AS REAL) AS DOUBLE)" if score_mode else "-CAST(_rank AS DOUBLE)"
    relevance = "" if has_qrels else ", relevance"
    views = [
        (
            f"CREATE TEMP VIEW {RUN_VIEW} AS SELECT {key} AS query, item, {score} AS score"
            f"{relevance} FROM {RUN_SOURCE}"
        )
    ]
    if has_qrels:
        views.append(
            f"CREATE TEMP VIEW {QRELS_VIEW} AS SELECT _q AS query, item, relevance "
            f"FROM {QRELS_SOURCE}"
        )
        if by:
            views.append(
                f"CREATE TEMP VIEW {QRELS_BY_VIEW} AS SELECT k.query AS query, q.item AS item, "
                f"q.relevance AS relevance FROM (SELECT DISTINCT r.query FROM {RUN_VIEW} AS r) "
                f"AS k JOIN {QRELS_VIEW} AS q ON k.query.q = q.query"
            )
        joined_qrels = QRELS_BY_VIEW if by else QRELS_VIEW

        def raw_query(alias: str) -> str:
            return f"{alias}.query.q" if by else f"{alias}.query"

    else:
        ranked = (
            f"rankeval_ranked('{RUN_VIEW}', duplicates := 'first')"
            if duplicates == "first"
            else RUN_VIEW
        )
        views.append(
            f"CREATE TEMP VIEW {QRELS_VIEW} AS SELECT r.query AS query, r.item AS item, "
            f"r.relevance AS relevance FROM {ranked} AS r"
        )
        joined_qrels = QRELS_VIEW

        def raw_query(alias: str) -> str:
            return f"{alias}.query"

    query = build_query(
        measures,
        run_view=RUN_VIEW,
        qrels_view=joined_qrels,
        stats_view=QRELS_VIEW,
        raw_query=raw_query,
        duplicates=duplicates,
        final="engine",
        has_qrels=has_qrels,
        by=by,
        ties=ties,
    )
    value_columns = [f"_m{i}" for i in range(len(measures))]
    schema = {**key_types, **{name: pl.Float64 for name in value_columns}}

    def compute() -> pl.DataFrame:
        from polars_rankeval.evaluate import IN_QRELS, IN_RUN, _check_per_query, select_evaluated

        con = _connection()
        folder = tempfile.TemporaryDirectory(prefix="rankeval-duckdb-")
        try:
            _hand_over(
                con, RUN_SOURCE, run_source, eager=isinstance(run, pl.DataFrame),
                folder=folder.name,
            )
            if qrels_source is not None:
                _hand_over(
                    con, QRELS_SOURCE, qrels_source, eager=isinstance(qrels, pl.DataFrame),
                    folder=folder.name,
                )
            for view in views:
                con.execute(view)
            counts, repeated = _count_checks(
                con, judgement, c, run_schema, score_mode=score_mode, n_by=len(by)
            )
            checks = [*judgement.run_checks, *judgement.qrels_checks]
            raise_for_checks(
                pl.DataFrame({name: [value] for name, value in counts.items()}),
                checks,
                lambda which: judgement.run if which == "run" else judgement.qrels,
            )
            # execute() binds the (macro-heavy) query once (con.sql() binds it twice);
            # the result is small: one row per query
            result = con.execute(query.sql, query.params)
            names = [d[0] for d in result.description]
            rows = result.fetchall()
        finally:
            con.close()
            folder.cleanup()
        frame = pl.DataFrame(rows, schema=names, orient="row", infer_schema_length=None)
        frame = frame.with_columns(
            pl.col(name).cast(pl.Float64)
            for name in [*value_columns, *query.stat_columns]
            if name in names
        ).with_columns(pl.col(IN_RUN, IN_QRELS).cast(pl.Boolean))
        frame = frame.rename(
            {"_q": judgement.query, **{f"_b{n}": b for n, b in enumerate(by)}}
        ).with_columns(pl.col(k).cast(t) for k, t in key_types.items())
        if duplicates == "first":
            frame = frame.with_columns(
                pl.when(pl.int_range(pl.len()) == 0).then(repeated).alias("_dropped")
            )
        checked = _check_per_query(frame, judgement, has_qrels=has_qrels, complete=complete)
        return select_evaluated(
            checked, keys=keys, measures=measures, stat_columns=query.stat_columns,
            has_qrels=has_qrels, complete=complete,
        )

    return pl.defer(compute, schema=schema), keys
