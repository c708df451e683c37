"""sql/rankeval.sql's rankeval_summary adds the per-query values one after the other in
trec_eval's query order (the query as text), as the polars engine's summary does
(engines/finish.py ``aggregate``): the same bits on every call, whatever the number of
DuckDB threads, where a parallel AVG's last bits depended on them.

Measured on measures whose per-query values do not depend on an order of addition
(counts, a minimum): the per-query sums of AP or nDCG (``_raw_sums``) still add their
rows in the order the threads deliver them.  (The polars engine's own per-query P@k can
differ from SQL's in the last bit, e.g. 0.30000000000000004 vs 3/10 = 0.3, so the
reference here is SQL's per-query values added in Python, and polars within 1e-12.)"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

import polars_rankeval as rk

SQL = Path(__file__).resolve().parents[2] / "sql" / "rankeval.sql"
MEASURES = ["P@10", "R@100", "RR", "Success@5", "NumRet", "NumRelRet"]


def make_data(queries: int, seed: int = 7) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Random scores (30 items a query) and graded judgments; rows in a shuffled order,
    so no engine sees the queries sorted."""
    rng = np.random.default_rng(seed)
    n = queries * 30
    run = pl.DataFrame(
        {
            "system": rng.choice(["a", "b"], n),
            "query": [f"q{q}" for q in rng.permutation(np.repeat(np.arange(queries), 30))],
            "item": [f"d{i}" for i in rng.integers(0, 10**9, n)],
            "score": rng.random(n),
        }
    ).unique(["system", "query", "item"], maintain_order=True)
    judged = run.sample(fraction=0.3, seed=seed).select("query", "item").unique(maintain_order=True)
    qrels = judged.with_columns(
        relevance=pl.Series(rng.integers(0, 4, judged.height), dtype=pl.Int64)
    )
    return run, qrels


def sequential_means(per_query: pl.DataFrame, by: list[str]) -> dict[tuple, float]:
    """Each (group, measure)'s mean (the sum for the count measures) with the values
    added one by one in query-text order."""
    out: dict[tuple, list[float]] = {}
    rows = per_query.sort([*by, pl.col("query").cast(pl.String)]).iter_rows(named=True)
    for row in rows:
        key = (*(row[b] for b in by), row["measure"])
        total, count = out.get(key, [0.0, 0])
        out[key] = [total + row["value"], count + 1]
    sums = {name for name in MEASURES if rk.parse_measure(name).family.aggregate == "sum"}
    assert sums == {"NumRet", "NumRelRet"}
    return {key: total if key[-1] in sums else total / count for key, (total, count) in out.items()}


@pytest.fixture(scope="module")
def database() -> tuple[duckdb.DuckDBPyConnection, pl.DataFrame, pl.DataFrame]:
    """One database with the macros and the data, and the data (installing
    sql/rankeval.sql costs ~0.18 CPU s: once here, not once per thread count and
    grouping); each call sets its thread count."""
    con = duckdb.connect()
    con.execute(SQL.read_text())
    run, qrels = make_data(3000)
    con.register("runs", run.to_arrow())
    con.register("judgments", qrels.to_arrow())
    return con, run, qrels


@pytest.mark.parametrize("by", [[], ["system"]])
def test_summary_adds_in_query_order_on_any_thread_count(
    database: tuple[duckdb.DuckDBPyConnection, pl.DataFrame, pl.DataFrame], by: list[str]
) -> None:
    con, run, qrels = database
    call = f"('runs', 'judgments', {MEASURES!r}, by := {by!r})"
    summaries = []
    for threads in (1, 2, 4):
        con.execute(f"SET threads = {threads}")
        assert con.execute("SELECT current_setting('threads')").fetchall() == [(threads,)]
        if threads == 1:
            expected = sequential_means(con.sql(f"SELECT * FROM rankeval_per_query{call}").pl(), by)
        got = con.sql(f"SELECT * FROM rankeval_summary{call}").pl()
        summaries.append(got)
        assert got.height == len(expected) == len(MEASURES) * (2 if by else 1)
        for row in got.iter_rows(named=True):
            # bit for bit: no tolerance
            assert row["value"] == expected[(*(row[b] for b in by), row["measure"])], row
    polars = rk.evaluate(run, qrels, MEASURES, by=by)
    joined = polars.join(summaries[0], on=[*by, "measure"], how="full", suffix="_sql")
    assert joined.filter((pl.col("value") - pl.col("value_sql")).abs() > 1e-12).height == 0
