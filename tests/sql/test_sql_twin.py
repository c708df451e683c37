"""The sql/ folder itself: one twin per registered family, with the family's parameter
names and defaults; the portable subset of DESIGN §4; the files run as they are in a
fresh DuckDB (as in the CLI, on Parquet files); and they ship inside the wheel."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import duckdb
import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval._registry import REGISTRY
from polars_rankeval.engines.sqltwin.build import (
    ROW_ARGUMENTS,
    STAT_ARGUMENTS,
    macros,
    sql_files,
    statements,
)
from tests.helpers import NO_FAMILY_FILE, ROOT

SQL = ROOT / "sql"
SHARED_FILES = {"_shared.sql", "_evaluate.sql"}

sqlglot = pytest.importorskip("sqlglot")
exp = sqlglot.exp


def _sql_default(value: object) -> str:
    if isinstance(value, str):
        return f"'{value}'"
    number = float(value)  # type: ignore[arg-type]
    return str(int(number)) if number.is_integer() else repr(number)


@pytest.mark.parametrize("family", sorted(set(REGISTRY) - NO_FAMILY_FILE))
def test_every_registered_family_has_a_sql_twin(family: str) -> None:
    """Adding a measure family means adding sql/<family>.sql: this fails until then."""
    path = SQL / f"{family}.sql"
    assert path.exists(), f"measure family {family} has no SQL twin: create {path}"
    found = macros()
    value = found.get(f"rankeval_{family}_value".lower())
    table = found.get(f"rankeval_{family}".lower())
    assert value is not None and value.file == path.name, f"{path.name}: no rankeval_{family}_value"
    assert table is not None and table.table and table.file == path.name, (
        f"{path.name}: no table macro rankeval_{family}"
    )
    spec = REGISTRY[family]
    # the table macro: (run_table, qrels_table, k := NULL, rel := 1, <params with defaults>)
    assert table.params[:4] == ("run_table", "qrels_table", "k", "rel")
    assert table.defaults["k"] == "NULL" and table.defaults["rel"] == "1"
    params = {p.name: _sql_default(p.default) for p in spec.params}
    assert dict(zip(table.params[4:], [table.defaults.get(p) for p in table.params[4:]])) == params
    # the value macro reads rows of rankeval_joined, stats, k and the family's parameters
    allowed = {*ROW_ARGUMENTS, *STAT_ARGUMENTS, "k", "rel", *params}
    assert set(value.params) <= allowed, set(value.params) - allowed


def test_no_sql_file_without_a_family() -> None:
    families = {p.stem for p in SQL.glob("*.sql") if not p.name.startswith("_")} - {"rankeval"}
    assert families == set(REGISTRY) - NO_FAMILY_FILE
    assert {p.name for p in SQL.glob("_*.sql")} == SHARED_FILES


def test_macro_names_do_not_collide() -> None:
    """DuckDB names are case-insensitive: a family's macros must not shadow a shared one."""
    found = macros()  # raises on a name defined twice
    shared = {name for name, m in found.items() if m.file in SHARED_FILES}
    for family in REGISTRY:
        for name in (f"rankeval_{family}", f"rankeval_{family}_value"):
            assert name.lower() not in shared, (family, name)


def _bodies() -> list[tuple[str, object, object]]:
    return [
        (name, macro, sqlglot.parse_one(macro.body, read="duckdb"))
        for name, macro in sorted(macros().items())
    ]


def _is_nullif(node: object) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    return isinstance(node, exp.Nullif)


def _is_double_cast(node: object) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    return isinstance(node, exp.Cast) and node.to.is_type("double")


def _is_ln2(node: object) -> bool:
    return (
        isinstance(node, exp.Ln)
        and isinstance(node.this, exp.Literal)
        and node.this.this in ("2", "2.0")
    )


@pytest.mark.parametrize("name", sorted(macros()))
def test_portable_subset(name: str) -> None:
    """DESIGN §4: what sqlglot renders faithfully for Spark, PostgreSQL, BigQuery and
    Snowflake."""
    macro = macros()[name]
    text = re.sub(r"'[^']*'", "''", macro.body).upper()
    for banned in ("QUALIFY", "GROUP BY ALL", "EXCLUDE", "->", "LIST_", "ARRAY_", "LOG(", "LOG2(",
                   "LOG10(", "$", "::", "ILIKE", "STRUCT", "UNNEST"):  # fmt: skip
        assert banned not in text, (name, banned)
    tree = sqlglot.parse_one(macro.body, read="duckdb")
    assert not list(tree.find_all(exp.Lambda))
    for window in tree.find_all(exp.Window):
        function = window.this
        order = window.args.get("order")
        if isinstance(function, exp.RowNumber):
            assert order is not None, (name, "ROW_NUMBER needs ORDER BY")
            assert window.args.get("spec") is None, (name, "no frame on ROW_NUMBER")
        elif order is not None:
            spec = window.args.get("spec")
            assert spec is not None and spec.args.get("kind") == "ROWS", (name, window.sql())
    for div in tree.find_all(exp.Div):
        if _is_ln2(div.expression):  # LN(x) / LN(2): log2 as DESIGN §4 asks
            assert isinstance(div.this, exp.Ln), (name, div.sql())
            continue
        assert _is_nullif(div.expression), (name, "denominator without NULLIF", div.sql())
        assert _is_double_cast(div.this), (name, "numerator without CAST AS DOUBLE", div.sql())
    if macro.table:
        # every column is qualified (or a macro parameter): render() relies on it
        params = {p.lower() for p in macro.params}
        for column in tree.find_all(exp.Column):
            assert column.table or column.name.lower() in params, (name, column.sql())
        for subquery in tree.find_all(exp.Subquery):
            assert subquery.alias, (name, "unaliased subquery")


def test_statements_are_only_macros() -> None:
    for file, text in sql_files():
        for statement in statements(text):
            assert statement.upper().startswith("CREATE OR REPLACE MACRO RANKEVAL_"), file


def _cli_session(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    """What the README's `cat sql/_shared.sql sql/[!_]*.sql sql/_evaluate.sql | duckdb`
    does (the glob takes the family files and rankeval.sql, whose entry point
    `rankeval_summary` / `rankeval_evaluate` call)."""
    con = duckdb.connect()
    order = ["_shared.sql", *sorted(p.name for p in SQL.glob("[!_]*.sql")), "_evaluate.sql"]
    for name in order:
        con.execute((SQL / name).read_text(encoding="utf-8"))
    return con


RUN = pl.DataFrame(
    {
        "query": ["q1", "q1", "q1", "q2", "q2", "q3"],
        "item": ["a", "B", "b", "a", "d", "x"],
        "score": [3.0, 2.0, 2.0, 2.0, 1.0, 1.0],
    }
)
QRELS = pl.DataFrame(
    {"query": ["q1", "q1", "q2", "q1", "q2"], "item": ["B", "b", "d", "z", "e"],
     "relevance": [1, 2, 1, 0, -1]}
)  # fmt: skip


def test_files_run_as_is_on_parquet(tmp_path: Path) -> None:
    """The README snippet: macros from the files, evaluation of Parquet files."""
    RUN.write_parquet(tmp_path / "run.parquet")
    QRELS.write_parquet(tmp_path / "qrels.parquet")
    con = _cli_session(tmp_path)
    os.chdir(tmp_path)
    try:
        summary = con.execute(
            "SELECT measure, value FROM rankeval_summary('run.parquet', 'qrels.parquet', k := 2)"
        ).fetchall()
        per_query = con.execute(
            "SELECT * FROM rankeval_nDCG('run.parquet', 'qrels.parquet', k := 2, gain := 'exp')"
        ).fetchall()
    finally:
        os.chdir(ROOT)
    names = [m for m, _ in summary]
    assert names[:5] == ["AP", "AP@2", "nDCG", "nDCG@2", "P@2"]
    with pytest.warns(rk.RankevalWarning):
        want = rk.evaluate(RUN, QRELS, names)
    for (name, value), expected in zip(summary, want["value"], strict=True):
        assert math.isclose(value, expected, abs_tol=1e-12), name
    with pytest.warns(rk.RankevalWarning):
        want_q = rk.evaluate(RUN, QRELS, ["nDCG(gain=exp)@2"], per_query=True)
    got, expected = sorted(per_query), sorted(want_q.rows())
    assert [r[:2] for r in got] == [r[:2] for r in expected]
    assert [r[2] for r in got] == pytest.approx([r[2] for r in expected], abs=1e-12)


@pytest.fixture(scope="module")
def cli_session(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    """One CLI-like session for the table-macro tests (the macros only read ``run`` and
    ``qrels``): loading every file costs ~0.1 s CPU, once per module, not per test."""
    con = _cli_session(tmp_path_factory.mktemp("cli"))
    con.register("run", RUN.to_arrow())
    con.register("qrels", QRELS.to_arrow())
    return con


@pytest.mark.parametrize("family", sorted(set(REGISTRY) - NO_FAMILY_FILE))
@pytest.mark.parametrize("rel", [1, 2])
def test_family_table_macro_equals_polars(
    family: str, rel: int, cli_session: duckdb.DuckDBPyConnection
) -> None:
    """Each rankeval_<family>(...) table macro, at every value of its parameters; the
    polars values of all the calls' measures in one evaluation."""
    spec = REGISTRY[family]
    choices = [[(p.name, c) for c in p.choices] for p in spec.params if p.choices]
    combos: list[list[tuple[str, str]]] = [[]]
    for axis in choices:
        combos = [c + [v] for c in combos for v in axis]
    got: dict[str, list[tuple[str, float]]] = {}
    for combo in combos:
        for k in (None, 1, 2, 5) if spec.cutoff else (None,):
            args = "".join(f", {n} := '{v}'" for n, v in combo)
            args += f", rel := {rel}" + (f", k := {k}" if k else "")
            call = f"rankeval_{family}('run', 'qrels'{args})"
            rows = cli_session.execute(f"SELECT * FROM {call}").fetchall()
            names = {m for _, m, _ in rows}
            assert len(names) == 1, (call, names)
            (name,) = names
            assert str(rk.parse_measure(name)) == name  # the macro names it canonically
            assert name not in got, (call, name)  # each call a measure of its own
            got[name] = sorted((q, v) for q, _, v in rows)
    with pytest.warns(rk.RankevalWarning):
        want = rk.evaluate(RUN, QRELS, list(got), per_query=True)
    for name, rows in got.items():
        expected = sorted(
            (q, v) for q, v in want.filter(pl.col("measure") == name).select("query", "value").rows()
        )
        assert [q for q, _ in rows] == [q for q, _ in expected], name
        for (_, a), (_, b) in zip(rows, expected, strict=True):
            assert math.isclose(a, b, abs_tol=1e-12), (name, rows, expected)


@pytest.mark.slow
def test_wheel_ships_the_sql_files(tmp_path: Path) -> None:
    """`pip wheel --no-deps` puts sql/*.sql into polars_rankeval/_sqlfiles, and the
    package finds them there through importlib.resources."""
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = tmp_path.glob("polars_rankeval-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = {
            Path(n).name: archive.read(n)
            for n in archive.namelist()
            if n.startswith("polars_rankeval/_sqlfiles/") and n.endswith(".sql")
        }
        archive.extractall(tmp_path / "site")
    assert shipped == {p.name: p.read_bytes() for p in SQL.glob("*.sql")}
    probe = (
        "import polars_rankeval, polars_rankeval.engines.sqltwin.build as t, duckdb\n"
        "from polars_rankeval.duckdb import install\n"
        "print(polars_rankeval.__file__)\n"
        "print(len(t.sql_files()))\n"
        "install(duckdb.connect())\n"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    location, count = out.stdout.split()
    assert location.startswith(str(tmp_path / "site"))
    assert int(count) == len(shipped) - 1  # all but rankeval.sql, the entry point
