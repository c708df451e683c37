"""Invariants that hold for every input (hypothesis, tie-heavy graded data)."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from polars_rankeval._registry import REGISTRY, Family
from tests.helpers import examples
from tests.strategies import run_and_qrels


def _names(family: Family) -> list[str]:
    """The bare name, name@3 for a family with a cutoff, and the family's own examples."""
    return [family.name, *([f"{family.name}@3"] if family.cutoff else []), *family.examples]


# derived from the registry (Family.bounded, Family.examples): a new family is covered
# without editing this file
BOUNDED = [name for family in REGISTRY.values() if family.bounded for name in _names(family)]
CUTOFF = [
    name
    for family in REGISTRY.values()
    if family.cutoff
    for name in _names(family)
    if name.endswith("@3")
]
SETTINGS = settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def assert_same_values(left: pl.DataFrame, right: pl.DataFrame) -> None:
    """Same rows in the same order and values equal up to float summation order."""
    assert left.drop("value").equals(right.drop("value"))
    assert ((left["value"] - right["value"]).abs().max() or 0.0) <= 1e-12


def per_query(run, qrels, measures, **options) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)  # run-only queries
        out = rk.evaluate(run, qrels, measures, per_query=True, **options)
    # the data always shares a query (first_query_relevant): never an empty result
    assert out.height >= len(measures)
    return out


def test_run_and_qrels_without_a_shared_query_is_an_input_error():
    run = pl.DataFrame({"query": ["q1"], "item": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["q2"], "item": ["a"], "relevance": [1]})
    with pytest.raises(rk.InputError, match="share no query"):
        rk.evaluate(run, qrels, ["AP"], per_query=True)


def test_every_family_is_covered_by_the_bounded_list():
    covered = {rk.parse_measure(name).family.name for name in BOUNDED}
    unbounded = {name for name, family in REGISTRY.items() if not family.bounded}
    assert covered | unbounded == set(REGISTRY)
    assert {"AP(norm=hits)@3", "nDCG(gain=exp)@3", "IPrec@0.5"} <= set(BOUNDED)


@st.composite
def stacked_runs_and_qrels(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    """1 to :data:`BATCH` of ``run_and_qrels(first_query_relevant=True)`` as one, the i-th
    one's queries renamed ``"<i>:<query>"`` (each query is evaluated on its own rows):
    one call checks several drawn datasets (a call of the ~100 bounded names costs the
    same on a few rows or a few hundred)."""
    one = run_and_qrels(first_query_relevant=True)
    parts = [draw(one), *draw(st.lists(one, max_size=BATCH - 1))]

    def tag(i: int, frame: pl.DataFrame) -> pl.DataFrame:
        return frame.with_columns((pl.lit(f"{i}:") + pl.col("query")).alias("query"))

    run = pl.concat(tag(i, run) for i, (run, _) in enumerate(parts))
    return run, pl.concat(tag(i, qrels) for i, (_, qrels) in enumerate(parts))


# The two tests of the bounded names take stacked datasets (~5.5 each on average): 15
# examples hold ~80 datasets where SETTINGS' 60 held 60; the default profile's 3 (the
# simplest dataset, then two batches) ~12, where its 12 held 12.
BATCH = 10
BATCH_SETTINGS = settings(
    SETTINGS,
    max_examples=examples(15),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@BATCH_SETTINGS
@given(stacked_runs_and_qrels())
def test_values_in_unit_interval(data):
    run, qrels = data
    values = per_query(run, qrels, BOUNDED)["value"]
    assert values.null_count() == 0
    assert ((values >= 0) & (values <= 1 + 1e-12)).all()


@BATCH_SETTINGS
@given(stacked_runs_and_qrels(), st.randoms(use_true_random=False))
def test_row_order_does_not_matter(data, random):
    run, qrels = data
    order = list(range(run.height))
    random.shuffle(order)
    shuffled = run[order]
    expected = per_query(run, qrels, BOUNDED + ["NumRet", "NumRel", "NumRelRet"])
    got = per_query(shuffled, qrels, BOUNDED + ["NumRet", "NumRel", "NumRelRet"])
    assert_same_values(expected, got)


@SETTINGS
@given(run_and_qrels(first_query_relevant=True))
def test_ideal_ranking_scores_one(data):
    _, qrels = data
    # rank every judged item by relevance, best first; drop queries without a relevant item
    relevant_queries = qrels.filter(pl.col("relevance") >= 1)["query"].unique()
    qrels = qrels.filter(pl.col("query").is_in(relevant_queries.implode()))
    assert relevant_queries.len() >= 1  # the first query has a relevant judgment
    ideal = qrels.filter(pl.col("relevance") >= 0).select(
        "query", "item", pl.col("relevance").cast(pl.Float64).alias("score")
    )
    measures = ["AP", "nDCG", "RR", "Rprec", "Bpref", "R", "Success", "nDCG@3"]
    values = per_query(ideal, qrels, measures)
    assert values.height == len(measures) * relevant_queries.len()
    assert (values["value"] - 1.0).abs().max() < 1e-12


@SETTINGS
@given(run_and_qrels(first_query_relevant=True, min_retrieved=3))
def test_non_relevant_items_below_k_change_no_cutoff_measure(data):
    run, qrels = data
    # every query has at least k = 3 rows: the new items land below position k
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
