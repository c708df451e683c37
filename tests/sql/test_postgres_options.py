"""The rendered SQL with every option of evaluate on a real PostgreSQL: two grouping
columns (``by``), custom column names (one with a space), ``complete``, ``top``,
``duplicates="first"`` and ``rel``; per query and summary equal to the polars engine to
1e-9 and, per query, to pytrec_eval (trec_eval's measures; ``warehouse_cases``).

Skipped, with the reason, only when PostgreSQL's binaries are absent (as
``test_postgres.py``; the throwaway cluster of ``tests/sql/postgres_cluster.py``,
started once per worker by the ``postgres`` fixture of ``tests/sql/conftest.py``).
"""

from __future__ import annotations

import polars as pl
import pytest

from polars_rankeval.sql import render
from tests.parity import assert_oracle, assert_same
from tests.sql.postgres_cluster import MISSING, Postgres
from tests.sql.warehouse_cases import (
    MEASURES,
    OPTIONS,
    both_option_cases,
    option_case,
    polars_values,
    pytrec_expected,
    with_group,
)  # fmt: skip

pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(MISSING), reason="PostgreSQL not installed")]


def _values(server: Postgres, want: pl.DataFrame, *, per_query: bool) -> pl.DataFrame:
    sql = render(MEASURES, "postgres", run_table="runs", qrels_table=("public", "judgments"),
                 per_query=per_query, **OPTIONS)  # fmt: skip
    return server.query(sql, dict(want.schema))


def test_options_equal_polars_and_pytrec_eval(postgres: Postgres) -> None:
    """A run without repeated rows and one with (systems "A+repeated", "B+repeated") in one
    statement per output shape: each (system, day) group equals polars; the groups
    without repeated rows equal pytrec_eval too."""
    run, qrels = both_option_cases(41, 12)
    postgres.load("runs", run)
    postgres.load("judgments", qrels)
    # repeated rows have no trec_eval counterpart
    expected = pytrec_expected(run.filter(~pl.col("system").str.ends_with("+repeated")), qrels)
    assert len(expected) > 1000
    for per_query in (True, False):
        want = polars_values(run, qrels, per_query=per_query)
        assert want.filter(pl.col("system").str.ends_with("+repeated")).height > 0
        got = _values(postgres, want, per_query=per_query)
        assert_same(got, want, what=f"postgres per_query={per_query}")
        # the statement orders the rows: groups, (query,) measures as given
        assert got.drop("value").rows() == want.sort(got.columns[:-2], maintain_order=True).drop(
            "value"
        ).rows()
        assert_oracle(with_group(got), expected, by="group", per_query=per_query)


def test_bad_rows_raise_in_postgres(postgres: Postgres) -> None:
    run, qrels = option_case(42, 3, duplicates=True)
    postgres.load("runs", run)
    postgres.load("judgments", qrels)
    options = dict(OPTIONS, duplicates="error")
    sql = render(["AP"], "postgres", run_table="runs", qrels_table="judgments", **options)
    with pytest.raises(RuntimeError, match=r"run: duplicate \(query, item\) rows"):
        postgres.psql(sql)
