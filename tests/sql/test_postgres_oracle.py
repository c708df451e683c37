"""The rendered SQL on a real PostgreSQL against independent values, not the polars engine:
the other tools' formulas (``tests/conventions.py``) for the non-default
conventions.  pytrec_eval for every measure trec_eval has (the GRID of
``test_sql_parity``) is checked in ``test_postgres.py::test_grid_matches_polars``, on the
same statements as the polars parity.

Skipped, with the reason, only when PostgreSQL's binaries are absent (as
``test_postgres.py``; the throwaway cluster of ``tests/sql/postgres_cluster.py``,
started once per worker by the ``postgres`` fixture of ``tests/sql/conftest.py``).
"""

from __future__ import annotations

import polars as pl
import pytest

from polars_rankeval.sql import render
from tests.conventions import conventions_frames, expected_values, random_conventions_case
from tests.sql.postgres_cluster import MISSING, Postgres

pytest.importorskip("sqlglot")
pytestmark = pytest.mark.skipif(bool(MISSING), reason="PostgreSQL not installed")


def _per_query(server: Postgres, run: pl.DataFrame, qrels: pl.DataFrame, names: list[str]):
    server.load("run", run)
    server.load("qrels", qrels)
    sql = render(names, "postgres", run_table="run", qrels_table="qrels", per_query=True)
    schema = {"query": run.schema["query"], "measure": pl.String, "value": pl.Float64}
    return server.query(sql, schema)


def test_conventions_equal_the_other_tools_formulas(postgres: Postgres) -> None:
    run, qrels = random_conventions_case(5, 30)
    expected = expected_values(run, qrels)
    names = sorted({m for _, m in expected})
    got = _per_query(postgres, *conventions_frames(run, qrels), names)
    values = {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}
    bad = [(k, values.get(k), v) for k, v in expected.items()
           if values.get(k) is None or abs(values[k] - v) > 1e-9]  # fmt: skip
    assert not bad, bad
