"""Random malformed frames: a project error or a counted policy, never a raw panic and never
a number silently computed from dropped rows (both engines)."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from tests.strategies import run_and_qrels

MEASURES = ["AP", "nDCG@3", "P@2", "RR", "Bpref", "NumRet"]


def _null_at(frame: pl.DataFrame, column: str, row: int) -> pl.DataFrame:
    values = frame[column].to_list()
    values[row % frame.height] = None
    return frame.with_columns(pl.Series(column, values, dtype=frame.schema[column]))


def _value_at(frame: pl.DataFrame, column: str, row: int, value) -> pl.DataFrame:
    values = frame[column].cast(pl.Float64).to_list()
    values[row % frame.height] = value
    return frame.with_columns(pl.Series(column, values, dtype=pl.Float64))


# name -> (function(run, qrels, row) -> (run, qrels), an error is expected)
CORRUPTIONS = {
    "null run query": (lambda r, q, i: (_null_at(r, "query", i), q), True),
    "null run item": (lambda r, q, i: (_null_at(r, "item", i), q), True),
    "null score": (lambda r, q, i: (_null_at(r, "score", i), q), True),
    "NaN score": (lambda r, q, i: (_value_at(r, "score", i, float("nan")), q), True),
    "-inf score": (lambda r, q, i: (_value_at(r, "score", i, float("-inf")), q), True),
    "duplicate run row": (lambda r, q, i: (pl.concat([r, r[i % r.height]]), q), True),
    "null qrels relevance": (lambda r, q, i: (r, _null_at(q, "relevance", i)), True),
    "NaN qrels relevance": (lambda r, q, i: (r, _value_at(q, "relevance", i, float("nan"))), True),
    "null qrels item": (lambda r, q, i: (r, _null_at(q, "item", i)), True),
    "duplicate judgment": (lambda r, q, i: (r, pl.concat([q, q[i % q.height]])), True),
    "string relevance": (lambda r, q, i: (r, q.with_columns(pl.col("relevance").cast(pl.String))),
                         True),
    "int query ids in the run only": (
        lambda r, q, i: (r.with_columns(pl.col("query").str.len_bytes().cast(pl.Int64)), q), True),
    "no score column": (lambda r, q, i: (r.drop("score"), q), True),
    "empty run": (lambda r, q, i: (r.head(0), q), True),
    "run-only query (ignored, counted)": (
        lambda r, q, i: (pl.concat([r, r.head(1).with_columns(pl.lit("unjudged-q").alias("query"))]),
                         q), False),
}


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
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=run_and_qrels(), corruption=st.sampled_from(list(CORRUPTIONS)),
       row=st.integers(0, 1000))
def test_malformed_input_is_an_error_or_a_counted_policy(engine, data, corruption, row):
    run, qrels = data
    if qrels.height == 0:
        qrels = pl.DataFrame({"query": [run["query"][0]], "item": ["zz"], "relevance": [1]})
    corrupt, expect_error = CORRUPTIONS[corruption]
    bad_run, bad_qrels = corrupt(run, qrels, row)
    clean, _ = evaluate_or_error(run, qrels, engine)
    got, caught = evaluate_or_error(bad_run, bad_qrels, engine)
    if isinstance(got, Exception):
        # only our own error type, never a raw polars / DuckDB exception
        assert isinstance(got, rk.RankevalError), repr(got)
        if not expect_error:  # a policy case may still fail the clean-data way
            assert isinstance(clean, Exception)
        return
    assert not expect_error, f"{corruption}: evaluate returned numbers from malformed input"
    # a policy: it warned with a count, and the numbers are those of the clean data
    assert any(issubclass(w.category, rk.RankevalWarning) for w in caught)
    assert isinstance(clean, pl.DataFrame)
    assert clean.drop("value").equals(got.drop("value"))
    assert ((clean["value"] - got["value"]).abs().max() or 0.0) <= 1e-12
