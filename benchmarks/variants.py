"""One benchmark variant, run as its own process by ``run.py``.

    python benchmarks/variants.py VARIANT RUN.parquet QRELS.parquet '["AP", "nDCG@10"]'

Each variant reads the two Parquet files, evaluates the measures and prints one JSON
line on stdout: ``{"status": "ok" | "skipped" | "n/a", "means": {measure: mean},
"seconds": {...}, "note": ...}``.  Imports happen inside the variant, so the process
pays for exactly what a user of that tool pays for.  Measure names are ours
(ir_measures' grammar); each peer translates them to its own.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

Means = dict[str, float]
Result = dict[str, object]

# --------------------------------------------------------------------------- names

_NAME = re.compile(r"^(?P<family>[A-Za-z]+)(?:@(?P<k>\d+))?$")


def _split(name: str) -> tuple[str, int | None]:
    match = _NAME.match(name)
    if match is None:
        raise ValueError(f"benchmark measure {name!r}: only plain Name or Name@k is supported")
    k = match["k"]
    return match["family"], None if k is None else int(k)


def trec_eval_names(names: list[str]) -> tuple[set[str], Callable[[dict[str, float]], Means]]:
    """pytrec_eval measure specs for our names, and a function mapping one query's
    pytrec_eval result to our names (RR@k derived from recip_rank: trec_eval has no
    cutoff on it)."""
    specs: dict[str, set[int]] = {}
    getters: dict[str, Callable[[dict[str, float]], float]] = {}
    for name in names:
        family, k = _split(name)
        if family == "RR":
            specs.setdefault("recip_rank", set())
            if k is None:
                getters[name] = lambda r: r["recip_rank"]
            else:
                # first relevant at position <= k  <=>  recip_rank >= 1/k
                getters[name] = lambda r, k=k: (
                    r["recip_rank"] if r["recip_rank"] * k >= 1 - 1e-12 else 0.0
                )
            continue
        base, plain = {
            "AP": ("map_cut", "map"),
            "nDCG": ("ndcg_cut", "ndcg"),
            "P": ("P", "set_P"),
            "R": ("recall", "set_recall"),
            "Success": ("success", None),
            "Rprec": (None, "Rprec"),
        }[family]
        if k is None:
            if plain is None:
                raise ValueError(f"{name}: needs a cutoff for trec_eval")
            specs.setdefault(plain, set())
            getters[name] = lambda r, key=plain: r[key]
        else:
            if base is None:
                raise ValueError(f"{name}: trec_eval has no cutoff for it")
            specs.setdefault(base, set()).add(k)
            getters[name] = lambda r, key=f"{base}_{k}": r[key]
    measure_specs = {
        base if not ks else f"{base}.{','.join(str(k) for k in sorted(ks))}"
        for base, ks in specs.items()
    }

    def convert(result: dict[str, float]) -> Means:
        return {name: get(result) for name, get in getters.items()}

    return measure_specs, convert


def ranx_names(names: list[str]) -> dict[str, str]:
    """Our name -> ranx metric name."""
    out = {}
    for name in names:
        family, k = _split(name)
        base = {
            "AP": "map",
            "nDCG": "ndcg",
            "P": "precision",
            "R": "recall",
            "RR": "mrr",
            "Success": "hit_rate",
            "Rprec": "r-precision",
        }[family]
        out[name] = base if k is None else f"{base}@{k}"
    return out


# --------------------------------------------------------------------------- variants


def floor_plan(run_path: str, qrels_path: str) -> pl.LazyFrame:
    """The floor's plan: scan both files, join, count per query (also timed in-process
    by ``profile_polars.py --decompose``)."""
    import polars as pl

    run = pl.scan_parquet(run_path)
    qrels = pl.scan_parquet(qrels_path)
    return (
        run.join(qrels, on=["query", "item"], how="left")
        .group_by("query")
        .agg(pl.len().alias("n"), pl.col("relevance").sum().alias("rel"))
        .select(pl.col("n").mean(), pl.col("rel").mean())
    )


def floor(run_path: str, qrels_path: str, names: list[str], **collect: object) -> Result:
    """The least any evaluation must do: scan both files, join, count per query."""
    import polars  # noqa: F401  (imported before the clock starts, as before)

    started = time.perf_counter()
    out = floor_plan(run_path, qrels_path).collect(**collect)
    return {"means": {}, "seconds": {"eval": time.perf_counter() - started}, "check": out.row(0)}


def floor_sorted_plan(run_path: str, qrels_path: str) -> pl.LazyFrame:
    """The sorted floor's plan: the floor plus ``score`` ranked descending within its
    query."""
    import polars as pl

    run = pl.scan_parquet(run_path).with_columns(
        pl.col("score").rank("ordinal", descending=True).over("query").alias("pos")
    )
    qrels = pl.scan_parquet(qrels_path)
    return (
        run.join(qrels, on=["query", "item"], how="left")
        .group_by("query")
        .agg(pl.len().alias("n"), pl.col("relevance").sum().alias("rel"), pl.col("pos").max())
        .select(pl.col("n").mean(), pl.col("rel").mean(), pl.col("pos").mean())
    )


def floor_sorted(run_path: str, qrels_path: str, names: list[str]) -> Result:
    """The floor plus the rank window every score-only run needs (``score`` ranked
    descending within its query): what ranking alone adds."""
    import polars  # noqa: F401  (imported before the clock starts, as before)

    started = time.perf_counter()
    out = floor_sorted_plan(run_path, qrels_path).collect()
    return {"means": {}, "seconds": {"eval": time.perf_counter() - started}, "check": out.row(0)}


def ranked_run_path(run_path: str) -> str:
    """The rank-given copy of a run file (``generate.py --ranked`` writes it)."""
    return run_path.removesuffix(".parquet") + "_ranked.parquet"


def polars_rank_given(run_path: str, qrels_path: str, names: list[str]) -> Result:
    """The design card's shape: a ``query, rank, item`` run (ranks 1..n, trec_eval's
    order), evaluated by its ranks (``score=None``)."""
    import polars as pl

    import polars_rankeval as rk

    started = time.perf_counter()
    run = pl.scan_parquet(ranked_run_path(run_path))
    qrels = pl.scan_parquet(qrels_path)
    result = rk.evaluate(run, qrels, names, score=None).collect()
    means = dict(zip(result["measure"].to_list(), result["value"].to_list(), strict=True))
    return {"means": means, "seconds": {"eval": time.perf_counter() - started}}


def _partitioned(run_path: str, qrels_path: str, names: list[str], **options: object) -> Result:
    """Issue 15's memory idea, outside the package: the queries split by a hash of their
    id into ``BENCH_PARTS`` (default 4) partitions, each evaluated per query and collected
    on its own, then averaged; the peak memory follows the largest partition."""
    import os

    import polars as pl

    import polars_rankeval as rk

    parts = int(os.environ.get("BENCH_PARTS", "4"))
    started = time.perf_counter()
    run, qrels = pl.scan_parquet(run_path), pl.scan_parquet(qrels_path)
    frames = []
    for part in range(parts):
        pick = pl.col("query").hash() % parts == part
        per_query = rk.evaluate(run.filter(pick), qrels.filter(pick), names, per_query=True,
                                **options)  # type: ignore[arg-type]
        frames.append(per_query.collect())
    # means over the queries in query order, whatever the partitions
    result = pl.concat(frames).sort("query").group_by("measure").agg(pl.col("value").mean())
    means = dict(zip(result["measure"].to_list(), result["value"].to_list(), strict=True))
    return {"means": means, "seconds": {"eval": time.perf_counter() - started}}


def polars_partitioned(run_path: str, qrels_path: str, names: list[str]) -> Result:
    return _partitioned(run_path, qrels_path, names)


def polars_rank_partitioned(run_path: str, qrels_path: str, names: list[str]) -> Result:
    return _partitioned(ranked_run_path(run_path), qrels_path, names, score=None)


def _ours(run_path: str, qrels_path: str, names: list[str], **collect: object) -> Result:
    import polars as pl

    import polars_rankeval as rk

    started = time.perf_counter()
    run = pl.scan_parquet(run_path)
    qrels = pl.scan_parquet(qrels_path)
    result = rk.evaluate(run, qrels, names).collect(**collect)
    means = dict(zip(result["measure"].to_list(), result["value"].to_list(), strict=True))
    return {"means": means, "seconds": {"eval": time.perf_counter() - started}}


def floor_in_memory(run_path: str, qrels_path: str, names: list[str]) -> Result:
    return floor(run_path, qrels_path, names, engine="in-memory")


def polars_engine(run_path: str, qrels_path: str, names: list[str]) -> Result:
    """``collect()`` as a user writes it: engine "auto", the streaming engine in polars 2
    unless POLARS_ENGINE_AFFINITY says otherwise."""
    return _ours(run_path, qrels_path, names)


def polars_in_memory(run_path: str, qrels_path: str, names: list[str]) -> Result:
    return _ours(run_path, qrels_path, names, engine="in-memory")


def polars_streaming(run_path: str, qrels_path: str, names: list[str]) -> Result:
    return _ours(run_path, qrels_path, names, engine="streaming")


def duckdb_engine(run_path: str, qrels_path: str, names: list[str]) -> Result:
    import polars as pl

    import polars_rankeval as rk

    started = time.perf_counter()
    try:
        result = rk.evaluate(
            pl.scan_parquet(run_path), pl.scan_parquet(qrels_path), names, engine="duckdb"
        )
        if isinstance(result, pl.LazyFrame):
            result = result.collect()
    except (ImportError, NotImplementedError) as error:
        return {
            "status": "n/a",
            "note": f"DuckDB engine not available: {type(error).__name__}: {error}",
        }
    means = dict(zip(result["measure"].to_list(), result["value"].to_list(), strict=True))
    return {"means": means, "seconds": {"eval": time.perf_counter() - started}}


def pytrec_eval_variant(run_path: str, qrels_path: str, names: list[str]) -> Result:
    try:
        import pytrec_eval
    except ImportError:
        return {"status": "skipped", "note": "pytrec_eval not installed (pip install -e .[bench])"}
    import polars as pl

    started = time.perf_counter()
    run_df = pl.read_parquet(run_path)
    qrels_df = pl.read_parquet(qrels_path)
    read = time.perf_counter()
    run: dict[str, dict[str, float]] = {}
    for q, d, s in zip(
        run_df["query"].to_list(), run_df["item"].to_list(), run_df["score"].to_list()
    ):
        run.setdefault(q, {})[d] = s
    qrels: dict[str, dict[str, int]] = {}
    for q, d, r in zip(
        qrels_df["query"].to_list(), qrels_df["item"].to_list(), qrels_df["relevance"].to_list()
    ):
        qrels.setdefault(q, {})[d] = r
    del run_df, qrels_df
    built = time.perf_counter()
    specs, convert = trec_eval_names(names)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, specs).evaluate(run)
    evaluated = time.perf_counter()
    sums = dict.fromkeys(names, 0.0)
    for result in per_query.values():
        for name, value in convert(result).items():
            sums[name] += value
    means = {name: total / len(per_query) for name, total in sums.items()}
    return {
        "means": means,
        "seconds": {
            "read": read - started,
            "build": built - read,
            "eval": evaluated - built,
            "total": time.perf_counter() - started,
        },
    }


def ranx_variant(run_path: str, qrels_path: str, names: list[str]) -> Result:
    try:
        import ranx
    except ImportError:
        return {"status": "skipped", "note": "ranx not installed (pip install -e .[bench])"}
    import polars as pl

    started = time.perf_counter()
    run_pd = pl.read_parquet(run_path).to_pandas()
    qrels_pd = pl.read_parquet(qrels_path).to_pandas()
    # ranx asserts object (Python str) id columns; pandas >= 3 infers a string dtype
    for frame in (run_pd, qrels_pd):
        for column in ("query", "item"):
            frame[column] = frame[column].astype(object)
    read = time.perf_counter()
    mapping = ranx_names(names)
    metrics = list(mapping.values())

    def once() -> tuple[dict[str, float], float, float, float]:
        t0 = time.perf_counter()
        c0 = time.process_time()
        qrels = ranx.Qrels.from_df(
            qrels_pd, q_id_col="query", doc_id_col="item", score_col="relevance"
        )
        run = ranx.Run.from_df(run_pd, q_id_col="query", doc_id_col="item", score_col="score")
        t1 = time.perf_counter()
        scores = ranx.evaluate(qrels, run, metrics, make_comparable=False)
        if not isinstance(scores, dict):  # one metric: a float
            scores = {metrics[0]: scores}
        return scores, t1 - t0, time.perf_counter() - t1, time.process_time() - c0

    # first call: numba JIT compile (or load from numba's on-disk cache) included;
    # second call, same process: what a notebook user sees on re-evaluating
    first, build, evaluate, first_cpu = once()
    total = time.perf_counter() - started
    second, build_warm, evaluate_warm, second_cpu = once()
    if first != second:
        raise RuntimeError(f"ranx gave different results on a second call: {first} {second}")
    means = {name: float(first[metric]) for name, metric in mapping.items()}
    return {
        "means": means,
        "seconds": {
            "read": read - started,
            "build": build,
            "eval": evaluate,
            "total": total,
            "build_warm": build_warm,
            "eval_warm": evaluate_warm,
        },
        # run.py derives a process doing one call: wall - second (cold), wall - first (warm)
        "first_call": build + evaluate,
        "second_call": build_warm + evaluate_warm,
        "first_cpu": first_cpu,
        "second_cpu": second_cpu,
    }


def ir_measures_variant(run_path: str, qrels_path: str, names: list[str]) -> Result:
    try:
        import ir_measures
    except ImportError:
        return {"status": "skipped", "note": "ir_measures not installed (pip install -e .[bench])"}
    import polars as pl

    started = time.perf_counter()
    run = pl.read_parquet(run_path).rename({"query": "query_id", "item": "doc_id"}).to_pandas()
    qrels = pl.read_parquet(qrels_path).rename({"query": "query_id", "item": "doc_id"}).to_pandas()
    read = time.perf_counter()
    measures = [ir_measures.parse_measure(name) for name in names]
    result = ir_measures.calc_aggregate(measures, qrels, run)
    means = {str(m): float(v) for m, v in result.items()}
    means = {name: means[str(ir_measures.parse_measure(name))] for name in names}
    return {
        "means": means,
        "seconds": {"read": read - started, "eval": time.perf_counter() - read},
    }


VARIANTS: dict[str, Callable[[str, str, list[str]], Result]] = {
    "floor": floor,
    "floor-in-memory": floor_in_memory,
    "floor-sorted": floor_sorted,
    "polars-rank": polars_rank_given,
    "polars-parts": polars_partitioned,
    "polars-rank-parts": polars_rank_partitioned,
    "polars": polars_engine,
    "polars-in-memory": polars_in_memory,
    "polars-streaming": polars_streaming,
    "duckdb": duckdb_engine,
    "pytrec_eval": pytrec_eval_variant,
    "ranx": ranx_variant,
    "ir_measures": ir_measures_variant,
    "polars-20": polars_engine,
}


def main(argv: list[str]) -> int:
    if len(argv) != 4 or argv[0] not in VARIANTS:
        print(__doc__, file=sys.stderr)
        print(f"variants: {', '.join(VARIANTS)}", file=sys.stderr)
        return 2
    variant, run_path, qrels_path, names_json = argv
    names = json.loads(names_json)
    result = {"status": "ok", **VARIANTS[variant](run_path, qrels_path, names)}
    print(json.dumps({"variant": variant, **result}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
