"""Reading the command's QRELS and RUN arguments: TREC text, Parquet, CSV or ``-``."""

from __future__ import annotations

import contextlib
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from polars_rankeval._errors import InputError
from polars_rankeval.cli._common import UsageError

__all__ = ["Reader"]


@dataclass
class Reader:
    """Opens QRELS/RUN arguments; ``-`` (standard input) is spooled to a temporary file."""

    stack: contextlib.ExitStack
    stdin_used: bool = False
    aliases: dict[str, str] = field(default_factory=dict)  # temporary path -> "-"

    def _path(self, argument: str) -> Path:
        if argument != "-":
            path = Path(argument)
            if path.is_dir():
                raise UsageError(f"{argument} is a directory, not a file")
            if not path.is_file():
                raise UsageError(f"no such file: {argument}")
            return path
        if self.stdin_used:
            raise UsageError("standard input (-) can be given only once")
        self.stdin_used = True
        data = sys.stdin.buffer.read()
        suffix = ".parquet" if data[:4] == b"PAR1" else ".txt"
        directory = Path(self.stack.enter_context(tempfile.TemporaryDirectory()))
        path = directory / f"stdin{suffix}"
        path.write_bytes(data)
        self.aliases[str(path)] = "-"
        return path

    def run(self, argument: str, keep: Sequence[str] = ()) -> pl.LazyFrame:
        """A run as a lazy frame with String ``query``/``item`` and ``score``/``rank``
        (and the columns ``keep`` of a Parquet or CSV run, e.g. ``--by`` groups)."""
        path = self._path(argument)
        frame = _scan_table(path)
        if frame is None:
            fast = _plain_trec(path, _RUN)
            if fast is not None:
                return fast.lazy()
            from polars_rankeval.io import read_trec_run

            return read_trec_run(path)
        return _typed(
            frame,
            argument,
            {"query": pl.String, "item": pl.String},
            {"score": pl.Float64, "rank": pl.Int64, "tag": pl.String},
            need_one_of=("score", "rank"),
            keep=keep,
        )

    def qrels(self, argument: str) -> pl.LazyFrame:
        """Qrels as a lazy frame with String ``query``/``item`` and ``relevance``."""
        path = self._path(argument)
        frame = _scan_table(path)
        if frame is None:
            fast = _plain_trec(path, _QRELS)
            if fast is not None:
                return fast.lazy()
            from polars_rankeval.io import read_trec_qrels

            return read_trec_qrels(path)
        schema = frame.collect_schema()
        relevance = schema.get("relevance")
        numeric = relevance is not None and relevance.is_numeric()
        return _typed(
            frame,
            argument,
            {"query": pl.String, "item": pl.String, "relevance": pl.Float64},
            {},
            keep_numeric="relevance" if numeric else None,
        )

    def name(self, text: str) -> str:
        """``text`` with the temporary standard-input paths shown as ``-``."""
        for temporary, alias in self.aliases.items():
            text = text.replace(temporary, alias)
        return text


@dataclass(frozen=True)
class _Layout:
    """A TREC text layout: the fields read (by position), and how many a line has."""

    fields: dict[str, tuple[int, Any]]  # output column -> (field position, dtype)
    width: int  # fields read: the run's first 6, the qrels' 4 and one more
    exact: bool  # qrels: exactly 4 fields (the 5th must be absent)


_RUN = _Layout(
    {"query": (0, pl.String), "item": (2, pl.String), "rank": (3, pl.Int64),
     "score": (4, pl.Float64), "tag": (5, pl.String)},
    width=6, exact=False,
)  # fmt: skip
_QRELS = _Layout(
    {"query": (0, pl.String), "item": (2, pl.String), "relevance": (3, pl.Int64)},
    width=5, exact=True,
)  # fmt: skip
# bytes after which splitting on single spaces could differ from splitting on any run of
# whitespace, as polars_rankeval.io does: other whitespace, and its own line separator
_NOT_PLAIN = (b"\t", b"\r", b"\v", b"\f", b"\x1f")


def _plain_bytes(path: Path, *, spaces: bool) -> bool:
    """Whether the file is ASCII without tabs, CRs, ...; with ``spaces``, also without
    two spaces in a row or a line starting with a space (slow on big files: qrels only)."""
    patterns = _NOT_PLAIN + ((b"  ", b"\n ") if spaces else ())
    previous = b"\n"
    with open(path, "rb") as file:
        while chunk := file.read(1 << 24):
            if not chunk.isascii():
                return False
            window = previous + chunk if spaces else chunk
            if any(pattern in window for pattern in patterns):
                return False
            previous = chunk[-1:]
    return True


def _plain_trec(path: Path, layout: _Layout) -> pl.DataFrame | None:
    """A TREC file read fast, split on single spaces by polars' CSV reader; None when the
    file is not plain enough for that to give what :mod:`polars_rankeval.io` gives (other
    whitespace, non-ASCII bytes, a missing or bad field...): that reader then reads it,
    with its line-numbered errors.  Blank lines and ``#`` lines are skipped as there."""
    if not _plain_bytes(path, spaces=layout.exact):
        return None
    columns = [f"_{i}" for i in range(layout.width)]
    try:
        raw = pl.read_csv(
            path, has_header=False, separator=" ", quote_char=None, comment_prefix="#",
            truncate_ragged_lines=True, missing_columns="insert",
            schema=dict.fromkeys(columns, pl.String),
        )  # fmt: skip
    except pl.exceptions.PolarsError:
        return None
    raw = raw.filter(pl.any_horizontal(pl.all().is_not_null()))  # blank lines
    typed = {
        name: pl.col(columns[i]).cast(dtype, strict=False)
        for name, (i, dtype) in layout.fields.items()
    }
    # a missing field (fewer fields, or two spaces in a row), a number that does not
    # parse, or (qrels) a fifth field: the line-numbered reader reports it
    required = columns[: layout.width - 1] if layout.exact else columns
    bad = pl.any_horizontal(
        *(pl.col(name).is_null() for name in required),
        *(value.is_null() for value in typed.values()),
        *([pl.col(columns[-1]).is_not_null()] if layout.exact else []),
    )
    frame = raw.select(**typed, _bad=bad)
    if frame.height and frame.get_column("_bad").any():
        return None
    return frame.drop("_bad")


def _scan_table(path: Path) -> pl.LazyFrame | None:
    """A Parquet or CSV file by extension (CSV read as text, typed by the caller);
    None for anything else, which is read as TREC text."""
    if path.suffix.lower() == ".parquet":
        return pl.scan_parquet(path)
    if path.suffix.lower() == ".csv":
        return pl.scan_csv(path, infer_schema=False)
    return None


def _typed(
    frame: pl.LazyFrame,
    argument: str,
    required: dict[str, Any],
    optional: dict[str, Any],
    *,
    need_one_of: tuple[str, ...] = (),
    keep_numeric: str | None = None,
    keep: Sequence[str] = (),
) -> pl.LazyFrame:
    """Select and cast the columns the command uses from a CSV or Parquet input."""
    try:
        schema = frame.collect_schema()
    except pl.exceptions.PolarsError as error:
        raise InputError(f"{argument}: cannot read: {error}") from error
    missing = [name for name in required if name not in schema]
    if missing or (need_one_of and not any(name in schema for name in need_one_of)):
        wanted = list(required) + ([" or ".join(need_one_of)] if need_one_of else [])
        raise InputError(
            f"{argument}: needs columns {', '.join(wanted)}; it has {', '.join(schema)}"
        )
    columns = {**required, **{k: v for k, v in optional.items() if k in schema}}
    kept = [pl.col(name) for name in keep if name in schema and name not in columns]
    return frame.select(
        *(
            pl.col(name) if name == keep_numeric else pl.col(name).cast(dtype, strict=False)
            for name, dtype in columns.items()
        ),
        *kept,
    )
