"""sql/rankeval.sql with ``ties := 'average'``: the expected value over every ordering
of tied rows, for every family that has one.

Oracles: hand-computed values (the arrangements of a small tie group enumerated on
paper, ``tests/ties.py``), the brute force of ``tests/ties.py`` (every ordering of the
tie groups evaluated with the default tie rule, then averaged: no closed form) and the
polars engine's ``ties="average"`` on a tie-heavy run with custom names and a
two-column ``by``.  Plus the errors: families without an expected value, AP(norm=hits)
with a cutoff, and ``top``/``duplicates := 'first'`` (as rk.evaluate refuses them).
"""

from __future__ import annotations

import warnings
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings

import polars_rankeval as rk
from tests.helpers import examples
from tests.sql.entry_cases import COLUMNS, SQL, assert_same, make_data, polars_result, stacked_seeds
from tests.ties import (
    ALL_TIED,
    ALL_TIED_ANSWERS,
    BELOW_A_RELEVANT_ANSWERS,
    GRID,
    KnownAnswer,
    brute_force,
    tied_runs,
)

TOL = 1e-12


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute(SQL.read_text())
    return connection


def frame(con, sql: str, params: dict[str, Any]) -> pl.DataFrame:
    result = con.execute(sql, params)
    names = [d[0] for d in result.description]
    return pl.DataFrame(result.fetchall(), schema=names, orient="row", infer_schema_length=None)


def _tables(con, run: pl.DataFrame, qrels: pl.DataFrame) -> None:
    con.register("tie_run", run)
    con.register("tie_qrels", qrels)


def summary(con, names: list[str], **options: str) -> dict[str, float]:
    extra = "".join(f", {k} := '{v}'" for k, v in options.items())
    rows = con.execute(
        "SELECT measure, value FROM rankeval_summary('tie_run', 'tie_qrels', $names,"
        f" query := 'qid', item := 'doc_id', score := 'sim', relevance := 'grade'{extra},"
        " ties := 'average')",
        {"names": names},
    ).fetchall()
    return dict(rows)


def _known_answer_tables(con, case: KnownAnswer) -> None:
    """The case's run and qrels under the custom column names :func:`summary` reads."""
    run = case.run.rename({"query": "qid", "item": "doc_id", "score": "sim"})
    qrels = case.qrels.rename({"query": "qid", "item": "doc_id", "relevance": "grade"})
    _tables(con, run, qrels)


def test_all_tied_known_answers(con) -> None:
    """One query, n = 4 rows all tied, r = 2 relevant (R = 2): ``ALL_TIED_ANSWERS``
    (tests/ties.py, computed by hand)."""
    _known_answer_tables(con, ALL_TIED_ANSWERS)
    names = ["P@4", "P@1", "R@2", "Success@1", "NumRelRet@3", "RR", "AP", "nDCG", "Rprec",
             "RelP@3", "NumRet", "NumRel"]  # fmt: skip
    got = summary(con, names)
    for name in names:
        assert got[name] == pytest.approx(ALL_TIED_ANSWERS.values[name], abs=TOL), name


def test_tie_group_below_a_relevant_row(con) -> None:
    """a (relevant) on top, then b, c, d tied with c relevant: ``BELOW_A_RELEVANT_ANSWERS``
    (tests/ties.py, computed by hand)."""
    _known_answer_tables(con, BELOW_A_RELEVANT_ANSWERS)
    names = ["AP", "RR", "AP@2", "Success@1", "P@2"]
    got = summary(con, names)
    for name in names:
        assert got[name] == pytest.approx(BELOW_A_RELEVANT_ANSWERS.values[name], abs=TOL), name


def _per_query(con, data: dict[str, Any], names: list[str]) -> dict[tuple[str, str], float]:
    run = data["run"].rename({"query": "qid", "item": "doc_id"})
    qrels = data["qrels"].rename({"query": "qid", "item": "doc_id", "relevance": "grade"})
    _tables(con, run, qrels)
    order = "rank := 'rank'" if "rank" in run.columns else "score := 'score'"
    rows = con.execute(
        "SELECT qid, measure, value FROM rankeval_per_query('tie_run', 'tie_qrels', $names,"
        f" query := 'qid', item := 'doc_id', {order}, relevance := 'grade',"
        " ties := 'average')",
        {"names": names},
    ).fetchall()
    return {(q, m): v for q, m, v in rows}


SETTINGS = settings(
    max_examples=examples(20), deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture],
)  # fmt: skip


@pytest.mark.slow
@SETTINGS
@given(data=tied_runs(mode="qrels"))
@example(data=ALL_TIED)
def test_brute_force(con, data: dict[str, Any]) -> None:
    """Every family x choice parameter x cutoff x level (the GRID of the engine tests):
    equal to the mean over every ordering of the tied rows."""
    want = brute_force(data["run"], data["qrels"], GRID, data["kw"])
    got = _per_query(con, data, GRID)
    assert got.keys() == want.keys(), sorted(got.keys() ^ want.keys())[:5]
    for key, value in want.items():
        assert abs(got[key] - value) <= TOL, (key, got[key], value)


@pytest.mark.slow
@settings(SETTINGS, max_examples=examples(10))
@given(data=tied_runs(mode="rank"))
def test_brute_force_rank_column(con, data: dict[str, Any]) -> None:
    """rank := ...: a tie group is the rows with an equal rank value."""
    want = brute_force(data["run"], data["qrels"], GRID, data["kw"])
    got = _per_query(con, data, GRID)
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert abs(got[key] - value) <= TOL, (key, got[key], value)


@pytest.mark.parametrize("options", [{}, {"complete": True}, {"rel": 2}], ids=str)
def test_parity_with_polars(con, options: dict[str, Any]) -> None:
    """Custom column names, by := [system, day], per query and summary; seeds 1 and 2 in
    one call per output shape as by groups (``stacked_seeds``), or one per seed with
    ``complete``."""
    by = ["system", "day"]
    args = "".join(f", {k} := {str(v).lower()}" for k, v in options.items())
    names = ", ".join(f"{k} := '{v}'" for k, v in COLUMNS.items())
    for seeds in [(1,), (2,)] if options.get("complete") else [(1, 2)]:
        runs, qrels = stacked_seeds(seeds)
        con.register("runs", runs)
        con.register("judgments", qrels)
        count = 0
        for per_query, macro in ((True, "rankeval_per_query"), (False, "rankeval_summary")):
            sql = frame(
                con, f"SELECT * FROM {macro}('runs', 'judgments', $m, by := {by!r}, {names}{args},"
                " ties := 'average')", {"m": GRID},
            )
            expected = polars_result(runs, qrels, GRID, by, per_query, ties="average", **options)
            count += assert_same(sql, expected, [*by, "qid"] if per_query else by)
        assert count > len(GRID) * 4 * len(seeds)


def test_without_ties_equals_the_default(con) -> None:
    """Distinct scores: every group is one row, the values of ties := 'first'."""
    runs, qrels = make_data(3)
    runs = runs.with_columns(pl.Series("sim", [float(i) for i in range(runs.height)]))
    con.register("runs", runs)
    con.register("judgments", qrels)
    call = (
        "SELECT * FROM rankeval_per_query('runs', 'judgments', $m, by := ['system', 'day'],"
        " query := 'qid', item := 'doc_id', score := 'sim', relevance := 'grade', ties := $t)"
    )
    average = frame(con, call, {"m": GRID, "t": "average"})
    first = frame(con, call, {"m": GRID, "t": "first"})
    assert average.drop("value").equals(first.drop("value"))
    assert (average["value"] - first["value"]).abs().max() <= 1e-15


@pytest.mark.parametrize(
    ("names", "extra", "message"),
    [
        (["P@1", "Bpref"], "", "measure 'Bpref' does not support ties='average'"),
        (["AP(norm=hits)@5"], "", "with ties='average' the norm=hits denominator"),
        (["P@1"], ", top := 2", "ties='average' cannot be combined with top="),
        (["P@1"], ", duplicates := 'first'",
         "ties='average' cannot be combined with duplicates='first'"),
    ],
)  # fmt: skip
def test_errors(con, names: list[str], extra: str, message: str) -> None:
    run = pl.DataFrame({"query": ["q"] * 2, "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    _tables(con, run, qrels)
    with pytest.raises(duckdb.Error, match=message.replace("(", r"\(")):
        con.execute(
            "SELECT * FROM rankeval_summary('tie_run', 'tie_qrels', $m, ties := 'average'"
            f"{extra})", {"m": names}
        ).fetchall()
    # the same call without ties := 'average' (where it is valid) runs
    if not extra:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rk.evaluate(run, qrels, names)
