"""``sql.render(..., ties="average")``: the expected value over every ordering of tied
rows in the rendered SQL, on a real PostgreSQL (no ``LGAMMA`` there: ln Q(j) is a
running sum over the tie group, ``polars_rankeval._sqlties``) and in DuckDB (``LGAMMA``).

Oracles: the brute force of ``tests/ties.py`` (every ordering of the tie groups
evaluated with the default tie rule, then averaged) on many small random cases stacked
into one statement (each case its own query ids), and the polars engine's
``ties="average"`` on tie-heavy grouped runs with custom names and groups of up to
2000 tied rows.  Plus the refusals evaluate makes, with its messages.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import duckdb
import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval.sql import render
from tests.sql.entry_cases import COLUMNS, make_data, polars_result
from tests.sql.postgres_cluster import MISSING, Postgres
from tests.ties import GRID, brute_force, small_cases

# the polars engine multiplies Q(j)'s factors, the SQL adds their logarithms (or takes
# LGAMMA): the last bits differ
TOL = 1e-12
NAMES = {"query": "qid", "item": "doc_id", "score": "sim", "relevance": "grade"}
postgres_only = pytest.mark.skipif(bool(MISSING), reason="PostgreSQL not installed")


def big_groups(seed: int, rows: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Three queries of ``rows`` rows whose scores take 1-3 values (tie groups of up to
    ``rows``), a third of the items relevant at grades 1-3."""
    rng = random.Random(seed)
    run, qrels = [], []
    for q, values in (("q1", 1), ("q2", 2), ("q3", 3)):
        for i in range(rows):
            item = f"d{i:05d}"
            run.append(("s", 1, q, item, float(rng.randrange(values))))
            if rng.random() < 0.4:
                qrels.append((q, item, rng.choice((0, 1, 2, 3))))
    return (
        pl.DataFrame(run, schema=["system", "day", "qid", "doc_id", "sim"], orient="row"),
        pl.DataFrame(qrels, schema=["qid", "doc_id", "grade"], orient="row"),
    )


def _render(dialect: str, by: list[str], per_query: bool, names: dict[str, Any], **options: Any) -> str:
    return render(GRID, dialect, run_table="runs", qrels_table="judgments", by=by,
                  per_query=per_query, ties="average", **names, **options)  # fmt: skip


def _max_difference(
    got: pl.DataFrame, want: pl.DataFrame, keys: list[str], measures: str = ""
) -> float:
    """The largest |got - want| / max(1, |want|) (every row of each present in the
    other), over the measures matching the regex ``measures`` (all by default)."""
    joined = want.join(got, on=[*keys, "measure"], how="full", suffix="_sql")
    missing = joined.filter(pl.col("value").is_null() | pl.col("value_sql").is_null())
    assert missing.height == 0, missing
    joined = joined.filter(pl.col("measure").str.contains(measures))
    scale = pl.max_horizontal(pl.col("value").abs(), pl.lit(1.0))
    return float(joined.select(((pl.col("value") - pl.col("value_sql")).abs() / scale).max()).item())


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    return duckdb.connect()


def _stacked_brute_force(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    want = brute_force(run, qrels, GRID, {})
    return pl.DataFrame(
        [(q, m, v) for (q, m), v in want.items()], schema=["query", "measure", "value"],
        orient="row",
    )  # fmt: skip


@pytest.mark.slow
@postgres_only
def test_postgres_equals_brute_force(postgres: Postgres) -> None:
    """60 small tie-heavy cases in one statement, every family x option x cutoff x level
    of the grid: the mean over every ordering of the tied rows."""
    run, qrels = small_cases(7, 60)
    postgres.load("runs", run)
    postgres.load("judgments", qrels)
    want = _stacked_brute_force(run, qrels)
    sql = _render("postgres", [], True, {})
    got = postgres.query(sql, dict(want.schema))
    assert _max_difference(got, want, ["query"]) <= TOL


def test_duckdb_render_equals_brute_force(con) -> None:
    run, qrels = small_cases(8, 40)
    con.register("runs", run)
    con.register("judgments", qrels)
    want = _stacked_brute_force(run, qrels)
    result = con.execute(_render("duckdb", [], True, {}))
    got = pl.DataFrame(result.fetchall(), schema=want.schema, orient="row")
    assert _max_difference(got, want, ["query"]) <= TOL


def _polars_pairs(runs, qrels, by, options):
    for per_query in (True, False):
        want = polars_result(runs, qrels, GRID, by, per_query, ties="average", **options)
        yield per_query, want, [*by, "qid"] if per_query else by


@pytest.mark.slow
@postgres_only
@pytest.mark.parametrize("options", [{}, {"complete": True}, {"rel": 2}], ids=str)
def test_postgres_equals_polars(postgres: Postgres, options: dict) -> None:
    """Custom column names, by = [system, day], per query and summary."""
    runs, qrels = make_data(1)
    postgres.load("runs", runs)
    postgres.load("judgments", qrels)
    by = ["system", "day"]
    for per_query, want, keys in _polars_pairs(runs, qrels, by, options):
        got = postgres.query(_render("postgres", by, per_query, COLUMNS, **options), dict(want.schema))
        assert _max_difference(got, want, keys) <= TOL


@pytest.mark.slow
@postgres_only
def test_postgres_big_tie_groups_equal_polars(postgres: Postgres) -> None:
    """Tie groups of up to 2000 rows: Q(j), a product of up to 2000 factors, read by RR
    and Success, to 1e-15 (a running sum of their logarithms; LGAMMA, as in DuckDB,
    differs by up to 4e-12 here); the rest to 1e-13 relative to max(1, |value|)
    (sums of r / n over thousands of rows, added in another order: NumRelRet ~ 600)."""
    runs, qrels = big_groups(3, 2000)
    postgres.load("runs", runs)
    postgres.load("judgments", qrels)
    for per_query, want, keys in _polars_pairs(runs, qrels, ["system"], {}):
        got = postgres.query(_render("postgres", ["system"], per_query, COLUMNS), dict(want.schema))
        assert _max_difference(got, want, keys, "^(RR|Success)") <= 1e-15
        assert _max_difference(got, want, keys) <= 1e-13


@pytest.mark.parametrize(
    ("names", "options", "error", "message"),
    [
        (["P@1", "Bpref"], {}, rk.MeasureError, "Bpref does not support ties='average'"),
        (["AP(norm=hits)@5"], {}, rk.MeasureError, "with ties='average' the norm=hits"),
        (["P@1"], {"top": 2}, rk.InputError, "ties='average' cannot be combined with top"),
        (["P@1"], {"duplicates": "first"}, rk.InputError,
         "ties='average' cannot be combined with duplicates"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("dialect", ["postgres", "spark", "duckdb"])
def test_refusals_are_evaluates(dialect, names, options, error, message) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(")):
        render(names, dialect, ties="average", **options)
    with warnings.catch_warnings(), pytest.raises(error, match=message.replace("(", r"\(")):
        warnings.simplefilter("ignore")
        rk.evaluate(
            pl.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]}),
            pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]}),
            names, ties="average", **options,
        )  # fmt: skip


def test_duckdb_big_tie_groups_lgamma_figure(con) -> None:
    """DuckDB (the entry point's LGAMMA, as render("duckdb")): on tie groups of up to 3000
    rows RR and Success differ from the polars engine by up to 4e-12 (LGAMMA(3001) ~ 2e4
    rounds at ~4e-12), the README's figure.  Two seeds, stacked as two systems (each
    seed's queries its own ``system`` group: one statement per output shape)."""
    cases = [big_groups(seed, 3000) for seed in (0, 1)]
    runs = pl.concat([run.with_columns(system=pl.lit(f"s{seed}")) for seed, (run, _) in enumerate(cases)])
    qrels = pl.concat([q.with_columns(qid=pl.lit(f"s{seed}-") + pl.col("qid")) for seed, (_, q) in enumerate(cases)])
    runs = runs.with_columns(qid=pl.col("system") + "-" + pl.col("qid"))
    con.register("runs", runs)
    con.register("judgments", qrels)
    worst = 0.0
    for per_query, want, keys in _polars_pairs(runs, qrels, ["system"], {}):
        assert want["system"].n_unique() == 2
        result = con.execute(_render("duckdb", ["system"], per_query, COLUMNS))
        got = pl.DataFrame(result.fetchall(), schema=want.schema, orient="row")
        worst = max(worst, _max_difference(got, want, keys, "^(RR|Success)"))
        assert _max_difference(got, want, keys) <= 4e-12
    assert 1e-15 < worst <= 4e-12
