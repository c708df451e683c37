"""examples/duckdb_dashboard.sql runs in the DuckDB CLI (duckdb-cli, 1.5.x) and gives
the polars engine's numbers; sql/rankeval.sql loads there."""

from __future__ import annotations

import importlib.util
import io
import subprocess
import sys
import warnings
from pathlib import Path

import polars as pl
import pytest

import polars_rankeval as rk

ROOT = Path(__file__).resolve().parents[2]
# the duckdb-cli package runs its binary with `python -m duckdb_cli`
CLI = [sys.executable, "-m", "duckdb_cli"]
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("duckdb_cli") is None, reason="duckdb-cli is not installed"
)
MEASURES = ["MAP", "nDCG@10", "nDCG@20", "P@5", "P@10", "Recall@100", "MRR"]


def test_dashboard_example_in_the_cli():
    out = subprocess.run(
        [*CLI, "-csv"], stdin=(ROOT / "examples" / "duckdb_dashboard.sql").open(),
        capture_output=True, text=True, cwd=ROOT, check=True, timeout=300,
    )
    sql = pl.read_csv(io.StringIO(out.stdout))
    assert sql.columns == ["system", "day", "measure", "value"]
    frames = []
    for system in ("bm25", "dense", "hybrid"):
        frames.append(
            pl.read_csv(ROOT / "examples" / "data" / "compare" / f"{system}.run", separator=" ",
                        has_header=False,
                        new_columns=["qid", "q0", "doc_id", "rank", "sim", "system"],
                        schema_overrides={"qid": pl.String, "doc_id": pl.String})
        )
    runs = pl.concat(frames).select("system", "qid", "doc_id", "sim")
    qrels = pl.read_csv(ROOT / "examples" / "data" / "compare" / "qrels.txt", separator=" ",
                        has_header=False, new_columns=["qid", "iter", "doc_id", "grade"],
                        schema_overrides={"qid": pl.String, "doc_id": pl.String})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = rk.evaluate(runs, qrels.select("qid", "doc_id", "grade"), MEASURES,
                               by="system", query="qid", item="doc_id", score="sim",
                               relevance="grade")
    assert sql.height == 3 * len(MEASURES)
    joined = expected.join(sql, on=["system", "measure"], how="full", suffix="_sql")
    assert joined.height == sql.height
    assert (joined["value"] - joined["value_sql"]).abs().max() < 1e-9
