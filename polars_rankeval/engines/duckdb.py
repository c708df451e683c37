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
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import polars as pl

from polars_rankeval._errors import InputError
from polars_rankeval._registry import Measure
from polars_rankeval.diversity.families import is_diversity
from polars_rankeval.engines.finish import (
    IN_QRELS,
    check_per_query,
    query_groups,
    select_evaluated,
)
from polars_rankeval.engines.polars import judgement_for
from polars_rankeval.engines.spec import Spec
from polars_rankeval.engines.sqltwin.build import (
    ENTRY,
    Query,
    build_query,
    expected_macro,
    sql_dir,
    sql_files,
    value_macro,
)
from polars_rankeval.prepare.checks import raise_for_checks
from polars_rankeval.prepare.judge import IN_RUN, Judgement
from polars_rankeval.prepare.ranking import keep_top

if TYPE_CHECKING:
    import duckdb as _duckdb

__all__ = ["NAME", "install", "install_entry_point", "per_query", "supports"]

NAME = "duckdb"

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
    con.execute(sql_dir().joinpath(ENTRY).read_text(encoding="utf-8"))


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
    """Categorical, Enum and 128-bit integer ids (which Arrow cannot hand to DuckDB)
    travel to DuckDB as strings; results are cast back to the key's dtype."""
    text = dtype in (pl.Categorical, pl.Int128, pl.UInt128) or isinstance(dtype, pl.Enum)
    return pl.String() if text else dtype


def supports(measure: Measure, spec: Spec) -> str | None:
    """A measure needs its family's SQL twin (None: supported)."""
    if is_diversity(measure):
        return (
            f"{measure}: the diversity measures have no SQL twin yet; use engine='polars'"
        )
    macro = expected_macro if spec.options.ties == "average" else value_macro
    try:
        macro(measure.family.name)
    except Exception as error:  # noqa: BLE001 - the reason is the message
        return str(error)
    return None


@dataclass(frozen=True)
class _Sources:
    """The two tables DuckDB reads, with our column names: run ``_b0.., _q, item,
    score | _rank[, relevance]``, qrels ``_q, item, relevance``."""

    run: pl.LazyFrame
    qrels: pl.LazyFrame | None
    sql_column: dict[tuple[str, str], str]  # (frame, user column) -> source column
    score_mode: bool
    key_types: dict[str, pl.DataType]


def _sources(judgement: Judgement, spec: Spec) -> _Sources:
    c, by = spec.columns, list(spec.options.by)
    run_lf = spec.run.lazy()
    run_schema = run_lf.collect_schema()
    rows_schema = judgement.ranked.collect_schema()
    score_mode = c.score is not None and c.score in run_schema
    order: tuple[str, str] = (
        (c.score, "score") if c.score is not None and score_mode else (c.rank or "rank", "_rank")
    )
    columns = [pl.col(b).cast(_plain(run_schema[b])).alias(f"_b{n}") for n, b in enumerate(by)]
    columns += [
        pl.col(c.query).cast(_plain(rows_schema[c.query])).alias("_q"),
        pl.col(c.item).cast(_plain(rows_schema[c.item])).alias("item"),
        pl.col(order[0]).alias(order[1]),
    ]
    names: dict[tuple[str, str], str] = {
        ("run", c.query): "_q", ("run", c.item): "item", ("run", order[0]): order[1]
    }
    qrels = None
    if spec.qrels is None:
        columns.append(pl.col(c.relevant).cast(pl.Float64).alias("relevance"))
        names[("run", c.relevant)] = "relevance"
    else:
        assert judgement.qrels is not None  # the qrels with key dtypes aligned to the run
        qrels = judgement.qrels.select(
            pl.col(c.query).cast(_plain(rows_schema[c.query])).alias("_q"),
            pl.col(c.item).cast(_plain(rows_schema[c.item])).alias("item"),
            pl.col(c.relevance).cast(pl.Float64).alias("relevance"),
        )
        names |= {("qrels", c.query): "_q", ("qrels", c.item): "item"}
        names[("qrels", c.relevance)] = "relevance"
    key_types = {k: rows_schema[k] for k in judgement.keys}
    return _Sources(run_lf.select(columns), qrels, names, score_mode, key_types)


def _views(spec: Spec, score_mode: bool) -> tuple[list[str], str, Callable[[str], str]]:
    """Views over the sources in the shape the SQL twin reads (query, item, score
    [, relevance]); the qrels view to join and how a run key names its raw query."""
    by, has_qrels = spec.options.by, spec.qrels is not None
    parts = [*(f"b{n} := _b{n}" for n in range(len(by))), "q := _q"]
    key = f"struct_pack({', '.join(parts)})" if by else "_q"
    # trec_eval compares scores in single precision (a C float): so does the twin
    score = "CAST(CAST(score AS REAL) AS DOUBLE)" if score_mode else "-CAST(_rank AS DOUBLE)"
    relevance = "" if has_qrels else ", relevance"
    views = [
        (
            f"CREATE TEMP VIEW {RUN_VIEW} AS SELECT {key} AS query, item, {score} AS score"
            f"{relevance} FROM {RUN_SOURCE}"
        )
    ]
    if not has_qrels:
        first = spec.options.duplicates == "first"
        ranked = f"rankeval_ranked('{RUN_VIEW}', duplicates := 'first')" if first else RUN_VIEW
        views.append(
            f"CREATE TEMP VIEW {QRELS_VIEW} AS SELECT r.query AS query, r.item AS item, "
            f"r.relevance AS relevance FROM {ranked} AS r"
        )
        return views, QRELS_VIEW, lambda alias: f"{alias}.query"
    views.append(
        f"CREATE TEMP VIEW {QRELS_VIEW} AS SELECT _q AS query, item, relevance "
        f"FROM {QRELS_SOURCE}"
    )
    if not by:
        return views, QRELS_VIEW, lambda alias: f"{alias}.query"
    views.append(
        f"CREATE TEMP VIEW {QRELS_BY_VIEW} AS SELECT k.query AS query, q.item AS item, "
        f"q.relevance AS relevance FROM (SELECT DISTINCT r.query FROM {RUN_VIEW} AS r) "
        f"AS k JOIN {QRELS_VIEW} AS q ON k.query.q = q.query"
    )
    return views, QRELS_BY_VIEW, lambda alias: f"{alias}.query.q"


def _count_checks(
    con: _duckdb.DuckDBPyConnection, judgement: Judgement, sources: _Sources, n_by: int
) -> tuple[dict[str, int], int]:
    """Counts of every data check (by check name), in one scan of each source table,
    and the number of run rows repeating the (by..., query, item) of another row."""
    run_keys = [*(f"_b{n}" for n in range(n_by)), "_q", "item"]
    repeated_sql = (
        f"COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT {', '.join(run_keys)} "
        f"FROM {RUN_SOURCE}) AS d)"
    )
    counts: dict[str, int] = {}
    repeated = 0
    for source, checks, keys in (
        (RUN_SOURCE, judgement.run_checks, run_keys),
        (QRELS_SOURCE, judgement.qrels_checks, ["_q", "item"]),
    ):
        named = [
            (check.name, check.sql_counter(
                sources.sql_column[(check.frame, check.column)], source=source, keys=keys
            ))
            for check in checks
        ]
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


def _run_query(
    judgement: Judgement, spec: Spec, sources: _Sources, views: list[str], query: Query
) -> tuple[pl.DataFrame, int]:
    """Hand the sources over, check them, run the evaluation query: its rows, and the
    number of repeated run rows."""
    con = _connection()
    folder = tempfile.TemporaryDirectory(prefix="rankeval-duckdb-")
    try:
        _hand_over(con, RUN_SOURCE, sources.run,
                   eager=isinstance(spec.run, pl.DataFrame), folder=folder.name)
        if sources.qrels is not None:
            _hand_over(con, QRELS_SOURCE, sources.qrels,
                       eager=isinstance(spec.qrels, pl.DataFrame), folder=folder.name)
        for view in views:
            con.execute(view)
        counts, repeated = _count_checks(con, judgement, sources, len(spec.options.by))
        raise_for_checks(
            pl.DataFrame({name: [value] for name, value in counts.items()}),
            [*judgement.run_checks, *judgement.qrels_checks],
            lambda which: judgement.run if which == "run" else judgement.qrels,
            judgement.user_names,
        )
        # execute() binds the (macro-heavy) query once (con.sql() binds it twice);
        # the result is small: one row per query
        result = con.execute(query.sql, query.params)
        names = [d[0] for d in result.description]
        rows = result.fetchall()
    finally:
        con.close()
        folder.cleanup()
    return pl.DataFrame(rows, schema=names, orient="row", infer_schema_length=None), repeated


def _typed(frame: pl.DataFrame, spec: Spec, query: Query, sources: _Sources) -> pl.DataFrame:
    """The engine's frame with the user's key names and dtypes, Float64 values."""
    value_columns = [f"_m{i}" for i in range(len(spec.measures))]
    frame = frame.with_columns(
        pl.col(name).cast(pl.Float64)
        for name in [*value_columns, *query.stat_columns]
        if name in frame.columns
    ).with_columns(pl.col(IN_RUN, IN_QRELS).cast(pl.Boolean))
    renames = {"_q": spec.columns.query, **{f"_b{n}": b for n, b in enumerate(spec.options.by)}}
    return frame.rename(renames).with_columns(
        pl.col(k).cast(t) for k, t in sources.key_types.items()
    )


def per_query(spec: Spec) -> tuple[pl.LazyFrame, list[str]]:
    """What the polars engine's ``per_query`` returns, computed by DuckDB through the SQL
    twin, as a LazyFrame whose DuckDB work happens when it is collected.  Bad input
    raises the polars engine's :class:`InputError` (schemas now, data checks at collect
    time) and skipped data gives the same warnings."""
    options = spec.options
    if options.top is not None:  # the SQL twin ranks again; this keeps the same rows
        spec = replace(spec, run=keep_top(
            spec.run.lazy(), options.top, columns=spec.columns, by=options.by
        ))
    judgement = judgement_for(replace(spec, options=replace(options, top=None)))
    if judgement.judged.ties is not None:
        for m in spec.measures:  # the polars engine's MeasureError first
            m.expected(judgement.judged)
    has_qrels = spec.qrels is not None
    if options.complete and not has_qrels:
        raise InputError("complete=True needs qrels: without them every query is in the run")
    sources = _sources(judgement, spec)
    views, qrels_view, raw_query = _views(spec, sources.score_mode)
    query = build_query(
        spec.measures, run_view=RUN_VIEW, qrels_view=qrels_view, stats_view=QRELS_VIEW,
        raw_query=raw_query, duplicates=options.duplicates, final="engine",
        has_qrels=has_qrels, by=options.by, ties=options.ties,
    )
    keys = list(judgement.keys)
    schema: dict[str, pl.DataType] = {
        **sources.key_types, **{f"_m{i}": pl.Float64() for i in range(len(spec.measures))}
    }

    def compute() -> pl.DataFrame:
        frame, repeated = _run_query(judgement, spec, sources, views, query)
        frame = _typed(frame, spec, query, sources)
        if options.duplicates == "first":
            frame = frame.with_columns(
                pl.when(pl.int_range(pl.len()) == 0).then(repeated).alias("_dropped")
            )
        checked = check_per_query(
            frame, judgement, has_qrels=has_qrels, complete=options.complete,
            names=spec.names,
        )
        return select_evaluated(
            checked, keys=keys, measures=spec.measures, stat_columns=query.stat_columns,
            has_qrels=has_qrels, complete=options.complete, groups=query_groups(spec),
        )

    return pl.defer(compute, schema=schema), keys
