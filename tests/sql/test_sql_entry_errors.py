"""sql/rankeval.sql raises on bad input, via error(), with messages close to Python's."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

SQL = Path(__file__).resolve().parents[2] / "sql" / "rankeval.sql"


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    c = duckdb.connect()
    c.execute(SQL.read_text())
    c.execute(
        "CREATE TABLE runs AS SELECT * FROM (VALUES ('s1', 'q1', 'a', 2.0), ('s1', 'q1', 'b', 1.0),"
        " ('s2', 'q1', 'a', 1.0)) AS t(system, qid, doc_id, sim)"
    )
    c.execute(
        "CREATE TABLE judgments AS SELECT * FROM (VALUES ('q1', 'a', 1), ('q1', 'b', 0))"
        " AS t(qid, doc_id, grade)"
    )
    return c


def call(con, measures="['MAP']", run="runs", qrels="judgments", extra=""):
    cols = "query := 'qid', item := 'doc_id', score := 'sim', relevance := 'grade'"
    return con.sql(
        f"SELECT * FROM rankeval_summary('{run}', '{qrels}', {measures}, by := ['system'], "
        f"{cols}{extra})"
    ).fetchall()


def test_good_call_works(con):
    assert call(con) == [("s1", "MAP", 1.0), ("s2", "MAP", 1.0)]


@pytest.mark.parametrize(
    ("measures", "message"),
    [
        ("['Foo@10']", "unknown measure 'Foo@10'"),
        ("['AP(foo=1)']", "AP has no parameter 'foo'; its parameters: norm, rel"),
        ("['P@0']", "the cutoff must be a positive integer, got 0"),
        ("['P@-3']", "the cutoff must be a positive integer, got -3"),
        ("['P@1.5']", "the cutoff after @ must be a positive integer"),
        ("['map_cut_0']", "the cutoff must be a positive integer, got 0"),
        ("['AP(norm=foo)']", "norm='foo' is not allowed; choose one of R, min, hits"),
        ("['nDCG(gain=squared)@10']", "gain='squared' is not allowed; choose one of linear, exp"),
        ("['RBP(p=1.5)']", "p must be < 1.0, got 1.5"),
        ("['RBP(p=abc)']", "p must be a finite number, got 'abc'"),
        ("['Bpref@10']", "Bpref takes no @k cutoff"),
        ("['AP(norm=min, norm=R)']", "repeated or unnamed parameter"),
        ("['AP(min)']", "parameters must be named"),
        ("['AP((']", "cannot parse measure 'AP(('"),
        ("[]::VARCHAR[]", "no measure given"),
    ],
)
def test_bad_measure(con, measures, message):
    with pytest.raises(duckdb.Error, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(con, measures)


@pytest.mark.parametrize(
    ("setup", "run", "qrels", "extra", "message"),
    [
        ("CREATE OR REPLACE TABLE r AS SELECT * FROM runs UNION ALL SELECT 's1', 'q1', 'a', 0.5",
         "r", "judgments", "", "run: duplicate \\(query, item\\) rows: 1 extra row"),
        ("CREATE OR REPLACE TABLE j AS SELECT * FROM judgments UNION ALL SELECT 'q1', 'a', 2",
         "runs", "j", "", "qrels: duplicate \\(query, item\\) judgments: 1 extra row"),
        ("CREATE OR REPLACE TABLE r AS SELECT * FROM runs UNION ALL SELECT 's1', NULL, 'c', 0.5",
         "r", "judgments", "", "run column 'qid': query id is null"),
        ("CREATE OR REPLACE TABLE r AS SELECT * FROM runs UNION ALL SELECT 's1', 'q1', NULL, 0.5",
         "r", "judgments", "", "run column 'doc_id': item id is null"),
        ("CREATE OR REPLACE TABLE r AS SELECT * FROM runs UNION ALL SELECT 's1', 'q1', 'c', 'NaN'::DOUBLE",
         "r", "judgments", "", "run column 'sim': score is null, NaN or infinite"),
        ("CREATE OR REPLACE TABLE r AS SELECT * FROM runs UNION ALL SELECT 's1', 'q1', 'c', 'inf'::DOUBLE",
         "r", "judgments", "", "run column 'sim': score is null, NaN or infinite"),
        # text scores: DuckDB's conversion error named only an internal column before
        (("CREATE OR REPLACE TABLE r AS SELECT system, qid, doc_id, CAST(sim AS VARCHAR) AS sim"
          " FROM runs UNION ALL SELECT 's1', 'q1', 'c', 'high'"),
         "r", "judgments", "", "run column 'sim': score must be numeric, got 'high'"),
        ("CREATE OR REPLACE TABLE r AS SELECT * FROM runs UNION ALL SELECT 's1', 'q1', 'c', NULL",
         "r", "judgments", "", "run column 'sim': score is null, NaN or infinite"),
        ("CREATE OR REPLACE TABLE j AS SELECT * FROM judgments UNION ALL SELECT NULL, 'c', 1",
         "runs", "j", "", "qrels column 'qid': query id is null"),
        ("CREATE OR REPLACE TABLE j AS SELECT * FROM judgments UNION ALL SELECT 'q1', 'c', NULL",
         "runs", "j", "", "qrels column 'grade': relevance is null, NaN or infinite"),
        ("CREATE OR REPLACE TABLE r AS SELECT system, qid AS query, doc_id, sim FROM runs",
         "r", "judgments", "", "run has no column 'qid'"),
        ("CREATE OR REPLACE TABLE r AS SELECT system, qid, doc_id AS item, sim FROM runs",
         "r", "judgments", "", "run has no column 'doc_id'"),
        ("CREATE OR REPLACE TABLE r AS SELECT system, qid, doc_id, sim AS score FROM runs",
         "r", "judgments", "", "run needs a score column \\('sim'\\)"),
        ("CREATE OR REPLACE TABLE r AS SELECT qid, doc_id, sim FROM runs",
         "r", "judgments", "", "run has no column 'system'"),
        ("CREATE OR REPLACE TABLE j AS SELECT qid, doc_id, grade AS rel FROM judgments",
         "runs", "j", "", "qrels has no column 'grade'"),
        ("CREATE OR REPLACE TABLE r AS SELECT * FROM runs WHERE false",
         "r", "judgments", "", "the run has no rows"),
        ("CREATE OR REPLACE TABLE j AS SELECT 'q9' AS qid, doc_id, grade FROM judgments",
         "runs", "j", "", "run and qrels share no query"),
        ("", "runs", "judgments", ", top := 0", "top=0: give a positive number"),
        ("", "runs", "judgments", ", ties := 'random'", "ties='random'"),
        ("", "runs", "judgments", ", ties := 'average', top := 3",
         "ties='average' cannot be combined with top="),
        ("", "runs", "judgments", ", duplicates := 'last'",
         "duplicates='last': choose 'error' or 'first'"),
        ("", "runs", "judgments", ", conventions := 'sklearn'",
         "unknown conventions 'sklearn'"),
    ],
)
def test_bad_input(con, setup, run, qrels, extra, message):
    if setup:
        con.execute(setup)
    with pytest.raises(duckdb.Error, match=message):
        call(con, run=run, qrels=qrels, extra=extra)


def test_rank_must_be_positive_integer(con):
    con.execute(
        "CREATE OR REPLACE TABLE rr AS SELECT * FROM (VALUES ('q1', 'a', 1), ('q1', 'b', 0))"
        " AS t(qid, doc_id, pos)"
    )
    with pytest.raises(duckdb.Error, match="rank must be a positive integer"):
        con.sql(
            "SELECT * FROM rankeval_summary('rr', 'judgments', ['MAP'], query := 'qid',"
            " item := 'doc_id', rank := 'pos', relevance := 'grade')"
        ).fetchall()


@pytest.mark.parametrize("columns", [
    "query := 'qid', item := 'qid', score := 'sim', relevance := 'grade'",
    "query := 'qid', item := 'doc_id', score := 'qid', relevance := 'grade'",
    "query := 'qid', item := 'doc_id', rank := 'doc_id', relevance := 'grade'",
])
def test_one_column_as_two_keys_is_an_error(con, columns):
    """query = item gave every item its own query: a silently wrong (perfect) AP."""
    with pytest.raises(duckdb.Error, match="the run's columns must differ.*same column twice"):
        con.sql(f"SELECT * FROM rankeval_summary('runs', 'judgments', ['MAP'], {columns})").fetchall()


def test_scores_beyond_float_range_rank_as_infinity(con):
    """trec_eval keeps scores in a C float: 1e308 and 1e39 both become inf and tie, the
    tie broken by item descending (b before a); DuckDB's cast to REAL raised before."""
    con.execute("CREATE OR REPLACE TABLE big AS SELECT * FROM (VALUES ('q1', 'a', 1e308::DOUBLE),"
                " ('q1', 'b', 1e39::DOUBLE), ('q1', 'c', -1e308::DOUBLE)) AS t(qid, doc_id, sim)")
    con.execute("CREATE OR REPLACE TABLE bigj AS SELECT 'q1' AS qid, 'a' AS doc_id, 1 AS grade")
    got = con.sql("SELECT * FROM rankeval_summary('big', 'bigj', ['RR'], query := 'qid',"
                  " item := 'doc_id', score := 'sim', relevance := 'grade')").fetchall()
    assert got == [("RR", 0.5)]


@pytest.mark.parametrize(("extra", "message"), [
    (", top := 'x'", "top=x: give a positive number of rows per query"),
    (", rel := 'x'", "rel must be a finite number, got x"),
    (", complete := 'x'", "complete must be true or false, got x"),
])  # fmt: skip
def test_text_arguments_are_named(con, extra, message):
    """A text where a number or a boolean goes: DuckDB's conversion error named no argument."""
    with pytest.raises(duckdb.InvalidInputException, match=message):
        call(con, extra=extra)


def test_a_null_complete_is_named(con):
    """complete := NULL: the error naming it (its check in _args was planned away with
    the filter on it, and the call returned no rows); true as text or as a boolean
    still gives the default's values here (every query is in the qrels)."""
    with pytest.raises(duckdb.InvalidInputException, match="complete must be true or false, got NULL"):
        call(con, extra=", complete := NULL")
    assert call(con, extra=", complete := 'true'") == call(con, extra=", complete := true") == call(con)


# per query: a repeated three times (2 extra rows), x twice (1), q3 none
_REPEATS = ("CREATE OR REPLACE TABLE rep AS SELECT * FROM (VALUES ('q1', 'a', 5.0), ('q1', 'b', 4.0),"
            " ('q1', 'a', 3.0), ('q1', 'c', 2.0), ('q1', 'a', 1.0), ('q2', 'x', 3.0), ('q2', 'y', 2.0),"
            " ('q2', 'x', 1.0), ('q3', 'a', 1.0)) AS t(qid, doc_id, sim)")
_REP_QRELS = ("CREATE OR REPLACE TABLE repj AS SELECT * FROM (VALUES ('q1', 'a', 1), ('q2', 'y', 1),"
              " ('q3', 'a', 1)) AS t(qid, doc_id, grade)")


@pytest.mark.parametrize("colliding", [False, True], ids=["hash", "colliding-hash"])
def test_run_repeats_are_found_and_counted_exactly(colliding, monkeypatch):
    """The per-query pre-check (equal neighbours in the sorted list of item hashes) finds
    repeats wherever they sit in the run, and the exact count reports them; a hash that
    always collides only sends every call through the exact count: the same error, and
    the same values for a run without repeats."""
    from dataclasses import replace

    from polars_rankeval import _sqlentry

    if colliding:
        monkeypatch.setattr(_sqlentry, "DUCKDB", replace(_sqlentry.DUCKDB, fingerprint=lambda _: "0"))
    sql = _sqlentry.build_rankeval_sql()
    assert ("hash(" in sql) != colliding
    c = duckdb.connect()
    c.execute(sql)
    c.execute(_REPEATS)
    c.execute(_REP_QRELS)
    cols = "query := 'qid', item := 'doc_id', score := 'sim', relevance := 'grade'"
    with pytest.raises(duckdb.Error, match=r"run: duplicate \(query, item\) rows: 3 extra row"):
        c.sql(f"SELECT * FROM rankeval_per_query('rep', 'repj', ['RR'], {cols})").fetchall()
    first = c.sql(f"SELECT * FROM rankeval_per_query('rep', 'repj', ['RR'], {cols},"
                  " duplicates := 'first') ORDER BY qid").fetchall()
    # q1 keeps a at 5.0 (rank 1); q2 keeps x at 3.0, y is second
    assert first == [("q1", "RR", 1.0), ("q2", "RR", 0.5), ("q3", "RR", 1.0)]
    c.execute("CREATE OR REPLACE TABLE rep AS SELECT * FROM rep WHERE sim >= 4 OR qid <> 'q1'"
              " OR doc_id <> 'a'")
    c.execute("DELETE FROM rep WHERE qid = 'q2' AND doc_id = 'x' AND sim = 1.0")
    got = c.sql(f"SELECT * FROM rankeval_per_query('rep', 'repj', ['RR'], {cols}) ORDER BY qid").fetchall()
    assert got == first
