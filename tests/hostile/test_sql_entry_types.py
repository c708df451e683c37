"""Column types the SQL entry point (``rankeval_summary`` / ``rankeval_per_query``) cannot
use: a project message naming the user's column, the problem and an example row, raised
with ``error()`` (what a SQL-only user sees in the DuckDB console), as
``evaluate(engine="duckdb")`` reports the same frames.  DuckDB's own conversion errors
named internal columns (``_q``, ``_item``, ``__rk_rv``) before."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import duckdb
import polars as pl
import pytest

import polars_rankeval as rk
from tests.helpers import entry_point_connection
from tests.hostile._places import HAND, QRELS, RUN, evaluate_at

SCORED = RUN.drop("rank")
ROW = "example row"
ID_KINDS = "ids of different types never match"


def _with(frame: pl.DataFrame, column: str, values: list[Any]) -> pl.DataFrame:
    return frame.with_columns(pl.Series(column, values))


# id -> (run, qrels, fragments both the SQL message and evaluate's hold)
TypeCase = tuple[pl.DataFrame, pl.DataFrame, list[str]]
BAD: dict[str, Callable[[], TypeCase]] = {
    "int_query_vs_text": lambda: (_with(SCORED, "query", [1, 1, 1, 2, 2]), QRELS,
                                  ["run column 'query' is", ID_KINDS, "example run row",
                                   "example qrels row"]),
    "text_query_vs_int": lambda: (SCORED, _with(QRELS, "query", [1, 1, 2, 2]),
                                  ["run column 'query' is", ID_KINDS, "example qrels row"]),
    "int_item_vs_text": lambda: (SCORED, _with(QRELS, "item", [2, 3, 5, 6]),
                                 ["run column 'item' is", ID_KINDS, "example run row"]),
    "float_query_run": lambda: (SCORED.with_columns(query=pl.lit(1.5)), QRELS,
                                ["run column 'query'", "string or integer ids", ROW, "1.5"]),
    "float_query_qrels": lambda: (SCORED, QRELS.with_columns(query=pl.lit(1.5)),
                                  ["qrels column 'query'", "string or integer ids", ROW]),
    "list_item": lambda: (SCORED.with_columns(item=pl.concat_list("item")), QRELS,
                          ["run column 'item'", "string or integer ids", ROW]),
    "bool_item": lambda: (_with(SCORED, "item", [True, False, True, False, True]), QRELS,
                          ["run column 'item'", "string or integer ids", ROW]),
    "date_score": lambda: (_with(SCORED, "score", [dt.date(2020, 1, d) for d in range(1, 6)]),
                           QRELS, ["run column 'score'", "must be numeric", ROW]),
    "date_relevance": lambda: (SCORED, _with(QRELS, "relevance", [dt.date(2020, 1, 1)] * 4),
                               ["qrels column 'relevance'", "must be numeric", ROW]),
    "list_relevance": lambda: (SCORED, _with(QRELS, "relevance", [[1], [2], [1], [1]]),
                               ["qrels column 'relevance'", "must be numeric", ROW]),
    "text_relevance": lambda: (SCORED, _with(QRELS, "relevance", ["yes"] * 4),
                               ["qrels column 'relevance'", "must be numeric", ROW]),
    "text_score": lambda: (_with(SCORED, "score", ["high"] * 5), QRELS,
                           ["run column 'score'", "must be numeric", ROW]),
}  # fmt: skip


def _sql_call(run: pl.DataFrame, qrels: pl.DataFrame, macro: str = "rankeval_summary") -> Any:
    con = entry_point_connection()
    con.register("hostile_run", run.to_arrow())
    con.register("hostile_qrels", qrels.to_arrow())
    return con.execute(
        f"SELECT * FROM {macro}('hostile_run', 'hostile_qrels', ['AP', 'P@2', 'RR', 'nDCG@3',"
        " 'R@2', 'NumRet'])"
    ).fetchall()


@pytest.mark.parametrize("macro", ["rankeval_summary", "rankeval_per_query"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_sql_entry_names_the_column_the_problem_and_a_row(case: str, macro: str) -> None:
    run, qrels, fragments = BAD[case]()
    with pytest.raises(duckdb.InvalidInputException) as raised:
        _sql_call(run, qrels, macro)
    message = str(raised.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    for internal in ("_q ", "_item", "__rk_", "source column"):
        assert internal not in message, (internal, message)


@pytest.mark.parametrize("case", sorted(BAD))
def test_engine_duckdb_reports_the_same_problem(case: str) -> None:
    """Through evaluate(engine="duckdb") the frames are refused before any SQL runs, with
    the same column, problem and example row (the type names are polars' there)."""
    run, qrels, fragments = BAD[case]()
    with pytest.raises(rk.InputError) as raised:
        evaluate_at("duckdb", run, qrels, list(HAND))
    message = str(raised.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


# types the checks must not refuse: the hand values come out
GOOD: dict[str, Callable[[], tuple[pl.DataFrame, pl.DataFrame]]] = {
    "categorical_query_vs_text": lambda: (
        SCORED.with_columns(pl.col("query").cast(pl.Categorical)), QRELS),
    "enum_item_vs_text": lambda: (
        SCORED.with_columns(pl.col("item").cast(pl.Enum(list("abcdef")))), QRELS),
    "uint8_vs_int64_query": lambda: (
        SCORED.with_columns(query=pl.Series([1, 1, 1, 2, 2], dtype=pl.UInt8)),
        QRELS.with_columns(query=pl.Series([1, 1, 2, 2], dtype=pl.Int64))),
    "int_items_both": lambda: (
        SCORED.with_columns(item=pl.Series([1, 2, 3, 4, 5], dtype=pl.Int32)),
        QRELS.with_columns(item=pl.Series([2, 3, 5, 6], dtype=pl.UInt64))),
    "float32_score": lambda: (SCORED.with_columns(pl.col("score").cast(pl.Float32)), QRELS),
    "decimal_score": lambda: (SCORED.with_columns(pl.col("score").cast(pl.Decimal(10, 2))), QRELS),
    "int_score": lambda: (SCORED.with_columns(pl.col("score").cast(pl.Int16)), QRELS),
    "uint8_relevance": lambda: (SCORED, QRELS.with_columns(pl.col("relevance").cast(pl.UInt8))),
    "float_relevance": lambda: (SCORED, QRELS.with_columns(pl.col("relevance").cast(pl.Float64))),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(GOOD))
def test_usable_types_give_the_hand_values(case: str) -> None:
    run, qrels = GOOD[case]()
    got = dict(_sql_call(run, qrels))
    assert got == pytest.approx(HAND, rel=1e-12)
