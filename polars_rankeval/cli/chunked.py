"""Evaluating a TREC text run in chunks of whole queries: the memory of a chunk, not
of the run (a 2M-line run: ~160-190 MiB peak instead of ~460; each chunk costs ~15 ms
of planning, hence chunks of ~100k lines, two 2 MiB blocks, rather than smaller).
The next chunk is read in a thread while a chunk is evaluated (:class:`ReadAhead`), the
first one while the qrels are read; the chunks are evaluated one after the other
(:class:`_Evaluator`).

Every measure is a function of one query's rows and its qrels, so each chunk is
evaluated by :func:`.eval.evaluate_part` with the qrels of its queries, and
:func:`.eval.finish_run` puts the parts together in trec_eval's query order and adds
the summary from them: the same per-query values, the same summary bits, the same
output as evaluating the run whole.  The last chunk also gets the qrels queries no
chunk has (``-c`` evaluates them; the qrels checks see every qrels row once).

Whatever this module cannot reproduce exactly sends the run to the whole-run path,
which gives trec_eval's output or the error with whole-run counts: a file that is not
plain or not grouped by query, ``-M`` and ``--duplicates first`` (they change which
rows are aggregated), any error (its counts would be a chunk's), and any warning but
"run queries not in the qrels", which is repeated once for the whole run.  A chunk
with fewer than two judged queries is merged with a neighbour (see
:func:`_judged_queries`: the number of groups sets the last bit of some values).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import itertools
import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

import polars as pl

from polars_rankeval._errors import InputError
from polars_rankeval.cli.eval import Part, evaluate_part, evaluate_run, finish_run
from polars_rankeval.cli.inputs import RunSource
from polars_rankeval.cli.output import RunResult
from polars_rankeval.cli.plain import NotGrouped, NotPlain, RunChunks, distinct_runs
from polars_rankeval.cli.trec import Measures

__all__ = ["ReadAhead", "evaluate_source", "read_first"]

# engines/finish.py's warning about run queries the qrels lack (repeated for the run)
_SKIPPED = re.compile(r"\d+ run quer(y is|ies are) not in the qrels")


class _Whole(Exception):
    """A chunk gave something only the whole-run evaluation reproduces."""


def evaluate_source(
    source: RunSource, qrels: pl.DataFrame, measures: Measures, *, name: str,
    args: argparse.Namespace, ahead: ReadAhead | None = None,
) -> RunResult:  # fmt: skip
    """Evaluate a RUN argument: in chunks when it is plain TREC text grouped by query,
    else (or when a chunk raises or warns) whole.  ``ahead``: its chunks, already being
    read (:func:`read_first`)."""
    chunks = source.chunks()
    if chunks is not None and _chunked(args):
        try:
            return _evaluate_chunks(
                ahead or ReadAhead(chunks), qrels, measures, name=name, args=args
            )
        except (NotPlain, NotGrouped, InputError, _Whole):
            pass  # the whole run gives the output, the error or the warnings
    run = source.whole()
    if args.top is not None:
        from polars_rankeval.prepare.ranking import keep_top

        run = keep_top(run, args.top)
    return evaluate_run(run, qrels, measures, name=name, args=args)


def _chunked(args: argparse.Namespace) -> bool:
    """-M and --duplicates first change which rows are aggregated: evaluated whole."""
    return args.top is None and args.duplicates == "error"


def read_first(args: argparse.Namespace) -> ReadAhead | None:
    """The first RUN's chunks, read from now on (while the qrels are read), when it is an
    existing TREC text file that will be read in chunks and the QRELS file exists
    (otherwise their errors come in the order they came without this).

    >>> import argparse
    >>> read_first(argparse.Namespace(qrels="-", runs=["run.txt"], top=None,
    ...                               duplicates="error")) is None  # standard input
    True
    """
    qrels, run = Path(args.qrels), Path(args.runs[0])
    if not (_chunked(args) and qrels.is_file() and run.is_file()):
        return None
    chunks = RunSource(args.runs[0], run).chunks()
    return None if chunks is None else ReadAhead(chunks)


class _Chunk(NamedTuple):
    """A chunk of whole queries with what its evaluation needs besides the rows, each
    computed in the reading thread when it can (:class:`ReadAhead`): its queries, the
    qrels rows of those queries, and how many of them have a judged retrieved row.

    ``names`` set: the run's and the qrels' ``query`` hold each query's number in the
    chunk (0, 1, ... in file order, flagged sorted) instead of its text, ``names[i]``
    being query i's text: polars groups a sorted column by slices, not by hashing
    (a 98k-row chunk's evaluation: ~31.5 against ~34.5 ms of CPU, the same values)."""

    run: pl.DataFrame
    queries: pl.Series  # text ids
    qrels: pl.DataFrame
    judged: int | None  # None: not counted yet (see counted)
    names: pl.Series | None = None

    @classmethod
    def of(
        cls, run: pl.DataFrame, qrels: pl.DataFrame, *, judged_only: bool, numbered: bool,
        final: bool = False,
    ) -> _Chunk:  # fmt: skip
        """``run`` with its queries' rows of ``qrels`` (``judged_only``: -J, whose judged
        rows are those with a relevance >= 0; ``numbered``: queries by number, when each
        query's lines are together).  ``final``: the run's last chunk, which is evaluated
        with text queries and the qrels of every query no chunk had (given then): only its
        queries (its judged queries are counted when needed: :meth:`counted`)."""
        queries = distinct_runs(run.get_column("query"))
        if final:
            return cls(run, queries, qrels.clear(), None)
        chunk = cls(run, queries, *_judged(run, queries, qrels, judged_only=judged_only))
        return chunk.numbered() if numbered else chunk

    def counted(self, qrels: pl.DataFrame, *, judged_only: bool) -> int:
        """How many of its queries have a judged retrieved row (see :func:`_judged_queries`)."""
        if self.judged is not None:
            return self.judged
        return _judged(self.run, self.queries, qrels, judged_only=judged_only)[1]

    def numbered(self) -> _Chunk:
        """The chunk with its queries by number (itself when a query's lines are apart)."""
        ids = self.run.get_column("query")
        number = ids.rle_id()
        if not ids.len() or number[-1] + 1 != self.queries.len():
            return self
        names = self.queries  # the runs' values: as many runs as distinct queries
        run = self.run.with_columns(number.alias("query").set_sorted())
        qrels = _renamed(self.qrels, names, _numbers(names.len()))
        return self._replace(run=run, qrels=qrels, names=names)

    def texts(self) -> _Chunk:
        """The chunk with its queries as text."""
        if self.names is None:
            return self
        run, qrels = (frame.with_columns(_text(self.names)) for frame in (self.run, self.qrels))
        return self._replace(run=run, qrels=qrels, names=None)

    @staticmethod
    def merged(chunks: list[_Chunk]) -> _Chunk:
        """Consecutive chunks as one (their queries are distinct: grouped run); by
        number when they all are, each one's numbers after those of the chunks before."""
        if len(chunks) == 1:
            return chunks[0]
        names = [c.names for c in chunks if c.names is not None]
        if len(names) < len(chunks):  # some by text: all as text, numbered again
            merged = _Chunk._joined([c.texts() for c in chunks], [pl.col("query")] * len(chunks))
            return merged.numbered() if names else merged
        offsets = itertools.accumulate((n.len() for n in names), initial=0)
        merged = _Chunk._joined(chunks, [pl.col("query") + pl.lit(o, pl.UInt32) for o in offsets])
        run = merged.run.with_columns(pl.col("query").set_sorted())
        return merged._replace(run=run, names=pl.concat(names))

    @staticmethod
    def _joined(chunks: list[_Chunk], query: list[pl.Expr]) -> _Chunk:
        """The chunks one after the other, each one's ``query`` as ``query[i]``."""
        return _Chunk(
            pl.concat([c.run.with_columns(q) for c, q in zip(chunks, query)]),
            pl.concat([c.queries for c in chunks]),
            pl.concat([c.qrels.with_columns(q) for c, q in zip(chunks, query)]),
            None if any(c.judged is None for c in chunks) else sum(c.judged or 0 for c in chunks),
        )


def _numbers(count: int) -> pl.Series:
    """The numbers of a chunk's ``count`` queries: 0, 1, ..., count - 1 (UInt32)."""
    return pl.int_range(count, dtype=pl.UInt32, eager=True)


def _text(names: pl.Series) -> pl.Expr:
    """``query`` numbers (or their text, as the -nan frame casts them) back to the
    queries' text (``names[number]``)."""
    return pl.lit(names).gather(pl.col("query").cast(pl.UInt32)).alias("query")


def _renamed(frame: pl.DataFrame, old: pl.Series, new: pl.Series) -> pl.DataFrame:
    """``frame`` with each ``query`` in ``old`` as the ``new`` at its index (every query
    of the frame is in ``old``)."""
    table = pl.DataFrame({"query": old, "_new": new})
    joined = frame.join(table, on="query", how="left", maintain_order="left")
    return joined.with_columns(pl.col("_new").alias("query")).drop("_new")


def _judged(
    run: pl.DataFrame, queries: pl.Series, qrels: pl.DataFrame, *, judged_only: bool
) -> tuple[pl.DataFrame, int]:
    """The qrels rows of ``queries`` and how many of them have a judged row in ``run``
    (under -J a judged row has a relevance >= 0)."""
    mine = qrels.filter(pl.col("query").is_in(queries.implode()))
    pairs = mine.filter(pl.col("relevance") >= 0) if judged_only else mine
    return mine, _judged_queries(run, pairs.select("query", "item"))


def _judged_queries(chunk: pl.DataFrame, pairs: pl.DataFrame) -> int:
    """How many queries of ``chunk`` have a judged retrieved row (``pairs``: the judged
    ``query, item`` of its queries; 2 when its first rows have that many: only "fewer
    than 2" matters), the groups of the engine's per-query aggregation.  polars divides
    a lone group's aggregate by a literal exactly but several groups' by multiplying
    with its reciprocal; the measures divide exactly now (``_registry.divide_by``), and
    a chunk of one group is still merged with a neighbour (:func:`_evaluate_chunks`) so
    that no other scalar arithmetic can make it differ from the whole run."""
    for rows in (8192, None):  # its first rows usually have 2 already (~1/10 the cost)
        part = chunk.select("query", "item").head(rows) if rows else chunk
        joined = part.select("query", "item").join(pairs, on=["query", "item"], how="semi")
        count = joined.get_column("query").n_unique()
        if count >= 2 or rows is None or rows >= chunk.height:
            return count
    raise AssertionError  # pragma: no cover - the loop returns


def _evaluate_chunks(
    chunks: ReadAhead, qrels: pl.DataFrame, measures: Measures, *, name: str,
    args: argparse.Namespace,
) -> RunResult:  # fmt: skip
    prepare = functools.partial(_Chunk.of, qrels=qrels, judged_only=args.judged_only)
    # in the reading thread from now on, with the queries by number (not under -J, which
    # adds a text query to the run: eval._inputs' sentinel, nor the last chunk, evaluated
    # with text queries); a chunk read before is prepared here without (numbering costs
    # about what it saves; a run of one chunk is its last)
    chunks.prepare = lambda run, final: prepare(
        run, numbered=not (args.judged_only or final), final=final
    )
    # chunks are gathered until they have 2 judged queries, then evaluated together; the
    # run's last chunk takes the rest (with fewer than 2, the gathering before it again)
    held: list[_Chunk] = []
    groups = 0
    evaluator = _Evaluator(qrels, measures, name, args)
    with _warnings_as_whole() as skipped:
        for run, prepared, final in chunks:
            chunk = prepared if isinstance(prepared, _Chunk) else prepare(
                run, numbered=False, final=final
            )  # fmt: skip
            held.append(chunk)
            groups += 0 if final else chunk.counted(qrels, judged_only=args.judged_only)
            if groups >= 2 and not final:
                evaluator.submit(_Chunk.merged(held), last=False)
                held, groups = [], 0
        before = evaluator.latest
        if before is not None and _counted(held, qrels, args) < 2:
            evaluator.retract()  # rare: the chunks before, evaluated again with these
            held.insert(0, before)
        evaluator.submit(_Chunk.merged(held), last=True)
    result = finish_run(evaluator.parts, qrels, measures, name=name, args=args)
    tag = chunks.chunks.last_tag if isinstance(chunks.chunks, RunChunks) else None
    result.runid = tag or name
    if skipped:  # the warning once, for the whole run
        queries = pl.concat(evaluator.seen)
        _warn_skipped(queries.filter(~queries.is_in(qrels.get_column("query").implode())))
    return result


def _counted(chunks: list[_Chunk], qrels: pl.DataFrame, args: argparse.Namespace) -> int:
    """The judged queries of ``chunks`` (see :func:`_judged_queries`)."""
    return sum(chunk.counted(qrels, judged_only=args.judged_only) for chunk in chunks)


class _Evaluator:
    """Evaluates chunks, each with the qrels of its queries, one after the other in the
    calling thread, while the reading thread reads the next chunk (:class:`ReadAhead`);
    ``parts`` in the order of the chunks.  Two chunks evaluated at once in threads took
    the same CPU (a collect already runs on both cores) and held a chunk more (2M
    lines: ~3-8 MiB at peak), with two more Python threads taking turns on the GIL.
    (One plan collected for every chunk, its run and qrels read from polars IO sources,
    took more CPU than building a plan a chunk.)"""

    def __init__(
        self, qrels: pl.DataFrame, measures: Measures, name: str, args: argparse.Namespace
    ) -> None:
        self.qrels = qrels
        self.seen: list[pl.Series] = []
        self.parts: list[Part] = []
        self.latest: _Chunk | None = None  # the chunk submitted last
        # one partition: a chunk is far below evaluate's rows a partition (its default
        # would count the rows again, a plan and a collect a chunk)
        self._evaluate_part = lambda run, qrels: evaluate_part(
            run, qrels, measures, name=name, args=args, partitions=1
        )

    def submit(self, chunk: _Chunk, *, last: bool) -> None:
        """Evaluate a chunk of whole queries with its qrels (``last``: with every qrels
        query no chunk has)."""
        if last:  # with the qrels of queries in no chunk: as text
            chunk = chunk.texts()
            seen = pl.concat(self.seen).to_frame() if self.seen else None
            qrels = self.qrels if seen is None else self.qrels.join(seen, on="query", how="anti")
            chunk = chunk._replace(qrels=qrels)
        self.seen.append(chunk.queries)
        self.latest = chunk
        self.parts.append(self._evaluate(chunk))

    def retract(self) -> None:
        """Drops the part of the chunk submitted last (``latest``)."""
        self.latest = None
        self.parts.pop()
        self.seen.pop()

    def _evaluate(self, chunk: _Chunk) -> Part:
        part = self._evaluate_part(chunk.run.lazy(), chunk.qrels)
        return part if chunk.names is None else _part_texts(part, chunk.names)


def _part_texts(part: Part, names: pl.Series) -> Part:
    """A part evaluated with queries by number, its queries as text."""
    texts = None if part.texts is None else part.texts.with_columns(_text(names))
    per_query, nans = (frame.with_columns(_text(names)) for frame in (part.per_query, part.nans))
    return part._replace(per_query=per_query, nans=nans, texts=texts)


@contextlib.contextmanager
def _warnings_as_whole() -> Iterator[list[str]]:
    """Records the warnings of the block (in any thread): "run queries not in the
    qrels" in the list it gives (non-empty: a chunk had some), any other raises
    :class:`_Whole`."""
    skipped: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield skipped
    for warning in caught:
        if not _SKIPPED.match(str(warning.message)):
            raise _Whole(str(warning.message))
        skipped.append(str(warning.message))


class ReadAhead:
    """A run's chunks in their order, each next one read in a thread while the caller
    evaluates the one it has (polars' CSV reader runs without the GIL), the first from
    the moment this is made.  Each comes with ``prepare(chunk, final)`` (computed in the
    thread; None while ``prepare`` is not set) and ``final``: whether it is the run's
    last (known of a :class:`.plain.RunChunks`' last chunk when it is read, so that no
    chunk waits for another read to be evaluated; False when not known).  An error of
    the reader is raised where the chunk it was reading would have been given.

    >>> ahead = ReadAhead(pl.DataFrame({"i": [i]}) for i in range(3))
    >>> ahead.prepare = lambda chunk, final: chunk.height
    >>> [(frame.item(), final) for frame, _, final in ahead]
    [(0, False), (1, False), (2, False)]
    """

    def __init__(self, chunks: Iterable[pl.DataFrame]) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.chunks = chunks
        self.prepare: Callable[[pl.DataFrame, bool], object] | None = None
        self._iterator = iter(chunks)
        self._pool = ThreadPoolExecutor(max_workers=1)
        self._pending = self._pool.submit(self._next)

    def _next(self) -> tuple[pl.DataFrame, object, bool] | None:
        chunk = next(self._iterator, None)
        if chunk is None:
            return None
        final = isinstance(self.chunks, RunChunks) and self.chunks.at_end
        prepare = self.prepare
        return chunk, None if prepare is None else prepare(chunk, final), final

    def __iter__(self) -> Iterator[tuple[pl.DataFrame, object, bool]]:
        try:
            while (item := self._pending.result()) is not None:
                self._pending = self._pool.submit(self._next)
                yield item
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)


def _warn_skipped(queries: pl.Series) -> None:
    """The whole-run evaluation's warning about run queries not in the qrels."""
    from polars_rankeval.engines.finish import IN_QRELS, IN_RUN
    from polars_rankeval.engines.finish import _warn_skipped as warn

    frame = queries.to_frame().with_columns(
        pl.lit(True).alias(IN_RUN), pl.lit(False).alias(IN_QRELS)
    )
    warn(frame, "query")
