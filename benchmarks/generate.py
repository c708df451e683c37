"""Seeded synthetic run and qrels for the benchmarks, written as Parquet.

* run: ``query, item, score`` with ``--depth`` (100) items per query, rows grouped by
  query and in rank order (as a TREC run file is);
* qrels: ``query, item, relevance`` with about ``--judged`` (10) judged items per query,
  grades 0-3, every query with at least one relevant item; about half of the judged items
  are retrieved, biased to the top of the ranking, the rest are not retrieved.

``--ties`` draws scores from a handful of distinct values, so that trec_eval's tie
break (score descending, then item id descending) decides most of the order.

Everything is vectorised (numpy + polars) and written chunk by chunk, so 100M rows
(``--queries 1000000``) take well under a minute and a few GiB.

    python benchmarks/generate.py --queries 10000          # 1M run rows
    python benchmarks/generate.py --queries 100000 --ties  # 10M run rows, tie-heavy
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported lazily: run.py imports Spec and must stay small in memory
    import numpy as np
    import polars as pl

DATA = Path(__file__).resolve().parent / "data"
CHUNK_QUERIES = 50_000  # 5M run rows per chunk at depth 100
GRADE_P = (0.45, 0.30, 0.15, 0.10)  # relevance 0, 1, 2, 3


@dataclass(frozen=True)
class Spec:
    queries: int
    depth: int = 100
    judged: int = 10
    ties: bool = False
    seed: int = 42
    int_ids: bool = False
    shuffle: bool = False

    @property
    def stem(self) -> str:
        name = f"q{self.queries}_d{self.depth}_j{self.judged}_s{self.seed}"
        flags = [("_ties", self.ties), ("_int", self.int_ids), ("_shuffled", self.shuffle)]
        return name + "".join(flag for flag, on in flags if on)

    def paths(self, data: Path = DATA) -> tuple[Path, Path]:
        return data / f"run_{self.stem}.parquet", data / f"qrels_{self.stem}.parquet"


def _ids(prefix: str, numbers: np.ndarray, name: str, spec: Spec) -> pl.Series:
    import polars as pl

    if spec.int_ids:
        return pl.Series(name, numbers, dtype=pl.Int64)
    return pl.select((pl.lit(prefix) + pl.Series(numbers).cast(pl.String)).alias(name)).to_series()


def _chunk(
    spec: Spec, first_query: int, n: int, rng: np.random.Generator
) -> tuple[pl.DataFrame, pl.DataFrame]:
    import numpy as np
    import polars as pl

    d, j = spec.depth, spec.judged
    # items: slot s of a query draws from its own block of ids, so a query never
    # repeats an item; the slot is unrelated to the score, so ids carry no rank signal
    block = 1_000
    items = np.arange(d, dtype=np.int64) * block + rng.integers(0, block, size=(n, d))
    if spec.ties:
        scores = rng.integers(0, 5, size=(n, d)).astype(np.float64) / 4.0
    else:
        scores = rng.random(size=(n, d))
    # rows in score order (ties in any order: the evaluators break them by item id);
    # the generator only needs an approximate rank to bias the judgments to the top
    order = np.argsort(-scores, axis=1, kind="stable")
    ranked_items = np.take_along_axis(items, order, axis=1)
    ranked_scores = np.take_along_axis(scores, order, axis=1)

    queries = np.arange(first_query, first_query + n, dtype=np.int64)
    run = pl.DataFrame(
        {
            "query": _ids("q", np.repeat(queries, d), "query", spec),
            "item": _ids("d", ranked_items.ravel(), "item", spec),
            "score": ranked_scores.ravel(),
        }
    )

    if spec.shuffle:  # rows in no particular order (within a chunk of queries)
        run = run.sample(fraction=1.0, shuffle=True, seed=spec.seed + first_query)

    # judged, retrieved: j/2 picks per query, rank biased to the top (u^2)
    half = j // 2
    ranks = np.minimum((rng.random(size=(n, half)) ** 2 * d).astype(np.int64), d - 1)
    judged_ret = np.take_along_axis(ranked_items, ranks, axis=1)
    # judged, not retrieved: ids above every retrieved block (from 100 blocks, or 10 per
    # judgment for a deep query, so that a million judgments are nearly all distinct)
    unret_blocks = max(100, 10 * j)
    judged_unret = d * block + rng.integers(0, unret_blocks * block, size=(n, j - half))
    judged_items = np.concatenate([judged_ret, judged_unret], axis=1)
    grades = rng.choice(len(GRADE_P), size=(n, j), p=GRADE_P).astype(np.int64)
    grades[:, 0] = np.maximum(grades[:, 0], 1)  # every query has a relevant item
    qrels = pl.DataFrame(
        {
            "query": np.repeat(queries, j),
            "item": judged_items.ravel(),
            "relevance": grades.ravel(),
        }
    ).unique(subset=["query", "item"], keep="first", maintain_order=True)
    if not spec.int_ids:
        qrels = qrels.select(
            (pl.lit("q") + pl.col("query").cast(pl.String)).alias("query"),
            (pl.lit("d") + pl.col("item").cast(pl.String)).alias("item"),
            "relevance",
        )
    return run, qrels


def generate(
    spec: Spec, *, data: Path = DATA, force: bool = False, quiet: bool = False
) -> tuple[Path, Path]:
    """Write the run and qrels Parquet files of ``spec`` (unless they exist)."""
    import numpy as np
    import pyarrow.parquet as pq

    run_path, qrels_path = spec.paths(data)
    if not force and run_path.exists() and qrels_path.exists():
        return run_path, qrels_path
    data.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    rng = np.random.default_rng(spec.seed)
    tmp_run, tmp_qrels = (
        run_path.with_suffix(".parquet.tmp"),
        qrels_path.with_suffix(".parquet.tmp"),
    )
    run_writer = qrels_writer = None
    rows = judged = 0
    try:
        for first in range(0, spec.queries, CHUNK_QUERIES):
            n = min(CHUNK_QUERIES, spec.queries - first)
            run, qrels = _chunk(spec, first, n, rng)
            run_table, qrels_table = run.to_arrow(), qrels.to_arrow()
            if run_writer is None:
                run_writer = pq.ParquetWriter(tmp_run, run_table.schema, compression="zstd")
                qrels_writer = pq.ParquetWriter(tmp_qrels, qrels_table.schema, compression="zstd")
            run_writer.write_table(run_table, row_group_size=1_000_000)
            qrels_writer.write_table(qrels_table, row_group_size=1_000_000)
            rows += run.height
            judged += qrels.height
    finally:
        if run_writer is not None:
            run_writer.close()
        if qrels_writer is not None:
            qrels_writer.close()
    tmp_run.replace(run_path)
    tmp_qrels.replace(qrels_path)
    if not quiet:
        print(
            f"wrote {rows:,} run rows to {run_path} and {judged:,} qrels rows to "
            f"{qrels_path} in {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
        )
    return run_path, qrels_path


def ranked_path(run_path: Path) -> Path:
    """Where :func:`write_ranked` puts the rank-given copy of a run file."""
    return run_path.with_name(run_path.stem + "_ranked.parquet")


def write_ranked(run_path: Path, *, force: bool = False) -> Path:
    """The run as the design card's shape ``query, rank, item``: rank 1..n per query in
    trec_eval's order (score as float32 descending, then item descending), rows in the
    run file's order; written once next to the run (streaming, so 100M rows fit)."""
    import polars as pl

    out = ranked_path(run_path)
    if out.exists() and not force:
        return out
    order = pl.struct(pl.col("score").cast(pl.Float32), pl.col("item").cast(pl.String))
    rank = order.rank("ordinal", descending=True).over("query").cast(pl.Int64)
    tmp = out.with_suffix(".parquet.tmp")
    pl.scan_parquet(run_path).select("query", rank.alias("rank"), "item").sink_parquet(
        tmp, compression="zstd", row_group_size=1_000_000
    )
    tmp.replace(out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--queries", type=int, default=10_000, help="queries (default 10000 = 1M run rows)"
    )
    parser.add_argument("--depth", type=int, default=100, help="run rows per query (default 100)")
    parser.add_argument("--judged", type=int, default=10, help="judgments per query (default 10)")
    parser.add_argument("--ties", action="store_true", help="tie-heavy scores (5 distinct values)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--shuffle", action="store_true", help="run rows in random order, not by query and rank"
    )
    parser.add_argument(
        "--int-ids",
        action="store_true",
        help="Int64 query and item ids instead of strings (q1, d2)",
    )
    parser.add_argument(
        "--data", type=Path, default=DATA, help="output folder (default benchmarks/data)"
    )
    parser.add_argument("--force", action="store_true", help="rewrite existing files")
    parser.add_argument("--json", action="store_true", help="print paths and row counts as JSON")
    parser.add_argument(
        "--ranked",
        action="store_true",
        help="also write the run as query, rank, item (RUN_ranked.parquet; see write_ranked)",
    )
    args = parser.parse_args(argv)
    if args.queries < 1 or args.depth < 1 or args.judged < 2:
        parser.error("--queries and --depth must be >= 1, --judged >= 2")
    spec = Spec(
        args.queries, args.depth, args.judged, args.ties, args.seed, args.int_ids, args.shuffle
    )
    run_path, qrels_path = generate(spec, data=args.data, force=args.force)
    ranked = write_ranked(run_path, force=args.force) if args.ranked else None
    if args.json:
        import pyarrow.parquet as pq

        print(
            json.dumps(
                {
                    "run": str(run_path),
                    "qrels": str(qrels_path),
                    "run_rows": pq.ParquetFile(run_path).metadata.num_rows,
                    "qrels_rows": pq.ParquetFile(qrels_path).metadata.num_rows,
                    **({"ranked": str(ranked)} if ranked else {}),
                }
            )
        )
    else:
        print(run_path)
        print(qrels_path)
        if ranked:
            print(ranked)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
