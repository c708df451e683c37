"""Multiple-comparison corrections: capped at 1, Holm monotone, BH = scipy.

The expected values are hand computations (the arithmetic is in the comments), a direct
transcription of Holm's definition, and ``scipy.stats.false_discovery_control`` for BH;
never the project's own ``adjust``.  The cases are chosen so that the raw adjustment
(p * m, or p * (m - i)) exceeds 1, which the older hand-computed case never did.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_rankeval import _significance as sig
from polars_rankeval.compare import compare
from tests.helpers import LazyModule, examples

pytest.importorskip("scipy")

scipy_stats = LazyModule("scipy.stats")  # imported by the first test that uses it


def test_bonferroni_is_capped_at_1():
    p = np.array([0.3, 0.5, 0.02])
    # m = 3: 0.3 * 3 = 0.9, 0.5 * 3 = 1.5 -> 1, 0.02 * 3 = 0.06
    assert sig.adjust(p, "bonferroni") == pytest.approx([0.9, 1.0, 0.06])
    # every raw value above 1: 0.4 * 4 = 1.6, 0.9 * 4 = 3.6, ... all -> 1
    assert sig.adjust(np.array([0.4, 0.9, 1.0, 0.26]), "bonferroni").tolist() == [1.0] * 4


def test_holm_is_capped_at_1():
    p = np.array([0.6, 0.7, 0.04])
    # sorted 0.04, 0.6, 0.7 times 3, 2, 1 = 0.12, 1.2, 0.7; running max 0.12, 1.2, 1.2;
    # capped 0.12, 1, 1; back in input order: 1, 1, 0.12
    assert sig.adjust(p, "holm") == pytest.approx([1.0, 1.0, 0.12])
    p = np.array([0.01, 0.3, 0.45, 0.2, 0.9])
    # sorted 0.01, 0.2, 0.3, 0.45, 0.9 times 5..1 = 0.05, 0.8, 0.9, 0.9, 0.9 (no cap needed);
    # with 0.3 -> 0.35: 0.05, 0.8, 1.05 -> 1, then 0.9 and 0.9 lifted to 1 by the running max
    assert sig.adjust(p, "holm") == pytest.approx([0.05, 0.9, 0.9, 0.8, 0.9])
    p = np.array([0.01, 0.35, 0.45, 0.2, 0.9])
    assert sig.adjust(p, "holm") == pytest.approx([0.05, 1.0, 1.0, 0.8, 1.0])


def test_bh_never_exceeds_1_and_equals_scipy_where_raw_values_exceed_1():
    # sorted 0.5, 0.9, 0.95, 0.99 times 4/1, 4/2, 4/3, 4/4 = 2.0, 1.8, 1.2667, 0.99: every
    # raw value but the last exceeds 1; the running minimum from the top makes them 0.99
    p = np.array([0.9, 0.95, 0.99, 0.5])
    expected = scipy_stats.false_discovery_control(p)
    assert expected == pytest.approx([0.99] * 4)
    assert sig.adjust(p, "bh") == pytest.approx(expected)
    for seed in range(5):
        p = np.random.default_rng(seed).random(9) ** 0.3  # mostly large p-values
        got = sig.adjust(p, "bh")
        assert got == pytest.approx(scipy_stats.false_discovery_control(p))
        assert (got <= 1.0).all()


def _holm_by_definition(p: list[float]) -> list[float]:
    """Holm (1979): the i-th smallest p-value (1-based) adjusts to
    min(1, max over j <= i of (m - j + 1) p_(j)); a plain loop, independent of numpy's
    accumulate."""
    m = len(p)
    order = sorted(range(m), key=lambda i: (p[i], i))
    out = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order, start=1):
        running = max(running, (m - rank + 1) * p[index])
        out[index] = min(1.0, running)
    return out


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        # sorted 0.001, 0.011, 0.012, 0.013 times 4, 3, 2, 1 = 0.004, 0.033, 0.024, 0.013;
        # monotone: 0.004, 0.033, 0.033, 0.033
        ([0.013, 0.001, 0.012, 0.011], [0.033, 0.004, 0.033, 0.033]),
        # sorted 0.02, 0.021, 0.03 times 3, 2, 1 = 0.06, 0.042, 0.03 -> 0.06, 0.06, 0.06
        ([0.03, 0.021, 0.02], [0.06, 0.06, 0.06]),
        # ties: 0.01, 0.01, 0.04 times 3, 2, 1 = 0.03, 0.02, 0.04 -> 0.03, 0.03, 0.04
        ([0.01, 0.04, 0.01], [0.03, 0.04, 0.03]),
        # already monotone: 0.001 * 2 = 0.002, 0.5 * 1 = 0.5
        ([0.5, 0.001], [0.5, 0.002]),
    ],
)
def test_holm_is_monotone_hand_computed(p, expected):
    got = sig.adjust(np.array(p), "holm")
    assert got == pytest.approx(expected)
    assert got == pytest.approx(_holm_by_definition(p))


@settings(max_examples=examples(300), deadline=None, derandomize=True)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12))
def test_holm_equals_its_definition_and_keeps_the_order(p):
    got = sig.adjust(np.array(p), "holm")
    assert got == pytest.approx(_holm_by_definition(p), abs=1e-15)
    # monotone: a smaller raw p-value never gets a larger adjusted one
    order = np.argsort(p, kind="stable")
    assert (np.diff(got[order]) >= 0).all()
    assert (got >= np.array(p)).all() and (got <= 1.0).all()


def test_compare_caps_the_corrected_p_values_at_1():
    # five systems that differ from the baseline by noise: most raw p-values are large,
    # so p * (number of comparisons) exceeds 1 and must be capped
    rng = np.random.default_rng(7)
    queries = [f"q{i}" for i in range(12)]
    qrels = pl.DataFrame({"query": queries, "item": ["a"] * 12, "relevance": [1] * 12})
    frames = []
    for system in ["base", "s1", "s2", "s3", "s4"]:
        for query in queries:
            scores = rng.random(4)
            frames.append(
                pl.DataFrame(
                    {"system": system, "query": query, "item": list("abcd"), "score": scores}
                )
            )
    runs = pl.concat(frames)
    for correction in ("bonferroni", "holm", "bh"):
        result = compare(runs, qrels, ["RR"], baseline="base", correction=correction)
        raw = result["p_value"].to_numpy()
        corrected = result["p_value_corrected"].to_numpy()
        assert result.height == 4
        assert (corrected <= 1.0).all(), (correction, corrected)
        assert (corrected >= raw - 1e-15).all()
        if correction == "bonferroni":
            assert (raw * 4 > 1).any()  # the case exercises the cap
            assert corrected == pytest.approx(np.minimum(1.0, raw * 4))
        if correction == "holm":
            assert corrected == pytest.approx(_holm_by_definition(raw.tolist()))
        if correction == "bh":
            assert corrected == pytest.approx(scipy_stats.false_discovery_control(raw))
        assert not any(math.isnan(v) for v in corrected)
