"""Measure declarations: families, their parameters, resolved measures and per-query stats.

A *family* (``AP``, ``nDCG``, ...) is declared once, in its module under
``polars_rankeval/measures/``, with its parameters and the polars expression that
computes it.  A *measure* is a family with every parameter resolved
(``AP(norm=min)@10``); its ``str()`` is the canonical name.  Everything else (the
parser, the engines, the README table, the parity tests) walks :data:`REGISTRY`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import polars as pl

__all__ = ["REGISTRY", "Family", "Judged", "Measure", "Param", "Stat", "register"]

ParamValue = str | float | int


@dataclass(frozen=True)
class Param:
    """One named parameter of a family (``norm``, ``gain``, ``p``...)."""

    name: str
    default: ParamValue
    doc: str
    choices: tuple[str, ...] | None = None  # string-valued parameter: allowed values
    minimum: float | None = None  # numeric parameter: open lower bound
    maximum: float | None = None  # numeric parameter: open upper bound

    def validate(self, value: ParamValue) -> ParamValue:
        """Return ``value`` normalised, or raise ``ValueError`` saying what is allowed."""
        if self.choices is not None:
            if not isinstance(value, str) or value not in self.choices:
                raise ValueError(
                    f"{self.name}={value!r} is not allowed; choose one of {', '.join(self.choices)}"
                )
            return value
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError(f"{self.name} must be a finite number, got {value!r}")
        if self.minimum is not None and value <= self.minimum:
            raise ValueError(f"{self.name} must be > {self.minimum}, got {value!r}")
        if self.maximum is not None and value >= self.maximum:
            raise ValueError(f"{self.name} must be < {self.maximum}, got {value!r}")
        return float(value)


# `rel` is a parameter of every family: an item is relevant when relevance >= rel
# (trec_eval's -l, default 1).
REL_PARAM = Param("rel", 1.0, "relevance level: an item is relevant when its relevance >= rel")


@dataclass(frozen=True)
class Stat:
    """A per-query constant computed from the judged set of a query (the qrels, or the
    run's own labels when there are no qrels): R, the judged non-relevant count N, or
    an ideal DCG.  Engines compute each distinct stat once, however many measures use it.
    """

    kind: Literal["num_rel", "num_nonrel", "idcg"]
    level: float | None = None
    gain: str | None = None
    k: int | None = None

    @property
    def column(self) -> str:
        """A column name that identifies this stat (used by both engines)."""
        if self.kind == "idcg":
            return f"_stat_idcg_{self.gain}_{self.k or 'all'}"
        level = f"{self.level:g}".replace(".", "p").replace("-", "m")
        return f"_stat_{self.kind}_{level}"


@dataclass(frozen=True)
class Judged:
    """What a measure's expression sees, in an aggregation over the rows of one query.

    ``pos``: 1-based position of the row (unique within the query);
    ``rel``: relevance value (Float64; null when the item is not in the qrels);
    ``stat``: the per-query constant for a :class:`Stat`.
    """

    pos: pl.Expr
    rel: pl.Expr
    stat: Callable[[Stat], pl.Expr]

    def is_relevant(self, level: float) -> pl.Expr:
        """Boolean per row: relevance >= level (unjudged rows are not relevant)."""
        return (self.rel >= level).fill_null(False)

    def in_top(self, k: int | None) -> pl.Expr:
        """Boolean per row: the row is within the cutoff (always true without one)."""
        return self.pos > 0 if k is None else self.pos <= k  # per row, never a scalar

    def rank_among(self, rows: pl.Expr) -> pl.Expr:
        """For the rows where ``rows`` is true, in row order: how many of those rows are at
        or above this one (1 for the topmost).  A cumulative count without sorting."""
        return self.pos.filter(rows).rank("ordinal")


def safe_div(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator as Float64, 0 where the denominator is 0 or null
    (trec_eval's convention for queries without relevant items)."""
    return (
        pl.when(denominator > 0)
        .then(numerator.cast(pl.Float64) / denominator.cast(pl.Float64))
        .otherwise(pl.lit(0.0))
    )


@dataclass(frozen=True)
class Family:
    """The declaration of one measure family; see the modules in ``measures/``."""

    name: str
    summary: str
    formula: str
    trec_eval: str
    expression: Callable[[Measure, Judged], pl.Expr]
    params: tuple[Param, ...] = ()
    cutoff: bool = True
    aggregate: Literal["mean", "sum"] = "mean"
    aliases: tuple[str, ...] = ()
    stats: Callable[[Measure], tuple[Stat, ...]] = field(default=lambda m: ())
    # Value for a query that is in the qrels but has no run rows (only with complete=True),
    # or whose retrieved rows are all unjudged.  None means 0.
    missing: Callable[[Measure, Callable[[Stat], pl.Expr]], pl.Expr] | None = None

    @property
    def all_params(self) -> tuple[Param, ...]:
        return (*self.params, REL_PARAM)

    def param(self, name: str) -> Param:
        for p in self.all_params:
            if p.name == name:
                return p
        raise KeyError(name)


@dataclass(frozen=True)
class Measure:
    """A family with every parameter resolved.  ``str(m)`` is its canonical name."""

    family: Family
    k: int | None
    params: tuple[tuple[str, ParamValue], ...]  # every parameter, sorted by name

    def __getitem__(self, name: str) -> ParamValue:
        return dict(self.params)[name]

    @property
    def rel(self) -> float:
        return float(self["rel"])

    def __str__(self) -> str:
        changed = [
            f"{name}={_format_value(value)}"
            for name, value in self.params
            if value != self.family.param(name).default
        ]
        text = self.family.name + (f"({','.join(changed)})" if changed else "")
        return text + (f"@{self.k}" if self.k is not None else "")

    def expression(self, judged: Judged) -> pl.Expr:
        """Aggregation expression giving this measure's value for one query (Float64)."""
        return self.family.expression(self, judged).cast(pl.Float64)

    def stats(self) -> tuple[Stat, ...]:
        return self.family.stats(self)

    def missing(self, stat: Callable[[Stat], pl.Expr]) -> pl.Expr:
        if self.family.missing is None:
            return pl.lit(0.0)
        return self.family.missing(self, stat).cast(pl.Float64)


def _format_value(value: ParamValue) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


REGISTRY: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Add a family to :data:`REGISTRY` (called once per module in ``measures/``)."""
    if family.name in REGISTRY:
        raise RuntimeError(f"measure family {family.name} registered twice")
    REGISTRY[family.name] = family
    return family
