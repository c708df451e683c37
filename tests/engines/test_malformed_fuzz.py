"""Random malformed frames: a project error or a counted policy, never a raw panic and never
a number silently computed from dropped rows (both engines)."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from tests.helpers import examples
from tests.strategies import CORRUPTIONS, run_and_qrels

MEASURES = ["AP", "nDCG@3", "P@2", "RR", "Bpref", "NumRet"]


def evaluate_or_error(run, qrels, engine):
    """(values, warnings) or the exception raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            values = rk.evaluate(run, qrels, MEASURES, per_query=True, engine=engine)
        except Exception as error:  # noqa: BLE001  (the test inspects the type)
            return error, caught
    return values, caught


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    data=run_and_qrels(first_query_relevant=True),
    corruption=st.sampled_from(list(CORRUPTIONS)),
    row=st.integers(0, 1000),
)
def test_malformed_input_is_an_error_or_a_counted_policy(engine, data, corruption, row):
    run, qrels = data
    corrupt, expect_error = CORRUPTIONS[corruption]
    bad_run, bad_qrels = corrupt(run, qrels, row)
    # the clean input succeeds, so an error below is the corruption's, not the data's
    clean, _ = evaluate_or_error(run, qrels, engine)
    assert isinstance(clean, pl.DataFrame), f"clean input failed: {clean!r}"
    assert clean.height >= len(MEASURES)
    got, caught = evaluate_or_error(bad_run, bad_qrels, engine)
    if isinstance(got, Exception):
        # only our own error type, never a raw polars / DuckDB exception
        assert isinstance(got, rk.RankevalError), repr(got)
        assert expect_error, f"{corruption}: a counted policy raised {got!r}"
        return
    assert not expect_error, f"{corruption}: evaluate returned numbers from malformed input"
    # a policy: it warned with a count, and the numbers are those of the clean data
    assert any(issubclass(w.category, rk.RankevalWarning) for w in caught)
    assert clean.drop("value").equals(got.drop("value"))
    assert ((clean["value"] - got["value"]).abs().max() or 0.0) <= 1e-12
