"""The options of an evaluation, validated once.

``Columns`` holds the user's column names (every one a keyword of ``evaluate``);
``EvalOptions`` every other option of ``evaluate``.  Both check themselves in
``__post_init__``, so the engines receive only valid values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from polars_rankeval._errors import InputError

__all__ = ["DUPLICATES", "ENGINE_NAMES", "TIES", "Columns", "EvalOptions"]

TIES = ("trec_eval", "average")
DUPLICATES = ("error", "first")
ENGINE_NAMES = ("polars", "duckdb", "spark")


@dataclass(frozen=True)
class Columns:
    """The user's column names (every one a keyword of ``evaluate``)."""

    query: str = "query"
    item: str = "item"
    rank: str | None = "rank"
    score: str | None = "score"
    relevant: str = "relevant"
    relevance: str = "relevance"

    def __post_init__(self) -> None:
        for keyword in ("query", "item", "relevant", "relevance", "rank", "score"):
            value = getattr(self, keyword)
            if value is None and keyword in ("rank", "score"):
                continue
            if not isinstance(value, str) or not value:
                raise InputError(
                    f"{keyword}={value!r}: give the name of a column (a non-empty string)"
                )


def _by_list(by: str | Sequence[str] | None) -> tuple[str, ...]:
    if by is None:
        return ()
    if isinstance(by, str):
        return (by,)
    if not isinstance(by, Sequence) or not all(isinstance(b, str) for b in by):
        raise InputError(f"by={by!r}: give a column name or a list of column names")
    return tuple(by)


@dataclass(frozen=True)
class EvalOptions:
    """Every option of ``evaluate`` but the data, the measures and the column names.

    >>> EvalOptions(by="arm").by
    ('arm',)
    >>> EvalOptions(top=0)
    Traceback (most recent call last):
    ...
    polars_rankeval._errors.InputError: top=0: give a positive number of rows per query
    """

    per_query: bool = False
    by: tuple[str, ...] = field(default=())
    complete: bool = False
    duplicates: str = "error"
    top: int | None = None
    ties: str = "trec_eval"
    engine: str = "polars"

    def __post_init__(self) -> None:
        object.__setattr__(self, "by", _by_list(self.by))  # type: ignore[arg-type]
        if self.engine not in ENGINE_NAMES:
            raise InputError(
                f"engine={self.engine!r}: choose one of {', '.join(map(repr, ENGINE_NAMES))}"
            )
        top = self.top
        if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top <= 0):
            raise InputError(f"top={top!r}: give a positive number of rows per query")
        if self.ties not in TIES:
            raise InputError(f"ties={self.ties!r}: choose 'trec_eval' or 'average'")
        if self.duplicates not in DUPLICATES:
            raise InputError(f"duplicates={self.duplicates!r}: choose 'error' or 'first'")
        if self.ties == "average" and (top is not None or self.duplicates == "first"):
            # both keep rows chosen by the tie-break, which ties="average" averages away
            raise InputError(
                "ties='average' cannot be combined with "
                + ("top=" if top is not None else "duplicates='first'")
                + ": which rows are kept would depend on the order of tied rows; filter or "
                "de-duplicate the run first"
            )
