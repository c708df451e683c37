"""Tie-group columns for ``ties="average"``: expected values over every ordering of a
query's tied rows (McSherry & Najork, ECIR 2008), in closed form per tie group."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankeval._registry import Measure, Ties
from polars_rankeval._stats import gain
from polars_rankeval.options import Columns
from polars_rankeval.prepare.ranking import POS, order_key

__all__ = ["tie_needs", "with_ties"]

REL = "_rel"


def tie_needs(measures: Sequence[Measure]) -> tuple[list[float], list[str]]:
    """The relevance levels and gain kinds whose tie-group columns ``measures`` read."""
    levels = list(dict.fromkeys(m.rel for m in measures))
    gains = list(dict.fromkeys(str(p) for m in measures for n, p in m.params if n == "gain"))
    return levels, gains


def _suffix(level: float) -> str:
    return f"{level:g}".replace(".", "p").replace("-", "m")


def _name(what: str, level: float) -> str:
    return f"_tie_{what}_{_suffix(level)}"


def _relevant(level: float) -> pl.Expr:
    return (pl.col(REL) >= level).fill_null(False).cast(pl.Float64)


def with_ties(
    rows: pl.LazyFrame,
    keys: Sequence[str],
    columns: Columns,
    order_column: str,
    levels: Sequence[float],
    gains: Sequence[str],
) -> tuple[pl.LazyFrame, Ties]:
    """Add the tie-group columns (see :class:`Ties`) to the judged rows: windows over
    (keys, order value).  A group's rows hold consecutive positions (ties are broken
    by item only among equal order values), so with ``s`` = its top position - 1 a
    row's place in it is ``pos - s``."""
    keys = list(keys)
    group = [*keys, order_key(columns, order_column)]
    pos = pl.col(POS)
    rows = rows.with_columns(
        pl.len().over(group).cast(pl.Float64).alias("_tie_n"),
        (pos.min().over(group) - 1).cast(pl.Float64).alias("_tie_s"),
        *[_relevant(v).sum().over(group).alias(_name("r", v)) for v in levels],
        # relevant rows at positions <= pos, for h below
        *[_relevant(v).cum_sum().over(keys, order_by=POS).alias(_name("c", v)) for v in levels],
        *[gain(pl.col(REL), g).mean().over(group).alias(f"_tie_gain_{g}") for g in gains],
    )
    j = pos.cast(pl.Float64) - pl.col("_tie_s")
    n = pl.col("_tie_n")
    second: list[pl.Expr] = []
    for v in levels:
        # h: the cumulative count just above the group's top row
        h = (pl.col(_name("c", v)) - _relevant(v)).min().over(group)
        # Q(j) = product over the group's rows above this one of (n - r - j' + 1) / (n - j' + 1)
        factor = (n - pl.col(_name("r", v)) - j + 1.0) / (n - j + 1.0)
        q = factor.cum_prod().shift(1, fill_value=1.0).over(group, order_by=POS)
        second += [h.alias(_name("h", v)), q.alias(_name("q", v))]
    rows = rows.with_columns(second)
    ties = Ties(
        size=pl.col("_tie_n"),
        above=pl.col("_tie_s"),
        relevant=lambda v: pl.col(_name("r", v)),
        relevant_above=lambda v: pl.col(_name("h", v)),
        none_before=lambda v: pl.col(_name("q", v)),
        mean_gain=lambda g: pl.col(f"_tie_gain_{g}"),
    )
    return rows, ties
