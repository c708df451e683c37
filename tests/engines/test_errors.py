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
    # engine="duckdb" counts the run's repeats itself only when the macro reports them,
    # another check fails (the polars engine's order) or nothing is evaluable
    "duplicate rows, no shared query": (pl.concat([RUN, RUN.head(1)]),
                                        QRELS.with_columns(query=pl.lit("zz")), {},
                                        ["duplicate", "'item': 'a'"]),
    "duplicate rows in a group": (pl.concat([RUN, RUN.head(1)]).with_columns(arm=pl.lit("x")),
                                  QRELS, {"by": "arm"}, ["duplicate", "'item': 'a'"]),
    "duplicate rows without qrels": (
        pl.concat([RUN, RUN.head(1)]).with_columns(relevant=pl.lit(1)), None, {},
        ["duplicate", "'item': 'a'"]),
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
    "null qrels query": (RUN, set_at_item(QRELS, "c", "query", None, pl.String), {},
                         ["qrels column 'query'", "null", "'item': 'c'"]),
    "null qrels item": (RUN, QRELS.with_columns(pl.col("item").replace("c", None)), {},
                        ["qrels column 'item'", "null"]),
    "empty qrels": (RUN, QRELS.head(0), {}, ["share no query"]),
    "NaN relevance": (RUN, QRELS.with_columns(pl.Series("relevance", [1.0, float("nan"), 1.0])),
                      {}, ["'relevance'", "NaN", "'item': 'c'"]),
    "list scores": (RUN.with_columns(score=pl.concat_list("score", "score")), QRELS, {},
                    ["'score'", "numeric"]),
    "struct item ids": (RUN.with_columns(item=pl.struct("item")), QRELS, {},
                        ["'item'", "string or integer"]),
    "hostile column name": (RUN.rename({"query": 'q"; DROP TABLE run; --'}), QRELS, {},
                            ["no column 'query'"]),
    "rank column with nulls": (RUN.drop("score").with_columns(rank=pl.Series([1, None, 2, 1, 2])),
                               QRELS, {}, ["'rank'", "'rank': None"]),
    "int vs str item ids": (RUN.with_columns(pl.Series("item", [1, 2, 3, 1, 4])), QRELS, {},
                            ["run column 'item' is Int64", "qrels column 'item' is String"]),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_bad_input_is_a_clear_project_error(case, lazy, engine):
    run, qrels, options, fragments = CASES[case]
    options = {"engine": engine, **options}
    if lazy:
        run, qrels = run.lazy(), (None if qrels is None else qrels.lazy())
    with pytest.raises(rk.InputError) as raised:
        result = rk.evaluate(run, qrels, ["AP"], **options)
        if isinstance(result, pl.LazyFrame):
            result.collect()
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


# two faults at once, one in the run and one in the qrels: every engine names the qrels'
# (prepare.checks.FRAME_ORDER); engine="duckdb" named the run's before
TWO_FAULTS = {
    "null score + duplicate judgment": (
        set_at_item(RUN, "c", "score", None), pl.concat([QRELS, QRELS.head(1)]),
        r"qrels column 'item': duplicate \(query, item\) judgments: 1 row\(s\); example row: \{'query': 'q1', 'item': 'b'"),
    "NaN score + null relevance": (
        set_at_item(RUN, "a", "score", float("nan")), set_at_item(QRELS, "d", "relevance", None, pl.Int64),
        r"qrels column 'relevance': relevance is null: 1 row\(s\); example row: \{'query': 'q2', 'item': 'd'"),
    "repeated run row + null judged item": (
        pl.concat([RUN, RUN.head(1)]), QRELS.with_columns(pl.col("item").replace("c", None)),
        r"qrels column 'item': item id is null: 1 row\(s\); example row: \{'query': 'q1', 'item': None"),
    "null run query + null judged query": (
        set_at_item(RUN, "a", "query", None, pl.String), set_at_item(QRELS, "b", "query", None, pl.String),
        r"qrels column 'query': query id is null: 1 row\(s\); example row: \{'query': None, 'item': 'b'"),
    # the repeated judgment is left to the DuckDB macro, the NaN rank is not: counted anyway
    "NaN float rank + duplicate judgment": (
        RUN.drop("score").with_columns(rank=pl.Series([1.0, float("nan"), 3.0, 1.0, 2.0])),
        pl.concat([QRELS, QRELS.tail(1)]),
        r"qrels column 'item': duplicate \(query, item\) judgments: 1 row\(s\); example row: \{'query': 'q2', 'item': 'd'"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(TWO_FAULTS))
@pytest.mark.parametrize("lazy", [False, True])
def test_engines_report_the_qrels_fault_before_the_runs(case, lazy):
    """A run fault and a qrels fault at once: every engine raises the same error, the
    qrels' (the documented order, prepare.checks.FRAME_ORDER), also where engine="duckdb"
    leaves a check to its macro and counts it only when another fails."""
    run, qrels, message = TWO_FAULTS[case]
    if lazy:
        run, qrels = run.lazy(), qrels.lazy()
    errors = []
    for engine in ("polars", "duckdb"):
        with pytest.raises(rk.InputError, match=message) as raised:
            result = rk.evaluate(run, qrels, ["AP"], engine=engine)
            if lazy:
                result.collect()
        errors.append(str(raised.value))
    assert errors[0] == errors[1]


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


def test_a_trec_file_with_a_short_line_names_the_file_line_and_text(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2\nq1 Q0 d3 3 1.0 tag\n")
    with pytest.raises(rk.InputError, match=r"run.txt, line 2: cannot parse 'q1 Q0 d2 2'"):
        rk.read_trec_run(path).collect()
    bad_score = tmp_path / "run2.txt"
    bad_score.write_text("q1 Q0 d1 1 high tag\n")
    with pytest.raises(rk.InputError, match="line 1"):
        rk.evaluate(rk.read_trec_run(bad_score), QRELS.lazy(), ["AP"]).collect()


def test_qrels_query_without_a_relevant_item_scores_zero_by_policy():
    # documented: a query whose qrels hold no relevant item scores 0 where a measure
    # divides by R (trec_eval); validate() reports such queries
    qrels = QRELS.with_columns(
        pl.when(pl.col("query") == "q2").then(0).otherwise(pl.col("relevance")).alias("relevance")
    )
    got = rk.evaluate(RUN, qrels, ["AP", "R@2", "nDCG", "Rprec"], per_query=True)
    assert got.filter(pl.col("query") == "q2")["value"].to_list() == [0.0, 0.0, 0.0, 0.0]
    report = rk.validate(RUN, qrels)
    row = report.filter(pl.col("check") == "qrels queries without a relevant item")
    assert row["status"].item() == "warning" and row["count"].item() == 1


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_huge_cutoff_is_fine_up_to_the_documented_limit(engine):
    # P@k divides by k even when fewer were retrieved (trec_eval): 3 hits / 10^9
    got = rk.evaluate(RUN, QRELS, ["P@1000000000", "NumRet@1000000000"], engine=engine)
    assert got["value"].to_list() == pytest.approx([1.5e-9, 5.0])
