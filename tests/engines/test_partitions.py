"""Query-hash partitions (issue 15): ``evaluate(partitions=n)`` evaluates the queries in n
partitions one after the other, for bounded memory.  The contract: the same bits as one
partition, per query and in the summary, for every measure family and option; the same
errors and warnings, counted over the whole run; and the count chosen from the row count
when that is known without reading the rows.

The reference is the same call with ``partitions=1`` (the plan without partitions,
itself held to the oracles and to trec_eval elsewhere)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval._errors import InputError
from polars_rankeval.engines import partitions as partitions_module
from polars_rankeval.engines import polars as engine
from polars_rankeval.engines.partitions import known_rows

FAMILIES = list(rk.REGISTRY)
AVERAGE_FAMILIES = ["AP", "P", "R", "RR", "nDCG", "Success", "Rprec", "NumRet", "NumRelRet"]
PARTS = [2, 5]


def _data(seed: int = 3) -> tuple[pl.DataFrame, pl.DataFrame]:
    """300 queries of two systems: tied scores, run-only and qrels-only queries."""
    rng = np.random.default_rng(seed)
    n_queries, depth = 300, 12
    queries = np.repeat(np.arange(n_queries), depth).astype(str)
    run = pl.DataFrame({
        "system": np.tile(np.repeat(["a", "b"], depth // 2), n_queries),
        "query": queries,
        "item": rng.integers(0, 40, n_queries * depth).astype(str),
        "score": rng.integers(0, 6, n_queries * depth).astype(float),  # ties
    }).unique(["system", "query", "item"], keep="first", maintain_order=True)
    qrels = pl.DataFrame({
        "query": np.repeat(np.arange(20, n_queries + 20), 6).astype(str),  # 20 qrels-only
        "item": rng.integers(0, 40, n_queries * 6).astype(str),
        "relevance": rng.integers(0, 4, n_queries * 6),
    }).unique(["query", "item"], keep="first", maintain_order=True)
    return run, qrels


DATA = _data()


def _bits(frame: pl.DataFrame) -> tuple[list[object], bytes]:
    keys = [c for c in frame.columns if c != "value"]
    frame = frame.sort(keys, nulls_last=True)
    return frame.drop("value").rows(), frame["value"].cast(pl.Float64).to_numpy().tobytes()


def _same_bits(run: pl.DataFrame, qrels: pl.DataFrame | None, measures: list[str],
               **options: object) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for per_query in (False, True):
            one = rk.evaluate(run, qrels, measures, per_query=per_query, partitions=1, **options)
            for parts in PARTS:
                split = rk.evaluate(
                    run.lazy(), None if qrels is None else qrels.lazy(), measures,
                    per_query=per_query, partitions=parts, **options,
                ).collect()
                assert _bits(split) == _bits(one), (parts, per_query, options)


@pytest.mark.parametrize("by", [None, "system"], ids=["one_run", "by"])
@pytest.mark.parametrize("complete", [False, True], ids=["default", "complete"])
def test_every_family_same_bits(by: str | None, complete: bool) -> None:
    run, qrels = DATA
    if by is None:
        run = run.filter(pl.col("system") == "a")
    _same_bits(run, qrels, FAMILIES, by=by, complete=complete)


@pytest.mark.parametrize(
    "options",
    [
        {"ties": "average"},
        {"top": 4},
        {"duplicates": "first"},
        {"rel": 2},
        {"conventions": "kaggle"},
    ],
    ids=["ties_average", "top", "duplicates_first", "rel", "kaggle"],
)
def test_options_same_bits(options: dict[str, object]) -> None:
    run, qrels = DATA
    run = run.filter(pl.col("system") == "a")
    if options.get("duplicates") == "first":
        run = pl.concat([run, run.head(50).with_columns(pl.col("score") - 1)])
    measures = AVERAGE_FAMILIES if "ties" in options else [*FAMILIES[:20], "GMAP", "nDCG@5"]
    _same_bits(run, qrels, measures, **options)


def test_without_qrels_same_bits() -> None:
    run = DATA[0]
    run = run.filter(pl.col("system") == "a").with_columns(relevant=pl.col("score") > 3)
    _same_bits(run, None, ["AP", "nDCG@5", "P@3", "RR", "GMAP"])


def test_rank_given_misranked_queries_same_bits() -> None:
    """The rank-given fast path: valid ranks, and queries whose ranks have gaps or
    repeats (the fall-back to trec_eval's ranking) spread over the partitions."""
    run, qrels = DATA
    ranked = run.filter(pl.col("system") == "a").with_columns(
        rank=pl.col("score").rank("ordinal", descending=True).over("query").cast(pl.Int64)
    )
    bad = pl.col("query").cast(pl.Int64) % 7 == 0
    ranked = ranked.with_columns(
        rank=pl.when(bad).then(pl.col("rank") * 2 - (pl.col("rank") % 3 == 0)).otherwise("rank")
    ).drop("score")
    _same_bits(ranked, qrels, ["AP", "nDCG@5", "P@3", "R@10", "RR", "Rprec", "NumRet"])


def _outcome(run: pl.DataFrame, qrels: pl.DataFrame | None, parts: int,
             **options: object) -> tuple[str, list[str]]:
    """The error message (or "ok") and the warnings of one call."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            rk.evaluate(
                run.lazy(), None if qrels is None else qrels.lazy(), ["AP", "P@5"],
                partitions=parts, **options,
            ).collect()
            message = "ok"
        except InputError as error:
            message = str(error)
    return message, [str(w.message) for w in caught]


def _bad_inputs() -> dict[str, tuple[pl.DataFrame, pl.DataFrame | None, dict[str, object]]]:
    run, qrels = DATA
    run = run.filter(pl.col("system") == "a").drop("system")
    spread = pl.col("query").is_in(["3", "150", "297"])  # queries of different partitions
    return {
        "duplicates": (pl.concat([run, run.filter(spread)]), qrels, {}),
        "duplicates_first": (pl.concat([run, run.filter(spread)]), qrels,
                             {"duplicates": "first"}),
        "null_query": (run.with_columns(query=pl.when(spread).then(None).otherwise("query")),
                       qrels, {}),
        "null_item": (run.with_columns(item=pl.when(spread).then(None).otherwise("item")),
                      qrels, {}),
        "nan_score": (run.with_columns(score=pl.when(spread).then(float("nan"))
                                       .otherwise("score")), qrels, {}),
        "qrels_duplicates": (run, pl.concat([qrels, qrels.filter(spread)]), {}),
        "no_shared_query": (run.with_columns(pl.col("query") + "x"), qrels, {}),
        "complete_no_qrels": (run.with_columns(relevant=pl.lit(1)), None, {"complete": True}),
        "qrels_only_and_run_only": (run, qrels, {"complete": True}),
        "empty_run": (run.clear(), qrels, {}),
    }


@pytest.mark.parametrize("case", list(_bad_inputs()))
def test_same_errors_and_warnings(case: str) -> None:
    """The whole-run checks count over every partition: the same message, counts and
    example rows, and the same warnings (skipped queries, dropped duplicates), once."""
    run, qrels, options = _bad_inputs()[case]
    expected = _outcome(run, qrels, 1, **options)
    assert expected != ("ok", [])
    for parts in PARTS:
        assert _outcome(run, qrels, parts, **options) == expected


def test_known_rows(tmp_path: Path) -> None:
    frame = pl.DataFrame({"query": ["q1", "q2", "q3"], "item": ["a", "b", "c"]})
    path = tmp_path / "run.parquet"
    frame.write_parquet(path)
    assert known_rows(frame) == 3
    assert known_rows(pl.scan_parquet(path)) == 3
    assert known_rows(pl.scan_parquet(path).select("query", "item")) == 3
    assert known_rows(pl.scan_parquet(path).filter(pl.col("query") == "q1")) is None
    assert known_rows(pl.scan_parquet(path).join(frame.lazy(), on="query")) is None


@pytest.mark.filterwarnings("ignore::polars_rankeval.RankevalWarning")
def test_count_follows_the_row_count(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """partitions=None: one partition per ROWS_PER_PARTITION rows of a Parquet scan; an
    explicit count wins; a LazyFrame of unknown length is one partition; at most
    MAX_PARTITIONS."""
    run, qrels = DATA
    run = run.filter(pl.col("system") == "a")
    path = tmp_path / "run.parquet"
    run.write_parquet(path)
    used: list[int] = []
    original = engine._per_query_judged

    def spy(spec, **kwargs):  # type: ignore[no-untyped-def]
        used.append(kwargs.get("parts", 1))
        return original(spec, **kwargs)

    monkeypatch.setattr(engine, "_per_query_judged", spy)
    monkeypatch.setattr(partitions_module, "ROWS_PER_PARTITION", 300)
    expected = -(-run.height // 300)
    calls = [
        (pl.scan_parquet(path), {}), (run, {}), (run.lazy().filter(pl.col("score") > -1), {}),
        (pl.scan_parquet(path), {"partitions": 2}),
    ]
    for frame, options in calls:
        rk.evaluate(frame, qrels.lazy(), ["AP"], **options).collect()  # type: ignore[arg-type]
    monkeypatch.setattr(partitions_module, "MAX_PARTITIONS", 3)
    rk.evaluate(run, qrels, ["AP"])
    assert used == [expected, expected, 1, 2, 3]
    assert expected > 3


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "2"])
def test_bad_partitions(value: object) -> None:
    run, qrels = DATA
    with pytest.raises(InputError, match="partitions="):
        rk.evaluate(run, qrels, ["AP"], partitions=value)  # type: ignore[arg-type]


def test_partitions_only_for_the_polars_engine() -> None:
    run, qrels = DATA
    with pytest.raises(InputError, match="engine='polars'"):
        rk.evaluate(run, qrels, ["AP"], partitions=2, engine="duckdb")


def test_known_rows_reads_no_rows_of_a_csv(tmp_path: Path) -> None:
    """A CSV's row count needs its rows read: unknown, so one partition by default."""
    path = tmp_path / "run.csv"
    pl.DataFrame({"query": ["q1", "q2"]}).write_csv(path)
    assert known_rows(pl.scan_csv(path)) is None


@pytest.mark.filterwarnings("ignore::polars_rankeval.RankevalWarning")
def test_streaming_collect_same_bits() -> None:
    """The partitions are collected inside the plan (``pl.defer``): a streaming
    ``collect`` of the result gives the same bits too."""
    run, qrels = DATA
    one = rk.evaluate(run, qrels, ["AP", "nDCG@5", "GMAP"], by="system", partitions=1)
    split = rk.evaluate(
        run.lazy(), qrels.lazy(), ["AP", "nDCG@5", "GMAP"], by="system", partitions=3
    ).collect(engine="streaming")
    assert _bits(split) == _bits(one)


def test_diversity_measures_take_one_partition(monkeypatch: pytest.MonkeyPatch) -> None:
    """Subtopic qrels (diversity measures) take their own path, in one partition."""
    qrels = pl.DataFrame({"query": ["q", "q", "r"], "subtopic": ["1", "2", "1"],
                          "item": ["b", "a", "a"], "relevance": [1, 1, 1]})  # fmt: skip
    run = pl.DataFrame({"query": ["q", "q", "r"], "item": ["a", "b", "a"],
                        "score": [2.0, 1.0, 1.0]})  # fmt: skip
    used: list[int] = []
    original = engine._partitioned

    def spy(spec, parts, **kwargs):  # type: ignore[no-untyped-def]
        used.append(parts)
        return original(spec, parts, **kwargs)

    monkeypatch.setattr(engine, "_partitioned", spy)
    names = ["alpha_nDCG@2", "AP"]
    split = rk.evaluate(run, qrels, names, per_query=True, partitions=3)
    assert split.equals(rk.evaluate(run, qrels, names, per_query=True, partitions=1))
    assert used == []
    rk.evaluate(run, qrels.drop("subtopic"), ["AP"], partitions=3)
    assert used == [3]
