"""``evaluate(..., ties="average")``: the expected value over every ordering of tied rows.

Brute force: every ordering of each query's tie groups (rows with equal score, or equal
rank with ``score=None``; queries of at most ``tests.ties.MAX_ROWS`` rows: 5 by default, 7
under ``HYPOTHESIS_PROFILE=full``) is enumerated and evaluated with the default tie rule, given
explicit distinct scores (ranks) in that order; the mean over the orderings must equal
``ties="average"`` to 1e-12 per query, for every measure that supports it (each
family x parameter value x cutoff x relevance level), through the polars engine (eager
and lazy streaming) and the DuckDB engine.  Plus known answers, the case without ties
(equal to ``ties="trec_eval"`` exactly) and the errors.  The grid, the data, the brute
force and the known answers are in ``tests/ties.py`` (shared with the SQL entry point's
``sql/test_sql_entry_ties.py``).
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from polars_rankeval._parse import parse_measure
from polars_rankeval._registry import REGISTRY
from tests.helpers import FULL_PROFILE, POLARS_ONLY, examples
from tests.ties import (
    ALL_TIED,
    ALL_TIED_ANSWERS,
    BELOW_A_RELEVANT_ANSWERS,
    GRID,
    GRID_NO_QRELS,
    brute_force,
    tied_batches,
)

TOL = 1e-12
# every engine runs the grid (INSQ and SDCG too: their brute force over orderings is
# also in tests/oracles/test_measure_cwl.py)
SUPPORTED = [
    name for name, family in REGISTRY.items()
    if family.expected is not None and name not in POLARS_ONLY
]  # fmt: skip


ENGINES = {
    "polars eager": lambda run, qrels, names, kw: rk.evaluate(run, qrels, names, **kw),
    "polars lazy streaming": lambda run, qrels, names, kw: rk.evaluate(
        run.lazy(), None if qrels is None else qrels.lazy(), names, **kw
    ).collect(engine="streaming"),
    "duckdb": lambda run, qrels, names, kw: rk.evaluate(run, qrels, names, engine="duckdb", **kw),
}

# the summary is each engine's per-query frame finished by the one shared summarize: by
# default checked in one engine, under the full profile in each
SUMMARY_ENGINES = tuple(ENGINES) if FULL_PROFILE else ("polars eager",)

# largest |average - brute force| seen per engine, and how many values were compared
MAX_DIFF: dict[str, float] = defaultdict(float)
COMPARED: dict[str, int] = defaultdict(int)


def _averaged(engine: str, run, qrels, names, kw, *, per_query: bool = True) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        return ENGINES[engine](run, qrels, names, {**kw, "ties": "average", "per_query": per_query})


def check_against_brute_force(data: dict[str, Any], names: list[str]) -> None:
    run, qrels, kw = data["run"], data["qrels"], data["kw"]
    want = brute_force(run, qrels, names, kw)
    for engine in ENGINES:
        got = _averaged(engine, run, qrels, names, kw)
        values = {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}
        assert values.keys() == want.keys(), (engine, sorted(values.keys() ^ want.keys())[:5])
        for key, expected in want.items():
            diff = abs(values[key] - expected)
            assert diff <= TOL, (engine, key, values[key], expected)
            MAX_DIFF[engine] = max(MAX_DIFF[engine], diff)
            COMPARED[engine] += 1
        if engine not in SUMMARY_ENGINES:
            continue
        # the summary: means over queries (sums for the counts) of the same values
        summary = dict(_averaged(engine, run, qrels, names, kw, per_query=False).iter_rows())
        for name in names:
            per_query = [v for (_, m), v in want.items() if m == name]
            if not per_query:
                continue
            total = math.fsum(per_query)
            mean = (
                total if parse_measure(name).family.aggregate == "sum" else total / len(per_query)
            )
            assert summary[name] == pytest.approx(mean, abs=1e-9), (engine, name)


# Each example is a batch of tied runs stacked into one call per engine (tied_batches,
# ~3.5 runs each): the simplest run and one batch by default (~4.5 runs, where 5 single
# runs were), 10 batches (~35 runs) under the full profile, where 25 runs were.
SETTINGS = settings(
    max_examples=examples(10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)


@pytest.mark.slow
@SETTINGS
@given(data=tied_batches(mode="qrels"))
@example(data=ALL_TIED)
def test_brute_force_with_qrels(data: dict[str, Any]) -> None:
    check_against_brute_force(data, GRID)


@pytest.mark.slow
@SETTINGS
@given(data=tied_batches(mode="labels"))
def test_brute_force_without_qrels(data: dict[str, Any]) -> None:
    """Relevance, R and the ideal from the run's own labels."""
    check_against_brute_force(data, GRID_NO_QRELS)


@pytest.mark.slow
@SETTINGS
@given(data=tied_batches(mode="rank"))
def test_brute_force_rank_column(data: dict[str, Any]) -> None:
    """score=None: a tie group is the rows with an equal rank value."""
    check_against_brute_force(data, GRID)


def test_grid_covers_the_supported_families() -> None:
    assert {parse_measure(n).family.name for n in GRID} == set(SUPPORTED)
    assert {"AP", "P", "R", "nDCG", "RR", "NumRelRet", "Success"} <= set(SUPPORTED)
    assert "AP(norm=hits)" in GRID and "AP(norm=min)@3" in GRID
    assert "nDCG(gain=exp,ideal=run)@2" in GRID


# ----------------------------------------------------------------------- known answers


@pytest.mark.parametrize("engine", list(ENGINES))
def test_all_tied_known_answers(engine: str) -> None:
    """One query, n = 4 rows all tied, r = 2 relevant (R = 2): ``ALL_TIED_ANSWERS``
    (tests/ties.py, computed by hand)."""
    names = ["P@4", "P@1", "R@2", "Success@1", "NumRelRet@3", "RR", "AP", "nDCG"]
    case = ALL_TIED_ANSWERS
    got = dict(_averaged(engine, case.run, case.qrels, names, {}, per_query=False).iter_rows())
    for name in names:
        assert got[name] == pytest.approx(case.values[name], abs=TOL), name


@pytest.mark.parametrize("engine", list(ENGINES))
def test_tie_group_below_a_relevant_row(engine: str) -> None:
    """a (relevant) on top, then b, c, d tied with c relevant: ``BELOW_A_RELEVANT_ANSWERS``
    (tests/ties.py, computed by hand)."""
    names = ["AP", "RR", "AP@2"]
    case = BELOW_A_RELEVANT_ANSWERS
    got = dict(_averaged(engine, case.run, case.qrels, names, {}, per_query=False).iter_rows())
    for name in names:
        assert got[name] == pytest.approx(case.values[name], abs=TOL), name


@st.composite
def untied_runs(draw: st.DrawFn) -> dict[str, Any]:
    """A batch of tied runs (:func:`tests.ties.tied_batches`) given distinct scores."""
    data = draw(tied_batches(mode="qrels"))
    run = data["run"]
    scores = draw(st.permutations(range(run.height)))
    return {**data, "run": run.with_columns(pl.Series("score", scores, dtype=pl.Float64))}


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["polars eager", "duckdb"])
@settings(SETTINGS, max_examples=examples(5))  # batches: ~4.5 runs by default, where 3 were
@given(data=untied_runs())
def test_without_ties_equals_trec_eval(data: dict[str, Any], engine: str) -> None:
    """Every group is one row (n = 1, r = 0 or 1): the same numbers, up to the last bit.
    The polars engine's default aggregates only the judged rows while ties="average"
    sums over every row (zeros included), and polars' pairwise float sums then add in
    another order; DuckDB's SUM adds in the order its window operators hand rows over,
    which the tie windows change."""
    run, qrels = data["run"], data["qrels"]
    average = _averaged(engine, run, qrels, GRID, {}).sort("query", "measure")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        default = ENGINES[engine](run, qrels, GRID, {"per_query": True}).sort("query", "measure")
    assert average.drop("value").equals(default.drop("value"))
    assert (average["value"] - default["value"]).abs().max() <= 1e-15


# ------------------------------------------------------------------------------ errors


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("name", ["Bpref", "AP(norm=hits)@5"])
def test_measure_without_expected_value(engine: str, name: str) -> None:
    run = pl.DataFrame({"query": ["q"] * 2, "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    with pytest.raises(rk.MeasureError, match=r"ties='average'") as error:
        rk.evaluate(run, qrels, ["P@1", name], ties="average", engine=engine)
    assert name in str(error.value)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"ties": "random"}, "ties='random'"),
        ({"ties": "average", "top": 2}, "top="),
        ({"ties": "average", "duplicates": "first"}, "duplicates='first'"),
    ],
)
def test_bad_ties_arguments(engine: str, kw: dict[str, Any], match: str) -> None:
    run = pl.DataFrame({"query": ["q"] * 2, "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    with pytest.raises(rk.InputError, match=match):
        rk.evaluate(run, qrels, ["P@1"], engine=engine, **kw)


def test_lazy_in_lazy_out() -> None:
    run = pl.LazyFrame({"query": ["q"] * 2, "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.LazyFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    for engine in ("polars", "duckdb"):
        out = rk.evaluate(run, qrels, ["P@1"], ties="average", engine=engine)
        assert isinstance(out, pl.LazyFrame)
        assert out.collect()["value"].to_list() == [0.5]
