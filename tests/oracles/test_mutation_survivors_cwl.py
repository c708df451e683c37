"""Tests written for the survivors of the mutation run of ``measures/cwl.py`` (issue 17,
session 19; ``tests/mutation/run.py``'s KILLED_AFTER names the mutant each one kills).

Expected values are independent of the code under test: cwl-eval 1.0.12's own metric
classes (the C/W/L reference implementation, a test dependency) on a ranking of gains
built directly (its ``Ranking``: NaN is an unjudged item, padded with gain 0 to 1000
positions), or closed forms / hand computations from the measures' definitions.
"""

from __future__ import annotations

import decimal
import math
import warnings
from decimal import Decimal

import ir_measures
import numpy as np
import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval.measures.cwl import _trigamma

# pi to 50 digits (the closed forms of psi' at integers and half-integers need pi^2)
PI = Decimal("3.1415926535897932384626433832795028841971693993751")


def _trigamma_exact(twice_x: int) -> Decimal:
    """psi'(x) at x = twice_x / 2 in 50-digit decimals, by its closed forms:
    psi'(n) = pi^2 / 6 - sum_{k<n} 1 / k^2, psi'(n + 1/2) = pi^2 / 2 - 4 sum_{k=1..n}
    1 / (2k - 1)^2 (the recurrence psi'(x + 1) = psi'(x) - 1 / x^2 from psi'(1) and
    psi'(1/2))."""
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        n = twice_x // 2
        if twice_x % 2 == 0:
            return PI**2 / 6 - sum((Decimal(1) / Decimal(k) ** 2 for k in range(1, n)), Decimal(0))
        odd = (Decimal(1) / Decimal(2 * k - 1) ** 2 for k in range(1, n + 1))
        return PI**2 / 2 - 4 * sum(odd, Decimal(0))


def test_cwl_trigamma_within_5e_15_of_its_closed_forms() -> None:
    # INST's normaliser is a difference of psi' values.  Ten head terms and the
    # asymptotic series to z^-11 at z = x + 10: the first omitted term, 691 / (2730 z^13),
    # is 7.3e-15 at x = 1 (z = 11), 4.4e-15 of psi'(1) = pi^2 / 6; measured on this grid
    # the code's relative error is at most 4.3e-15 (x = 1).  A coefficient of the last
    # term off by one (5 / 65 instead of 5 / 66: 6.9e-15 at x = 1), or one head term
    # fewer (z = x + 9), exceeds 5e-15 (scipy's polygamma, to 5e-14 absolute, is looser).
    xs = [k / 2 for k in range(1, 41)]  # 0.5, 1, .., 20
    got = pl.select(
        [_trigamma(pl.lit(x, dtype=pl.Float64)).alias(str(i)) for i, x in enumerate(xs)]
    ).row(0)
    for k, value in enumerate(got, start=1):
        exact = _trigamma_exact(k)
        relative = abs((Decimal(value) - exact) / exact)
        assert relative <= Decimal("5e-15"), (k / 2, value, exact)


def _cwl_eval(metric: str, args: tuple[float, ...], gains: list[float | None]) -> float:
    """cwl-eval's value of one ranking: its metric class ``metric(*args)`` on a Ranking
    of these gains (None: unjudged), which it pads with gain 0 to max_n = 1000."""
    from cwl.ruler import cwl_ruler
    from cwl.ruler.ranking import Ranking

    vector = np.array([np.nan if g is None else g for g in gains], dtype=float)
    ranking = Ranking("q", vector, np.full(len(gains), np.nan), max_n=1000)
    return float(getattr(cwl_ruler, metric)(*args).measure(ranking))


def _ours(grades: list[float | None], names: list[str]) -> dict[str, float]:
    """Our values for one query whose run ranks items with these grades (None:
    unjudged) in this order (distinct scores)."""
    items = [f"d{i}" for i in range(len(grades))]
    run = pl.DataFrame({"query": ["q"] * len(items), "item": items,
                        "score": [float(len(items) - i) for i in range(len(items))]})  # fmt: skip
    judged = [(it, g) for it, g in zip(items, grades, strict=True) if g is not None]
    qrels = pl.DataFrame({"query": ["q"] * len(judged), "item": [it for it, _ in judged],
                          "relevance": [g for _, g in judged]},
                         schema_overrides={"relevance": pl.Float64})  # fmt: skip
    got = rk.evaluate(run, qrels, names)
    return dict(got.select("measure", "value").iter_rows())


@pytest.mark.parametrize("grades", [[1, 2, 0], [None, 2, 2], [0, 1]])
def test_nerr10_with_p_0_is_the_first_items_gain(grades: list[float | None]) -> None:
    # NERR10's base weight is p^(i - 1): at p = 0 only position 1 weighs (0^0 = 1), so the
    # value is the first item's gain (max_rel=2: 0.5, 0 unjudged, 0); cwl-eval's
    # NERReq10CWLMetric(0.0) continues with probability phi (1 - g) = 0 at every position
    gains = [None if g is None else g / 2 for g in grades]
    want = _cwl_eval("NERReq10CWLMetric", (0.0,), gains)
    assert want == (gains[0] or 0.0)
    assert _ours(grades, ["NERR10(p=0,max_rel=2)"])["NERR10(p=0,max_rel=2)"] == want


@pytest.mark.parametrize("p", ["-0.5", "-1", "-1e-9"])
def test_nerr10_persistence_below_0_is_refused_by_name(p: str) -> None:
    # p is a probability (cwl-eval's phi: the user continues with probability
    # phi (1 - g)), so it lies in [0, 1]: a negative p is an error naming it
    run = pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    with pytest.raises(rk.MeasureError, match=r"p must be >= 0"):
        rk.evaluate(run, qrels, [f"NERR10(p={p})"])


def test_negative_judgments_gain_as_0_before_a_negative_min_rel() -> None:
    # ir_measures' cwl_eval provider (the gain convention the C/W/L measures follow)
    # first raises a negative judgment to 0 ("following trec_eval convention"), then clips
    # to [min_rel, max_rel] and scales: with min_rel = -1, max_rel = 1 a judgment of -1
    # gains (0 + 1) / 2 = 0.5, not 0.  Grades -1, 1, unjudged: gains 0.5, 1, 0;
    # SDCG@3 = (0.5 + 1 / log2 3) / (1 + 1 / log2 3 + 1 / 2); NERR8@2 = 0.5 + 0.5 * 1
    # over 1 + 0.5
    sdcg = (0.5 + 1 / math.log2(3)) / (1 + 1 / math.log2(3) + 1 / 2)
    names = ["SDCG(min_rel=-1,max_rel=1)@3", "NERR8(min_rel=-1,max_rel=1)@2"]
    want = {names[0]: sdcg, names[1]: 1.0 / 1.5}
    # (ir_measures' name parser takes no negative numbers: the measures built directly)
    measures = {
        ir_measures.SDCG(min_rel=-1, max_rel=1) @ 3: names[0],
        ir_measures.NERR8(min_rel=-1, max_rel=1) @ 2: names[1],
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = {measures[r.measure]: r.value for r in ir_measures.cwl_eval.iter_calc(
            list(measures), {"q": {"d0": -1, "d1": 1}}, {"q": {"d0": 3.0, "d1": 2.0, "d2": 1.0}})}  # fmt: skip
    assert theirs == pytest.approx(want, abs=1e-15)
    got = _ours([-1, 1, None], names)
    for name in names:
        assert got[name] == pytest.approx(want[name], abs=1e-15), name
