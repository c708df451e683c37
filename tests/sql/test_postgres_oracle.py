"""The rendered SQL on a real PostgreSQL against independent values, not the polars engine:
the other tools' formulas (``test_conventions_independent``) for the non-default
conventions.  pytrec_eval for every measure trec_eval has (the GRID of
``test_sql_parity``) is checked in ``test_postgres.py::test_grid_matches_polars``, on the
same statements as the polars parity.

Skipped, with the reason, only when PostgreSQL's binaries are absent (as
``test_postgres.py``, whose throwaway cluster it uses).
"""

from __future__ import annotations

import random

import polars as pl
import pytest

from polars_rankeval.sql import render
from tests.oracles.test_conventions_independent import ITEMS, Qrels, Run, _expected, _frames
from tests.sql import test_postgres
from tests.sql.test_postgres import MISSING, Postgres

cluster = test_postgres.postgres  # test_postgres' module-scoped cluster, as a fixture

pytest.importorskip("sqlglot")
pytestmark = pytest.mark.skipif(bool(MISSING), reason="PostgreSQL not installed")


def _per_query(server: Postgres, run: pl.DataFrame, qrels: pl.DataFrame, names: list[str]):
    server.load("run", run)
    server.load("qrels", qrels)
    sql = render(names, "postgres", run_table="run", qrels_table="qrels", per_query=True)
    schema = {"query": run.schema["query"], "measure": pl.String, "value": pl.Float64}
    return server.query(sql, schema)


def random_conventions_case(seed: int, queries: int) -> tuple[Run, Qrels]:
    """Distinct scores (the order of the list), grades 0..3, every query judged."""
    rng = random.Random(seed)
    run: Run = {}
    qrels: Qrels = {}
    for q in range(queries):
        run[f"q{q}"] = rng.sample(ITEMS, rng.randint(1, len(ITEMS)))
        judged = rng.sample(ITEMS, rng.randint(1, len(ITEMS)))
        qrels[f"q{q}"] = {d: rng.choice((0, 0, 1, 2, 3)) for d in judged}
    return run, qrels


def test_conventions_equal_the_other_tools_formulas(cluster: Postgres) -> None:
    run, qrels = random_conventions_case(5, 30)
    expected = _expected(run, qrels)
    names = sorted({m for _, m in expected})
    got = _per_query(cluster, *_frames(run, qrels), names)
    values = {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}
    bad = [(k, values.get(k), v) for k, v in expected.items()
           if values.get(k) is None or abs(values[k] - v) > 1e-9]  # fmt: skip
    assert not bad, bad
