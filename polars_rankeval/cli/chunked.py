"""Evaluating a TREC text run in chunks of whole queries: the memory of a chunk, not
of the run (a 2M-line run: ~160-190 MiB peak instead of ~460; each chunk costs ~15 ms
of planning, hence chunks of ~100k lines, two 2 MiB blocks, rather than smaller).
The next chunk is read in a thread while one is evaluated (:func:`_read_ahead`).

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
import re
import warnings
from collections.abc import Iterable, Iterator

import polars as pl

from polars_rankeval._errors import InputError
from polars_rankeval.cli.eval import Part, evaluate_part, evaluate_run, finish_run
from polars_rankeval.cli.inputs import RunSource
from polars_rankeval.cli.output import RunResult
from polars_rankeval.cli.plain import NotGrouped, NotPlain, RunChunks
from polars_rankeval.cli.trec import Measures

__all__ = ["evaluate_source"]

# engines/finish.py's warning about run queries the qrels lack (repeated for the run)
_SKIPPED = re.compile(r"\d+ run quer(y is|ies are) not in the qrels")


class _Whole(Exception):
    """A chunk gave something only the whole-run evaluation reproduces."""


def evaluate_source(
    source: RunSource, qrels: pl.DataFrame, measures: Measures, *, name: str,
    args: argparse.Namespace,
) -> RunResult:  # fmt: skip
    """Evaluate a RUN argument: in chunks when it is plain TREC text grouped by query,
    else (or when a chunk raises or warns) whole."""
    chunks = source.chunks()
    # -M and --duplicates first change which rows are aggregated: evaluated whole
    if chunks is not None and args.top is None and args.duplicates == "error":
        try:
            return _evaluate_chunks(chunks, qrels, measures, name=name, args=args)
        except (NotPlain, NotGrouped, InputError, _Whole):
            pass  # the whole run gives the output, the error or the warnings
    run = source.whole()
    if args.top is not None:
        from polars_rankeval.prepare.ranking import keep_top

        run = keep_top(run, args.top)
    return evaluate_run(run, qrels, measures, name=name, args=args)


def _judged_queries(chunk: pl.DataFrame, pairs: pl.DataFrame) -> int:
    """How many queries of ``chunk`` have a judged retrieved row (2 when its first rows
    have that many: only "fewer than 2" matters), the groups of the
    engine's per-query aggregation.  polars divides a lone group's aggregate by a
    literal exactly but several groups' by multiplying with its reciprocal; the measures
    divide exactly now (``_registry.divide_by``), and a chunk of one group is still
    merged with a neighbour (:func:`_evaluate_chunks`) so that no other scalar
    arithmetic can make it differ from the whole run."""
    for rows in (8192, None):  # its first rows usually have 2 already (~1/10 the cost)
        part = chunk.select("query", "item").head(rows) if rows else chunk
        mine = pairs.filter(pl.col("query").is_in(part.get_column("query").unique().implode()))
        joined = part.select("query", "item").join(mine, on=["query", "item"], how="semi")
        count = joined.get_column("query").n_unique()
        if count >= 2 or rows is None or rows >= chunk.height:
            return count
    raise AssertionError  # pragma: no cover - the loop returns


def _evaluate_chunks(
    chunks: RunChunks, qrels: pl.DataFrame, measures: Measures, *, name: str,
    args: argparse.Namespace,
) -> RunResult:  # fmt: skip
    judged = qrels.filter(pl.col("relevance") >= 0) if args.judged_only else qrels
    pairs = judged.select("query", "item")
    qrels_queries = qrels.get_column("query").unique()
    seen = pl.DataFrame(schema={"query": pl.String})
    parts: list[Part] = []
    skipped: list[pl.Series] = []

    def evaluate(chunk: pl.DataFrame, *, last: bool) -> None:
        nonlocal seen
        queries = chunk.get_column("query").unique()
        if last:  # also every qrels query no chunk has
            chunk_qrels = qrels.join(seen, on="query", how="anti") if seen.height else qrels
        else:
            chunk_qrels = qrels.filter(pl.col("query").is_in(queries.implode()))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parts.append(evaluate_part(chunk.lazy(), chunk_qrels, measures, name=name, args=args))
        for warning in caught:
            if not _SKIPPED.match(str(warning.message)):
                raise _Whole(str(warning.message))
            skipped.append(queries.filter(~queries.is_in(qrels_queries.implode())))
        seen = pl.concat([seen, queries.to_frame()])

    # `ready` (2 groups or more) is evaluated when the chunks after it have 2 groups
    # too; the last one takes what follows it
    ready: pl.DataFrame | None = None
    filling: list[pl.DataFrame] = []
    groups = 0
    for chunk in _read_ahead(chunks):
        filling.append(chunk)
        groups += _judged_queries(chunk, pairs)
        if groups >= 2:
            if ready is not None:
                evaluate(ready, last=False)
            ready, filling, groups = pl.concat(filling), [], 0
    evaluate(pl.concat([*([] if ready is None else [ready]), *filling]), last=True)
    result = finish_run(parts, qrels, measures, name=name, args=args)
    result.runid = chunks.last_tag or name
    if skipped:
        _warn_skipped(pl.concat(skipped))
    return result


def _read_ahead(chunks: Iterable[pl.DataFrame]) -> Iterator[pl.DataFrame]:
    """The chunks in their order, each next one read in a thread while the caller
    evaluates the one it has (polars' CSV reader runs without the GIL); an error of
    the reader is raised where the chunk it was reading would have been given."""
    from concurrent.futures import ThreadPoolExecutor

    iterator = iter(chunks)
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(next, iterator, None)
        while (chunk := pending.result()) is not None:
            pending = pool.submit(next, iterator, None)
            yield chunk


def _warn_skipped(queries: pl.Series) -> None:
    """The whole-run evaluation's warning about run queries not in the qrels."""
    from polars_rankeval.engines.finish import IN_QRELS, IN_RUN
    from polars_rankeval.engines.finish import _warn_skipped as warn

    frame = queries.to_frame().with_columns(
        pl.lit(True).alias(IN_RUN), pl.lit(False).alias(IN_QRELS)
    )
    warn(frame, "query")
