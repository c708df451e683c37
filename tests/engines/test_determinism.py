"""Determinism as a contract (README "Numbers are deterministic"): the same input gives
bit-identical values, summary and per query, on every call, eager, lazy and streaming,
in both engines, whatever the input row order; and the two engines agree (the same bits
but for nDCG's last bit)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankeval as rk

MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR", "nDCG", "Bpref", "GMAP", "NumRelRet"]


@pytest.fixture(scope="module")
def data() -> tuple[pl.DataFrame, pl.DataFrame]:
    """20k queries: enough rows that polars and DuckDB split the work across threads
    and chunks (the non-deterministic sums this guards against showed at this size)."""
    rng = np.random.default_rng(7)
    n_queries, depth = 20_000, 30
    run = pl.DataFrame({
        "query": np.repeat(np.arange(n_queries), depth).astype(str),
        "item": rng.integers(0, 3_000, n_queries * depth).astype(str),
        "score": rng.random(n_queries * depth).round(3),  # rounded: ties happen
    }).unique(["query", "item"], keep="first", maintain_order=True)
    qrels = pl.DataFrame({
        "query": np.repeat(np.arange(n_queries), 8).astype(str),
        "item": rng.integers(0, 3_000, n_queries * 8).astype(str),
        "relevance": rng.integers(0, 4, n_queries * 8),
    }).unique(["query", "item"], keep="first", maintain_order=True)
    return run, qrels


def bits(frame: pl.DataFrame) -> bytes:
    return frame["value"].cast(pl.Float64).to_numpy().tobytes()


CALLS = {
    "eager": lambda run, qrels, **kw: rk.evaluate(run, qrels, MEASURES, **kw),
    "lazy": lambda run, qrels, **kw: rk.evaluate(run.lazy(), qrels.lazy(), MEASURES, **kw)
    .collect(),
    "streaming": lambda run, qrels, **kw: rk.evaluate(
        run.lazy(), qrels.lazy(), MEASURES, **kw
    ).collect(engine="streaming"),
}


@pytest.mark.parametrize("per_query", [False, True], ids=["summary", "per_query"])
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_bit_identical_on_every_call_and_path(data, engine: str, per_query: bool) -> None:
    run, qrels = data
    results = set()
    for seed, call in enumerate([*CALLS.values(), *CALLS.values()]):
        shuffled = run.sample(fraction=1.0, shuffle=True, seed=seed)  # any input row order
        frame = call(shuffled, qrels, engine=engine, per_query=per_query)
        if per_query:
            frame = frame.sort("query", "measure")
        results.add(bits(frame))
    assert len(results) == 1


@pytest.mark.parametrize("per_query", [False, True], ids=["summary", "per_query"])
def test_engines_agree(data, per_query: bool) -> None:
    """The engines give the same bits for every measure but nDCG, whose discount polars
    takes as log2 (trec_eval's) and the portable SQL as LN(x)/LN(2): within 1e-15."""
    run, qrels = data
    polars_frame = rk.evaluate(run, qrels, MEASURES, per_query=per_query)
    duckdb_frame = rk.evaluate(run, qrels, MEASURES, per_query=per_query, engine="duckdb")
    assert polars_frame.drop("value").equals(duckdb_frame.drop("value"))
    exact = ~pl.col("measure").str.starts_with("nDCG")
    assert bits(polars_frame.filter(exact)) == bits(duckdb_frame.filter(exact))
    difference = (polars_frame["value"] - duckdb_frame["value"]).abs().max()
    assert difference is not None and difference <= 1e-15


def test_summary_adds_queries_in_trec_eval_order() -> None:
    """trec_eval adds per-query values one after the other, queries in text order.
    Three values whose float sum depends on the order: 1e16 + 1 + (-1e16) + 1 in text
    order ("a" < "b" < "c" < "d") is (1e16 + 1) - 1e16 + 1 = 0 + 1 = 1 (1e16 + 1 rounds
    to 1e16), where another order gives 0 or 2."""
    frame = pl.DataFrame({"query": ["d", "b", "a", "c"], "_m0": [1.0, 1.0, 1e16, -1e16]})
    from polars_rankeval.engines.finish import summarize

    m = rk.parse_measure("NumRet")  # a sum
    summary = summarize(frame.lazy(), ["query"], [m], ["NumRet"]).collect()
    assert summary["value"].item() == 1.0


@pytest.fixture(scope="module")
def ranked(data) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The same rows as a rank-given run (``query, rank, item``) and as its score twin
    (score = -rank: the same order, no ties).  Ranks are a random order per query, 1..n
    in most queries (the engine's fast path) and doubled (a gap at every rank: the
    ranking path) in every tenth query."""
    run, qrels = data
    rng = np.random.default_rng(11)
    ranked = (
        run.with_columns(_key=pl.Series(rng.permutation(run.height)))
        .with_columns(rank=pl.col("_key").rank("ordinal").over("query").cast(pl.Int64))
        .with_columns(
            rank=pl.when(pl.col("query").cast(pl.Int64) % 10 == 0)
            .then(pl.col("rank") * 2)
            .otherwise(pl.col("rank"))
        )
        .select("query", "rank", "item")
    )
    twin = ranked.select("query", "item", score=-pl.col("rank").cast(pl.Float64))
    return ranked, twin, qrels


@pytest.mark.parametrize("per_query", [False, True], ids=["summary", "per_query"])
def test_rank_given_run_is_bit_identical_and_equals_its_score_twin(ranked, per_query) -> None:
    """A rank-given run: the same bits on every call, path, input row order and engine
    (DuckDB to 1e-15 on nDCG, as above), and the bits of the run that orders the same
    rows by score."""
    run, twin, qrels = ranked
    results = set()
    for seed, call in enumerate([*CALLS.values(), *CALLS.values()]):
        shuffled = run.sample(fraction=1.0, shuffle=True, seed=seed)
        frame = call(shuffled, qrels, per_query=per_query)
        results.add(bits(frame.sort("query", "measure") if per_query else frame))
    assert len(results) == 1
    expected = rk.evaluate(twin, qrels, MEASURES, per_query=per_query)
    frame = rk.evaluate(run, qrels, MEASURES, per_query=per_query)
    if per_query:
        expected, frame = expected.sort("query", "measure"), frame.sort("query", "measure")
    assert frame.drop("value").equals(expected.drop("value"))
    assert bits(frame) == bits(expected)
    duckdb_frame = rk.evaluate(run, qrels, MEASURES, per_query=per_query, engine="duckdb")
    if per_query:
        duckdb_frame = duckdb_frame.sort("query", "measure")
    exact = ~pl.col("measure").str.starts_with("nDCG")
    assert bits(frame.filter(exact)) == bits(duckdb_frame.filter(exact))
    difference = (frame["value"] - duckdb_frame["value"]).abs().max()
    assert difference is not None and difference <= 1e-15
