"""Oracle test for the all_trec measures added by issue #13, against pytrec_eval.

Same data as ``test_oracle_pytrec_eval.py`` (its hypothesis strategy, drawn in batches of cases
stacked into one call per engine, ``case_batches``, and pinned cases:
ties broken by item id in byte order, -1 judgments, queries without relevant items,
run-only and qrels-only queries, integer ids).  Each of our names is compared with
pytrec_eval's key, per query and for trec_eval's ``all`` line, through both engines
(polars, DuckDB), to 1e-9:

* ``gm_bpref`` / ``GMBpref``: pytrec_eval's per-query value is log(max(bpref, 1e-5))
  (trec_eval prints nothing per query); ours is bpref, so the per-query check is
  exp(theirs) = max(ours, 1e-5) and ``all`` is exp(mean(theirs));
* ``utility``, ``binG``, ``relative_P_k``, ``set_relative_P``, ``set_map``;
* cutoffs of the set measures (``binG@3``, ``SetAP@3``, ``Utility@3``): trec_eval's
  ``-M 3``, i.e. pytrec_eval on the run cut to its top 3 (ranked here in Python, in
  trec_eval's order, independently of the package).

pytrec_eval cannot take utility's parameters (it prints "improper number of
coefficients" and scores 0), so non-default weights are checked against the
contingency table counted here in Python.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from typing import Any

import polars as pl
import pytest
from hypothesis import given

import polars_rankeval as rk
from tests.oracles.pytrec_data import BATCH_SETTINGS, SUMMARY_ENGINES, Row, case_batches
from tests.oracles.pytrec_data import frames as _frames
from tests.oracles.pytrec_data import pinned as _pinned
from tests.oracles.pytrec_data import pytrec_dicts as _dicts
from tests.oracles.pytrec_data import trec_ranks as _trec_ranks

pytrec_eval = pytest.importorskip("pytrec_eval")

TOL = 1e-9
KS = (1, 3, 10)
TOP = 3  # the cutoff checked through a truncated run (trec_eval -M 3)
RELATIVE_P = "relative_P." + ",".join(str(k) for k in KS)

# our name -> (pytrec_eval request, its key, how `all` aggregates, run cut at TOP?)
ORACLE: dict[str, tuple[str, str, str, bool]] = {
    "gm_bpref": ("gm_bpref", "gm_bpref", "gmean", False),
    "GMBpref": ("gm_bpref", "gm_bpref", "gmean", False),
    "utility": ("utility", "utility", "mean", False),
    "Utility": ("utility", "utility", "mean", False),
    "binG": ("binG", "binG", "mean", False),
    **{f"relative_P_{k}": (RELATIVE_P, f"relative_P_{k}", "mean", False) for k in KS},
    **{f"RelP@{k}": (RELATIVE_P, f"relative_P_{k}", "mean", False) for k in KS},
    "set_relative_P": ("set_relative_P", "set_relative_P", "mean", False),
    "RelP": ("set_relative_P", "set_relative_P", "mean", False),
    "set_map": ("set_map", "set_map", "mean", False),
    "SetAP": ("set_map", "set_map", "mean", False),
    f"binG@{TOP}": ("binG", "binG", "mean", True),
    f"SetAP@{TOP}": ("set_map", "set_map", "mean", True),
    f"Utility@{TOP}": ("utility", "utility", "mean", True),
}
NAMES = list(ORACLE)
# non-default utility weights, checked against a contingency table counted in Python
UTILITY_WEIGHTS = {
    "Utility(a=2,b=-0.5,c=-1,d=0.25)": (2.0, -0.5, -1.0, 0.25, 0.0, None),
    "Utility(d=1,docs=1000)@2": (1.0, -1.0, 0.0, 1.0, 1000.0, 2),
}


def _oracle(
    run_rows: list[Row], qrels_rows: list[Row], *, rel: int = 1, complete: bool = False
) -> tuple[dict[tuple[str, str], float], dict[str, float]]:
    """pytrec_eval's per-query values (query, our name) and the `all` line, on our scale
    (gm_bpref per query as exp of pytrec_eval's log)."""
    per_query: dict[tuple[str, str], float] = {}
    summary: dict[str, float] = {}
    for request, cut in {(req, cut) for req, _, _, cut in ORACLE.values()}:
        qrels, run = _dicts(run_rows, qrels_rows, TOP if cut else None)
        if complete:  # an empty dict makes pytrec_eval score the query (trec_eval -c)
            for q in qrels:
                run.setdefault(q, {})
        evaluator = pytrec_eval.RelevanceEvaluator(dict(qrels), {request}, relevance_level=rel)
        values = evaluator.evaluate(dict(run))
        for name, (req, key, how, c) in ORACLE.items():
            if (req, c) != (request, cut):
                continue
            for q, v in values.items():
                if not run[q] and key == "utility":
                    v[key] = 0.0  # trec_eval -c sets utility of a missing query to 0
                per_query[(q, name)] = math.exp(v[key]) if how == "gmean" else v[key]
            column = [v[key] for v in values.values()]
            mean = sum(column) / len(column)
            summary[name] = math.exp(mean) if how == "gmean" else mean
    return per_query, summary


def _ours(run: pl.DataFrame, qrels: pl.DataFrame, names: list[str], engine: str, **kwargs: Any):
    """Per query and (through SUMMARY_ENGINES, else None) summarised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)  # run-only queries
        per_query = rk.evaluate(run, qrels, names, per_query=True, engine=engine, **kwargs)
        overall = (
            rk.evaluate(run, qrels, names, engine=engine, **kwargs)
            if engine in SUMMARY_ENGINES else None
        )  # fmt: skip
    return per_query, overall


def _check(ours: tuple[pl.DataFrame, pl.DataFrame | None], oracle: Any) -> int:
    """Compare; return the number of values compared."""
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
        return len(expected_per_query)
    summary = dict(overall.select("measure", "value").iter_rows())
    assert list(summary) == NAMES
    for name, value in expected_all.items():
        assert math.isclose(summary[name], value, rel_tol=0, abs_tol=TOL), (name, value)
    return len(expected_per_query) + len(expected_all)


def _both_engines(case, **options: Any) -> None:
    id_dtype, run_rows, qrels_rows = case
    run, qrels = _frames(id_dtype, run_rows, qrels_rows)
    expected = _oracle(run_rows, qrels_rows, **options)
    for engine in ("polars", "duckdb"):
        _check(_ours(run, qrels, NAMES, engine, **options), expected)


@_pinned
@BATCH_SETTINGS
@given(case_batches())
def test_matches_pytrec_eval(case) -> None:
    _both_engines(case)


@_pinned
@BATCH_SETTINGS
@given(case_batches())
def test_matches_pytrec_eval_rel2(case) -> None:
    _both_engines(case, rel=2)


@_pinned
@BATCH_SETTINGS
@given(case_batches())
def test_matches_pytrec_eval_complete(case) -> None:
    _both_engines(case, complete=True)


def _utility_oracle(run_rows: list[Row], qrels_rows: list[Row], weights) -> dict[str, float]:
    """Utility per query from the contingency table, counted here: relevant = level >=
    1; retrieved = the top k in trec_eval's order (all without k)."""
    a, b, c, d, docs, k = weights
    ranked = _trec_ranks(pl.DataFrame(run_rows, orient="row", schema=["query", "item", "score"]))
    retrieved: dict[str, set[str]] = defaultdict(set)
    for q, it, rank in ranked.rows():
        if k is None or rank <= k:
            retrieved[str(q)].add(str(it))
    relevant: dict[str, set[str]] = defaultdict(set)
    for q, it, r in qrels_rows:
        relevant[str(q)].update([str(it)] if r >= 1 else [])
    out = {}
    for q, rel_items in relevant.items():
        if q not in retrieved:
            continue
        n, num_rel = len(retrieved[q]), len(rel_items)
        hits = len(retrieved[q] & rel_items)
        out[q] = a * hits + b * (n - hits) + c * (num_rel - hits) + d * (docs + hits - n - num_rel)
    return out


@_pinned
@BATCH_SETTINGS
@given(case_batches())
def test_utility_weights(case) -> None:
    id_dtype, run_rows, qrels_rows = case
    run, qrels = _frames(id_dtype, run_rows, qrels_rows)
    for engine in ("polars", "duckdb"):  # both weightings in one call per engine
        per_query, overall = _ours(run, qrels, list(UTILITY_WEIGHTS), engine)
        means = {} if overall is None else dict(overall.select("measure", "value").iter_rows())
        assert list(means) == ([] if overall is None else list(UTILITY_WEIGHTS))
        for name, weights in UTILITY_WEIGHTS.items():
            expected = _utility_oracle(run_rows, qrels_rows, weights)
            rows = per_query.filter(pl.col("measure") == name).select("query", "value")
            got = {str(q): v for q, v in rows.iter_rows()}
            assert got.keys() == expected.keys()
            for q, value in expected.items():
                assert math.isclose(got[q], value, rel_tol=0, abs_tol=TOL), (name, q)
            mean = sum(expected.values()) / len(expected)
            if overall is not None:
                assert math.isclose(means[name], mean, rel_tol=0, abs_tol=TOL), (engine, name)


def test_hand_computed() -> None:
    """One query, run a b c d (scores 4..1), qrels a:1 c:0 d:2 z:1 (R = 3, z not
    retrieved), b unjudged.
    binG = (1/log2(2+0) + 1/log2(2+2)) / 3 = (1 + 0.5) / 3 = 0.5 (a at 1: 0 non-relevant
    above; d at 4: b, c above);  utility = 2 - 2 = 0;  utility(c=-1) = 0 - 1 = -1;
    RelP@1 = 1/min(1,3) = 1;  RelP@3 = 1/3;  RelP@10 = 2/min(10,3) = 2/3;
    RelP = 2/min(4,3) = 2/3;  SetAP = 2^2/(4*3) = 1/3;
    bpref: a: 1; d: 1 judged non-relevant above (c), 1 - 1/min(1,3) = 0 -> 1/3."""
    run = pl.DataFrame({"query": ["q"] * 4, "item": list("abcd"), "score": [4.0, 3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"] * 4, "item": list("acdz"), "relevance": [1, 0, 2, 1]})
    names = ["binG", "Utility", "Utility(c=-1)", "RelP@1", "RelP@3", "RelP@10", "RelP",
             "SetAP", "GMBpref"]  # fmt: skip
    want = [0.5, 0.0, -1.0, 1.0, 1 / 3, 2 / 3, 2 / 3, 1 / 3, 1 / 3]
    for engine in ("polars", "duckdb"):
        got = rk.evaluate(run, qrels, names, engine=engine)["value"].to_list()
        assert got == pytest.approx(want, abs=1e-15), engine
