"""What reproducible bits cost: the ordered summary against a plain parallel mean.

Issue 13 asks for bit-identical summaries on every call and a measured cost (target
<= 5% at 10M rows).  The summary adds the per-query values one after the other in
trec_eval's query order (``engines/finish.summarize``: a sort by query, then
``cum_sum().last()``); the variant measured against it is what a plain polars program
would write, ``mean()`` / ``sum()`` over an unsorted frame, whose last bits can change
from call to call.  Both run in this process on the same Parquet files, alternating
(A B A B ...), and the ratio of the medians is printed.

    python benchmarks/determinism_cost.py                 # 10M run rows (generated once)
    python benchmarks/determinism_cost.py --queries 1000 --repeats 3   # a quick look
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import Spec, generate

import polars_rankeval as rk
from polars_rankeval.engines import finish

MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR"]


def _plain_summarize(
    wide: pl.LazyFrame, keys: list[str], measures: Sequence[Any], names: Sequence[str]
) -> pl.LazyFrame:
    """The summary without a defined order: polars' parallel mean/sum/geometric mean."""
    by_keys = keys[:-1]

    def plain(i: int, m: Any) -> pl.Expr:
        values = pl.col(finish.value_column(i))
        if m.family.aggregate == "sum":
            return values.sum()
        if m.family.aggregate == "gmean":
            return values.clip(lower_bound=finish.GMEAN_FLOOR).log().mean().exp()
        return values.mean()

    aggregates = [plain(i, m) for i, m in enumerate(measures)]
    summary = wide.group_by(by_keys).agg(*aggregates) if by_keys else wide.select(*aggregates)
    return finish.long_frame(summary, by_keys, names)


@contextmanager
def _summarize_with(function: Callable[..., pl.LazyFrame]):
    kept = finish.summarize
    finish.summarize = function
    try:
        yield
    finally:
        finish.summarize = kept


def _timed(run_path: Path, qrels_path: Path) -> tuple[float, pl.DataFrame]:
    start = time.perf_counter()
    summary = rk.evaluate(
        pl.scan_parquet(run_path), pl.scan_parquet(qrels_path), MEASURES
    ).collect()
    return time.perf_counter() - start, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=100_000, help="x 100 run rows")
    parser.add_argument("--repeats", type=int, default=5, help="calls per variant")
    args = parser.parse_args(argv)
    run_path, qrels_path = generate(Spec(args.queries, 100, 10, False, 42, False, False))
    _timed(run_path, qrels_path)  # warm the file cache and polars' thread pool
    times: dict[str, list[float]] = {"ordered": [], "plain": []}
    distinct: dict[str, set[tuple[float, ...]]] = {"ordered": set(), "plain": set()}
    for _ in range(args.repeats):
        for variant in ("ordered", "plain"):
            function = finish.summarize if variant == "ordered" else _plain_summarize
            with _summarize_with(function):
                seconds, summary = _timed(run_path, qrels_path)
            times[variant].append(seconds)
            distinct[variant].add(tuple(summary["value"].to_list()))
    ordered, plain = (statistics.median(times[v]) for v in ("ordered", "plain"))
    print(f"run rows: {args.queries * 100:,}; load average: {os.getloadavg()[0]:.2f}")
    for variant in ("ordered", "plain"):
        median = statistics.median(times[variant])
        print(
            f"{variant:8} median {median:.3f} s over {args.repeats} calls, "
            f"{len(distinct[variant])} distinct summaries"
        )
    print(f"cost of the ordered summary: {ordered / plain - 1:+.1%} (ratio {ordered / plain:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
