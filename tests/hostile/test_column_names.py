"""Whatever the user's columns are called (every internal name included), evaluate gives
the same numbers as with the default names; a key column named like an output column
(measure, value) is the documented InputError."""

from __future__ import annotations

import functools
import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from tests.helpers import examples
from tests.hostile._places import QRELS, RUN

INTERNAL = ["_pos", "_rel", "_num_ret", "_in_run", "_in_qrels", "_dropped", "_q", "_m0", "_b0",
            "_stat_x", "_check_x", "_tie_x", "measure", "value", "query", "item", "score",
            "rank", "relevance", "relevant", "_rank", "_rk_run", "user_0", "system",
            "*", "^a$", "^.*$"]  # pl.col reads these as patterns: aliased like internal names
NAMES = st.one_of(st.sampled_from(INTERNAL), st.text(min_size=1, max_size=8))
ROLES = ("query", "item", "score", "relevance", "by")
MEASURES = ["AP", "nDCG@3", "P@2", "RR", "NumRet"]
BASE_RUN = RUN.drop("rank").with_columns(sys=pl.Series(["A", "A", "A", "B", "B"]))


def _evaluate(run, qrels, engine, **names):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        return rk.evaluate(run, qrels, MEASURES, per_query=True, engine=engine, **names)


@functools.cache
def _expected(engine: str) -> pl.DataFrame:
    """The default names' result, once per engine (in the test, not at collection: every
    pytest-xdist worker collects this module, one runs it)."""
    return _evaluate(BASE_RUN, QRELS, engine, by="sys")


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(NAMES, min_size=5, max_size=5, unique=True),
       engine=st.sampled_from(["polars", "duckdb"]))  # fmt: skip
@example(names=["_pos", "0", "1", "*", "00"], engine="polars")  # CI found it: '*' was pl.all()
@example(names=["^q$", "^.*$", "score", "*", "sys"], engine="duckdb")
def test_numbers_do_not_depend_on_column_names(names: list[str], engine: str) -> None:
    new = dict(zip(ROLES, names, strict=True))
    run = BASE_RUN.rename({"query": new["query"], "item": new["item"], "score": new["score"],
                           "sys": new["by"]})  # fmt: skip
    qrels = QRELS.rename({"query": new["query"], "item": new["item"],
                          "relevance": new["relevance"]})  # fmt: skip
    kwargs = {"query": new["query"], "item": new["item"], "score": new["score"],
              "relevance": new["relevance"], "by": new["by"], "rank": None}
    if {new["query"], new["by"]} & {"measure", "value"}:
        with pytest.raises(rk.InputError, match="output column"):
            _evaluate(run, qrels, engine, **kwargs)
        return
    out = _evaluate(run, qrels, engine, **kwargs)
    expected = _expected(engine)
    assert out.columns == [new["by"], new["query"], "measure", "value"]
    assert out[new["query"]].to_list() == expected["query"].to_list()
    assert out[new["by"]].to_list() == expected["sys"].to_list()
    assert out["measure"].to_list() == expected["measure"].to_list()
    assert out["value"].to_list() == expected["value"].to_list()


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("lazy", [False, True])
def test_errors_name_the_users_columns_not_their_aliases(engine: str, lazy: bool) -> None:
    run = BASE_RUN.rename({"query": "_pos"})
    qrels = QRELS.with_columns(
        pl.when(pl.col("item") == "b").then(None).otherwise(pl.col("relevance")).alias("relevance")
    ).rename({"query": "_pos", "relevance": "*"})
    if lazy:
        run, qrels = run.lazy(), qrels.lazy()
    with pytest.raises(rk.InputError) as raised:
        result = rk.evaluate(run, qrels, MEASURES, query="_pos", relevance="*", rank=None,
                             engine=engine)  # fmt: skip
        if lazy:
            result.collect()
    message = str(raised.value)
    assert "qrels column '*': relevance is null" in message, message
    assert "'_pos': 'q1', 'item': 'b', '*': None" in message, message
    assert "user_" not in message, message


def test_validate_reports_under_the_users_column_names() -> None:
    run = BASE_RUN.rename({"query": "_pos"})
    qrels = QRELS.with_columns(
        pl.when(pl.col("item") == "b").then(None).otherwise(pl.col("relevance")).alias("relevance")
    ).rename({"query": "_pos", "relevance": "^a$"})
    report = rk.validate(run, qrels, query="_pos", relevance="^a$", rank=None)
    bad = report.filter(pl.col("status") == "error")
    assert bad["check"].to_list() == ["qrels ^a$: null/NaN"]
    assert bad["example"].to_list() == ["{'_pos': 'q1', 'item': 'b', '^a$': None}"]
    assert not report.select(pl.concat_str(pl.all().cast(pl.String)).str.contains("user_").any()).item()


DIVERSITY_QRELS = pl.LazyFrame({"query": ["q1"], "subtopic": [1], "item": ["a"], "relevance": [1]})


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(("side", "measure"), [("run", "AP"), ("qrels", "AP"),
                                               ("run", "alpha_nDCG@10"), ("qrels", "alpha_nDCG@10")])  # fmt: skip
def test_a_lazy_plan_naming_a_missing_column_is_an_input_error(engine: str, side: str, measure: str) -> None:
    """The user's own LazyFrame that cannot resolve (a column it reads is not there) is
    reported as the project's error naming the side, not polars' raw plan error."""
    run = BASE_RUN.drop("sys").lazy()
    qrels = DIVERSITY_QRELS if measure.startswith("alpha") else QRELS.lazy()
    broken = {"run": run, "qrels": qrels}[side].with_columns(pl.col("nope") + 1)
    run, qrels = (broken, qrels) if side == "run" else (run, broken)
    with pytest.raises(rk.InputError, match=f'cannot read the {side}: unable to find column "nope"'):
        rk.evaluate(run, qrels, [measure], engine=engine)
