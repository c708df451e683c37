"""``rankeval QRELS RUN...``: trec_eval's command, options and output."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from typing import Any

import polars as pl

from polars_rankeval.cli._common import (
    PROG,
    check_measures,
    common_options,
    progress,
    system_names,
    warnings_to_stderr,
)
from polars_rankeval.cli.inputs import Reader
from polars_rankeval.cli.output import (
    FORMATS,
    RunResult,
    emit,
    frame_writer,
    json_frame,
    long_frame,
    output_format,
    table_text,
    text_writer,
    trec_text,
)

__all__ = ["eval_command", "eval_parser", "read_runs"]


def eval_parser() -> argparse.ArgumentParser:
    """The parser of the evaluation command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Evaluate TREC-style runs against qrels (trec_eval's options and "
        "output; also Parquet and CSV). `rankeval compare -h` for significance tests.",
    )
    parser.add_argument(
        "-q",
        dest="per_query",
        action="store_true",
        help="per-query values too, then the summary over all queries",
    )
    common_options(parser)
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="output: trec (trec_eval's layout, default), table, json, csv or parquet "
        "(default from the -o suffix)",
    )
    parser.add_argument("qrels", metavar="QRELS", help="qrels file (TREC, .parquet, .csv, -)")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="run file(s)")
    return parser


def read_runs(
    reader: Reader, paths: Sequence[str], top: int | None, *, quiet: bool
) -> Iterator[tuple[str, str, pl.LazyFrame]]:
    """(path, system name, run) for each RUN argument, cut to the top ``top`` if given."""
    names = system_names(paths)
    for path, name in progress(list(zip(paths, names)), description="runs", quiet=quiet):
        run = reader.run(path)
        if top is not None:
            from polars_rankeval._judge import keep_top

            run = keep_top(run, top)
        yield path, name, run


def _runid_frame(run: pl.LazyFrame, name: str) -> pl.LazyFrame:
    if "tag" in run.collect_schema():
        return run.select(pl.col("tag").last().fill_null(name).alias("runid"))
    return pl.LazyFrame({"runid": [name]})


def _counts(measures: Sequence[str]) -> frozenset[str]:
    from polars_rankeval._trec_names import is_count

    return frozenset(name for name in measures if is_count(name))


def evaluate_run(
    run: pl.LazyFrame, qrels: pl.DataFrame, names: Sequence[str], *, name: str, **kwargs: Any
) -> RunResult:
    """Evaluate one run: per-query values, the summary, the runid and num_q in one pass."""
    from polars_rankeval._trec_names import PSEUDO
    from polars_rankeval.evaluate import evaluate

    measures = [n for n in names if n not in PSEUDO]
    per_query_measures = measures or ["NumRet"]  # num_q alone still needs the queries
    lazy_qrels = qrels.lazy()
    plans = [
        evaluate(run, lazy_qrels, per_query_measures, per_query=True, **kwargs),
        _runid_frame(run, name),
    ]
    if measures:
        plans.append(evaluate(run, lazy_qrels, measures, **kwargs))
    frames = pl.collect_all(plans)  # type: ignore[arg-type]
    per_query = (
        frames[0].filter(pl.col("measure").is_in(measures)).sort("query", maintain_order=True)
    )
    summary = (
        frames[2] if measures else pl.DataFrame(schema={"measure": pl.String, "value": pl.Float64})
    )
    return RunResult(
        name=name,
        runid=str(frames[1]["runid"][0]),
        summary=summary,
        per_query=per_query,
        num_q=frames[0]["query"].n_unique(),
        counts=_counts(measures),
    )


def eval_command(argv: Sequence[str], reader: Reader) -> int:
    """Parse ``argv``, evaluate every run, print or write the result."""
    from polars_rankeval._trec_names import SUMMARY_ONLY, expand

    args = eval_parser().parse_args(argv)
    names = expand(args.measures)
    check_measures(names, rel=args.rel)
    fmt = output_format(args.format, args.output, "trec", FORMATS)
    qrels = reader.qrels(args.qrels).collect()
    options = {"complete": args.complete, "rel": args.rel, "duplicates": args.duplicates}
    results = []
    for path, name, run in read_runs(reader, args.runs, args.top, quiet=args.quiet):
        with warnings_to_stderr(f"{path}: ", quiet=args.quiet):
            results.append(evaluate_run(run, qrels, names, name=name, **options))
    if fmt == "trec":
        text = trec_text(results, names, per_query=args.per_query, summary_only=SUMMARY_ONLY)
        emit(args.output, text_writer(text))
    elif fmt == "table":
        emit(args.output, text_writer(table_text(results, names, per_query=args.per_query)))
    else:
        long = long_frame(results, [n for n in names if n != "runid"], per_query=args.per_query)
        long = json_frame(long) if fmt == "json" else long
        emit(args.output, frame_writer(long.drop("_order"), fmt))
    return 0
