"""Bad input gives a project error naming the column, the problem and an example row."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import polars_rankeval as rk

RUN = pl.DataFrame(
    {"query": ["q1", "q1", "q1", "q2", "q2"], "item": ["a", "b", "c", "a", "d"],
     "score": [3.0, 2.0, 1.0, 2.0, 1.0]}
)
QRELS = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["b", "c", "d"], "relevance": [1, 2, 1]})


def set_at_item(frame: pl.DataFrame, item: str, column: str, value, dtype=None) -> pl.DataFrame:
    new = pl.when(pl.col("item") == item).then(pl.lit(value, dtype)).otherwise(pl.col(column))
    return frame.with_columns(new.alias(column))


CASES = {
    "missing item column": (RUN.drop("item"), QRELS, {}, ["'item'", "item="]),
    "missing qrels column": (RUN, QRELS.rename({"relevance": "rel"}), {}, ["'relevance'"]),
    "no score nor rank": (RUN.drop("score"), QRELS, {}, ["score", "rank"]),
    "null query": (set_at_item(RUN, "c", "query", None, pl.String), QRELS, {},
                   ["'query'", "null", "'item': 'c'"]),
    "null item": (RUN.with_columns(pl.col("item").replace("c", None)), QRELS, {},
                  ["'item'", "null", "'score': 1.0"]),
    "duplicate rows": (pl.concat([RUN, RUN.head(1)]), QRELS, {},
                       ["duplicate", "'item': 'a'", "duplicates='first'"]),
    "NaN score": (set_at_item(RUN, "c", "score", float("nan")), QRELS, {}, ["'score'", "NaN"]),
    "inf score": (set_at_item(RUN, "c", "score", float("inf")), QRELS, {}, ["'score'", "inf"]),
    "null score": (set_at_item(RUN, "c", "score", None, pl.Float64), QRELS, {}, ["'score'"]),
    "string score": (RUN.with_columns(pl.col("score").cast(pl.String)), QRELS, {},
                     ["'score'", "numeric"]),
    "zero rank": (RUN.drop("score").with_columns(rank=pl.Series([0, 1, 2, 1, 2])), QRELS, {},
                  ["'rank'", "positive integer", "'rank': 0"]),
    "negative rank": (RUN.drop("score").with_columns(rank=pl.Series([-1, 1, 2, 1, 2])), QRELS,
                      {}, ["'rank'", "positive integer"]),
    "fractional rank": (RUN.drop("score").with_columns(rank=pl.Series([1.5, 1, 2, 1, 2])),
                        QRELS, {}, ["'rank'", "'rank': 1.5"]),
    "string relevance": (RUN, QRELS.with_columns(pl.col("relevance").cast(pl.String)), {},
                         ["'relevance'", "numeric", "'relevance': '1'"]),
    "null relevance": (RUN, set_at_item(QRELS, "d", "relevance", None, pl.Int64), {},
                       ["'relevance'", "null", "'item': 'd'"]),
    "NaN run label": (RUN.with_columns(relevant=pl.Series([1.0, float("nan"), 0, 0, 1])), None,
                      {}, ["'relevant'", "NaN"]),
    "string run label": (RUN.with_columns(relevant=pl.lit("yes")), None, {}, ["'relevant'"]),
    "no run label without qrels": (RUN, None, {}, ["'relevant'", "no qrels"]),
    "duplicate judgments": (RUN, pl.concat([QRELS, QRELS.head(1)]), {},
                            ["qrels", "duplicate", "'item': 'b'"]),
    "int vs str query ids": (RUN.with_columns(pl.col("query").str.slice(1).cast(pl.Int64)),
                             QRELS, {}, ["Int64", "String", "cast"]),
    "no common query": (RUN.with_columns((pl.lit("x") + pl.col("query")).alias("query")), QRELS, {},
                        ["share no query", "xq1"]),
    "empty run": (RUN.head(0), QRELS, {}, ["no rows"]),
    "float query ids": (RUN.with_columns(pl.col("query").str.slice(1).cast(pl.Float64)), QRELS,
                        {}, ["'query'", "Float64"]),
    "bad duplicates policy": (RUN, QRELS, {"duplicates": "last"}, ["duplicates='last'"]),
    "complete without qrels": (RUN.with_columns(relevant=pl.lit(1)), None, {"complete": True},
                               ["complete=True needs qrels"]),
    "by column missing": (RUN, QRELS, {"by": "arm"}, ["'arm'"]),
    "unknown engine": (RUN, QRELS, {"engine": "spark"}, ["engine='spark'"]),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("lazy", [False, True])
def test_bad_input_is_a_clear_project_error(case, lazy):
    run, qrels, options, fragments = CASES[case]
    if lazy:
        run, qrels = run.lazy(), (None if qrels is None else qrels.lazy())
    with pytest.raises(rk.InputError) as raised:
        result = rk.evaluate(run, qrels, ["AP"], **options)
        if isinstance(result, pl.LazyFrame):
            result.collect()
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("P@0", "positive integer"),
        ("P@-1", "positive integer"),
        ("P@2.5", "positive integer"),
        ("AP(norm=foo)", "choose one of R, min, hits"),
        ("nDCG(gain=)", "cannot parse"),
        ("nDCG(gain=cubic)", "linear, exp"),
        ("Foo@10", "known measures: AP"),
        ("Rprec@10", "takes no @k"),
        ("AP(nrom=min)", "no parameter 'nrom'"),
        ("P(rel=inf)", "finite number"),
        ("P@99999999999", "at most"),
        ("P(2)", "must be named"),
        ("__import__('os')", "must be named"),  # parsed, never evaluated
        ("os.system", "cannot parse"),
    ],
)
def test_bad_measure_names_list_what_is_known(name, fragment):
    with pytest.raises(rk.MeasureError) as raised:
        rk.evaluate(RUN, QRELS, [name])
    assert fragment in str(raised.value)


def test_unknown_conventions_preset():
    with pytest.raises(rk.MeasureError, match="trec_eval, kaggle, spark, torchmetrics"):
        rk.evaluate(RUN, QRELS, ["AP"], conventions="sklearn")


def test_run_only_queries_are_ignored_with_a_counted_warning():
    extra = pl.DataFrame({"query": ["zz", "zz", "yy"], "item": ["a", "b", "a"],
                          "score": [1.0, 0.5, 1.0]})
    with pytest.warns(rk.RankevalWarning, match="2 run queries are not in the qrels"):
        with_extra = rk.evaluate(pl.concat([RUN, extra]), QRELS, ["AP"])
    assert with_extra.equals(rk.evaluate(RUN, QRELS, ["AP"]))


def test_duplicates_first_keeps_the_best_ranked_and_counts_the_rest():
    worse_copy = RUN.filter(pl.col("item") == "b").with_columns(score=pl.lit(0.1))
    with pytest.warns(rk.RankevalWarning, match="dropped 1 duplicate"):
        got = rk.evaluate(pl.concat([RUN, worse_copy]), QRELS, ["AP", "NumRet"],
                          duplicates="first")
    assert got.equals(rk.evaluate(RUN, QRELS, ["AP", "NumRet"]))


def test_errors_are_value_errors_and_rankeval_errors():
    assert issubclass(rk.InputError, rk.RankevalError)
    assert issubclass(rk.MeasureError, ValueError)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rk.evaluate(RUN, QRELS, ["AP"])  # clean input: no warning at all
