"""Bad data through every place (polars eager/lazy/streaming, DuckDB eager/lazy): the
exact error type, a message naming the column (or measure) and an example row."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import polars as pl
import pytest

import polars_rankeval as rk
from tests.hostile._places import MEASURES, PLACES, QRELS, RUN, evaluate_at

SCORED = RUN.drop("rank")
RANKED = RUN.drop("score")
LABELLED = SCORED.with_columns(relevant=pl.Series([0, 1, 1, 0, 1]))


def _set(frame: pl.DataFrame, column: str, values: list[Any], dtype: Any = None) -> pl.DataFrame:
    return frame.with_columns(pl.Series(column, values, dtype=dtype))


# id -> (run, qrels, options, measures, fragments the message must hold)
Case = tuple[pl.DataFrame, pl.DataFrame | None, dict[str, Any], list[str], list[str]]
ROW = "example row"
CASES: dict[str, Callable[[], Case]] = {
    "run_null_query": lambda: (_set(SCORED, "query", [None, "q1", "q1", "q2", "q2"]), QRELS, {},
                               MEASURES, ["'query'", "null", ROW]),
    "run_null_item": lambda: (_set(SCORED, "item", ["a", None, "c", "d", "e"]), QRELS, {},
                              MEASURES, ["'item'", "null", ROW]),
    "null_score": lambda: (_set(SCORED, "score", [3.0, None, 1.0, 2.0, 1.0]), QRELS, {},
                           MEASURES, ["'score'", ROW, "'score': None"]),
    "nan_score": lambda: (_set(SCORED, "score", [3.0, float("nan"), 1.0, 2.0, 1.0]), QRELS,
                          {}, MEASURES, ["'score'", "NaN", ROW]),
    "inf_score": lambda: (_set(SCORED, "score", [3.0, float("inf"), 1.0, 2.0, 1.0]), QRELS,
                          {}, MEASURES, ["'score'", "infinite", ROW]),
    "rank_zero": lambda: (_set(RANKED, "rank", [0, 2, 3, 1, 2]), QRELS, {}, MEASURES,
                          ["'rank'", "positive integer", ROW]),
    "rank_negative": lambda: (_set(RANKED, "rank", [-1, 2, 3, 1, 2]), QRELS, {}, MEASURES,
                              ["'rank'", "positive integer", ROW]),
    "rank_fraction": lambda: (_set(RANKED, "rank", [1.5, 2.0, 3.0, 1.0, 2.0]), QRELS, {},
                              MEASURES, ["'rank'", "positive integer", "1.5"]),
    "rank_null": lambda: (_set(RANKED, "rank", [1, None, 3, 1, 2]), QRELS, {}, MEASURES,
                          ["'rank'", "positive integer", ROW]),
    "rank_nan": lambda: (_set(RANKED, "rank", [1.0, float("nan"), 3.0, 1.0, 2.0]), QRELS, {},
                         MEASURES, ["'rank'", "positive integer", ROW]),
    "rank_decimal_fraction": lambda: (
        _set(RANKED, "rank", [Decimal(x) for x in ("1.5", "2", "3", "1", "2")], pl.Decimal(5, 1)),
        QRELS, {},
        MEASURES, ["'rank'", "positive integer", "1.5"]),
    "duplicate_run_rows": lambda: (pl.concat([SCORED, SCORED.head(1)]), QRELS, {}, MEASURES,
                                   ["'item'", "duplicate", ROW]),
    "duplicate_judgments": lambda: (SCORED, pl.concat([QRELS, QRELS.head(1)]), {}, MEASURES,
                                    ["qrels", "duplicate", ROW]),
    "null_relevance": lambda: (SCORED, _set(QRELS, "relevance", [1, None, 1, 1]), {}, MEASURES,
                               ["'relevance'", "null", ROW]),
    "nan_relevance": lambda: (SCORED, _set(QRELS, "relevance", [1.0, float("nan"), 1.0, 1.0]),
                              {}, MEASURES, ["'relevance'", "NaN", ROW]),
    "inf_relevance": lambda: (SCORED, _set(QRELS, "relevance", [1.0, float("inf"), 1.0, 1.0]),
                              {}, MEASURES, ["'relevance'", "infinite", ROW]),
    "null_label_no_qrels": lambda: (_set(LABELLED, "relevant", [0, None, 1, 0, 1]), None, {},
                                    MEASURES, ["'relevant'", "null", ROW]),
    "nan_label_no_qrels": lambda: (_set(LABELLED, "relevant", [0.0, float("nan"), 1, 0, 1]),
                                   None, {}, MEASURES, ["'relevant'", "NaN", ROW]),
    "string_score": lambda: (SCORED.with_columns(pl.col("score").cast(pl.String)), QRELS, {},
                             MEASURES, ["'score'", "numeric", ROW]),
    "date_score": lambda: (_set(SCORED, "score", [dt.date(2020, 1, d) for d in range(1, 6)]),
                           QRELS, {}, MEASURES, ["'score'", "numeric", ROW]),
    "bool_rank": lambda: (_set(RANKED, "rank", [True] * 5), QRELS, {}, MEASURES,
                          ["'rank'", "numeric", ROW]),
    "string_relevance": lambda: (SCORED, QRELS.with_columns(pl.col("relevance").cast(pl.String)),
                                 {}, MEASURES, ["'relevance'", "numeric", ROW]),
    "list_relevance": lambda: (SCORED, _set(QRELS, "relevance", [[1], [2], [1], [1]]), {},
                               MEASURES, ["'relevance'", "numeric", ROW]),
    "float_query_ids": lambda: (SCORED.with_columns(query=pl.lit(1.5)),
                                QRELS.with_columns(query=pl.lit(1.5)), {}, MEASURES,
                                ["'query'", "string or integer ids", ROW]),
    "missing_item_column": lambda: (SCORED.drop("item"), QRELS, {}, MEASURES,
                                    ["'item'", "item=", ROW]),
    "missing_query_column": lambda: (SCORED.rename({"query": "qid"}), QRELS, {}, MEASURES,
                                     ["'query'", "query=", ROW]),
    "no_score_no_rank": lambda: (SCORED.drop("score"), QRELS, {}, MEASURES,
                                 ["score", "rank", ROW]),
    "missing_relevance_column": lambda: (SCORED, QRELS.rename({"relevance": "grade"}), {},
                                         MEASURES, ["'relevance'", ROW]),
    "missing_label_no_qrels": lambda: (SCORED, None, {}, MEASURES, ["'relevant'", ROW]),
    "int_vs_string_ids": lambda: (SCORED.with_columns(query=pl.Series([1, 1, 1, 2, 2])), QRELS,
                                  {}, MEASURES, ["'query'", "example run row"]),
    "empty_run": lambda: (SCORED.clear(), QRELS, {}, MEASURES, ["run has no rows"]),
    "empty_qrels": lambda: (SCORED, QRELS.clear(), {}, MEASURES, ["qrels have no rows"]),
    "empty_qrels_complete": lambda: (SCORED, QRELS.clear(), {"complete": True}, MEASURES,
                                     ["complete=True", "qrels have no rows"]),
    "no_shared_query": lambda: (SCORED, QRELS.with_columns(query=pl.lit("q9")), {}, MEASURES,
                                ["share no query", "q1"]),
    "exp_gain_above_1023": lambda: (SCORED, _set(QRELS, "relevance", [1, 2000, 1, 1]), {},
                                    ["nDCG(gain=exp)@3"], ["'relevance'", "1023", "gain=exp",
                                                           "'item': 'c'"]),
    "exp_gain_above_1023_no_qrels": lambda: (_set(LABELLED, "relevant", [0, 1, 1500, 0, 1]),
                                             None, {}, ["nDCG(gain=exp)"],
                                             ["'relevant'", "1023", "'item': 'c'"]),
    # three gains of 2^1023 - 1 add up to more than the largest double (~1.8e308)
    "exp_gain_sum_overflows": lambda: (SCORED, pl.concat([
        _set(QRELS, "relevance", [1023, 1023, 1, 1]),
        pl.DataFrame({"query": ["q1"], "item": ["a"], "relevance": [1023]})]),
                                       {}, ["nDCG(gain=exp)"],
                                       ["nDCG(gain=exp)", "'q1'", "finite", "example run row"]),
    # 1e308 (1 + 1/log2(3) + 1/2) is above the largest double: the DCG is infinite
    "linear_gain_overflows": lambda: (SCORED, pl.concat([
        _set(QRELS, "relevance", [1e308, 1e308, 1.0, 1.0]),
        pl.DataFrame({"query": ["q1"], "item": ["a"], "relevance": [1e308]})]),
                                      {}, ["nDCG"], ["nDCG", "'q1'", "finite"]),
    "exp_gain_ties_average": lambda: (SCORED, _set(QRELS, "relevance", [1, 2000, 1, 1]),
                                      {"ties": "average"}, ["nDCG(gain=exp)"],
                                      ["'relevance'", "1023"]),
}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_data_is_a_project_error_naming_column_and_row(case: str, place: str) -> None:
    run, qrels, options, measures, fragments = CASES[case]()
    with pytest.raises(rk.InputError) as raised:
        evaluate_at(place, run, qrels, measures, **options)
    message = str(raised.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    if ROW in fragments:  # the example is the bad row itself, not a placeholder
        assert "example row: (" not in message, message
