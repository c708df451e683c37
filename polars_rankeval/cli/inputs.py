"""Reading the command's QRELS and RUN arguments: TREC text, Parquet, CSV or ``-``."""

from __future__ import annotations

import contextlib
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from polars_rankeval._errors import InputError
from polars_rankeval.cli._common import UsageError
from polars_rankeval.cli.plain import QRELS, RUN, RunChunks, read_plain

__all__ = ["Reader", "RunSource"]


@dataclass
class Reader:
    """Opens QRELS/RUN arguments; ``-`` (standard input) and pipes (``<(zcat run.gz)``)
    are spooled to a temporary file."""

    stack: contextlib.ExitStack
    stdin_used: bool = False
    aliases: dict[str, str] = field(default_factory=dict)  # temporary path -> argument

    def _path(self, argument: str) -> Path:
        if argument != "-":
            path = Path(argument)
            if path.is_dir():
                raise UsageError(f"{argument} is a directory, not a file")
            if path.is_file():
                return path
            if not path.exists():
                raise UsageError(f"no such file: {argument}")
            # a pipe or device (`<(zcat run.gz)`, /dev/stdin): read once, like standard input
            return self._spool(path.read_bytes(), argument)
        if self.stdin_used:
            raise UsageError("standard input (-) can be given only once")
        self.stdin_used = True
        return self._spool(sys.stdin.buffer.read(), "-")

    def _spool(self, data: bytes, argument: str) -> Path:
        """``data`` in a temporary file, which messages name as ``argument``."""
        suffix = ".parquet" if data[:4] == b"PAR1" else ".txt"
        directory = Path(self.stack.enter_context(tempfile.TemporaryDirectory()))
        path = directory / f"stdin{suffix}"
        path.write_bytes(data)
        self.aliases[str(path)] = argument
        return path

    def run(self, argument: str, keep: Sequence[str] = ()) -> pl.LazyFrame:
        """A run as a lazy frame with String ``query``/``item`` and ``score``/``rank``
        (and the columns ``keep`` of a Parquet or CSV run, e.g. ``--by`` groups).  A
        plain TREC file is read fast (:mod:`.plain`: ``query, item, score, tag``), any
        other TREC file by :func:`polars_rankeval.io.read_trec_run`."""
        return self.source(argument).whole(keep)

    def source(self, argument: str) -> RunSource:
        """A RUN argument, to read whole or (TREC text) in chunks of whole queries."""
        return RunSource(argument, self._path(argument))

    def qrels(self, argument: str) -> pl.LazyFrame:
        """Qrels as a lazy frame with String ``query``/``item`` and ``relevance``."""
        path = self._path(argument)
        frame = _scan_table(path)
        if frame is None:
            fast = read_plain(path, QRELS)
            if fast is not None:
                return fast.lazy()
            from polars_rankeval.io import read_trec_qrels

            _refuse_a_run_as_qrels(path, argument)
            return read_trec_qrels(path)
        schema = frame.collect_schema()
        relevance = schema.get("relevance")
        numeric = relevance is not None and relevance.is_numeric()
        if relevance is None and ("score" in schema or "rank" in schema):
            raise InputError(f"{argument}: has no relevance column but a score or rank: {_SWAPPED}")
        return _typed(
            frame,
            argument,
            {"query": pl.String, "item": pl.String, "relevance": pl.Float64},
            {},
            keep_numeric="relevance" if numeric else None,
        )

    def subtopic_qrels(self, argument: str) -> pl.LazyFrame:
        """Subtopic qrels (``query subtopic item relevance``, ndeval's file; or a Parquet
        / CSV file with those columns) with String ``query``/``subtopic``/``item``."""
        path = self._path(argument)
        frame = _scan_table(path)
        if frame is None:
            from polars_rankeval.io import read_trec_qrels

            return read_trec_qrels(path, subtopics=True)
        text = {"query": pl.String, "subtopic": pl.String, "item": pl.String}
        return _typed(frame, argument, {**text, "relevance": pl.Float64}, {})

    def name(self, text: str) -> str:
        """``text`` with the spooled copies' paths shown as their arguments (``-``, a pipe)."""
        for temporary, alias in self.aliases.items():
            text = text.replace(temporary, alias)
        return text


class RunSource(NamedTuple):
    """A RUN argument and the file to read (standard input: its spooled copy)."""

    argument: str
    path: Path

    def chunks(self) -> RunChunks | None:
        """The run in frames of whole queries (:class:`.plain.RunChunks`, which raises
        when the file is not plain or not grouped by query); None for Parquet or CSV."""
        if self.path.suffix.lower() in (".parquet", ".csv"):
            return None
        return RunChunks(self.path)

    def whole(self, keep: Sequence[str] = ()) -> pl.LazyFrame:
        """The whole run (see :meth:`Reader.run`)."""
        path = self.path
        frame = _scan_table(path)
        if frame is None:
            fast = read_plain(path, RUN)
            if fast is not None:
                return fast.lazy()
            from polars_rankeval.io import read_trec_run

            return read_trec_run(path)
        return _typed(
            frame,
            self.argument,
            {"query": pl.String, "item": pl.String},
            {"score": pl.Float64, "rank": pl.Int64, "tag": pl.String},
            need_one_of=("score", "rank"),
            keep=keep,
        )


_SWAPPED = "is it the run? The qrels come first, as in trec_eval: rankeval QRELS RUN"


def _refuse_a_run_as_qrels(path: Path, argument: str) -> None:
    """A qrels file whose first line has a run line's six fields (``query Q0 item rank
    score tag``) cannot be read as qrels (four fields): say that the arguments are
    probably swapped, rather than that its lines cannot be parsed."""
    with open(path, "rb") as file:
        for raw in file:
            fields = raw.split()
            if fields and not fields[0].startswith(b"#"):
                if len(fields) == 6:
                    raise InputError(
                        f"{argument}: line {raw.decode('utf-8', 'replace').strip()!r} has a run "
                        f"line's six fields, not a qrels line's four: {_SWAPPED}"
                    )
                return


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
