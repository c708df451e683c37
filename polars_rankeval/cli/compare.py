"""``rankeval compare QRELS RUN RUN...``: paired significance tests over queries."""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_rankeval._errors import RankevalError
from polars_rankeval.cli._common import (
    PROG,
    UsageError,
    check_measures,
    common_options,
    positive_int,
    system_names,
    warnings_to_stderr,
)
from polars_rankeval.cli.inputs import Reader
from polars_rankeval.cli.output import (
    COMPARE_FORMATS,
    emit,
    frame_writer,
    output_format,
    plain_table,
    text_writer,
)

__all__ = ["compare_command", "compare_parser"]

_HEADER = ("measure", "system", "baseline", "mean", "base", "delta", "p", "p_corr", "d",
           "ci_low", "ci_high", "sig")  # fmt: skip


def compare_parser() -> argparse.ArgumentParser:
    """The parser of ``rankeval compare``."""
    parser = argparse.ArgumentParser(
        prog=f"{PROG} compare",
        description="Compare runs with paired significance tests over queries.",
    )
    common_options(parser)
    parser.add_argument(
        "--baseline",
        metavar="NAME",
        help="system (run file stem) to compare against; default: every pair",
    )
    parser.add_argument("--test", choices=("t", "randomization", "bootstrap"), default="t")
    parser.add_argument(
        "--correction",
        choices=("holm", "bonferroni", "bh", "none"),
        default="holm",
        help="multiple-comparison correction over the comparisons of each measure",
    )
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--n-resamples", type=positive_int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--by",
        action="append",
        metavar="COL",
        help="compare within each group of a run/qrels column (may repeat)",
    )
    parser.add_argument(
        "--format",
        choices=COMPARE_FORMATS,
        default=None,
        help="output: table (default), markdown, latex, json, csv or parquet",
    )
    parser.add_argument(
        "--report", metavar="PATH", help="also write a report: .html (with plots), .md or .tex"
    )
    parser.add_argument("qrels", metavar="QRELS")
    parser.add_argument("runs", metavar="RUN", nargs="+")
    return parser


def _accepts(function: Any, name: str) -> bool:
    parameters = inspect.signature(function).parameters
    return name in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def _options(args: argparse.Namespace) -> tuple[list[str], dict[str, Any]]:
    """The measure names and the keyword arguments of compare(), checked."""
    from polars_rankeval._trec_names import PSEUDO, TEXT, expand
    from polars_rankeval.compare import DEFAULT_MEASURES, compare
    from polars_rankeval.options import TestOptions

    if args.measures:
        names = [n for n in expand(args.measures) if n not in PSEUDO and n not in TEXT]
    else:
        names = list(DEFAULT_MEASURES)
    if not names:
        raise UsageError("no measure to compare (runid and num_q are not measures)")
    check_measures(names, rel=args.rel)
    correction = None if args.correction == "none" else args.correction
    options: dict[str, Any] = {
        "baseline": args.baseline, "test": args.test, "correction": correction,
        "alpha": args.alpha, "n_resamples": args.n_resamples, "seed": args.seed,
    }  # fmt: skip
    checked = TestOptions(**options)  # a bad option: RankevalError, exit status 2
    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs")
    systems = system_names(args.runs)
    try:
        checked.check_baseline(systems)
    except RankevalError:
        runs = ", ".join(systems)
        raise UsageError(f"--baseline {args.baseline!r} is not a run; runs: {runs}") from None
    if args.by:
        if not _accepts(compare, "by"):
            raise UsageError("--by needs a polars_rankeval whose compare() takes by=")
        if args.report is not None:
            raise UsageError("--by cannot be combined with --report yet")
        options["by"] = args.by[0] if len(args.by) == 1 else list(args.by)
    return names, options


def _compare(
    args: argparse.Namespace, reader: Reader, names: list[str], options: dict[str, Any]
) -> pl.DataFrame:
    from polars_rankeval.cli.eval import read_runs
    from polars_rankeval.compare import compare

    report_format = None
    if args.report is not None:
        from polars_rankeval.report import format_for_path

        report_format = format_for_path(args.report)
    qrels = reader.qrels(args.qrels).collect()
    runs = {}
    for _, name, run in read_runs(
        reader, args.runs, args.top, quiet=args.quiet, keep=args.by or ()
    ):
        runs[name] = run.collect()  # parse errors name the file and line
    evaluation = {"complete": args.complete, "rel": args.rel, "duplicates": args.duplicates}
    with warnings_to_stderr("", quiet=args.quiet):
        if report_format is None:
            return compare(runs, qrels, names, **evaluation, **options)
        from polars_rankeval.report import build_report

        report = build_report(
            runs, qrels, names, curves=report_format == "html", **evaluation, **options
        )
        report.write(args.report, format=report_format, title=f"{PROG} compare")
        return report.comparison


def compare_command(argv: Sequence[str], reader: Reader) -> int:
    """Parse ``argv``, compare the runs, print or write the table (and the report)."""
    args = compare_parser().parse_args(argv)
    names, options = _options(args)
    fmt = output_format(args.format, args.output, "table", COMPARE_FORMATS)
    comparison = _compare(args, reader, names, options)
    if fmt in ("markdown", "latex"):
        from polars_rankeval.report import latex_table, markdown_table

        render = markdown_table if fmt == "markdown" else latex_table
        text = render(
            comparison, test=args.test, correction=options["correction"], alpha=args.alpha
        )
        emit(args.output, text_writer(text))
    elif fmt == "table":
        emit(args.output, text_writer(comparison_text(comparison, args.by or ())))
    else:
        emit(args.output, frame_writer(comparison, fmt))
    return 0


def comparison_text(comparison: pl.DataFrame, by: Sequence[str] = ()) -> str:
    """The comparison as a plain text table, one row per (``by`` groups, measure, system)."""

    def number(value: float | None, digits: int = 4) -> str:
        return "" if value is None else f"{value:.{digits}f}"

    keys = [c for c in by if c in comparison.columns]
    rows = [
        [
            *(str(r[k]) for k in keys),
            r["measure"],
            r["system"],
            r["baseline"],
            number(r["mean"]),
            number(r["baseline_mean"]),
            f"{r['delta']:+.4f}",
            number(r["p_value"]),
            number(r["p_value_corrected"]),
            number(r["effect_size"], 2),
            number(r["ci_low"]),
            number(r["ci_high"]),
            "*" if r["significant"] else "",
        ]
        for r in comparison.iter_rows(named=True)
    ]
    return plain_table([*keys, *_HEADER], rows, left=3 + len(keys)) + _legend(comparison)


def _legend(comparison: pl.DataFrame) -> str:
    """What the columns are: the test, the correction and the interval next to them."""
    if comparison.is_empty():
        return ""
    first = comparison.row(0, named=True)
    level = f"{first['ci_level']:.0%}"
    return (
        f"\ntest: {first['test']}; p_corr: {first['correction'] or 'no'} correction; "
        f"ci_low, ci_high: {level} {first['ci_method']} interval of delta (not corrected); "
        "d: paired Cohen's d; sig: p_corr below alpha\n"
    )
