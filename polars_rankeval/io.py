"""Readers for TREC run and qrels text files, as lazy frames.

Fields are separated by any run of spaces or tabs; lines whose first non-blank
character is ``#`` and blank lines are skipped (a ``#`` inside an id is kept).  A line
that does not parse raises :class:`~polars_rankeval.InputError` naming the file, the
line number and the line, when the frame is collected; so does a line that is not
UTF-8 (with the byte offset of its first bad byte).  Qrels lines have exactly four
fields, as trec_eval requires; run lines at least six (trec_eval ignores the rest).
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from polars_rankeval._errors import InputError

__all__ = ["read_trec_qrels", "read_trec_run"]

_LINE = "_line"
_NUMBER = "_line_number"
_FIELDS = "_fields"
_AFTER = "_after_unit_separator"


def _scan_lines(path: str | Path) -> pl.LazyFrame:
    """Every line of a text file with its 1-based number, comments and blanks removed."""
    if not isinstance(path, str | os.PathLike):
        raise InputError(f"path must be a file path (str or os.PathLike), got {type(path).__name__}")
    path = Path(path)
    if not path.exists():
        raise InputError(f"no such file: {path}")
    if path.is_dir():  # a scan would read every file inside it as one
        raise InputError(f"{path} is a directory, not a file")
    blank = pl.col(_LINE).str.contains(r"^\s*$") & (pl.col(_AFTER) == "")
    return (
        pl.scan_csv(
            path,
            has_header=False,
            separator="\x1f",  # a byte that does not occur in TREC files: one field a line
            quote_char=None,
            # a line that holds the byte anyway (a binary file): its rest in _AFTER, an
            # error in _checked rather than polars' column-count error
            schema={_LINE: pl.String, _AFTER: pl.String},
            missing_columns="insert",
            extra_columns="ignore",
            truncate_ragged_lines=True,
            row_index_name=_NUMBER,
            row_index_offset=1,
            empty_string_is_null=False,
            encoding="utf8-lossy",  # bad bytes become U+FFFD, reported by _checked
        )
        .filter(~pl.col(_LINE).str.contains(r"^\s*#") & ~blank)
        .with_columns(pl.col(_LINE).str.extract_all(r"\S+").alias(_FIELDS))
    )


def _line_at(path: str | Path, number: int) -> tuple[int, bytes]:
    """Line ``number`` (1-based) of the file as its bytes, and its byte offset, for an
    error message (the parsed columns hold the line cut at the byte that broke it)."""
    offset = 0
    with open(path, "rb") as file:
        for index, raw in enumerate(file, 1):
            if index == number:
                return offset, raw
            offset += len(raw)
    return offset, b""  # pragma: no cover


def _raw_line(path: str | Path, number: int) -> str:
    """Line ``number`` of the file as text (bad bytes replaced), for an error message."""
    return _line_at(path, number)[1].rstrip(b"\r\n").decode("utf-8", errors="replace")


def _not_utf8(path: str | Path, number: int) -> InputError | None:
    """The error for line ``number`` if its bytes are not UTF-8 (None if they are)."""
    offset, raw = _line_at(path, number)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return InputError(
            f"{path}, line {number}: not UTF-8: byte 0x{raw[error.start]:02x} at "
            f"byte offset {offset + error.start} of the file (save it as UTF-8)"
        )
    return None


def _checked(
    lines: pl.LazyFrame,
    path: str | Path,
    fields: dict[str, pl.Expr],
    layout: str,
    minimum: int,
    *,
    exact: bool = False,
) -> pl.LazyFrame:
    parsed = lines.with_columns(**fields)
    numeric = [name for name, dtype in parsed.collect_schema().items() if dtype.is_numeric()]
    count = pl.col(_FIELDS).list.len()

    def check(batch: pl.DataFrame) -> pl.DataFrame:
        for number in batch.filter(pl.col(_LINE).str.contains("\ufffd", literal=True))[_NUMBER]:
            error = _not_utf8(path, number)
            if error is not None:
                raise error
        separated = batch.filter(pl.col(_AFTER) != "")
        if separated.height:
            number = separated[_NUMBER][0]
            raise InputError(
                f"{path}, line {number}: the byte 0x1f (a control character) is not text of "
                f"a TREC file (is it a binary file?): {_raw_line(path, number)[:80]!r}"
            )
        bad = batch.filter(
            ((count != minimum) if exact else (count < minimum))
            | pl.any_horizontal(pl.col(name).is_null() for name in numeric)
        )
        if bad.height:
            number, line = bad.row(0, named=True)[_NUMBER], bad.row(0, named=True)[_LINE]
            raise InputError(
                f"{path}, line {number}: cannot parse {line!r}: expected {layout} "
                f"({bad.height} bad line(s) in this batch)"
            )
        return batch.drop(_LINE, _NUMBER, _FIELDS, _AFTER)

    schema = {k: v for k, v in parsed.collect_schema().items() if k not in (_LINE, _NUMBER, _FIELDS, _AFTER)}
    return parsed.map_batches(check, schema=schema, streamable=True)


def _field(i: int, dtype: pl.DataType | type[pl.DataType] = pl.String) -> pl.Expr:
    value = pl.col(_FIELDS).list.get(i, null_on_oob=True)
    return value if dtype == pl.String else value.cast(dtype, strict=False)


def read_trec_run(path: str | Path) -> pl.LazyFrame:
    """Scan a TREC run file ``query Q0 item rank score tag`` (extra columns ignored).

    Returns a LazyFrame with ``query``, ``item`` (strings), ``rank`` (Int64), ``score``
    (Float64) and ``tag``.  As in trec_eval, evaluation ranks by ``score``; the ``rank``
    column is kept for reference.

    >>> from pathlib import Path
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("# my run\\nq1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.5 bm25\\n")
    >>> read_trec_run(path).collect()
    shape: (2, 5)
    ┌───────┬──────┬──────┬───────┬──────┐
    │ query ┆ item ┆ rank ┆ score ┆ tag  │
    │ ---   ┆ ---  ┆ ---  ┆ ---   ┆ ---  │
    │ str   ┆ str  ┆ i64  ┆ f64   ┆ str  │
    ╞═══════╪══════╪══════╪═══════╪══════╡
    │ q1    ┆ d1   ┆ 1    ┆ 2.5   ┆ bm25 │
    │ q1    ┆ d2   ┆ 2    ┆ 1.5   ┆ bm25 │
    └───────┴──────┴──────┴───────┴──────┘
    """
    fields = {
        "query": _field(0),
        "item": _field(2),
        "rank": _field(3, pl.Int64),
        "score": _field(4, pl.Float64),
        "tag": _field(5),
    }
    return _checked(_scan_lines(path), path, fields, "'query Q0 item rank score tag'", 6)


def read_trec_qrels(path: str | Path, *, subtopics: bool = False) -> pl.LazyFrame:
    """Scan a TREC qrels file ``query iteration item relevance``.

    Returns a LazyFrame with ``query``, ``item`` (strings) and ``relevance`` (Int64;
    negative values mean "in the pool but unjudged", as in trec_eval).  With
    ``subtopics=True`` the file is diversity qrels as ndeval reads them, ``query
    subtopic item relevance`` (the second field is the subtopic), and the frame has
    ``query, subtopic, item, relevance`` (subtopic a string), the input of the
    diversity measures (``alpha_nDCG@20``...).

    >>> from pathlib import Path
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("q1 0 d1 1\\nq1 0 d3 0\\n")
    >>> read_trec_qrels(path).collect()
    shape: (2, 3)
    ┌───────┬──────┬───────────┐
    │ query ┆ item ┆ relevance │
    │ ---   ┆ ---  ┆ ---       │
    │ str   ┆ str  ┆ i64       │
    ╞═══════╪══════╪═══════════╡
    │ q1    ┆ d1   ┆ 1         │
    │ q1    ┆ d3   ┆ 0         │
    └───────┴──────┴───────────┘
    >>> _ = path.write_text("q1 1 d1 1\\nq1 2 d1 0\\n")
    >>> read_trec_qrels(path, subtopics=True).collect().rows()
    [('q1', '1', 'd1', 1), ('q1', '2', 'd1', 0)]
    """
    fields = {"query": _field(0), "item": _field(2), "relevance": _field(3, pl.Int64)}
    layout = "'query iteration item relevance' (4 fields)"
    if subtopics:
        fields = {"query": _field(0), "subtopic": _field(1), **fields}
        fields = {name: fields[name] for name in ("query", "subtopic", "item", "relevance")}
        layout = "'query subtopic item relevance' (4 fields)"
    return _checked(_scan_lines(path), path, fields, layout, 4, exact=True)
