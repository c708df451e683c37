"""The fixed cost of one small ``rk.evaluate`` call per engine (issue 12).

A 5-row run with 3 judgments and 8 measures, evaluated eagerly: what a notebook cell, a
unit test or a dashboard tile pays per call when the data is tiny, so that the time is
planning, not work.  Both engines run in this one process, alternating (polars, duckdb,
polars, ...) after one warm-up call each (the first DuckDB call also installs the entry
macros); the medians and their ratio are printed, with the load average.  The values of
the two engines are compared first (to 1e-9), so a fast wrong engine cannot pass.

    python benchmarks/duckdb_fixed_cost.py                # 15 calls per engine
    python benchmarks/duckdb_fixed_cost.py --calls 5      # a quick look (CI smoke)
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import polars as pl

import polars_rankeval as rk

MEASURES = ["AP", "nDCG@10", "P@5", "R@100", "RR", "Rprec", "bpref", "num_rel_ret"]
RUN = pl.DataFrame(
    {"query": ["q1", "q1", "q1", "q2", "q2"], "item": ["a", "b", "c", "a", "d"],
     "score": [3.0, 2.0, 1.0, 2.0, 1.0]}
)
QRELS = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["a", "c", "d"], "relevance": [1, 2, 1]})


def _call(engine: str) -> tuple[float, pl.DataFrame]:
    start = time.perf_counter()
    result = rk.evaluate(RUN, QRELS, MEASURES, engine=engine)
    return time.perf_counter() - start, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=15, help="timed calls per engine")
    parser.add_argument("--smoke", action="store_true", help="3 calls: the script runs")
    args = parser.parse_args(argv)
    calls = 3 if args.smoke else args.calls
    _, polars_values = _call("polars")
    _, duckdb_values = _call("duckdb")
    a, b = polars_values["value"].to_list(), duckdb_values["value"].to_list()
    if duckdb_values["measure"].to_list() != MEASURES or any(
        abs(x - y) > 1e-9 for x, y in zip(a, b, strict=True)
    ):
        print(f"the engines disagree:\n{polars_values}\n{duckdb_values}")
        return 1
    times: dict[str, list[float]] = {"polars": [], "duckdb": []}
    for _ in range(calls):
        for engine, taken in times.items():
            taken.append(_call(engine)[0])
    polars_s, duckdb_s = (statistics.median(times[e]) for e in ("polars", "duckdb"))
    print(f"load average at the end: {os.getloadavg()[0]:.2f}; {calls} calls per engine")
    print("| engine | median s per call | ratio to polars |")
    print("|---|---|---|")
    print(f"| polars | {polars_s:.4f} | 1.0 |")
    print(f"| duckdb | {duckdb_s:.4f} | {duckdb_s / polars_s:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
