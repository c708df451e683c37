"""The DuckDB engine: install the SQL macros, evaluate through the public entry point.

``install(con)`` creates the low-level layer's ``rankeval_*`` macros of the ``sql/``
files in a DuckDB connection (``rankeval_AP(run_table, qrels_table, k := NULL, rel := 1,
norm := 'R')`` and its siblings, ``rankeval_evaluate``, the shared ``rankeval_ranked``
/ ``rankeval_joined``); ``install_entry_point(con)`` creates the SQL user's entry point
``rankeval_per_query`` / ``rankeval_summary`` (``sql/rankeval.sql``).  ``per_query``
is what ``evaluate(..., engine="duckdb")`` runs: the same checks, warnings and numbers
as the polars engine, computed by ``rankeval_per_query`` in an in-process DuckDB when
the result is collected (``ties="average"`` too: the macro's ``ties := 'average'``).

The macros come once per process (attached from the database file they are made in once
per machine, :mod:`~polars_rankeval.engines.duckdb_macros`, or installed in memory when
there is none), in one of two in-memory databases: small
in-memory inputs (:data:`SMALL_ROWS`) go to one that plans without DuckDB's optimizer on
one thread (planning the entry macro is most of a small call), the rest to the default
one.  With qrels, ``top`` is the macro's ``top :=``.
"""

from __future__ import annotations

import os
import tempfile
import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

import polars as pl

from polars_rankeval._errors import InputError
from polars_rankeval._registry import Measure
from polars_rankeval._sqlties import FAMILIES as TIES_FAMILIES
from polars_rankeval.diversity.compute import W, topic_spec
from polars_rankeval.diversity.families import is_diversity
from polars_rankeval.engines.duckdb_entry import EntryQuery, supports_entry
from polars_rankeval.engines.duckdb_macros import ATTACHED, attach
from polars_rankeval.engines.duckdb_parquet import ParquetView, parquet_view
from polars_rankeval.engines.finish import (
    IN_QRELS,
    check_per_query,
    query_groups,
    select_evaluated,
)
from polars_rankeval.engines.polars import judgement_for
from polars_rankeval.engines.spec import Spec
from polars_rankeval.engines.sqltwin.build import ENTRY, sql_dir
from polars_rankeval.engines.sqltwin.targets import duckdb_real
from polars_rankeval.prepare.checks import raise_for_checks
from polars_rankeval.prepare.judge import IN_RUN, Judgement
from polars_rankeval.prepare.ranking import keep_top

if TYPE_CHECKING:
    import duckdb as _duckdb

__all__ = ["NAME", "install", "install_entry_point", "per_query", "supports"]

NAME = "duckdb"

RUN_SOURCE = "_rk_run_src"
QRELS_SOURCE = "_rk_qrels_src"
SUBTOPIC_SOURCE = "_rk_subtopic_src"  # subtopic qrels, for the diversity measures


def install(con: _duckdb.DuckDBPyConnection) -> None:
    """Create (or replace) the ``rankeval_*`` macros of ``sql/rankeval.sql`` in ``con``:
    the SQL user's entry point ``rankeval_per_query`` / ``rankeval_summary`` (any table,
    your column names, ``by`` groups, measure names; with no measures, trec_eval's default
    set at ``k := 10``), ``rankeval_evaluate`` and the per-family macros
    (``rankeval_AP``, ``rankeval_RR``, ...) over columns named ``query, item, score,
    relevance``.

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> install(con)
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
    >>> con.execute(
    ...     "CREATE TABLE run AS SELECT * FROM (VALUES ('q1', 'a', 2.0), ('q1', 'b', 1.0))"
    ...     " AS t(query, item, score)"
    ... ).execute(
    ...     "CREATE TABLE qrels AS SELECT * FROM (VALUES ('q1', 'b', 1)) AS t(query, item, relevance)"
    ... ).execute("SELECT * FROM rankeval_RR('run', 'qrels')").fetchall()
    [('q1', 'RR', 0.5)]
    """
    con.execute(sql_dir().joinpath(ENTRY).read_text(encoding="utf-8"))


def install_entry_point(con: _duckdb.DuckDBPyConnection) -> None:
    """The same as :func:`install` (kept for the callers of earlier versions).

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> install_entry_point(con)
    >>> con.execute("SELECT count(*) FROM rankeval_m_families").fetchone()[0] > 0
    True
    """
    install(con)


# Inputs up to this many run rows (frames in memory) go to the small-input database.
SMALL_ROWS = 100_000

# The small-input database plans without DuckDB's optimizer and runs on the calling
# thread: a small call is mostly planning (~0.05 s of optimizer on the entry macro), and
# worker threads only add hand-offs on a few rows.  The optimizer changes how rows are
# computed, never which values come out (the sums are ordered: the same bits).
# (The optimizer is switched off per connection, by PRAGMA: DuckDB 1.x has no
# enable_optimizer setting to open a database with.)
_SMALL_CONFIG: dict[str, str | int | float | list[str]] = {"threads": 1}

_DATABASES: dict[bool, _duckdb.DuckDBPyConnection] = {}
# the databases that read the macros from their attached file (duckdb_macros.attach)
_ATTACHED: set[_duckdb.DuckDBPyConnection] = set()
_DATABASE_LOCK = threading.Lock()

# Where sql/rankeval.sql's low-level layer (the per-family macros) begins.
_LOW_LEVEL = "-- The low-level layer"


def _sql_parts() -> tuple[str, str]:
    """sql/rankeval.sql as (the entry point, the low-level layer): the engine installs
    only the entry point, which does not call the low-level macros ("" when the file has
    no such part: everything is installed at once)."""
    text = sql_dir().joinpath(ENTRY).read_text(encoding="utf-8")
    entry, marker, low_level = text.partition(_LOW_LEVEL)
    return (entry, marker + low_level) if marker else (text, "")


def _connection(*, small: bool = False) -> _duckdb.DuckDBPyConnection:
    """A new connection to a process-wide in-memory database that has the entry
    point's macros (``small``: the one tuned for small inputs, :data:`_SMALL_CONFIG`).

    The macros come once per process, from their database file made once per machine
    (:mod:`~polars_rankeval.engines.duckdb_macros`: attached read-only, ~0.02 CPU s) or,
    without one, installed in memory (the entry point alone, ~0.13 CPU s); each
    evaluation gets its own connection (a cursor), so its temporary views and registered
    frames are its own, and concurrent evaluations do not meet.
    """
    import duckdb

    with _DATABASE_LOCK:
        database = _DATABASES.get(small)
        if database is None:
            # row order is never relied upon (results are sorted in polars): not keeping
            # it lets DuckDB stream more.  It spills to the system's temporary folder
            # (an in-memory database's default is ./.tmp, the user's working folder).
            spill = os.path.join(tempfile.gettempdir(), f"rankeval-duckdb-{os.getpid()}")
            config: dict[str, str | int | float | list[str]] = {
                "preserve_insertion_order": False, "temp_directory": spill,
            }
            database = duckdb.connect(config={**config, **(_SMALL_CONFIG if small else {})})
            # a connection (not a cursor) prints a progress bar on stdout after 2 s
            database.execute("SET enable_progress_bar = false")
            entry = _sql_parts()[0]
            if attach(database, entry):
                _ATTACHED.add(database)
            else:
                database.execute(entry)
            _DATABASES[small] = database
        cursor = database.cursor()
    if database in _ATTACHED:  # a cursor's search path is its own
        cursor.execute(f"SET search_path = '{ATTACHED}.main'")
    if small:
        cursor.execute("PRAGMA disable_optimizer")
    return cursor


def _is_small(spec: Spec) -> bool:
    """Both inputs in memory and the run at most :data:`SMALL_ROWS` rows."""
    run, qrels = spec.run, spec.qrels
    return (
        isinstance(run, pl.DataFrame) and run.height <= SMALL_ROWS
        and (qrels is None or isinstance(qrels, pl.DataFrame))
    )


def _hand_over(
    con: _duckdb.DuckDBPyConnection, name: str, source: pl.LazyFrame, *, eager: bool, folder: str,
    view: ParquetView | None = None,
) -> None:
    """Make ``source`` the table ``name`` of ``con``.

    A frame already in memory goes over as Arrow (no copy).  A plain scan of the user's
    Parquet file (``view``, :mod:`~polars_rankeval.engines.duckdb_parquet`) is read by
    DuckDB from that file.  Any other lazy one is streamed by polars into a Parquet file
    that DuckDB scans (:func:`_copy_to_parquet`): neither side holds the whole table in
    memory, and DuckDB can spill its own work to disk (at 100M rows, the in-memory Arrow
    copy this replaced took the process above 16 GiB).
    """
    if eager:
        con.register(name, source.collect().to_arrow())
        return
    if view is not None and view.create(con, name):
        return
    path = os.path.join(folder, f"{name}.parquet")
    _copy_to_parquet(source, path)
    literal = "'" + path.replace("'", "''") + "'"
    con.execute(f"CREATE TEMP VIEW {name} AS SELECT * FROM read_parquet({literal})")


def _copy_to_parquet(source: pl.LazyFrame, path: str) -> None:
    """Stream ``source`` into the Parquet file ``path`` (lz4: cheap to write and to read
    back, the file lives for one evaluation)."""
    source.sink_parquet(path, compression="lz4")


def _plain(dtype: pl.DataType) -> pl.DataType:
    """Categorical, Enum and 128-bit integer ids (which Arrow cannot hand to DuckDB)
    travel to DuckDB as strings; results are cast back to the key's dtype."""
    text = dtype in (pl.Categorical, pl.Int128, pl.UInt128) or isinstance(dtype, pl.Enum)
    return pl.String() if text else dtype


def supports(measure: Measure, spec: Spec) -> str | None:
    """None when ``rankeval_per_query`` computes the measure (with ties='average':
    its expected value over tied orderings); else why not."""
    if spec.options.ties == "average" and measure.family.name not in TIES_FAMILIES:
        return f"{measure}: no expected value over tied orderings (ties='average')"
    return supports_entry(measure)


@dataclass(frozen=True)
class _Sources:
    """The two tables DuckDB reads, with our column names: run ``_b0.., _q, item,
    score | _rank[, relevance]``, qrels ``_q, item, relevance``."""

    run: pl.LazyFrame
    qrels: pl.LazyFrame | None
    sql_column: dict[tuple[str, str], str]  # (frame, user column) -> source column
    score_mode: bool
    key_types: dict[str, pl.DataType]
    # subtopic qrels ``_q, item, subtopic, relevance, _w`` (diversity measures), or None
    subtopics: pl.LazyFrame | None = None
    # the user's own Parquet file read by DuckDB, when the input is a plain scan of one
    run_view: ParquetView | None = None
    qrels_view: ParquetView | None = None


# (the input's column, the engine's name, the dtype handed over; None: the column's own)
_Handed = list[tuple[str, str, pl.DataType | None]]


def _sources(judgement: Judgement, spec: Spec) -> _Sources:
    c, by = spec.columns, list(spec.options.by)
    run_lf = spec.run.lazy()
    run_schema = run_lf.collect_schema()
    rows_schema = judgement.ranked.collect_schema()
    score_mode = c.score is not None and c.score in run_schema
    order: tuple[str, str] = (
        (c.score, "score") if c.score is not None and score_mode else (c.rank or "rank", "_rank")
    )
    keys: _Handed = [
        (c.query, "_q", _plain(rows_schema[c.query])), (c.item, "item", _plain(rows_schema[c.item]))
    ]
    run: _Handed = [(b, f"_b{n}", _plain(run_schema[b])) for n, b in enumerate(by)]
    run += [*keys, (order[0], order[1], None)]
    names: dict[tuple[str, str], str] = {
        ("run", c.query): "_q", ("run", c.item): "item", ("run", order[0]): order[1]
    }
    qrels = qrels_view = None
    if spec.qrels is None:
        run.append((c.relevant, "relevance", pl.Float64()))
        names[("run", c.relevant)] = "relevance"
    else:
        assert judgement.qrels is not None  # the qrels with key dtypes aligned to the run
        qrels_columns: _Handed = [*keys, (c.relevance, "relevance", pl.Float64())]
        qrels = judgement.qrels.select(_handed(qrels_columns))
        if not any(is_diversity(m) for m in spec.measures):  # else judged by topic qrels
            qrels_view = _view(spec.qrels, qrels_columns)
        names |= {("qrels", c.query): "_q", ("qrels", c.item): "item"}
        names[("qrels", c.relevance)] = "relevance"
    key_types = {k: rows_schema[k] for k in judgement.keys}
    return _Sources(
        run_lf.select(_handed(run)), qrels, names, score_mode, key_types,
        run_view=_view(spec.run, run), qrels_view=qrels_view,
    )


def _handed(columns: _Handed) -> list[pl.Expr]:
    """The polars expressions that hand ``columns`` over."""
    return [
        (pl.col(column) if dtype is None else pl.col(column).cast(dtype)).alias(name)
        for column, name, dtype in columns
    ]


def _view(frame: pl.DataFrame | pl.LazyFrame, columns: _Handed) -> ParquetView | None:
    """DuckDB's view over the user's own Parquet file, when ``frame`` is a plain scan of
    one whose columns DuckDB reads as polars does (:func:`parquet_view`); else None."""
    return None if isinstance(frame, pl.DataFrame) else parquet_view(frame, columns)


def _count_checks(
    con: _duckdb.DuckDBPyConnection, judgement: Judgement, sources: _Sources, n_by: int,
    *, first: bool, top: int | None, leave_out: frozenset[str] = frozenset(),
) -> tuple[dict[str, int], int]:
    """Counts of every data check (by check name) but those named in ``leave_out``, in
    one scan of each source table (none when nothing is counted there), and (``first``:
    duplicates='first', whose warning gives it) the number of run rows repeating the
    (by..., query, item) of another row (within the ``top`` rows of their query, as the
    polars engine counts them)."""
    run_keys = [*(f"_b{n}" for n in range(n_by)), "_q", "item"]
    repeated_sql = (
        f"COUNT(*) - (SELECT COUNT(*) FROM (SELECT DISTINCT {', '.join(run_keys)} "
        f"FROM {RUN_SOURCE}) AS d)"
        if top is None else _repeated_in_top(run_keys, top, score_mode=sources.score_mode)
    )
    counts: dict[str, int] = {}
    repeated = 0
    for source, checks, keys in (
        (RUN_SOURCE, [c for c in judgement.run_checks if c.name not in leave_out], run_keys),
        (QRELS_SOURCE, [c for c in judgement.qrels_checks if c.name not in leave_out],
         ["_q", "item"]),
    ):
        named = [
            (check.name, check.sql_counter(
                sources.sql_column[(check.frame, check.column)], source=source, keys=keys
            ))
            for check in checks
        ]
        if source == RUN_SOURCE and first:  # else the run's duplicate check counts them
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


def _repeated_in_top(run_keys: list[str], top: int, *, score_mode: bool) -> str:
    """The run rows within the first ``top`` positions of their query (trec_eval's
    order, the macro's) that repeat a better-ranked row's (by..., query, item)."""
    query_keys = ", ".join(run_keys[:-1])
    best = f"{duckdb_real('score')} DESC" if score_mode else "_rank"
    return (
        f"(SELECT COUNT(*) FROM (SELECT ROW_NUMBER() OVER (PARTITION BY {query_keys} "
        f"ORDER BY {best}, CAST(item AS VARCHAR) DESC) AS _pos, ROW_NUMBER() OVER "
        f"(PARTITION BY {', '.join(run_keys)} ORDER BY {best}) AS _nth FROM {RUN_SOURCE}) "
        f"AS t WHERE t._pos <= {int(top)} AND t._nth > 1)"
    )


class _Plan(Protocol):
    """How the evaluation is computed once the sources are in DuckDB: the public entry
    point (:class:`EntryQuery`)."""

    stat_columns: list[str]
    evaluated: bool  # the macro ran (False: nothing to evaluate)

    def run(self, con: _duckdb.DuckDBPyConnection) -> pl.DataFrame: ...


def _run(
    judgement: Judgement, spec: Spec, sources: _Sources, plan: _Plan
) -> tuple[pl.DataFrame, int]:
    """Hand the sources over, check them, run the evaluation: the per-query frame, and
    the number of repeated run rows."""
    con = _connection(small=_is_small(spec))
    folder = tempfile.TemporaryDirectory(prefix="rankeval-duckdb-")
    try:
        _hand_over(con, RUN_SOURCE, sources.run, eager=isinstance(spec.run, pl.DataFrame),
                   folder=folder.name, view=sources.run_view)
        if sources.qrels is not None:
            _hand_over(con, QRELS_SOURCE, sources.qrels, eager=isinstance(spec.qrels, pl.DataFrame),
                       folder=folder.name, view=sources.qrels_view)
        if sources.subtopics is not None:
            _hand_over(con, SUBTOPIC_SOURCE, sources.subtopics,
                       eager=isinstance(spec.qrels, pl.DataFrame), folder=folder.name)
        frame, repeated = _checked_run(con, judgement, spec, sources, plan)
    finally:
        con.close()
        folder.cleanup()
    return frame, repeated


def _left_to_macro(judgement: Judgement, spec: Spec, sources: _Sources) -> frozenset[str]:
    """The data checks the macro makes itself on every row of the same tables, raising
    ``error()``: the engine's first pass leaves them out (each is a scan of its table:
    ~0.2 CPU s of a 10M-row run's checks, ~0.2 CPU s of 1M judgments' duplicate count).

    The macro's ``_run`` / ``_qrels_src`` read every row and compute its query, item
    and score (or rank, relevance) through ``COALESCE(value, error(...))`` and
    ``isfinite`` tests before any join, filter or ``top``: the run's duplicates and,
    with qrels, null ids, null/NaN/inf scores and integer ranks that are null or below
    1, and the qrels' nulls, NaN/inf relevance and duplicates.  Not left to it: float
    ranks (NaN and inf pass its rank test), labels read from the run (no qrels: its
    query key is the engine's own), the exponential-gain overflow, and with subtopic
    qrels the topic qrels' checks (the macro reads the subtopic rows)."""
    left = {c.name for c in judgement.run_checks if c.kind == "duplicate"}
    if spec.qrels is None:
        return frozenset(left)
    checked = [*judgement.run_checks, *(judgement.qrels_checks if sources.subtopics is None else [])]
    for check in checked:
        column = sources.sql_column.get((check.frame, check.column))
        if check.kind == "duplicate" or (
            check.kind in ("null", "not_finite") and column in ("_q", "item", "score", "relevance")
        ) or (check.kind == "bad_rank" and column == "_rank" and not check.float_values):
            left.add(check.name)
    return frozenset(left)


def _checked_run(
    con: _duckdb.DuckDBPyConnection, judgement: Judgement, spec: Spec, sources: _Sources,
    plan: _Plan,
) -> tuple[pl.DataFrame, int]:
    """The engine's checks, then the evaluation.  Every check's error names the user's
    column and a row, which the SQL's own checks cannot; but the checks the macro makes
    itself (:func:`_left_to_macro`) are counted only when another check fails (the
    order of errors stays every engine's, ``checks.FRAME_ORDER``: the qrels' checks, then
    the run's), when the macro raises
    (a bad row it met: the engine's full checks give their own message first), or when
    the macro does not run (nothing to evaluate: bad rows are reported first, as the
    polars engine does)."""
    import duckdb

    left = _left_to_macro(judgement, spec, sources)

    def raise_if_bad(*, deferred: bool = False) -> tuple[dict[str, int], int]:
        counts, repeated = _count_checks(
            con, judgement, sources, len(spec.options.by),
            first=spec.options.duplicates == "first", top=_pushed_top(spec),
            leave_out=left if deferred else frozenset(),
        )
        if deferred and any(counts.values()):
            return raise_if_bad()
        raise_for_checks(
            pl.DataFrame({name: [value] for name, value in counts.items()}),
            [*judgement.qrels_checks, *judgement.run_checks],  # raised in checks.FRAME_ORDER
            lambda which: judgement.run if which == "run" else judgement.qrels,
            judgement.user_names,
        )
        return counts, repeated

    _, repeated = raise_if_bad(deferred=True)
    try:
        frame = plan.run(con)
    except duckdb.Error:
        raise_if_bad()
        raise
    if not plan.evaluated:
        raise_if_bad()
    return frame, repeated


def _typed(
    frame: pl.DataFrame, spec: Spec, stat_columns: list[str], sources: _Sources
) -> pl.DataFrame:
    """The engine's frame with the user's key names and dtypes, Float64 values."""
    value_columns = [f"_m{i}" for i in range(len(spec.measures))]
    frame = frame.with_columns(
        pl.col(name).cast(pl.Float64)
        for name in [*value_columns, *stat_columns]
        if name in frame.columns
    ).with_columns(pl.col(IN_RUN, IN_QRELS).cast(pl.Boolean))
    renames = {"_q": spec.columns.query, **{f"_b{n}": b for n, b in enumerate(spec.options.by)}}
    return frame.rename(renames).with_columns(
        pl.col(k).cast(t) for k, t in sources.key_types.items()
    )


def _plan(spec: Spec, sources: _Sources) -> _Plan:
    return EntryQuery(
        spec, score_mode=sources.score_mode, run_source=RUN_SOURCE, qrels_source=QRELS_SOURCE,
        top=_pushed_top(spec),
        subtopic_source=None if sources.subtopics is None else SUBTOPIC_SOURCE,
    )


def _pushed_top(spec: Spec) -> int | None:
    """``top`` when the macro applies it (``top :=``): with qrels and ties='first'.
    Otherwise the run is cut in polars first (:func:`per_query`): without qrels the
    judgments are the kept rows' own labels (ties='average' takes no top)."""
    options = spec.options
    if spec.qrels is None or options.ties == "average":
        return None
    return options.top


def _subtopic_source(subtopics: pl.LazyFrame, judgement: Judgement, spec: Spec) -> pl.LazyFrame:
    """The subtopic qrels as DuckDB reads them: ``_q, item`` with the run's key dtypes,
    ``subtopic`` as text, ``relevance`` and the intent weight ``_w`` (1 without one)."""
    c, rows_schema = spec.columns, judgement.ranked.collect_schema()
    return subtopics.select(
        pl.col(c.query).cast(_plain(rows_schema[c.query])).alias("_q"),
        pl.col(c.item).cast(_plain(rows_schema[c.item])).alias("item"),
        pl.col(c.subtopic).cast(pl.String).alias("subtopic"),
        pl.col(c.relevance).cast(pl.Float64).alias("relevance"),
        pl.col(W).alias("_w"),
    )


def per_query(spec: Spec) -> tuple[pl.LazyFrame, list[str]]:
    """What the polars engine's ``per_query`` returns, computed by DuckDB through the
    public entry point ``rankeval_per_query``, as a LazyFrame whose DuckDB work happens when it is collected.
    Bad input raises the polars engine's :class:`InputError` (schemas now, data checks
    at collect time) and skipped data gives the same warnings."""
    options = spec.options
    if options.top is not None and _pushed_top(spec) is None:  # the polars engine's rows
        spec = spec._replace(run=keep_top(
            spec.run.lazy(), options.top, columns=spec.columns, by=options.by
        ))
    topic, subtopics = topic_spec(spec)
    judgement = judgement_for(topic._replace(options=replace(options, top=None)))
    if judgement.judged.ties is not None:
        for m in spec.measures:  # the polars engine's MeasureError first
            m.expected(judgement.judged)
    has_qrels = spec.qrels is not None
    if options.complete and not has_qrels:
        raise InputError("complete=True needs qrels: without them every query is in the run")
    sources = _sources(judgement, spec)
    if subtopics is not None:
        sources = replace(sources, subtopics=_subtopic_source(subtopics, judgement, spec))
    plan = _plan(spec, sources)
    keys = list(judgement.keys)
    schema: dict[str, pl.DataType] = {
        **sources.key_types, **{f"_m{i}": pl.Float64() for i in range(len(spec.measures))}
    }

    def compute() -> pl.DataFrame:
        frame, repeated = _run(judgement, spec, sources, plan)
        frame = _typed(frame, spec, plan.stat_columns, sources)
        if options.duplicates == "first":
            frame = frame.with_columns(
                pl.when(pl.int_range(pl.len()) == 0).then(repeated).alias("_dropped")
            )
        checked = check_per_query(
            frame, judgement, has_qrels=has_qrels, complete=options.complete,
            names=spec.names,
        )
        return select_evaluated(
            checked, keys=keys, measures=spec.measures, stat_columns=plan.stat_columns,
            has_qrels=has_qrels, complete=options.complete, groups=query_groups(spec),
        )

    return pl.defer(compute, schema=schema), keys
