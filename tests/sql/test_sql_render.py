"""polars_rankeval.sql.render: the SQL entry point rendered for a warehouse.

The DuckDB rendering is executed on a connection *without* the macros (so the statement
is self-contained) and must equal the polars engine; every dialect's text must
parse back as one statement; user names are identifiers, never SQL.
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import replace
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from polars_rankeval._registry import REGISTRY
from polars_rankeval._sqlentry import FAMILIES_SQL
from polars_rankeval.sql import DIALECTS, render
from tests.helpers import FULL_PROFILE, examples, gc_paused
from tests.parity import (
    BATCH_SETTINGS,
    GRID,
    assert_same,
    batches,
    covered,
    runner_names,
    seeded_batch,
)

sqlglot = pytest.importorskip("sqlglot")


def _run_duckdb(sql: str, tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    con = duckdb.connect()  # no macros installed: render() must have inlined them all
    for name, frame in tables.items():
        con.register(name, frame.to_arrow())
    result = con.execute(sql)
    names = [d[0] for d in result.description]
    return pl.DataFrame(result.fetchall(), schema=names, orient="row", infer_schema_length=None)


def _polars(run: pl.DataFrame, qrels: pl.DataFrame | None, names: list[str], **kw: Any):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        return rk.evaluate(run, qrels, names, **kw)


# The grid tests check a batch of datasets stacked into one statement (parity.batches):
# by default their seeded explicit example only, under the full profile also the drawn
# batches (parity.BATCH_SETTINGS).
@pytest.mark.slow
@pytest.mark.parametrize("per_query", [True, False], ids=["per_query", "summary"])
@settings(BATCH_SETTINGS, max_examples=examples(6))
@given(data=batches())
@example(data=seeded_batch(21, 3, int_ids=True))
def test_rendered_duckdb_equals_polars(data: dict[str, Any], per_query: bool) -> None:
    """Per query the whole grid; the summary (each measure's values aggregated by its
    family's rule) on the grid's cover by default (parity.runner_names), whole under full."""
    run, qrels = data["run"], data["qrels"]
    names = runner_names("polars eager", GRID, per_query=per_query)
    sql = render(names, "duckdb", run_table="run", qrels_table="qrels", per_query=per_query)
    got = _run_duckdb(sql, {"run": run, "qrels": qrels})
    want = _polars(run, qrels, names, per_query=per_query)
    got = got.cast(want.schema)  # type: ignore[arg-type]
    assert_same(got, want, what="rendered duckdb")
    if per_query:  # ordered by query, then measure as given
        assert got.select("query", "measure").rows() == want.select("query", "measure").rows()


@pytest.mark.slow
@settings(BATCH_SETTINGS, max_examples=examples(4))
@given(data=batches(ranks=True))
@example(data=seeded_batch(22, 3, int_ids=False, ranks=True))
def test_rendered_rank_column_and_no_qrels(data: dict[str, Any]) -> None:
    """A rank column, then no qrels: each changes the statement's input, the same for every
    measure, so by default on the grid's cover (parity.covered), whole under full (the
    whole grid per query is test_rendered_duckdb_equals_polars's)."""
    run, qrels = data["run"], data["qrels"]
    grid = list(covered(tuple(GRID)))
    sql = render(grid, "duckdb", run_table="r", qrels_table="q", score=None)
    got = _run_duckdb(sql, {"r": run, "q": qrels})
    want = _polars(run, qrels, grid, per_query=True)
    assert_same(got.cast(want.schema), want, what="rank column")  # type: ignore[arg-type]
    labels = run.join(qrels, on=["query", "item"], how="left").select(
        "query", "item", "rank", pl.col("relevance").fill_null(0).alias("label")
    )
    names = [n for n in grid if not n.startswith("NumRel(") and n != "NumRel"]
    sql = render(names, "duckdb", run_table="r", qrels_table=None, score=None, relevant="label")
    got = _run_duckdb(sql, {"r": labels})
    want = _polars(labels, None, names, per_query=True, relevant="label")
    assert_same(got.cast(want.schema), want, what="no qrels")  # type: ignore[arg-type]


# one measure per family with SQL, and a few parameters: the statement's body is the same
# for every measure list (sqlglot takes ~25 s to parse the whole grid's rows)
FAMILY_NAMES = [f for f in FAMILIES_SQL if f in REGISTRY] + [
    "AP(norm=min)@10", "nDCG(gain=exp,ideal=run)@5", "RBP(p=0.8)", "IPrec@0.3", "map_cut_10",
]  # fmt: skip


# (qrels, per_query): each dialect with qrels and without, per query and summarised;
# every pairing under the full profile (a parse costs ~1.5 s of CPU)
SHAPES = (
    [("qrels", True), ("qrels", False), (None, True), (None, False)]
    if FULL_PROFILE
    else [("qrels", True), (None, False)]
)


def _parsed_and_printed_twice(sql: str, dialect: str) -> tuple[int, str, str]:
    """The number of statements sqlglot parses ``sql`` into, the first one printed, and
    that text parsed and printed again (only text leaves: the trees are garbage after)."""
    statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
    printed = statements[0].sql(dialect=dialect) if statements else ""
    return len(statements), printed, sqlglot.parse_one(printed, read=dialect).sql(dialect=dialect)


@pytest.mark.slow
@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(("qrels", "per_query"), SHAPES)
def test_every_dialect_reparses(dialect: str, qrels: str | None, per_query: bool) -> None:
    options: dict[str, Any] = (
        {"by": ["system", "day"], "top": 5, "complete": True, "duplicates": "first"}
        if qrels else {}
    )  # fmt: skip
    with warnings.catch_warnings(), gc_paused():
        warnings.simplefilter("error")  # sqlglot warns when it cannot translate something
        sql = render(FAMILY_NAMES, dialect, qrels_table=qrels, per_query=per_query, **options)
        count, printed, reprinted = _parsed_and_printed_twice(sql, dialect)
    assert count == 1
    # re-parsing and printing is stable: nothing was lost in translation
    assert reprinted == printed
    assert "rankeval_" not in sql.lower() and "query_table" not in sql.lower()
    if dialect == "postgres":
        assert 'COLLATE "C"' in sql


def test_column_and_table_names() -> None:
    run = pl.DataFrame({"Q": ["a", "a"], "doc id": ["x", "y"], "s": [1.0, 2.0]})
    qrels = pl.DataFrame({"Q": ["a"], "doc id": ["x"], "grade": [1]})
    sql = render(
        ["AP", "P@1"], "duckdb", run_table=("main", "my run"), qrels_table="main.qrels",
        query="Q", item="doc id", score="s", relevance="grade",
    )  # fmt: skip
    got = _run_duckdb(sql, {"my run": run, "qrels": qrels})
    want = _polars(run, qrels, ["AP", "P@1"], per_query=True, query="Q", item="doc id",
                   score="s", relevance="grade")  # fmt: skip
    assert got.columns == ["Q", "measure", "value"]
    assert_same(got, want, what="names")


HOSTILE = [
    'run"; DROP TABLE sentinel; --',
    "run'; DROP TABLE sentinel; --",
    "run`; DROP TABLE sentinel; --",
    "run /* comment */",
    "run -- comment",
    "run;",
    "select",
    'a""b',
]


# Each hostile name goes into a table slot (the run's or the qrels' table) of one
# statement and a column slot (query, item, score, relevance) of another: four
# statements hold the eight names twice each, where a statement a name held each in a
# table and a column (a parse costs ~0.25 s of CPU in each of the five dialects).
HOSTILE_STATEMENTS = [
    {
        "run_table": HOSTILE[2 * j], "qrels_table": HOSTILE[2 * j + 1],
        **{slot: HOSTILE[(2 * j + 2 + i) % len(HOSTILE)]
           for i, slot in enumerate(("query", "item", "score", "relevance"))},
    }
    for j in range(len(HOSTILE) // 2)
]  # fmt: skip


def test_hostile_statements_hold_every_name_as_a_table_and_a_column() -> None:
    tables = {s[k] for s in HOSTILE_STATEMENTS for k in ("run_table", "qrels_table")}
    columns = {s[k] for s in HOSTILE_STATEMENTS for k in ("query", "item", "score", "relevance")}
    assert tables == columns == set(HOSTILE)


@pytest.mark.parametrize("names", HOSTILE_STATEMENTS, ids=lambda names: names["run_table"])
def test_hostile_table_and_column_names_are_names(names: dict[str, str]) -> None:
    q, i, s, r = (names[k] for k in ("query", "item", "score", "relevance"))
    run = pl.DataFrame({q: ["a", "a"], i: ["x", "y"], s: [1.0, 2.0]})
    qrels = pl.DataFrame({q: ["a"], i: ["x"], r: [1]})
    for dialect in DIALECTS:
        sql = render(["AP"], dialect, **names)
        with gc_paused():
            assert len([s for s in sqlglot.parse(sql, read=dialect) if s is not None]) == 1, dialect
    sql = render(["AP", "RR"], "duckdb", **names)
    con = duckdb.connect()
    con.execute("CREATE TABLE sentinel (x INTEGER)")
    con.register(names["run_table"], run.to_arrow())
    con.register(names["qrels_table"], qrels.to_arrow())
    rows = con.execute(sql).fetchall()
    assert rows == [("a", "AP", 0.5), ("a", "RR", 0.5)]  # y (2.0) above the relevant x
    assert con.execute("SELECT COUNT(*) FROM sentinel").fetchall() == [(0,)]


@pytest.mark.parametrize("bad", ["", None, 3, "a\x00b"])
def test_names_that_are_refused(bad: Any) -> None:
    with pytest.raises(rk.InputError):
        render(["AP"], "spark", run_table=bad)
    with pytest.raises(rk.InputError):
        render(["AP"], "spark", item=bad)


def test_values_are_literals_not_text() -> None:
    """Measure names given by the user become string literals, quotes escaped."""
    sql = render(["map_cut_10", "P(rel=2)@5"], "spark")
    tree = sqlglot.parse_one(sql, read="spark")
    literals = {lit.this for lit in tree.find_all(sqlglot.exp.Literal) if lit.is_string}
    assert {"map_cut_10", "P(rel=2)@5"} <= literals


def test_bad_dialect_and_measure() -> None:
    with pytest.raises(rk.InputError, match="dialect"):
        render(["AP"], "oracle")
    with pytest.raises(rk.MeasureError):
        render(["nope"], "spark")


def test_clear_error_without_sqlglot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sqlglot", None)
    with pytest.raises(ImportError, match=r"polars_rankeval\[sql\]"):
        render(["AP"], "spark")


# Lists of names drawn from the grid, one statement a list in each dialect (a parse costs
# ~0.25 s of CPU whatever the list): the simplest, a single name, then lists of up to 8
# (~10 names in 3 statements a dialect by default, where 6 single names took 6).
@pytest.mark.slow
@given(st.lists(st.sampled_from(GRID), min_size=1, max_size=8, unique=True))
@settings(max_examples=examples(15), deadline=None)
def test_single_measures_render_everywhere(names: list[str]) -> None:
    for dialect in DIALECTS:
        with gc_paused():
            assert sqlglot.parse_one(render(names, dialect), read=dialect) is not None


@pytest.mark.parametrize("duplicates", ["error", "first"])
def test_fingerprint_collisions_only_cost_time(
    monkeypatch: pytest.MonkeyPatch, duplicates: str
) -> None:
    """DuckDB counts the run's repeated (query, item) rows by a 64-bit hash first and
    exactly only when hashes repeat.  With a hash that always collides, every run takes
    the exact path: the values are the polars engine's, and a real repeat still raises
    (duplicates='error') or is dropped (duplicates='first')."""
    from polars_rankeval.engines.sqltwin import targets

    colliding = replace(targets.TARGETS["duckdb"], fingerprint=lambda columns: "0")
    monkeypatch.setitem(targets.TARGETS, "duckdb", colliding)
    run = pl.DataFrame({
        "query": ["q1", "q1", "q1", "q2", "q2"], "item": ["a", "b", "c", "a", "d"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0],
    })
    qrels = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["a", "c", "d"], "relevance": [1, 2, 1]})
    names = ["AP", "nDCG@10", "P@2", "RR", "NumRet"]
    repeated = pl.concat([run, run.head(1).with_columns(pl.lit(0.5).alias("score"))])
    for frame in (run, repeated):
        sql = render(names, "duckdb", run_table="run", qrels_table="qrels",
                     per_query=True, duplicates=duplicates)
        assert "COUNT(DISTINCT 0)" in sql  # the colliding fingerprint is the one used
        if duplicates == "error" and frame is repeated:
            with pytest.raises(duckdb.Error, match=r"duplicate \(query, item\) rows: 1 extra"):
                _run_duckdb(sql, {"run": frame, "qrels": qrels})
            continue
        got = _run_duckdb(sql, {"run": frame, "qrels": qrels})
        want = _polars(frame, qrels, names, per_query=True, duplicates=duplicates)
        assert_same(got.cast(want.schema), want, what="colliding fingerprint")  # type: ignore[arg-type]
