"""Invariants that hold for every input (hypothesis, tie-heavy graded data)."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from polars_rankeval._registry import REGISTRY

from tests.strategies import run_and_qrels

BOUNDED = [
    "AP", "AP@5", "AP(norm=min)@3", "AP(norm=hits)@3", "P@3", "P(norm=ret)@3", "P",
    "R@3", "R(norm=min)@2", "R", "RR", "RR@2", "nDCG", "nDCG@3", "nDCG(gain=exp)@3",
    "nDCG(ideal=run)@3", "Success@1", "Success", "Rprec", "Bpref", "P(rel=2)@3", "AP(rel=2)",
    "F1", "F1@3", "F1(beta=0.5)@3", "GMAP", "GMAP@3", "Rprec_mult(mult=0.6)", "Rprec_mult(mult=2)",
    "IPrec", "IPrec@0.5", "IPrec(rounding=v9)@0.3", "IPrec(rel=2)@1", "IPrec11pt",
    "IPrec11pt(rounding=v9)", "infAP", "infAP(rel=2)", "Judged", "Judged@3", "Unjudged",
    "Unjudged@3", "RBP", "RBP@3", "RBP(p=0.5,gain=binary)@3", "RBP_resid", "RBP_resid(p=0.5)",
    "ERR", "ERR@3", "G", "G@3", "nDCG_rel", "nDCG_rel@3", "RnDCG", "RnDCG(rel=2)@3",
]
CUTOFF = ["AP@3", "P@3", "R@3", "RR@3", "nDCG@3", "Success@3", "NumRelRet@3", "NumRet@3",
          "AP(norm=min)@3", "AP(norm=hits)@3", "R(norm=min)@3", "nDCG(gain=exp)@3",
          "F1@3", "GMAP@3", "Judged@3", "Unjudged@3", "RBP@3", "RBP(gain=binary)@3",
          "ERR@3", "G@3", "nDCG_rel@3", "RnDCG@3"]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_same_values(left: pl.DataFrame, right: pl.DataFrame) -> None:
    """Same rows in the same order and values equal up to float summation order."""
    assert left.drop("value").equals(right.drop("value"))
    assert ((left["value"] - right["value"]).abs().max() or 0.0) <= 1e-12


def per_query(run, qrels, measures, **options) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        try:
            return rk.evaluate(run, qrels, measures, per_query=True, **options)
        except rk.InputError as error:
            if "share no query" in str(error):
                return pl.DataFrame(schema={"query": pl.String, "measure": pl.String,
                                            "value": pl.Float64})
            raise


def test_every_family_is_covered_by_the_bounded_list():
    covered = {rk.parse_measure(name).family.name for name in BOUNDED}
    counts = {name for name, family in REGISTRY.items() if family.aggregate == "sum"}
    assert covered | counts == set(REGISTRY)


@SETTINGS
@given(run_and_qrels())
def test_values_in_unit_interval(data):
    run, qrels = data
    values = per_query(run, qrels, BOUNDED)["value"]
    assert values.null_count() == 0
    assert ((values >= 0) & (values <= 1 + 1e-12)).all()


@SETTINGS
@given(run_and_qrels(), st.randoms(use_true_random=False))
def test_row_order_does_not_matter(data, random):
    run, qrels = data
    order = list(range(run.height))
    random.shuffle(order)
    shuffled = run[order]
    expected = per_query(run, qrels, BOUNDED + ["NumRet", "NumRel", "NumRelRet"])
    got = per_query(shuffled, qrels, BOUNDED + ["NumRet", "NumRel", "NumRelRet"])
    assert_same_values(expected, got)


@SETTINGS
@given(run_and_qrels())
def test_ideal_ranking_scores_one(data):
    _, qrels = data
    # rank every judged item by relevance, best first; drop queries without a relevant item
    relevant_queries = qrels.filter(pl.col("relevance") >= 1)["query"].unique()
    qrels = qrels.filter(pl.col("query").is_in(relevant_queries.implode()))
    if qrels.height == 0:
        return
    ideal = qrels.filter(pl.col("relevance") >= 0).select(
        "query", "item", pl.col("relevance").cast(pl.Float64).alias("score")
    )
    measures = ["AP", "nDCG", "RR", "Rprec", "Bpref", "R", "Success", "nDCG@3"]
    values = per_query(ideal, qrels, measures)
    assert values.height == len(measures) * relevant_queries.len()
    assert (values["value"] - 1.0).abs().max() < 1e-12


@SETTINGS
@given(run_and_qrels())
def test_non_relevant_items_below_k_change_no_cutoff_measure(data):
    run, qrels = data
    # only queries with at least k = 3 rows: the new items then land below position k
    run = run.filter(pl.len().over("query") >= 3)
    if run.height == 0:
        return
    extra = run.select("query").unique().join(
        pl.DataFrame({"item": ["zz-unjudged-1", "zz-unjudged-2"]}), how="cross"
    ).with_columns(score=pl.lit(-1.0))  # below every score, so after the top k
    before = per_query(run, qrels, CUTOFF)
    after = per_query(pl.concat([run, extra]), qrels, CUTOFF)
    assert_same_values(before, after)


@pytest.mark.parametrize("measure", ["AP", "nDCG@3", "RR"])
def test_eager_lazy_and_streaming_agree(measure):
    run = pl.DataFrame({"query": ["a", "a", "b"], "item": ["x", "y", "x"], "score": [1.0, 1.0, 2.0]})
    qrels = pl.DataFrame({"query": ["a", "b"], "item": ["x", "x"], "relevance": [1, 2]})
    eager = rk.evaluate(run, qrels, [measure], per_query=True)
    lazy = rk.evaluate(run.lazy(), qrels.lazy(), [measure], per_query=True)
    assert isinstance(lazy, pl.LazyFrame)
    assert eager.equals(lazy.collect())
    assert eager.equals(lazy.collect(engine="streaming"))
