"""Render the SQL twin for a warehouse: Spark SQL, PostgreSQL, BigQuery, Snowflake, DuckDB.

``render(measures, dialect=...)`` builds the same one-pass evaluation query the DuckDB
engine runs, then, on sqlglot's syntax tree: inlines the ``rankeval_*`` macros of the
``sql/`` files, puts the measure parameters in as literals, replaces the macros' table
reads by the user's tables (with the user's column names), and prints it in the target
dialect.  Nothing is pasted into SQL text: table and column names become identifiers
(quoted unless they are plain words), values become literals.

Needs the optional ``sqlglot`` dependency (``pip install polars_rankeval[sql]``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from polars_rankeval._errors import InputError
from polars_rankeval._parse import resolve_measures
from polars_rankeval._registry import Measure
from polars_rankeval.engines.sqltwin.build import build_query, macros

if TYPE_CHECKING:
    from sqlglot import exp

__all__ = ["DIALECTS", "render"]

DIALECTS = ("spark", "postgres", "bigquery", "snowflake", "duckdb")

_RUN = "_rk_run"
_QRELS = "_rk_qrels"
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _sqlglot() -> Any:
    try:
        import sqlglot
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "polars_rankeval.sql.render needs sqlglot: pip install 'polars_rankeval[sql]'"
        ) from None
    return sqlglot


def _identifier(name: object, what: str) -> exp.Identifier:
    """A user's table or column name as an identifier: a plain word stays unquoted (so
    case folding works as the user expects), anything else is quoted and escaped, so it
    is always a name and never SQL."""
    from sqlglot import exp
    from sqlglot.tokens import Tokenizer

    if not isinstance(name, str) or not name or "\x00" in name:
        raise InputError(f"{what} must be a non-empty string, got {name!r}")
    plain = bool(_PLAIN.fullmatch(name)) and name.upper() not in Tokenizer.KEYWORDS
    return exp.to_identifier(name, quoted=not plain)


def _table(name: str | Sequence[str], what: str) -> exp.Table:
    """``"db.table"`` or ``("catalog", "db", "table")`` as a table reference; the dotted
    form splits on dots, the sequence form takes each part as is."""
    from sqlglot import exp

    if isinstance(name, str):
        parts = name.split(".")
    elif isinstance(name, list | tuple):
        parts = list(name)
    else:
        raise InputError(f"{what} must be a table name or a sequence of its parts, got {name!r}")
    if not 1 <= len(parts) <= 3:
        raise InputError(f"{what} {name!r}: expected table, db.table or catalog.db.table")
    ids = [_identifier(p, what) for p in parts]
    return exp.Table(
        this=ids[-1],
        db=ids[-2] if len(ids) > 1 else None,
        catalog=ids[-3] if len(ids) > 2 else None,
    )


def _literal(value: object) -> exp.Expression:
    from sqlglot import exp

    if value is None:
        return exp.Null()
    if isinstance(value, str):
        return exp.Literal.string(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"cannot render {value!r}")
    text = repr(abs(value)) if isinstance(value, float) else str(abs(value))
    number = exp.Literal.number(text)
    return exp.Neg(this=number) if value < 0 else number


def _source(table: exp.Table, columns: list[tuple[str, exp.Expression]]) -> exp.Expression:
    """``(SELECT <expr> AS <canonical>, ... FROM <table>)``: the user's table under the
    column names the macros read."""
    from sqlglot import exp

    select = exp.select(*[exp.alias_(e, name) for name, e in columns]).from_(table.copy())
    return select


def _bind(call: exp.Anonymous, body: exp.Expression) -> exp.Expression:
    """A scalar or table macro's ``body`` with the call's arguments (positional, named,
    else the macro's defaults) put in for its parameters."""
    import sqlglot
    from sqlglot import exp

    macro = macros()[call.name.lower()]
    values: dict[str, exp.Expression] = {}
    positional = [a for a in call.expressions if not isinstance(a, exp.PropertyEQ)]
    for pname, arg in zip(macro.params, positional, strict=False):
        values[pname.lower()] = arg
    for arg in call.expressions:
        if isinstance(arg, exp.PropertyEQ):
            values[arg.this.name.lower()] = arg.expression
    for pname, default in macro.defaults.items():
        default_value = cast(exp.Expression, sqlglot.parse_one(default, read="duckdb"))
        values.setdefault(pname.lower(), default_value)
    missing = [p for p in macro.params if p.lower() not in values]
    if missing:
        raise RuntimeError(f"{macro.name}: no value for {missing}")

    def substitute(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table and node.name.lower() in values:
            value = values[node.name.lower()].copy()
            simple = (exp.Column, exp.Literal, exp.Null, exp.Paren, exp.Neg)
            return value if isinstance(value, simple) else exp.Paren(this=value)
        return node

    return body.transform(substitute)


def _inline(tree: exp.Expression, sources: dict[str, exp.Expression]) -> exp.Expression:
    """Expand every ``rankeval_*`` macro call (scalar and table) and every
    ``query_table('<view>')`` read, recursively, on the syntax tree."""
    import sqlglot
    from sqlglot import exp

    known = macros()
    parsed: dict[str, exp.Expression] = {}

    def bind(call: exp.Anonymous) -> exp.Expression:
        name = call.name.lower()
        if name not in parsed:
            parsed[name] = cast(exp.Expression, sqlglot.parse_one(known[name].body, read="duckdb"))
        return _bind(call, parsed[name].copy())

    def visit(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous):
            call = node.this
            alias = node.args.get("alias")
            if call.name.lower() == "query_table":
                (arg,) = call.expressions
                if not (isinstance(arg, exp.Literal) and arg.is_string and arg.this in sources):
                    raise RuntimeError(f"query_table of an unknown table: {arg.sql()}")
                return exp.Subquery(this=sources[arg.this].copy(), alias=alias)
            if call.name.lower() in known:
                return exp.Subquery(this=bind(call), alias=alias)
        if isinstance(node, exp.Anonymous) and node.name.lower() in known:
            return exp.Paren(this=bind(node))
        return node

    for _ in range(50):
        tree = tree.transform(visit)
        remaining = [
            n
            for n in tree.find_all(exp.Anonymous)
            if n.name.lower() in known or n.name.lower() == "query_table"
        ]
        if not remaining:
            return tree
    raise RuntimeError("macro expansion does not terminate")


def _sources(
    run_table: str | Sequence[str],
    qrels_table: str | Sequence[str] | None,
    columns: dict[str, str | None],
) -> dict[str, exp.Expression]:
    """The user's tables under the column names the macros read: the run as ``query,
    item, score`` (minus the rank with ``score=None``; plus ``relevance`` without qrels),
    the qrels (or the run's labels) as ``query, item, relevance``."""
    from sqlglot import exp

    def col(keyword: str) -> exp.Expression:
        return exp.column(_identifier(columns[keyword], keyword))

    run = _table(run_table, "run_table")
    score = columns["score"]
    order = col("score") if score is not None else exp.Neg(this=exp.Paren(this=col("rank")))
    run_columns = [("query", col("query")), ("item", col("item")), ("score", order)]
    if qrels_table is not None:
        judged, label = _table(qrels_table, "qrels_table"), col("relevance")
    else:
        run_columns.append(("relevance", col("relevant")))
        judged, label = run, col("relevant")
    qrels = _source(judged, [("query", col("query")), ("item", col("item")), ("relevance", label)])
    return {_RUN: _source(run, run_columns), _QRELS: qrels}


def _in(names: Sequence[str]) -> exp.Expression:
    from sqlglot import exp

    if not names:
        return exp.false()
    return exp.In(this=exp.column("measure", "e"), expressions=[_literal(n) for n in names])


def _summary(tree: exp.Expression, resolved: Sequence[tuple[str, Measure]]) -> exp.Expression:
    """Per-query rows ``e(query, measure, value)`` -> ``measure, value``: the one
    aggregation rule of :func:`~polars_rankeval.engines.finish.aggregate` in SQL (sum for
    counts, trec_eval's floored geometric mean, else the mean), in the measures' order."""
    from sqlglot import exp

    value = exp.column("value", "e")

    def kind(aggregate: str) -> list[str]:
        return [name for name, m in resolved if m.family.aggregate == aggregate]

    ifs = [exp.If(this=_in(kind("sum")), true=exp.func("SUM", value))]
    if kind("gmean"):  # trec_eval's gm_map: EXP(AVG(LN(max(value, 0.00001))))
        floor = exp.Literal.number("0.00001")
        floored = exp.Case(
            ifs=[exp.If(this=exp.GT(this=value.copy(), expression=floor), true=value.copy())],
            default=floor.copy(),
        )
        gmean = exp.func("EXP", exp.func("AVG", exp.func("LN", floored)))
        ifs.append(exp.If(this=_in(kind("gmean")), true=gmean))
    aggregated = exp.Case(ifs=ifs, default=exp.func("AVG", value.copy()))
    order_case = exp.Case(
        ifs=[
            exp.If(
                this=exp.EQ(this=exp.column("measure", "e"), expression=_literal(name)),
                true=_literal(i),
            )
            for i, (name, _) in enumerate(resolved)
        ]
    )
    return (
        exp.select(exp.column("measure", "e"), exp.alias_(aggregated, "value"))
        .from_(exp.Subquery(this=tree, alias=exp.TableAlias(this=exp.to_identifier("e"))))
        .group_by(exp.column("measure", "e"))
        .order_by(exp.Ordered(this=exp.func("MIN", order_case)))
    )


def _for_dialect(tree: exp.Expression, dialect: str) -> exp.Expression:
    """Null placement and collation the target needs."""
    from sqlglot import exp
    from sqlglot.dialects.dialect import Dialect

    target = Dialect.get_or_raise(dialect)
    for ordered in tree.find_all(exp.Ordered):
        # our sort keys are never null: use the target's default null placement, so no
        # NULLS FIRST/LAST clause is needed (BigQuery has none in window functions)
        desc = bool(ordered.args.get("desc"))
        ordering = target.NULL_ORDERING
        nulls_first = (
            (not desc)
            if ordering == "nulls_are_small"
            else (desc if ordering == "nulls_are_large" else False)
        )
        ordered.set("nulls_first", nulls_first)
    if dialect == "postgres":
        # byte order for the item tie-break, whatever the database collation
        for cast in list(tree.find_all(exp.Cast)):
            if cast.to.is_type("varchar", "text") and isinstance(cast.parent, exp.Ordered):
                cast.replace(
                    exp.Collate(this=cast.copy(), expression=exp.to_identifier("C", quoted=True))
                )
    return tree


def render(
    measures: str | Iterable[str],
    dialect: str = "spark",
    *,
    run_table: str | Sequence[str] = "run",
    qrels_table: str | Sequence[str] | None = "qrels",
    per_query: bool = True,
    conventions: str = "trec_eval",
    rel: float | None = None,
    query: str = "query",
    item: str = "item",
    score: str | None = "score",
    rank: str = "rank",
    relevant: str = "relevant",
    relevance: str = "relevance",
    pretty: bool = True,
) -> str:
    """SQL text evaluating ``measures`` on ``run_table`` (and ``qrels_table``) in ``dialect``.

    The query reads ``run_table(query, item, score)`` (or ``rank`` with ``score=None``)
    and ``qrels_table(query, item, relevance)`` under the given column names, ranks as
    trec_eval does (score descending, ties by item descending in byte order) and
    returns ``query, measure, value`` for the queries in both tables, or with
    ``per_query=False`` ``measure, value``: the mean over those queries (the sum for
    NumRet, NumRel, NumRelRet, NumQ; the geometric mean for GMAP).  Without
    ``qrels_table`` relevance comes from the run's ``relevant`` column.  Duplicate
    (query, item) run rows are not checked: remove them first (the polars and DuckDB
    engines refuse them).

    Values equal ``evaluate(...)``'s to 1e-9; on PostgreSQL the item tie-break uses
    ``COLLATE "C"`` (byte order, whatever the database's collation).

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> con.execute(
    ...     "CREATE TABLE runs AS SELECT * FROM (VALUES ('q1', 'a', 2.0), ('q1', 'b', 1.0))"
    ...     " AS t(qid, doc, score)"
    ... ).execute(
    ...     "CREATE TABLE judgments AS SELECT * FROM (VALUES ('q1', 'b', 1)) AS t(qid, doc, relevance)"
    ... ).fetchall()
    [(1,)]
    >>> sql = render(["P@1", "RR"], "duckdb", run_table="runs", qrels_table="judgments",
    ...              query="qid", item="doc")
    >>> con.execute(sql).fetchall()
    [('q1', 'P@1', 0.0), ('q1', 'RR', 0.5)]
    >>> 'COLLATE "C"' in render(["P@1"], "postgres")
    True
    """
    sqlglot = _sqlglot()
    from sqlglot import exp
    from sqlglot.optimizer.simplify import simplify

    if dialect not in DIALECTS:
        raise InputError(f"dialect={dialect!r}: choose one of {', '.join(DIALECTS)}")
    resolved = resolve_measures(measures, conventions=conventions, rel=rel)
    columns = {"query": query, "item": item, "score": score, "rank": rank,
               "relevant": relevant, "relevance": relevance}
    sources = _sources(run_table, qrels_table, columns)
    built = build_query(
        [m for _, m in resolved],
        run_view=_RUN,
        qrels_view=_QRELS,
        stats_view=_QRELS,
        raw_query=lambda alias: f"{alias}.query",
        duplicates="error",
        final="long",
        has_qrels=qrels_table is not None,
        names=[name for name, _ in resolved],
    )
    tree = sqlglot.parse_one(built.sql, read="duckdb")
    tree = tree.transform(
        lambda n: _literal(built.params[n.name]) if isinstance(n, exp.Placeholder) else n
    )
    tree = _inline(tree, sources)
    if per_query:
        # name the output query column as the user's
        tree.expressions[0].set("alias", _identifier(query, "query"))
    else:
        tree = _summary(tree, resolved)
    tree = _for_dialect(simplify(tree, dialect=dialect), dialect)
    return tree.sql(dialect=dialect, pretty=pretty)
