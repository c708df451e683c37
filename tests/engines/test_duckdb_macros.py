"""engine="duckdb" makes its macros once per machine in a database file of the cache
folder and attaches it read-only in each process (polars_rankeval/engines/duckdb_macros.py);
without a usable folder it installs them in memory, with the same values."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankeval as rk
from polars_rankeval.engines import duckdb as duckdb_engine
from polars_rankeval.engines import duckdb_macros

RUN = pl.DataFrame(
    {
        "sys": ["a", "a", "a", "a", "b", "b"],
        "query": ["q1", "q1", "q1", "q2", "q1", "q2"],
        "item": ["x", "y", "z", "x", "y", "w"],
        "score": [3.0, 2.0, 2.0, 1.0, 0.5, 0.25],
    }
)
QRELS = pl.DataFrame(
    {"query": ["q1", "q1", "q2", "q3"], "item": ["y", "z", "w", "x"], "relevance": [1, 2, 1, 1]}
)
MEASURES = ["AP", "nDCG@2", "P@2", "RR", "NumRel", "RBP(p=0.8)", "Bpref", "R@100"]


def _fresh(monkeypatch: pytest.MonkeyPatch, folder: str | None) -> None:
    """New process-wide databases, the cache folder ``folder`` (None: no variable set,
    "": no cache)."""
    monkeypatch.setattr(duckdb_engine, "_DATABASES", {})
    monkeypatch.setattr(duckdb_engine, "_ATTACHED", set())
    if folder is None:
        monkeypatch.delenv(duckdb_macros.CACHE_ENV, raising=False)
    else:
        monkeypatch.setenv(duckdb_macros.CACHE_ENV, folder)


def _evaluate(small: bool, **kw: object) -> pl.DataFrame:
    run = RUN if small else RUN.lazy()  # a lazy run goes to the default database
    out = rk.evaluate(run, QRELS, MEASURES, engine="duckdb", per_query=True, by=["sys"], **kw)
    return out if isinstance(out, pl.DataFrame) else out.collect()


def _catalogs(database: duckdb.DuckDBPyConnection) -> set[str]:
    """The databases whose catalogs hold rankeval_per_query."""
    rows = database.execute(
        "SELECT DISTINCT database_name FROM duckdb_functions() "
        "WHERE function_name = 'rankeval_per_query'"
    ).fetchall()
    return {name for (name,) in rows}


@pytest.mark.parametrize("small", [True, False], ids=["small-input db", "default db"])
def test_the_macros_are_made_once_and_attached_with_the_same_bits(
    small: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fresh(monkeypatch, "")
    installed = _evaluate(small, complete=True)
    assert _catalogs(duckdb_engine._DATABASES[small]) == {"memory"}
    assert not duckdb_engine._ATTACHED and not list(tmp_path.iterdir())

    _fresh(monkeypatch, str(tmp_path / "cache"))
    attached = _evaluate(small, complete=True)
    files = list((tmp_path / "cache").iterdir())
    # one whole file, no partial one or log left
    assert len(files) == 1 and files[0].suffix == ".duckdb"
    assert files[0].name.startswith(f"duckdb-{duckdb.__version__}-")
    database = duckdb_engine._DATABASES[small]
    assert database in duckdb_engine._ATTACHED
    assert _catalogs(database) == {duckdb_macros.ATTACHED}  # nothing installed in memory

    assert installed.height == 6 * len(MEASURES)  # 2 systems x 3 qrels queries x measures
    assert_frame_equal(attached, installed, check_exact=True)
    polars = rk.evaluate(RUN, QRELS, MEASURES, per_query=True, by=["sys"], complete=True)
    assert_frame_equal(attached, polars, abs_tol=1e-12)

    # a later process finds the file and makes none
    stamp = files[0].stat().st_mtime_ns
    _fresh(monkeypatch, str(tmp_path / "cache"))
    assert_frame_equal(_evaluate(small, complete=True), installed, check_exact=True)
    assert list((tmp_path / "cache").iterdir()) == files
    assert files[0].stat().st_mtime_ns == stamp


def test_errors_are_the_same_from_the_attached_macros(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A check the engine leaves to the macro (a repeated judgment) and one the macro
    raises by itself (an unknown measure parameter reaches it only through SQL users)."""
    bad = pl.concat([QRELS, QRELS.head(1)])
    outcomes = []
    for folder in ("", str(tmp_path)):
        _fresh(monkeypatch, folder)
        with pytest.raises(rk.InputError) as error:
            rk.evaluate(RUN, bad, MEASURES, engine="duckdb")
        outcomes.append(str(error.value))
    assert duckdb_engine._DATABASES[True] in duckdb_engine._ATTACHED
    assert outcomes[0] == outcomes[1] and "duplicate" in outcomes[0]


def test_without_a_usable_folder_the_macros_are_installed_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    _fresh(monkeypatch, str(blocker / "cache"))  # cannot be made
    assert duckdb_macros.macro_file("SELECT 1") is None
    got = _evaluate(True)
    assert _catalogs(duckdb_engine._DATABASES[True]) == {"memory"}
    assert not duckdb_engine._ATTACHED
    assert_frame_equal(got, rk.evaluate(RUN, QRELS, MEASURES, per_query=True, by=["sys"]),
                       abs_tol=1e-12)


def test_a_file_duckdb_cannot_attach_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A damaged file under the expected name: the engine installs in memory and leaves
    the file as it is."""
    _fresh(monkeypatch, str(tmp_path))
    path = duckdb_macros.macro_file(duckdb_engine._sql_parts()[0])
    assert path is not None and path.is_file()
    path.write_bytes(b"not a database" * 100)
    _fresh(monkeypatch, str(tmp_path))
    got = _evaluate(True)
    assert not duckdb_engine._ATTACHED
    assert _catalogs(duckdb_engine._DATABASES[True]) == {"memory"}
    assert_frame_equal(got, rk.evaluate(RUN, QRELS, MEASURES, per_query=True, by=["sys"]),
                       abs_tol=1e-12)
    assert path.read_bytes() == b"not a database" * 100


def test_one_file_per_duckdb_version_and_sql_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(duckdb_macros.CACHE_ENV, str(tmp_path))
    one = duckdb_macros.macro_file("CREATE MACRO one() AS 1")
    again = duckdb_macros.macro_file("CREATE MACRO one() AS 1")
    other = duckdb_macros.macro_file("CREATE MACRO one() AS 2")
    assert one is not None and other is not None
    assert one == again != other
    assert {one.name[: len(f"duckdb-{duckdb.__version__}-")], other.parent} == {
        f"duckdb-{duckdb.__version__}-", tmp_path
    }
    con = duckdb.connect()
    con.execute(f"ATTACH '{other}' AS m (READ_ONLY)")
    assert con.execute("SELECT m.main.one()").fetchall() == [(2,)]


def test_the_default_folder_is_the_users_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(duckdb_macros.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert duckdb_macros.cache_folder() == tmp_path / "polars_rankeval"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert duckdb_macros.cache_folder() == tmp_path / "home" / ".cache" / "polars_rankeval"


def test_processes_making_the_file_at_once_each_get_a_whole_one(tmp_path: Path) -> None:
    """Four processes start together on an empty folder: each evaluates, one file stays
    (each made its own and moved it into place), no partial file is left."""
    script = (
        "import polars as pl, polars_rankeval as rk\n"
        "from polars_rankeval.engines import duckdb as e\n"
        f"run = pl.DataFrame({RUN.to_dict(as_series=False)!r})\n"
        f"qrels = pl.DataFrame({QRELS.to_dict(as_series=False)!r})\n"
        "out = rk.evaluate(run, qrels, ['AP', 'RR'], engine='duckdb', by=['sys'])\n"
        "assert e._DATABASES[True] in e._ATTACHED\n"
        "print([v.hex() for v in out['value']])\n"
    )
    env = {**dict(__import__("os").environ), duckdb_macros.CACHE_ENV: str(tmp_path)}
    processes = [
        subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    outputs = [p.communicate(timeout=300) for p in processes]
    assert [p.returncode for p in processes] == [0] * 4, outputs
    # one line each, the same: no progress bar either (a DuckDB connection prints one on
    # stdout when a statement takes over 2 s, as making the file did under load)
    assert len({out for out, _ in outputs}) == 1 and outputs[0][0].count("\n") == 1
    assert [f.suffix for f in tmp_path.iterdir()] == [".duckdb"]
