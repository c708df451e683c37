"""The diversity family in SQL (issue 18): ``sql/rankeval.sql``'s ``subtopic :=`` /
``intent_weight :=`` and ``evaluate(..., engine="duckdb")`` (which calls the macro)
against pyndeval (ndeval.c) per query, and equal to the polars engine (itself checked
against pyndeval in tests/oracles/test_diversity*.py) on alpha, beta, rel, intent
weights, ``by``, ``top`` and ``duplicates="first"``.

pyndeval is given the run in trec_eval's order with distinct scores
(``tests/diversity_cases.oracle_run``); ndeval's documented differences are skipped as in
tests/oracles/test_diversity.py: ERR-IA@1 and alpha-DCG@1 (undivided by N there) and
nNRBP of a query without relevant subtopics (NaN there, 0 here).
"""

from __future__ import annotations

import math
import warnings

import duckdb
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from tests.diversity_cases import batches, ndeval_pairs, oracle_run
from tests.helpers import entry_point_connection, examples

pyndeval = pytest.importorskip("pyndeval")

PAIRS = ndeval_pairs((1, 2, 5, 10, 20))
ALL = [ours for ours, _ in PAIRS] + ["P_IA", "AP", "nDCG@5"]  # with plain measures beside


def _frames(qrels: list[tuple], run: list[tuple]) -> tuple[pl.DataFrame, pl.DataFrame]:
    q = pl.DataFrame(qrels, schema=["query", "subtopic", "item", "relevance"], orient="row")
    r = pl.DataFrame(run, schema=["query", "item", "score"], orient="row")
    return q, r


def _per_query(run: pl.DataFrame, qrels: pl.DataFrame, names: list[str], **kw) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)  # run-only queries
        out = rk.evaluate(run, qrels, names, per_query=True, **kw)
    keys = [c for c in out.columns if c not in ("measure", "value")]
    return {(*row[:-2], row[-2]): row[-1] for row in out.select(*keys, "measure", "value").iter_rows()}


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key, value in a.items():
        assert value == pytest.approx(b[key], rel=1e-12, abs=1e-12), key


# Each example is a batch of up to 8 cases (``batches``) in one engine call: about as many
# cases as one case an example at 150 examples, at a fifth of the calls.
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches(8))
def test_duckdb_matches_pyndeval_and_polars(case):
    qrels, run = case
    q, r = _frames(qrels, run)
    ours = _per_query(r, q, ALL, engine="duckdb")
    _same(ours, _per_query(r, q, ALL))
    oracle = pyndeval.ndeval(qrels, oracle_run(run), [nd for _, nd in PAIRS])
    relevant = {query for query, _, _, rel in qrels if rel >= 1}
    for query, values in oracle.items():
        for name, nd in PAIRS:
            if nd in ("ERR-IA@1", "alpha-DCG@1"):
                continue
            if math.isnan(values[nd]):
                assert nd == "nNRBP" and query not in relevant and ours[(query, name)] == 0.0
                continue
            assert ours[(query, name)] == pytest.approx(values[nd], abs=1e-9), (query, name)


ALPHAS = (0.0, 0.3, 1.0)
BETAS = (0.0, 0.8, 1.0)


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches(6), st.sampled_from([1, 2]))
def test_alpha_beta_rel_equal_polars(case, rel):
    """Every alpha and (alpha, beta) in each call (one call per batch of cases)."""
    qrels, run = case
    q, r = _frames(qrels, run)
    names = [
        *(f"alpha_nDCG(alpha={alpha})@10" for alpha in ALPHAS),
        *(f"alpha_DCG(alpha={alpha})@5" for alpha in ALPHAS),
        *(f"{family}(alpha={alpha},beta={beta})"
          for family in ("NRBP", "nNRBP") for alpha in ALPHAS for beta in BETAS),
        "nERR_IA@3", "AP_IA", "StRecall@5",
    ]  # fmt: skip
    _same(_per_query(r, q, names, rel=rel, engine="duckdb"), _per_query(r, q, names, rel=rel))


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches(4), st.data())
def test_intent_weights_by_top_and_duplicates_equal_polars(case, data):
    """Intent weights per (query, subtopic), two systems (by=), top= and a repeated row
    under duplicates='first'."""
    qrels, run = case
    q, r = _frames(qrels, run)
    pairs = sorted({(row[0], row[1]) for row in qrels})
    weights = {p: data.draw(st.sampled_from([0.0, 0.5, 1.0, 3.0])) for p in pairs}
    q = q.with_columns(pl.Series("w", [weights[(row[0], row[1])] for row in qrels], pl.Float64))
    runs = pl.concat([r.with_columns(sys=pl.lit("A")), r.with_columns(sys=pl.lit("B"), score=-pl.col("score"))])
    runs = pl.concat([runs, runs.head(1).with_columns(score=pl.col("score") - 10)])
    top = data.draw(st.sampled_from([None, 2, 5]))
    kw = {"intent_weight": "w", "by": "sys", "top": top, "duplicates": "first"}
    names = ["nERR_IA@5", "ERR_IA@10", "P_IA@3", "AP_IA", "alpha_nDCG@5", "NRBP", "AP"]
    _same(_per_query(runs, q, names, engine="duckdb", **kw), _per_query(runs, q, names, **kw))


def _register(con: duckdb.DuckDBPyConnection, **frames: pl.DataFrame) -> None:
    for name, frame in frames.items():
        con.register(name, frame.to_arrow())


def test_macro_with_user_column_names():
    """subtopic := and intent_weight := name the columns, as query := and item := do."""
    judgments = pl.DataFrame({
        "qid": [1, 1, 1, 1, 2], "aspect": [1, 2, 1, 2, 1], "doc": ["a", "a", "b", "c", "a"],
        "grade": [1, 2, 1, 1, 1], "p": [0.25, 0.75, 0.25, 0.75, 1.0],
    })
    runs = pl.DataFrame({"qid": [1, 1, 1, 2], "doc": ["b", "a", "c", "a"], "sim": [3.0, 2.0, 1.0, 1.0]})
    names = ["alpha_nDCG@3", "nERR_IA@2", "P_IA@2", "AP_IA", "NRBP"]
    con = entry_point_connection()
    _register(con, judgments=judgments, runs=runs)
    got = con.execute(
        "SELECT * FROM rankeval_summary('runs', 'judgments', $m, query := 'qid', item := 'doc',"
        " score := 'sim', relevance := 'grade', subtopic := 'aspect', intent_weight := 'p')",
        {"m": names},
    ).fetchall()
    expected = rk.evaluate(runs, judgments, names, query="qid", item="doc", score="sim",
                           relevance="grade", subtopic="aspect", intent_weight="p")  # fmt: skip
    assert [m for m, _ in got] == names
    for (_, value), want in zip(got, expected["value"], strict=True):
        assert value == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize(
    ("qrels", "kw", "problem"),
    [
        ({"item": ["a", "b"]}, "", r"measure '(alpha_nDCG@20|nERR_IA@5)' is a diversity measure: it needs subtopic qrels"),
        ({}, ", subtopic := 'aspect'", "qrels has no column 'aspect'"),
        ({"subtopic": ["1", "1"]}, ", subtopic := 'subtopic'", r"duplicate \(query, subtopic, item\)"),
        ({}, ", subtopic := 'subtopic', intent_weight := 'w'", r"differs within a \(query, subtopic\)"),
    ],
)
def test_macro_errors_name_the_problem(qrels, kw, problem):
    judgments = pl.DataFrame({"query": ["q", "q"], "subtopic": ["1", "2"], "item": ["a", "a"],
                              "relevance": [1, 1], "w": [1.0, 2.0]} | qrels)  # fmt: skip
    if "w" in kw:
        judgments = judgments.with_columns(subtopic=pl.lit("1"), item=pl.Series(["a", "b"]))
    con = entry_point_connection()
    _register(con, judgments=judgments, runs=pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]}))
    with pytest.raises(duckdb.Error, match=problem):
        con.execute(f"SELECT * FROM rankeval_per_query('runs', 'judgments', ['alpha_nDCG@20', 'nERR_IA@5']{kw})").fetchall()


def test_cutoff_and_ties_refused_by_name():
    con = entry_point_connection()
    judgments = pl.DataFrame({"query": ["q"], "subtopic": ["1"], "item": ["a"], "relevance": [1]})
    _register(con, judgments=judgments, runs=pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]}))
    with pytest.raises(duckdb.Error, match="measure 'ERR_IA' needs a cutoff"):
        con.execute("SELECT * FROM rankeval_per_query('runs', 'judgments', ['ERR_IA'], subtopic := 'subtopic')").fetchall()
    with pytest.raises(duckdb.Error, match="measure 'AP_IA' does not support ties='average'"):
        con.execute("SELECT * FROM rankeval_per_query('runs', 'judgments', ['AP_IA'], subtopic := 'subtopic',"
                    " ties := 'average')").fetchall()  # fmt: skip
    run = pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]})
    with pytest.raises(rk.MeasureError, match="ties='average'"):
        rk.evaluate(run, judgments, ["alpha_nDCG@20"], ties="average", engine="duckdb")
    with pytest.raises(rk.InputError, match="alpha_nDCG@20: diversity measures need subtopic qrels"):
        rk.evaluate(run.with_columns(relevant=pl.lit(1)), None, ["alpha_nDCG@20"], engine="duckdb")
