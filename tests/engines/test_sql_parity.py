"""Parity of the SQL twin: every registered measure over a parameter grid, through the
polars engine (eager, lazy in-memory, lazy streaming) and the DuckDB engine (eager and
lazy), equal to 1e-9 and equal to pytrec_eval (trec_eval 9.x) wherever it has the
measure; the shape of polars' own ``assert_sql_matches``.

The harness (``batches``, ``seeded_batch``, ``measure_grid``, ``oracle``,
``assert_engines_match``) is in ``tests/parity.py``, shared with the SQL render, PostgreSQL
and Spark tests.  Each example is a batch of datasets stacked into one call per engine
(queries renamed apart): a call of the grid costs ~1.5 s of CPU per engine, ~1.7x that
on six datasets.  By default each test runs its seeded explicit example; under
``HYPOTHESIS_PROFILE=full`` also SETTINGS' drawn batches.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import example, given, settings

import polars_rankeval as rk
from polars_rankeval._parse import parse_measure
from polars_rankeval._registry import REGISTRY
from tests.helpers import POLARS_ONLY, examples
from tests.parity import (
    BATCH_SETTINGS,
    CUTOFFS,
    GRID,
    assert_engines_match,
    assert_oracle,
    batches,
    covered,
    one_system,
    oracle,
    seeded_batch,
)

# ------------------------------------------------------------------------------ tests
# Each test's data is a batch of datasets stacked into one call per engine: the explicit
# example (a seeded batch, string ids in some tests, integer ids in the others), which
# the default profile runs alone, and under the full profile SETTINGS' drawn batches
# (parity.BATCH_SETTINGS).  Each example is checked per query and summarised
# (assert_engines_match: per query in every engine path, the summary, which the shared
# finish computes from the same per-query frame, in one polars and one DuckDB path by
# default, in every path under the full profile; by default the whole grid through each
# engine's eager path, a cover of it through the other paths and the summaries:
# parity.runner_names).
CASES = 3  # datasets per explicit example (a call on 6 costs ~1.7x a call on 1)

# The whole grid per query through each engine's eager path by default in the plain
# shapes (with qrels, complete or not; without qrels, one run).  The variants group
# (by), rank (a rank column) or keep rows (duplicates='first') the same way for every
# measure, so by default they check the grid's cover (every family with each value of
# its parameters, with and without a cutoff, at each rel level: parity.covered) through
# every path; the whole grid under the full profile (covered is then the grid itself).
VARIANT_GRID = list(covered(tuple(GRID)))


@pytest.mark.slow
@pytest.mark.parametrize("complete", [False, True], ids=["both", "complete"])
@BATCH_SETTINGS
@given(data=batches())
@example(data=seeded_batch(1, CASES, int_ids=False))
def test_grid_with_qrels(data: dict[str, Any], complete: bool) -> None:
    run, qrels = data["run"], data["qrels"]
    expected = oracle(run, qrels, GRID, complete=complete)
    assert_engines_match(run, qrels, GRID, expected=expected, complete=complete)


@pytest.mark.slow
@pytest.mark.parametrize("complete", [False, True], ids=["both", "complete"])
@BATCH_SETTINGS
@given(data=batches(by=True))
@example(data=seeded_batch(2, CASES, int_ids=True, by=True))
def test_grid_by_groups(data: dict[str, Any], complete: bool) -> None:
    """Each by-group is evaluated as its own run (pytrec_eval once per group)."""
    run, qrels = data["run"], data["qrels"]
    expected = oracle(run, qrels, VARIANT_GRID, complete=complete, by="sys")
    assert_engines_match(run, qrels, VARIANT_GRID, expected=expected, by="sys", complete=complete)


@pytest.mark.slow
@pytest.mark.parametrize("by", [None, "sys"], ids=["one_run", "by"])
@BATCH_SETTINGS
@given(data=batches(by=True))
@example(data=seeded_batch(3, CASES, int_ids=False, by=True))
def test_grid_without_qrels(data: dict[str, Any], by: str | None) -> None:
    """Relevance, R and the ideal ranking from the run's own labels (pytrec_eval with
    the labels as qrels); NumRel is the number of relevant rows of the run.  One run:
    system A's rows."""
    labels = (data if by else one_system(data))["labels"]
    names = VARIANT_GRID if by else list(GRID)
    expected = oracle(labels, None, names, by=by)
    assert_engines_match(labels, None, names, expected=expected, by=by)


@pytest.mark.slow
@BATCH_SETTINGS
@given(data=batches(ranks=True))
@example(data=seeded_batch(4, CASES, int_ids=True, ranks=True))
def test_grid_rank_column(data: dict[str, Any]) -> None:
    """score=None-style input: ranked by the rank column, ties by item id descending."""
    run, qrels = data["run"], data["qrels"]
    expected = oracle(run, qrels, VARIANT_GRID, by_rank=True)
    assert_engines_match(run, qrels, VARIANT_GRID, expected=expected)


@pytest.mark.slow
@pytest.mark.parametrize("by", [None, "sys"], ids=["one_run", "by"])
@BATCH_SETTINGS
@given(data=batches(duplicates=True, by=True))
@example(data=seeded_batch(5, CASES, int_ids=False, duplicates=True, by=True))
def test_grid_duplicates_first(data: dict[str, Any], by: str | None) -> None:
    """duplicates='first': rank, keep each (query, item)'s best row, positions keep
    their gaps; no oracle (trec_eval refuses duplicates).  One run: system A's rows."""
    drawn = data if by else one_system(data)
    assert_engines_match(
        drawn["run"], drawn["qrels"], VARIANT_GRID, by=by, duplicates="first", summary=False
    )


@pytest.mark.slow
@pytest.mark.parametrize("conventions", sorted(rk.PRESETS))
@pytest.mark.parametrize("rel", [None, 2])
@settings(BATCH_SETTINGS, max_examples=examples(6))
@given(data=batches())
@example(data=seeded_batch(6, CASES, int_ids=True))
def test_conventions_and_default_rel(data: dict[str, Any], conventions: str, rel: int | None):
    """Presets fill parameters a name leaves unset; rel= sets the default level."""
    names = [
        f"{family.name}@{k}" if family.cutoff and k else family.name
        for family in REGISTRY.values()
        for k in CUTOFFS
        if (k is None or family.cutoff) and family.name not in POLARS_ONLY
    ]
    expected = (
        oracle(data["run"], data["qrels"], names, rel=rel) if conventions == "trec_eval" else None
    )
    assert_engines_match(
        data["run"],
        data["qrels"],
        names,
        expected=expected,
        conventions=conventions,
        rel=rel,
        summary=False,
    )


def test_grid_covers_every_family_and_parameter() -> None:
    families = {parse_measure(n).family.name for n in GRID}
    assert families == set(REGISTRY) - POLARS_ONLY
    for family in REGISTRY.values():
        if family.name in POLARS_ONLY:
            continue
        for param in family.params:
            if param.choices:
                seen = {
                    parse_measure(n)[param.name] for n in GRID if parse_measure(n).family is family
                }
                assert set(param.choices) <= seen, (family.name, param.name)


@settings(BATCH_SETTINGS, max_examples=examples(6))
@given(data=batches())
@example(data=seeded_batch(7, CASES, int_ids=False))
def test_numrel_without_qrels_duckdb(data: dict[str, Any]) -> None:
    """NumRel without qrels = relevant rows of the run (R from the run's own labels)."""
    labels = data["labels"]
    names = ["NumRel", "NumRel(rel=2)"]
    got = rk.evaluate(labels, None, names, per_query=True, engine="duckdb")
    assert_oracle(got, oracle(labels, None, names), by=None, per_query=True)


def test_numrel_without_qrels_polars() -> None:
    run = pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0], "relevant": [1]})
    assert rk.evaluate(run, None, ["NumRel"])["value"].to_list() == [1.0]
