"""The one table of per-dialect SQL pieces (engines/sqltwin/targets.TARGETS) is what the
three renderings read: sql/rankeval.sql (DuckDB macros), sql.render and the dbt package."""

from __future__ import annotations

import re

import duckdb
import pytest

from polars_rankeval._sqldbt import dialect_macro
from polars_rankeval._sqlentry import (
    COMMON_FAMILIES,
    DUCKDB,
    _ranked_cases,
    _raw_sums,
    _set_cases,
    build_rankeval_sql,
)
from polars_rankeval.engines.sqltwin.targets import PORTABLE, TARGETS
from polars_rankeval.sql import render

pytest.importorskip("sqlglot")


def test_duckdb_macros_take_their_pieces_from_the_table():
    t = TARGETS["duckdb"]
    assert DUCKDB.fail("'m'") == t.fail("'m'") == "error('m')"
    assert DUCKDB.real("x") == t.real("x")
    assert DUCKDB.bytes_order("x") == t.bytes_order("x")
    # the double sums of the judged rows are ordered (the same bits on every call)
    assert "SUM(CAST(jl._hits AS DOUBLE) / jl._pos ORDER BY jl._pos) FILTER" in build_rankeval_sql()


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_dbt_dispatch_macros_are_written_from_the_table(name):
    text = dialect_macro()
    t = TARGETS[name]
    own = f"{{% macro {name}__real(x) %}}{t.real('{{ x }}')}{{% endmacro %}}"
    default = f"{{% macro default__real(x) %}}{PORTABLE.real('{{ x }}')}{{% endmacro %}}"
    # an adapter has its own macro exactly where its piece differs from the portable one
    assert (own in text) == (t.real("{{ x }}") != PORTABLE.real("{{ x }}"))
    assert default in text
    ordered = f"{{% macro {name}__ordered_sums() %}}{{{{ return(true) }}}}{{% endmacro %}}"
    assert (ordered in text) == t.ordered_sum


@pytest.mark.parametrize("dialect", ["postgres", "duckdb"])
def test_summary_adds_in_query_order_where_the_dialect_can(dialect):
    sql = render(["AP"], dialect, per_query=False)
    assert "AVG(" not in sql
    assert "SUM(v._value ORDER BY CAST(v._q AS" in sql


@pytest.mark.parametrize("dialect", ["spark", "bigquery", "snowflake"])
def test_summary_without_ordered_sums_keeps_avg(dialect):
    # no SUM(x ORDER BY k) in these dialects: the engine's own order (documented)
    sql = render(["AP"], dialect, per_query=False)
    assert "ORDER BY" not in sql.split("_agg AS (")[1].split("GROUP BY")[0]
    assert "AVG(v._value)" in sql


def test_rendered_duckdb_summary_is_the_same_on_every_thread_count():
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE run AS SELECT 'q' || (i % 97) AS query, 'd' || i AS item,"
        " (i * 7919 % 1000) / 7.0 AS score FROM range(20000) AS t(i)"
    )
    con.execute(
        "CREATE TABLE qrels AS SELECT 'q' || (i % 97) AS query, 'd' || i AS item,"
        " i % 3 AS relevance FROM range(0, 20000, 3) AS t(i)"
    )
    sql = render(["AP", "nDCG@10", "RBP", "GMAP"], "duckdb", run_table="run",
                 qrels_table="qrels", per_query=False)  # fmt: skip
    seen = set()
    for threads in (1, 2, 4, 1, 4):
        con.execute(f"SET threads = {threads}")
        seen.add(tuple(con.execute(sql).fetchall()))
    assert len(seen) == 1


def test_the_usual_families_aggregate_all_they_read():
    """The branch of COMMON_FAMILIES gives NULL for the aggregates no family of it
    declares: every aggregate a common family's formula reads (a._x) must declare it."""
    cases = {**_ranked_cases(DUCKDB), **_set_cases(DUCKDB)}
    declared = {a.alias: a.families for a in _raw_sums(DUCKDB) if not isinstance(a, str)}
    for family in COMMON_FAMILIES:
        for alias in re.findall(r"\ba\.(_\w+)", cases[family]):
            families = declared[alias]
            assert not families or family in families, (family, alias)
    # and the families outside it read aggregates that the second branch has (all)
    assert set(declared) >= {"_prec_k", "_dcg", "_hits_k", "_min_pos", "_bpref", "_rbp"}
