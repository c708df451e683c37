"""``-o`` is written whole or not at all: a write that fails mid-way leaves the old file.

The failure is made real: the file object the output is written to raises
``OSError(ENOSPC)`` after its first bytes went through (a full disk), or the final
rename fails.  Tests run through the public entry points only (``cli.main`` and
``_files.atomic_write``), so they hold whatever shape the CLI takes.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from polars_rankeval import _files
from polars_rankeval.cli import main

OLD = b"the previous result\n"


class _FullDisk:
    """A binary file that accepts ``budget`` bytes, then fails like a full disk."""

    def __init__(self, file: Any, budget: int) -> None:
        self._file = file
        self._budget = budget

    def write(self, data: Any) -> int:
        data = bytes(data)
        if len(data) > self._budget:
            self._file.write(data[: self._budget])
            self._file.flush()
            self._budget = 0
            raise OSError(errno.ENOSPC, "No space left on device")
        self._budget -= len(data)
        return self._file.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()


@pytest.fixture
def full_disk(monkeypatch):
    real = os.fdopen

    def fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        return _FullDisk(real(fd, mode, *args, **kwargs), budget=8)

    monkeypatch.setattr(os, "fdopen", fdopen)


@pytest.fixture
def inputs(tmp_path):
    run = tmp_path / "run.txt"
    qrels = tmp_path / "qrels.txt"
    run.write_text(
        "".join(f"q{q} Q0 d{i} {i + 1} {10 - i} tag\n" for q in range(5) for i in range(9))
    )
    qrels.write_text("".join(f"q{q} 0 d{q} 1\n" for q in range(5)))
    return run, qrels


def _leftovers(directory: Path, name: str) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name != name and name in p.name)


@pytest.mark.parametrize("suffix", [".txt", ".csv", ".json", ".parquet"])
def test_cli_output_failing_mid_write_keeps_the_old_file(capsys, tmp_path, inputs, full_disk,
                                                         suffix):  # fmt: skip
    run, qrels = inputs
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / f"result{suffix}"
    target.write_bytes(OLD)
    argv = ["-q", "-m", "map", "-m", "P.5", "-o", str(target), str(qrels), str(run)]
    # the CLI may report the error (exit code != 0) or let it out (polars wraps it in an
    # OSError without errno for CSV, a ComputeError for Parquet); either way the old file
    # must survive
    try:
        code = main(argv)
    except (OSError, pl.exceptions.ComputeError) as error:
        assert "No space left on device" in str(error)
    else:
        assert code != 0
        assert "No space left on device" in capsys.readouterr().err
    assert target.read_bytes() == OLD  # untouched
    assert _leftovers(out_dir, target.name) == []  # the partial temporary file is gone


def test_cli_output_succeeds_without_the_failure(capsys, tmp_path, inputs):
    # the same command, disk not full: the old file is replaced by the whole result
    run, qrels = inputs
    target = tmp_path / "result.txt"
    target.write_bytes(OLD)
    code = main(["-q", "-m", "map", "-m", "P.5", "-o", str(target), str(qrels), str(run)])
    assert code == 0, capsys.readouterr().err
    lines = target.read_text().splitlines()
    # (map, P_5) per query (5) and for all
    assert len(lines) == 2 * 6
    assert lines[-1].split()[:2] == ["P_5", "all"]


def test_atomic_write_failing_mid_write_keeps_the_old_file(tmp_path):
    target = tmp_path / "frame.csv"
    target.write_bytes(OLD)

    def write(file: Any) -> None:
        file.write(b"query,value\nq1,0.5\n")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        _files.atomic_write(target, write)
    assert target.read_bytes() == OLD
    assert _leftovers(tmp_path, target.name) == []


def test_atomic_write_failing_rename_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "frame.parquet"
    target.write_bytes(OLD)

    def replace(src: Any, dst: Any) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="cross-device"):
        _files.atomic_write(target, lambda f: pl.DataFrame({"a": [1]}).write_parquet(f))
    assert target.read_bytes() == OLD
    assert _leftovers(tmp_path, target.name) == []


def test_atomic_write_writes_the_whole_file(tmp_path):
    target = tmp_path / "frame.csv"
    target.write_bytes(OLD)
    _files.atomic_write(target, lambda f: pl.DataFrame({"a": [1, 2]}).write_csv(f))
    assert target.read_text() == "a\n1\n2\n"
    assert _leftovers(tmp_path, target.name) == []
