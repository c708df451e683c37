"""Quickstart: evaluate a ranking stored in Parquet, lazily, with trec_eval's numbers.

    python examples/quickstart.py   # from the repository root, as the README's code

The code below is the README's quickstart block, character for character (a test checks).
"""

from pathlib import Path

import polars as pl

import polars_rankeval as rk  # registers the `rankeval` namespace

DATA = Path("examples/data")  # run from the repository root

run = pl.scan_parquet(DATA / "quickstart_run.parquet")  # query, item, score
qrels = pl.scan_parquet(DATA / "quickstart_qrels.parquet")  # query, item, relevance (0-3)

# Mean over queries; a LazyFrame in gives a LazyFrame out, computed on collect().
report = rk.evaluate(run, qrels, ["AP", "nDCG@10", "P@10", "R@10", "RR"])
print(report.collect())

# The same through the namespace, per query, with Kaggle's AP@k (divide by min(R, k)).
per_query = run.rankeval.evaluate(qrels, ["AP@10"], per_query=True, conventions="kaggle")
print(per_query.sort("value", "query").head(3).collect())

# Graded relevance: count only grades >= 2 as relevant (trec_eval -l2).
print(rk.evaluate(run, qrels, ["P@10", "AP"], rel=2).collect())
