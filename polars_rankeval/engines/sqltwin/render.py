"""Render the SQL entry point for a warehouse: Spark SQL, PostgreSQL, BigQuery, Snowflake, DuckDB.

``render(measures, dialect=...)`` returns one statement: the canonical one-pass SQL of
:func:`polars_rankeval._sqlentry.compute_sql` (the SQL of ``sql/rankeval.sql``'s
``rankeval_per_query``/``rankeval_summary`` and of the dbt package), filled in for the
dialect (:mod:`.targets`) with the user's tables and column names as identifiers and the
measures, parsed and validated in Python, as literal rows of ``_specs``.  This mirrors in
Python what the dbt package does in Jinja.  Nothing the user gives is pasted into SQL:
names are quoted identifiers (plain words stay unquoted, so the warehouse folds their case
as usual), values are literals of validated numbers and escaped strings.

Needs the optional ``sqlglot`` dependency (``pip install polars_rankeval[sql]``) for the
dialects' keyword lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from polars_rankeval._docparams import fill_params
from polars_rankeval._errors import InputError, MeasureError
from polars_rankeval._parse import resolve_measures
from polars_rankeval._registry import Measure
from polars_rankeval._sqldiversity import SubqSpelling, subq_sql
from polars_rankeval._sqlentry import (
    FAMILIES_SQL,
    all_params,
    compute_sql,
    is_choice,
    qualifier,
    summary_sql,
)
from polars_rankeval.diversity.families import is_diversity
from polars_rankeval.engines.sqltwin.targets import (
    DIALECTS,
    TARGETS,
    Dialect,
    Target,
    require_sqlglot,
)
from polars_rankeval.options import Columns, EvalOptions

__all__ = ["DIALECTS", "render"]

OUTPUT_COLUMNS = ("measure", "value")


@dataclass(frozen=True)
class _Call:
    """One render call, checked: the target, the quoted names and the options."""

    t: Target
    run: str  # the run table reference, quoted
    qrels: str | None
    by: tuple[str, ...]  # the user's names
    columns: Columns
    order: str  # the column ranking the run (score, or rank with rank_mode)
    rank_mode: bool
    options: EvalOptions
    subtopic: str | None = None  # the qrels' subtopic column: subtopic qrels
    intent_weight: str | None = None  # their intent weight column (diversity measures)

    def col(self, name: str, what: str = "column") -> str:
        return "x." + self.t.identifier(name, what)


def _table(t: Target, name: str | Sequence[str], what: str) -> str:
    """``"db.table"`` or ``("catalog", "db", "table")`` as a table reference: the dotted
    form splits on dots, the sequence form takes each part as is (DuckDB reads a part
    such as ``"runs.parquet"`` as a Parquet file)."""
    if isinstance(name, str):
        parts = name.split(".")
    elif isinstance(name, list | tuple):
        parts = list(name)
    else:
        raise InputError(f"{what} must be a table name or a sequence of its parts, got {name!r}")
    if not 1 <= len(parts) <= 3:
        raise InputError(f"{what} {name!r}: expected table, db.table or catalog.db.table")
    return ".".join(t.identifier(p, what) for p in parts)


def _dialect(c: _Call) -> Dialect:
    """compute_sql's dialect: the group columns _g0, _g1... and the options as literals."""
    n = len(c.by)
    o = c.options
    return Dialect.of(
        c.t,
        g=lambda a: "".join(f"{qualifier(a)}_g{i}, " for i in range(n)),
        gj=lambda a, b: "".join(f"{a}._g{i} IS NOT DISTINCT FROM {b}._g{i} AND " for i in range(n)),
        top="NULL" if o.top is None else str(int(o.top)),
        complete="TRUE" if o.complete else "FALSE",
        first="TRUE" if o.duplicates == "first" else "FALSE",
        average="TRUE" if o.ties == "average" else "",
    )


def _message(c: _Call, text: str, example: str, example_col: str) -> str:
    """A text expression: ``text`` then ``example: <the row's value>``."""
    value = f"COALESCE(CAST({c.col(example_col)} AS {c.t.text}), 'NULL')"
    return f"{c.t.literal(f'{text}; example {example}: ')} || {value}"


def _not_null(c: _Call, what: str, name: str, kind: str, other: str, other_kind: str) -> str:
    """The column, raising when it is null (CASE's types stay the column's)."""
    x = c.col(name)
    fail = c.t.fail(_message(c, f"{what} column '{name}': {kind} id is null", other_kind, other))
    return f"CASE WHEN {x} IS NULL THEN CASE WHEN {fail} = 0 THEN {x} END ELSE {x} END"


def _keys(c: _Call, what: str) -> str:
    q, i = c.columns.query, c.columns.item
    return (
        f"{_not_null(c, what, q, 'query', i, 'item')} AS _q,\n"
        f"        {_not_null(c, what, i, 'item', q, 'query')} AS _item"
    )


def _run_sql(c: _Call) -> str:
    """The ``_run`` CTE: group columns, _q, _item, _key (higher ranks first)."""
    t, o = c.t, c.col(c.order)
    q = c.columns.query
    if c.rank_mode:
        bad = _message(c, f"run column '{c.order}': rank must be a positive integer (1 = top)",
                       "query", q)  # fmt: skip
        key = (f"CASE WHEN {o} > 0 AND {o} = FLOOR({o}) THEN -CAST({o} AS {t.double})"
               f" ELSE {t.fail(bad)} END")  # fmt: skip
    else:
        bad = _message(c, f"run column '{c.order}': score is null, NaN or infinite", "query", q)
        key = (f"CASE WHEN {t.finite(f'CAST({o} AS {t.double})')} THEN {t.real(o)}"
               f" ELSE {t.fail(bad)} END")  # fmt: skip
    groups = "".join(f"{c.col(b, 'by')} AS _g{i}, " for i, b in enumerate(c.by))
    return (
        f"_run AS (\n    SELECT {groups}\n        {_keys(c, 'run')},\n        {key} AS _key\n"
        f"    FROM {c.run} AS x\n)"
    )


def _qrels_sql(c: _Call) -> str:
    """The ``_qrels`` CTE: _q, _item, _rel (from the run's labels without qrels; from
    ``_subq`` with subtopic qrels: an item's highest relevance over its subtopics)."""
    if c.subtopic is not None and c.qrels is not None:
        return ("_qrels AS (\n    SELECT y._q, y._item, MAX(y._rel) AS _rel FROM _subq AS y"
                "\n    GROUP BY y._q, y._item\n)")  # fmt: skip
    what, table = ("qrels", c.qrels) if c.qrels is not None else ("run", c.run)
    return f"_qrels AS (\n    SELECT {_keys(c, what)},\n        {_relevance(c)} AS _rel\n    FROM {table} AS x\n)"


def _relevance(c: _Call) -> str:
    """The judgment as a double, raising when it is null, NaN or infinite."""
    t = c.t
    what, label = ("qrels", c.columns.relevance) if c.qrels is not None else ("run", c.columns.relevant)
    r = c.col(label)
    bad = _message(c, f"{what} column '{label}': relevance is null, NaN or infinite", "query",
                   c.columns.query)  # fmt: skip
    return (f"CASE WHEN {t.finite(f'CAST({r} AS {t.double})')} THEN CAST({r} AS {t.double})"
            f" ELSE {t.fail(bad)} END")  # fmt: skip


def _subq_sql(c: _Call) -> str:
    """The ``_subq`` CTE of subtopic qrels (:func:`polars_rankeval._sqldiversity.subq_sql`)
    for the call's dialect, with the user's names."""
    t, q, qrels = c.t, c.columns.query, c.qrels
    assert c.subtopic is not None and qrels is not None
    weight = "1.0" if c.intent_weight is None else f"CAST({c.col(c.intent_weight)} AS {t.double})"
    names = {"subtopic": c.subtopic, "intent_weight": c.intent_weight}
    return subq_sql(SubqSpelling(
        keys=_keys(c, "qrels"), query=c.col(q), item=c.col(c.columns.item),
        subtopic=c.col(c.subtopic, "subtopic"), weight=weight, weight_finite=t.finite(weight),
        relevance=_relevance(c), text=t.text,
        fail=lambda text: t.fail(_message(c, text.format(**names), "query", q)), relation=qrels,
    ))  # fmt: skip


def _spec_row(t: Target, idx: int, name: str, m: Measure) -> list[tuple[str, str]]:
    """One requested measure as literals: (expression, column) pairs, every parameter a
    typed column."""
    params = dict(m.params)
    k = f"CAST(NULL AS {t.integer})" if m.k is None else str(int(m.k))
    cols = [
        (str(idx), "_idx"), (t.literal(name), "_name"), (t.literal(m.family.name), "_family"),
        (t.literal(m.family.aggregate), "_agg"), (k, "_k"), (t.number(m.rel), "_level"),
    ]  # fmt: skip
    for p in all_params():
        value = params.get(p)
        if is_choice(p):
            text = "NULL" if value is None else t.literal(str(value))
            cols.append((f"CAST({text} AS {t.text})", f"_p_{p}"))
        else:
            number = f"CAST(NULL AS {t.double})" if value is None else t.number(float(value))
            cols.append((number, f"_p_{p}"))
    return cols


def _specs_sql(t: Target, resolved: Sequence[tuple[str, Measure]]) -> str:
    """The ``_specs`` CTE's body: one row per measure, as a VALUES list where the
    dialect has one in FROM (a long UNION ALL takes Spark's planner minutes), else as
    one SELECT per row (BigQuery, Snowflake)."""
    rows = [_spec_row(t, i, name, m) for i, (name, m) in enumerate(resolved, start=1)]
    if t.values:
        names = ", ".join(c for _, c in rows[0])
        tuples = ",\n        ".join("(" + ", ".join(e for e, _ in row) + ")" for row in rows)
        return f"SELECT * FROM (VALUES\n        {tuples}\n    ) AS s({names})"
    return "\n    UNION ALL\n    ".join(
        "SELECT " + ", ".join(f"{e} AS {c}" for e, c in row) for row in rows
    )


def _diversity(c: _Call, resolved: Sequence[tuple[str, Measure]]) -> bool:
    """True when a diversity measure is asked for, checked: a dialect with recursive
    CTEs or higher-order array functions (else refused by name), subtopic qrels, a cutoff
    where the family needs one."""
    diverse = [(name, m) for name, m in resolved if is_diversity(m)]
    if not diverse:
        return False
    name = diverse[0][0]
    if not (c.t.recursive or c.t.arrays):
        raise MeasureError(
            f"{name}: the diversity measures (subtopic qrels) are not available in "
            f"render(dialect={c.t.name!r}) yet (ndeval's greedy ideal ranking is written as a "
            "recursive CTE with windows over its own rows, for DuckDB and PostgreSQL, and as a "
            "fold over arrays with lambdas, for Spark; neither form is written or run for this "
            "dialect); use dialect='duckdb', 'postgres' or 'spark', the DuckDB macros of "
            "sql/rankeval.sql (subtopic := ...) or polars_rankeval.evaluate"
        )
    if c.subtopic is None or c.qrels is None:
        raise MeasureError(
            f"{name} is a diversity measure: it needs subtopic qrels (query, subtopic, item, "
            "relevance); pass subtopic='subtopic' (the qrels column naming the subtopic)"
        )
    for name, m in diverse:
        if m.family.name in ("alpha_DCG", "ERR_IA") and m.k is None:
            raise MeasureError(f"{name} needs a cutoff, e.g. {m.family.name}@20 (ndeval's 5, 10, 20)")
    return True


def _output_sql(c: _Call) -> str:
    """The final SELECT: per query rows or the summary per group, in the measures' order."""
    g = [f"v._g{i}" for i in range(len(c.by))]
    named = "".join(f"{x} AS {c.t.identifier(b, 'by')}, " for x, b in zip(g, c.by, strict=True))
    if c.options.per_query:
        query = c.t.identifier(c.columns.query, "query")
        return (
            f"SELECT {named}v._q AS {query}, v._name AS measure, v._value AS value\n"
            f"FROM _values AS v\nORDER BY {', '.join([*g, 'v._q', 'v._idx'])}"
        )
    # the one aggregation rule of engines/finish.aggregate: sums for the counts,
    # trec_eval's floored geometric mean (gm_map), else the mean
    value = summary_sql(_dialect(c), "v._value", "v._agg", "v._q")
    return (
        f"SELECT {named}v._name AS measure, {value} AS value\nFROM _values AS v\n"
        f"GROUP BY {', '.join([*g, 'v._idx', 'v._name'])}\nORDER BY {', '.join([*g, 'v._idx'])}"
    )


def _check_measures(c: _Call, resolved: Sequence[tuple[str, Measure]]) -> None:
    """Every measure has a SQL formula, and an expected value under ties='average'."""
    for name, m in resolved:
        if m.family.name not in FAMILIES_SQL:
            raise MeasureError(
                f"{name}: {m.family.name} has no SQL formula yet, so render(dialect="
                f"{c.t.name!r}) cannot compute it; use polars_rankeval.evaluate"
            )
        if c.options.ties == "average":
            _require_expected(m)


def _require_expected(m: Measure) -> None:
    """evaluate's refusals under ties='average' (same messages): no expected value, or
    AP(norm=hits) with a cutoff (its denominator depends on the order across k)."""
    m.require_expected()
    if m.family.name == "AP" and m["norm"] == "hits" and m.k is not None:
        raise MeasureError(
            f"{m}: with ties='average' the norm=hits denominator (relevant items in the "
            "top k) depends on the order of a tie group across position k, and the "
            "expected ratio has no closed form here; use norm=R or norm=min, no cutoff, "
            "or ties='trec_eval'"
        )


def _options(
    dialect: str, *, by: str | Sequence[str] | None, per_query: bool, complete: bool,
    duplicates: str, top: int | None, ties: str, has_qrels: bool,
) -> EvalOptions:
    """evaluate's checks of the options (same messages), then what SQL cannot do."""
    if ties not in ("first", "trec_eval", "average"):
        raise InputError(f"ties={ties!r}: choose 'first' (= 'trec_eval') or 'average'")
    options = EvalOptions(
        per_query=per_query, by=by, complete=complete,  # type: ignore[arg-type]
        duplicates=duplicates, top=top, ties="trec_eval" if ties == "first" else ties,
    )  # fmt: skip
    if not has_qrels:
        used = [n for n, on in (("by", bool(options.by)), ("top", top is not None),
                                ("duplicates='first'", duplicates == "first")) if on]  # fmt: skip
        if used:
            raise InputError(
                f"qrels_table=None (labels from the run's column) with {', '.join(used)} is not"
                f" available in rendered SQL (dialect={dialect!r}): give a qrels table"
            )
    return options


def _columns(
    query: str, item: str, score: str | None, rank: str | None, relevant: str, relevance: str,
    by: Sequence[str],
) -> tuple[Columns, str, bool]:
    """The column names checked, and the one that ranks the run (rank: with rank=, or
    score=None)."""
    columns = Columns(query, item, rank, score, relevant, relevance)
    rank_mode = rank is not None or score is None
    order = (rank or "rank") if rank_mode else score
    assert order is not None
    if len(set(by)) != len(by) or query in by:
        raise InputError(f"by={list(by)!r} must not repeat columns or contain the query column")
    for name in (*by, query):
        if name in OUTPUT_COLUMNS:
            raise InputError(
                f"the key column {name!r} has the name of an output column "
                f"({', '.join(OUTPUT_COLUMNS)}); rename it in a view first"
            )
    return columns, order, rank_mode


@fill_params
def render(
    measures: str | Iterable[str], dialect: str = "spark", *,
    run_table: str | Sequence[str] = "run", qrels_table: str | Sequence[str] | None = "qrels",
    by: str | Sequence[str] | None = None, query: str = "query", item: str = "item",
    score: str | None = "score", rank: str | None = None, relevance: str = "relevance",
    relevant: str = "relevant", subtopic: str | None = None, intent_weight: str | None = None,
    rel: float | None = None, complete: bool = False, conventions: str = "trec_eval",
    ties: str = "first", top: int | None = None, duplicates: str = "error", per_query: bool = True,
) -> str:  # fmt: skip
    """One SQL statement evaluating ``measures`` on ``run_table`` and ``qrels_table`` in ``dialect``.

    The statement is the SQL entry point's (``rankeval_per_query``/``rankeval_summary`` of
    ``sql/rankeval.sql``, the dbt package's ``rankeval.evaluate``), with the options and
    checks of :func:`polars_rankeval.evaluate`: bad data (null ids, NaN scores, duplicates)
    raises at run time in the warehouse, with the entry point's messages.  Values equal
    ``evaluate(...)``'s to 1e-9 (PostgreSQL and Spark are tested for real); BigQuery and
    Snowflake have no single-precision float, so their scores are compared in double
    precision.  Summaries are per group, measures in the order given.

    Parameters
    ----------
    {params: measures}
    dialect
        ``"spark"``, ``"postgres"``, ``"bigquery"``, ``"snowflake"`` or ``"duckdb"``.  The
        diversity measures need ``"duckdb"`` or ``"postgres"`` (ndeval's greedy ideal
        ranking as a recursive CTE) or ``"spark"`` (a fold over arrays); others refuse them.
    run_table, qrels_table
        ``"db.table"`` splits on dots; a sequence gives the parts as they are.  Without
        ``qrels_table`` the relevance comes from the run's ``relevant`` column (not with
        ``by``, ``top`` or ``duplicates="first"``).
    {params: by, query, item, score, rank@sql, relevance, relevant, subtopic@sql,
    intent_weight, rel, complete, conventions, ties@sql, top, duplicates, per_query}

    Examples
    --------
    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE runs AS SELECT * FROM (VALUES ('A', 'q1', 'a', 2.0),"
    ...                 " ('A', 'q1', 'b', 1.0), ('B', 'q1', 'b', 3.0)) AS t(sys, qid, doc, sim)")
    >>> _ = con.execute("CREATE TABLE judgments AS SELECT 'q1' AS qid, 'b' AS doc, 1 AS grade")
    >>> sql = render(["P@1", "RR"], "duckdb", run_table="runs", qrels_table="judgments",
    ...              by=["sys"], query="qid", item="doc", score="sim", relevance="grade")
    >>> con.execute(sql).fetchall()
    [('A', 'q1', 'P@1', 0.0), ('A', 'q1', 'RR', 0.5), ('B', 'q1', 'P@1', 1.0), ('B', 'q1', 'RR', 1.0)]
    >>> 'COLLATE "C"' in render(["P@1"], "postgres")
    True
    """
    if dialect not in TARGETS:
        raise InputError(f"dialect={dialect!r}: choose one of {', '.join(DIALECTS)}")
    require_sqlglot()
    t = TARGETS[dialect]
    options = _options(
        dialect, by=by, per_query=per_query, complete=complete, duplicates=duplicates, top=top,
        ties=ties, has_qrels=qrels_table is not None)  # fmt: skip
    columns, order, rank_mode = _columns(query, item, score, rank, relevant, relevance, options.by)
    call = _Call(t, _table(t, run_table, "run_table"),
                 None if qrels_table is None else _table(t, qrels_table, "qrels_table"),
                 options.by, columns, order, rank_mode, options, subtopic, intent_weight)  # fmt: skip
    return _statement(call, resolve_measures(measures, conventions=conventions, rel=rel))


def _statement(call: _Call, resolved: list[tuple[str, Measure]]) -> str:
    """The statement: the measures' ``_specs`` rows, the input CTEs, the computation of
    only the families asked for, the output SELECT."""
    _check_measures(call, resolved)
    diverse = _diversity(call, resolved)
    specs = _specs_sql(call.t, resolved)
    subq = f"{_subq_sql(call)},\n" if call.subtopic is not None and call.qrels is not None else ""
    inputs = f"{_run_sql(call)},\n{subq}{_qrels_sql(call)},\n"
    d = _dialect(call)
    # only what the asked families read: each CTE is parsed and planned by the warehouse
    d = replace(
        d, recursive=diverse and d.recursive, arrays=diverse and d.arrays,
        families=frozenset(m.family.name for _, m in resolved),
        settings=frozenset((m.family.name, p, str(v)) for _, m in resolved for p, v in m.params),
    )  # fmt: skip
    compute = compute_sql(d)
    return (
        f"WITH{' RECURSIVE' if d.recursive else ''}\n_specs AS (\n    {specs}\n),\n{inputs}"
        f"{compute.strip(chr(10))}\n{_output_sql(call)}"
    )
