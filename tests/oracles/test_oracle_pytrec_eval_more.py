"""Oracle test for the trec_eval measures added by issue #5, against pytrec_eval.

Same data as ``test_oracle_pytrec_eval.py`` (its hypothesis strategy, drawn in batches of
cases stacked into one call per engine, ``case_batches``, and pinned cases: ties broken by
item id in byte order, -1 judgments, queries without relevant items, run-only and
qrels-only queries, integer ids), for the measures pytrec_eval (trec_eval
9.x) has beyond the first release: ``num_q``, ``gm_map``, ``Rprec_mult_*``, ``set_F``,
``infAP``, ``iprec_at_recall_*`` and ``11pt_avg`` (with ``rounding=v9``: trec_eval 9.x
turns a recall level x R into a number of relevant items as floor(x R + 0.9); 10.0, our
default, rounds it, and is checked against trec_eval 10.0's own outputs in
``test_trec_eval_conformance.py``).

Each of our names is compared with pytrec_eval's key, per query and for trec_eval's
``all`` line, through both engines.  pytrec_eval's per-query ``gm_map`` is
log(max(AP, 1e-5)) (trec_eval prints nothing per query); ours is AP, so the per-query
check is exp(theirs) = max(ours, 1e-5), and ``all`` is exp(mean(theirs)).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import polars as pl
import pytest
from hypothesis import given

import polars_rankeval as rk
from tests.helpers import pytrec_qrels, pytrec_run
from tests.oracles.pytrec_data import (
    BATCH_SETTINGS,
    SUMMARY_ENGINES,
    Row,
    case_batches,
    frames,
    pinned,
)

pytrec_eval = pytest.importorskip("pytrec_eval")

TOL = 1e-9
MULTS = ("0.20", "0.40", "0.60", "0.80", "1.00", "1.20", "1.40", "1.60", "1.80", "2.00")
LEVELS = ("0.00", "0.10", "0.20", "0.30", "0.40", "0.50", "0.60", "0.70", "0.80", "0.90", "1.00")

# our name -> (pytrec_eval measure request, its key in the output, how `all` aggregates)
ORACLE: dict[str, tuple[str, str, str]] = {
    "num_q": ("num_q", "num_q", "sum"),
    "NumQ": ("num_q", "num_q", "sum"),
    "gm_map": ("gm_map", "gm_map", "gmean"),
    "GMAP": ("gm_map", "gm_map", "gmean"),
    "set_F": ("set_F", "set_F", "mean"),
    "F1": ("set_F", "set_F", "mean"),
    "F1(beta=0.5)": ("set_F.0.5", "set_F", "mean"),
    "F1(beta=2)": ("set_F.2", "set_F", "mean"),
    **{f"Rprec_mult_{m}": ("Rprec_mult", f"Rprec_mult_{m}", "mean") for m in MULTS},
    "Rprec_mult(mult=0.35)": ("Rprec_mult.0.35", "Rprec_mult_0.35", "mean"),
    "Rprec_mult(mult=5)": ("Rprec_mult.5.0", "Rprec_mult_5.00", "mean"),
    **{
        f"IPrec(rounding=v9)@{x}": ("iprec_at_recall", f"iprec_at_recall_{x}", "mean")
        for x in LEVELS
    },
    "IPrec(rounding=v9)@0.25": ("iprec_at_recall.0.25", "iprec_at_recall_0.25", "mean"),
    "IPrec(rounding=v9)@0.33": ("iprec_at_recall.0.33", "iprec_at_recall_0.33", "mean"),
    "IPrec11pt(rounding=v9)": ("11pt_avg", "11pt_avg", "mean"),
    "infAP": ("infAP", "infAP", "mean"),
}
NAMES = list(ORACLE)


def _oracle(
    run_rows: list[Row], qrels_rows: list[Row], *, rel: int = 1, complete: bool = False
) -> tuple[dict[tuple[str, str], float], dict[str, float]]:
    """pytrec_eval's per-query values (query, our name) and the `all` line, on our scale
    (gm_map per query as exp of pytrec_eval's log)."""
    qrels = pytrec_qrels(qrels_rows)
    run = pytrec_run(run_rows)
    if complete:  # an empty dict makes pytrec_eval score the query 0 (trec_eval -c)
        for q in qrels:
            run.setdefault(q, {})
    per_query: dict[tuple[str, str], float] = {}
    summary: dict[str, float] = {}
    # one evaluator per request (set_F.0.5 and set_F share the key set_F)
    for request in {request for request, _, _ in ORACLE.values()}:
        evaluator = pytrec_eval.RelevanceEvaluator(dict(qrels), {request}, relevance_level=rel)
        values = evaluator.evaluate(dict(run))
        for name, (req, key, how) in ORACLE.items():
            if req != request:
                continue
            for q, v in values.items():
                if math.isnan(v[key]) and not run[q]:
                    # trec_eval -c scores a query without results 0; pytrec_eval's
                    # stand-in (an empty run) divides 0 by 0 retrieved for iprec/11pt
                    v[key] = 0.0
                per_query[(q, name)] = math.exp(v[key]) if how == "gmean" else v[key]
            column = [v[key] for v in values.values()]
            if how == "sum":
                summary[name] = sum(column)
            elif how == "gmean":
                summary[name] = math.exp(sum(column) / len(column))
            else:
                summary[name] = sum(column) / len(column)
    return per_query, summary


def _ours(run: pl.DataFrame, qrels: pl.DataFrame, engine: str, **kwargs: Any):
    """Per query and (through SUMMARY_ENGINES, else None) summarised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)  # run-only queries
        per_query = rk.evaluate(run, qrels, NAMES, per_query=True, engine=engine, **kwargs)
        overall = (
            rk.evaluate(run, qrels, NAMES, engine=engine, **kwargs)
            if engine in SUMMARY_ENGINES else None
        )  # fmt: skip
    return per_query, overall


def _check(ours: tuple[pl.DataFrame, pl.DataFrame | None], oracle: Any) -> None:
    per_query, overall = ours
    expected_per_query, expected_all = oracle
    got = {(str(q), m): v for q, m, v in per_query.select("query", "measure", "value").iter_rows()}
    assert set(got) == set(expected_per_query)
    for (q, name), value in expected_per_query.items():
        mine = got[(q, name)]
        if ORACLE[name][2] == "gmean":
            mine = max(mine, 1e-5)
        assert math.isclose(mine, value, rel_tol=0, abs_tol=TOL), (q, name, mine, value)
    if overall is None:
        return
    summary = dict(overall.select("measure", "value").iter_rows())
    assert list(summary) == NAMES
    for name, value in expected_all.items():
        assert math.isclose(summary[name], value, rel_tol=0, abs_tol=TOL), (name, value)


def _both_engines(case, **options: Any) -> None:
    id_dtype, run_rows, qrels_rows = case
    run, qrels = frames(id_dtype, run_rows, qrels_rows)
    expected = _oracle(run_rows, qrels_rows, **options)
    for engine in ("polars", "duckdb"):
        _check(_ours(run, qrels, engine, **options), expected)


@pytest.mark.slow
@pinned
@BATCH_SETTINGS
@given(case_batches())
def test_matches_pytrec_eval(case) -> None:
    _both_engines(case)


@pytest.mark.slow
@pinned
@BATCH_SETTINGS
@given(case_batches())
def test_matches_pytrec_eval_rel2(case) -> None:
    _both_engines(case, rel=2)


@pytest.mark.slow
@pinned
@BATCH_SETTINGS
@given(case_batches())
def test_matches_pytrec_eval_complete(case) -> None:
    _both_engines(case, complete=True)


def test_gm_map_is_the_geometric_mean_of_ap_floored_at_1e_5() -> None:
    """q1: AP = 1/2 (relevant at rank 2 of 1 relevant); q2: AP = 0 (floored to 1e-5):
    gm_map = exp((ln 0.5 + ln 1e-5) / 2) = sqrt(0.5e-5)."""
    run = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["a", "b", "a"],
                        "score": [2.0, 1.0, 1.0]})  # fmt: skip
    qrels = pl.DataFrame({"query": ["q1", "q2"], "item": ["b", "z"], "relevance": [1, 1]})
    for engine in ("polars", "duckdb"):
        got = rk.evaluate(run, qrels, ["gm_map", "map"], engine=engine)
        assert got["value"].to_list() == pytest.approx([math.sqrt(0.5e-5), 0.25], abs=1e-15)
        per_query = rk.evaluate(run, qrels, ["GMAP"], per_query=True, engine=engine)
        assert per_query["value"].to_list() == [0.5, 0.0]  # per query: AP


def test_num_q_counts_the_complete_queries() -> None:
    run = pl.DataFrame({"query": ["q1"], "item": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["q1", "q2", "q3"], "item": ["a", "a", "a"],
                          "relevance": [1, 1, 0]})  # fmt: skip
    for engine in ("polars", "duckdb"):
        assert rk.evaluate(run, qrels, ["num_q"], engine=engine)["value"].item() == 1.0
        got = rk.evaluate(run, qrels, ["num_q"], engine=engine, complete=True)
        assert got["value"].item() == 3.0
