"""The rendered SQL on a real PostgreSQL: a throwaway cluster (initdb in a temp dir, C
collation, listening on 127.0.0.1 only, trust auth), loaded with COPY through psql, must
match the polars engine to 1e-9.

Skipped, with the reason, only when PostgreSQL's binaries are absent; ``.ci/install_engines.sh``
installs them (Debian package ``postgresql``).
"""

from __future__ import annotations

import contextlib
import glob
import io
import os
import pwd
import shutil
import socket
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
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

pytest.importorskip("sqlglot")


def _binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


BINARIES = {name: _binary(name) for name in ("initdb", "pg_ctl", "psql")}
MISSING = [name for name, path in BINARIES.items() if path is None]
pytestmark = [
    pytest.mark.slow,  # a cluster starts for these tests
    pytest.mark.skipif(
        bool(MISSING),
        reason=f"PostgreSQL not installed (no {', '.join(MISSING)}): run .ci/install_engines.sh",
    ),
]


class Postgres:
    """A cluster in ``directory``; ``psql(sql, stdin)`` runs one command."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.data = directory / "data"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.as_root = os.geteuid() == 0

    def _command(self, argv: list[str]) -> list[str]:
        """initdb and postgres refuse to run as root: run them as the postgres user.
        Where /dev/null is not a device (some sandboxes), initdb's `> /dev/null`
        redirections fail; a private mount namespace gets a writable stand-in."""
        if not self.as_root:
            return argv
        command = " ".join(_quote(a) for a in argv)
        script = f"su postgres -c {_quote(command)}"
        if not stat.S_ISCHR(os.stat("/dev/null").st_mode) and shutil.which("unshare"):
            null = self.directory / "null"
            null.touch()
            null.chmod(0o666)
            script = f"mount --bind {_quote(str(null))} /dev/null && {script}"
            return ["unshare", "-m", "sh", "-c", script]
        return ["sh", "-c", script]

    def start(self) -> None:
        if self.as_root:
            pwd.getpwnam("postgres")  # KeyError: no postgres user to run as
            shutil.chown(self.directory, "postgres")
        initdb = [BINARIES["initdb"], "-D", str(self.data), "--locale=C", "-E", "UTF8",
                  "-A", "trust", "-U", "postgres", "--no-sync"]  # fmt: skip
        _run(self._command(initdb))
        # jit=off: LLVM compiles the grid's long CASE expressions for 20-70 s per query on
        # a 2-core machine, for tables of a few hundred rows (the results do not change)
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} "
            f"-c unix_socket_directories={self.directory} -c fsync=off -c jit=off"
        )
        pg_ctl = [BINARIES["pg_ctl"], "-D", str(self.data), "-l", str(self.directory / "log"),
                  "-w", "-o", options, "start"]  # fmt: skip
        _run(self._command(pg_ctl))

    def stop(self) -> None:
        pg_ctl = [BINARIES["pg_ctl"], "-D", str(self.data), "-m", "immediate", "-w", "stop"]
        subprocess.run(self._command(pg_ctl), capture_output=True, check=False)

    def psql(self, sql: str, stdin: str | None = None) -> str:
        argv = [BINARIES["psql"], "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                "-d", "postgres", "-X", "-q", "-v", "ON_ERROR_STOP=1"]  # fmt: skip
        if stdin is not None or len(sql) < 100_000:
            return _run([*argv, "-c", sql], stdin=stdin or "")
        # a long query (the whole grid) goes in a file: one argument is limited to 128 KiB
        with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as script:
            script.write(sql)
        try:
            return _run([*argv, "-f", script.name])
        finally:
            os.unlink(script.name)

    def load(self, name: str, frame: pl.DataFrame, collation: str | None = None) -> None:
        types = {pl.String: "text", pl.Int64: "bigint", pl.Float64: "double precision"}
        collate = f' COLLATE "{collation}"' if collation else ""
        columns = ", ".join(
            f'"{c}" {types[frame.schema[c]]}{collate if frame.schema[c] == pl.String else ""}'
            for c in frame.columns
        )
        self.psql(f'DROP TABLE IF EXISTS "{name}"; CREATE TABLE "{name}" ({columns})')
        self.psql(
            f'COPY "{name}" FROM STDIN WITH (FORMAT csv)', frame.write_csv(include_header=False)
        )

    def query(self, sql: str, schema: dict[str, pl.DataType]) -> pl.DataFrame:
        out = self.psql(f"COPY ({sql}) TO STDOUT WITH (FORMAT csv, HEADER)")
        return pl.read_csv(io.StringIO(out), schema_overrides=schema)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _run(argv: list[str], stdin: str | None = None) -> str:
    result = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False)
    if result.returncode:
        raise RuntimeError(f"{argv[0]} failed ({result.returncode}): {result.stderr[-2000:]}")
    return result.stdout


@pytest.fixture(scope="module")
def postgres() -> Iterator[Postgres]:
    # a fresh directory the postgres user can reach (pytest's base temp is root-only)
    directory = Path(tempfile.mkdtemp(prefix="rankeval-postgres-"))
    directory.chmod(0o755)
    server = Postgres(directory)
    try:
        server.start()
    except (RuntimeError, KeyError) as error:
        log = directory / "log"
        detail = log.read_text()[-1500:] if log.exists() else ""
        pytest.fail(f"could not start a PostgreSQL cluster: {error}\n{detail}")
    try:
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.stop()
        shutil.rmtree(directory, ignore_errors=True)


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
    expected = oracle(data["run"], data["qrels"], GRID)
    assert len(expected) > 200  # the grid's trec_eval measures on 50 cases
    _check(postgres, data["run"], data["qrels"], GRID, expected=expected)


def test_rank_column_and_no_qrels(postgres: Postgres) -> None:
    data = random_cases(8, 15, int_ids=False)
    _check(postgres, data["ranked"], data["qrels"], GRID, score=None)
    _check(postgres, data["labels"], None, NO_NUMREL)


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
