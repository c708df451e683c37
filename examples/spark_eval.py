"""Evaluate on Spark: the SQL twin rendered for Spark SQL, run on pyspark DataFrames.

    pip install 'polars_rankeval[spark]'   # pyspark + sqlglot; Spark needs Java 17
    python examples/spark_eval.py

The numbers equal polars_rankeval.evaluate's to 1e-9.
"""

import importlib.util
import os
import sys
from pathlib import Path

import polars as pl

import polars_rankeval as rk

# The extra brings pyspark and sqlglot (the SQL renderer); without them, say so and stop.
MISSING = [m for m in ("pyspark", "sqlglot") if importlib.util.find_spec(m) is None]
if MISSING:
    print(
        f"examples/spark_eval.py needs {' and '.join(MISSING)}: "
        "pip install 'polars_rankeval[spark]' (Spark also needs Java 17)",
        file=sys.stderr,
    )
    sys.exit(0)  # a missing optional extra is not a failure of the example

from polars_rankeval.spark import evaluate

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
from pyspark.sql import SparkSession

DATA = Path(__file__).parent / "data"

spark = (
    SparkSession.builder.master("local[2]")
    .appName("polars_rankeval example")
    .config("spark.ui.enabled", "false")
    .config("spark.ui.showConsoleProgress", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")

# On a cluster these would be spark.read.parquet("s3://.../run/") and friends.
run_df = spark.read.parquet(str(DATA / "quickstart_run.parquet"))  # query, item, score
qrels_df = spark.read.parquet(str(DATA / "quickstart_qrels.parquet"))  # query, item, relevance

measures = ["AP", "nDCG@10", "P@10", "R@10", "RR"]
summary = evaluate(run_df, qrels_df, measures)  # a pyspark DataFrame: measure, value
summary.cache()  # shown here and compared below: computed once
summary.show()

per_query = evaluate(run_df, qrels_df, ["AP@10"], per_query=True, conventions="spark")
per_query.orderBy("value", ascending=False).show(3)

# Same numbers as the polars engine.
expected = rk.evaluate(
    pl.read_parquet(DATA / "quickstart_run.parquet"),
    pl.read_parquet(DATA / "quickstart_qrels.parquet"),
    measures,
)
got = {row["measure"]: row["value"] for row in summary.collect()}
assert all(abs(got[m] - v) < 1e-9 for m, v in expected.iter_rows()), (got, expected)
print("Spark equals the polars engine to 1e-9")
spark.stop()
