"""Diversity measures (issue 18) against pyndeval (ndeval.c) and by hand.

pyndeval breaks score ties by docno ascending, ndeval -traditional and trec_eval by docno
descending; the oracle is therefore given the run in trec_eval's order (sorted in plain
Python in ``tests/diversity_cases.py``, independently of the code under test) with
distinct scores.  Known and documented differences, asserted as such: ndeval leaves
ERR-IA@1 and alpha-DCG@1 undivided by N (its normalisation loops start at rank 2), and its
nNRBP is 0/0 = NaN for a query without relevant subtopics, where we give 0.
"""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from polars_rankeval._errors import InputError, MeasureError
from tests.diversity_cases import cases, oracle_run
from tests.helpers import examples

pyndeval = pytest.importorskip("pyndeval")

# ours -> ndeval's name
NAMES = {
    "ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA", "alpha_DCG": "alpha-DCG",
    "alpha_nDCG": "alpha-nDCG", "P_IA": "P-IA", "StRecall": "strec",
}
CUTOFFS = (1, 2, 5, 10, 20)


def _frames(qrels: list[tuple], run: list[tuple]) -> tuple[pl.DataFrame, pl.DataFrame]:
    q = pl.DataFrame(qrels, schema=["query", "subtopic", "item", "relevance"], orient="row")
    r = pl.DataFrame(run, schema=["query", "item", "score"], orient="row")
    return q, r


def _ours(qrels, run, names: list[str]) -> dict[tuple[str, str], float]:
    q, r = _frames(qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # run-only queries: counted and warned elsewhere
        out = rk.evaluate(r, q, names, per_query=True)
    return {(row["query"], row["measure"]): row["value"] for row in out.iter_rows(named=True)}


def _pairs_of_names() -> list[tuple[str, str, int | None]]:
    pairs = [(f"{ours}@{k}", f"{nd}@{k}", k) for ours, nd in NAMES.items() for k in CUTOFFS]
    return [*pairs, ("NRBP", "NRBP", None), ("nNRBP", "nNRBP", None), ("AP_IA", "MAP-IA", None)]


def _check(qrels, run) -> int:
    """Every measure at every cutoff, per query; returns how many values agreed."""
    names = _pairs_of_names()
    ours = _ours(qrels, run, [n for n, _, _ in names])
    oracle = pyndeval.ndeval(qrels, oracle_run(run), [nd for _, nd, _ in names])
    relevant = {query for query, _, _, relevance in qrels if relevance >= 1}
    checked = 0
    for query, values in oracle.items():
        for name, nd, _ in names:
            if nd in ("ERR-IA@1", "alpha-DCG@1"):  # see test_rank_one_is_normalised
                continue
            mine, expected = ours[(query, name)], values[nd]
            if math.isnan(expected):  # nNRBP of a query without relevant subtopics
                assert nd == "nNRBP" and query not in relevant and mine == 0.0
                continue
            assert mine == pytest.approx(expected, abs=1e-9), (query, name)
            checked += 1
    return checked


AGREED: list[int] = []


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_per_query_matches_pyndeval(case):
    qrels, run = case
    AGREED.append(_check(qrels, run))


@settings(max_examples=examples(75), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from([0.0, 0.3, 1.0]), st.sampled_from([0.0, 0.8, 1.0]))
def test_alpha_beta_match_pyndeval(case, alpha, beta):
    qrels, run = case
    names = ["alpha_nDCG", "alpha_DCG", "NRBP", "nNRBP"]
    ours = _ours(qrels, run, [f"{n}(alpha={alpha},beta={beta})" if "NRBP" in n else f"{n}(alpha={alpha})@10" for n in names])
    oracle = pyndeval.ndeval(qrels, oracle_run(run), ["alpha-nDCG@10", "alpha-DCG@10", "NRBP", "nNRBP"], alpha=alpha, beta=beta)
    for query, values in oracle.items():
        for n, nd in zip(names, ["alpha-nDCG@10", "alpha-DCG@10", "NRBP", "nNRBP"], strict=True):
            mine = next(v for (q, m), v in ours.items() if q == query and m.startswith(n + "("))
            if math.isnan(values[nd]):
                # 0/0 in ndeval: no relevant subtopic (ours 0), or alpha = 0 and beta = 1,
                # where NRBP's factor 1 - (1 - alpha) beta is 0 on both sides of nNRBP's
                # ratio (ours: the ratio of the sums)
                assert mine == 0.0 or (alpha, beta) == (0.0, 1.0)
                continue
            assert mine == pytest.approx(values[nd], abs=1e-9), (query, n, alpha, beta)


@settings(max_examples=examples(75), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_relevance_level_matches_pyndeval(case):
    qrels, run = case
    names = ["alpha_nDCG(rel=2)@5", "P_IA(rel=2)@5", "AP_IA(rel=2)", "StRecall(rel=2)@5"]
    ours = _ours(qrels, run, names)
    ev = pyndeval.RelevanceEvaluator(qrels, ["alpha-nDCG@5", "P-IA@5", "MAP-IA", "strec@5"], relevance_level=2)
    for query, values in ev.evaluate(oracle_run(run)).items():
        for n, nd in zip(names, ["alpha-nDCG@5", "P-IA@5", "MAP-IA", "strec@5"], strict=True):
            assert ours[(query, n)] == pytest.approx(values[nd], abs=1e-9), (query, n)


@settings(max_examples=examples(75), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_rank_one_is_normalised(case):
    """ndeval divides ERR-IA@k and alpha-DCG@k by N * ideal-ideal from rank 2 on only;
    at k = 1 ours is its value / N (the definition), the n-variants equal."""
    qrels, run = case
    ours = _ours(qrels, run, ["ERR_IA@1", "alpha_DCG@1", "nERR_IA@1", "alpha_nDCG@1"])
    oracle = pyndeval.ndeval(qrels, oracle_run(run), ["ERR-IA@1", "alpha-DCG@1", "nERR-IA@1", "alpha-nDCG@1"])
    n_sub: dict[str, set] = {}
    for query, sub, _, relevance in qrels:
        if relevance >= 1:
            n_sub.setdefault(query, set()).add(sub)
    for query, values in oracle.items():
        n = len(n_sub.get(query, ()))
        for mine, nd in (("ERR_IA@1", "ERR-IA@1"), ("alpha_DCG@1", "alpha-DCG@1")):
            assert ours[(query, mine)] == pytest.approx(values[nd] / n if n else 0.0, abs=1e-12)
        for mine, nd in (("nERR_IA@1", "nERR-IA@1"), ("alpha_nDCG@1", "alpha-nDCG@1")):
            assert ours[(query, mine)] == pytest.approx(values[nd], abs=1e-12)


@settings(max_examples=examples(75), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_mean_matches_pyndeval(case):
    qrels, run = case
    q, r = _frames(qrels, run)
    names = ["alpha_nDCG@10", "ERR_IA@5", "NRBP", "AP_IA", "P_IA@10", "StRecall@20"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            summary = rk.evaluate(r, q, names)
        except InputError as error:  # run and qrels share no query: pyndeval evaluates none
            assert "share no query" in str(error)
            return
    oracle = pyndeval.ndeval(qrels, oracle_run(run), ["alpha-nDCG@10", "ERR-IA@5", "NRBP", "MAP-IA", "P-IA@10", "strec@20"])
    for name, nd in zip(names, ["alpha-nDCG@10", "ERR-IA@5", "NRBP", "MAP-IA", "P-IA@10", "strec@20"], strict=True):
        expected = sum(v[nd] for v in oracle.values()) / len(oracle)
        got = summary.filter(pl.col("measure") == name)["value"].item()
        assert got == pytest.approx(expected, abs=1e-9), name


def test_hand_computed():
    """One query, subtopics s1 and s2, alpha = 0.5.  qrels: a in s1 and s2, b in s1,
    c in s2.  Run: b, x (unjudged), a, c.
    Gains: b 1 (s1 first); x 0; a 0.5 (s1 second) + 1 (s2 first) = 1.5; c 0.5.
    alpha-DCG raw@4 = 1/log2 2 + 0 + 1.5/log2 4 + 0.5/log2 5 = 1 + 0.75 + 0.215338...
    Greedy ideal: a (gain 2), then b and c both 0.5: c first (greater docno), then b:
    ideal raw@4 = 2 + 0.5/log2 3 + 0.5/log2 4 = 2 + 0.315465 + 0.25.
    AP_IA: s1 has b at 1, a at 3: (1/1 + 2/3)/2; s2 has a at 3, c at 4: (1/3 + 2/4)/2.
    P_IA@2 = 1 pair / (2 * 2); StRecall@2 = 1/2; StRecall@3 = 2/2."""
    qrels = [("q", "s1", "a", 1), ("q", "s2", "a", 1), ("q", "s1", "b", 1), ("q", "s2", "c", 1)]
    run = [("q", "b", 4.0), ("q", "x", 3.0), ("q", "a", 2.0), ("q", "c", 1.0)]
    ours = _ours(qrels, run, ["alpha_nDCG@4", "AP_IA", "P_IA@2", "StRecall@2", "StRecall@3"])
    dcg = 1 + 1.5 / math.log2(4) + 0.5 / math.log2(5)
    ideal = 2 + 0.5 / math.log2(3) + 0.5 / math.log2(4)
    assert ours[("q", "alpha_nDCG@4")] == pytest.approx(dcg / ideal, abs=1e-12)
    ap_ia = ((1 + 2 / 3) / 2 + (1 / 3 + 2 / 4) / 2) / 2
    assert ours[("q", "AP_IA")] == pytest.approx(ap_ia, abs=1e-12)
    assert ours[("q", "P_IA@2")] == pytest.approx(0.25)
    assert ours[("q", "StRecall@2")] == pytest.approx(0.5)
    assert ours[("q", "StRecall@3")] == pytest.approx(1.0)


def test_errors_name_the_measure_and_column():
    run = pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]})
    plain = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    with pytest.raises(InputError, match="subtopic"):
        rk.evaluate(run, plain, ["alpha_nDCG@20"])
    with pytest.raises(InputError, match="alpha_nDCG@20"):
        rk.evaluate(run, None, ["alpha_nDCG@20"])
    sub = pl.DataFrame({"query": ["q", "q"], "subtopic": ["1", "1"], "item": ["a", "a"], "relevance": [1, 0]})
    with pytest.raises(InputError, match="duplicate"):
        rk.evaluate(run, sub, ["alpha_nDCG@20"])
    with pytest.raises(InputError, match="duplicate"):  # the DuckDB engine checks them too
        rk.evaluate(run, sub, ["alpha_nDCG@20"], engine="duckdb")
    with pytest.raises(MeasureError, match="ties='average'"):
        rk.evaluate(run, sub.head(1), ["alpha_nDCG@20"], ties="average")
    with pytest.raises(MeasureError, match="cutoff"):
        rk.evaluate(run, sub.head(1), ["ERR_IA"])


def test_plain_measures_beside_diversity_use_topic_qrels():
    """With subtopic qrels, AP sees an item relevant to any subtopic as relevant (its
    highest relevance), as ndeval's MAP; the values equal those of topic qrels."""
    sub = pl.DataFrame({
        "query": ["q", "q", "q"], "subtopic": ["1", "2", "2"], "item": ["a", "a", "b"],
        "relevance": [0, 2, 1],
    })
    topic = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "relevance": [2, 1]})
    run = pl.DataFrame({"query": ["q", "q", "q"], "item": ["x", "a", "b"], "score": [3.0, 2.0, 1.0]})
    mixed = rk.evaluate(run, sub, ["AP", "alpha_nDCG@5", "nDCG@5"])
    alone = rk.evaluate(run, topic, ["AP", "nDCG@5"])
    assert mixed["measure"].to_list() == ["AP", "alpha_nDCG@5", "nDCG@5"]
    assert mixed.filter(pl.col("measure") != "alpha_nDCG@5")["value"].to_list() == alone["value"].to_list()


def test_lazy_and_by_groups():
    sub = pl.DataFrame({"query": ["q"] * 3, "subtopic": ["1", "2", "2"], "item": ["a", "a", "b"], "relevance": [1, 1, 1]})
    run = pl.DataFrame({
        "sys": ["A", "A", "B", "B"], "query": ["q"] * 4, "item": ["a", "b", "b", "a"],
        "score": [2.0, 1.0, 2.0, 1.0],
    })
    lazy = rk.evaluate(run.lazy(), sub.lazy(), ["alpha_nDCG@2"], by="sys")
    assert isinstance(lazy, pl.LazyFrame)
    out = lazy.collect().sort("sys")
    each = [rk.evaluate(run.filter(pl.col("sys") == s).drop("sys"), sub, ["alpha_nDCG@2"])["value"].item() for s in "AB"]
    assert out["value"].to_list() == each
    assert each[0] == pytest.approx(1.0) and each[1] < 1.0


def test_read_subtopic_qrels(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("1 1 d1 1\n1 2 d1 0\n1 2 d2 2\n")
    frame = rk.read_trec_qrels(path, subtopics=True).collect()
    assert frame.columns == ["query", "subtopic", "item", "relevance"]
    assert frame.rows() == [("1", "1", "d1", 1), ("1", "2", "d1", 0), ("1", "2", "d2", 2)]
    run = pl.DataFrame({"query": ["1", "1"], "item": ["d2", "d1"], "score": [2.0, 1.0]})
    oracle = pyndeval.ndeval(frame.rows(), [("1", "d2", 2.0), ("1", "d1", 1.0)], ["alpha-nDCG@5"])
    assert rk.evaluate(run, frame, ["alpha_nDCG@5"])["value"].item() == pytest.approx(oracle["1"]["alpha-nDCG@5"], abs=1e-12)
