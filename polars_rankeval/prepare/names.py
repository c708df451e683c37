"""User column names that are also names the engines give their own columns (``_pos``,
``_rel``, ``_q``, ``_m0``...), or that ``pl.col`` reads as a pattern (``*``, ``^...$``):
the front renames such columns to free names before evaluating and gives the key
columns of the result their names back, so whatever the user's columns are called, the
numbers are the same."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import NamedTuple

import polars as pl

from polars_rankeval.options import Columns

__all__ = ["RESERVED", "Aliases", "alias_columns", "needs_alias"]

# names the engines give their own columns (prepare/judge.py, engines/*)
RESERVED = re.compile(
    r"_(pos|rel|num_ret|in_run|in_qrels|dropped|first|order|q|n|rank|rk_.*|m\d+|b\d+"
    r"|stat_.*|check_.*|tie_.*)"
)
_KEYWORDS = ("query", "item", "rank", "score", "relevant", "relevance")


def needs_alias(name: str) -> bool:
    """Whether the engines cannot use ``name`` as it is: an internal name, or one that
    ``pl.col`` expands (``*`` is every column, ``^...$`` a regular expression).

    >>> [needs_alias(n) for n in ("_pos", "*", "^a.*$", "query", "a*")]
    [True, True, True, False, False]
    """
    pattern = name == "*" or (name.startswith("^") and name.endswith("$"))
    return pattern or RESERVED.fullmatch(name) is not None


class Aliases(NamedTuple):
    """The frames and names to evaluate with, and how to name the result's keys back."""

    run: pl.DataFrame | pl.LazyFrame
    qrels: pl.DataFrame | pl.LazyFrame | None
    columns: Columns
    by: tuple[str, ...]
    back: dict[str, str]  # alias -> the user's name


def _schema(frame: pl.DataFrame | pl.LazyFrame | None) -> set[str]:
    if frame is None:
        return set()
    return set(frame.collect_schema().names())


def alias_columns(
    run: pl.DataFrame | pl.LazyFrame,
    qrels: pl.DataFrame | pl.LazyFrame | None,
    columns: Columns,
    by: tuple[str, ...],
) -> Aliases:
    """Rename every used column whose name :func:`needs_alias` to a free name (``user_0``...).

    >>> run = pl.DataFrame({"_pos": ["q"], "item": ["a"], "score": [1.0]})
    >>> a = alias_columns(run, None, Columns(query="_pos"), ())
    >>> a.columns.query, a.back
    ('user_0', {'user_0': '_pos'})
    """
    names = [getattr(columns, k) for k in _KEYWORDS] + list(by)
    clashing = [n for n in dict.fromkeys(names) if n is not None and needs_alias(n)]
    if not clashing:
        return Aliases(run, qrels, columns, by, {})
    taken = _schema(run) | _schema(qrels)
    alias: dict[str, str] = {}
    n = 0
    for name in clashing:
        while f"user_{n}" in taken:
            n += 1
        alias[name] = f"user_{n}"
        taken.add(alias[name])

    def rename(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame | pl.LazyFrame:
        present = _schema(frame)
        return frame.rename({k: v for k, v in alias.items() if k in present})

    new_columns = replace(
        columns,
        **{k: alias.get(getattr(columns, k), getattr(columns, k)) for k in _KEYWORDS},
    )
    return Aliases(
        rename(run),
        None if qrels is None else rename(qrels),
        new_columns,
        tuple(alias.get(b, b) for b in by),
        {v: k for k, v in alias.items()},
    )
