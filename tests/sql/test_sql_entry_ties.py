"""sql/rankeval.sql with ``ties := 'average'``: the expected value over every ordering
of tied rows, for every family that has one.

Oracles: hand-computed values (the arrangements of a small tie group enumerated on
paper), the brute force of tests/engines/test_ties_average.py (every ordering of the
tie groups evaluated with the default tie rule, then averaged: no closed form) and the
polars engine's ``ties="average"`` on a tie-heavy run with custom names and a
two-column ``by``.  Plus the errors: families without an expected value, AP(norm=hits)
with a cutoff, and ``top``/``duplicates := 'first'`` (as rk.evaluate refuses them).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings

import polars_rankeval as rk
from tests.engines.test_ties_average import ALL_TIED, GRID, brute_force, tied_runs
from tests.helpers import examples
from tests.sql.test_sql_entry import COLUMNS, SQL, assert_same, make_data, polars_result

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


def test_all_tied_known_answers(con) -> None:
    """One query, n = 4 rows all tied, r = 2 relevant (R = 2): the 6 arrangements of
    RRNN, each equally likely."""
    run = pl.DataFrame({"qid": ["q"] * 4, "doc_id": list("abcd"), "sim": [1.0] * 4})
    qrels = pl.DataFrame({"qid": ["q"] * 2, "doc_id": ["b", "d"], "grade": [1, 1]})
    _tables(con, run, qrels)
    got = summary(con, ["P@4", "P@1", "R@2", "Success@1", "NumRelRet@3", "RR", "AP", "nDCG",
                        "Rprec", "RelP@3", "NumRet", "NumRel"])  # fmt: skip
    assert got["P@4"] == pytest.approx(2 / 4, abs=TOL)  # r / n
    assert got["P@1"] == pytest.approx(2 / 4, abs=TOL)
    assert got["R@2"] == pytest.approx(2 * (2 / 4) / 2, abs=TOL)
    assert got["Success@1"] == pytest.approx(1 / 2, abs=TOL)
    assert got["NumRelRet@3"] == pytest.approx(3 * 2 / 4, abs=TOL)
    # P(first relevant at 1, 2, 3) = 1/2, 1/3, 1/6
    assert got["RR"] == pytest.approx(1 / 2 + 1 / 3 / 2 + 1 / 6 / 3, abs=TOL)
    # the arrangements' AP: RRNN 1, RNRN 5/6, RNNR 3/4, NRRN 7/12, NRNR 1/2, NNRR 5/12
    assert got["AP"] == pytest.approx((1 + 5 / 6 + 3 / 4 + 7 / 12 + 1 / 2 + 5 / 12) / 6, abs=TOL)
    dcg = sum(0.5 / math.log2(p + 1) for p in range(1, 5))
    assert got["nDCG"] == pytest.approx(dcg / (1 + 1 / math.log2(3)), abs=TOL)
    # Rprec: relevant among the top R = 2 positions, r / n each
    assert got["Rprec"] == pytest.approx(2 * (2 / 4) / 2, abs=TOL)
    assert got["RelP@3"] == pytest.approx(3 * (2 / 4) / 2, abs=TOL)  # / min(3, R)
    assert (got["NumRet"], got["NumRel"]) == (4.0, 2.0)


def test_tie_group_below_a_relevant_row(con) -> None:
    """a (relevant) on top, then b, c, d tied with c relevant: AP = (1/1 + E[2 / pos(c)])
    / 2 with pos(c) uniform on 2..4; RR = 1; Success@1 = 1."""
    run = pl.DataFrame({"qid": ["q"] * 4, "doc_id": list("abcd"), "sim": [2.0, 1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q", "q"], "doc_id": ["a", "c"], "grade": [1, 1]})
    _tables(con, run, qrels)
    got = summary(con, ["AP", "RR", "AP@2", "Success@1", "P@2"])
    assert got["AP"] == pytest.approx((1 + (2 / 2 + 2 / 3 + 2 / 4) / 3) / 2, abs=TOL)
    assert got["RR"] == pytest.approx(1.0, abs=TOL)
    assert got["AP@2"] == pytest.approx((1 + (2 / 2) / 3) / 2, abs=TOL)
    assert got["Success@1"] == pytest.approx(1.0, abs=TOL)
    assert got["P@2"] == pytest.approx((1 + 1 / 3) / 2, abs=TOL)


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
@pytest.mark.parametrize("seed", [1, 2])
def test_parity_with_polars(con, seed: int, options: dict[str, Any]) -> None:
    """Custom column names, by := [system, day], per query and summary."""
    runs, qrels = make_data(seed)
    con.register("runs", runs)
    con.register("judgments", qrels)
    by = ["system", "day"]
    args = "".join(f", {k} := {str(v).lower()}" for k, v in options.items())
    names = ", ".join(f"{k} := '{v}'" for k, v in COLUMNS.items())
    count = 0
    for per_query, macro in ((True, "rankeval_per_query"), (False, "rankeval_summary")):
        sql = frame(
            con, f"SELECT * FROM {macro}('runs', 'judgments', $m, by := {by!r}, {names}{args},"
            " ties := 'average')", {"m": GRID},
        )
        expected = polars_result(runs, qrels, GRID, by, per_query, ties="average", **options)
        count += assert_same(sql, expected, [*by, "qid"] if per_query else by)
    assert count > len(GRID) * 4


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
