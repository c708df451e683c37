"""`python -m polars_rankeval._sqlgen`: writes the generated SQL, checks it, and writes
nothing when asked for help or given an argument it does not know."""

from __future__ import annotations

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
