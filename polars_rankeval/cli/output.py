"""Output of the ``rankeval`` commands: formats, trec_eval's layout, tables, writing."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import polars as pl

from polars_rankeval.cli._common import UsageError

__all__ = [
    "COMPARE_FORMATS",
    "FORMATS",
    "RunResult",
    "emit",
    "frame_writer",
    "long_frame",
    "output_format",
    "plain_table",
    "table_text",
    "text_writer",
    "trec_text",
]

FORMATS = ("trec", "table", "json", "csv", "parquet", "ndeval")
COMPARE_FORMATS = ("table", "markdown", "latex", "json", "csv", "parquet")
_SUFFIX_FORMATS = {
    ".json": "json",
    ".csv": "csv",
    ".parquet": "parquet",
    ".md": "markdown",
    ".tex": "latex",
}
Writer = Callable[[BinaryIO], None]


@dataclass
class RunResult:
    """The evaluation of one run file."""

    name: str  # system name (file stem)
    runid: str  # trec_eval's runid: the tag of the last line (or the name)
    summary: pl.DataFrame  # measure, value (measures in order)
    per_query: pl.DataFrame  # query, measure, value (queries in trec_eval's order)
    num_q: int
    counts: frozenset[str] = frozenset()  # measures printed as integers (%ld)
    texts: pl.DataFrame | None = None  # query, measure, text: per-query text (relstring)


def output_format(
    given: str | None, output: str | None, default: str, allowed: Sequence[str]
) -> str:
    """``--format``, else the one the ``-o`` suffix names, else ``default``."""
    fmt = given
    if fmt is None and output is not None:
        suffix_format = _SUFFIX_FORMATS.get(Path(output).suffix.lower())
        if suffix_format is not None and suffix_format in allowed:
            fmt = suffix_format
    fmt = fmt or default
    if fmt == "parquet" and output in (None, "-") and sys.stdout.isatty():
        raise UsageError("parquet output is binary: give -o FILE or redirect stdout")
    return fmt


def emit(output: str | None, write: Writer) -> None:
    """Run ``write(binary_file)`` on ``-o`` (atomically) or on standard output.

    A path that cannot be written (a missing folder, a folder, no permission) is a
    :class:`UsageError` with one line naming it, not a traceback.
    """
    if output is None or output == "-":
        buffer = sys.stdout.buffer
        write(buffer)
        buffer.flush()
        return
    from polars_rankeval._files import atomic_write

    path = Path(output)
    if path.is_dir():
        raise UsageError(f"-o {output}: is a directory")
    if not path.parent.is_dir():
        raise UsageError(f"-o {output}: no such folder: {path.parent}")
    try:
        atomic_write(path, write)
    except OSError as error:
        raise UsageError(f"-o {output}: cannot write: {error.strerror or error}") from None


def text_writer(text: str) -> Writer:
    """A writer of ``text`` as UTF-8."""

    def write(file: BinaryIO) -> None:
        file.write(text.encode())

    return write


def frame_writer(frame: pl.DataFrame, fmt: str) -> Writer:
    """A writer of ``frame`` as csv, json (records) or parquet."""

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


def _format_value(value: float, *, count: bool) -> str:
    if math.isnan(value):  # trec_eval's 0/0 (-J): glibc prints x86's default NaN so
        return "  -nan"
    return f"{int(value)}" if count else f"{value:6.4f}"


def long_frame(
    results: Sequence[RunResult], names: Sequence[str], *, per_query: bool
) -> pl.DataFrame:
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


def trec_text(
    results: Sequence[RunResult],
    names: Sequence[str],
    *,
    per_query: bool,
    summary_only: Collection[str],
    per_query_only: Collection[str] = (),
    summary: bool = True,
    zscores: bool = False,
) -> str:
    """trec_eval's layout: ``%-22s\\t%s\\t%6.4f`` (counts ``%ld``), per-query blocks first;
    under ``-Z`` every value is ``Z%-22s\\t%s\\t%6.4f``.

    With several runs, each run's block is preceded by a ``# run: NAME`` line (trec_eval
    takes one run; a single run prints exactly what trec_eval prints).
    """
    lines: list[str] = []
    for result in results:
        counts = frozenset() if zscores else result.counts
        if len(results) > 1:
            lines.append(f"# run: {result.name}")
        if per_query:
            lines += _per_query_lines(result, names, summary_only, counts, z=zscores)
        if not summary:
            continue
        values = dict(result.summary.select("measure", "value").iter_rows())
        for name in names:
            if name == "runid":
                lines.append(f"{'runid':<22}\tall\t{result.runid}")
            elif name in per_query_only:
                continue
            elif name == "num_q":
                lines.append(_line("num_q", "all", result.num_q, count=not zscores, z=zscores))
            else:
                lines.append(_line(name, "all", values[name], count=name in counts, z=zscores))
    return "".join(line + "\n" for line in lines)


def _per_query_lines(
    result: RunResult,
    names: Sequence[str],
    summary_only: Collection[str],
    counts: Collection[str],
    *,
    z: bool,
) -> list[str]:
    """The per-query lines: queries in order, each with its measures in print order;
    relstring's text (``%-22s\t%s\t'%s'``) among them, never as a z-score."""
    rows = result.per_query.filter(~pl.col("measure").is_in(list(summary_only)))
    lines = [
        _line(measure, query, value, count=measure in counts, z=z)
        for query, measure, value in rows.select("query", "measure", "value").iter_rows()
    ]
    if result.texts is None:
        return lines
    numbers = rows.select("query", "measure", pl.Series("line", lines, pl.String))
    texts = result.texts.select(
        "query", "measure", pl.format("{}\t{}\t'{}'", pl.col("measure").str.pad_end(22),
                                      pl.col("query"), "text").alias("line")
    )  # fmt: skip
    order = {name: i for i, name in enumerate(names)}
    both = pl.concat([numbers, texts.cast(numbers.schema)])
    both = both.with_columns(pl.col("measure").replace_strict(order, return_dtype=pl.Int64))
    return both.sort("query", "measure", maintain_order=True)["line"].to_list()


def _line(measure: str, query: str, value: float, *, count: bool, z: bool) -> str:
    if z:
        return f"Z{measure:<22}\t{query}\t{_format_value(value, count=False)}"
    return f"{measure:<22}\t{query}\t{_format_value(value, count=count)}"


def plain_table(header: Sequence[str], rows: Sequence[Sequence[str]], *, left: int) -> str:
    """Columns padded to their width; the first ``left`` columns left-aligned.

    >>> print(plain_table(["a", "n"], [["x", "1"], ["yy", "10"]], left=1), end="")
    a    n
    x    1
    yy  10
    """
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(w) if i < left else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(cells, widths))
        ).rstrip()

    return "\n".join([line(header), *(line(r) for r in rows)]) + "\n"


def table_text(results: Sequence[RunResult], names: Sequence[str], *, per_query: bool) -> str:
    """Measures (and queries) down, runs across; "all" rows after the per-query rows."""
    long = long_frame(results, [n for n in names if n != "runid"], per_query=per_query)
    long = long.with_columns(
        pl.col("query").is_null().alias("_summary"), pl.col("query").fill_null("all")
    )
    wide = long.pivot(on="run", index=["_summary", "query", "_order", "measure"], values="value")
    wide = wide.sort("_summary", "query", "_order")
    run_names = [r.name for r in results]
    counts = frozenset().union(*(r.counts for r in results)) | {"num_q"}
    keys = ["query", "measure"] if per_query else ["measure"]
    rows = [
        [
            *row[: len(keys)],
            *(
                "" if v is None else _format_value(v, count=row[len(keys) - 1] in counts)
                for v in row[len(keys) :]
            ),
        ]
        for row in wide.select(*keys, *run_names).iter_rows()
    ]
    return plain_table([*keys, *run_names], rows, left=len(keys))


def json_frame(long: pl.DataFrame) -> pl.DataFrame:
    """The long frame for JSON: summary rows say ``"query": "all"`` (as trec_eval), not null."""
    return long.with_columns(pl.col("query").fill_null("all"))
