"""Known answers from the literature and textbooks, with the arithmetic by hand.

Each expected value is computed in the comment (and, where a logarithm is involved, by
the same formula in Python right beside it), never copied from our own output.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import polars_rankeval as rk
from tests.helpers import per_query as _per_query
from tests.helpers import qrels_frame as _qrels
from tests.helpers import ranked_run as _run
from tests.helpers import values as _values

TOL = 1e-12


# --------------------------------------------------------------------------------------
# Average precision
# --------------------------------------------------------------------------------------


def test_ap_at_6_single_ranking() -> None:
    # relevant {a, b}; ranking d, a, c, b, e, f
    # hits at ranks 2 and 4: precision 1/2 and 2/4
    # AP@6 = (1/2 + 2/4) / R = 1.0 / 2 = 0.5
    run = _run({"q": ["d", "a", "c", "b", "e", "f"]})
    qrels = _qrels({"q": {"a": 1, "b": 1}})
    got = _values(rk.evaluate(run, qrels, ["AP@6", "map_cut_6", "AP"], score=None))
    assert got == pytest.approx({"AP@6": 0.5, "map_cut_6": 0.5, "AP": 0.5}, abs=TOL)


# three rankings, relevant {a, b} in each:
#   [a, b, c, d, e, f]: hits at 1, 2 -> (1/1 + 2/2) / 2 = 1
#   [c, d, e, f, a, b]: hits at 5, 6 -> (1/5 + 2/6) / 2 = (0.2 + 0.3333...) / 2 = 0.2666...
#   [d, a, c, b, e, f]: hits at 2, 4 -> (1/2 + 2/4) / 2 = 0.5
# MAP@6 = (1 + 4/15 + 1/2) / 3 = (53/30) / 3 = 53/90 = 0.58888...
MAP_RANKINGS = {
    "q1": ["a", "b", "c", "d", "e", "f"],
    "q2": ["c", "d", "e", "f", "a", "b"],
    "q3": ["d", "a", "c", "b", "e", "f"],
}
MAP_AT_6 = 53 / 90
AP_PER_QUERY = {"q1": 1.0, "q2": 4 / 15, "q3": 0.5}


def test_map_at_6_with_qrels() -> None:
    run = _run(MAP_RANKINGS)
    qrels = _qrels({q: {"a": 1, "b": 1} for q in MAP_RANKINGS})
    got = rk.evaluate(run, qrels, ["AP@6"], score=None)
    assert _values(got)["AP@6"] == pytest.approx(MAP_AT_6, abs=TOL)
    assert round(MAP_AT_6, 4) == 0.5889
    per_query = _per_query(rk.evaluate(run, qrels, ["AP@6"], score=None, per_query=True))
    assert per_query == pytest.approx({(q, "AP@6"): v for q, v in AP_PER_QUERY.items()}, abs=TOL)


def test_map_at_6_without_qrels() -> None:
    # pure long form (query, rank, item, relevant), no score column, no qrels:
    # every relevant item is retrieved, so R from the run equals R from the qrels
    run = _run(MAP_RANKINGS).with_columns(relevant=pl.col("item").is_in(["a", "b"]))
    assert run.columns == ["query", "item", "rank", "relevant"]
    got = rk.evaluate(run, None, ["AP@6", "AP"], score=None)
    assert _values(got) == pytest.approx({"AP@6": MAP_AT_6, "AP": MAP_AT_6}, abs=TOL)
    # an integer label column gives the same
    as_int = run.with_columns(pl.col("relevant").cast(pl.Int64))
    assert _values(rk.evaluate(as_int, None, ["AP@6"])) == pytest.approx(
        {"AP@6": MAP_AT_6}, abs=TOL
    )


def test_ap_norms() -> None:
    # relevant {a, b, c, d} (R = 4); ranking a, x, b, y, z
    # hits in the top 3 at ranks 1 and 3: precision 1/1 and 2/3, sum = 5/3
    #   AP@3 norm=R    (trec_eval map_cut_3): (5/3) / 4         = 5/12 = 0.41667
    #   AP@3 norm=min  (Kaggle apk, Spark):   (5/3) / min(4, 3) = 5/9  = 0.55556
    #   AP@3 norm=hits (torchmetrics):        (5/3) / 2         = 5/6  = 0.83333
    # no cutoff: the whole ranking has the same 2 hits, so norm=R 5/12,
    # norm=min 5/12 (no k: min(R, k) = R), norm=hits 5/6
    run = _run({"q": ["a", "x", "b", "y", "z"]})
    qrels = _qrels({"q": {"a": 1, "b": 1, "c": 1, "d": 1}})
    names = [
        "AP@3", "AP(norm=min)@3", "AP(norm=hits)@3",
        "AP", "AP(norm=min)", "AP(norm=hits)",
    ]  # fmt: skip
    got = _values(rk.evaluate(run, qrels, names))
    assert got == pytest.approx(
        {
            "AP@3": 5 / 12,
            "AP(norm=min)@3": 5 / 9,
            "AP(norm=hits)@3": 5 / 6,
            "AP": 5 / 12,
            "AP(norm=min)": 5 / 12,
            "AP(norm=hits)": 5 / 6,
        },
        abs=TOL,
    )
    # the presets fill norm: kaggle/spark -> min, torchmetrics -> hits
    assert _values(rk.evaluate(run, qrels, ["AP@3"], conventions="kaggle")) == pytest.approx(
        {"AP@3": 5 / 9}, abs=TOL
    )
    assert _values(rk.evaluate(run, qrels, ["AP@3"], conventions="torchmetrics")) == pytest.approx(
        {"AP@3": 5 / 6}, abs=TOL
    )


def test_ap_norm_min_when_k_exceeds_r() -> None:
    # relevant {a, b} (R = 2); ranking x, a, b; k = 5 > R
    # hits at 2, 3: 1/2 + 2/3 = 7/6; min(R, k) = 2 = R, so norm=min = norm=R = 7/12;
    # norm=hits: 2 hits -> 7/12 too
    run = _run({"q": ["x", "a", "b"]})
    qrels = _qrels({"q": {"a": 1, "b": 1}})
    got = _values(rk.evaluate(run, qrels, ["AP@5", "AP(norm=min)@5", "AP(norm=hits)@5"]))
    assert got == pytest.approx(
        {"AP@5": 7 / 12, "AP(norm=min)@5": 7 / 12, "AP(norm=hits)@5": 7 / 12}, abs=TOL
    )


# --------------------------------------------------------------------------------------
# nDCG: the Järvelin & Kekäläinen graded example (as on Wikipedia's DCG page)
# --------------------------------------------------------------------------------------
# ranked documents d1..d6 with graded relevance 3, 2, 3, 0, 1, 2; the judged set also
# holds two documents that were not retrieved: d7 (3) and d8 (2), and d9 (0).
#
# DCG@6 (linear gain, discount 1/log2(i+1)):
#   3/1 + 2/log2(3) + 3/log2(4) + 0/log2(5) + 1/log2(6) + 2/log2(7)
#   = 3 + 1.26186 + 1.5 + 0 + 0.38685 + 0.71241 = 6.86113
# ideal from all judgments, sorted 3, 3, 3, 2, 2, 2, 1, 0, 0:
#   IDCG@6 = 3 + 3/log2(3) + 3/log2(4) + 2/log2(5) + 2/log2(6) + 2/log2(7)
#          = 3 + 1.89279 + 1.5 + 0.86135 + 0.77371 + 0.71241 = 8.74026
#   nDCG@6 = 6.86113 / 8.74026 = 0.78500
#   IDCG (no cutoff) = 8.74026 + 1/log2(8) = 9.07359; nDCG = 6.86113 / 9.07359 = 0.75617
# ideal from the retrieved rows only (ideal=run), sorted 3, 3, 2, 2, 1, 0:
#   IDCG = 3 + 3/log2(3) + 2/log2(4) + 2/log2(5) + 1/log2(6) = 7.14099
#   nDCG = 6.86113 / 7.14099 = 0.96081 (Wikipedia's 0.961)
# exp gain 2^rel - 1: ranked gains 7, 3, 7, 0, 1, 3
#   DCG@6 = 7 + 3/log2(3) + 7/2 + 0 + 1/log2(6) + 3/log2(7) = 13.84826
#   ideal 7, 7, 7, 3, 3, 3: 7 + 7/log2(3) + 7/2 + 3/log2(5) + 3/log2(6) + 3/log2(7)
#       = 18.43772; nDCG@6 = 13.84826 / 18.43772 = 0.75108
# nDCG@3: DCG@3 = 3 + 1.26186 + 1.5 = 5.76186; IDCG@3 = 3 + 1.89279 + 1.5 = 6.39279
#   nDCG@3 = 0.90131


def _dcg(gains: list[float]) -> float:
    return sum(g / math.log2(i + 1) for i, g in enumerate(gains, 1))


JK_RUN = _run({"q": ["d1", "d2", "d3", "d4", "d5", "d6"]})
JK_QRELS = _qrels(
    {"q": {"d1": 3, "d2": 2, "d3": 3, "d4": 0, "d5": 1, "d6": 2, "d7": 3, "d8": 2, "d9": 0}}
)


def test_ndcg_jarvelin_kekalainen() -> None:
    expected = {
        "nDCG@6": _dcg([3, 2, 3, 0, 1, 2]) / _dcg([3, 3, 3, 2, 2, 2]),
        "ndcg_cut_6": _dcg([3, 2, 3, 0, 1, 2]) / _dcg([3, 3, 3, 2, 2, 2]),
        "nDCG": _dcg([3, 2, 3, 0, 1, 2]) / _dcg([3, 3, 3, 2, 2, 2, 1, 0, 0]),
        "nDCG@3": _dcg([3, 2, 3]) / _dcg([3, 3, 3]),
        "nDCG(ideal=run)": _dcg([3, 2, 3, 0, 1, 2]) / _dcg([3, 3, 2, 2, 1, 0]),
        "nDCG(gain=exp)@6": _dcg([7, 3, 7, 0, 1, 3]) / _dcg([7, 7, 7, 3, 3, 3]),
    }
    # the hand-rounded values from the comment above
    assert [round(v, 4) for v in expected.values()] == [
        0.7850, 0.7850, 0.7562, 0.9013, 0.9608, 0.7511,
    ]  # fmt: skip
    got = _values(rk.evaluate(JK_RUN, JK_QRELS, list(expected), score=None))
    assert got == pytest.approx(expected, abs=TOL)


def test_ndcg_without_qrels_uses_retrieved_labels() -> None:
    # without qrels the ideal comes from the run's own labels: the ideal=run value
    run = JK_RUN.with_columns(relevant=pl.Series([3, 2, 3, 0, 1, 2]))
    got = _values(rk.evaluate(run, None, ["nDCG", "nDCG@6"]))
    value = _dcg([3, 2, 3, 0, 1, 2]) / _dcg([3, 3, 2, 2, 1, 0])
    assert got == pytest.approx({"nDCG": value, "nDCG@6": value}, abs=TOL)


def test_ndcg_gain_ignores_rel_level() -> None:
    # trec_eval's ndcg gains are the raw judgment values at every -l level, so rel=2
    # leaves nDCG unchanged (0.78500 from the example above)
    got = _values(rk.evaluate(JK_RUN, JK_QRELS, ["nDCG@6", "nDCG(rel=2)@6"], score=None))
    value = _dcg([3, 2, 3, 0, 1, 2]) / _dcg([3, 3, 3, 2, 2, 2])
    assert got == pytest.approx({"nDCG@6": value, "nDCG(rel=2)@6": value}, abs=TOL)


# --------------------------------------------------------------------------------------
# RR, P@k, R-precision, recall, success
# --------------------------------------------------------------------------------------


def test_reciprocal_rank() -> None:
    # q1: ranking n1, n2, r, n3, r2 -> first relevant at rank 3: RR = 1/3; RR@2 = 0
    # q2: no relevant item retrieved -> 0
    # MRR = (1/3 + 0) / 2 = 1/6
    run = _run({"q1": ["n1", "n2", "r", "n3", "r2"], "q2": ["n1", "n2"]})
    qrels = _qrels({"q1": {"r": 1, "r2": 1, "n1": 0}, "q2": {"r": 1}})
    per_query = _per_query(rk.evaluate(run, qrels, ["RR", "RR@2", "recip_rank"], per_query=True))
    assert per_query == pytest.approx(
        {
            ("q1", "RR"): 1 / 3, ("q1", "RR@2"): 0.0, ("q1", "recip_rank"): 1 / 3,
            ("q2", "RR"): 0.0, ("q2", "RR@2"): 0.0, ("q2", "recip_rank"): 0.0,
        },
        abs=TOL,
    )  # fmt: skip
    assert _values(rk.evaluate(run, qrels, ["RR"])) == pytest.approx({"RR": 1 / 6}, abs=TOL)


def test_precision_with_fewer_than_k_retrieved() -> None:
    # 3 retrieved (a, x, b), 2 of them relevant
    #   P@10 (trec_eval P_10): 2 / 10 = 0.2  (divides by k even though only 3 retrieved)
    #   P(norm=ret)@10:        2 / 3         (divides by the number retrieved)
    #   P@2: 1 / 2; P(norm=ret)@2: 1 / 2 (2 retrieved within the cutoff)
    #   set_P (no cutoff): 2 / 3
    run = _run({"q": ["a", "x", "b"]})
    qrels = _qrels({"q": {"a": 1, "b": 1, "c": 1}})
    names = ["P@10", "P_10", "P(norm=ret)@10", "P@2", "P(norm=ret)@2", "set_P", "P"]
    got = _values(rk.evaluate(run, qrels, names))
    assert got == pytest.approx(
        {
            "P@10": 0.2, "P_10": 0.2, "P(norm=ret)@10": 2 / 3, "P@2": 0.5,
            "P(norm=ret)@2": 0.5, "set_P": 2 / 3, "P": 2 / 3,
        },
        abs=TOL,
    )  # fmt: skip


def test_r_precision() -> None:
    # R = 4 relevant (a, b, c, d; d never retrieved); ranking a, x, b, y, c
    # top R = 4: a, x, b, y -> 2 relevant -> Rprec = 2/4 = 0.5
    # (rel=2 with grades a:2, b:1, c:2, d:1 -> R = 2 (a, c); top 2 = a, x -> 1/2)
    run = _run({"q": ["a", "x", "b", "y", "c"]})
    qrels = _qrels({"q": {"a": 2, "b": 1, "c": 2, "d": 1, "x": 0}})
    got = _values(rk.evaluate(run, qrels, ["Rprec", "Rprec(rel=2)"]))
    assert got == pytest.approx({"Rprec": 0.5, "Rprec(rel=2)": 0.5}, abs=TOL)
    # x and y swapped out: ranking a, b, c, x -> top 4 holds 3 of 4 relevant -> 0.75
    run2 = _run({"q": ["a", "b", "c", "x"]})
    assert _values(rk.evaluate(run2, qrels, ["Rprec"])) == pytest.approx({"Rprec": 0.75}, abs=TOL)


def test_recall_norms_and_success() -> None:
    # relevant {a, b, c, d} (R = 4); ranking a, x, b, y, z
    #   R@3 = 2/4 = 0.5; R(norm=min)@3 = 2 / min(4, 3) = 2/3; R@5 = 2/4
    #   Success@1 = 1 (a at rank 1); Success@1 on ranking x, a: 0; Success@2: 1
    run = _run({"q": ["a", "x", "b", "y", "z"], "q2": ["x", "a"]})
    qrels = _qrels({"q": {"a": 1, "b": 1, "c": 1, "d": 1}, "q2": {"a": 1}})
    got = _per_query(
        rk.evaluate(run, qrels, ["R@3", "R(norm=min)@3", "R@5", "Success@1", "Success@2"],
                    per_query=True)
    )  # fmt: skip
    assert got[("q", "R@3")] == pytest.approx(0.5, abs=TOL)
    assert got[("q", "R(norm=min)@3")] == pytest.approx(2 / 3, abs=TOL)
    assert got[("q", "R@5")] == pytest.approx(0.5, abs=TOL)
    assert (got[("q", "Success@1")], got[("q2", "Success@1")], got[("q2", "Success@2")]) == (
        1.0, 0.0, 1.0,
    )  # fmt: skip


# --------------------------------------------------------------------------------------
# bpref
# --------------------------------------------------------------------------------------
# ranx's bpref test case (tests/unit/ranx/metrics/bpref_test.py), trec_eval's formula
#   bpref = (1/R) * sum over retrieved relevant r of (1 - min(n_r, R) / min(R, N))
#   n_r = judged non-relevant ranked above r; unjudged retrieved items are skipped
# q1: rel d2, d5; nonrel d1, d4 (R = 2, N = 2); run d1 d2 d3 d4
#     d2: n = 1 (d1) -> 1 - 1/2; d5 not retrieved -> (1/2) / 2 = 0.25
# q2: rel d2, d5; nonrel d1, d6; run d1..d6
#     d2: n = 1 -> 1/2; d5: n = 1 (d3, d4 unjudged) -> 1/2 -> (1/2 + 1/2) / 2 = 0.5
# q3: rel d2, d5, d7; nonrel d1, d6, d8 (R = N = 3); run d1..d8
#     d2: 1 - 1/3; d5: 1 - 1/3; d7: n = 2 (d1, d6) -> 1 - 2/3 -> (5/3) / 3 = 5/9
# q4: rel d2, d4, d6, d9; nonrel d1, d3, d7, d8 (R = N = 4); run d1 d2 d3 d4 d6 d7 d8
#     d2: 1 - 1/4; d4: 1 - 2/4; d6: 1 - 2/4; d9 not retrieved -> (7/4) / 4 = 7/16


def test_bpref_ranx_case() -> None:
    qrels = _qrels(
        {
            "q1": {"d2": 1, "d5": 1, "d1": 0, "d4": 0},
            "q2": {"d2": 1, "d5": 1, "d1": 0, "d6": 0},
            "q3": {"d2": 1, "d5": 1, "d7": 1, "d1": 0, "d6": 0, "d8": 0},
            "q4": {"d2": 1, "d4": 1, "d6": 1, "d9": 1, "d1": 0, "d3": 0, "d7": 0, "d8": 0},
        }
    )
    run = _run(
        {
            "q1": ["d1", "d2", "d3", "d4"],
            "q2": ["d1", "d2", "d3", "d4", "d5", "d6"],
            "q3": ["d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8"],
            "q4": ["d1", "d2", "d3", "d4", "d6", "d7", "d8"],
        }
    )
    got = _per_query(rk.evaluate(run, qrels, ["bpref"], per_query=True))
    expected = {"q1": 0.25, "q2": 0.5, "q3": 5 / 9, "q4": 7 / 16}
    assert got == pytest.approx({(q, "bpref"): v for q, v in expected.items()}, abs=TOL)
    # mean: (0.25 + 0.5 + 5/9 + 7/16) / 4
    mean = (0.25 + 0.5 + 5 / 9 + 7 / 16) / 4
    assert _values(rk.evaluate(run, qrels, ["Bpref"])) == pytest.approx({"Bpref": mean}, abs=TOL)


def test_bpref_negative_judgments_and_levels() -> None:
    # qrels a:2, e:3, b:1, c:0, d:-1; run a, d, b, e, c
    # rel=1: R = 3 (a, e, b), judged non-relevant N = 1 (c); d (-1) is unjudged
    #   a: n = 0 -> 1; b: n = 0 (d skipped) -> 1; e: n = 0 -> 1; bpref = 3/3 = 1
    # rel=2 (trec_eval -l2, m_bpref.c: levels 0..1 are judged non-relevant):
    #   R = 2 (a, e), N = 2 (b, c)
    #   a: n = 0 -> 1; e: n = 1 (b) -> 1 - min(1, 2)/min(2, 2) = 1/2; bpref = 1.5/2 = 0.75
    run = _run({"q": ["a", "d", "b", "e", "c"]})
    qrels = _qrels({"q": {"a": 2, "e": 3, "b": 1, "c": 0, "d": -1}})
    got = _values(rk.evaluate(run, qrels, ["bpref", "Bpref(rel=2)"]))
    assert got == pytest.approx({"bpref": 1.0, "Bpref(rel=2)": 0.75}, abs=TOL)
    assert _values(rk.evaluate(run, qrels, ["bpref"], rel=2)) == pytest.approx(
        {"bpref": 0.75}, abs=TOL
    )


# --------------------------------------------------------------------------------------
# Counts and queries without relevant items
# --------------------------------------------------------------------------------------


def test_counts_are_sums_and_empty_queries_score_zero() -> None:
    # q1: retrieved a, x, b; relevant a, b, c -> num_ret 3, num_rel 3, num_rel_ret 2
    # q2: retrieved x; judged x:0, y:-1 (no relevant) -> 1, 0, 0; AP = 0 (R = 0)
    # sums: num_ret 4, num_rel 3, num_rel_ret 2; MAP = ((1/1 + 2/3)/3 + 0) / 2 = 5/18
    run = _run({"q1": ["a", "x", "b"], "q2": ["x"]})
    qrels = _qrels({"q1": {"a": 1, "b": 1, "c": 1}, "q2": {"x": 0, "y": -1}})
    got = _values(rk.evaluate(run, qrels, ["num_ret", "num_rel", "num_rel_ret", "map"]))
    assert got == pytest.approx(
        {"num_ret": 4, "num_rel": 3, "num_rel_ret": 2, "map": 5 / 18}, abs=TOL
    )


def test_query_with_only_negative_judgments() -> None:
    # q judged only -1 ("in the pool, unjudged"): R = 0, nothing relevant retrieved.
    # trec_eval has no defined answer here (form_res_rels.c sizes its per-level counts by
    # the query's max level + 1 = 0; pytrec_eval 0.5.11 reports num_ret = 0 or crashes).
    # Ours, by the contract (negative = not relevant, R = 0 scores 0): num_ret counts
    # the 2 retrieved rows, num_rel 0, every ratio measure 0.
    run = _run({"q": ["a", "b"]})
    qrels = _qrels({"q": {"a": -1, "c": -1}})
    got = _values(rk.evaluate(run, qrels, ["num_ret", "num_rel", "map", "ndcg", "bpref", "P_1"]))
    assert got == {
        "num_ret": 2.0,
        "num_rel": 0.0,
        "map": 0.0,
        "ndcg": 0.0,
        "bpref": 0.0,
        "P_1": 0.0,
    }
