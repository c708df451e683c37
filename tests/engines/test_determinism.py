"""Determinism as a contract (README "Numbers are deterministic"): the same input gives
bit-identical values, summary and per query, on every call, eager, lazy and streaming,
in both engines, whatever the input row order; and the two engines agree (the same bits
but for nDCG's last bit)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval._registry import REGISTRY
from polars_rankeval.diversity import DIVERSITY
from tests.helpers import FULL_PROFILE

MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR", "nDCG", "Bpref", "GMAP", "NumRelRet"]


@pytest.fixture(scope="module")
def data() -> tuple[pl.DataFrame, pl.DataFrame]:
    """10k queries x 30 rows (20k under the full profile): enough rows that polars and
    DuckDB split the work across threads and chunks (the non-deterministic sums this
    guards against showed at 20k).  The ~300k run rows still go through polars'
    streaming engine in several morsels (4 of 75k rows on 2 cores)."""
    rng = np.random.default_rng(7)
    n_queries, depth = (20_000 if FULL_PROFILE else 10_000), 30
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


def repeated_calls() -> list:
    """The paths of :data:`CALLS`, each once (twice under the full profile): each call
    of a test takes an input row order of its own, so that equal bits hold across calls,
    paths and row orders at once (a result that varied with the threads' timing would
    differ between calls as well)."""
    return [*CALLS.values()] * (2 if FULL_PROFILE else 1)


@pytest.fixture(scope="module")
def eager(data):
    """``eager(engine, per_query)``: the eager call on the generated row order, computed
    once for the tests that compare it (across paths and row orders, across engines)."""
    run, qrels = data
    cache: dict[tuple[str, bool], pl.DataFrame] = {}

    def result(engine: str, per_query: bool) -> pl.DataFrame:
        if (engine, per_query) not in cache:
            cache[(engine, per_query)] = rk.evaluate(
                run, qrels, MEASURES, per_query=per_query, engine=engine
            )
        return cache[(engine, per_query)]

    return result


@pytest.mark.parametrize("per_query", [False, True], ids=["summary", "per_query"])
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_bit_identical_on_every_call_and_path(data, eager, engine: str, per_query: bool) -> None:
    """The eager call on the generated row order, then every path on shuffled rows."""
    run, qrels = data
    first = eager(engine, per_query)
    results = {bits(first.sort("query", "measure") if per_query else first)}
    for seed, call in enumerate(repeated_calls()):
        shuffled = run.sample(fraction=1.0, shuffle=True, seed=seed)  # any input row order
        frame = call(shuffled, qrels, engine=engine, per_query=per_query)
        if per_query:
            frame = frame.sort("query", "measure")
        results.add(bits(frame))
    assert len(results) == 1


@pytest.mark.parametrize("per_query", [False, True], ids=["summary", "per_query"])
def test_engines_agree(eager, per_query: bool) -> None:
    """The engines give the same bits for every measure but nDCG, whose discount polars
    takes as log2 (trec_eval's) and the portable SQL as LN(x)/LN(2): within 1e-15."""
    polars_frame, duckdb_frame = eager("polars", per_query), eager("duckdb", per_query)
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
    frames = []
    for seed, call in enumerate(repeated_calls()):
        shuffled = run.sample(fraction=1.0, shuffle=True, seed=seed)
        frame = call(shuffled, qrels, per_query=per_query)
        frames.append(frame.sort("query", "measure") if per_query else frame)
    assert len({bits(frame) for frame in frames}) == 1
    frame = frames[0]  # the eager path's
    expected = rk.evaluate(twin, qrels, MEASURES, per_query=per_query)
    if per_query:
        expected = expected.sort("query", "measure")
    assert frame.drop("value").equals(expected.drop("value"))
    assert bits(frame) == bits(expected)
    duckdb_frame = rk.evaluate(run, qrels, MEASURES, per_query=per_query, engine="duckdb")
    if per_query:
        duckdb_frame = duckdb_frame.sort("query", "measure")
    exact = ~pl.col("measure").str.starts_with("nDCG")
    assert bits(frame.filter(exact)) == bits(duckdb_frame.filter(exact))
    difference = (frame["value"] - duckdb_frame["value"]).abs().max()
    assert difference is not None and difference <= 1e-15


@pytest.fixture(scope="module")
def graded() -> tuple[pl.DataFrame, pl.DataFrame]:
    """500 queries x 40 rows (1.5k under the full profile) with repeated (query, item)
    rows and grades 0..4: the paths that keep every run row (duplicates="first", no
    qrels) rather than the judged ones.  What these tests hold is a query's own sums
    (rank order, whatever the input order), which do not need more queries."""
    rng = np.random.default_rng(3)
    n_queries, depth = (1_500 if FULL_PROFILE else 500), 40
    run = pl.DataFrame({
        "query": np.repeat(np.arange(n_queries), depth).astype(str),
        "item": rng.integers(0, 400, n_queries * depth).astype(str),
        "score": rng.random(n_queries * depth).round(2),
    })
    qrels = pl.DataFrame({
        "query": np.repeat(np.arange(n_queries), 15).astype(str),
        "item": rng.integers(0, 400, n_queries * 15).astype(str),
        "relevance": rng.integers(0, 5, n_queries * 15),
    }).unique(["query", "item"], keep="first", maintain_order=True)
    return run, qrels


# every family with a SQL twin in both engines (the diversity family needs subtopics)
EVERY_FAMILY = [name for name in sorted(REGISTRY) if name not in DIVERSITY]
# their arithmetic takes a logarithm, a power or an exponential, whose last bit differs
# between polars (Rust's libm) and DuckDB (C's); every other family adds, multiplies and
# divides the same doubles in the same order in both engines
LIBM_FAMILIES = {
    "nDCG", "nDCG_rel", "RnDCG", "G", "RBP", "RBP_resid", "ERR", "Compat",
    "INST", "INSQ", "SDCG", "BPM", "NERR8", "NERR9", "NERR10", "NERR11",
}


def _every_row_call(path: str, run: pl.DataFrame, qrels: pl.DataFrame, engine: str):
    """The call of ``path`` on ``run`` (any row order)."""
    if path == "duplicates_first":
        return rk.evaluate(run, qrels, EVERY_FAMILY, per_query=True, duplicates="first",
                           engine=engine)
    with_relevance = run.unique(["query", "item"], keep="first").join(
        qrels, on=["query", "item"], how="left"
    ).with_columns(pl.col("relevance").fill_null(0))
    return rk.evaluate(with_relevance, None, ["AP", "nDCG", "RR", "P@10", "RBP", "ERR", "Bpref"],
                       per_query=True, relevant="relevance", engine=engine)


@pytest.mark.filterwarnings("ignore:duplicates='first'")
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("path", ["duplicates_first", "no_qrels"])
def test_paths_over_every_run_row_are_bit_identical_whatever_the_row_order(
    graded, engine: str, path: str
) -> None:
    """The paths that aggregate every run row add a query's values in rank order too: the
    polars engine once added them in input order there (a last-bit difference per row
    order, seen with duplicates="first" and with no qrels)."""
    run, qrels = graded
    if path == "no_qrels":  # one row per (query, item), so that every order keeps the same
        run = run.unique(["query", "item"], keep="first", maintain_order=True)
    results = set()
    for seed in range(3):
        shuffled = run.sample(fraction=1.0, shuffle=True, seed=seed)
        results.add(bits(_every_row_call(path, shuffled, qrels, engine).sort("query", "measure")))
    assert len(results) == 1


@pytest.mark.filterwarnings("ignore:duplicates='first'")
@pytest.mark.parametrize("duplicates", ["error", "first"])
def test_engines_agree_on_every_family(graded, duplicates: str) -> None:
    """Every family, per query, graded: the same bits in both engines, but for the
    families that call libm (LIBM_FAMILIES), which agree to 1e-15."""
    run, qrels = graded
    if duplicates == "error":
        run = run.unique(["query", "item"], keep="first", maintain_order=True)
    frames = [
        rk.evaluate(run, qrels, EVERY_FAMILY, per_query=True, duplicates=duplicates,
                    engine=engine).sort("query", "measure")
        for engine in ("polars", "duckdb")
    ]
    assert frames[0].drop("value").equals(frames[1].drop("value"))
    exact = ~pl.col("measure").is_in(sorted(LIBM_FAMILIES))
    polars_exact, duckdb_exact = (frame.filter(exact) for frame in frames)
    assert polars_exact["measure"].n_unique() == len(EVERY_FAMILY) - len(LIBM_FAMILIES)
    assert bits(polars_exact) == bits(duckdb_exact)
    difference = (frames[0]["value"] - frames[1]["value"]).abs().max()
    assert difference is not None and difference <= 1e-15


def test_engines_agree_under_average_ties(graded) -> None:
    """ties="average": every family that has its expectation, per query, to 1e-15 (the
    tie formulas take LGAMMA in SQL, products in polars: not the same bits)."""
    run, qrels = graded
    run = run.unique(["query", "item"], keep="first", maintain_order=True)
    measures = ["AP", "AP@10", "P@10", "RelP@10", "R@20", "RR", "nDCG", "nDCG@10",
                "Success@5", "Rprec", "NumRet", "NumRel", "NumRelRet",
                "NumNonRelJudgedRet", "INSQ", "SDCG@10"]
    frames = [
        rk.evaluate(run, qrels, measures, per_query=True, ties="average",
                    engine=engine).sort("query", "measure")
        for engine in ("polars", "duckdb")
    ]
    assert frames[0].drop("value").equals(frames[1].drop("value"))
    assert frames[0].height == len(measures) * run["query"].n_unique()
    difference = (frames[0]["value"] - frames[1]["value"]).abs().max()
    assert difference is not None and difference <= 1e-15
