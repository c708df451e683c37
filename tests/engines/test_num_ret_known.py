"""The polars engine tells ``select_evaluated`` whether its per-query plan has
``_num_ret`` (judged-only rows: the run's queries carry it) instead of resolving the
wide plan's schema (~0.8 ms a plan); the flag must be the schema's answer in every
evaluation path."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval.engines import finish
from polars_rankeval.engines import polars as polars_engine
from polars_rankeval.prepare.judge import NUM_RET

RUN = pl.DataFrame(
    {"query": ["q1", "q1", "q1", "q2", "q2", "q3"], "item": ["a", "b", "c", "a", "c", "a"],
     "score": [3.0, 2.0, 2.0, 2.0, 1.0, 1.0], "rank": [1, 2, 3, 1, 2, 1],
     "day": ["x", "x", "x", "y", "y", "y"]}
)  # fmt: skip
QRELS = pl.DataFrame({"query": ["q1", "q2", "q4"], "item": ["b", "c", "a"], "relevance": [1, 2, 1]})

CASES = {
    "default": (RUN.drop("rank"), QRELS, {}),
    "several measures": (RUN.drop("rank"), QRELS, {"measures": ["AP", "NumRet", "P@2", "Rprec"]}),
    "given ranks": (RUN.drop("score"), QRELS, {}),
    "duplicates first": (pl.concat([RUN, RUN.head(1)]).drop("rank"), QRELS, {"duplicates": "first"}),
    "top": (RUN.drop("rank"), QRELS, {"top": 1}),
    "ties average": (RUN.drop("rank"), QRELS, {"ties": "average"}),
    "complete": (RUN.drop("rank"), QRELS, {"complete": True}),
    "complete by": (RUN.drop("rank"), QRELS, {"complete": True, "by": "day"}),
    "by": (RUN.drop("rank"), QRELS, {"by": "day"}),
    "partitions": (RUN.drop("rank"), QRELS, {"partitions": 2}),
    "no qrels": (RUN.drop("rank").with_columns(relevant=pl.lit(1)), None, {"measures": ["P@2"]}),
}


@pytest.mark.parametrize("case", CASES)
def test_num_ret_flag_is_the_schema_answer(monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    run, qrels, options = CASES[case]
    flags: list[tuple[bool | None, bool]] = []
    real = finish.select_evaluated

    def check(checked: pl.LazyFrame, **kwargs: object) -> pl.LazyFrame:
        flags.append((kwargs.get("num_ret"), NUM_RET in checked.collect_schema()))  # type: ignore[arg-type]
        return real(checked, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(polars_engine, "select_evaluated", check)
    with warnings.catch_warnings():  # the cases' own warnings (skipped queries...)
        warnings.simplefilter("ignore")
        rk.evaluate(run, qrels, **{"measures": ["AP", "P@2"], **options})  # type: ignore[arg-type]
    assert flags, "the polars engine's select_evaluated was not reached"
    assert all(given == found for given, found in flags), flags

