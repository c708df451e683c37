"""Compat (Clarke et al. 2021) and Accuracy against ir_measures' own providers (pure
Python: ``ir_measures.compat``, ``ir_measures.accuracy``), per query and mean, on
hypothesis-generated runs and qrels (graded -1..4, tied scores, unjudged rows, queries
on one side only; drawn in batches of cases stacked into one call per engine,
``case_batches``); and by hand.

ir_measures orders the run by its scores (ties by item id ascending) and the ideal
ranking's equal gains by the run's score, 0 for an unretrieved item; we give it scores
n, n-1, .., 1 in our (trec_eval's) order, so both rank alike and the ideal's ties fall
in run order.  A second test gives it the raw scores when they are distinct and
positive, where no rewriting is needed.
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections import defaultdict

import ir_measures
import polars as pl
import pytest
from hypothesis import given

import polars_rankeval as rk
from polars_rankeval._errors import MeasureError
from tests.oracles.ir_measures_data import (
    BATCH_SETTINGS,
    Rows,
    case_batches,
    frames,
    our_values,
)
from tests.oracles.pytrec_data import trec_ranks

COMPAT = ["Compat", "Compat(p=0.5)", "Compat(p=1)", "Compat(p=0)", "Compat(normalize=false)",
          "Compat(p=0.8,normalize=false)"]  # fmt: skip
ACCURACY = ["Accuracy", "Accuracy@1", "Accuracy@3", "Accuracy(rel=2)", "Accuracy(rel=3)@5"]


def _irm_name(name: str) -> str:
    return name.replace("normalize=false", "normalize=False")


def _oracle_inputs(run: Rows, qrels: Rows, *, rescore: bool) -> tuple[dict, dict]:
    judged: dict[str, dict[str, int]] = defaultdict(dict)
    for q, it, g in qrels:
        judged[q][it] = int(g)
    scored: dict[str, dict[str, float]] = defaultdict(dict)
    if rescore:  # n .. 1 in trec_eval's order (score descending, item descending)
        ranked = trec_ranks(frames(run, qrels)[0])
        sizes = ranked.group_by("query").len()
        for q, it, rank, n in ranked.join(sizes, on="query").rows():
            scored[q][it] = float(n - rank + 1)
    else:
        for q, it, s in run:
            scored[q][it] = float(s)
    return dict(judged), dict(scored)


def _oracle(provider, names: list[str], judged: dict, scored: dict) -> dict:
    """{(query, name): value}, one query at a time (the values of that query only: the
    evaluator also yields its default for the qrels' other queries); a query where the
    provider divides by zero: NaN."""
    out: dict[tuple[str, str], float] = {}
    for name in names:
        measure = ir_measures.parse_measure(_irm_name(name))
        for q, items in scored.items():
            try:
                found = list(provider.iter_calc([measure], judged, {q: items}))
            except ZeroDivisionError:  # Accuracy: no non-relevant row in the top k
                out[q, name] = math.nan
                continue
            out.update({(m.query_id, name): m.value for m in found if m.query_id == q})
    return out


def _compare(ours: dict, expected: dict, names: list[str], *, filled: dict) -> int:
    """Every oracle value equals ours to 1e-9; our queries without one hold ``filled``'s
    value for them.  Returns the number of values compared."""
    for key, value in ours.items():
        if key in expected and not math.isnan(expected[key]):
            assert value == pytest.approx(expected[key], abs=1e-9), (key, value, expected[key])
        else:
            assert value == filled[key], (key, value)
    assert {k for k in expected if k[1] in names} <= set(ours)
    return len(ours)


def _accuracy_fill(run: Rows, qrels: Rows, names: list[str]) -> dict:
    """Our documented values where ir_measures has none: 0 without a relevant row in the
    top k (it skips the query), 1 without a non-relevant one (it divides by zero)."""
    ranked = trec_ranks(frames(run, qrels)[0])
    grade = {(q, it): g for q, it, g in qrels}
    out = {}
    for name in names:
        m = rk._parse.parse_measure(name)  # type: ignore[attr-defined]
        for q in ranked["query"].unique():
            rows = ranked.filter(pl.col("query") == q)
            top = [it for it, r in zip(rows["item"], rows["rank"], strict=True)
                   if m.k is None or r <= m.k]  # fmt: skip
            rel = [grade.get((q, it), 0) >= m.rel for it in top]
            out[q, name] = 0.0 if not any(rel) else 1.0 if all(rel) else math.nan
    return out


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@BATCH_SETTINGS
@given(case=case_batches())
def test_compat_matches_ir_measures(engine: str, case: tuple[Rows, Rows]) -> None:
    run, qrels = case
    ours = our_values(run, qrels, COMPAT, engine)
    judged, scored = _oracle_inputs(run, qrels, rescore=True)
    expected = _oracle(ir_measures.compat, COMPAT, judged, scored)
    # ir_measures evaluates the queries in both the run and the qrels, as we do
    assert set(expected) == set(ours)
    _compare(ours, expected, COMPAT, filled={})
    # its mean: over every qrels query, 0 for one missing from the run (complete=True)
    means = ir_measures.compat.calc_aggregate(
        [ir_measures.parse_measure(_irm_name(n)) for n in COMPAT], judged, scored
    )
    _assert_means(run, qrels, COMPAT, {str(m): v for m, v in means.items()}, engine,
                  complete=True)  # fmt: skip


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@BATCH_SETTINGS
@given(case=case_batches(distinct_scores=True))
def test_compat_matches_ir_measures_on_raw_scores(engine: str, case: tuple[Rows, Rows]) -> None:
    run, qrels = case
    run = [(q, it, s + 1.0) for q, it, s in run]  # distinct and positive
    ours = our_values(run, qrels, COMPAT, engine)
    expected = _oracle(ir_measures.compat, COMPAT, *_oracle_inputs(run, qrels, rescore=False))
    assert set(expected) == set(ours)
    _compare(ours, expected, COMPAT, filled={})


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@BATCH_SETTINGS
@given(case=case_batches())
def test_accuracy_matches_ir_measures(engine: str, case: tuple[Rows, Rows]) -> None:
    run, qrels = case
    ours = our_values(run, qrels, ACCURACY, engine)
    expected = _oracle(ir_measures.accuracy, ACCURACY, *_oracle_inputs(run, qrels, rescore=True))
    fill = _accuracy_fill(run, qrels, ACCURACY)
    _compare(ours, expected, ACCURACY, filled=fill)
    # the oracle's value where it has one, else our documented 0 / 1
    merged = {k: expected[k] if k in expected and not math.isnan(expected[k]) else fill[k]
              for k in ours}  # fmt: skip
    means = {n: statistics.fmean(v for (_, m), v in merged.items() if m == n) for n in ACCURACY}
    _assert_means(run, qrels, ACCURACY, means, engine)


def _assert_means(
    run: Rows, qrels: Rows, names: list[str], expected: dict, engine: str, *,
    complete: bool = False,
) -> None:
    run_frame, qrels_frame = frames(run, qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        summary = rk.evaluate(run_frame, qrels_frame, names, engine=engine, complete=complete)
    for name, value in summary.select("measure", "value").iter_rows():
        assert value == pytest.approx(expected[_irm_name(name)], abs=1e-9), name


# test_compat_by_hand's tail sums T(m) = sum_{i=m}^{4} 0.5^(i-1) / i, worked there
_T4 = 0.125 / 4
_T3 = 0.25 / 3 + _T4
_T2 = 0.25 + _T3
BY_HAND_T = (1.0 + _T2, _T2, _T3, _T4)


def test_compat_by_hand() -> None:
    # q: run a b c d; qrels c=2, a=1, d=1, z=1 (z unretrieved).  Ideal: c, then the gain-1
    # items in run order a, d, then z: positions c1 a2 d3 z4.  D = max(4, 4) = 4.
    # Run positions a1 b2 c3 d4: first common depths max(a, b): a 2, c 3, d 4.
    # p = 0.5: T(m) = sum_{i=m}^{4} 0.5^(i-1) / i: T(2) = 0.25 + 0.25/3 + 0.125/4,
    # T(3) = 0.25/3 + 0.125/4, T(4) = 0.125/4; ideal: T(1) + T(2) + T(3) + T(4)
    run = pl.DataFrame({"query": ["q"] * 4, "item": ["a", "b", "c", "d"],
                        "score": [4.0, 3.0, 2.0, 1.0]})  # fmt: skip
    qrels = pl.DataFrame({"query": ["q"] * 5, "item": ["c", "a", "d", "z", "b"],
                          "relevance": [2, 1, 1, 1, 0]})  # fmt: skip
    t1, t2, t3, t4 = BY_HAND_T
    got = rk.evaluate(run, qrels, ["Compat(p=0.5)", "Compat(p=0.5,normalize=false)"])
    normalised, plain = got["value"].to_list()
    assert normalised == pytest.approx((t2 + t3 + t4) / (t1 + t2 + t3 + t4), abs=1e-15)
    # not normalised: divided by the weights 1 + 0.5 + 0.25 + 0.125
    assert plain == pytest.approx((t2 + t3 + t4) / 1.875, abs=1e-15)


def test_accuracy_by_hand() -> None:
    # run a b c d e; relevant b, e; c unjudged (non-relevant).  Non-relevant a, c, d:
    # b has 1 above, e has 3: 1 - (1 + 3) / (2 * 3) = 1/3.  @2: b has a above: 1 - 1/1 = 0.
    # @1: no relevant row: 0.  Only relevant rows (query r): 1.
    run = pl.DataFrame({"query": ["q"] * 5 + ["r"], "item": ["a", "b", "c", "d", "e", "x"],
                        "score": [5.0, 4.0, 3.0, 2.0, 1.0, 1.0]})  # fmt: skip
    qrels = pl.DataFrame({"query": ["q"] * 4 + ["r"], "item": ["a", "b", "d", "e", "x"],
                          "relevance": [0, 1, 0, 2, 1]})  # fmt: skip
    got = rk.evaluate(run, qrels, ["Accuracy", "Accuracy@2", "Accuracy@1"], per_query=True)
    values = {(q, m): v for q, m, v in got.iter_rows()}
    assert values["q", "Accuracy"] == pytest.approx(1 / 3, abs=1e-15)
    assert values["q", "Accuracy@2"] == 0.0
    assert values["q", "Accuracy@1"] == 0.0
    assert values["r", "Accuracy"] == 1.0


@pytest.mark.parametrize(
    "name, problem",
    [("Compat(p=1.5)", "p must be <= 1"), ("Compat(p=-0.1)", "p must be >= 0"),
     ("Compat(normalize=maybe)", "choose one of true, false"), ("Compat@5", "cutoff")],
)  # fmt: skip
def test_bad_parameters_are_named(name: str, problem: str) -> None:
    run, qrels = frames([("q", "a", 1.0)], [("q", "a", 1)])
    with pytest.raises(MeasureError, match=problem):
        rk.evaluate(run, qrels, [name])


@BATCH_SETTINGS
@given(case=case_batches())
def test_compat_sql_entry_point_and_render_match_ir_measures(case: tuple[Rows, Rows]) -> None:
    """The SQL entry point (sql/rankeval.sql's rankeval_per_query) and the SQL that
    sql.render writes for DuckDB equal ir_measures' provider per query, as
    engine='duckdb' does above (_sqlcompat.py)."""
    import duckdb

    from polars_rankeval.sql import render
    from tests.helpers import entry_point_connection

    run, qrels = case
    expected = _oracle(ir_measures.compat, COMPAT, *_oracle_inputs(run, qrels, rescore=True))
    run_frame, qrels_frame = frames(run, qrels)
    con = entry_point_connection()
    con.register("run", run_frame.to_arrow())
    con.register("qrels", qrels_frame.to_arrow())
    names = ", ".join(f"'{n}'" for n in COMPAT)
    rows = con.sql(f"SELECT query, measure, value FROM rankeval_per_query('run', 'qrels', [{names}])")
    entry = {(q, m): v for q, m, v in rows.fetchall()}
    assert set(entry) == set(expected)
    _compare(entry, expected, COMPAT, filled={})
    con = duckdb.connect()
    con.register("run", run_frame.to_arrow())
    con.register("qrels", qrels_frame.to_arrow())
    sql = render(COMPAT, dialect="duckdb", run_table="run", qrels_table="qrels", per_query=True)
    rendered = {(q, m): v for q, m, v in con.sql(sql).fetchall()}
    assert set(rendered) == set(expected)
    _compare(rendered, expected, COMPAT, filled={})


@pytest.mark.filterwarnings("ignore::polars_rankeval.RankevalWarning")
def test_compat_by_hand_in_sql() -> None:
    """test_compat_by_hand's query through engine='duckdb' (the SQL entry point), with
    a duplicated row under duplicates='first' (its position stays taken) and top=3."""
    run = pl.DataFrame({"query": ["q"] * 5, "item": ["a", "b", "c", "d", "a"],
                        "score": [4.0, 3.0, 2.0, 1.0, 0.5]})  # fmt: skip
    qrels = pl.DataFrame({"query": ["q"] * 5, "item": ["c", "a", "d", "z", "b"],
                          "relevance": [2, 1, 1, 1, 0]})  # fmt: skip
    t1, t2, t3, t4 = BY_HAND_T
    names = ["Compat(p=0.5)", "Compat(p=0.5,normalize=false)"]
    got = rk.evaluate(run, qrels, names, engine="duckdb", duplicates="first")
    normalised, plain = got["value"].to_list()
    assert normalised == pytest.approx((t2 + t3 + t4) / (t1 + t2 + t3 + t4), abs=1e-15)
    assert plain == pytest.approx((t2 + t3 + t4) / 1.875, abs=1e-15)
    # top=3: a1 b2 c3 retrieved, D = max(3, 4) = 4 still (the ideal's z); a at 2, c at 3
    for engine in ("polars", "duckdb"):
        (top3,) = rk.evaluate(run, qrels, names[:1], engine=engine, duplicates="first",
                              top=3)["value"]  # fmt: skip
        assert top3 == pytest.approx((t2 + t3) / (t1 + t2 + t3 + t4), abs=1e-15), engine


@BATCH_SETTINGS
@given(case=case_batches())
def test_compat_alike_on_every_row_path(case: tuple[Rows, Rows]) -> None:
    """The per-item ideal value (Ideal 'above') reaches the judged-only rows (default),
    every run row (duplicates='first') and a run carrying its own labels (no qrels)."""
    run, qrels = case
    run_frame, qrels_frame = frames(run, qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        judged_only = rk.evaluate(run_frame, qrels_frame, COMPAT, per_query=True)
        every_row = rk.evaluate(run_frame, qrels_frame, COMPAT, per_query=True,
                                duplicates="first")  # fmt: skip
        # the run labelled with the qrels' grades (unjudged: 0), only where judged
        labelled = run_frame.join(qrels_frame, on=["query", "item"], how="left")
        labelled = labelled.with_columns(pl.col("relevance").fill_null(0))
        own = rk.evaluate(labelled, None, COMPAT, per_query=True, relevant="relevance")
        judged_items = labelled.select("query", "item", "relevance")
        as_qrels = rk.evaluate(run_frame, judged_items, COMPAT, per_query=True)
    key = ["query", "measure"]
    for other, expected in ((every_row, judged_only), (own, as_qrels)):
        assert other.sort(key).select(key).rows() == expected.sort(key).select(key).rows()
        assert other.sort(key)["value"].to_list() == pytest.approx(
            expected.sort(key)["value"].to_list(), abs=1e-12
        )
