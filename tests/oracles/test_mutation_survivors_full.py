"""Tests written for mutants of ``measures/`` that survived the full mutation run of
``tests/mutation/run.py`` (session 12; see its RESULTS.md).  Expected values are
independent: trec_eval's C loops redone in plain Python, or hand computations (the
arithmetic in a comment)."""

from __future__ import annotations

import math

import polars as pl
import pytest

from polars_rankeval import evaluate
from polars_rankeval.measures.rbp import POWERS_MAX, powers, weight


@pytest.mark.parametrize("p", [0.9, 0.99, 0.5])
def test_rbp_powers_equal_trec_evals_loop_across_chunks(p):
    # trec_eval m_rbp.c: cur_p = 1.0 at position 1, then cur_p = cur_p * p once per
    # position, one rounding per multiplication.  The loop runs to the fixed point (the
    # first value that times p rounds back to itself: 0 or a subnormal); the table is
    # built 4096 products at a time, so p = 0.9 (~7,000 positions) and 0.99 (~70,000)
    # cross several chunk boundaries.
    expected, cur = [], 1.0
    while True:
        expected.append(cur)
        if cur * p == cur:
            break
        cur *= p
    table = powers(p).to_list()
    assert len(table) == len(expected)
    assert table == expected


def test_rbp_weight_beyond_the_powers_table():
    # p = 0.99999: p^(2^20) = exp(2^20 * ln 0.99999) ~ 2.8e-5 is no fixed point, so the
    # table stops at POWERS_MAX = 2^20 values (and a bit) and deeper positions use
    # table[-1] * p^(index - (2^20 - 1)) (pow(), within ~1e-16 relative per the module).
    # Expected: trec_eval's cur_p after `index` multiplications, by its loop.
    p = 0.99999
    table = powers(p)
    size = len(table)  # 1 + 256 chunks of 4096: the first chunk past POWERS_MAX values
    assert size >= POWERS_MAX and table[-1] * p != table[-1]
    # size - 1 is the table's last value, size the first position past it
    for index in (5, size - 1, size, size + 5, size + 100_000):
        cur = 1.0
        for _ in range(index):
            cur *= p
        got = pl.select(weight(p, pl.lit(index, dtype=pl.Int64))).item()
        assert got == pytest.approx(cur, rel=1e-9), index


def test_rbp_weight_when_the_fixed_point_is_the_tables_last_value():
    # p = 0.9992966661453246 (found by bisection on trec_eval's loop): cur_p reaches its
    # fixed point, a subnormal near 3.5e-321, exactly at the table's last value (index
    # 2^20), where the chunk-end test (last two values equal) cannot see it; every
    # deeper position keeps that value in trec_eval's loop, not table[-1] * p^k.
    # Expected: the loop itself (one rounding per multiplication).
    p = 0.9992966661453246
    table = powers(p)
    size = len(table)
    assert size >= POWERS_MAX and table[-2] != table[-1] and table[-1] * p == table[-1]
    cur, loop = 1.0, {}
    for index in range(size + 3000):
        if index in (size - 2, size - 1, size, size + 2999):
            loop[index] = cur
        cur *= p
    assert loop[size - 2] != loop[size - 1] == loop[size + 2999]  # the case is there
    for index, expected in loop.items():
        got = pl.select(weight(p, pl.lit(index, dtype=pl.Int64))).item()
        assert got == expected, index


def test_rbp_of_an_empty_ranking_is_0():
    # m_rbp.c: sum = 0, then sum += gain * cur_p over no position: (1 - p) * 0 = 0, as
    # every measure of a group with no rows (rx.measure over an empty frame)
    import polars_rankeval.expr as rx

    empty = pl.DataFrame(schema={"rank": pl.Int64, "relevant": pl.Int64})
    got = empty.select(rx.measure("RBP"), rx.measure("RBP(p=0.5)"), rx.measure("P@2"))
    assert got.row(0) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("interp", ["voc11", "coco101"])
def test_interp_ap_of_a_query_without_relevant_items_is_0(interp):
    # q's retrieved items are judged, none relevant (R = 0): no recall level is reached,
    # the value is 0 as for AP (trec_eval's convention); r: its one relevant item at
    # rank 1, precision 1 at every recall level -> 1
    run = pl.DataFrame(
        {"query": ["q", "q", "r"], "item": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]}
    )
    qrels = pl.DataFrame(
        {"query": ["q", "q", "r"], "item": ["a", "b", "c"], "relevance": [0, 0, 1]}
    )
    got = evaluate(run, qrels, [f"InterpAP(interp={interp})"], per_query=True)
    assert dict(got.select("query", "value").iter_rows()) == {"q": 0.0, "r": 1.0}


def test_rndcg_implied_end_at_exactly_npos_plus_2_retrieved():
    # trec_eval 10.0 m_Rndcg.c, traced by hand.  One relevant item a (gain 1, Npos = 1).
    # Run x a y (n = 3 = Npos + 2): i = 0: ideal_dcg = 1 / log2(2) = 1; i = 1: the
    # ideal gain drops (end b = 1), sum += DCG(1) / IDCG(1) = 0 / 1, then DCG += 1 /
    # log2(3); the loop leaves at i = 2 < num_ret, so the implied end at n adds
    # DCG(3) / IDCG(1) = 0.6309298: (0 + 0.6309298) / 2 = 0.3154649.
    # Run x a (n = 2 = Npos + 1): the loop leaves at i = 2 = num_ret: no implied end,
    # 0 / 1 = 0.
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    three = pl.DataFrame({"query": ["q"] * 3, "item": ["x", "a", "y"], "score": [3.0, 2.0, 1.0]})
    two = three.head(2)
    got3 = evaluate(three, qrels, ["RnDCG"])["value"].item()
    got2 = evaluate(two, qrels, ["RnDCG"])["value"].item()
    assert got3 == pytest.approx((1 / math.log2(3)) / 2, abs=1e-12)
    assert got2 == 0.0


def test_families_with_values_above_1_are_declared_unbounded():
    # Family.bounded=True promises per-query values in [0, 1] (the property tests check
    # only the families that promise it).  3 retrieved (a b c); judged a:2 c:1 d:0 e:3:
    # NumRet = 3, NumRel = #{a, c, e} = 3, NumRelRet = #{a, c} = 2, all above 1.
    from polars_rankeval._registry import REGISTRY

    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame(
        {"query": ["q"] * 4, "item": ["a", "c", "d", "e"], "relevance": [2, 1, 0, 3]}
    )
    got = evaluate(run, qrels, sorted(REGISTRY), per_query=True)
    values = dict(got.select("measure", "value").iter_rows())
    assert {k: values[k] for k in ("NumRet", "NumRel", "NumRelRet")} == {
        "NumRet": 3.0,
        "NumRel": 3.0,
        "NumRelRet": 2.0,
    }
    above = {name for name, value in values.items() if value > 1.0}
    assert above == {"NumRet", "NumRel", "NumRelRet"}
    assert not any(REGISTRY[name].bounded for name in above)


@pytest.mark.parametrize("name", ["Compat", "Compat(p=0.5)", "Compat(normalize=false)"])
def test_compat_lower_gain_retrieved_first_equals_ir_measures(name):
    # b (gain 1) at position 1, a (gain 2) at position 2: in the ideal ranking a comes
    # first.  The ideal order sorts by (gain level, position); with the last position
    # (2) of one level and the first (1) of the next, a too small level stride would tie
    # them and put b first.  Oracle: ir_measures' own Compat provider.
    import ir_measures

    measure = ir_measures.parse_measure(name.replace("false", "False"))
    qrels, scores = {"q": {"a": 2, "b": 1}}, {"q": {"b": 2.0, "a": 1.0}}
    [expected] = [x.value for x in ir_measures.compat.iter_calc([measure], qrels, scores)]
    run = pl.DataFrame({"query": ["q", "q"], "item": ["b", "a"], "score": [2.0, 1.0]})
    judged = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "relevance": [2, 1]})
    got = evaluate(run, judged, [name])["value"].item()
    assert got == pytest.approx(expected, abs=1e-12)
    assert got < 1.0  # the run is not the ideal ranking


def test_bpref_without_judged_non_relevant_items():
    # trec_eval m_bpref.c: a relevant retrieved item adds 1 when no judged non-relevant
    # item is above it (else 1 - min(nonrel above, R) / min(num_nonrel, R)).  Judged
    # a:1 b:1 only (num_nonrel = 0, R = 2); run a x: a adds 1, b is not retrieved:
    # bpref = 1 / 2.  (The penalty's 0 / min(0, 2) is never taken.)
    run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "x"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "relevance": [1, 1]})
    assert evaluate(run, qrels, ["Bpref"])["value"].item() == 0.5


def test_rbp_graded_gain_of_a_fractional_negative_judgment_is_0():
    # trec_eval m_rbp.c: a negative judgment gains 0 (pooled, not judged), whatever its
    # value.  Judged a:-0.5 b:2 (top level 2: gains 0 and 2 / 2 = 1); run a b, p = 0.5:
    # RBP = (1 - p) * (0 * 1 + 1 * p) = 0.5 * 0.5 = 0.25.
    run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "relevance": [-0.5, 2.0]})
    got = evaluate(run, qrels, ["RBP(p=0.5,gain=graded)"])["value"].item()
    assert got == pytest.approx(0.25, abs=1e-15)


def test_rbp_powers_table_is_capped_near_a_million_values():
    # rbp.py's promise (its comment at POWERS_MAX): the table of powers stops after about
    # a million values (2^20 float64s, 8 MiB per p); deeper positions fall back to pow().
    # p = 0.99999 has no fixed point within 2^21 multiplications (p^(2^21) ~ 7.8e-10), so
    # only the cap stops it: at most 2^20 values plus the one chunk (4096) that crosses it.
    p = 0.99999
    assert p ** (1 << 21) > 1e-10  # no fixed point stops it first
    assert (1 << 20) <= len(powers(p)) <= (1 << 20) + 4096


@pytest.mark.parametrize("x", [1e-3, 0.5, 0.6, 1.0, 2.0, 5.0, 7.3, 1002.0])
def test_cwl_trigamma_equals_scipys_polygamma(x):
    # INST's normaliser sums 1 / (i - 1 + c)^2 over ranges of positions as differences of
    # the trigamma function psi'(x): ten terms, then the asymptotic series at z = x + 10,
    # whose first omitted term, 691 / (2730 z^13), is below 3e-14 (z >= 10).  Oracle:
    # scipy.special.polygamma(1, x) (Cephes' zeta(2, x)), to 5e-14 (or 2e-15 relative).
    from scipy.special import polygamma

    from polars_rankeval.measures.cwl import _trigamma

    got = pl.select(_trigamma(pl.lit(x, dtype=pl.Float64))).item()
    assert got == pytest.approx(float(polygamma(1, x)), rel=2e-15, abs=5e-14)


def test_ap_under_average_ties_of_a_two_row_group_of_relevant_items():
    # ties="average": AP's expected value over the orderings of each tie group.  Run x
    # (score 3) then a, b tied (score 1), both relevant (R = 2).  Both orderings of a, b
    # put relevant items at positions 2 and 3: AP = (1/2 + 2/3) / 2 = 7/12.  Tied at the
    # top instead (a, b at 3, x at 1): positions 1 and 2: AP = (1 + 1) / 2 = 1.
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "relevance": [1, 1]})
    below = pl.DataFrame({"query": ["q"] * 3, "item": ["x", "a", "b"], "score": [3.0, 1.0, 1.0]})
    top = below.with_columns(score=pl.Series([1.0, 3.0, 3.0]))
    assert evaluate(below, qrels, ["AP"], ties="average")["value"].item() == pytest.approx(
        7 / 12, abs=1e-15
    )
    assert evaluate(top, qrels, ["AP"], ties="average")["value"].item() == pytest.approx(
        1.0, abs=1e-15
    )


def test_utility_of_a_query_whose_retrieved_items_are_all_unjudged():
    # trec_eval m_utility.c: a * rel_ret + b * nonrel_ret + c * rel_nonret + d *
    # nonrel_nonret.  Query q retrieves x, y (both unjudged: nonrel_ret = 2, rel_ret = 0)
    # and has one relevant item a (rel_nonret = 1); d's term is 0 (docs = 0):
    # 1 * 0 + (-1) * 2 + (-2) * 1 = -4.  Query r (judged a) anchors the judged rows.
    run = pl.DataFrame(
        {"query": ["q", "q", "r"], "item": ["x", "y", "a"], "score": [2.0, 1.0, 1.0]}
    )
    qrels = pl.DataFrame({"query": ["q", "r"], "item": ["a", "a"], "relevance": [1, 1]})
    got = evaluate(run, qrels, ["Utility(c=-2)"], per_query=True)
    values = dict(got.select("query", "value").iter_rows())
    assert values == {"q": -4.0, "r": 1.0}


def _trec_eval_g(ranked: list[str], grades: dict[str, float]) -> float:
    """trec_eval 10.0 m_G.c's loops in plain Python (gain = relevance, min_cost 1):
    sum_cost and sum_ideal run down the ideal ranking, one addition per position."""
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)
    results_g = sum_results = sum_cost = 0.0
    for i, item in enumerate(ranked):
        gain = max(grades.get(item, 0.0), 0.0)
        sum_results += gain
        sum_cost += max(ideal[i], 1.0) if i < len(ideal) else 1.0
        if gain != 0:
            results_g += gain / math.log2(2 + sum_cost - sum_results)
    sum_ideal = 0.0
    for g in ideal:
        sum_ideal += g
    return results_g / sum_ideal


@pytest.mark.parametrize(
    "ranked, grades",
    [
        (["d0", "d1", "d2"], {"d0": 1.7, "d1": 4.9, "d2": 2.5}),
        (["d1", "d2", "d4", "d3", "d0"], {"d0": 3.3, "d1": 1.1, "d2": 4.0, "d3": 1.7, "d4": 2.2}),
    ],
)
def test_g_ideal_cost_at_the_last_ideal_position_adds_in_trec_evals_order(ranked, grades):
    # Fractional grades above 1 whose costs add to different last bits in another order
    # (1.7 + 4.9 + 2.5 = 9.100000000000001 in row order, 9.1 from the top grade down):
    # the item at the ideal ranking's last position (3 and 5 here) must see trec_eval's
    # running sum_cost, not the total summed in another order (within one ulp).
    run = pl.DataFrame(
        {
            "query": ["q"] * len(ranked),
            "item": ranked,
            "score": [9.0 - i for i in range(len(ranked))],
        }
    )
    qrels = pl.DataFrame(
        {"query": ["q"] * len(grades), "item": list(grades), "relevance": list(grades.values())}
    )
    expected = _trec_eval_g(ranked, grades)
    got = evaluate(run, qrels, ["G"])["value"].item()
    assert abs(got - expected) <= math.ulp(expected), (got, expected)


def test_cwl_gain_scaled_from_min_rel():
    # ir_measures' cwl_eval gain: (clip(rel, min_rel, max_rel) - min_rel) / (max_rel -
    # min_rel).  min_rel = 1, max_rel = 3; grades 2 then 3 then 0: gains 0.5, 1, 0 (0 is
    # clipped up to 1, which gains 0).  SDCG@3 = (0.5 + 1 / log2 3 + 0 / 2) /
    # (1 + 1 / log2 3 + 1 / 2).
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "relevance": [2, 3, 0]})
    got = evaluate(run, qrels, ["SDCG(min_rel=1,max_rel=3)@3"])["value"].item()
    expected = (0.5 + 1 / math.log2(3)) / (1 + 1 / math.log2(3) + 0.5)
    assert got == pytest.approx(expected, abs=1e-15)
