"""The rendered SQL on a real PostgreSQL: a throwaway cluster (initdb in a temp dir, C
collation, listening on 127.0.0.1 only, trust auth), loaded with COPY through psql, must
match the polars engine to 1e-9.  The cluster: ``tests/sql/postgres_cluster.py``, started
once per worker by the ``postgres`` fixture (``tests/sql/conftest.py``).

Skipped, with the reason, only when PostgreSQL's binaries are absent; ``.ci/install_engines.sh``
installs them (Debian package ``postgresql``).
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from polars_rankeval.sql import render
from tests.parity import (
    GRID,
    NO_NUMREL,
    Expected,
    assert_oracle,
    assert_same,
    oracle,
    polars_reference,
    random_cases,
    stacked_cases,
)
from tests.sql.postgres_cluster import MISSING, Postgres
from tests.sql.warehouse_cases import cover

pytest.importorskip("sqlglot")

pytestmark = [
    pytest.mark.slow,  # a cluster starts for these tests
    pytest.mark.skipif(
        bool(MISSING),
        reason=f"PostgreSQL not installed (no {', '.join(MISSING)}): run .ci/install_engines.sh",
    ),
]


# every family, parameter value, cutoff or none and rel level at least once (the whole
# GRID under HYPOTHESIS_PROFILE=full): a statement's CPU, and its polars reference's,
# grows with its measures
POSTGRES_GRID = cover(GRID)


def _check(
    server: Postgres,
    run: pl.DataFrame,
    qrels: pl.DataFrame | None,
    names: list[str],
    collation: str | None = None,
    *,
    expected: Expected | None = None,
    **kw: Any,
) -> None:
    """Per query and summary equal to polars (and to ``expected``, pytrec_eval's values,
    when given)."""
    render_kw = {k: v for k, v in kw.items() if k in ("score", "relevant")}
    server.load("run", run, collation)
    if qrels is not None:
        server.load("qrels", qrels, collation)
    for per_query in (True, False):
        sql = render(
            names, "postgres", run_table="run", qrels_table="qrels" if qrels is not None else None,
            per_query=per_query, **render_kw,
        )  # fmt: skip
        want = polars_reference(run, qrels, names, per_query=per_query, **kw)
        got = server.query(sql, dict(want.schema))
        assert_same(got, want, what=f"postgres per_query={per_query}")
        if expected is not None:
            assert_oracle(got, expected, by=None, per_query=per_query)


@pytest.mark.parametrize("int_ids", [False, True], ids=["text_ids", "int_ids"])
def test_grid_matches_polars(postgres: Postgres, int_ids: bool) -> None:
    """Two case sets (seeds 7 and 21) in one statement per output shape: equal to polars
    and, per query and on the mean, to pytrec_eval wherever it has the measure."""
    data = stacked_cases((7, 21), 25, int_ids=int_ids)
    expected = oracle(data["run"], data["qrels"], POSTGRES_GRID)
    assert len(expected) > 200  # the grid's trec_eval measures on 50 cases
    _check(postgres, data["run"], data["qrels"], POSTGRES_GRID, expected=expected)


def test_rank_column_and_no_qrels(postgres: Postgres) -> None:
    data = random_cases(8, 15, int_ids=False)
    _check(postgres, data["ranked"], data["qrels"], POSTGRES_GRID, score=None)
    _check(postgres, data["labels"], None, cover(NO_NUMREL))


def test_byte_order_tie_break(postgres: Postgres) -> None:
    """Equal scores: item descending in byte order ("é" > "e" > "b" > "a" > "B" > "A" >
    "9" > "10"), even in columns whose collation orders otherwise (the render adds
    COLLATE "C")."""
    items = ["A", "B", "a", "b", "10", "9", "é", "e"]
    run = pl.DataFrame({"query": ["q"] * len(items), "item": items, "score": [1.0] * len(items)})
    names = ["AP", "RR", "nDCG@3", "P@1", "P@2", "nDCG@5"]
    icu = postgres.psql("SELECT count(*) FROM pg_collation WHERE collname = 'und-x-icu'")
    collations = [None, "und-x-icu"] if icu.strip() == "1" else [None]
    for relevant in items:
        other = "A" if relevant != "A" else "b"
        qrels = pl.DataFrame({"query": ["q", "q"], "item": [relevant, other], "relevance": [2, 1]})
        for collation in collations:
            _check(postgres, run, qrels, names, collation)


def _jit_planned(server: Postgres, jit: str, names: list[str]) -> bool:
    sql = render(names, "postgres", run_table="run", qrels_table="qrels", per_query=False)
    plan = server.psql(f"SET jit = {jit}; EXPLAIN {sql}")
    return any(line.strip() == "JIT:" for line in plan.splitlines())


def test_jit_compiles_long_measure_lists_unless_off(postgres: Postgres) -> None:
    """README: with PostgreSQL's default jit = on, the statement of a long measure list
    is planned for LLVM compilation even on a few hundred rows (its cost estimate passes
    jit_above_cost; measured 82 s against 3.7 s with jit = off, benchmarks/RESULTS.md),
    a short list is not, and SET jit = off turns it off (EXPLAIN only: nothing runs)."""
    data = random_cases(7, 25, int_ids=False)
    postgres.load("run", data["run"])
    postgres.load("qrels", data["qrels"])
    assert len(GRID) > 500
    assert _jit_planned(postgres, "on", GRID)
    assert not _jit_planned(postgres, "off", GRID)
    assert not _jit_planned(postgres, "on", ["AP", "nDCG@10", "P@10", "R@100", "RR"])


@pytest.mark.parametrize(("scores", "rr"), [
    ([1e308, 1e39, -1e308], 1 / 2),  # a and b both +inf in a C float: tied, b (item desc) first
    ([-1e39, -1e308, 1.0], 1 / 3),  # c, then a and b both -inf: b first, a third
    ([1e-50, 1e-60, -1.0], 1 / 2),  # a and b both 0 in a C float (below its least subnormal)
    ([3.4028235e38, 3.4028234e38, 1.0], 1 / 2),  # both round to FLT_MAX: tied, b first
])  # fmt: skip
def test_scores_beyond_float_range_compare_as_trec_eval_s_float(postgres: Postgres,
                                                                 scores: list[float],
                                                                 rr: float) -> None:
    """trec_eval keeps scores in a C float: a finite double beyond its range is +-inf and
    one below its least subnormal is 0 (README, the score column), as in DuckDB and polars;
    PostgreSQL's CAST(x AS REAL) raised 'value out of range' (overflow, underflow)."""
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": scores})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    _check(postgres, run, qrels, ["RR", "AP", "nDCG@3", "P@1"])
    sql = render(["RR"], "postgres", run_table="run", qrels_table="qrels", per_query=False)
    got = postgres.query(sql, {"measure": pl.String, "value": pl.Float64})
    assert got.rows() == [("RR", rr)]
