"""Tests written for the measures target's survivors of ``tests/mutation/run.py`` (session
17's run of every measure module, see its RESULTS.md).  Expected values are hand
computations (the arithmetic in a comment), never the code under test's output.
"""

from __future__ import annotations

import itertools
import math

import polars as pl
import pytest

from polars_rankeval import evaluate
from polars_rankeval._errors import MeasureError


def test_precision_norm_ret_under_average_ties_with_fewer_retrieved_than_k():
    # two retrieved items tie; one of them is relevant.  Either order: 1 relevant in the top 5.
    # P@5 divides by k = 5 -> 0.2; P(norm=ret)@5 by the 2 retrieved -> 0.5 (ties="average"
    # too: the order of a tie group does not change which rows lie within the cutoff)
    run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    for ties in ("trec_eval", "average"):
        got = evaluate(run, qrels, ["P@5", "P(norm=ret)@5"], ties=ties)
        assert got["value"].to_list() == pytest.approx([0.2, 0.5], abs=1e-12), ties


def test_bpref_without_judged_non_relevant_items():
    # qrels judge a and c relevant, nothing non-relevant (N = 0); the run retrieves a and
    # the unjudged b.  trec_eval's bpref adds 1 for a relevant item with no judged
    # non-relevant item above it (it never divides by min(N, R) then): 1 / R = 1 / 2
    run = pl.DataFrame({"query": ["q", "q"], "item": ["b", "a"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "c"], "relevance": [1, 1]})
    assert evaluate(run, qrels, ["Bpref"])["value"].to_list() == [0.5]


def test_bpref_skips_unjudged_items_above_a_relevant_one():
    # b (unjudged) ranks above a (relevant); x is judged non-relevant, not retrieved:
    # R = 1, N = 1.  Unjudged items are skipped: no judged non-relevant item above a ->
    # 1 - 0 / min(1, 1) = 1 (counting b as non-relevant would give 1 - 1 / 1 = 0).  No
    # duplicates here, so duplicates="first" is the same; it keeps the unjudged rows (the
    # default drops them before the measures, see Judged.judged_only)
    run = pl.DataFrame({"query": ["q", "q"], "item": ["b", "a"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "x"], "relevance": [1, 0]})
    for duplicates in ("error", "first"):
        got = evaluate(run, qrels, ["Bpref"], duplicates=duplicates)
        assert got["value"].to_list() == [1.0], duplicates


def test_bpref_takes_no_cutoff():
    # trec_eval's bpref has no cutoff (README's measure table: no @k); Bpref@5 is refused
    run = pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    with pytest.raises(MeasureError, match="Bpref takes no @k cutoff"):
        evaluate(run, qrels, ["Bpref@5"])


# ------------------------------------------- ties="average": mean over every ordering
# A run with a singleton above, a tie group of three in the middle (two relevant) and a
# singleton below; f is relevant and not retrieved.  The expected value is the plain
# mean of the measure over the 3! orderings of the group, computed here by enumeration.
_TIED_RUN = {"a": 3.0, "b": 2.0, "c": 2.0, "d": 2.0, "e": 1.0}
_GRADES = {"a": 1, "b": 2, "c": 1, "d": 0, "e": 2, "f": 1}


def _orderings() -> list[list[str]]:
    return [["a", *group, "e"] for group in itertools.permutations(["b", "c", "d"])]


def _ap(ranking: list[str], k: int | None, norm: str) -> float:
    relevant = {i for i, g in _GRADES.items() if g >= 1}
    hits, total = 0, 0.0
    for position, item in enumerate(ranking[:k] if k else ranking, 1):
        if item in relevant:
            hits += 1
            total += hits / position
    denominator = len(relevant) if norm == "R" or k is None else min(len(relevant), k)
    return total / denominator


def _ndcg(ranking: list[str], k: int | None, gain: str, ideal_of: list[str]) -> float:
    def value(grade: int) -> float:
        return 2.0**grade - 1.0 if gain == "exp" else float(grade)

    def dcg(grades: list[int]) -> float:
        return sum(
            value(g) / math.log2(p + 1) for p, g in enumerate(grades[:k] if k else grades, 1)
        )

    ideal = sorted((_GRADES.get(i, 0) for i in ideal_of), reverse=True)
    return dcg([_GRADES.get(i, 0) for i in ranking]) / dcg(ideal)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _tied_frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame(
        {"query": ["q"] * 5, "item": list(_TIED_RUN), "score": list(_TIED_RUN.values())}
    )
    qrels = pl.DataFrame(
        {"query": ["q"] * 6, "item": list(_GRADES), "relevance": list(_GRADES.values())}
    )
    return run, qrels


def test_ap_under_average_ties_is_the_mean_over_the_orderings():
    run, qrels = _tied_frames()
    cases = {
        "AP": _mean([_ap(o, None, "R") for o in _orderings()]),
        "AP@3": _mean([_ap(o, 3, "R") for o in _orderings()]),
        "AP(norm=min)@3": _mean([_ap(o, 3, "min") for o in _orderings()]),
        "AP(norm=min)": _mean([_ap(o, None, "min") for o in _orderings()]),
        "AP(rel=2)": None,  # below, by hand
    }
    # AP(rel=2): b and e are relevant (R = 2); b is at 2, 3 or 4 with equal chance and
    # e at 5 below it: E[1/p_b] + 2/5 = (1/2 + 1/3 + 1/4) / 3 + 2/5, over R = 2
    cases["AP(rel=2)"] = ((1 / 2 + 1 / 3 + 1 / 4) / 3 + 2 / 5) / 2
    # norm=hits without a cutoff: the 4 relevant retrieved items (a, b, c, e), not R = 5
    cases["AP(norm=hits)"] = cases["AP"] * 5 / 4
    got = evaluate(run, qrels, list(cases), ties="average")
    assert dict(got.iter_rows()) == pytest.approx(cases, abs=1e-12)
    # with a cutoff, norm=hits' denominator depends on the order across position k
    with pytest.raises(MeasureError, match="norm=hits denominator"):
        evaluate(run, qrels, ["AP(norm=hits)@3"], ties="average")


def test_ndcg_under_average_ties_is_the_mean_over_the_orderings():
    run, qrels = _tied_frames()
    judged = list(_GRADES)
    retrieved = list(_TIED_RUN)
    cases = {
        "nDCG": _mean([_ndcg(o, None, "linear", judged) for o in _orderings()]),
        "nDCG@3": _mean([_ndcg(o, 3, "linear", judged) for o in _orderings()]),
        "nDCG(gain=exp)@3": _mean([_ndcg(o, 3, "exp", judged) for o in _orderings()]),
        # the ideal ranking of the retrieved items only (f is not retrieved)
        "nDCG(ideal=run)@3": _mean([_ndcg(o, 3, "linear", retrieved) for o in _orderings()]),
    }
    got = evaluate(run, qrels, list(cases), ties="average")
    assert dict(got.iter_rows()) == pytest.approx(cases, abs=1e-12)


def test_err_by_hand_with_unjudged_negative_and_too_high_grades():
    # gdeval's ERR: R(g) = (2^g - 1) / 2^4, grades clipped to 0..4, unjudged and negative 0.
    # Run: u (unjudged) 1, a (grade 3) 2, n (grade -1) 3, b (grade 6 -> 4) 4.
    # ERR@3 = R(3) / 2 = 7/32; ERR@4 = 7/32 + R(4) / 4 * (1 - R(3)) = 7/32 + 15/64 * 9/16
    # = 359/1024 (u and n stop nobody).  duplicates="first" keeps the unjudged row u.
    run = pl.DataFrame(
        {"query": ["q"] * 4, "item": ["u", "a", "n", "b"], "score": [4.0, 3.0, 2.0, 1.0]}
    )
    qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "n", "b"], "relevance": [3, -1, 6]})
    for duplicates in ("error", "first"):
        got = evaluate(run, qrels, ["ERR@1", "ERR@3", "ERR@4", "ERR"], duplicates=duplicates)
        expected = [0.0, 7 / 32, 359 / 1024, 359 / 1024]
        assert got["value"].to_list() == pytest.approx(expected, abs=1e-15), duplicates


def test_infap_by_hand_with_unjudged_pooled_and_judged_rows():
    # trec_eval's m_infap.c: at a relevant row at position p > 1 (j = p - 1 rows above)
    # 1/p + j/p * (pooled above / j) * (relevant above + e) / (judged above + 2e), e = 1e-5;
    # p = 1 gives 1; summed over R.  pooled = in the qrels (a -1 judgment: pooled, not
    # judged); u is not in the qrels at all.  Run: u p a b n c; qrels p -1, a b c d 1,
    # n 0 (d not retrieved): R = 4.
    # a at 3: rel 0, judged 0, pooled 1 (p): 1/3 + 2/3 * 1/2 * e / 2e = 1/2
    # b at 4: rel 1, judged 1, pooled 2 (p a): 1/4 + 3/4 * 2/3 * (1 + e) / (1 + 2e)
    # c at 6: rel 2, judged 3, pooled 4 (p a b n): 1/6 + 5/6 * 4/5 * (2 + e) / (3 + 2e)
    e = 1e-5
    a = 1 / 2
    b = 1 / 4 + 1 / 2 * (1 + e) / (1 + 2 * e)
    c = 1 / 6 + 2 / 3 * (2 + e) / (3 + 2 * e)
    items = ["u", "p", "a", "b", "n", "c"]
    run = pl.DataFrame({"query": ["q"] * 6, "item": items, "score": [6.0, 5, 4, 3, 2, 1]})
    qrels = pl.DataFrame(
        {"query": ["q"] * 6, "item": ["p", "a", "b", "n", "c", "d"],
         "relevance": [-1, 1, 1, 0, 1, 1]}
    )  # fmt: skip
    for duplicates in ("error", "first"):  # "first" keeps the unjudged row u
        got = evaluate(run, qrels, ["infAP"], duplicates=duplicates)
        assert got["value"].to_list() == pytest.approx([(a + b + c) / 4], abs=1e-15)
    with pytest.raises(MeasureError, match="infAP takes no @k cutoff"):
        evaluate(run, qrels, ["infAP@5"])


# ------------------------------------------------ session 18: the small trec_eval modules


def _judged_frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    # run a b c d e (in that order); qrels a 1, c 0, d -1 (pooled, not judged), e 0;
    # b is not in the qrels at all
    run = pl.DataFrame(
        {"query": ["q"] * 5, "item": ["a", "b", "c", "d", "e"], "score": [5.0, 4, 3, 2, 1]}
    )
    qrels = pl.DataFrame(
        {"query": ["q"] * 4, "item": ["a", "c", "d", "e"], "relevance": [1, 0, -1, 0]}
    )
    return run, qrels


def test_judged_counts_with_the_unjudged_rows_kept():
    # Top 3 = a b c: judged (>= 0) a and c.  Judged@3 = 2 / 3; Unjudged@3 = (3 - 2) / 3
    # (b is unjudged); Unjudged@5 = (5 - 3) / 5 (b and d, the -1, are unjudged);
    # NumNonRelJudgedRet = judged with 0 <= relevance < 1: c and e = 2.  With
    # duplicates="first" the unjudged row b reaches the measures (Judged.judged_only is
    # off), where counting it as judged gives 1, 0, 1/5 and 3
    run, qrels = _judged_frames()
    names = ["Judged@3", "Unjudged@3", "Unjudged@5", "NumNonRelJudgedRet"]
    for duplicates in ("error", "first"):
        got = evaluate(run, qrels, names, duplicates=duplicates)
        assert got["value"].to_list() == pytest.approx([2 / 3, 1 / 3, 2 / 5, 2.0], abs=1e-15)


def test_num_nonrel_judged_ret_is_declared_unbounded():
    # Family.bounded=True would promise per-query values in [0, 1] (the property tests
    # check only the families that promise it): here the count is 2 (c and e, above)
    from polars_rankeval._registry import REGISTRY

    run, qrels = _judged_frames()
    got = evaluate(run, qrels, ["NumNonRelJudgedRet"], per_query=True)
    assert got["value"].to_list() == [2.0]
    assert not REGISTRY["NumNonRelJudgedRet"].bounded


@pytest.mark.parametrize("beta", [0, -0.5])
def test_f1_beta_must_be_positive(beta):
    # F1's beta is an open lower bound at 0 (the README: beta weighs R against P; trec_eval's
    # set_F divides by beta P + R): beta=0 and below are refused, naming the parameter
    run, qrels = _judged_frames()
    with pytest.raises(MeasureError, match="beta must be > 0"):
        evaluate(run, qrels, [f"F1(beta={beta})"])


def test_utility_of_a_query_missing_from_the_run_is_0_whatever_the_weights():
    # complete=True: q2 is only in the qrels.  trec_eval.c evaluates it on a bogus ranking
    # of one unjudged document and then cleans the value named "utility" up to 0 (its
    # string match misses the parameterised names: trec_eval 10.0 -c -m
    # utility.1,-1,-1,0 prints -3 there); the README: a query the run misses scores 0,
    # for every weight.  q1: a (relevant) and c (not in the qrels) retrieved, R = 1:
    # Utility(c=-1) = 1 * 1 - 1 * 1 - 1 * 0 = 0; q2 = 0; Utility(c=-1,d=1,docs=10) on q1 =
    # 0 + 1 * (10 + 1 - 2 - 1) = 8, q2 = 0
    run = pl.DataFrame({"query": ["q1", "q1"], "item": ["a", "c"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame(
        {"query": ["q1", "q1", "q2", "q2", "q2"], "item": ["a", "b", "x", "y", "w"],
         "relevance": [1, 0, 1, 1, 0]}
    )  # fmt: skip
    names = ["Utility(c=-1)", "Utility(c=-1,d=1,docs=10)"]
    got = evaluate(run, qrels, names, per_query=True, complete=True)
    values = {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}
    assert values == {
        ("q1", names[0]): 0.0,
        ("q2", names[0]): 0.0,
        ("q1", names[1]): 8.0,
        ("q2", names[1]): 0.0,
    }


def test_utility_collection_size_must_not_be_negative():
    # docs is trec_eval's -N, a number of documents: 0 (the default) or more.  One
    # relevant item retrieved: 1 * 1 - 1 * 0 + 0 * 0 + d * (docs + 1 - 1 - 1), so
    # Utility(d=1,docs=0) = 1 - 1 = 0 and Utility(d=1,docs=3) = 1 + 2 = 3
    run = pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    names = ["Utility(d=1,docs=0)", "Utility(d=1,docs=3)"]
    assert evaluate(run, qrels, names)["value"].to_list() == [0.0, 3.0]
    with pytest.raises(MeasureError, match="docs must be >= 0"):
        evaluate(run, qrels, ["Utility(d=1,docs=-0.5)"])


def test_utility_is_declared_unbounded():
    # a (relevant) and b, c (not relevant) retrieved, R = 1: Utility = 1 * 1 - 1 * 2 = -1
    # and Utility(a=4) = 4 * 1 - 1 * 2 = 2: outside [0, 1] both ways, so the family must
    # not promise values in [0, 1] (Family.bounded, the property tests' list)
    from polars_rankeval._registry import REGISTRY

    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2, 1]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    got = evaluate(run, qrels, ["Utility", "Utility(a=4)"], per_query=True)
    assert got["value"].to_list() == [-1.0, 2.0]
    assert not REGISTRY["Utility"].bounded


def test_yaap_of_a_query_whose_judged_rows_found_nothing_relevant():
    # a (judged 0) is retrieved, z (relevant) is not: R = 1, S = 0 (no relevant item
    # retrieved), YAAP = log((1 + 0) / (1 + 1 - 0)) = log(1/2); YAAP@1 the same.  The
    # query has a judged row, so it is aggregated (not the `missing` path)
    run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "z"], "relevance": [0, 1]})
    got = evaluate(run, qrels, ["YAAP", "YAAP@1"])["value"].to_list()
    assert got == pytest.approx([math.log(0.5)] * 2, abs=1e-15)


def test_yaap_is_declared_unbounded():
    # YAAP is a log-odds: the test above gives log(1/2) < 0; here a, the one relevant
    # item, is found first (S = 1, R = 1): log((1 + 1) / (1 + 1 - 1)) = log 2.  Values
    # below 0 leave [0, 1], so the family must not promise it (Family.bounded, the
    # property tests' list)
    from polars_rankeval._registry import REGISTRY

    run = pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "relevance": [1, 0]})
    assert evaluate(run, qrels, ["YAAP"])["value"].to_list() == pytest.approx([math.log(2)])
    assert not REGISTRY["YAAP"].bounded


@pytest.mark.parametrize("unmatched", [0, None])
def test_interp_ap_skips_unmatched_detections(unmatched):
    # detections d1 (matched), d2 (not matched: judged 0, or not in the qrels), d3
    # (matched); one object missed: R = 3.  Precision at the matched ones: 1/1 and 2/3,
    # envelope 1 and 2/3: InterpAP = (1 + 2/3) / 3 = 5/9; InterpAP@2 sees d1 only: 1/3
    run = pl.DataFrame({"query": ["cat"] * 3, "item": ["d1", "d2", "d3"], "score": [0.9, 0.8, 0.7]})
    items = ["d1", "d3", "missed"] + (["d2"] if unmatched is not None else [])
    qrels = pl.DataFrame(
        {"query": ["cat"] * len(items), "item": items, "relevance": [1, 1, 1, 0][: len(items)]}
    )
    got = evaluate(run, qrels, ["InterpAP", "InterpAP@2"])["value"].to_list()
    assert got == pytest.approx([5 / 9, 1 / 3], abs=1e-15)


def test_compat_with_four_gain_levels_and_a_deep_relevant_item():
    # 700 retrieved items: a (gain 1) at rank 1, b (2) at 2, c (3) at 3, z (4) at 700, the
    # rest unjudged; judged but not retrieved: ten items of gain 4 and v of gain 2.  The
    # ideal order of the found items by (gain descending, rank) decides each one's ideal
    # position (b: 13, a: 15 here), also when the ranking is long: checked against
    # ir_measures' compat provider (Clarke et al. 2021, its own code) on the same rows
    ir_measures = pytest.importorskip("ir_measures")
    items = ["a", "b", "c", *(f"f{i:03d}" for i in range(696)), "z"]
    scores = [700.0 - i for i in range(700)]
    run = pl.DataFrame({"query": ["q"] * 700, "item": items, "score": scores})
    grades = {"a": 1, "b": 2, "c": 3, "z": 4, "v": 2, **{f"u{i}": 4 for i in range(10)}}
    qrels = pl.DataFrame(
        {"query": ["q"] * len(grades), "item": list(grades), "relevance": list(grades.values())}
    )
    names = ["Compat", "Compat(p=0.99)", "Compat(normalize=false)"]
    got = evaluate(run, qrels, names)["value"].to_list()
    scored = {"q": dict(zip(items, scores, strict=True))}
    expected = [
        next(iter(ir_measures.compat.iter_calc(
            [ir_measures.parse_measure(n.replace("false", "False"))], {"q": grades}, scored
        ))).value
        for n in names
    ]  # fmt: skip
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)
