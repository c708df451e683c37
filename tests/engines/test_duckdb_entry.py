"""engine="duckdb" runs the public SQL entry point (rankeval_per_query): the measure
names it hands the SQL parser resolve to exactly the Python measures, and the engine's
numbers are the macro's own."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval._parse import parse_measure
from polars_rankeval._registry import REGISTRY
from polars_rankeval.diversity.families import is_diversity
from polars_rankeval.engines.duckdb import install_entry_point
from polars_rankeval.engines.duckdb_entry import sql_name

NAMES = sorted(
    {n for f in REGISTRY.values() for n in (f.name, *f.examples)}
    | {"RBP(p=0.123456789)@7", "Utility(a=2.5,b=-0.1,c=1e-05)", "nDCG(gain=exp,rel=2)@3"}
)


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    install_entry_point(connection)
    return connection


def test_sql_names_resolve_to_the_python_measures(con: duckdb.DuckDBPyConnection) -> None:
    measures = [parse_measure(n) for n in NAMES]
    measures = [m for m in measures if not is_diversity(m)]
    specs = con.execute(
        "SELECT * FROM rankeval_measure_specs($m) ORDER BY _idx", {"m": [sql_name(m) for m in measures]}
    )
    columns = [d[0] for d in specs.description]
    rows = [dict(zip(columns, row, strict=True)) for row in specs.fetchall()]
    assert len(rows) == len(measures)
    for m, row in zip(measures, rows, strict=True):
        assert row["_family"] == m.family.name, (m, row)
        at = m.family.at_param
        assert row["_k"] == (None if at is not None else m.k), (m, row)
        assert row["_level"] == m.rel, (m, row)
        for name, value in m.params:
            if name == "rel":
                continue
            # exact, floats too: repr() of a float round-trips through the SQL parser
            assert row[f"_p_{name}"] == value, (m, name, row[f"_p_{name}"])


def test_engine_numbers_are_the_macros(con: duckdb.DuckDBPyConnection) -> None:
    # q1: b (relevant, grade 1) at rank 2 of 3, c (grade 2) at rank 3; q2: d at rank 1
    run = pl.DataFrame({
        "query": ["q1", "q1", "q1", "q2"], "item": ["a", "b", "c", "d"],
        "score": [3.0, 2.0, 1.0, 1.0],
    })
    qrels = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["b", "c", "d"], "relevance": [1, 2, 1]})
    names = ["AP", "nDCG@2", "RR"]
    engine = rk.evaluate(run, qrels, names, engine="duckdb", per_query=True)
    con.register("run_t", run.to_arrow())
    con.register("qrels_t", qrels.to_arrow())
    macro = pl.DataFrame(
        con.execute("SELECT * FROM rankeval_per_query('run_t', 'qrels_t', $m)", {"m": names}).fetchall(),
        schema=["query", "measure", "value"], orient="row",
    )
    assert engine.sort("query", "measure").rows() == macro.sort("query", "measure").rows()
    # by hand: q1 AP = (1/2 + 2/3) / 2 = 7/12, RR = 1/2; q2: 1, 1
    values = dict(zip(zip(macro["query"], macro["measure"]), macro["value"], strict=True))
    assert values[("q1", "AP")] == pytest.approx(7 / 12)
    assert values[("q1", "RR")] == 0.5
    assert values[("q2", "AP")] == 1.0


def test_the_engine_reads_the_entry_points_rows_unsorted(con: duckdb.DuckDBPyConnection) -> None:
    """rankeval_per_query is rankeval_per_query_rows sorted by its order keys: the engine
    reads the unsorted macro (it pivots the rows and sorts its own frame), one SQL path."""
    from polars_rankeval.engines.duckdb_entry import _long_rows
    from polars_rankeval.engines.spec import Spec
    from polars_rankeval.options import Columns, EvalOptions

    run = pl.DataFrame({
        "system": ["s1", "s1", "s1", "s2", "s2", "s2"], "query": ["q2", "q2", "q1", "q1", "q1", "q2"],
        "item": ["a", "b", "a", "b", "a", "c"], "score": [0.5, 2.0, 1.0, 1.0, 3.0, 0.0],
    })
    qrels = pl.DataFrame({"query": ["q1", "q2", "q2"], "item": ["a", "b", "c"], "relevance": [1, 2, 1]})
    con.register("run_s", run.to_arrow())
    con.register("qrels_s", qrels.to_arrow())
    args = "'run_s', 'qrels_s', ['RR', 'AP', 'P@1'], \"by\" := ['system']"
    sorted_rows = con.execute(f"SELECT * FROM rankeval_per_query({args})").fetchall()
    rows = con.execute(
        f"SELECT system, query, measure, value FROM rankeval_per_query_rows({args}) "
        "ORDER BY __rk_og, __rk_oq, __rk_oi"
    ).fetchall()
    assert rows == sorted_rows
    assert [r[:3] for r in sorted_rows[:3]] == [("s1", "q1", "RR"), ("s1", "q1", "AP"), ("s1", "q1", "P@1")]
    spec = Spec(run, qrels, [parse_measure("AP")], ["AP"], Columns(), EvalOptions(by=["system"]))
    call = _long_rows(spec, ["AP"], score_mode=True, run_table="r", qrels_table="q")
    assert "rankeval_per_query_rows('r', 'q'" in call and "rankeval_per_query(" not in call


def test_the_engine_reads_no_query_names_so_the_macro_drops_their_join(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """The engine takes the query from __rk_oq, not from the names' struct: the plan
    has no pass over the qrels for the names (their ANY_VALUE aggregate), which
    rankeval_per_query keeps, and the rows are the same."""
    from polars_rankeval.engines.duckdb_entry import _long_rows
    from polars_rankeval.engines.spec import Spec
    from polars_rankeval.options import Columns, EvalOptions

    run = pl.DataFrame({"_q": ["q2", "q1", "q1"], "item": ["a", "a", "b"], "score": [1.0, 2.0, 0.5]})
    qrels = pl.DataFrame({"_q": ["q1", "q2", "q3"], "item": ["b", "a", "c"], "relevance": [1.0, 1.0, 1.0]})
    con.register("run_n", run.to_arrow())
    con.register("qrels_n", qrels.to_arrow())
    spec = Spec(run, qrels, [parse_measure("RR")], ["RR"], Columns(), EvalOptions())
    call = _long_rows(spec, ["RR"], score_mode=True, run_table="run_n", qrels_table="qrels_n")
    names = "SELECT * FROM rankeval_per_query('run_n', 'qrels_n', ['RR'], query := '_q')"
    assert sorted(con.execute(call).fetchall()) == [("q1", "RR", 0.5), ("q2", "RR", 1.0)]
    assert sorted(con.execute(names).fetchall()) == [("q1", "RR", 0.5), ("q2", "RR", 1.0)]
    # the plans: DuckDB 1.4's EXPLAIN names no aggregate function in either plan, so
    # the control below would not hold there; the rows above are checked on every version
    if int(duckdb.__version__.split(".")[0]) < 2:
        return
    # the JSON plan names the same aggregates ("Aggregates": "any_value(#1)") and renders
    # in ~0.12 CPU s, where the text plan's boxes of the macro's ~900 operators take ~1.9 s
    assert "any_value" not in _json_plan(con, call)
    assert "any_value" in _json_plan(con, names)


def _json_plan(con: duckdb.DuckDBPyConnection, sql: str) -> str:
    """DuckDB's physical plan of ``sql`` as JSON text, lower case."""
    return con.execute(f"EXPLAIN (FORMAT json) {sql}").fetchall()[0][1].lower()


def test_a_family_without_entry_sql_is_refused_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from polars_rankeval._errors import MeasureError
    from polars_rankeval._registry import Family

    dummy = Family(
        name="DummyFam", summary="test only", formula="1", trec_eval="-",
        expression=lambda m, j: pl.lit(1.0),
    )
    monkeypatch.setitem(REGISTRY, dummy.name, dummy)
    run = pl.DataFrame({"query": ["q1"], "item": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["q1"], "item": ["a"], "relevance": [1]})
    assert rk.evaluate(run, qrels, ["DummyFam"])["value"].to_list() == [1.0]  # polars: fine
    with pytest.raises(MeasureError, match=r"DummyFam: the SQL entry point .* has no formula"):
        rk.evaluate(run, qrels, ["DummyFam", "AP"], engine="duckdb")


def test_exact_name_parses_back_to_the_measure() -> None:
    """``Measure.exact_name`` (what the engine hands the SQL) reads back as the same
    measure, floats to the last bit, where ``str()`` rounds them to 6 digits."""
    measures = [parse_measure(n) for n in NAMES]
    for m in measures:
        assert parse_measure(m.exact_name) == m, (m.exact_name, m)
        assert sql_name(m) == m.exact_name
    rbp = parse_measure("RBP(p=0.123456789)@7")
    assert str(rbp) == "RBP(p=0.123457)@7"  # display: rounded
    assert parse_measure(str(rbp)) != rbp  # ... so str() cannot name it to SQL
    assert rbp.exact_name == "RBP(p=0.123456789)@7"
    # defaults stay out of the name, as in str()
    assert parse_measure("AP(norm=R)").exact_name == "AP"


def test_the_run_table_is_read_two_to_six_times(con: duckdb.DuckDBPyConnection) -> None:
    """The macro reads the user's run table two to six times (each read
    for its own columns), where it stored a copy of every row before (sqlfast28,
    benchmarks/RESULTS.md): what README's "expensive view" advice rests on."""
    con.execute("CREATE OR REPLACE TABLE scans_src AS SELECT 'q' || (i % 5) AS query, "
                "'d' || i AS item, (i * 7 % 13)::DOUBLE AS score FROM range(200) t(i)")
    con.execute("CREATE OR REPLACE TABLE scans_judg AS SELECT query, item, 1 AS relevance "
                "FROM scans_src WHERE score < 3")
    con.execute("CREATE OR REPLACE VIEW scans_run AS SELECT * FROM scans_src")
    call = ("SELECT * FROM rankeval_summary('scans_run', 'scans_judg', "
            "['AP', 'nDCG@10', 'P@10', 'R@100', 'RR'])")
    reads = _json_plan(con, call).count("scans_src")
    assert 2 <= reads <= 6, reads
    assert _json_plan(con, call.replace("scans_run", "scans_src")).count("scans_src") == reads
