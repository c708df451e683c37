"""``rankeval QRELS RUN...``: the command: parse trec_eval's options, evaluate each run
(in chunks when it can: :mod:`polars_rankeval.cli.chunked`), print or write the result."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from polars_rankeval.cli._common import (
    PROG,
    UsageError,
    check_measures,
    progress,
    system_names,
    warnings_to_stderr,
)
from polars_rankeval.cli.eval import eval_parser
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
from polars_rankeval.cli.trec import (
    resolve,
)

__all__ = ["eval_command"]


def _check_formats(args: argparse.Namespace) -> None:
    if args.rel_format != "qrels":
        raise UsageError(f"-R {args.rel_format}: only the 'qrels' format is supported")
    if args.results_format != "trec_results":
        raise UsageError(f"-T {args.results_format}: only the 'trec_results' format is supported")


def _note_texts_left_out(texts: Sequence[str], fmt: str, *, quiet: bool) -> None:
    """Say on stderr that relstring is not printed, unless it is trec_eval's own case
    (``-m all_trec`` without ``-q``: trec_eval prints no relstring line either)."""
    import sys

    if fmt != "trec" and not quiet:
        print(f"{PROG}: {', '.join(texts)} is text, printed only with --format trec -q: "
              "left out", file=sys.stderr)  # fmt: skip


def _refuse_diversity(names: Sequence[str], *, rel: float | None) -> None:
    """The diversity measures read subtopic qrels: only ``--format ndeval`` prints them."""
    from polars_rankeval._parse import parse_measure
    from polars_rankeval._trec_names import PSEUDO, TEXT
    from polars_rankeval.diversity.families import is_diversity

    for name in names:
        if name not in PSEUDO and name not in TEXT and is_diversity(parse_measure(name, rel=rel)):
            raise UsageError(
                f"-m {name}: the diversity measures read subtopic qrels (query subtopic item "
                "relevance, ndeval's file) and are printed by --format ndeval; add it"
            )


def eval_command(argv: Sequence[str], reader: Reader) -> int:
    """Parse ``argv``, evaluate every run, print or write the result."""
    from polars_rankeval._trec_names import PSEUDO, SUMMARY_ONLY, TEXT

    args = eval_parser().parse_args(argv)
    _check_formats(args)
    if args.format == "ndeval":  # subtopic qrels, the diversity measures, ndeval's CSV
        from polars_rankeval.cli.ndeval import ndeval_command

        return ndeval_command(args, reader)
    from polars_rankeval.cli.chunked import evaluate_source, read_first

    # the first run is read from now on, while the measures are resolved (~6 ms on the
    # first call) and the qrels read; a bad -m then stops the command after one chunk read
    ahead = read_first(args)
    measures = resolve(args.measures)
    check_measures([measures.measure(n) for n in measures.names], rel=args.rel)
    _refuse_diversity([measures.measure(n) for n in measures.names], rel=args.rel)
    labels = [measures.label(n) for n in measures.names]
    texts = [measures.label(n) for n in measures.names if n in TEXT]
    fmt = output_format(args.format, args.output, "trec", FORMATS)
    args.trec_nans = fmt == "trec"  # trec_eval's -nan lines: its text format only
    if texts and (fmt != "trec" or not args.per_query):
        _note_texts_left_out(texts, fmt, quiet=args.quiet)
        labels = [n for n in labels if n not in texts]
    qrels = reader.qrels(args.qrels).collect()
    results: list[RunResult] = []
    named = list(zip(args.runs, system_names(args.runs)))
    for path, name in progress(named, description="runs", quiet=args.quiet):
        source = reader.source(path)
        with warnings_to_stderr(f"{path}: ", quiet=args.quiet):
            results.append(evaluate_source(source, qrels, measures, name=name, args=args,
                                           ahead=ahead if not results else None))  # fmt: skip
    if fmt == "trec":
        text = trec_text(
            results, labels, per_query=args.per_query, summary=not args.no_summary,
            summary_only=SUMMARY_ONLY, per_query_only=texts, zscores=args.zscores is not None,
        )  # fmt: skip
        emit(args.output, text_writer(text))
    elif fmt == "table":
        emit(args.output, text_writer(table_text(results, labels, per_query=args.per_query)))
    else:
        long = long_frame(results, [n for n in labels if n not in PSEUDO[:1]],
                          per_query=args.per_query)  # fmt: skip
        long = json_frame(long) if fmt == "json" else long
        emit(args.output, frame_writer(long.drop("_order"), fmt))
    return 0
