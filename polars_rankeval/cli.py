"""The ``rankeval`` command: trec_eval's habits, polars_rankeval's measures.

::

    rankeval [-q] [-c] [-l REL] [-M N] [-m MEASURE ...] [--format FORMAT] [-o OUT]
             QRELS RUN [RUN ...]
    rankeval compare QRELS RUN RUN [RUN ...] [--baseline NAME] [--test TEST]
             [--correction CORRECTION] [-m MEASURE ...] [--report OUT.html|.md|.tex]

Inputs are TREC text files (default), ``.parquet`` or ``.csv`` (columns ``query``,
``item``, ``score`` or ``rank``; qrels ``query``, ``item``, ``relevance``); ``-`` reads
standard input.  Ids are read as strings, as trec_eval does.  Exit status: 0, 1 for
bad data (a run that does not parse, no query in common, ...), 2 for usage errors.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import polars as pl

from polars_rankeval._errors import InputError, MeasureError, RankevalError
from polars_rankeval._files import atomic_write
from polars_rankeval.prepare.ranking import keep_top
from polars_rankeval._parse import parse_measure
from polars_rankeval._trec_names import PSEUDO, SUMMARY_ONLY, expand, is_count
from polars_rankeval.evaluate import evaluate

__all__ = ["keep_top", "main"]

PROG = "rankeval"
FORMATS = ("trec", "table", "json", "csv", "parquet")
COMPARE_FORMATS = ("table", "markdown", "latex", "json", "csv", "parquet")
_SUFFIX_FORMATS = {
    ".json": "json",
    ".csv": "csv",
    ".parquet": "parquet",
    ".md": "markdown",
    ".tex": "latex",
}
T = TypeVar("T")


class UsageError(Exception):
    """A bad command line: exit status 2."""


# ---------------------------------------------------------------- inputs


@dataclass
class Reader:
    """Opens QRELS/RUN arguments; ``-`` (standard input) is spooled to a temporary file."""

    stack: contextlib.ExitStack
    stdin_used: bool = False
    aliases: dict[str, str] = field(default_factory=dict)  # temporary path -> "-"

    def _path(self, argument: str) -> Path:
        if argument != "-":
            path = Path(argument)
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

    def run(self, argument: str) -> pl.LazyFrame:
        """A run as a lazy frame with String ``query``/``item`` and ``score``/``rank``."""
        path = self._path(argument)
        frame = _scan_table(path)
        if frame is None:
            from polars_rankeval.io import read_trec_run

            return read_trec_run(path)
        return _typed(
            frame,
            argument,
            {"query": pl.String, "item": pl.String},
            {"score": pl.Float64, "rank": pl.Int64, "tag": pl.String},
            need_one_of=("score", "rank"),
        )

    def qrels(self, argument: str) -> pl.LazyFrame:
        """Qrels as a lazy frame with String ``query``/``item`` and ``relevance``."""
        path = self._path(argument)
        frame = _scan_table(path)
        if frame is None:
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
        for temporary, alias in self.aliases.items():
            text = text.replace(temporary, alias)
        return text



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
    return frame.select(
        pl.col(name) if name == keep_numeric else pl.col(name).cast(dtype, strict=False)
        for name, dtype in columns.items()
    )


# ---------------------------------------------------------------- helpers


def _progress(items: Sequence[T], *, description: str, quiet: bool) -> Iterable[T]:
    """A progress bar on a terminal (tqdm, when installed); silent otherwise."""
    if quiet or len(items) < 2 or not sys.stderr.isatty():
        return items
    try:
        from tqdm import tqdm
    except ImportError:
        return items
    return tqdm(items, desc=description, file=sys.stderr, leave=False, unit="run")


@contextlib.contextmanager
def _warnings_to_stderr(prefix: str, *, quiet: bool) -> Iterator[None]:
    """Print each distinct warning once, as ``rankeval: warning: <prefix>...``; or none."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore" if quiet else "always")
        yield
    for message in dict.fromkeys(str(w.message) for w in caught):
        print(f"{PROG}: warning: {prefix}{message}", file=sys.stderr)


def _system_names(paths: Sequence[str]) -> list[str]:
    """Run names: the file stems; the file names, then the paths, when those repeat."""
    if len(set(paths)) != len(paths):
        raise UsageError("the same run file is given twice")
    for naming in (lambda p: Path(p).stem, lambda p: Path(p).name, str):
        names = ["stdin" if p == "-" else naming(p) for p in paths]
        if len(set(names)) == len(names):
            return names
    return list(paths)  # pragma: no cover


def _check_measures(names: Sequence[str], *, rel: float | None) -> None:
    for name in names:
        if name not in PSEUDO:
            parse_measure(name, rel=rel)


def _output_format(
    given: str | None, output: str | None, default: str, allowed: Sequence[str]
) -> str:
    if given is not None:
        return given
    if output is not None:
        suffix_format = _SUFFIX_FORMATS.get(Path(output).suffix.lower())
        if suffix_format is not None and suffix_format in allowed:
            return suffix_format
    return default


def _emit(output: str | None, write: Any) -> None:
    """Run ``write(binary_file)`` on ``-o`` (atomically) or on standard output."""
    if output is None or output == "-":
        buffer = sys.stdout.buffer
        write(buffer)
        buffer.flush()
    else:
        atomic_write(output, write)


def _text(text: str) -> Any:
    def write(file: BinaryIO) -> None:
        file.write(text.encode())

    return write


def _frame_writer(frame: pl.DataFrame, fmt: str) -> Any:
    def write(file: BinaryIO) -> None:
        if fmt == "csv":
            frame.write_csv(file)
        elif fmt == "json":
            file.write(frame.write_json().encode() + b"\n")
        elif fmt == "parquet":
            frame.write_parquet(file)
        else:  # pragma: no cover
            raise ValueError(fmt)

    return write


def _format_value(name: str, value: float) -> str:
    return f"{int(value)}" if is_count(name) else f"{value:6.4f}"


# ---------------------------------------------------------------- evaluation


@dataclass
class RunResult:
    """The evaluation of one run file."""

    name: str  # system name (file stem)
    runid: str  # trec_eval's runid: the tag of the last line (or the name)
    summary: pl.DataFrame  # measure, value (measures in order)
    per_query: pl.DataFrame  # query, measure, value (queries sorted)
    num_q: int


def _runid_frame(run: pl.LazyFrame, name: str) -> pl.LazyFrame:
    if "tag" in run.collect_schema():
        return run.select(pl.col("tag").last().fill_null(name).alias("runid"))
    return pl.LazyFrame({"runid": [name]})


def _evaluate_run(
    run: pl.LazyFrame,
    qrels: pl.DataFrame,
    names: Sequence[str],
    *,
    name: str,
    complete: bool,
    rel: float | None,
) -> RunResult:
    measures = [n for n in names if n not in PSEUDO]
    kwargs: dict[str, Any] = {"complete": complete, "rel": rel}
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
    )


def _long(results: Sequence[RunResult], names: Sequence[str], *, per_query: bool) -> pl.DataFrame:
    """run, query (null: over all queries), measure, value: per-query rows, then summaries."""
    frames = []
    for result in results:
        if per_query:
            frames.append(
                result.per_query.select(
                    pl.lit(result.name).alias("run"), pl.col("query"), "measure", "value"
                )
            )
        summary = result.summary
        if "num_q" in names:
            summary = pl.concat(
                [pl.DataFrame({"measure": ["num_q"], "value": [float(result.num_q)]}), summary]
            )
        frames.append(
            summary.select(
                pl.lit(result.name).alias("run"),
                pl.lit(None, pl.String).alias("query"),
                "measure",
                "value",
            )
        )
    long = pl.concat(frames)
    order = {name: i for i, name in enumerate(names)}
    return long.with_columns(
        pl.col("measure").replace_strict(order, return_dtype=pl.Int64).alias("_order")
    )


def _trec_text(results: Sequence[RunResult], names: Sequence[str], *, per_query: bool) -> str:
    """trec_eval's layout: ``%-22s\\t%s\\t%6.4f`` (counts ``%ld``), per-query blocks first."""
    lines: list[str] = []
    for result in results:
        if per_query:
            rows = result.per_query.filter(~pl.col("measure").is_in(list(SUMMARY_ONLY)))
            for query, measure, value in rows.select("query", "measure", "value").iter_rows():
                lines.append(f"{measure:<22}\t{query}\t{_format_value(measure, value)}")
        values = dict(result.summary.select("measure", "value").iter_rows())
        for name in names:
            if name == "runid":
                lines.append(f"{'runid':<22}\tall\t{result.runid}")
            elif name == "num_q":
                lines.append(f"{'num_q':<22}\tall\t{result.num_q}")
            else:
                lines.append(f"{name:<22}\tall\t{_format_value(name, values[name])}")
    return "".join(line + "\n" for line in lines)


def _plain_table(header: Sequence[str], rows: Sequence[Sequence[str]], *, left: int) -> str:
    """Columns padded to their width; the first ``left`` columns left-aligned."""
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(w) if i < left else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(cells, widths))
        ).rstrip()

    return "\n".join([line(header), *(line(r) for r in rows)]) + "\n"


def _table_text(results: Sequence[RunResult], names: Sequence[str], *, per_query: bool) -> str:
    """Measures (and queries) down, runs across; "all" rows after the per-query rows."""
    long = _long(results, [n for n in names if n != "runid"], per_query=per_query)
    long = long.with_columns(
        pl.col("query").is_null().alias("_summary"), pl.col("query").fill_null("all")
    )
    wide = long.pivot(on="run", index=["_summary", "query", "_order", "measure"], values="value")
    wide = wide.sort("_summary", "query", "_order")
    run_names = [r.name for r in results]
    keys = ["query", "measure"] if per_query else ["measure"]
    rows = [
        [
            *row[: len(keys)],
            *("" if v is None else _format_value(row[len(keys) - 1], v) for v in row[len(keys) :]),
        ]
        for row in wide.select(*keys, *run_names).iter_rows()
    ]
    return _plain_table([*keys, *run_names], rows, left=len(keys))


# ---------------------------------------------------------------- parsers


def _common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="measure(s): trec_eval names (map, P_10, ndcg_cut_10), trec_eval parameter "
        "lists (P.5,10), sets (trec, all_trec) or ours (nDCG@10, AP(norm=min)@10); "
        "may repeat",
    )
    parser.add_argument(
        "-c",
        dest="complete",
        action="store_true",
        help="average over every qrels query; missing queries score 0 (trec_eval -c)",
    )
    parser.add_argument(
        "-l",
        dest="rel",
        type=float,
        metavar="REL",
        help="relevance level: relevance >= REL is relevant (default 1)",
    )
    parser.add_argument(
        "-M",
        dest="top",
        type=_positive_int,
        metavar="N",
        help="keep only the top N items of each query, after ranking (trec_eval -M)",
    )
    parser.add_argument("-o", "--output", metavar="OUT", help="write to OUT instead of stdout")
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bar and no warnings on stderr"
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _eval_parser() -> argparse.ArgumentParser:
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
    _common_options(parser)
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


def _compare_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} compare",
        description="Compare runs with paired significance tests over queries.",
    )
    _common_options(parser)
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
    parser.add_argument("--n-resamples", type=_positive_int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
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


# ---------------------------------------------------------------- commands


def _read_runs(
    reader: Reader, paths: Sequence[str], top: int | None, *, quiet: bool
) -> Iterator[tuple[str, str, pl.LazyFrame]]:
    names = _system_names(paths)
    for path, name in _progress(list(zip(paths, names)), description="runs", quiet=quiet):
        run = reader.run(path)
        if top is not None:
            run = keep_top(run, top)
        yield path, name, run


def _eval_command(argv: Sequence[str], reader: Reader) -> int:
    args = _eval_parser().parse_args(argv)
    names = expand(args.measures)
    _check_measures(names, rel=args.rel)
    fmt = _output_format(args.format, args.output, "trec", FORMATS)
    if fmt == "parquet" and (args.output in (None, "-")) and sys.stdout.isatty():
        raise UsageError("parquet output is binary: give -o FILE or redirect stdout")
    qrels = reader.qrels(args.qrels).collect()
    results = []
    for path, name, run in _read_runs(reader, args.runs, args.top, quiet=args.quiet):
        with _warnings_to_stderr(f"{path}: ", quiet=args.quiet):
            results.append(
                _evaluate_run(run, qrels, names, name=name, complete=args.complete, rel=args.rel)
            )
    if fmt == "trec":
        _emit(args.output, _text(_trec_text(results, names, per_query=args.per_query)))
    elif fmt == "table":
        _emit(args.output, _text(_table_text(results, names, per_query=args.per_query)))
    else:
        long = _long(results, [n for n in names if n != "runid"], per_query=args.per_query)
        _emit(args.output, _frame_writer(long.drop("_order"), fmt))
    return 0


def _compare_command(argv: Sequence[str], reader: Reader) -> int:
    # the module, not the function `polars_rankeval.compare` that shadows its name
    from polars_rankeval.compare import DEFAULT_MEASURES, check_options, compare

    args = _compare_parser().parse_args(argv)
    names = (
        [n for n in expand(args.measures) if n not in PSEUDO]
        if args.measures
        else list(DEFAULT_MEASURES)
    )
    if not names:
        raise UsageError("no measure to compare (runid and num_q are not measures)")
    _check_measures(names, rel=args.rel)
    correction = None if args.correction == "none" else args.correction
    check_options(
        test=args.test,
        correction=correction,
        alpha=args.alpha,
        n_resamples=args.n_resamples,
        seed=args.seed,
    )
    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs")
    systems = _system_names(args.runs)
    if args.baseline is not None and args.baseline not in systems:
        raise UsageError(f"--baseline {args.baseline!r} is not a run; runs: {', '.join(systems)}")
    fmt = _output_format(args.format, args.output, "table", COMPARE_FORMATS)
    if fmt == "parquet" and (args.output in (None, "-")) and sys.stdout.isatty():
        raise UsageError("parquet output is binary: give -o FILE or redirect stdout")
    report_format = None
    if args.report is not None:
        from polars_rankeval.report import format_for_path

        report_format = format_for_path(args.report)

    qrels = reader.qrels(args.qrels).collect()
    runs = {}
    for _, name, run in _read_runs(reader, args.runs, args.top, quiet=args.quiet):
        runs[name] = run.collect()  # parse errors name the file and line
    options: dict[str, Any] = {
        "baseline": args.baseline,
        "test": args.test,
        "correction": correction,
        "alpha": args.alpha,
        "n_resamples": args.n_resamples,
        "seed": args.seed,
    }
    with _warnings_to_stderr("", quiet=args.quiet):
        if report_format is not None:
            from polars_rankeval.report import build_report

            report = build_report(
                runs,
                qrels,
                names,
                curves=report_format == "html",
                complete=args.complete,
                rel=args.rel,
                **options,
            )
            comparison = report.comparison
            report.write(args.report, format=report_format, title=f"{PROG} compare")
        else:
            comparison = compare(
                runs, qrels, names, complete=args.complete, rel=args.rel, **options
            )
    if fmt in ("markdown", "latex"):
        from polars_rankeval.report import latex_table, markdown_table

        render = markdown_table if fmt == "markdown" else latex_table
        text = render(comparison, test=args.test, correction=correction, alpha=args.alpha)
        _emit(args.output, _text(text))
    elif fmt == "table":
        _emit(args.output, _text(_comparison_text(comparison)))
    else:
        _emit(args.output, _frame_writer(comparison, fmt))
    return 0


def _comparison_text(comparison: pl.DataFrame) -> str:
    header = [
        "measure",
        "system",
        "baseline",
        "mean",
        "base",
        "delta",
        "p",
        "p_corr",
        "d",
        "ci_low",
        "ci_high",
        "sig",
    ]

    def number(value: float | None, digits: int = 4) -> str:
        return "" if value is None else f"{value:.{digits}f}"

    rows = [
        [
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
    return _plain_table(header, rows, left=3)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankeval`` command; returns the exit status (0, 1 bad data, 2 usage)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    with contextlib.ExitStack() as stack:
        reader = Reader(stack)
        try:
            if arguments and arguments[0] == "compare":
                return _compare_command(arguments[1:], reader)
            return _eval_command(arguments, reader)
        except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
            return exit_.code if isinstance(exit_.code, int) else 2
        except (UsageError, MeasureError) as error:
            print(f"{PROG}: error: {reader.name(str(error))}", file=sys.stderr)
            return 2
        except InputError as error:
            print(f"{PROG}: error: {reader.name(str(error))}", file=sys.stderr)
            return 1
        except RankevalError as error:  # bad option values (baseline, test, alpha, ...)
            print(f"{PROG}: error: {reader.name(str(error))}", file=sys.stderr)
            return 2
        except BrokenPipeError:  # `rankeval ... | head`: quiet, as the Python docs advise
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 1
    return 0  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
