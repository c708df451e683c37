"""Intent weights (``evaluate(..., intent_weight=COLUMN)``): the intent-aware measures as
weighted means over the subtopics (Agrawal et al.: sum over intents of P(intent | q)
times the intent's measure).

Oracle: pyndeval (ndeval.c) run on each subtopic alone (the qrels of one (query,
subtopic)), where its P-IA, MAP-IA and ERR-IA are that subtopic's measure, then the
weighted mean of those in plain Python.  nERR_IA's ideal is the greedy ranking with
weighted gains, by hand.  Equal weights give the unweighted values.
"""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from polars_rankeval._errors import InputError
from tests.diversity_cases import cases, oracle_run
from tests.helpers import examples

pyndeval = pytest.importorskip("pyndeval")

# ours -> pyndeval's, at cutoffs >= 2 (ndeval's rank 1 is unnormalised: test_diversity)
PAIRS = {"P_IA@2": "P-IA@2", "P_IA@5": "P-IA@5", "AP_IA": "MAP-IA", "ERR_IA@5": "ERR-IA@5",
         "ERR_IA@20": "ERR-IA@20"}  # fmt: skip
ALL = ["P_IA@5", "AP_IA", "ERR_IA@10", "nERR_IA@10", "alpha_nDCG@10", "alpha_DCG@5", "NRBP",
       "nNRBP", "StRecall@5"]  # fmt: skip


def _evaluate(qrels: pl.DataFrame, run: list[tuple], names: list[str], **kw) -> dict:
    frame = pl.DataFrame(run, schema=["query", "item", "score"], orient="row")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        out = rk.evaluate(frame, qrels, names, per_query=True, **kw)
    return {(q, m): v for q, m, v in out.iter_rows()}


def _weighted_oracle(qrels: list[tuple], run: list[tuple], weights: dict) -> dict:
    """Per query: sum over its subtopics with a relevant item of w x pyndeval's value on
    that subtopic alone, divided by the sum of those w (0 when it is 0)."""
    ordered = oracle_run(run)
    sums: dict[tuple[str, str], float] = {}
    totals: dict[str, float] = {}
    for (query, sub), w in weights.items():
        alone = [row for row in qrels if row[0] == query and row[1] == sub]
        if not any(rel >= 1 for *_, rel in alone):
            continue
        values = pyndeval.ndeval(alone, [r for r in ordered if r[0] == query], list(PAIRS.values()))
        totals[query] = totals.get(query, 0.0) + w
        for ours, theirs in PAIRS.items():
            sums[query, ours] = sums.get((query, ours), 0.0) + w * values[query][theirs]
    return {key: (v / totals[key[0]] if totals[key[0]] > 0 else 0.0) for key, v in sums.items()}


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), data=st.data())
def test_weighted_means_match_pyndeval_per_subtopic(case, data) -> None:
    qrels, run = case
    subtopics = sorted({(q, s) for q, s, _, _ in qrels})
    weights = {key: data.draw(st.sampled_from([0.0, 0.25, 1.0, 2.5])) for key in subtopics}
    frame = pl.DataFrame(qrels, schema=["query", "subtopic", "item", "relevance"], orient="row")
    frame = frame.with_columns(
        pl.struct("query", "subtopic").map_elements(
            lambda k: weights[k["query"], k["subtopic"]], return_dtype=pl.Float64
        ).alias("w")
    )
    ours = _evaluate(frame, run, list(PAIRS), intent_weight="w")
    expected = _weighted_oracle(qrels, run, weights)
    for key, value in ours.items():
        assert value == pytest.approx(expected.get(key, 0.0), abs=1e-9), key


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), weight=st.sampled_from([0.5, 1.0, 3.0]))
def test_equal_weights_are_no_weights(case, weight) -> None:
    qrels, run = case
    frame = pl.DataFrame(qrels, schema=["query", "subtopic", "item", "relevance"], orient="row")
    plain = _evaluate(frame, run, ALL)
    weighted = _evaluate(frame.with_columns(w=pl.lit(weight)), run, ALL, intent_weight="w")
    assert weighted.keys() == plain.keys()
    for key, value in plain.items():
        assert weighted[key] == pytest.approx(value, abs=1e-12), key


def test_weighted_ideal_by_hand() -> None:
    """Subtopic 1 (weight 0.9) has b, subtopic 2 (0.1) has a; the run is a, b.  The
    weighted greedy ideal is b, a: ERR sum 0.9 / 1 + 0.1 / 2 = 0.95; the run's 0.1 / 1 +
    0.9 / 2 = 0.55.  Unweighted both are 1 + 1/2: nERR_IA@2 = 1.  Other measures
    (alpha_nDCG) are not intent-aware and keep equal weights."""
    qrels = pl.DataFrame({"query": ["q", "q"], "subtopic": ["1", "2"], "item": ["b", "a"],
                          "relevance": [1, 1], "w": [0.9, 0.1]})  # fmt: skip
    run = [("q", "a", 2.0), ("q", "b", 1.0)]
    names = ["nERR_IA@2", "P_IA@1", "alpha_nDCG@2"]
    weighted = _evaluate(qrels, run, names, intent_weight="w")
    plain = _evaluate(qrels, run, names)
    assert weighted["q", "nERR_IA@2"] == pytest.approx(0.55 / 0.95, abs=1e-15)
    assert plain["q", "nERR_IA@2"] == pytest.approx(1.0, abs=1e-15)
    assert weighted["q", "P_IA@1"] == pytest.approx(0.1, abs=1e-15)  # a: subtopic 2 only
    assert plain["q", "P_IA@1"] == pytest.approx(0.5, abs=1e-15)
    assert weighted["q", "alpha_nDCG@2"] == plain["q", "alpha_nDCG@2"]


@pytest.mark.parametrize(
    "weights, problem",
    [([0.5, 0.7, 1.0], "differs within a \\(query, subtopic\\)"),
     ([0.5, 0.5, -1.0], "finite weight >= 0"), ([0.5, 0.5, float("nan")], "finite weight")],
)  # fmt: skip
def test_bad_weights_are_named(weights, problem) -> None:
    qrels = pl.DataFrame({"query": ["q"] * 3, "subtopic": ["1", "1", "2"],
                          "item": ["a", "b", "a"], "relevance": [1, 1, 1], "w": weights})  # fmt: skip
    with pytest.raises(InputError, match=f"'w' \\(intent_weight\\).*{problem}.*example row"):
        _evaluate(qrels, [("q", "a", 1.0)], ["P_IA@1"], intent_weight="w")


def test_missing_weight_column_is_named() -> None:
    qrels = pl.DataFrame({"query": ["q"], "subtopic": ["1"], "item": ["a"], "relevance": [1]})
    with pytest.raises(InputError, match="'weight'"):
        _evaluate(qrels, [("q", "a", 1.0)], ["P_IA@1"], intent_weight="weight")
