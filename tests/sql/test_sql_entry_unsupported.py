"""A family registered without a formula in the one-pass SQL (polars_rankeval._sqlentry)
makes the generated SQL raise a clear error naming the measure, never a silent NULL."""

from __future__ import annotations

import re

import duckdb
import polars as pl
import pytest

from polars_rankeval._registry import REGISTRY, Family
from polars_rankeval._sqldbt import evaluate_macro
from polars_rankeval._sqlentry import FAMILIES_SQL, build_rankeval_sql

DUMMY = Family(
    name="DummyFam",
    summary="a family the SQL does not compute (test only)",
    formula="1",
    trec_eval="-",
    expression=lambda m, j: pl.lit(1.0),
)


@pytest.fixture
def with_dummy(monkeypatch: pytest.MonkeyPatch) -> None:
    assert DUMMY.name not in FAMILIES_SQL
    monkeypatch.setitem(REGISTRY, DUMMY.name, DUMMY)


def connect(sql: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(sql)
    con.execute(
        "CREATE TABLE runs AS SELECT * FROM (VALUES ('q1', 'a', 2.0), ('q1', 'b', 1.0))"
        " AS t(query, item, score)"
    )
    con.execute(
        "CREATE TABLE qrels AS SELECT * FROM (VALUES ('q1', 'a', 1)) AS t(query, item, relevance)"
    )
    return con


@pytest.mark.parametrize("macro", ["rankeval_per_query", "rankeval_summary"])
@pytest.mark.parametrize("name", ["DummyFam", "DummyFam@3", "dummyfam(rel=2)"])
def test_unsupported_family_raises_naming_the_measure(with_dummy, macro, name):
    con = connect(build_rankeval_sql())
    # the name parses (the registry tables know it) ...
    specs = con.sql(f"SELECT _family FROM rankeval_measure_specs(['{name}'])").fetchall()
    assert specs == [("DummyFam",)]
    # ... but computing it raises, with the name as given, even beside a computed measure
    message = re.escape(f"{name} is not available in SQL yet; use rk.evaluate")
    with pytest.raises(duckdb.Error, match=message):
        con.sql(f"SELECT * FROM {macro}('runs', 'qrels', ['MAP', '{name}'])").fetchall()


def test_supported_families_still_compute(with_dummy):
    con = connect(build_rankeval_sql())
    # q1: a (relevant) at rank 1 of 2 -> AP 1, P@2 = 1/2
    rows = con.sql("SELECT * FROM rankeval_summary('runs', 'qrels', ['MAP', 'P@2'])").fetchall()
    assert rows == [("MAP", 1.0), ("P@2", 0.5)]


def test_dbt_rendering_has_the_same_guard():
    macro = evaluate_macro()
    assert "is not available in SQL yet; use rk.evaluate" in macro
    # the dialect's failure piece, dispatched once per call into _fail_open (_sqldbt)
    assert "ELSE {{ _fail_open }}s._name ||" in macro
    assert "{%- set _fail_open = rankeval.fail_open() -%}" in macro
