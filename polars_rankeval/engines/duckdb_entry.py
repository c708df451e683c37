"""``engine="duckdb"`` through the public SQL entry point: ``rankeval_per_query`` of
``sql/rankeval.sql``, the macro SQL users call, so the engine and the SQL user run one
SQL path (the engine only checks the data first, for its error messages, and shapes
the macro's long rows into the engine's per-query frame: it reads them unsorted from
``rankeval_per_query_rows``, which ``rankeval_per_query`` wraps and sorts).

The engine hands the macro measure *names*: :func:`sql_name` writes every parameter of
a resolved measure out, in a form the SQL parser reads back exactly.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import polars as pl

from polars_rankeval._registry import Judged, Measure, Stat
from polars_rankeval._sqlentry import FAMILIES_SQL
from polars_rankeval.engines.finish import IN_QRELS, value_column
from polars_rankeval.engines.spec import Spec
from polars_rankeval.engines.sqltwin.targets import duckdb_real
from polars_rankeval.prepare.judge import IN_RUN

if TYPE_CHECKING:
    import duckdb as _duckdb

__all__ = ["EntryQuery", "fetch", "missing_stats", "sql_name", "supports_entry"]

RUN_VIEW = "_rk_run"
QRELS_VIEW = "_rk_qrels"
# the macro's rows, for one fetch: a name of its own per call (a connection is one
# evaluation's, but nothing of fetch relies on it)
_FETCHED = itertools.count()


def sql_name(m: Measure) -> str:
    """The measure's name for the SQL parser: its exact canonical name (floats written
    in full; ``str(m)`` rounds them to 6 digits), which reads back as ``m`` under the
    conventions the engine calls the macro with (the default, 'trec_eval').

    >>> from polars_rankeval._parse import parse_measure
    >>> sql_name(parse_measure("RBP(p=0.123456789)@10"))
    'RBP(p=0.123456789)@10'
    >>> sql_name(parse_measure("IPrec@0.5"))
    'IPrec@0.5'
    """
    return m.exact_name


def missing_stats(m: Measure) -> list[Stat]:
    """The per-query stats the value of a query without run rows reads (NumRel's R):
    ``select_evaluated`` fills such queries from these columns."""
    empty = Judged(
        pos=pl.lit(None, pl.Int64), rel=pl.lit(None, pl.Float64),
        stat=lambda s: pl.col(s.column), num_ret=pl.lit(0, pl.Int64), judged_only=True,
    )
    roots = set(m.missing(empty).meta.root_names())
    return [s for s in m.stats() if s.column in roots]


def _stat_name(stat: Stat) -> str:
    """The measure whose per-query value is the stat (only R is ever needed)."""
    if stat.kind != "num_rel" or stat.level is None:
        raise ValueError(f"no measure gives the stat {stat.kind}")
    return f"NumRel(rel={float(stat.level)!r})"


def supports_entry(measure: Measure) -> str | None:
    """None when ``rankeval_per_query`` computes the measure."""
    if measure.family.name not in FAMILIES_SQL:
        return (
            f"{measure}: the SQL entry point (sql/rankeval.sql) has no formula for "
            f"{measure.family.name} yet; use engine='polars'"
        )
    for stat in missing_stats(measure):
        if stat.kind != "num_rel":
            return f"{measure}: its value without run rows needs {stat.kind}, not in SQL"
    return None


def literal(value: object) -> str:
    """``value`` (a string, an int, a bool, None or a list of strings) as a DuckDB
    literal.  The macro's arguments are written as literals, not bound as parameters:
    DuckDB folds a literal while planning, so the macro plans only what the call's
    measures and options read (a parameter is not folded: every family is planned).

    >>> literal(["AP", "it's"]), literal(None), literal(True), literal(10)
    ("['AP', 'it''s']::VARCHAR[]", 'NULL', 'true', '10')
    """
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]::VARCHAR[]"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    raise TypeError(f"no DuckDB literal for {value!r}")


def _long_rows(
    spec: Spec, measures: list[str], *, score_mode: bool, run_table: str, qrels_table: str,
    subtopics: bool = False, top: int | None = None,
) -> str:
    """The macro call, as rows ``_b0``.., ``_q``, ``measure``, ``value`` (``subtopics``:
    the qrels table is subtopic qrels with the intent weight in ``_w``).  It reads
    ``rankeval_per_query_rows``, the rows ``rankeval_per_query`` sorts for SQL users:
    the engine pivots them (no order kept) and sorts its frame itself, so the sort of
    every (query, measure) row (~0.14 CPU s at 10M run rows) is skipped."""
    options = spec.options
    has_qrels, by = spec.qrels is not None, spec.options.by
    # without qrels the judgments are the run's own labels, per (by..., query): the key
    # folds the groups into the query column (the macro joins judgments on it alone)
    groups = [f"'_b{n}'" for n in range(len(by))] if has_qrels else []
    order = "score := 'score'" if score_mode else "rank := '_rank'"
    call = (
        f"rankeval_per_query_rows('{run_table}', '{qrels_table}', {literal(measures)}, "
        f"\"by\" := [{', '.join(groups)}]::VARCHAR[], query := '{'_q' if has_qrels else '_k'}', "
        f"item := 'item', {order}, relevance := 'relevance', "
        f"complete := {literal(options.complete)}, duplicates := {literal(options.duplicates)}, "
        f"top := {literal(top)}, "
        f"ties := {literal('average' if options.ties == 'average' else 'first')}"
        + (", subtopic := 'subtopic', intent_weight := '_w')" if subtopics else ")")
    )
    if has_qrels:  # the query as __rk_oq (the same values and dtype: both sides handed
        # over cast alike): not reading the names' struct drops the macro's join to them
        keys = [*(f"v._b{n}" for n in range(len(by))), "v.__rk_oq AS _q"]
    else:
        keys = ["unnest(v._k)" if by else "v._k AS _q"]
    return f"SELECT {', '.join(keys)}, v.measure, v.value FROM {call} AS v"


def fetch(con: _duckdb.DuckDBPyConnection, sql: str, *, bound_once: bool = False) -> pl.DataFrame:
    """The rows of a query (one per query) as a frame, through the Arrow C stream
    interface (polars reads DuckDB's relation itself: no pyarrow import, ~0.11 CPU s
    per process, and no Python tuples, ~0.2 CPU s per 100k rows).  A relation binds its
    query again when it runs: ``bound_once`` (the macro call, ~0.06 CPU s to bind)
    executes the query once into a temporary table and reads that instead (~0.013 CPU s
    per 100k rows).

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> fetch(con, "SELECT 'q1' AS _q, 0.5 AS _m0", bound_once=True).rows()
    [('q1', Decimal('0.5'))]
    """
    if not bound_once:
        return pl.DataFrame(con.sql(sql))
    table = f"_rk_fetched{next(_FETCHED)}"
    con.execute(f"CREATE TEMP TABLE {table} AS {sql}")
    try:
        return pl.DataFrame(con.sql(f"FROM {table}"))
    finally:
        con.execute(f"DROP TABLE {table}")


class EntryQuery:
    """One evaluation through ``rankeval_per_query``: :meth:`run` gives the engine's
    per-query frame (``_b0``.., ``_q``, ``_m{i}``, stat columns, ``_in_run``,
    ``_in_qrels``), with a row per run key and per qrels query."""

    def __init__(
        self, spec: Spec, *, score_mode: bool, run_source: str, qrels_source: str,
        top: int | None = None, subtopic_source: str | None = None,
    ) -> None:
        self.spec, self.score_mode, self.top = spec, score_mode, top
        self.subtopic_source = subtopic_source  # subtopic qrels: the macro's qrels table
        self.run_source, self.qrels_source = run_source, qrels_source
        self.keys = [*(f"_b{n}" for n in range(len(spec.options.by))), "_q"]
        # value columns: _m{i} by measure, stat columns (complete=True fills the queries
        # without run rows from them) by the hidden measure that gives them
        self.columns = {value_column(i): sql_name(m) for i, m in enumerate(spec.measures)}
        stats = dict.fromkeys(s for m in spec.measures for s in missing_stats(m))
        self.stat_columns = [s.column for s in stats]
        # only complete=True evaluates queries without run rows: otherwise every
        # evaluated query has its values and the stat columns stay null
        self.complete = spec.options.complete and spec.qrels is not None
        if self.complete:
            self.columns |= {s.column: _stat_name(s) for s in stats}
        self.views = self._views()
        self.evaluated = False  # the macro ran (run(): not when nothing is evaluable)

    def _views(self) -> list[str]:
        """Without qrels: the run keyed by (by..., query) in ``_k`` and its labels as
        the judgments (duplicates='first': the best-ranked row's label)."""
        if self.spec.qrels is not None:
            return []
        by = self.spec.options.by
        parts = [*(f"_b{n} := _b{n}" for n in range(len(by))), "_q := _q"]
        key = f"struct_pack({', '.join(parts)})" if by else "_q"
        order = "score" if self.score_mode else "_rank"
        best = f"{duckdb_real('score')} DESC" if self.score_mode else "_rank"
        first = (
            f" QUALIFY ROW_NUMBER() OVER (PARTITION BY _k, item ORDER BY {best}) = 1"
            if self.spec.options.duplicates == "first" else ""
        )
        return [
            (f"CREATE TEMP VIEW {RUN_VIEW} AS SELECT {key} AS _k, item, {order}, "
             f"relevance FROM {self.run_source}"),
            f"CREATE TEMP VIEW {QRELS_VIEW} AS SELECT _k, item, relevance FROM {RUN_VIEW}"
            + first,
        ]

    def skeleton(self, con: _duckdb.DuckDBPyConnection) -> pl.DataFrame:
        """A row per run key and per qrels query, flagged ``_in_run`` / ``_in_qrels``."""
        keys = ", ".join(self.keys)
        if self.spec.qrels is None:
            sql = f"SELECT DISTINCT {keys}, TRUE AS {IN_RUN}, TRUE AS {IN_QRELS} FROM {self.run_source}"
            return fetch(con, sql)
        groups = "".join(f"k.{b}, " for b in self.keys[:-1])
        sql = (
            f"SELECT {groups}COALESCE(k._q, q._q) AS _q, k._q IS NOT NULL AS {IN_RUN}, "
            f"q._q IS NOT NULL AS {IN_QRELS} FROM (SELECT DISTINCT {keys} FROM "
            f"{self.run_source}) AS k FULL JOIN (SELECT DISTINCT _q FROM "
            f"{self.qrels_source}) AS q ON k._q = q._q"
        )
        return fetch(con, sql)

    def values(self, con: _duckdb.DuckDBPyConnection) -> pl.DataFrame:
        """The macro's values, a column per measure (and stat), a row per key."""
        for view in self.views:
            con.execute(view)
        has_qrels = self.spec.qrels is not None
        names = list(dict.fromkeys(self.columns.values()))
        pivot = ", ".join(
            f'MAX(CASE WHEN u.measure = {literal(name)} THEN u.value END) AS "{column}"'
            for column, name in self.columns.items()
        )
        rows = _long_rows(
            self.spec, names, score_mode=self.score_mode,
            run_table=self.run_source if has_qrels else RUN_VIEW,
            qrels_table=self.subtopic_source or (self.qrels_source if has_qrels else QRELS_VIEW),
            subtopics=self.subtopic_source is not None, top=self.top,
        )
        keys = ", ".join(f"u.{k}" for k in self.keys)
        sql = f"SELECT {keys}, {pivot} FROM ({rows}) AS u GROUP BY {keys}"
        return fetch(con, sql, bound_once=True)

    def run(self, con: _duckdb.DuckDBPyConnection) -> pl.DataFrame:
        """The per-query frame.  The macro runs only when the frame has something to
        evaluate: otherwise ``check_per_query`` raises the engine's error about it (no
        rows, no shared query), not the macro's SQL error."""
        frame = self.skeleton(con)
        in_run, in_qrels = frame[IN_RUN], frame[IN_QRELS]
        evaluable = (in_run & in_qrels).any() or (
            self.spec.options.complete and in_run.any() and in_qrels.any()
        )
        nulls = [*self.columns, *self.stat_columns]
        if not evaluable:
            return frame.with_columns(pl.lit(None, pl.Float64).alias(c) for c in dict.fromkeys(nulls))
        values = self.values(con)
        self.evaluated = True
        if not self.complete:
            values = values.with_columns(pl.lit(None, pl.Float64).alias(c) for c in self.stat_columns)
        # a stat is the query's (R of the qrels), the same in every group
        stats = values.select("_q", *self.stat_columns).unique(subset="_q")
        frame = frame.join(
            values.drop(self.stat_columns), on=self.keys, how="left", nulls_equal=True
        )
        return frame.join(stats, on="_q", how="left")
