"""The SQL twin in DuckDB: the same numbers as polars, from SQL alone or from Python.

    python examples/duckdb_sql.py

1. ``install(con)`` creates the ``rankeval_*`` macros of ``sql/rankeval.sql`` in a DuckDB
   connection; they read tables or Parquet files by name. ``rankeval_summary`` with no
   measures named gives trec_eval's default set at ``k := 10``; the per-family macros
   return ``query, measure, value`` rows. (The DuckDB CLI does the same with
   ``.read sql/rankeval.sql``.)
2. ``rk.evaluate(..., engine="duckdb")`` runs an evaluation through those macros.
3. ``render(...)`` prints the SQL for a warehouse (needs ``polars_rankeval[sql]``).
"""

import importlib.util
from pathlib import Path

import duckdb
import polars as pl

import polars_rankeval as rk
from polars_rankeval.duckdb import install

DATA = Path(__file__).parent / "data"
RUN = str(DATA / "quickstart_run.parquet")  # query, item, score
QRELS = str(DATA / "quickstart_qrels.parquet")  # query, item, relevance (0-3)

con = duckdb.connect()
install(con)

# trec_eval's summary ("all" line) in one pass: means over queries, sums for the counts.
print(
    con.sql(
        "SELECT * FROM rankeval_summary($run, $qrels, k := 10)", params={"run": RUN, "qrels": QRELS}
    ).pl()
)

# One measure family, with its conventions as named parameters, per query.
per_query = con.sql(
    "SELECT query, measure, value FROM rankeval_AP($run, $qrels, k := 10, norm := 'min') "
    "ORDER BY value DESC, query LIMIT 3",
    params={"run": RUN, "qrels": QRELS},
).pl()
print(per_query)

# The same evaluation through the polars API, computed by DuckDB ...
run, qrels = pl.scan_parquet(RUN), pl.scan_parquet(QRELS)
measures = ["AP", "nDCG@10", "P@10", "R@10", "RR"]
duck = rk.evaluate(run, qrels, measures, engine="duckdb").collect()
# ... equals the polars engine to 1e-9
native = rk.evaluate(run, qrels, measures).collect()
assert (duck["value"] - native["value"]).abs().max() < 1e-9
print(duck)

if importlib.util.find_spec("sqlglot") is None:
    # The warehouse renderer is an optional extra: say which, rather than skip in silence.
    print("Skipped rendering SQL for a warehouse: it needs sqlglot, "
          "pip install 'polars_rankeval[sql]'")
else:
    from polars_rankeval.sql import render

    sql = render(
        ["AP@10", "nDCG@10"], "spark", run_table="runs", qrels_table="qrels", per_query=False
    )
    print(f"Spark SQL for the same evaluation: {len(sql.splitlines())} lines, starting")
    print("\n".join(sql.splitlines()[:6]))
