"""A throwaway PostgreSQL cluster for the warehouse tests: initdb in a temp dir, C
collation, listening on 127.0.0.1 only, trust auth, loaded with COPY through psql.

Shared by the test modules (test modules never import from each other); the session-scoped
``postgres`` fixture that starts one is in ``tests/sql/conftest.py``.  ``MISSING`` names
the binaries not found (the tests skip, saying which; ``.ci/install_engines.sh`` installs
them, Debian package ``postgresql``).
"""

from __future__ import annotations

import glob
import io
import os
import pwd
import shutil
import socket
import stat
import subprocess
import tempfile
from pathlib import Path

import polars as pl


def _binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


BINARIES = {name: _binary(name) for name in ("initdb", "pg_ctl", "psql")}
MISSING = [name for name, path in BINARIES.items() if path is None]


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
