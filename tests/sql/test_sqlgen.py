"""`python -m polars_rankeval._sqlgen`: writes the generated SQL, checks it, and writes
nothing when asked for help or given an argument it does not know."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from polars_rankeval import _sqlgen


@pytest.fixture
def generated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "sql" / "rankeval.sql"
    monkeypatch.setattr(_sqlgen, "generated_files", lambda: {target: "SELECT 1;\n"})
    monkeypatch.setattr(_sqlgen, "ROOT", tmp_path)
    return target


@pytest.mark.parametrize("argv", [["--help"], ["--chek"], ["--check", "extra"]])
def test_help_and_unknown_arguments_write_nothing(generated: Path, argv: list[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        _sqlgen.main(argv)
    assert stop.value.code == (0 if argv == ["--help"] else 2)
    assert not generated.exists()


def test_check_reports_stale_then_write_makes_it_fresh(generated: Path, capsys) -> None:
    assert _sqlgen.main(["--check"]) == 1
    assert not generated.exists()
    assert "stale: sql/rankeval.sql" in capsys.readouterr().out
    assert _sqlgen.main([]) == 0
    assert generated.read_text() == "SELECT 1;\n"
    assert _sqlgen.main(["--check"]) == 0


# the _subq CTE's clauses, with each spelling's raising and finiteness test as one token:
# sql.render's DuckDB SQL and the dbt package's Jinja read alike where they say the same
_CLAUSES = re.compile(r"\b(CASE|WHEN|THEN|ELSE|END|IS NULL|NOT|OR|OVER|PARTITION BY|COUNT|MIN|MAX|SELECT|FROM|"
                      r"FAIL|FINITE|AS _\w+)\b|(<>|[<>]=?)")  # fmt: skip
_SPELLINGS = [
    (r"error\('(?:[^']|'')*' \|\| COALESCE\(CAST\([^()]*\), 'NULL'\)\)", "FAIL"),  # render, DuckDB
    (r"isfinite\((?:CAST\([^()]*\)|[^()]*)\)", "FINITE"),
    (r"\{\{ rankeval\.fail\(.*?\) \}\}", "FAIL"),  # dbt, Jinja
    (r"\{\{ rankeval\.finite\(.*?\) \}\}", "FINITE"),
]


def _subq_clauses(sql: str) -> list[str]:
    """The clauses of the ``_subq`` CTE in ``sql``."""
    cte = sql[sql.index("_subq AS ("):]
    cte = cte[: cte.index("\n)") + 2]
    for pattern, token in _SPELLINGS:
        cte = re.sub(pattern, token, cte)
    return [a or b for a, b in _CLAUSES.findall(cte)]


def test_subtopic_qrels_cte_is_one_source_for_render_and_dbt() -> None:
    """sql.render's ``_subq`` and the dbt package's are generated from one spelling
    (_sqldiversity.subq_sql): the same checks in the same clauses and order (the dbt
    package tested the relevance in a WHEN of its own, sql.render in the ELSE)."""
    from polars_rankeval.engines.sqltwin.render import render

    sql = render(["AP", "ERR_IA@20"], "duckdb", run_table="r", qrels_table="q", subtopic="s", intent_weight="w")
    dbt = (Path(_sqlgen.ROOT) / "sql" / "dbt" / "macros" / "_generated_evaluate.sql").read_text()
    got, want = _subq_clauses(dbt), _subq_clauses(sql)
    assert got == want
    assert want.count("FAIL") == 6 and "ELSE CASE WHEN FINITE" in " ".join(want)  # ids, subtopic, repeats, weight, relevance
