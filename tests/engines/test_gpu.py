"""Polars' GPU engine (issue 15's stretch): what ``collect(engine="gpu")`` does with the
LazyFrame ``rk.evaluate`` returns, as the README's Performance section says.

``evaluate``'s own ``engine=`` chooses how the measures are computed (polars, DuckDB,
Spark); polars' GPU engine is a way to *collect* the polars engine's lazy result, so it
is the caller's ``collect(engine=...)``, with no option of ours.  This machine has no GPU
and no ``cudf_polars``: there polars 2 raises ``ModuleNotFoundError`` before running
anything (it does not fall back by itself), and the caller's fallback, a plain
``collect()``, gives the CPU engine's values bit for bit.  Where ``cudf_polars`` is
installed, the last test checks the GPU's values against the CPU's.
"""

from __future__ import annotations

import importlib.util

import polars as pl
import pytest

import polars_rankeval as rk

MEASURES = ["AP", "nDCG@10", "P@2", "R@100", "RR"]
HAS_CUDF_POLARS = importlib.util.find_spec("cudf_polars") is not None

RUN = pl.LazyFrame(
    {"query": ["q1", "q1", "q1", "q2", "q2"], "item": ["a", "b", "c", "a", "d"],
     "score": [3.0, 2.0, 1.0, 2.0, 1.0]}
)  # fmt: skip
QRELS = pl.LazyFrame({"query": ["q1", "q1", "q2"], "item": ["b", "c", "d"], "relevance": [1, 2, 1]})


def collect_on_gpu_or_cpu(frame: pl.LazyFrame) -> pl.DataFrame:
    """The fallback the README describes: the GPU engine where polars can load it, else
    the default (CPU) engine."""
    try:
        return frame.collect(engine="gpu")
    except ModuleNotFoundError:
        return frame.collect()


@pytest.mark.skipif(HAS_CUDF_POLARS, reason="cudf_polars is installed: polars can run the GPU")
@pytest.mark.parametrize("engine", ["gpu", "gpu-raise-on-fail", "gpu-fall-back"])
def test_gpu_collect_without_cudf_polars_raises_naming_it(engine):
    """Without cudf_polars polars raises (whatever raise_on_fail says) before any work."""
    gpu = {
        "gpu": "gpu",
        "gpu-raise-on-fail": pl.GPUEngine(raise_on_fail=True),
        "gpu-fall-back": pl.GPUEngine(raise_on_fail=False),
    }[engine]
    lazy = rk.evaluate(RUN, QRELS, MEASURES)
    with pytest.raises(ModuleNotFoundError, match="cudf_polars"):
        lazy.collect(engine=gpu)
    with pytest.raises(ModuleNotFoundError, match="cudf_polars"):
        rk.evaluate(RUN, QRELS, MEASURES, per_query=True).collect(engine=gpu)


@pytest.mark.parametrize("per_query", [False, True])
@pytest.mark.parametrize("partitions", [1, 3])
def test_the_cpu_fallback_gives_the_cpu_engines_bits(per_query, partitions):
    """The caller's fallback (GPU where present, else ``collect()``) equals the CPU
    engine's result exactly, summary and per query, in one partition and in several."""
    lazy = rk.evaluate(RUN, QRELS, MEASURES, per_query=per_query, partitions=partitions)
    got = collect_on_gpu_or_cpu(lazy)
    expected = lazy.collect()
    if HAS_CUDF_POLARS:  # a GPU sums in another order: equal to 1e-12, not bit for bit
        assert got.drop("value").equals(expected.drop("value"))
        diffs = (got["value"] - expected["value"]).abs()
        assert diffs.max() <= 1e-12
    else:
        assert got.equals(expected)
        assert got["value"].to_list() == expected["value"].to_list()


@pytest.mark.skipif(not HAS_CUDF_POLARS, reason="needs cudf_polars (and a GPU)")
def test_gpu_engine_values_equal_the_cpu_engines():
    """Where cudf_polars is present: the GPU engine (or its own fallback) gives the CPU
    engine's values to 1e-12."""
    lazy = rk.evaluate(RUN, QRELS, MEASURES, per_query=True)
    got, expected = lazy.collect(engine="gpu"), lazy.collect()
    assert got.drop("value").equals(expected.drop("value"))
    assert ((got["value"] - expected["value"]).abs().max() or 0.0) <= 1e-12
