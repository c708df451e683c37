"""API arguments of the wrong type or value: a project error naming the argument."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_rankeval as rk
from tests.hostile._places import QRELS, RUN

SCORED = RUN.drop("rank")
RUNS = pl.concat([SCORED.with_columns(system=pl.lit(s)) for s in "AB"])

# id -> (call, error type, fragments)
CASES: dict[str, tuple[Any, type[Exception], list[str]]] = {
    "run_none": (lambda: rk.evaluate(None, QRELS), rk.InputError, ["run", "NoneType"]),
    "run_str": (lambda: rk.evaluate("run.txt", QRELS), rk.InputError, ["run", "str"]),
    "run_dict": (lambda: rk.evaluate({"query": [1]}, QRELS), rk.InputError, ["run", "dict"]),
    "qrels_list": (lambda: rk.evaluate(SCORED, [1, 2]), rk.InputError, ["qrels", "list"]),
    # what users often pass instead of a polars frame: the error says how to convert it
    "run_arrow": (lambda: rk.evaluate(SCORED.to_arrow(), QRELS), rk.InputError,
                  ["run", "pyarrow", "pl.from_arrow(table)"]),
    "run_dict_hint": (lambda: rk.evaluate({"query": [1]}, QRELS), rk.InputError,
                      ["got dict", "pl.DataFrame(data)"]),
    "run_path_hint": (lambda: rk.evaluate(Path("run.parquet"), QRELS), rk.InputError,
                      ["pathlib", "pl.scan_parquet(path)"]),
    "validate_qrels_arrow": (lambda: rk.validate(SCORED, QRELS.to_arrow()), rk.InputError,
                             ["qrels", "pl.from_arrow(table)"]),
    "compare_run_dict": (lambda: rk.compare({"A": {"query": [1]}, "B": SCORED}, QRELS),
                         rk.InputError, ["run 'A'", "pl.DataFrame(data)"]),
    "measures_none": (lambda: rk.evaluate(SCORED, QRELS, None), rk.MeasureError, ["measures=None"]),
    "measures_int": (lambda: rk.evaluate(SCORED, QRELS, 5), rk.MeasureError, ["measures=5"]),
    "measures_bytes": (lambda: rk.evaluate(SCORED, QRELS, b"AP"), rk.MeasureError, ["bytes"]),
    "measures_empty": (lambda: rk.evaluate(SCORED, QRELS, []), rk.MeasureError, ["no measure"]),
    "measures_item_none": (lambda: rk.evaluate(SCORED, QRELS, ["AP", None]), rk.MeasureError,
                           ["must be a string", "None"]),
    "measure_unknown": (lambda: rk.evaluate(SCORED, QRELS, "nonsense"), rk.MeasureError,
                        ["'nonsense'"]),
    # run and qrels swapped: the run has the qrels' columns, and no score or rank
    "run_and_qrels_swapped": (lambda: rk.evaluate(QRELS, SCORED), rk.InputError,
                              ["run needs a score column", "run and qrels swapped?"]),
    # the usual slips get the spelling that works
    "measures_comma_string": (lambda: rk.evaluate(SCORED, QRELS, "AP, nDCG@10"), rk.MeasureError,
                              ["pass a list", "['AP', 'nDCG@10']"]),
    "measure_trec_dot": (lambda: rk.evaluate(SCORED, QRELS, "P.10"), rk.MeasureError,
                         ["-m notation", "'P_10'"]),
    "measure_trec_dot_list": (lambda: rk.evaluate(SCORED, QRELS, "ndcg_cut.5,10"),
                              rk.MeasureError, ["['ndcg_cut_5', 'ndcg_cut_10']"]),
    "cutoff_zero": (lambda: rk.evaluate(SCORED, QRELS, "P@0"), rk.MeasureError, ["P@0", "positive"]),
    "cutoff_fraction": (lambda: rk.evaluate(SCORED, QRELS, "P@2.5"), rk.MeasureError, ["P@2.5"]),
    "param_choice": (lambda: rk.evaluate(SCORED, QRELS, "nDCG(gain=bogus)"), rk.MeasureError,
                     ["gain='bogus'", "linear, exp"]),
    "param_range": (lambda: rk.evaluate(SCORED, QRELS, "RBP(p=1)"), rk.MeasureError, ["p must be"]),
    "param_unknown": (lambda: rk.evaluate(SCORED, QRELS, "P(bogus=1)"), rk.MeasureError,
                      ["'bogus'"]),
    "cutoff_on_family_without": (lambda: rk.evaluate(SCORED, QRELS, "Rprec@5"), rk.MeasureError,
                                 ["Rprec"]),
    "by_int": (lambda: rk.evaluate(SCORED, QRELS, by=5), rk.InputError, ["by=5"]),
    "by_list_of_int": (lambda: rk.evaluate(SCORED, QRELS, by=[1]), rk.InputError, ["by=[1]"]),
    "by_query": (lambda: rk.evaluate(SCORED, QRELS, by=["query"]), rk.InputError, ["by="]),
    "by_missing": (lambda: rk.evaluate(SCORED, QRELS, by="arm"), rk.InputError, ["'arm'", "by="]),
    "query_int": (lambda: rk.evaluate(SCORED, QRELS, query=5), rk.InputError, ["query=5"]),
    "item_empty": (lambda: rk.evaluate(SCORED, QRELS, item=""), rk.InputError, ["item=''"]),
    "relevance_none": (lambda: rk.evaluate(SCORED, QRELS, relevance=None), rk.InputError,
                       ["relevance=None"]),
    "score_list": (lambda: rk.evaluate(SCORED, QRELS, score=["s"]), rk.InputError, ["score="]),
    "key_named_measure": (lambda: rk.evaluate(SCORED.rename({"query": "measure"}),
                                              QRELS.rename({"query": "measure"}), query="measure"),
                          rk.InputError, ["'measure'", "rename"]),
    "by_named_value": (lambda: rk.evaluate(SCORED.with_columns(value=pl.lit("A")), QRELS,
                                           by="value"), rk.InputError, ["'value'"]),
    "per_query_str": (lambda: rk.evaluate(SCORED, QRELS, per_query="no"), rk.InputError,
                      ["per_query='no'"]),
    "complete_str": (lambda: rk.evaluate(SCORED, QRELS, complete="yes"), rk.InputError,
                     ["complete='yes'"]),
    "conventions": (lambda: rk.evaluate(SCORED, QRELS, conventions="bogus"), rk.MeasureError,
                    ["'bogus'"]),
    "rel_str": (lambda: rk.evaluate(SCORED, QRELS, rel="1"), rk.MeasureError, ["rel"]),
    "rel_nan": (lambda: rk.evaluate(SCORED, QRELS, rel=math.nan), rk.MeasureError, ["rel"]),
    "top_zero": (lambda: rk.evaluate(SCORED, QRELS, top=0), rk.InputError, ["top=0"]),
    "top_float": (lambda: rk.evaluate(SCORED, QRELS, top=1.5), rk.InputError, ["top=1.5"]),
    # above a 64-bit row count: polars' own conversion error escaped before
    "top_above_int64": (lambda: rk.evaluate(SCORED, QRELS, top=10**30), rk.InputError,
                        ["top=" + str(10**30), "at most"]),
    # one column as both keys: polars' DuplicateError escaped (duckdb: a silently wrong AP)
    "query_is_item": (lambda: rk.evaluate(SCORED, QRELS, query="item"), rk.InputError,
                      ["query='item'", "item='item'", "same column"]),
    "score_is_query": (lambda: rk.evaluate(SCORED, QRELS, score="query"), rk.InputError,
                       ["score='query'", "same column"]),
    "rank_is_query_without_score": (
        lambda: rk.evaluate(RUN.drop("score"), QRELS, score=None, rank="query"), rk.InputError,
        ["rank='query'", "same column"]),
    "render_query_is_item": (lambda: __import__("polars_rankeval.sql").sql.render(
        ["AP"], "duckdb", item="query"), rk.InputError, ["item='query'", "same column"]),
    "ties": (lambda: rk.evaluate(SCORED, QRELS, ties=None), rk.InputError, ["ties=None"]),
    "engine": (lambda: rk.evaluate(SCORED, QRELS, engine="sqlite"), rk.InputError,
               ["engine='sqlite'"]),
    "duplicates": (lambda: rk.evaluate(SCORED, QRELS, duplicates=1), rk.InputError,
                   ["duplicates=1"]),
    "complete_without_qrels": (lambda: rk.evaluate(SCORED.with_columns(relevant=pl.lit(1)), None,
                                                   complete=True), rk.InputError, ["complete=True"]),
    "validate_run_none": (lambda: rk.validate(None, QRELS), rk.InputError, ["run"]),
    "validate_cutoffs_nonpositive": (lambda: rk.validate(SCORED, QRELS, cutoffs=[0, -1]),
                                     rk.InputError, ["cutoffs=", "0"]),
    "validate_cutoffs_str": (lambda: rk.validate(SCORED, QRELS, cutoffs="10"), rk.InputError,
                             ["cutoffs='10'"]),
    "validate_cutoffs_float": (lambda: rk.validate(SCORED, QRELS, cutoffs=[2.5]), rk.InputError,
                               ["2.5"]),
    "compare_runs_none": (lambda: rk.compare(None, QRELS), rk.InputError, ["runs", "NoneType"]),
    "compare_measures_none": (lambda: rk.compare(RUNS, QRELS, None), rk.MeasureError,
                              ["measures=None"]),
    "compare_resamples_huge": (lambda: rk.compare(RUNS, QRELS, ["AP"], test="bootstrap",
                                                  n_resamples=10**9), rk.RankevalError,
                               ["n_resamples"]),
    "compare_alpha": (lambda: rk.compare(RUNS, QRELS, ["AP"], alpha=2), rk.RankevalError,
                      ["alpha"]),
    "read_trec_run_none": (lambda: rk.read_trec_run(None), rk.InputError, ["path", "NoneType"]),
    # a directory was scanned file by file: an error about some line of some file in it
    "read_trec_run_directory": (lambda: rk.read_trec_run(Path(__file__).parent), rk.InputError,
                                ["is a directory"]),
    "read_trec_qrels_directory": (lambda: rk.read_trec_qrels(Path(__file__).parent),
                                  rk.InputError, ["is a directory"]),
    "read_trec_qrels_missing": (lambda: rk.read_trec_qrels("/nonexistent/q.txt"), rk.InputError,
                                ["/nonexistent/q.txt"]),
    "parse_measure_int": (lambda: rk.parse_measure(5), rk.MeasureError, ["string", "5"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_wrong_argument_is_a_project_error_naming_it(case: str) -> None:
    call, error, fragments = CASES[case]
    with pytest.raises(error) as raised:
        result = call()
        if isinstance(result, pl.LazyFrame):
            result.collect()
    assert isinstance(raised.value, rk.RankevalError)
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))
