"""The fast path of the command's TREC reader: ASCII files through polars' CSV reader.

:mod:`polars_rankeval.io` splits each line on any run of whitespace (a regular
expression over every line, with line numbers for its errors).  Here an ASCII file is
read in blocks of whole lines, each split on single spaces by polars' CSV reader and
cut to the columns the command uses, so that a block's text columns never all live at
once; a block with tabs, CRLF line ends or runs of spaces (trec_eval's own
``results.test`` is tab separated with padded scores) is first rewritten with single
spaces, which gives the same fields.  Any doubt (another whitespace byte, a non-ASCII
byte, a missing field, a number that does not parse) returns None, and the caller
reads the file with :mod:`polars_rankeval.io`, which gives the same frame or its
line-numbered error.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

__all__ = ["QRELS", "RUN", "Layout", "distinct_runs", "read_plain"]

# bytes read at a time, whole lines: 2 MiB.  Each CSV read costs ~0.4 ms of CPU besides
# its rows (2M-line run: its reading and chunks' preparation 0.45 against 0.50 s of CPU
# with 1 MiB blocks, the whole command 0.92-0.97x; peak ~+9-11 MiB under load, session
# 22); 4 MiB blocks peaked ~12 MiB above 2 MiB ones (an earlier session)
BLOCK = 2 << 20
# bytes after which splitting on single spaces could differ from splitting on any run
# of whitespace, as polars_rankeval.io does: other whitespace, and its line separator
_NOT_PLAIN = (b"\t", b"\r", b"\v", b"\f", b"\x1f")
_TO_SPACE = bytes.maketrans(b"\t\r", b"  ")


class Layout(NamedTuple):
    """A TREC text layout: the fields kept (by position) and the fields a line has."""

    fields: dict[str, tuple[int, Any]]  # output column -> (field position, dtype)
    checked: dict[int, Any]  # fields parsed only to check them (the run's rank)
    width: int  # fields read: the run's first 6; the qrels' 4 and one more
    exact: bool  # qrels: exactly 4 fields (the 5th must be absent)


RUN = Layout(
    {"query": (0, pl.String), "item": (2, pl.String), "score": (4, pl.Float64),
     "tag": (5, pl.String)},
    checked={3: pl.Int64}, width=6, exact=False,
)  # fmt: skip
QRELS = Layout(
    {"query": (0, pl.String), "item": (2, pl.String), "relevance": (3, pl.Int64)},
    checked={}, width=5, exact=True,
)  # fmt: skip


def _blocks(path: Path) -> Iterator[bytes]:
    """The file in blocks of whole lines (the last one may lack its newline).  The
    unfinished line at a block's end is read again with the next block (a seek back):
    one copy of the block fewer than carrying it over."""
    with open(path, "rb", buffering=0) as file:
        while block := file.read(BLOCK):
            cut = block.rfind(b"\n") + 1
            while not cut and (more := file.read(BLOCK)):  # a line longer than a block
                block += more
                cut = block.rfind(b"\n") + 1
            if 0 < cut < len(block):
                file.seek(cut - len(block), os.SEEK_CUR)
                block = block[:cut]
            yield block


def _plain(block: bytes, *, exact: bool) -> bool:
    """ASCII without tabs, CRs...; for qrels (``exact``, small files: the two-byte
    searches are slow) also no two spaces in a row and no line starting with a space."""
    if not block.isascii() or any(pattern in block for pattern in _NOT_PLAIN):
        return False
    return not exact or not (block.startswith(b" ") or b"  " in block or b"\n " in block)


def _single_spaced(block: bytes) -> bytes | None:
    """The block with each run of spaces and tabs (and the CR of a CRLF) as one space,
    and none at a line's start: the same fields for a reader that splits on any run of
    whitespace.  None for a CR that does not end a line (the readers could differ)."""
    if b"\r" in block and block.count(b"\r") != block.count(b"\r\n"):
        return None
    block = block.translate(_TO_SPACE)
    while b"  " in block:
        block = block.replace(b"  ", b" ")
    block = block.replace(b"\n ", b"\n")
    return block[1:] if block.startswith(b" ") else block


def _parse(block: bytes, layout: Layout) -> pl.DataFrame | None:
    """One block as the layout's typed columns; None if a line is not plain.  The
    numbers are parsed by the CSV reader itself (a field it cannot parse: None), as a
    String cast parses them (``tests/cli/test_plain_reader.py`` checks it)."""
    columns = [f"_{i}" for i in range(layout.width)]
    dtypes = {i: dtype for i, dtype in layout.fields.values()} | layout.checked
    try:
        raw = pl.read_csv(
            block, has_header=False, separator=" ", quote_char=None,
            # the reader's comment search costs ~25% of its time: only for a block with a #
            comment_prefix="#" if b"#" in block else None,
            truncate_ragged_lines=True, missing_columns="insert", extra_columns="ignore",
            schema={c: dtypes.get(i, pl.String) for i, c in enumerate(columns)},
        )  # fmt: skip
    except pl.exceptions.PolarsError:
        return None
    typed = {name: pl.col(columns[i]) for name, (i, _) in layout.fields.items()}
    # a missing field (fewer fields, or two spaces in a row) or (qrels) a fifth field:
    # the line-numbered reader reports it; none of them (and no blank line) when the
    # columns' null counts (kept by the columns, no pass over the rows) say so
    required = columns[: layout.width - 1] if layout.exact else columns
    nulls = raw.null_count().row(0)
    if not any(nulls[: len(required)]) and (not layout.exact or nulls[-1] == raw.height):
        return raw.select(**typed)
    bad = pl.any_horizontal(
        *(pl.col(name).is_null() for name in required),
        *([pl.col(columns[-1]).is_not_null()] if layout.exact else []),
    )
    blank = pl.all_horizontal(pl.all().is_null())  # an empty line: skipped
    frame = raw.select(**typed, _bad=bad & ~blank, _blank=blank)
    if frame.height and frame.get_column("_bad").any():
        return None
    if frame.get_column("_blank").any():  # rare: filtered only then (a copy)
        frame = frame.filter(~pl.col("_blank"))
    return frame.drop("_bad", "_blank")


def _block_frames(path: Path, layout: Layout) -> Iterator[pl.DataFrame | None]:
    """Each block of the file as the layout's columns; None for a block that is not
    plain even with single spaces (the caller then reads the file another way)."""
    for block in _blocks(path):
        part = _parse(block, layout) if _plain(block, exact=layout.exact) else None
        if part is None:  # tabs, CRLF, runs of spaces: tried once more with single spaces
            spaced = _single_spaced(block)
            if spaced is None or not _plain(spaced, exact=layout.exact):
                yield None
                return
            part = _parse(spaced, layout)
        yield part
        if part is None:
            return


def read_plain(path: Path, layout: Layout) -> pl.DataFrame | None:
    """The file's rows as ``layout`` says, or None when it is not plain (see the module).

    A run's ``tag`` column, when every line has the same tag (the usual case), is one
    constant column (no memory per row); the ``rank`` field is checked, not kept (the
    command ranks by score, as trec_eval does).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("# a comment\\nq1 Q0 d1 1 2.5 bm25\\n\\nq1 Q0 d2 2 1.5 bm25\\n")
    >>> read_plain(path, RUN).rows()
    [('q1', 'd1', 2.5, 'bm25'), ('q1', 'd2', 1.5, 'bm25')]
    >>> _ = path.write_text("q1\\tQ0\\td1\\t1\\t  2.5\\tbm25\\r\\n")  # tabs, spaces, CRLF
    >>> read_plain(path, RUN).rows()
    [('q1', 'd1', 2.5, 'bm25')]
    >>> _ = path.write_text("q1 Q0 d1 1 2.5\\n")  # five fields: for the reference reader
    >>> read_plain(path, RUN) is None
    True
    """
    parts: list[pl.DataFrame] = []
    tags: list[str | None] = []  # each run block's one tag (its column dropped), or None
    for part in _block_frames(path, layout):
        if part is None:
            return None
        if "tag" in layout.fields:
            part, tag = _one_tag(part)
            tags.append(tag)
        parts.append(part)
    if not parts:
        return None
    frame = _with_tags(parts, tags) if "tag" in layout.fields else pl.concat(parts)
    # one chunk: the evaluation would otherwise put the ~10 chunks a block gives
    # together in more than one of its branches (2M lines: peak RSS 494 -> 462 MiB)
    return frame.rechunk()


def _one_tag(part: pl.DataFrame) -> tuple[pl.DataFrame, str | None]:
    """A block without its tag column when all its lines have one tag, and that tag."""
    if not part.height:
        return part.drop("tag"), None
    last = part.item(-1, "tag")
    if (part.get_column("tag") == last).all():
        return part.drop("tag"), last
    return part, None


def _with_tags(parts: list[pl.DataFrame], tags: list[str | None]) -> pl.DataFrame:
    """The blocks put together with their tag column back: one constant (no memory per
    row) when every line has the same tag."""
    found = {tag for part, tag in zip(parts, tags) if part.height}
    if len(found) == 1 and None not in found:
        rows = pl.concat([part.select("query", "item", "score") for part in parts])
        return rows.with_columns(pl.lit(found.pop(), pl.String).alias("tag"))
    return pl.concat(
        part if "tag" in part.columns else part.with_columns(pl.lit(tag, pl.String).alias("tag"))
        for part, tag in zip(parts, tags)
    )


# rows a chunk has at least (whole blocks, whole queries: RunChunks): two 2 MiB blocks,
# ~100k lines; 2M lines peak at ~160 MiB (1 << 18 rows: ~210 MiB, ~0.1 CPU s less)
CHUNK_ROWS = 90_000


class NotPlain(Exception):
    """The file is not plain (see the module): read it whole with another reader."""


class NotGrouped(Exception):
    """A query's lines are not all together: the run cannot be evaluated in chunks."""


@dataclass
class RunChunks:
    """A plain TREC run file as frames of whole queries (``query, item, score``), each
    of about ``rows`` rows, so that evaluating one at a time bounds the memory.

    TREC runs list each query's lines together: the rows of the last query read are
    carried to the next frame.  A query seen again after its frame was given raises
    :class:`NotGrouped`, a block that is not plain (or no row at all) :class:`NotPlain`.
    ``last_tag`` is the tag of the last line read (trec_eval's ``runid``); ``at_end``
    is set once the file is read, before its last frame is given.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 a 1 2 r\\nq1 Q0 b 2 1 r\\nq2 Q0 a 1 2 s\\n")
    >>> chunks = RunChunks(path, rows=1)
    >>> [frame["item"].to_list() for frame in chunks], chunks.last_tag
    ([['a', 'b'], ['a']], 's')
    """

    path: Path
    rows: int | None = None  # None: CHUNK_ROWS
    last_tag: str | None = None
    at_end: bool = False

    def __iter__(self) -> Iterator[pl.DataFrame]:
        rows = CHUNK_ROWS if self.rows is None else self.rows
        finished = pl.Series("query", [], pl.String)
        pending: list[pl.DataFrame] = []
        count = 0
        for part in _block_frames(self.path, RUN):
            if part is None:
                raise NotPlain(self.path)
            if part.height:
                self.last_tag = part.item(-1, "tag")
                pending.append(part.select("query", "item", "score"))
                count += part.height
            if count >= rows:
                done, carry = _cut_last_query(pl.concat(pending))
                finished = _new_queries(done, finished)
                if done.height:
                    yield done.rechunk()
                pending, count = [carry], carry.height
        if self.last_tag is None:  # no rows: the reference reader says what is wrong
            raise NotPlain(self.path)
        last = pl.concat(pending)
        _new_queries(last, finished)
        self.at_end = True
        yield last.rechunk()


def _cut_last_query(frame: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The frame before the trailing lines of its last query, and those lines (slices,
    no copy).  Lines of that query further up stay in the first part: the query is then
    seen twice, which :func:`_new_queries` reports.  (Searched for in the last rows
    first: a query's lines are usually far fewer.)"""
    ids = frame.get_column("query")
    for rows in (1 << 13, None):
        tail = ids if rows is None else ids.tail(rows)
        other = tail != ids[-1]
        if other.any():
            cut = frame.height - (other.reverse().arg_max() or 0)
            return frame.head(cut), frame.slice(cut)
        if tail.len() == frame.height:
            break
    return frame.clear(), frame


def _new_queries(frame: pl.DataFrame, finished: pl.Series) -> pl.Series:
    """``finished`` with the frame's queries; NotGrouped if one of them is in it."""
    queries = distinct_runs(frame.get_column("query"))
    if queries.is_in(finished.implode()).any():
        raise NotGrouped(queries.filter(queries.is_in(finished.implode())).item(0))
    return pl.concat([finished, queries])


def distinct_runs(ids: pl.Series) -> pl.Series:
    """The distinct values of ``ids``, in order of first appearance when equal values
    are together (a run's queries): its runs of equal values (comparing neighbours is
    cheaper than hashing every value), or ``unique()`` when a value comes back.

    >>> distinct_runs(pl.Series(["b", "b", "a"])).to_list()
    ['b', 'a']
    """
    runs = ids.rle().struct.field("value").alias(ids.name)
    return runs if runs.n_unique() == runs.len() else runs.unique(maintain_order=True)
