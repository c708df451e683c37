"""What the ``rankeval`` commands share: the usage error, option helpers, warnings."""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

__all__ = [
    "PROG",
    "UsageError",
    "check_measures",
    "cli_words",
    "common_options",
    "positive_int",
    "progress",
    "system_names",
    "warnings_to_stderr",
]

PROG = "rankeval"
T = TypeVar("T")


class UsageError(Exception):
    """A bad command line: exit status 2."""


_API_TO_CLI = {
    "pass duplicates='first'": "give --duplicates first",
    "duplicates='first'": "--duplicates first",
}


def cli_words(text: str) -> str:
    """A library message in the command's words (``--duplicates first``, not the keyword).

    >>> cli_words("pass duplicates='first' to keep the best-ranked one")
    'give --duplicates first to keep the best-ranked one'
    """
    for api, cli in _API_TO_CLI.items():
        text = text.replace(api, cli)
    return text


def progress(items: Sequence[T], *, description: str, quiet: bool) -> Iterable[T]:
    """A progress bar on a terminal (tqdm, when installed); silent otherwise."""
    if quiet or len(items) < 2 or not sys.stderr.isatty():
        return items
    try:
        from tqdm import tqdm
    except ImportError:
        return items
    return tqdm(items, desc=description, file=sys.stderr, leave=False, unit="run")


@contextlib.contextmanager
def warnings_to_stderr(prefix: str, *, quiet: bool) -> Iterator[None]:
    """Print each distinct warning once, as ``rankeval: warning: <prefix>...``; or none."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore" if quiet else "always")
        yield
    for message in dict.fromkeys(str(w.message) for w in caught):
        print(f"{PROG}: warning: {prefix}{cli_words(message)}", file=sys.stderr)


def system_names(paths: Sequence[str]) -> list[str]:
    """Run names: the file stems; the file names, then the paths, when those repeat.

    >>> system_names(["a/bm25.txt", "b/dense.txt"])
    ['bm25', 'dense']
    """
    if len(set(paths)) != len(paths):
        raise UsageError("the same run file is given twice")
    for naming in (lambda p: Path(p).stem, lambda p: Path(p).name, str):
        names = ["stdin" if p == "-" else naming(p) for p in paths]
        if len(set(names)) == len(names):
            return names
    return list(paths)  # pragma: no cover


def check_measures(names: Sequence[str], *, rel: float | None) -> None:
    """Raise MeasureError for a name the library cannot compute."""
    from polars_rankeval._parse import parse_measure
    from polars_rankeval._trec_names import PSEUDO, TEXT

    for name in names:
        if name not in PSEUDO and name not in TEXT:
            parse_measure(name, rel=rel)


def positive_int(text: str) -> int:
    """argparse type: an integer > 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def common_options(parser: argparse.ArgumentParser) -> None:
    """The options of both commands: measures, -c, -l, -M, -o, --quiet, --duplicates."""
    parser.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="measure(s): trec_eval names (map, P_10, ndcg_cut_10), trec_eval parameter "
        "lists (P.5,10), sets (official, set, all_trec) or ours (nDCG@10, AP(norm=min)@10); "
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
        type=positive_int,
        metavar="N",
        help="keep only the top N items of each query, after ranking (trec_eval -M)",
    )
    parser.add_argument("-o", "--output", metavar="OUT", help="write to OUT instead of stdout")
    parser.add_argument(
        "--duplicates",
        choices=("error", "first"),
        default="error",
        help="a run row repeating a (query, item): an error (default), or keep the first",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bar and no warnings on stderr"
    )
